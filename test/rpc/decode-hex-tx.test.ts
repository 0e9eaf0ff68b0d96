import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeHexTx, decodeHexTxBytes } from '../../src/rpc/methods/rawtransactions.js';
import { toHex } from '../../src/chain/encoding/hex.js';

// rawtx.md §2.1's worked example: a Sapling v4 transaction.
const HEX =
  '0400008085202f890122111111111111111111111111111111111111111111111111111111111111110000000000ffffffff0100e1f505000000001976a914f1dce4182fce875748c4986b240ff7d7bc3fffb088ac000000002c0100000000000000000000000000';

test('DecodeHexTx: the transaction and its own serialisation; trailing bytes ignored, any hex case', () => {
  const got = decodeHexTxBytes(HEX)!;
  assert.equal(toHex(got.raw), HEX);
  assert.equal(toHex(got.tx.toRaw()), HEX);
  // The bytes the mempool keeps own their memory: no view into Buffer's shared 8 KB pool.
  assert.equal(got.raw.buffer.byteLength, HEX.length / 2);
  const trailing = decodeHexTxBytes(HEX + 'abcd')!;
  assert.equal(toHex(trailing.raw), HEX);
  // Neither the raw bytes nor the transaction's views keep the ignored tail alive.
  assert.equal(trailing.raw.buffer.byteLength, HEX.length / 2);
  assert.equal(trailing.tx.vout[0]!.script.buffer, trailing.raw.buffer);
  assert.equal(toHex(trailing.tx.toRaw()), HEX);
  assert.equal(toHex(decodeHexTxBytes(HEX.toUpperCase())!.raw), HEX);
});

test('DecodeHexTx: not hex, odd length, empty or not a transaction: null (komodod returns false)', () => {
  // IsHex covers the whole text, the trailing bytes the transaction does not read included.
  for (const bad of ['', 'zz', HEX.slice(1), HEX.slice(0, 40), '0g' + HEX.slice(2), ' ' + HEX, HEX + 'zz', HEX + 'a', HEX + '0\u00e9', HEX + 'ab\n', HEX.slice(0, -2) + 'g0']) {
    assert.equal(decodeHexTxBytes(bad), null, JSON.stringify(bad.slice(0, 8)));
    assert.equal(decodeHexTx(bad), null);
  }
});
