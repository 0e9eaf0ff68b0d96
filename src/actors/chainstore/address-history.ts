import type { AddressDelta } from './coins.js';

/**
 * One address's rows of komodod's address index (CAddressIndexKey → CAmount), in key order (height,
 * block position, txid, index, spending), stored by column. A chain holds about three rows per
 * transaction; as one object each they were most of what the garbage collector copied while blocks
 * connected. Columns of small integers hold no objects, the txid strings are shared with the
 * transaction index, and a debit keeps the spent coin's own (positive) amount: no bigint is made.
 * Blocks connect and disconnect at the tip, so rows are only appended or removed at the end.
 */
export class AddressHistoryList {
  private readonly txids: string[] = [];
  private readonly heights: number[] = [];
  private readonly blockindexes: number[] = [];
  /** index * 2 + spending: an index is below the count of a transaction's inputs or outputs, a small integer */
  private readonly slots: number[] = [];
  /** the output's amount, credit or debit alike (the sign is the spending flag's) */
  private readonly amounts: bigint[] = [];

  get length(): number {
    return this.txids.length;
  }

  push(txid: string, index: number, blockindex: number, height: number, amount: bigint, spending: boolean): void {
    this.txids.push(txid);
    this.heights.push(height);
    this.blockindexes.push(blockindex);
    this.slots.push(index * 2 + (spending ? 1 : 0));
    this.amounts.push(amount);
  }

  /** Removes the rows at the end that belong to the block at `height` (the tip's). */
  popHeight(height: number): void {
    let n = this.heights.length;
    while (n > 0 && this.heights[n - 1] === height) n--;
    for (const column of [this.txids, this.heights, this.blockindexes, this.slots, this.amounts]) column.length = n;
  }

  /** The first row at a height ≥ h (binary search over the height column). */
  lowerBound(h: number): number {
    let lo = 0;
    let hi = this.heights.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.heights[mid]! < h) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Rows from..to-1 as AddressDelta, the form the RPCs read. */
  slice(from = 0, to = this.length): AddressDelta[] {
    const rows: AddressDelta[] = [];
    for (let i = from; i < to; i++) {
      const spending = (this.slots[i]! & 1) === 1;
      rows.push({
        txid: this.txids[i]!,
        index: this.slots[i]! >>> 1,
        blockindex: this.blockindexes[i]!,
        height: this.heights[i]!,
        // ConnectBlock files an input as -prevout.nValue
        satoshis: spending ? -this.amounts[i]! : this.amounts[i]!,
        spending,
      });
    }
    return rows;
  }
}
