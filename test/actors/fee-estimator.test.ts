import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BlockPolicyEstimator, type EstimatorEntry } from '../../src/actors/mempool/fee-estimator.js';
import { FeeEstimatorFeed } from '../../src/actors/mempool/fee-feed.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';

/** A mempool entry paying `perK` satoshis per kB on 250 bytes, entering at `height` with little priority. */
function entry(txid: string, height: number, perK: bigint, startPriority = 1): EstimatorEntry {
  const size = 250;
  const fee = (perK * BigInt(size)) / 1000n;
  return { txid, height, fee, size, modSize: 100, startPriority, valueIn: 100n, clear: true };
}

/** `perBlock` transactions enter at each height and are all mined in the next block, for `blocks` blocks. */
function feed(est: BlockPolicyEstimator, blocks: number, perBlock: number, make: (id: string, h: number) => EstimatorEntry, current = true) {
  let n = 0;
  for (let h = 1; h <= blocks; h++) {
    const pool: EstimatorEntry[] = [];
    for (let k = 0; k < perBlock; k++) {
      const e = make(`tx${n++}`, h - 1);
      est.processTransaction(e, current);
      pool.push(e);
    }
    for (const e of pool) est.removeTx(e.txid);
    est.processBlock(h, pool, current);
  }
}

test('fee estimator: no estimate (fee 0, priority -1) until enough transactions were seen', () => {
  const est = new BlockPolicyEstimator();
  assert.equal(est.estimateFee(6), 0);
  assert.equal(est.estimatePriority(6), -1);
  // 5 blocks of 10: a decayed count of about 50, under SUFFICIENT_FEETXS / (1 - 0.998) = 500.
  feed(est, 5, 10, (id, h) => entry(id, h, 10_000n));
  assert.equal(est.estimateFee(1), 0);
  // Targets outside 1..25 are never estimated.
  assert.equal(est.estimateFee(0), 0);
  assert.equal(est.estimateFee(26), 0);
});

test('fee estimator: transactions all at one fee rate, mined in the next block, give that rate', () => {
  const est = new BlockPolicyEstimator();
  // 30 blocks of 30: Σ 30·0.998^k ≈ 873 confirmed-within-1 data points in the 10,000 sat/kB bucket.
  feed(est, 30, 30, (id, h) => entry(id, h, 10_000n));
  assert.equal(est.estimateFee(1), 10_000);
  assert.equal(est.estimateFee(25), 10_000);
  // No zero-fee or high-priority transaction was seen.
  assert.equal(est.estimatePriority(1), -1);
});

test('fee estimator: transactions seen during initial block download are not counted', () => {
  const est = new BlockPolicyEstimator();
  feed(est, 30, 30, (id, h) => entry(id, h, 10_000n), false);
  assert.equal(est.estimateFee(1), 0);
});

test('priority estimator: zero-fee transactions are priority data points, estimated at their priority', () => {
  const est = new BlockPolicyEstimator();
  // GetPriority at the mining height: startPriority + (1 block · valueIn) / modSize = 1e9 + 1.
  feed(est, 30, 30, (id, h) => ({ ...entry(id, h, 0n, 1e9), fee: 0n }));
  assert.equal(est.estimatePriority(1), 1e9 + 1);
  assert.equal(est.estimateFee(1), 0);
});

// ---- the mempool's feed ----------------------------------------------------------------------

/** A transaction spending (parent, 0), paying 1 coin out; its size and fee are the feed's arguments. */
function spend(parent: Uint8Array): Transaction {
  const tx = new Transaction();
  tx.vin.push(new TxIn(new Outpoint(parent, 0), new Uint8Array(100)));
  tx.vout.push(new TxOut(100_000_000n, new Uint8Array(25)));
  return tx;
}

/** `blocks` blocks of 30 transactions at 10,000 sat/kB, each mined in the next block; `inPool` says which parents are pooled. */
function feedMempool(feed: FeeEstimatorFeed, blocks: number, tipTime: number, inPool: (t: string) => boolean) {
  let n = 0;
  for (let h = 1; h <= blocks; h++) {
    const txids: string[] = [];
    for (let k = 0; k < 30; k++) {
      const parent = new Uint8Array(32);
      parent.set([n & 0xff, n >> 8, 1]);
      const txid = `t${n++}`;
      // a confirmed input at height h - 2 worth 1 coin: priority 1e8·1/(250 - 141) — under AllowFreeThreshold
      const coins = { coin: () => ({ value: 100_000_000n, script: new Uint8Array(0), height: h - 2, coinbase: false, txVersion: 1 }) };
      feed.accepted(txid, spend(parent), 2_500n, 250, h - 1, tipTime, coins, { has: inPool });
      txids.push(txid);
    }
    const mined = feed.entriesOf(txids);
    for (const t of txids) feed.removed(t);
    feed.blockConnected(h, mined, tipTime);
  }
}

test('the mempool feed: accepted, removed and mined entries reach the estimator with their fee rate', () => {
  const now = 2_000_000_000;
  const feed = new FeeEstimatorFeed(() => now);
  feedMempool(feed, 30, now - 60, () => false);
  assert.equal(feed.estimator.estimateFee(2), 10_000);
});

test('the mempool feed: a tip older than a day is initial block download, and a pooled parent makes an entry unclear', () => {
  const now = 2_000_000_000;
  const stale = new FeeEstimatorFeed(() => now);
  feedMempool(stale, 30, now - 2 * 86_400, () => false);
  assert.equal(stale.estimator.estimateFee(2), 0);
  const dependent = new FeeEstimatorFeed(() => now);
  feedMempool(dependent, 30, now - 60, () => true);
  assert.equal(dependent.estimator.estimateFee(2), 0);
});

test('fee_estimates.dat: the figures saved at stop give the same estimates after a start; a damaged file is refused', () => {
  const est = new BlockPolicyEstimator();
  feed(est, 30, 30, (id, h) => entry(id, h, 10_000n));
  const saved = JSON.parse(JSON.stringify(est.save()));
  const again = new BlockPolicyEstimator();
  assert.equal(again.load(saved), true);
  assert.equal(again.estimateFee(1), est.estimateFee(1));
  assert.equal(again.estimateFee(1), 10_000);
  const damaged = new BlockPolicyEstimator();
  for (const bad of [null, { ...saved, version: 2 }, { ...saved, fee: { ...saved.fee, avg: saved.fee.avg.slice(1) } }, { ...saved, priority: { ...saved.priority, confAvg: [[-1]] } }]) {
    assert.equal(damaged.load(bad), false);
    assert.equal(damaged.estimateFee(1), 0);
  }
});
