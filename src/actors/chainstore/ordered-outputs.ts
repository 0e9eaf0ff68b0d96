import type { OutputPage, OutputRef } from './protocol.js';
import { compareOutpointTo } from '../../chain/address/unspent-order.js';

export type { OutputPage, OutputRef } from './protocol.js';

/**
 * Unspent outputs of one address (or one token at one address) kept in komodod's address-index key
 * order — txid in internal byte order, then the output index as its little-endian bytes
 * (CAddressUnspentKey) — as they are added and removed, with their total. Reading them in order
 * costs what is read, never a copy or a sort of the whole set.
 *
 * A sorted list of bounded chunks: an insert or removal costs a binary search and a move within one
 * chunk, so a set of 10^5 outputs is updated as cheaply as a set of ten. Nothing is stored beside
 * the outputs themselves (no key strings): positions are found by comparing txids in place.
 */

/** What is kept: an output with its txid, index and value. */
export interface OrderedOutput extends OutputRef {
  value: bigint;
}

/** The most outputs a chunk holds before it is split: a move within a chunk stays short. */
const MAX_CHUNK = 256;

/** The first position in `values` not before (txid, index) (after it, with `after`). */
function search<T extends OutputRef>(values: readonly T[], txid: string, index: number, after: boolean): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = compareOutpointTo(values[mid]!, txid, index);
    if (c < 0 || (after && c === 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class OrderedOutputs<T extends OrderedOutput> {
  private readonly chunks: T[][] = [];
  private count = 0;
  /** Σ value of the outputs held. */
  total = 0n;

  get size(): number {
    return this.count;
  }

  /** The chunk that holds (or would hold) (txid, index): the first whose last output is not before it, else the last. */
  private chunkFor(txid: string, index: number): number {
    let lo = 0;
    let hi = this.chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const chunk = this.chunks[mid]!;
      if (compareOutpointTo(chunk[chunk.length - 1]!, txid, index) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Adds an output (an outpoint already held is replaced). */
  add(out: T): void {
    if (this.chunks.length === 0) {
      this.chunks.push([out]);
      this.count = 1;
      this.total = out.value;
      return;
    }
    const c = this.chunkFor(out.txid, out.index);
    const chunk = this.chunks[c]!;
    const i = search(chunk, out.txid, out.index, false);
    const there = chunk[i];
    if (there && compareOutpointTo(there, out.txid, out.index) === 0) {
      this.total += out.value - there.value;
      chunk[i] = out;
      return;
    }
    // Moved by hand: splice would make an array for its answer on every insert.
    for (let j = chunk.length; j > i; j--) chunk[j] = chunk[j - 1]!;
    chunk[i] = out;
    this.count++;
    this.total += out.value;
    if (chunk.length > MAX_CHUNK) this.chunks.splice(c + 1, 0, chunk.splice(chunk.length >>> 1));
  }

  /** Removes the output at (txid, index); the removed output, or undefined when it was not held. */
  delete(txid: string, index: number): T | undefined {
    if (this.chunks.length === 0) return undefined;
    const c = this.chunkFor(txid, index);
    const chunk = this.chunks[c]!;
    const i = search(chunk, txid, index, false);
    const out = chunk[i];
    if (!out || compareOutpointTo(out, txid, index) !== 0) return undefined;
    for (let j = i + 1; j < chunk.length; j++) chunk[j - 1] = chunk[j]!;
    chunk.pop();
    if (chunk.length === 0) this.chunks.splice(c, 1);
    this.count--;
    this.total -= out.value;
    return out;
  }

  /**
   * Up to `limit` outputs worth at least `minValue`, in key order after the outpoint `after` (from
   * the start without it; the outpoint itself need not be held any more); `next` is where the
   * following page starts (null when the walk reached the end).
   */
  page(after: OutputRef | undefined, limit: number, minValue = 0n): OutputPage<T> {
    const outputs: T[] = [];
    let last: T | undefined;
    let c = after === undefined ? 0 : this.chunkFor(after.txid, after.index);
    let i = after === undefined || c >= this.chunks.length ? 0 : search(this.chunks[c]!, after.txid, after.index, true);
    for (; c < this.chunks.length; c++, i = 0) {
      const chunk = this.chunks[c]!;
      for (; i < chunk.length; i++) {
        if (outputs.length >= limit) return { outputs, next: { txid: last!.txid, index: last!.index } };
        const out = chunk[i]!;
        last = out;
        if (out.value >= minValue) outputs.push(out);
      }
    }
    return { outputs, next: null };
  }

  /** Every output, in key order. */
  toArray(): T[] {
    const out: T[] = [];
    for (const chunk of this.chunks) for (const v of chunk) out.push(v);
    return out;
  }
}
