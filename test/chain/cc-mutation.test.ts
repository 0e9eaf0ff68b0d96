import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fromHex, concatBytes } from '../../src/chain/encoding/hex.js';
import { DecodeError } from '../../src/chain/encoding/errors.js';
import {
  ACCEPT_EVALS, conditionBinary, decodeCondition, decodeConditionLenient, decodeFulfillment, fulfillmentBinary,
  verifyFulfillment, checkCryptoCondition, MAX_DECODE_STACK, THRESHOLD_STACK_COST, PREFIX_STACK_COST,
} from '../../src/chain/cc/index.js';
import { listVectors, loadVector, needVectors } from '../helpers/vectors.js';
import { cpuMs } from '../helpers/cpu-time.js';

/** mulberry32: a small seeded PRNG so every run mutates the same way. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function mutate(src: Uint8Array, rnd: () => number): Uint8Array {
  const int = (n: number) => Math.floor(rnd() * n);
  const b = src.slice();
  switch (int(6)) {
    case 0: { // flip bits in 1-3 bytes
      for (let k = 0, n = 1 + int(3); k < n && b.length; k++) b[int(b.length)]! ^= 1 << int(8);
      return b;
    }
    case 1: // truncate
      return b.subarray(0, int(b.length));
    case 2: // extend with random bytes
      return concatBytes(b, Uint8Array.from({ length: 1 + int(8) }, () => int(256)));
    case 3: { // insert a byte
      const i = int(b.length + 1);
      return concatBytes(b.subarray(0, i), Uint8Array.of(int(256)), b.subarray(i));
    }
    case 4: { // delete a byte
      const i = int(b.length);
      return concatBytes(b.subarray(0, i), b.subarray(i + 1));
    }
    default: { // set a byte to a boundary value (lengths, tags)
      if (b.length) b[int(b.length)] = [0x00, 0x7f, 0x80, 0x81, 0x82, 0xff, 0xa2, 0xaf][int(8)]!;
      return b;
    }
  }
}

function onlyDecodeError(f: () => unknown, what: string): boolean {
  try {
    f();
    return true;
  } catch (e) {
    if (!(e instanceof DecodeError)) assert.fail(`${what}: ${String(e)} escaped`);
    return false;
  }
}

test('mutation: flips, truncations, extensions of every vector fulfillment and condition raise only DecodeError', needVectors, () => {
  const samples: { ffill?: Uint8Array; cond: Uint8Array }[] = [];
  for (const dir of ['cryptoconditions/komodo', 'cryptoconditions/rfc']) {
    for (const f of listVectors(dir, '.json')) {
      const v = loadVector<{ fulfillment: string; conditionBinary: string }>(f);
      samples.push({ ffill: fromHex(v.fulfillment), cond: fromHex(v.conditionBinary) });
    }
  }
  const gen = loadVector<{ vectors: Record<string, { fulfillment: string; conditionBinary: string }> }>('cryptoconditions/generated/komodo-cc-vectors.json');
  for (const v of Object.values(gen.vectors)) samples.push({ ffill: fromHex(v.fulfillment), cond: fromHex(v.conditionBinary) });
  const globals = loadVector<{ vectors: { conditionBinary: string }[] }>('cryptoconditions/generated/cccustom-global-addresses.json');
  for (const v of globals.vectors) samples.push({ cond: fromHex(v.conditionBinary) });

  const rnd = prng(0x5eed);
  const msg = new Uint8Array(32).fill(7);
  const checker = { sighash: () => msg };
  let tried = 0;
  let accepted = 0;
  const started = cpuMs();
  const ROUNDS = 80;
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of samples) {
      if (s.ffill) {
        const m = mutate(s.ffill, rnd);
        tried++;
        if (onlyDecodeError(() => decodeFulfillment(m), 'decodeFulfillment')) {
          accepted++;
          // Whatever decodes re-encodes and verifies without throwing.
          const tree = decodeFulfillment(m);
          conditionBinary(tree);
          fulfillmentBinary(tree);
          verifyFulfillment(m, s.cond, msg, ACCEPT_EVALS);
        }
        const r = checkCryptoCondition(concatBytes(m, Uint8Array.of(1)), s.cond, s.cond, checker);
        assert.ok(r === true || r === false || r === -1);
      }
      const c = mutate(s.cond, rnd);
      tried++;
      if (onlyDecodeError(() => decodeCondition(c), 'decodeCondition')) conditionBinary(decodeCondition(c));
      onlyDecodeError(() => decodeConditionLenient(c), 'decodeConditionLenient');
    }
  }
  assert.ok(tried > 5000, `tried ${tried}`);
  assert.ok(accepted > 0, 'some mutations (e.g. signature bit flips) still decode');
  assert.ok(cpuMs() - started < 20000, 'no mutation makes decoding slow');
});

/**
 * n nested thresholds around an eval leaf (the shape measured against komodod's asn1c decoder),
 * written in one pass so even a huge depth is cheap to build.
 */
function nestedThresholds(n: number): Uint8Array {
  const leaf = fromHex('af038001e4');
  const lenBytes = (len: number) => (len < 128 ? [len] : len < 256 ? [0x81, len] : len < 65536 ? [0x82, len >> 8, len & 0xff] : [0x83, len >> 16, (len >> 8) & 0xff, len & 0xff]);
  const inner: number[] = [leaf.length];
  for (let i = 1; i <= n; i++) {
    const a0 = 1 + lenBytes(inner[i - 1]!).length + inner[i - 1]!;
    const a2 = a0 + 2;
    inner.push(1 + lenBytes(a2).length + a2);
  }
  const out: number[] = [];
  for (let i = n; i >= 1; i--) {
    const a0 = 1 + lenBytes(inner[i - 1]!).length + inner[i - 1]!;
    out.push(0xa2, ...lenBytes(a0 + 2), 0xa0, ...lenBytes(inner[i - 1]!));
  }
  out.push(...leaf);
  for (let i = 0; i < n; i++) out.push(0xa1, 0x00);
  return Uint8Array.from(out);
}

function nestedPrefixes(n: number): Uint8Array {
  let f = fromHex('af038001e4');
  for (let i = 0; i < n; i++) f = der(0xa1, fromHex('8000810100'), der(0xa2, f));
  return f;
}

function der(tag: number, ...parts: Uint8Array[]): Uint8Array {
  const body = concatBytes(...parts);
  const n = body.length;
  const len = n < 128 ? [n] : n < 256 ? [0x81, n] : n < 65536 ? [0x82, n >> 8, n & 0xff] : [0x83, n >> 16, (n >> 8) & 0xff, n & 0xff];
  return concatBytes(Uint8Array.of(tag, ...len), body);
}

test('deep nesting: bounded where komodod\'s asn1c stack limit falls; huge depth fails fast', () => {
  const maxThresholds = MAX_DECODE_STACK / THRESHOLD_STACK_COST;
  const maxPrefixes = MAX_DECODE_STACK / PREFIX_STACK_COST;
  assert.equal(maxThresholds, 70);
  assert.equal(maxPrefixes, 96);
  decodeFulfillment(nestedThresholds(maxThresholds));
  assert.throws(() => decodeFulfillment(nestedThresholds(maxThresholds + 1)), DecodeError);
  decodeFulfillment(nestedPrefixes(maxPrefixes));
  assert.throws(() => decodeFulfillment(nestedPrefixes(maxPrefixes + 1)), DecodeError);
  const t0 = cpuMs();
  assert.throws(() => decodeFulfillment(nestedThresholds(20000)), DecodeError);
  assert.ok(cpuMs() - t0 < 2000);
  // A length claiming more than the input holds is rejected before anything is allocated.
  assert.throws(() => decodeFulfillment(fromHex('a284ffffffff')), DecodeError);
  assert.throws(() => decodeFulfillment(new Uint8Array(0)), DecodeError);
});
