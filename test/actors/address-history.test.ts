import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { TxIn, Outpoint } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { fromHex } from '../../src/chain/encoding/hex.js';
import { hash160 } from '../../src/chain/crypto/hash.js';
import { p2pkScript, p2pkhScript, p2shScript, opReturnScript } from '../../src/chain/script/script.js';
import { cc1Script } from '../../src/chain/tokens/index.js';
import { addressKey } from '../../src/chain/address/index-key.js';
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

const row = (d: { satoshis: bigint; txid: string; index: number; blockindex: number; height: number; spending: boolean }) => [d.height, d.blockindex, d.txid, d.index, d.spending, d.satoshis];

test('the address history (CAddressIndexKey) records every credit and debit in key order and disconnects symmetrically', async () => {
  const t0 = tempIndexes();
  const ix = t0.ix;
  const historyRows = () => [...ix.allAddressRows()].filter((r) => r.startsWith('h '));
  const A = addressKey(1, hash160(PK_A));
  const B = addressKey(1, hash160(PK_B));
  const S = addressKey(2, hash160(PK_B));
  const ccB = cc1Script(0xf2, PK_B);
  const CC = addressKey(3, hash160(ccB));

  const cb1 = coinbase(1, [new TxOut(5000n, p2pkScript(PK_A)), new TxOut(7000n, p2pkhScript(hash160(PK_A)))]);
  t0.connect([cb1], [cb1.txid()], fakeHash(1), 1);
  assert.deepEqual(ix.historyAt(A).map(row), [
    [1, 0, cb1.txid(), 0, false, 5000n],
    [1, 0, cb1.txid(), 1, false, 7000n],
  ]);
  const after1 = historyRows();
  assert.equal(after1.length, 2);

  // Block 2: t1 spends cb1:0 (A) to B, P2SH and CC; t2 spends t1:0 (made in this block) and cb1:1 back to A.
  const cb2 = coinbase(2, [new TxOut(1n, Uint8Array.of(0x51))]);
  const t1 = spend([[cb1, 0]], [new TxOut(3000n, p2pkScript(PK_B)), new TxOut(1000n, ccB), new TxOut(500n, p2shScript(hash160(PK_B))), new TxOut(0n, opReturnScript(Uint8Array.of(9)))]);
  const t2 = spend([[t1, 0], [cb1, 1]], [new TxOut(9900n, p2pkScript(PK_A))]);
  t0.connect([cb2, t1, t2], [cb2.txid(), t1.txid(), t2.txid()], fakeHash(2), 2);
  // Within one transaction: by index, an output before an input of the same index.
  assert.deepEqual(ix.historyAt(A).map(row), [
    [1, 0, cb1.txid(), 0, false, 5000n],
    [1, 0, cb1.txid(), 1, false, 7000n],
    [2, 1, t1.txid(), 0, true, -5000n],
    [2, 2, t2.txid(), 0, false, 9900n],
    [2, 2, t2.txid(), 1, true, -7000n],
  ]);
  assert.deepEqual(ix.historyAt(B).map(row), [
    [2, 1, t1.txid(), 0, false, 3000n],
    [2, 2, t2.txid(), 0, true, -3000n],
  ]);
  assert.deepEqual(ix.historyAt(S).map(row), [[2, 1, t1.txid(), 2, false, 500n]]);
  assert.deepEqual(ix.historyAt(CC).map(row), [[2, 1, t1.txid(), 1, false, 1000n]]);
  // Ranges: start..end inclusive; start > end is empty; a missing bound (0) is the whole history.
  assert.equal(ix.historyAt(A, 2, 2).length, 3);
  assert.equal(ix.historyAt(A, 1, 1).length, 2);
  assert.equal(ix.historyAt(A, 2, 1).length, 0);
  assert.equal(ix.historyAt(A, 1, 0x7fffffff).length, 5);
  assert.equal(ix.historyAt(A, 0, 1).length, 5);

  t0.disconnect([cb2, t1, t2], [cb2.txid(), t1.txid(), t2.txid()], fakeHash(2), 2);
  assert.deepEqual(historyRows(), after1);
  t0.disconnect([cb1], [cb1.txid()], fakeHash(1), 1);
  assert.deepEqual(historyRows(), []);
  await t0.close();
});

test('-addressindex=0 keeps no history (the unspent index the token code uses stays)', async () => {
  const t0 = tempIndexes(false);
  const ix = t0.ix;
  const cb = coinbase(1, [new TxOut(5000n, p2pkScript(PK_A))]);
  t0.connect([cb], [cb.txid()], fakeHash(1), 1);
  assert.deepEqual([...ix.allAddressRows()].filter((r) => r.startsWith('h ')), []);
  assert.equal(ix.balanceAt(addressKey(1, hash160(PK_A))), 5000n);
  await t0.close();
});
