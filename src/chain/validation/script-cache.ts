import { FifoMap } from '../fifo.js';

/**
 * Transactions whose input scripts already passed, keyed by txid and consensus branch id: the
 * mempool checks scripts with the standard flags, a superset of the block flags (every extra flag
 * only adds ways to fail), so a transaction it admitted needs no script run when its block connects
 * at the same branch — Bitcoin Core's script execution cache. The txid commits to the scriptSigs and
 * the outpoints fix the coins spent, so a hit cannot validate anything else. Bounded, oldest out.
 */
export class ScriptExecutionCache {
  /**
   * txid → the branch id its scripts passed at: the txid string itself is the key (a block's
   * connect asks once per transaction, and a `txid:branch` key was a string to build and hash each
   * time; a txid string keeps its hash). A txid admitted again at another branch keeps only that one:
   * the older entry becomes a miss, which only costs a script run.
   */
  private readonly entries: FifoMap<string, number>;

  constructor(readonly maxEntries = 200_000) {
    this.entries = new FifoMap(Math.max(1, maxEntries));
  }

  has(txid: string, branchId: number): boolean {
    return this.entries.get(txid) === branchId >>> 0;
  }

  add(txid: string, branchId: number): void {
    this.entries.set(txid, branchId >>> 0);
  }

  get size(): number {
    return this.entries.size;
  }
}
