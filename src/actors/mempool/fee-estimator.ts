/**
 * komodod's CBlockPolicyEstimator (policy/fees.cpp, Bitcoin 0.11's): transactions are put in fee-rate
 * or priority buckets when they enter the mempool, and each block records how many blocks each one
 * took to confirm, as moving averages decaying by 0.998 a block. estimateFee/estimatePriority answer
 * the lowest bucket range in which 85% of transactions confirmed within the target, or -1 (fee: 0)
 * until enough have been seen. Every step is a port of komodod's arithmetic, doubles as doubles.
 */

const DEFAULT_DECAY = 0.998;
const MAX_BLOCK_CONFIRMS = 25;
const MIN_SUCCESS_PCT = 0.85;
const UNLIKELY_PCT = 0.5;
const SUFFICIENT_FEETXS = 1;
const SUFFICIENT_PRITXS = 0.2;
const MIN_FEERATE = 10;
const MAX_FEERATE = 1e7;
/** MAX_MONEY as fees.h's static initialisation reads it (komodo_globals.cpp's initial value). */
const INF_FEERATE = 200000000 * 100000000;
const MIN_PRIORITY = 10;
const MAX_PRIORITY = 1e16;
const INF_PRIORITY = 1e9 * INF_FEERATE;
const FEE_SPACING = 1.1;
const PRI_SPACING = 2;
/** AllowFreeThreshold(): COIN * 144 / 250. */
const ALLOW_FREE_THRESHOLD = (100000000 * 144) / 250;
/** DEFAULT_MIN_RELAY_TX_FEE (main.h), ::minRelayTxFee's satoshis per kB. */
const MIN_RELAY_FEE_PER_K = 100;

/** CFeeRate(nFee, nSize): satoshis per 1000 bytes, truncated (0 for an empty size). */
export function feePerK(fee: bigint, size: number): number {
  return size > 0 ? Number((fee * 1000n) / BigInt(size)) : 0;
}

class TxConfirmStats {
  readonly buckets: number[];
  private readonly txCtAvg: number[];
  private readonly curBlockTxCt: number[];
  private readonly confAvg: number[][];
  private readonly curBlockConf: number[][];
  private readonly avg: number[];
  private readonly curBlockVal: number[];
  private readonly unconfTxs: number[][];
  private readonly oldUnconfTxs: number[];

  constructor(
    bounds: number[],
    maxConfirms: number,
    private readonly decay: number,
  ) {
    this.buckets = [...bounds, Infinity];
    const n = this.buckets.length;
    const zeros = () => new Array<number>(n).fill(0);
    this.confAvg = Array.from({ length: maxConfirms }, zeros);
    this.curBlockConf = Array.from({ length: maxConfirms }, zeros);
    this.unconfTxs = Array.from({ length: maxConfirms }, zeros);
    this.oldUnconfTxs = zeros();
    this.curBlockTxCt = zeros();
    this.txCtAvg = zeros();
    this.curBlockVal = zeros();
    this.avg = zeros();
  }

  get maxConfirms(): number {
    return this.confAvg.length;
  }

  /** bucketMap.lower_bound(val): the first bucket whose upper bound is ≥ val. */
  findBucketIndex(val: number): number {
    let lo = 0;
    let hi = this.buckets.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.buckets[mid]! < val) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  clearCurrent(height: number): void {
    const row = height % this.unconfTxs.length;
    for (let j = 0; j < this.buckets.length; j++) {
      this.oldUnconfTxs[j]! += this.unconfTxs[row]![j]!;
      this.unconfTxs[row]![j] = 0;
      for (const c of this.curBlockConf) c[j] = 0;
      this.curBlockTxCt[j] = 0;
      this.curBlockVal[j] = 0;
    }
  }

  record(blocksToConfirm: number, val: number): void {
    if (blocksToConfirm < 1) return;
    const b = this.findBucketIndex(val);
    for (let i = blocksToConfirm; i <= this.curBlockConf.length; i++) this.curBlockConf[i - 1]![b]!++;
    this.curBlockTxCt[b]!++;
    this.curBlockVal[b]! += val;
  }

  updateMovingAverages(): void {
    for (let j = 0; j < this.buckets.length; j++) {
      for (let i = 0; i < this.confAvg.length; i++) this.confAvg[i]![j] = this.confAvg[i]![j]! * this.decay + this.curBlockConf[i]![j]!;
      this.avg[j] = this.avg[j]! * this.decay + this.curBlockVal[j]!;
      this.txCtAvg[j] = this.txCtAvg[j]! * this.decay + this.curBlockTxCt[j]!;
    }
  }

  estimateMedianVal(confTarget: number, sufficientTxVal: number, successBreakPoint: number, requireGreater: boolean, height: number): number {
    let nConf = 0;
    let totalNum = 0;
    let extraNum = 0;
    const maxBucket = this.buckets.length - 1;
    const start = requireGreater ? maxBucket : 0;
    const step = requireGreater ? -1 : 1;
    let curNear = start;
    let bestNear = start;
    let curFar = start;
    let bestFar = start;
    let found = false;
    const bins = this.unconfTxs.length;
    for (let bucket = start; bucket >= 0 && bucket <= maxBucket; bucket += step) {
      curFar = bucket;
      nConf += this.confAvg[confTarget - 1]![bucket]!;
      totalNum += this.txCtAvg[bucket]!;
      // (nBlockHeight - confct) % bins in unsigned arithmetic.
      for (let c = confTarget; c < this.maxConfirms; c++) extraNum += this.unconfTxs[((height - c) >>> 0) % bins]![bucket]!;
      extraNum += this.oldUnconfTxs[bucket]!;
      if (totalNum >= sufficientTxVal / (1 - this.decay)) {
        const curPct = nConf / (totalNum + extraNum);
        if (requireGreater && curPct < successBreakPoint) break;
        if (!requireGreater && curPct > successBreakPoint) break;
        found = true;
        nConf = 0;
        totalNum = 0;
        extraNum = 0;
        bestNear = curNear;
        bestFar = curFar;
        curNear = bucket + step;
      }
    }
    let median = -1;
    let txSum = 0;
    const lo = Math.min(bestNear, bestFar);
    const hi = Math.max(bestNear, bestFar);
    for (let j = lo; j <= hi; j++) txSum += this.txCtAvg[j]!;
    if (found && txSum !== 0) {
      txSum = txSum / 2;
      for (let j = lo; j <= hi; j++) {
        if (this.txCtAvg[j]! < txSum) txSum -= this.txCtAvg[j]!;
        else {
          median = this.avg[j]! / this.txCtAvg[j]!;
          break;
        }
      }
    }
    return median;
  }

  /** Write: the moving averages (the current block's counters and the mempool's are not kept). */
  save(): { avg: number[]; txCtAvg: number[]; confAvg: number[][] } {
    return { avg: [...this.avg], txCtAvg: [...this.txCtAvg], confAvg: this.confAvg.map((r) => [...r]) };
  }

  /** Read: false (nothing changed) unless the saved shape is this one's, every figure a finite number ≥ 0. */
  load(v: unknown): boolean {
    const o = v as { avg?: unknown; txCtAvg?: unknown; confAvg?: unknown } | null;
    const n = this.buckets.length;
    const row = (r: unknown): r is number[] => Array.isArray(r) && r.length === n && r.every((x) => typeof x === 'number' && Number.isFinite(x) && x >= 0);
    if (!o || !row(o.avg) || !row(o.txCtAvg) || !Array.isArray(o.confAvg) || o.confAvg.length !== this.maxConfirms || !o.confAvg.every(row)) return false;
    o.avg.forEach((x, j) => (this.avg[j] = x));
    o.txCtAvg.forEach((x, j) => (this.txCtAvg[j] = x));
    (o.confAvg as number[][]).forEach((r, i) => r.forEach((x, j) => (this.confAvg[i]![j] = x)));
    return true;
  }

  newTx(height: number, val: number): number {
    const b = this.findBucketIndex(val);
    this.unconfTxs[height % this.unconfTxs.length]![b]!++;
    return b;
  }

  removeTx(entryHeight: number, bestSeen: number, bucket: number): void {
    let blocksAgo = bestSeen - entryHeight;
    if (bestSeen === 0) blocksAgo = 0;
    if (blocksAgo < 0) return;
    if (blocksAgo >= this.unconfTxs.length) {
      if (this.oldUnconfTxs[bucket]! > 0) this.oldUnconfTxs[bucket]!--;
    } else {
      const row = this.unconfTxs[entryHeight % this.unconfTxs.length]!;
      if (row[bucket]! > 0) row[bucket]!--;
    }
  }
}

/** What the estimator needs of a mempool entry (CTxMemPoolEntry). */
export interface EstimatorEntry {
  txid: string;
  /** chain height when it entered the mempool */
  height: number;
  fee: bigint;
  size: number;
  /** CalculateModifiedSize */
  modSize: number;
  /** the priority it entered with (dPriority) */
  startPriority: number;
  /** GetValueOut() + fee, GetPriority's nValueIn */
  valueIn: bigint;
  /** it spent no other mempool transaction's output (WasClearAtEntry) */
  clear: boolean;
}

/** CTxMemPoolEntry::GetPriority(currentHeight). */
function priorityAt(e: EstimatorEntry, height: number): number {
  return e.startPriority + ((height - e.height) * Number(e.valueIn)) / e.modSize;
}

export class BlockPolicyEstimator {
  private bestSeenHeight = 0;
  private readonly tracked = new Map<string, { stats: TxConfirmStats | null; height: number; bucket: number }>();
  private readonly feeStats: TxConfirmStats;
  private readonly priStats: TxConfirmStats;
  private readonly minTrackedFee: number;
  private readonly minTrackedPriority: number;
  private feeLikely = INF_FEERATE;
  private feeUnlikely = 0;
  private priLikely = INF_PRIORITY;
  private priUnlikely = 0;

  constructor(minRelayFeePerK = MIN_RELAY_FEE_PER_K) {
    this.minTrackedFee = minRelayFeePerK < MIN_FEERATE ? MIN_FEERATE : minRelayFeePerK;
    const fees: number[] = [];
    for (let b = this.minTrackedFee; b <= MAX_FEERATE; b *= FEE_SPACING) fees.push(b);
    this.feeStats = new TxConfirmStats(fees, MAX_BLOCK_CONFIRMS, DEFAULT_DECAY);
    this.minTrackedPriority = ALLOW_FREE_THRESHOLD < MIN_PRIORITY ? MIN_PRIORITY : ALLOW_FREE_THRESHOLD;
    const pris: number[] = [];
    for (let b = this.minTrackedPriority; b <= MAX_PRIORITY; b *= PRI_SPACING) pris.push(b);
    this.priStats = new TxConfirmStats(pris, MAX_BLOCK_CONFIRMS, DEFAULT_DECAY);
  }

  private isFeeDataPoint(fee: number, pri: number): boolean {
    return (pri < this.minTrackedPriority && fee >= this.minTrackedFee) || (pri < this.priUnlikely && fee > this.feeLikely);
  }

  private isPriDataPoint(fee: number, pri: number): boolean {
    return (fee < this.minTrackedFee && pri >= this.minTrackedPriority) || (fee < this.feeUnlikely && pri > this.priLikely);
  }

  /** processTransaction: an entry accepted to the mempool; `current`: not in initial block download. */
  processTransaction(e: EstimatorEntry, current: boolean): void {
    const t = this.tracked.get(e.txid);
    if (t?.stats) return;
    // mapMemPoolTxs[hash] creates the record whatever follows.
    const rec = t ?? { stats: null, height: 0, bucket: 0 };
    this.tracked.set(e.txid, rec);
    if (e.height < this.bestSeenHeight || !current || !e.clear) return;
    const rate = feePerK(e.fee, e.size);
    const pri = priorityAt(e, e.height);
    rec.height = e.height;
    if (e.fee === 0n || this.isPriDataPoint(rate, pri)) {
      rec.stats = this.priStats;
      rec.bucket = this.priStats.newTx(e.height, pri);
    } else if (this.isFeeDataPoint(rate, pri)) {
      rec.stats = this.feeStats;
      rec.bucket = this.feeStats.newTx(e.height, rate);
    }
  }

  /** removeTx: an entry left the mempool (mined, conflicted, expired). */
  removeTx(txid: string): void {
    const t = this.tracked.get(txid);
    if (!t) return;
    t.stats?.removeTx(t.height, this.bestSeenHeight, t.bucket);
    this.tracked.delete(txid);
  }

  private processBlockTx(height: number, e: EstimatorEntry): void {
    if (!e.clear) return;
    const blocksToConfirm = height - e.height;
    if (blocksToConfirm <= 0) return;
    const rate = feePerK(e.fee, e.size);
    const pri = priorityAt(e, height);
    if (e.fee === 0n || this.isPriDataPoint(rate, pri)) this.priStats.record(blocksToConfirm, pri);
    else if (this.isFeeDataPoint(rate, pri)) this.feeStats.record(blocksToConfirm, rate);
  }

  /** processBlock: a block connected at `height`; `entries`: those of its transactions that were in the mempool. */
  processBlock(height: number, entries: readonly EstimatorEntry[], current: boolean): void {
    if (height <= this.bestSeenHeight) return;
    this.bestSeenHeight = height;
    if (!current) return;
    const priLikely = this.priStats.estimateMedianVal(2, SUFFICIENT_PRITXS, MIN_SUCCESS_PCT, true, height);
    this.priLikely = priLikely === -1 ? INF_PRIORITY : priLikely;
    const feeLikely = this.feeStats.estimateMedianVal(2, SUFFICIENT_FEETXS, MIN_SUCCESS_PCT, true, height);
    // CFeeRate(double): the estimate truncated to whole satoshis per kB.
    this.feeLikely = feeLikely === -1 ? INF_FEERATE : Math.trunc(feeLikely);
    const priUnlikely = this.priStats.estimateMedianVal(10, SUFFICIENT_PRITXS, UNLIKELY_PCT, false, height);
    this.priUnlikely = priUnlikely === -1 ? 0 : priUnlikely;
    const feeUnlikely = this.feeStats.estimateMedianVal(10, SUFFICIENT_FEETXS, UNLIKELY_PCT, false, height);
    this.feeUnlikely = feeUnlikely === -1 ? 0 : Math.trunc(feeUnlikely);
    this.feeStats.clearCurrent(height);
    this.priStats.clearCurrent(height);
    for (const e of entries) this.processBlockTx(height, e);
    this.feeStats.updateMovingAverages();
    this.priStats.updateMovingAverages();
  }

  /** CBlockPolicyEstimator::Write: what fee_estimates.dat keeps across a restart. */
  save(): unknown {
    return { version: 1, bestSeenHeight: this.bestSeenHeight, fee: this.feeStats.save(), priority: this.priStats.save() };
  }

  /** CBlockPolicyEstimator::Read; a file that does not read leaves the estimator as it was (komodod warns and goes on). */
  load(v: unknown): boolean {
    const o = v as { version?: unknown; bestSeenHeight?: unknown; fee?: unknown; priority?: unknown } | null;
    if (!o || o.version !== 1 || typeof o.bestSeenHeight !== 'number' || !Number.isInteger(o.bestSeenHeight) || o.bestSeenHeight < 0) return false;
    const fee = new TxConfirmStats(this.feeStats.buckets.slice(0, -1), MAX_BLOCK_CONFIRMS, DEFAULT_DECAY);
    const pri = new TxConfirmStats(this.priStats.buckets.slice(0, -1), MAX_BLOCK_CONFIRMS, DEFAULT_DECAY);
    if (!fee.load(o.fee) || !pri.load(o.priority)) return false;
    this.feeStats.load(o.fee);
    this.priStats.load(o.priority);
    this.bestSeenHeight = o.bestSeenHeight;
    return true;
  }

  /** estimateFee: satoshis per kB, 0 when there is no estimate. */
  estimateFee(confTarget: number): number {
    if (confTarget <= 0 || confTarget > this.feeStats.maxConfirms) return 0;
    const median = this.feeStats.estimateMedianVal(confTarget, SUFFICIENT_FEETXS, MIN_SUCCESS_PCT, true, this.bestSeenHeight);
    return median < 0 ? 0 : Math.trunc(median);
  }

  /** estimatePriority: -1 when there is no estimate. */
  estimatePriority(confTarget: number): number {
    if (confTarget <= 0 || confTarget > this.priStats.maxConfirms) return -1;
    return this.priStats.estimateMedianVal(confTarget, SUFFICIENT_PRITXS, MIN_SUCCESS_PCT, true, this.bestSeenHeight);
  }
}
