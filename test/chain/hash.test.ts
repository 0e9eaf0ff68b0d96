import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NATIVE_SHA256_FROM, hash160, sha256, sha256d } from '../../src/chain/crypto/hash.js';
import { toHex } from '../../src/chain/encoding/hex.js';

const ascii = (s: string) => new TextEncoder().encode(s);

test('sha256 and sha256d: FIPS 180-2 vectors, and the txid of the genesis coinbase', () => {
  assert.equal(toHex(sha256(ascii('abc'))), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  assert.equal(toHex(sha256(new Uint8Array(0))), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  assert.equal(
    toHex(sha256(ascii('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'))),
    '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
  );
  assert.equal(toHex(sha256d(ascii('hello'))), '9595c9df90075148eb06860365df33584b75bff782a510c6cd4883a419833d50');
});

test('hash160: RIPEMD-160 of SHA-256, as addresses use it (the secp256k1 generator point, compressed)', () => {
  const g = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
  assert.equal(toHex(hash160(Uint8Array.from(Buffer.from(g, 'hex')))), '751e76e8199196d454941c45d1b3a323f1433bd6');
});

test('sha256 and sha256d agree with @noble/hashes on every length 0..1100 (each padding case) and on the FIPS million-a vector', async () => {
  const { sha256: nobleSha256 } = await import('@noble/hashes/sha2.js');
  // A deterministic byte stream (xorshift), so that a failure names a reproducible input.
  let x = 0x9e3779b9;
  const next = () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), x & 0xff);
  for (let n = 0; n <= 1100; n++) {
    const data = Uint8Array.from({ length: n }, next);
    assert.equal(toHex(sha256(data)), toHex(nobleSha256(data)), `sha256, length ${n}`);
    assert.equal(toHex(sha256d(data)), toHex(nobleSha256(nobleSha256(data))), `sha256d, length ${n}`);
  }
  // A view into a larger buffer at an odd offset hashes its own bytes only.
  const big = Uint8Array.from({ length: 300 }, next);
  const view = big.subarray(7, 7 + 226);
  assert.equal(toHex(sha256d(view)), toHex(nobleSha256(nobleSha256(big.slice(7, 233)))));
  assert.equal(toHex(sha256(new Uint8Array(1_000_000).fill(0x61))), 'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0');
});

test('sha256 and sha256d on either side of NATIVE_SHA256_FROM (sha256.ts below, node:crypto from it on): random lengths and offsets agree with @noble/hashes, and each result is a plain Uint8Array of its own', async () => {
  const { sha256: nobleSha256 } = await import('@noble/hashes/sha2.js');
  assert.ok(NATIVE_SHA256_FROM > 80 && NATIVE_SHA256_FROM < 1100, `threshold ${NATIVE_SHA256_FROM}`);
  let x = 0x1b873593;
  const next = () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), x >>> 0);
  const pool = Uint8Array.from({ length: 4096 }, () => next() & 0xff);
  for (let i = 0; i < 2000; i++) {
    // Lengths around the threshold (and across the 64-byte padding cases there), views anywhere in a shared buffer.
    const n = NATIVE_SHA256_FROM - 130 + (next() % 260);
    const at = next() % (pool.length - n);
    const view = pool.subarray(at, at + n);
    const copy = pool.slice(at, at + n);
    const once = sha256(view);
    const twice = sha256d(view);
    assert.equal(toHex(once), toHex(nobleSha256(copy)), `sha256, length ${n} at ${at}`);
    assert.equal(toHex(twice), toHex(nobleSha256(nobleSha256(copy))), `sha256d, length ${n} at ${at}`);
    for (const h of [once, twice]) {
      // Not a Buffer: its slice() copies (a Buffer's would share the bytes).
      assert.equal(Object.getPrototypeOf(h), Uint8Array.prototype, `length ${n}`);
      assert.equal(h.length, 32);
      const c = h.slice();
      c[0] = c[0]! ^ 0xff;
      assert.notEqual(h[0], c[0], `length ${n}: slice() shares the digest's bytes`);
    }
    // A later hash leaves an earlier digest as it was (no shared output buffer).
    const kept = toHex(twice);
    sha256d(pool.subarray(0, n));
    assert.equal(toHex(twice), kept, `length ${n}: an earlier digest changed`);
  }
});

test('ripemd160: the designers\' vectors, and agreement with @noble/hashes on every length 0..1100', async () => {
  const { ripemd160: nobleRipemd160 } = await import('@noble/hashes/legacy.js');
  const { ripemd160 } = await import('../../src/chain/crypto/hash.js');
  // Dobbertin, Bosselaers, Preneel: RIPEMD-160 test vectors.
  assert.equal(toHex(ripemd160(ascii(''))), '9c1185a5c5e9fc54612808977ee8f548b2258d31');
  assert.equal(toHex(ripemd160(ascii('abc'))), '8eb208f7e05d987a9b044a8e98c6b087f15a0bfc');
  assert.equal(toHex(ripemd160(ascii('message digest'))), '5d0689ef49d2fae572b881b123a85ffa21595f36');
  assert.equal(toHex(ripemd160(ascii('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'))), '12a053384a9c0c88e405a06c27dcf49ada62eb2b');
  assert.equal(toHex(ripemd160(new Uint8Array(1_000_000).fill(0x61))), '52783243c1697bdbe16d37f97f68f08325dc1528');
  let x = 0x2545f491;
  const next = () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), x & 0xff);
  for (let n = 0; n <= 1100; n++) {
    const data = Uint8Array.from({ length: n }, next);
    assert.equal(toHex(ripemd160(data)), toHex(nobleRipemd160(data)), `ripemd160, length ${n}`);
  }
  // A view into a larger buffer at an odd offset hashes its own bytes only.
  const big = Uint8Array.from({ length: 200 }, next);
  assert.equal(toHex(ripemd160(big.subarray(3, 136))), toHex(nobleRipemd160(big.slice(3, 136))));
});
