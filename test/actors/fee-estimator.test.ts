import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BlockPolicyEstimator, type EstimatorEntry } from '../../src/actors/mempool/fee-estimator.js';

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
