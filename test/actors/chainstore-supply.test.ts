import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Block } from '../../src/chain/block/block.js';
import { BlockHeader } from '../../src/chain/block/header.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { fromHex } from '../../src/chain/encoding/hex.js';
import { p2pkhScript } from '../../src/chain/script/script.js';
import { newCoins } from '../../src/actors/chainstore/supplyindex.js';

test('komodo_newcoins: P2PKH outputs count unless they pay RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPVMY; an output without a destination never counts', () => {
  const skipped = fromHex('29cfc6376255a78451eeb4b129ed8eacffa2feef');
  // Hashes that differ from the skipped one in the first byte, the last byte, or not at all.
  const firstOff = skipped.slice();
  firstOff[0] ^= 1;
  const lastOff = skipped.slice();
  lastOff[19] ^= 0x80;
  const tx = new Transaction();
  tx.vin.push(new TxIn(Outpoint.null(), Uint8Array.of(0x51), 0xffffffff));
  tx.vout.push(new TxOut(1n, p2pkhScript(skipped)));
  tx.vout.push(new TxOut(10n, p2pkhScript(firstOff)));
  tx.vout.push(new TxOut(100n, p2pkhScript(lastOff)));
  // P2PKH's template with a byte changed (OP_EQUALVERIFY → OP_EQUAL): no destination.
  const odd = p2pkhScript(firstOff);
  odd[23] = 0x87;
  tx.vout.push(new TxOut(1000n, odd));
  // OP_RETURN: no destination.
  tx.vout.push(new TxOut(10000n, Uint8Array.of(0x6a, 0x01, 0x00)));
  const block = new Block(new BlockHeader(), [tx]);
  assert.equal(newCoins(block, []).newcoins, 110n);
  assert.equal(newCoins(block, [{ op: Buffer.alloc(36), coin: { value: 3n, script: p2pkhScript(skipped), height: 1, coinbase: false, txVersion: 1 } }]).newcoins, 107n);
});
