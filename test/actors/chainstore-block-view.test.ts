import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { TxIn, Outpoint } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { fromHex } from '../../src/chain/encoding/hex.js';
import { PendingBlocks, blockView, createdCoin, isSpent } from '../../src/actors/chainstore/pending-view.js';
import type { Coin } from '../../src/actors/chainstore/protocol.js';

/**
 * The view a block is verified against (pending-view.ts): the coins below it, overlaid in order with
 * what its earlier transactions spent and created, each coin below read once; and, in the reindex's
 * write-ahead, the blocks verified but not committed yet between it and the committed state.
 */

const txidOf = (b: number) => b.toString(16).padStart(64, '0');
const spendOf = (outpoints: [string, number][], values: bigint[], version = 4): Transaction => {
  const tx = new Transaction();
  tx.version = version;
  for (const [txid, n] of outpoints) tx.vin.push(new TxIn(new Outpoint(fromHex(txid).reverse(), n), new Uint8Array(0), 0xffffffff));
  values.forEach((v, k) => tx.vout.push(new TxOut(v, Uint8Array.of(0x51, k))));
  return tx;
};
const chainCoin = (value: bigint): Coin => ({ value, script: Uint8Array.of(0x52), height: 3, coinbase: false, txVersion: 1 });

test('block view: earlier transactions of the block spend and create coins in order, each coin below is read once, and pending blocks overlay the committed state', () => {
  const A = txidOf(0xa);
  const B = txidOf(0xb);
  const below = new Map([[`${A}:0`, chainCoin(10n)], [`${A}:1`, chainCoin(11n)], [`${B}:0`, chainCoin(12n)]]);
  const reads: string[] = [];
  const { view, changes } = blockView('h7', 7, {
    coin: (txid, n) => {
      reads.push(`${txid}:${n}`);
      return below.get(`${txid}:${n}`);
    },
    tx: () => undefined,
  });
  const tx1 = spendOf([[A, 0]], [5n, 4n], 5);
  const t1 = txidOf(0x1);
  const tx2 = spendOf([[t1, 1], [A, 1]], [3n]);
  const t2 = txidOf(0x2);

  assert.equal(view.coin(A, 0)?.value, 10n);
  assert.equal(view.coin(t1, 0), undefined, 'not created yet');
  view.apply(tx1, t1, 7);
  assert.equal(view.coin(A, 0), undefined, 'spent by tx1');
  assert.equal(view.coin(A, 1)?.value, 11n);
  assert.deepEqual(view.coin(t1, 0), { value: 5n, script: Uint8Array.of(0x51, 0), height: 7, coinbase: false, txVersion: 5 });
  assert.equal(view.coin(t1, 0), view.coin(t1, 0), 'one coin object per output');
  assert.equal(view.coin(t1, 2), undefined, 'past its outputs');
  view.apply(tx2, t2, 7);
  assert.equal(view.coin(t1, 1), undefined, 'spent by tx2, created by tx1');
  assert.equal(view.coin(t1, 0)?.value, 5n);
  assert.equal(view.coin(A, 1), undefined);
  assert.equal(view.coin(B, 0)?.value, 12n);
  assert.equal(view.tx(t1), tx1);
  // A coin below is read once however often it is asked for (A:0 and t1:0 were asked for before tx1 applied).
  assert.deepEqual(reads.sort(), [`${A}:0`, `${A}:1`, `${B}:0`, `${t1}:0`, `${t1}:2`].sort());
  assert.throws(() => view.apply(spendOf([[B, 0]], [1n]), txidOf(3), 8), /applied at 8/);

  // What the block changed, as the write-ahead keeps it.
  assert.equal(isSpent(changes, A, 0), true);
  assert.equal(isSpent(changes, A, 1), true);
  assert.equal(isSpent(changes, A, 2), false);
  assert.equal(isSpent(changes, t1, 1), true);
  assert.equal(isSpent(changes, t1, 0), false);
  assert.equal(createdCoin(changes, t1, 1)?.value, 4n, 'created, spent or not');
  assert.equal(createdCoin(changes, t2, 0)?.height, 7);
  assert.equal(createdCoin(changes, t2, 1), undefined);

  // The next block, verified while this one is still being written.
  const pending = new PendingBlocks();
  pending.push(changes);
  const committed = new Map([...below, [`${txidOf(0xc)}:0`, chainCoin(13n)]]);
  const next = pending.view('h8', 8, { coin: (txid, n) => committed.get(`${txid}:${n}`), tx: () => undefined }).view;
  assert.equal(next.coin(A, 0), undefined, 'spent by the pending block');
  assert.equal(next.coin(B, 0)?.value, 12n);
  assert.equal(next.coin(t1, 1), undefined);
  assert.deepEqual(next.coin(t1, 0), { value: 5n, script: Uint8Array.of(0x51, 0), height: 7, coinbase: false, txVersion: 5 });
  assert.equal(next.coin(txidOf(0xc), 0)?.value, 13n);
  assert.equal(next.tx(t2), tx2);
});
