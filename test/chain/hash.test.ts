import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { ripemd160 as nobleRipemd160 } from '@noble/hashes/legacy.js';
import { hash160, sha256, sha256d } from '../../src/chain/crypto/hash.js';
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

test('sha256, sha256d, hash160 agree with @noble/hashes on every length 0..300, as plain Uint8Arrays', () => {
  let seed = 7;
  for (let n = 0; n <= 300; n++) {
    const data = new Uint8Array(n).map(() => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24);
    // A view into a larger buffer, as the hashes are handed subarrays of raw transactions.
    const framed = new Uint8Array(n + 9);
    framed.set(data, 5);
    const view = framed.subarray(5, 5 + n);
    for (const d of [data, view]) {
      const h = sha256(d);
      assert.equal(Object.getPrototypeOf(h), Uint8Array.prototype);
      assert.equal(h.length, 32);
      assert.deepEqual(h, nobleSha256(d));
      assert.deepEqual(sha256d(d), nobleSha256(nobleSha256(d)));
      assert.deepEqual(hash160(d), nobleRipemd160(nobleSha256(d)));
    }
  }
});
