import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blake2b as nobleBlake2b } from '@noble/hashes/blake2.js';
import { Blake2b, blake2b } from '../../src/chain/crypto/blake2b.js';
import { blake2b256, personalization } from '../../src/chain/crypto/hash.js';
import { toHex } from '../../src/chain/encoding/hex.js';
import { prng } from '../helpers/prng.js';

// Every expected value below except RFC 7693's comes from @noble/hashes, an independent implementation.
function noble(data: Uint8Array, outLen: number, pers?: Uint8Array): string {
  return toHex(nobleBlake2b(data, pers ? { dkLen: outLen, personalization: pers } : { dkLen: outLen }));
}

function randomBytes(rnd: () => number, n: number): Uint8Array {
  return Uint8Array.from({ length: n }, () => Math.floor(rnd() * 256));
}

const PERS = personalization('ZcashSigHash', Uint8Array.of(0xbb, 0x09, 0xb8, 0x76));
const PERS_EQUIHASH = Uint8Array.from([...new TextEncoder().encode('ZcashPoW'), 200, 0, 0, 0, 9, 0, 0, 0]);
const OUT_LENS = [1, 20, 32, 50, 64];

test('blake2b: RFC 7693 Appendix A, BLAKE2b-512("abc")', () => {
  const want =
    'ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1' +
    '7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923';
  const abc = new TextEncoder().encode('abc');
  assert.equal(toHex(blake2b(abc, 64)), want);
  assert.equal(toHex(new Blake2b(64).update(abc).digest()), want);
});

test('blake2b: one-shot agrees with @noble/hashes for every length 0..300, several output lengths, with and without personalisation', () => {
  const rnd = prng(7693);
  const data = randomBytes(rnd, 300);
  for (let n = 0; n <= 300; n++) {
    const m = data.subarray(0, n);
    for (const outLen of OUT_LENS) {
      assert.equal(toHex(blake2b(m, outLen)), noble(m, outLen), `len ${n} out ${outLen}`);
      assert.equal(toHex(blake2b(m, outLen, PERS)), noble(m, outLen, PERS), `len ${n} out ${outLen} pers`);
    }
  }
});

test('blake2b: block-boundary and longer lengths agree with @noble/hashes', () => {
  const rnd = prng(128);
  for (const n of [127, 128, 129, 255, 256, 257, 383, 384, 385, 1000, 4096, 65536 + 3]) {
    const m = randomBytes(rnd, n);
    for (const outLen of OUT_LENS) {
      for (const pers of [undefined, PERS, PERS_EQUIHASH]) {
        assert.equal(toHex(blake2b(m, outLen, pers)), noble(m, outLen, pers), `len ${n} out ${outLen} pers ${pers !== undefined}`);
      }
    }
  }
});

test('blake2b: inputs that are unaligned views into a larger buffer', () => {
  const rnd = prng(3);
  const whole = randomBytes(rnd, 1200);
  for (const [start, n] of [[1, 36], [3, 128], [5, 129], [7, 1000], [130, 257]] as const) {
    const m = whole.subarray(start, start + n);
    assert.equal(toHex(blake2b(m, 32, PERS)), noble(m, 32, PERS), `${start}+${n}`);
    assert.equal(toHex(new Blake2b(64).update(m).digest()), noble(m, 64), `${start}+${n} incremental`);
  }
});

test('blake2b and blake2b256 with an end hash data[0..end) only (a scratch writer\'s bytes), whatever follows', () => {
  const rnd = prng(2430);
  const whole = randomBytes(rnd, 700);
  for (const end of [0, 1, 36, 127, 128, 129, 256, 257, 699]) {
    const m = whole.subarray(0, end);
    assert.equal(toHex(blake2b(whole, 32, PERS, end)), noble(m, 32, PERS), `end ${end}`);
    assert.equal(toHex(blake2b256(whole, PERS, end)), noble(m, 32, PERS), `end ${end}, blake2b256`);
  }
});

test('blake2b256 is BLAKE2b-256 with the personalisation', () => {
  const rnd = prng(243);
  for (const n of [0, 36, 68, 220, 300]) {
    const m = randomBytes(rnd, n);
    assert.equal(toHex(blake2b256(m, PERS)), noble(m, 32, PERS), `len ${n}`);
  }
});

test('blake2b: incremental updates in random chunks equal the one-shot hash', () => {
  const rnd = prng(42);
  for (let round = 0; round < 300; round++) {
    const n = Math.floor(rnd() * 700);
    const m = randomBytes(rnd, n);
    const outLen = OUT_LENS[round % OUT_LENS.length]!;
    const pers = round % 2 ? PERS : undefined;
    const h = new Blake2b(outLen, pers);
    let pos = 0;
    while (pos < n) {
      // Chunks of 0..300 bytes, with exact block sizes now and then.
      const r = rnd();
      const size = r < 0.1 ? 0 : r < 0.2 ? 128 : r < 0.3 ? 256 : Math.floor(rnd() * 300);
      h.update(m.subarray(pos, pos + size));
      pos += size;
    }
    assert.equal(toHex(h.digest()), noble(m, outLen, pers), `round ${round}: ${n} bytes`);
  }
});

test('blake2b: byte-by-byte and block-by-block updates equal the one-shot hash', () => {
  const m = randomBytes(prng(1), 600);
  for (const n of [0, 1, 127, 128, 129, 256, 600]) {
    const part = m.subarray(0, n);
    const bytes = new Blake2b(32, PERS);
    for (let i = 0; i < n; i++) bytes.update(part.subarray(i, i + 1));
    assert.equal(toHex(bytes.digest()), noble(part, 32, PERS), `bytes ${n}`);
    const blocks = new Blake2b(32, PERS);
    for (let i = 0; i < n; i += 128) blocks.update(part.subarray(i, i + 128));
    assert.equal(toHex(blocks.digest()), noble(part, 32, PERS), `blocks ${n}`);
  }
});

test('blake2b: clone and copyTo continue independently, the source unaffected', () => {
  const rnd = prng(99);
  for (const prefixLen of [0, 1, 100, 127, 128, 129, 140, 256, 300]) {
    const prefix = randomBytes(rnd, prefixLen);
    const base = new Blake2b(50, PERS_EQUIHASH).update(prefix);
    const before = toHex(base.digest());
    assert.equal(before, noble(prefix, 50, PERS_EQUIHASH), `prefix ${prefixLen}`);

    // A scratch state with other parameters and pending data: copyTo must overwrite all of it.
    const scratch = new Blake2b(7).update(randomBytes(rnd, 200));
    for (const tailLen of [0, 4, 128, 200]) {
      const tail = randomBytes(rnd, tailLen);
      const both = new Uint8Array(prefixLen + tailLen);
      both.set(prefix);
      both.set(tail, prefixLen);
      const copied = base.copyTo(scratch);
      assert.equal(copied, scratch);
      assert.equal(toHex(copied.update(tail).digest()), noble(both, 50, PERS_EQUIHASH), `copyTo ${prefixLen}+${tailLen}`);
      const cloned = base.clone();
      assert.notEqual(cloned, base);
      assert.equal(toHex(cloned.update(tail).digest()), noble(both, 50, PERS_EQUIHASH), `clone ${prefixLen}+${tailLen}`);
      assert.equal(toHex(base.digest()), before, `source after ${prefixLen}+${tailLen}`);
    }
  }
});

test('blake2b: Equihash-style use, one base state copied into one scratch per index', () => {
  const input = randomBytes(prng(140), 140);
  const base = new Blake2b(50, PERS_EQUIHASH).update(input);
  const scratch = base.clone();
  const withIndex = new Uint8Array(144);
  withIndex.set(input);
  const le = new Uint8Array(4);
  for (const g of [0, 1, 2, 255, 256, 65535, 1 << 20, 0xffffffff]) {
    new DataView(le.buffer).setUint32(0, g, true);
    withIndex.set(le, 140);
    const out = new Uint8Array(50);
    base.copyTo(scratch).update(le).digestInto(out);
    assert.equal(toHex(out), noble(withIndex, 50, PERS_EQUIHASH), `index ${g}`);
  }
});

test('blake2b: digest does not consume the state; the one-shot leaks nothing between calls', () => {
  const rnd = prng(5);
  const a = randomBytes(rnd, 200);
  const b = randomBytes(rnd, 77);
  const h = new Blake2b(64, PERS).update(a);
  const first = toHex(h.digest());
  assert.equal(first, noble(a, 64, PERS));
  assert.equal(toHex(h.digest()), first);
  // Updating after a digest goes on from the absorbed data.
  const ab = new Uint8Array(277);
  ab.set(a);
  ab.set(b, 200);
  assert.equal(toHex(h.update(b).digest()), noble(ab, 64, PERS));

  // One-shot calls in a row with other lengths and parameters, short after long and back.
  const outputs: Uint8Array[] = [];
  const calls: [Uint8Array, number, Uint8Array | undefined][] = [
    [ab, 64, PERS], [a.subarray(0, 3), 1, undefined], [ab, 20, PERS], [new Uint8Array(0), 32, undefined], [b, 50, PERS], [ab, 64, PERS],
  ];
  for (const [m, outLen, pers] of calls) {
    const out = blake2b(m, outLen, pers);
    assert.equal(out.length, outLen);
    assert.equal(toHex(out), noble(m, outLen, pers));
    outputs.push(out);
  }
  // Earlier results are fresh arrays, not overwritten by later calls.
  calls.forEach(([m, outLen, pers], i) => assert.equal(toHex(outputs[i]!), noble(m, outLen, pers)));
});

test('blake2b: digestInto writes exactly outLen bytes and refuses a short buffer', () => {
  const m = randomBytes(prng(8), 90);
  const out = new Uint8Array(70).fill(0xaa);
  new Blake2b(33).update(m).digestInto(out);
  assert.equal(toHex(out.subarray(0, 33)), noble(m, 33));
  assert.ok(out.subarray(33).every((x) => x === 0xaa));
  assert.throws(() => new Blake2b(33).digestInto(new Uint8Array(32)), /BLAKE2b/);
});

test('blake2b: a bad output length or personalisation length throws', () => {
  for (const outLen of [0, 65, -1, 1.5, NaN, Infinity]) {
    assert.throws(() => blake2b(new Uint8Array(1), outLen), /BLAKE2b output length/, String(outLen));
    assert.throws(() => new Blake2b(outLen), /BLAKE2b output length/, String(outLen));
  }
  for (const n of [0, 8, 15, 17, 32]) {
    assert.throws(() => blake2b(new Uint8Array(1), 32, new Uint8Array(n)), /BLAKE2b personalization/, String(n));
    assert.throws(() => new Blake2b(32, new Uint8Array(n)), /BLAKE2b personalization/, String(n));
    assert.throws(() => blake2b256(new Uint8Array(1), new Uint8Array(n)), /BLAKE2b personalization/, String(n));
  }
  // A refused call leaves the shared one-shot usable.
  assert.equal(toHex(blake2b(new Uint8Array(5), 32, PERS)), noble(new Uint8Array(5), 32, PERS));
});
