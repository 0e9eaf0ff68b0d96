import { test } from 'node:test';
import assert from 'node:assert/strict';
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

test('hash160: RIPEMD-160 of SHA-256, as addresses use it (the secp256k1 generator point, compressed)', () => {
  const g = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
  assert.equal(toHex(hash160(Uint8Array.from(Buffer.from(g, 'hex')))), '751e76e8199196d454941c45d1b3a323f1433bd6');
});
