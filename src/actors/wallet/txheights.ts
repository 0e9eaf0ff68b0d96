/** A wallet transaction as the height index files it: the active-chain height of its block, 0 when in none. */
export interface Placed {
  height: number;
}

/**
 * The wallet's transactions by the height of the active-chain block holding them, and the set of
 * those in no active-chain block (in the mempool, conflicted, orphaned): listsinceblock reads the
 * transactions after a height and the unconfirmed ones without walking the wallet. Kept as blocks
 * connect and disconnect and as transactions are recorded.
 */
export class TxHeights<T extends Placed> {
  private readonly at = new Map<number, Set<T>>();
  /**
   * The heights holding transactions, ascending once `sorted`. Blocks connect upwards and disconnect
   * from the top, so this is appended to and popped; a height filed out of order (a rescan, the load)
   * or left empty below the top is tidied at the next read.
   */
  private heights: number[] = [];
  private sorted = true;
  /** The transactions in no active-chain block. */
  readonly unconfirmed = new Set<T>();

  /** Files a transaction at its `height` (0: unconfirmed). */
  add(t: T): void {
    if (t.height > 0) this.file(t);
    else this.unconfirmed.add(t);
  }

  /** Moves a transaction to `height` (0: out of the active chain). */
  place(t: T, height: number): void {
    if (t.height === height) return;
    if (t.height > 0) this.unfile(t);
    else this.unconfirmed.delete(t);
    t.height = height;
    this.add(t);
  }

  private file(t: T): void {
    let set = this.at.get(t.height);
    if (!set) {
      this.at.set(t.height, (set = new Set()));
      const last = this.heights[this.heights.length - 1];
      if (last !== undefined && last >= t.height) this.sorted = false;
      this.heights.push(t.height);
    }
    set.add(t);
  }

  private unfile(t: T): void {
    const set = this.at.get(t.height);
    if (!set) return;
    set.delete(t);
    if (set.size > 0) return;
    this.at.delete(t.height);
    if (this.heights[this.heights.length - 1] === t.height) this.heights.pop();
    else this.sorted = false;
  }

  /** Forgets a transaction (cleanwallettransactions' EraseFromWallet). */
  remove(t: T): void {
    if (t.height > 0) this.unfile(t);
    else this.unconfirmed.delete(t);
  }

  /** The transactions in blocks at or below `height`: O(answer), every height listed holding one. */
  upTo(height: number): T[] {
    const out: T[] = [];
    if (!this.sorted) {
      this.heights = [...this.at.keys()].sort((a, b) => a - b);
      this.sorted = true;
    }
    for (const h of this.heights) {
      if (h > height) break;
      for (const t of this.at.get(h) ?? []) out.push(t);
    }
    return out;
  }

  /** The transactions in blocks above `height`, lowest height first: O(log heights + answer). */
  after(height: number): T[] {
    if (!this.sorted) {
      this.heights = [...this.at.keys()].sort((a, b) => a - b);
      this.sorted = true;
    }
    const hs = this.heights;
    let lo = 0;
    let hi = hs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (hs[mid]! > height) hi = mid;
      else lo = mid + 1;
    }
    const out: T[] = [];
    for (let i = lo; i < hs.length; i++) for (const t of this.at.get(hs[i]!) ?? []) out.push(t);
    return out;
  }
}
