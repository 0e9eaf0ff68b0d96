import { test } from 'node:test';
import assert from 'node:assert/strict';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import {
  CURVE_ORDER, isLowS, isValidPrivateKey, isValidPublicKey, publicKeyFromPrivate, publicKeyUncompressed, secp256k1Backend, secp256k1BackendOf,
  selectSecp256k1Backend, signCompact, signDER, useSecp256k1Backend, verifyCompact, verifyDER, wasmBackendAvailable,
} from '../../src/chain/crypto/secp256k1.js';
import { comparingBackend } from '../../src/chain/crypto/backend-compare.js';
import { loadWasmBackend } from '../../src/chain/crypto/backend-wasm.js';
import { encodeDERSignature, parseDERSignature } from '../../src/chain/crypto/der.js';
import { isValidSignatureEncoding } from '../../src/chain/script/sigencoding.js';
import { fromHex, toHex } from '../../src/chain/encoding/hex.js';
import { mutate, prng } from '../helpers/prng.js';

const N = CURVE_ORDER;
const P = 2n ** 256n - 2n ** 32n - 977n;
const wasm = secp256k1BackendOf('wasm');
const noble = secp256k1BackendOf('noble')!;

const be32 = (x: bigint) => fromHex(x.toString(16).padStart(64, '0'));
const num = (b: Uint8Array) => BigInt('0x' + (toHex(b) || '0'));

/** DER of arbitrary non-negative r, s (as libsecp256k1 would serialise integers of that size). */
function derOf(r: bigint, s: bigint): Uint8Array {
  const int = (x: bigint) => {
    let h = x.toString(16);
    if (h.length % 2) h = '0' + h;
    let b = fromHex(h);
    if (b[0]! & 0x80) b = Uint8Array.of(0, ...b);
    return b;
  };
  const rb = int(r);
  const sb = int(s);
  return Uint8Array.of(0x30, 4 + rb.length + sb.length, 0x02, rb.length, ...rb, 0x02, sb.length, ...sb);
}

/** An independent reading of a strictly encoded signature: @noble/curves' own DER parser, S normalised. */
function nobleReference(der: Uint8Array, digest: Uint8Array, pub: Uint8Array): boolean {
  try {
    const s = secp256k1.Signature.fromBytes(der, 'der');
    const low = s.s > N >> 1n ? new secp256k1.Signature(s.r, N - s.s) : s;
    let key = pub;
    if (pub.length === 65 && (pub[0] === 6 || pub[0] === 7)) {
      if ((pub[64]! & 1) !== (pub[0] & 1)) return false;
      key = Uint8Array.of(4, ...pub.subarray(1));
    }
    return secp256k1.verify(low.toBytes('compact'), digest, key, { prehash: false, format: 'compact' });
  } catch {
    return false;
  }
}

test('both backends load here; the default is wasm; -sigbackend choices', () => {
  assert.ok(wasmBackendAvailable(), 'tiny-secp256k1 must load on Node 20');
  assert.equal(secp256k1Backend().name, 'wasm');
  assert.equal(selectSecp256k1Backend('noble').name, 'noble');
  assert.equal(selectSecp256k1Backend('auto').name, 'wasm');
  assert.equal(selectSecp256k1Backend('wasm').name, 'wasm');
});

test('without WebAssembly the wasm backend does not load (the default then falls back to noble)', () => {
  const g = globalThis as { WebAssembly?: unknown };
  const saved = g.WebAssembly;
  try {
    delete g.WebAssembly;
    assert.equal(loadWasmBackend(), undefined);
  } finally {
    g.WebAssembly = saved;
  }
  assert.equal(loadWasmBackend()?.name, 'wasm');
});

test('DER parser: libsecp256k1 secp256k1_ecdsa_sig_parse, and minimal serialisation', () => {
  const key = sha256(Uint8Array.of(1));
  const d = sha256(Uint8Array.of(2));
  const der = signDER(d, key);
  const c = parseDERSignature(der)!;
  assert.deepEqual(encodeDERSignature(c), der);
  assert.deepEqual(c, signCompact(d, key));
  // Overflowing or negative integers parse, as zero.
  assert.deepEqual(parseDERSignature(derOf(N, 5n))!.subarray(0, 32), new Uint8Array(32));
  assert.deepEqual(parseDERSignature(derOf(5n, N + 1n))!.subarray(32), new Uint8Array(32));
  assert.deepEqual(parseDERSignature(derOf(2n ** 256n + 1n, 5n))!.subarray(0, 32), new Uint8Array(32));
  assert.deepEqual(parseDERSignature(fromHex('3006020180020101'))!.subarray(0, 32), new Uint8Array(32)); // negative r
  assert.deepEqual(parseDERSignature(derOf(N - 1n, 1n)), Uint8Array.of(...be32(N - 1n), ...be32(1n)));
  // Refused encodings.
  for (const bad of ['', '31', '3006020101020101ff', '300602010102010100', '30070200020101', '3007020201000201010', '3006020101030101', '30810602010102010101', '3007020201010201']) {
    assert.equal(parseDERSignature(fromHex(bad.length % 2 ? bad + '0' : bad)), null, bad);
  }
  assert.equal(parseDERSignature(fromHex('300702020001020101')), null); // excessive 0x00 padding
  assert.equal(parseDERSignature(fromHex('30070202ff80020101')), null); // excessive 0xff padding
  // Long-form lengths are fine when minimal (≥ 128); BER-style short values in long form are refused.
  assert.equal(parseDERSignature(fromHex('308106020101020101')), null);
  // isLowS is CPubKey::CheckLowS: N/2 is low, N/2+1 high, an overflowing S (read as 0) low, unparsable not low.
  assert.equal(isLowS(derOf(1n, N >> 1n)), true);
  assert.equal(isLowS(derOf(1n, (N >> 1n) + 1n)), false);
  assert.equal(isLowS(derOf(1n, N)), true);
  assert.equal(isLowS(fromHex('3006020101')), false);
});

/**
 * The property test: 10,000 seeded cases through every exported entry point, with both backends
 * answering each call (a comparing backend records any disagreement), plus the expected verdict of
 * each case kind and, for strictly encoded signatures, an independent @noble/curves reading.
 */
test('property: wasm and noble agree on 10,000 seeded cases (valid, high-S, malformed DER, wrong key/message, bad r/s, bad points)', { skip: wasm ? false : 'no WebAssembly' }, () => {
  const cmp = comparingBackend(wasm!, noble);
  const prev = useSecp256k1Backend(cmp);
  try {
    const rnd = prng(0x5ec9);
    const bytes = (n: number) => Uint8Array.from({ length: n }, () => Math.floor(rnd() * 256));
    const keys = Array.from({ length: 40 }, (_, i) => sha256(Uint8Array.of(7, i)));
    const pubsOf = keys.map((k) => {
      const u = publicKeyFromPrivate(k, false);
      return [publicKeyFromPrivate(k, true), u, Uint8Array.of(6 | (u[64]! & 1), ...u.subarray(1))] as const;
    });
    let cases = 0;
    let strictChecked = 0;
    const kinds = new Map<string, number>();
    for (let i = 0; i < 10_000; i++) {
      const k = keys[i % keys.length]!;
      const digest = bytes(32);
      const form = Math.floor(rnd() * 3); // compressed, uncompressed, hybrid
      const pubs = pubsOf[i % keys.length]!;
      const pub = pubs[form]!;
      // Signing is compared on every tenth case (and byte for byte below); the rest sign with wasm alone.
      const der = i % 10 === 3 ? signDER(digest, k) : encodeDERSignature(wasm!.sign(digest, k));
      const c = parseDERSignature(der)!;
      const r = num(c.subarray(0, 32));
      const s = num(c.subarray(32));
      let sig = der;
      let msg = digest;
      let key = pub;
      let expect: boolean | undefined;
      let expectLowS: boolean | undefined;
      const kind = ['valid', 'valid', 'high-S', 'malformed-DER', 'wrong-key', 'wrong-message', 'bad-r-s', 'bad-point', 'compact', 'random-r-s'][i % 10]!;
      switch (kind) {
        case 'valid':
          expect = true;
          expectLowS = true;
          break;
        case 'high-S':
          sig = derOf(r, N - s);
          expect = true;
          expectLowS = false;
          break;
        case 'malformed-DER':
          sig = mutate(der, rnd);
          break;
        case 'wrong-key':
          key = pubsOf[(i + 1) % keys.length]![form]!;
          expect = false;
          expectLowS = false;
          break;
        case 'wrong-message':
          msg = Uint8Array.from(digest);
          msg[Math.floor(rnd() * 32)]! ^= 1 << Math.floor(rnd() * 8);
          expect = false;
          expectLowS = false;
          break;
        case 'bad-r-s': {
          const bad = [0n, N, N + 1n, 2n ** 256n - 1n, P][Math.floor(rnd() * 5)]!;
          sig = rnd() < 0.5 ? derOf(bad, s) : derOf(r, bad);
          expect = false;
          expectLowS = false;
          break;
        }
        case 'bad-point': {
          const variants = [
            () => Uint8Array.of(2 + Math.floor(rnd() * 2), ...bytes(32)), // random x: about half are not on the curve
            () => Uint8Array.of(4, ...bytes(64)), // random (x, y): not on the curve
            () => Uint8Array.of(pub.length === 33 ? 4 : 2, ...pub.subarray(1)), // prefix/length mismatch
            () => { const p = publicKeyFromPrivate(k, false); return Uint8Array.of(6 | (1 - (p[64]! & 1)), ...p.subarray(1)); }, // hybrid, wrong parity
            () => { const p = publicKeyFromPrivate(k, false); return Uint8Array.of(5, ...p.subarray(1)); }, // unknown prefix
            () => Uint8Array.of(2, ...be32(P + BigInt(Math.floor(rnd() * 5)))), // x ≥ p
            () => { const p = publicKeyFromPrivate(k, false); const q = p.slice(); q[64]! ^= 1; return q; }, // y flipped: off the curve
            () => new Uint8Array(0),
          ];
          key = variants[Math.floor(rnd() * variants.length)]!();
          expectLowS = undefined;
          break;
        }
        case 'compact': {
          // Crypto-conditions' form: 64-byte r||s, libsecp256k1's verify (high S fails), compressed keys.
          const cpub = pubs[0];
          const sc = signCompact(digest, k);
          assert.deepEqual(sc, c);
          const hi = Uint8Array.of(...sc.subarray(0, 32), ...be32(N - s));
          assert.equal(verifyCompact(sc, digest, cpub, true), true);
          assert.equal(verifyCompact(hi, digest, cpub, true), false);
          assert.equal(verifyCompact(hi, digest, cpub, false), true);
          assert.equal(verifyCompact(Uint8Array.of(...be32(N), ...sc.subarray(32)), digest, cpub, true), false);
          const m = mutate(sc, rnd);
          if (toHex(m) !== toHex(sc)) assert.equal(verifyCompact(m, digest, cpub, true), false);
          break;
        }
        case 'random-r-s':
          sig = derOf(num(bytes(32)), num(bytes(32)));
          expect = false;
          break;
      }
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      const got = verifyDER(sig, msg, key, false);
      // With lowS a low-S signature gives the same answer (the same backend call); high or unparsable fail first.
      const gotLow = kind === 'high-S' || i % 7 === 0 ? verifyDER(sig, msg, key, true) : isLowS(sig) && got;
      if (expect !== undefined) assert.equal(got, expect, `case ${i} (${kind})`);
      if (expectLowS !== undefined) assert.equal(gotLow, expectLowS, `case ${i} (${kind}) low-S`);
      if (kind === 'bad-point' && !isValidPublicKey(key)) assert.equal(got, false, `case ${i}: a bad point never verifies`);
      isValidPublicKey(key);
      // The backends themselves (compared), then the remembering wrapper: the same answer.
      const point = secp256k1Backend().pointUncompressed(key);
      assert.deepEqual(publicKeyUncompressed(key), point, `case ${i}: remembered as parsed`);
      assert.equal(point !== null, isValidPublicKey(key), `case ${i}: the uncompressed form exactly when the key parses`);
      if (point && got) assert.equal(verifyDER(sig, msg, point, false), true, `case ${i}: the uncompressed form verifies the same`);
      isLowS(sig);
      // The independent reading, for every signature the interpreter would let through (strict DER).
      if (Math.floor(i / 10) % 3 === 0 && isValidSignatureEncoding(Uint8Array.of(...sig, 1))) {
        assert.equal(got, nobleReference(sig, msg, key), `case ${i} (${kind}): independent reference`);
        strictChecked++;
      }
      cases++;
    }
    for (let i = 0; i < 200; i++) {
      const d = bytes(32);
      isValidPrivateKey(d);
      isValidPrivateKey([new Uint8Array(32), be32(N), be32(N - 1n), be32(1n)][i % 4]!);
    }
    assert.equal(cases, 10_000);
    assert.ok(strictChecked > 2000, `${strictChecked} strictly encoded`);
    assert.deepEqual(cmp.disagreements, []);
    assert.ok(cmp.calls.verify >= 10_000 && cmp.calls.sign >= 2_000 && cmp.calls.isPoint >= 10_000 && cmp.calls.pointUncompressed >= 10_000, JSON.stringify(cmp.calls));
    assert.ok(cmp.verifiedTrue >= 4000, `${cmp.verifiedTrue} verified`);
  } finally {
    useSecp256k1Backend(prev);
  }
});

test('signatures and keys are byte-identical across backends (RFC 6979, low S)', { skip: wasm ? false : 'no WebAssembly' }, () => {
  for (let i = 0; i < 50; i++) {
    const key = sha256(Uint8Array.of(9, i));
    const d = sha256(Uint8Array.of(10, i));
    assert.deepEqual(wasm!.sign(d, key), noble.sign(d, key));
    assert.deepEqual(wasm!.publicKey(key, true), noble.publicKey(key, true));
    assert.deepEqual(wasm!.publicKey(key, false), noble.publicKey(key, false));
  }
  for (const bad of [new Uint8Array(32), be32(N), new Uint8Array(31).fill(1)]) {
    assert.throws(() => wasm!.sign(new Uint8Array(32), bad));
    assert.throws(() => noble.sign(new Uint8Array(32), bad));
    assert.throws(() => wasm!.publicKey(bad, true));
    assert.throws(() => noble.publicKey(bad, true));
  }
});
