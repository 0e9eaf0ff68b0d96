import { FifoSet } from '../fifo.js';

/**
 * Transactions whose input scripts already passed, keyed by txid and consensus branch id: the
 * mempool checks scripts with the standard flags, a superset of the block flags (every extra flag
 * only adds ways to fail), so a transaction it admitted needs no script run when its block connects
 * at the same branch — Bitcoin Core's script execution cache. The txid commits to the scriptSigs and
 * the outpoints fix the coins spent, so a hit cannot validate anything else. Bounded, oldest out.
 */
export class ScriptExecutionCache {
  private readonly entries: FifoSet<string>;

  constructor(readonly maxEntries = 200_000) {
    this.entries = new FifoSet(Math.max(1, maxEntries));
  }

  static key(txid: string, branchId: number): string {
    return `${txid}:${branchId >>> 0}`;
  }

  has(txid: string, branchId: number): boolean {
    return this.entries.has(ScriptExecutionCache.key(txid, branchId));
  }

  add(txid: string, branchId: number): void {
    this.entries.add(ScriptExecutionCache.key(txid, branchId));
  }

  get size(): number {
    return this.entries.size;
  }
}
