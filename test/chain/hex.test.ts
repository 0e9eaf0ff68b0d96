import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fromHex, fromHexReversed, hexBytesChecked, isHex, toHex, toHexReversed } from '../../src/chain/encoding/hex.js';
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

test('hexBytesChecked: the bytes of exactly the strings isHex accepts, null for the rest', () => {
  const rnd = prng(31);
  for (let n = 0; n < 200; n++) {
    const b = Uint8Array.from({ length: Math.floor(rnd() * 80) }, () => Math.floor(rnd() * 256));
    assert.deepEqual(hexBytesChecked(toHex(b)), b);
    assert.deepEqual(hexBytesChecked(toHex(b).toUpperCase()), b);
  }
  // A bad character at every position of a valid string, odd lengths, and characters whose low byte is
  // a hex digit (Buffer's decoder reads only the low byte: U+0130 would pass as '0', U+0161 as 'a').
  const good = 'a1b2c3d4e5f60789';
  for (let i = 0; i < good.length; i++) {
    for (const c of ['g', ' ', 'x', '\u0130', '\u0161', '\u00e1', '\uff10', '\u{1F600}']) {
      const bad = good.slice(0, i) + c + good.slice(i + 1);
      assert.equal(isHex(bad), false, JSON.stringify(bad));
      assert.equal(hexBytesChecked(bad), null, JSON.stringify(bad));
    }
  }
  for (const bad of ['0', 'abc', 'zz', '0x00', ' 00', '00 ', '\u01300', '0\u0161']) assert.equal(hexBytesChecked(bad), null, JSON.stringify(bad));
  assert.deepEqual(hexBytesChecked(''), new Uint8Array(0));
});
