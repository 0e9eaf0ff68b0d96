import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fromHex, fromHexReversed, isHex, toHex, toHexReversed } from '../../src/chain/encoding/hex.js';
import { DecodeError } from '../../src/chain/encoding/errors.js';
import { prng } from '../helpers/prng.js';

test('hex: every byte value, both orders, and round trips on random lengths', () => {
  const all = Uint8Array.from({ length: 256 }, (_, i) => i);
  const want = Buffer.from(all).toString('hex');
  assert.equal(toHex(all), want);
  assert.equal(toHexReversed(all), Buffer.from(all).reverse().toString('hex'));
  assert.equal(toHexReversed(new Uint8Array(0)), '');
  // A view into a larger buffer: only its own bytes.
  assert.equal(toHexReversed(all.subarray(16, 20)), '13121110');
  const rnd = prng(9);
  for (let n = 0; n < 200; n++) {
    const b = Uint8Array.from({ length: Math.floor(rnd() * 80) }, () => Math.floor(rnd() * 256));
    assert.deepEqual(fromHexReversed(toHexReversed(b)), b);
    assert.deepEqual(fromHex(toHex(b)), b);
    assert.deepEqual(fromHex(toHex(b).toUpperCase()), b);
  }
});

test('hex: odd length and non-hex digits are refused', () => {
  assert.equal(isHex(''), true);
  for (const bad of ['0', 'abc', 'zz', '0x00', ' 00', '00 ']) {
    assert.equal(isHex(bad), false, bad);
    assert.throws(() => fromHex(bad), DecodeError);
  }
});
