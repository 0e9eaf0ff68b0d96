/**
 * The mempool's transactions by expiry height (Overwinter's nExpiryHeight), kept as they enter and
 * leave: a connected block takes out the expired ones (removeExpired) by a look at the lowest
 * heights, not by a pass over every entry. komodod's removeExpired walks the whole pool per block.
 *
 * Each height with transactions is in a binary min-heap once. A height whose transactions all left
 * otherwise (mined, conflicted) stays in the heap until the chain passes it or until such heights
 * outnumber the live ones, when the heap is rebuilt from the live heights (amortised: one rebuild per
 * as many removals as there are live heights).
 */
export class ExpiryIndex {
  private readonly byHeight = new Map<number, Set<string>>();
  /** Every height of byHeight, and some whose transactions left: a min-heap. */
  private heap: number[] = [];
  private readonly inHeap = new Set<number>();

  /** A transaction entering the pool; `expiryHeight` 0 (never expires) is not kept. */
  add(txid: string, expiryHeight: number): void {
    const h = expiryHeight >>> 0;
    if (h === 0) return;
    let s = this.byHeight.get(h);
    if (!s) {
      this.byHeight.set(h, (s = new Set()));
      if (!this.inHeap.has(h)) this.push(h);
    }
    s.add(txid);
  }

  /** A transaction leaving the pool. */
  delete(txid: string, expiryHeight: number): void {
    const h = expiryHeight >>> 0;
    const s = this.byHeight.get(h);
    if (!s?.delete(txid) || s.size > 0) return;
    this.byHeight.delete(h);
    if (this.heap.length > 2 * this.byHeight.size + 64) this.rebuild();
  }

  /**
   * The transactions expired at `height` (IsExpiredTx: height > nExpiryHeight), taken out of the
   * index: lowest expiry height first, in the order they entered within one height.
   */
  takeExpired(height: number): string[] {
    const out: string[] = [];
    const at = height >>> 0;
    while (this.heap.length > 0 && this.heap[0]! < at) {
      const h = this.pop();
      this.inHeap.delete(h);
      const s = this.byHeight.get(h);
      if (!s) continue;
      this.byHeight.delete(h);
      for (const txid of s) out.push(txid);
    }
    return out;
  }

  /** How many heights the heap holds (the tests' check that it stays bounded). */
  get heapSize(): number {
    return this.heap.length;
  }

  private rebuild(): void {
    this.heap = [...this.byHeight.keys()].sort((a, b) => a - b);
    this.inHeap.clear();
    for (const h of this.heap) this.inHeap.add(h);
  }

  private push(h: number): void {
    const a = this.heap;
    this.inHeap.add(h);
    let i = a.push(h) - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p]! <= h) break;
      a[i] = a[p]!;
      i = p;
    }
    a[i] = h;
  }

  private pop(): number {
    const a = this.heap;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= a.length) break;
        const c = l + 1 < a.length && a[l + 1]! < a[l]! ? l + 1 : l;
        if (a[c]! >= last) break;
        a[i] = a[c]!;
        i = c;
      }
      a[i] = last;
    }
    return top;
  }
}
