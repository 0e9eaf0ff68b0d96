import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { DEFAULT_MAX_TIP_AGE } from '../../chain/consensus/timing.js';
import type { Transaction } from '../../chain/tx/transaction.js';
import type { CoinView } from '../../chain/validation/index.js';
import { BlockPolicyEstimator, type EstimatorEntry } from './fee-estimator.js';

/** CTransaction::CalculateModifiedSize: less each input's 41 bytes and up to 110 of its scriptSig. */
function modifiedSize(tx: Transaction, size: number): number {
  for (const i of tx.vin) {
    const offset = 41 + Math.min(110, i.scriptSig.length);
    if (size > offset) size -= offset;
  }
  return size;
}

/**
 * The mempool's feed of its CBlockPolicyEstimator (txmempool.cpp): addUnchecked → processTransaction,
 * remove → removeTx, removeForBlock → processBlock, each with fCurrentEstimate = !IsInitialBlockDownload()
 * (the tip within DEFAULT_MAX_TIP_AGE of now; once left, never entered again, as komodod latches it).
 */
export class FeeEstimatorFeed {
  readonly estimator = new BlockPolicyEstimator();
  private readonly entries = new Map<string, EstimatorEntry>();
  private leftInitialDownload = false;
  /** The tip's time as last seen (an accept's view, a connected block); 0 before either. */
  private tipTime = 0;

  constructor(private readonly now: () => number) {}

  private current(tipTime: number): boolean {
    this.tipTime = tipTime;
    if (!this.leftInitialDownload && tipTime >= this.now() - DEFAULT_MAX_TIP_AGE) this.leftInitialDownload = true;
    return this.leftInitialDownload;
  }

  /**
   * An entry entered the mempool at chain height `height` (tip time `tipTime`). `coins`: its inputs'
   * coins; `pool`: the mempool's transactions (an input whose transaction is there is not clear). Its starting priority is CCoinsViewCache::GetPriority's:
   * each confirmed input's value times its age in blocks, over the modified size.
   */
  accepted(txid: string, tx: Transaction, fee: bigint, size: number, height: number, tipTime: number, coins: CoinView, pool: { has(txid: string): boolean }): void {
    // Arguments, not an object with two closures: this runs for every accepted transaction.
    let clear = true;
    let inputs = 0;
    const vin = tx.vin;
    for (let k = 0; k < vin.length; k++) {
      const t = vin[k]!.prevout.txid();
      if (pool.has(t)) {
        clear = false;
        continue;
      }
      const c = coins.coin(t, vin[k]!.prevout.index);
      if (c && c.height < height) inputs += Number(c.value) * (height - c.height);
    }
    const modSize = modifiedSize(tx, size);
    let valueOut = 0n;
    for (let k = 0; k < tx.vout.length; k++) valueOut += tx.vout[k]!.value;
    const e: EstimatorEntry = { txid, height, fee, size, modSize, startPriority: modSize === 0 ? 0 : inputs / modSize, valueIn: valueOut + fee, clear };
    this.entries.set(txid, e);
    this.estimator.processTransaction(e, this.current(tipTime));
  }

  /** An entry left the mempool. */
  removed(txid: string): void {
    if (!this.entries.delete(txid)) return;
    this.estimator.removeTx(txid);
  }

  /** The entries of these txids still in the pool, taken before removeForBlock removes them. */
  entriesOf(txids: readonly string[]): EstimatorEntry[] {
    const out: EstimatorEntry[] = [];
    for (const t of txids) {
      const e = this.entries.get(t);
      if (e) out.push(e);
    }
    return out;
  }

  /**
   * removeForBlock's last step, after the block's transactions left: IsInitialBlockDownload is asked
   * before UpdateTip, so at the previous tip's time; the new tip's time counts from then on.
   */
  blockConnected(height: number, mined: readonly EstimatorEntry[], blockTime: number): void {
    this.estimator.processBlock(height, mined, this.current(this.tipTime));
    this.current(blockTime);
  }
}

/** CTxMemPool::ReadFeeEstimates at start: a missing file is a first start; an unreadable one is logged and left. */
export function readFeeEstimates(est: BlockPolicyEstimator, file: string, log?: (msg: string) => void): void {
  if (!existsSync(file)) return;
  let ok = false;
  try {
    ok = est.load(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    ok = false;
  }
  if (!ok) log?.(`WARNING: Failed to read fee estimates from ${file}. Continue anyway.`);
}

/** CTxMemPool::WriteFeeEstimates at stop (written aside, then renamed: a kill never leaves half a file). */
export function writeFeeEstimates(est: BlockPolicyEstimator, file: string, log?: (msg: string) => void): void {
  try {
    writeFileSync(`${file}.new`, JSON.stringify(est.save()));
    renameSync(`${file}.new`, file);
  } catch (e) {
    log?.(`WARNING: Failed to write fee estimates to ${file}: ${(e as Error).message}`);
  }
}
