import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { TxIn, Outpoint } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { fromHex, toHex } from '../../src/chain/encoding/hex.js';
import { hash160 } from '../../src/chain/crypto/hash.js';
import { p2pkScript, p2pkhScript, p2shScript, opReturnScript } from '../../src/chain/script/script.js';
import { cc1Script } from '../../src/chain/tokens/index.js';
import { addressKey, addressKeysOf } from '../../src/chain/address/index-key.js';
import type { AddressUnspent } from '../../src/actors/chainstore/coins.js';
import { compareOutpoints } from '../../src/chain/address/unspent-order.js';
import type { ChainIndexes } from '../../src/actors/chainstore/chainstate.js';
import { fakeHash, tempIndexes } from '../helpers/chainstate.js';

const PK_A = fromHex('02676d00110c2cd14ae24f95969e8598f7ccfaa675498b82654a5b5bd57fc1d8cf');
const PK_B = fromHex('03e6191c70c9c9a28f9fd87089b9488d0e6c02fb629df64979c9cdb6b2b4a68d95');

function coinbase(tag: number, outs: TxOut[]): Transaction {
  const tx = new Transaction();
  tx.vin.push(new TxIn(Outpoint.null(), Uint8Array.of(0x01, tag), 0xffffffff));
  tx.vout = outs;
  return tx;
}

function spend(prev: [Transaction, number][], outs: TxOut[]): Transaction {
  const tx = new Transaction();
  tx.vin = prev.map(([t, n]) => new TxIn(new Outpoint(t.hash(), n), new Uint8Array(0), 0xffffffff));
  tx.vout = outs;
  return tx;
}

/** The whole state of the indexes, every row of every database. */
function dump(ix: ChainIndexes): string {
  const coins = [...ix.allCoins()].map(({ txid, n, coin }) => `${txid}:${n} ${coin.value} ${coin.height} ${toHex(coin.script)}`);
  return JSON.stringify({ rows: [...ix.allAddressRows()], coins, index: [...ix.allIndexRows()] });
}

test('address keys follow komodod GetAddressType: P2PK and P2PKH share type 1, P2SH is 2, CC is 3, OP_RETURN none', () => {
  const h = toHex(hash160(PK_A));
  assert.deepEqual(addressKeysOf(p2pkScript(PK_A)), [`1:${h}`]);
  assert.deepEqual(addressKeysOf(p2pkhScript(hash160(PK_A))), [`1:${h}`]);
  assert.deepEqual(addressKeysOf(p2shScript(hash160(PK_A))), [`2:${h}`]);
  const cc = cc1Script(0xf2, PK_A);
  assert.deepEqual(addressKeysOf(cc), [addressKey(3, hash160(cc))]);
  assert.deepEqual(addressKeysOf(opReturnScript(Uint8Array.of(1, 2))), []);
  assert.deepEqual(addressKeysOf(Uint8Array.of(0x51)), []);
  // 25-byte scripts one template byte away from P2PKH are not read as P2PKH (its fast path): nonstandard.
  const p2pkh = p2pkhScript(hash160(PK_A));
  for (const at of [0, 1, 2, 23, 24]) {
    const near = p2pkh.slice();
    near[at] = near[at]! ^ 0x01;
    assert.deepEqual(addressKeysOf(near), [], `template byte ${at} changed`);
  }
});

test('unspent entries are ordered as leveldb orders CAddressUnspentKey: txid internal bytes, then index little-endian', () => {
  const mk = (txidDisplay: string, index: number): AddressUnspent => ({ txid: txidDisplay, index, value: 1n, script: new Uint8Array(0), height: 1, coinbase: false });
  // internal order compares the last display byte first
  const a = mk('00'.repeat(31) + '01', 0);
  const b = mk('ff'.repeat(31) + '02', 0);
  assert.ok(compareOutpoints(a, b) < 0);
  // index 256 (00 01 00 00) sorts before index 1 (01 00 00 00)
  assert.ok(compareOutpoints(mk(a.txid, 256), mk(a.txid, 1)) < 0);
  assert.equal(compareOutpoints(mk(a.txid, 7), mk(a.txid, 7)), 0);
});

test('the address unspent index connects and disconnects symmetrically, including outputs created and spent in one block', async () => {
  const t0 = tempIndexes();
  const ix = t0.ix;
  const addrA = addressKey(1, hash160(PK_A));
  const addrB = addressKey(1, hash160(PK_B));
  const ccB = cc1Script(0xf2, PK_B);
  const addrCC = addressKey(3, hash160(ccB));

  const cb1 = coinbase(1, [new TxOut(5000n, p2pkScript(PK_A)), new TxOut(7000n, p2pkhScript(hash160(PK_A)))]);
  const before1 = dump(ix);
  t0.connect([cb1], [cb1.txid()], fakeHash(1), 1);
  assert.deepEqual(ix.unspentAt(addrA).map((u) => u.value).sort(), [5000n, 7000n]);
  assert.equal(ix.balanceAt(addrA), 12000n);
  const after1 = dump(ix);

  // Block 2: t1 spends cb1:0 to B and a CC output; t2 spends t1:0 (created in this block) back to A.
  const cb2 = coinbase(2, [new TxOut(1n, Uint8Array.of(0x51))]);
  const t1 = spend([[cb1, 0]], [new TxOut(3000n, p2pkScript(PK_B)), new TxOut(1000n, ccB), new TxOut(0n, opReturnScript(Uint8Array.of(9)))]);
  const t2 = spend([[t1, 0]], [new TxOut(2900n, p2pkScript(PK_A))]);
  t0.connect([cb2, t1, t2], [cb2.txid(), t1.txid(), t2.txid()], fakeHash(2), 2);
  assert.deepEqual(ix.unspentAt(addrB), []);
  assert.deepEqual(ix.unspentAt(addrCC).map((u) => [u.txid, u.index, u.value, u.height]), [[t1.txid(), 1, 1000n, 2]]);
  assert.deepEqual(ix.unspentAt(addrA).map((u) => u.value).sort(), [2900n, 7000n]);

  t0.disconnect([cb2, t1, t2], [cb2.txid(), t1.txid(), t2.txid()], fakeHash(2), 2);
  assert.equal(dump(ix), after1);
  assert.equal(ix.hasCoin(t1.txid(), 0), false, 'an output created and spent in the block leaves with it');
  t0.disconnect([cb1], [cb1.txid()], fakeHash(1), 1);
  assert.equal(dump(ix), before1);
  assert.deepEqual([...ix.allAddressRows()], []);
  await t0.close();
});
