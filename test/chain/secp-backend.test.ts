import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import {
  CURVE_ORDER, isLowS, isValidPrivateKey, isValidPublicKey, publicKeyFromPrivate, publicKeyUncompressed, secp256k1Backend,
  signCompact, signDER, useSecp256k1Backend, verifyCompact, verifyDER, type Secp256k1Backend,
} from '../../src/chain/crypto/secp256k1.js';
import { comparingBackend } from '../../src/chain/crypto/backend-compare.js';
import {
  loadNativeBackend, loadWasmBackend, pickSecp256k1Backend, secp256k1BackendOf, selectSecp256k1Backend, type LoadResult,
} from '../../src/actors/verify/sig-backend.js';
import { encodeDERSignature, parseDERSignature } from '../../src/chain/crypto/der.js';
import { isValidSignatureEncoding } from '../../src/chain/script/sigencoding.js';
import { decodeFulfillment, type CCNode } from '../../src/chain/cc/index.js';
import { fromHex, toHex } from '../../src/chain/encoding/hex.js';
import { mutate, prng } from '../helpers/prng.js';
import { loadVector, needVectors } from '../helpers/vectors.js';

const N = CURVE_ORDER;
const P = 2n ** 256n - 2n ** 32n - 977n;
const native = secp256k1BackendOf('native');
const wasm = secp256k1BackendOf('wasm');
const noble = secp256k1BackendOf('noble')!;
/**
 * The backends that load here, compared with each other: all three wherever the package ships a
 * prebuilt addon (the first test requires native there), wasm and noble elsewhere.
 */
const all = [native, wasm, noble].filter((b): b is Secp256k1Backend => b !== undefined);
const needAll = all.length >= 2 ? {} : { skip: 'only noble loads here: nothing to compare it with' };

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

/** The platforms the secp256k1 package ships a prebuilt addon for (prebuilds/): native must load there. */
const PREBUILT = ['linux-x64', 'darwin-arm64', 'win32-x64'];

const prebuilt = PREBUILT.includes(`${process.platform}-${process.arch}`);

test('all three backends load here; auto picks native; -sigbackend choices; the report says which', { skip: prebuilt ? false : `no prebuilt addon for ${process.platform}-${process.arch}` }, () => {
  const r = loadNativeBackend();
  assert.ok(r.backend, `the native addon must load on ${process.platform}-${process.arch}: ${r.backend ? '' : r.why}`);
  assert.match(r.detail, /^libsecp256k1 N-API addon, secp256k1\/prebuilds\/.*\.node$/);
  assert.ok(loadWasmBackend().backend, 'tiny-secp256k1 must load on Node 20');
  const prev = secp256k1Backend();
  try {
    // Until the node installs one, src/chain verifies with the reference (nothing to load).
    assert.equal(prev.name, 'noble');
    const auto = selectSecp256k1Backend('auto');
    assert.equal(auto.backend.name, 'native');
    assert.equal(secp256k1Backend(), auto.backend);
    assert.match(auto.report, /^native \(-sigbackend=auto; libsecp256k1 N-API addon, secp256k1\/prebuilds\//);
    for (const name of ['native', 'wasm', 'noble'] as const) {
      const s = selectSecp256k1Backend(name);
      assert.equal(s.backend.name, name);
      assert.equal(secp256k1Backend().name, name);
      assert.ok(s.report.startsWith(`${name} (-sigbackend=${name}; `), s.report);
    }
    // Loaded once per thread: the same object each time.
    assert.equal(selectSecp256k1Backend('native').backend, native);
    assert.equal(selectSecp256k1Backend('wasm').backend, wasm);
  } finally {
    useSecp256k1Backend(prev);
  }
});

test('auto falls back native -> wasm -> noble and says why; an explicit backend that does not load is an error', () => {
  const fails = (why: string) => (): LoadResult => ({ why });
  const loads = (b: Secp256k1Backend, detail: string) => (): LoadResult => ({ backend: b, detail });
  const noNative = { native: fails('No native build was found for platform=x'), wasm: loads(wasm!, 'wasm here') };
  let s = pickSecp256k1Backend('auto', noNative);
  assert.equal(s.backend, wasm);
  assert.equal(s.report, 'wasm (-sigbackend=auto; wasm here; native unavailable: No native build was found for platform=x)');
  s = pickSecp256k1Backend('auto', { native: fails('no addon'), wasm: fails('WebAssembly is unavailable') });
  assert.equal(s.backend.name, 'noble');
  assert.equal(s.report, 'noble (-sigbackend=auto; @noble/curves, pure JavaScript; native unavailable: no addon; wasm unavailable: WebAssembly is unavailable)');
  assert.throws(() => pickSecp256k1Backend('native', noNative), {
    message: '-sigbackend=native: the native libsecp256k1 addon could not be loaded (No native build was found for platform=x)',
  });
  assert.throws(() => pickSecp256k1Backend('wasm', { native: loads(native!, 'n'), wasm: fails('WebAssembly is unavailable') }), {
    message: '-sigbackend=wasm: the WebAssembly libsecp256k1 could not be loaded (WebAssembly is unavailable)',
  });
  // noble needs no loader at all.
  assert.equal(pickSecp256k1Backend('noble', { native: fails('x'), wasm: fails('y') }).backend.name, 'noble');
});

test('without its prebuilt addon native is unavailable, never the package\'s pure-JavaScript fallback', () => {
  // node-gyp-build looks in $SECP256K1_PREBUILD instead of the package when it is set: an empty
  // directory is a platform without a prebuild. The package's index.js would answer with elliptic here.
  const empty = mkdtempSync(join(tmpdir(), 'acnode-noprebuild-'));
  const saved = process.env.SECP256K1_PREBUILD;
  try {
    process.env.SECP256K1_PREBUILD = empty;
    const r = loadNativeBackend();
    assert.equal(r.backend, undefined);
    assert.match(r.backend ? '' : r.why, /^No native build was found for platform=/);
  } finally {
    if (saved === undefined) delete process.env.SECP256K1_PREBUILD;
    else process.env.SECP256K1_PREBUILD = saved;
    rmSync(empty, { recursive: true, force: true });
  }
  assert.equal(loadNativeBackend().backend?.name, 'native');
});

test('without WebAssembly the wasm backend does not load (auto then goes on to noble)', () => {
  const g = globalThis as { WebAssembly?: unknown };
  const saved = g.WebAssembly;
  try {
    delete g.WebAssembly;
    assert.deepEqual(loadWasmBackend(), { why: 'WebAssembly is unavailable' });
  } finally {
    g.WebAssembly = saved;
  }
  assert.equal(loadWasmBackend().backend?.name, 'wasm');
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
 * The property test: 10,000 seeded cases through every exported entry point, with all three backends
 * answering each call (a comparing backend records any disagreement), plus the expected verdict of
 * each case kind and, for strictly encoded signatures, an independent @noble/curves reading.
 */
test('property: native, wasm and noble agree on 10,000 seeded cases (valid, high-S, malformed DER, wrong key/message, bad r/s, bad points)', needAll, () => {
  // The first answers (native, the node's default), the others are compared with it on every call.
  const [first, ...others] = all;
  const cmp = comparingBackend(first!, ...others);
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
      // Signing is compared on every tenth case (and byte for byte below); the rest sign with the first alone.
      const der = i % 10 === 3 ? signDER(digest, k) : encodeDERSignature(first!.sign(digest, k));
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

test('signatures and keys are byte-identical across backends (RFC 6979, low S); bad keys throw on each', needAll, () => {
  for (let i = 0; i < 50; i++) {
    const key = sha256(Uint8Array.of(9, i));
    const d = sha256(Uint8Array.of(10, i));
    const ref = noble.sign(d, key);
    for (const b of all) {
      assert.deepEqual(b.sign(d, key), ref, `${b.name} sign ${i}`);
      assert.deepEqual(b.publicKey(key, true), noble.publicKey(key, true), `${b.name} key ${i}`);
      assert.deepEqual(b.publicKey(key, false), noble.publicKey(key, false), `${b.name} key ${i}`);
      assert.equal(b.isPrivate(key), true);
    }
  }
  for (const bad of [new Uint8Array(32), be32(N), be32(N + 1n), new Uint8Array(31).fill(1), new Uint8Array(33).fill(1)]) {
    for (const b of all) {
      assert.throws(() => b.sign(new Uint8Array(32), bad), Error, `${b.name} sign ${toHex(bad)}`);
      assert.throws(() => b.publicKey(bad, true), Error, `${b.name} publicKey ${toHex(bad)}`);
      assert.equal(b.isPrivate(bad), false, `${b.name} isPrivate ${toHex(bad)}`);
    }
  }
});

/** The secp256k1 nodes of a fulfillment with their public keys and signatures. */
function secpNodes(n: CCNode, out: { publicKey: Uint8Array; signature: Uint8Array }[] = []) {
  if (n.type === 'secp256k1' && n.signature) out.push({ publicKey: n.publicKey, signature: n.signature });
  if (n.type === 'threshold') for (const c of n.subconditions) secpNodes(c, out);
  if (n.type === 'prefix') secpNodes(n.subcondition, out);
  return out;
}

test("each backend signs as komodod's libsecp256k1 does (RFC 6979): the signatures of the generated CC vectors, byte for byte", { ...needVectors, ...needAll }, () => {
  const { vectors } = loadVector<{ vectors: Record<string, { fulfillment: string; msg32: string; privateKeys: string[] }> }>(
    'cryptoconditions/generated/komodo-cc-vectors.json',
  );
  let checked = 0;
  for (const [name, v] of Object.entries(vectors)) {
    const msg = fromHex(v.msg32);
    const keys = v.privateKeys.map(fromHex);
    for (const node of secpNodes(decodeFulfillment(fromHex(v.fulfillment)))) {
      // The key that made this node's signature: the one whose public key the node carries.
      const key = keys.find((k) => toHex(noble.publicKey(k, true)) === toHex(node.publicKey));
      assert.ok(key, `${name}: a signed node without its private key`);
      for (const b of all) {
        assert.equal(toHex(b.sign(msg, key)), toHex(node.signature), `${name}: ${b.name}`);
        checked++;
      }
    }
  }
  assert.ok(checked >= 3 * 4, `${checked} signatures compared`);
});
