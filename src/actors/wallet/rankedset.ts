/**
 * A set whose lowest-ranked member is read and taken in amortised O(1) when members come in rank order
 * (the key pool: each new key takes the next index; an account's keys: key order), O(log k) for the k
 * that come out of order (a key relabelled into an account), whatever was deleted before (komodod's
 * std::set<int64_t> setKeyPool: begin() is the lowest index).
 *
 * Why not a Set read through `values().next()`: V8 leaves a deleted entry in the table until it
 * rehashes, and `values().next()` walks past every one of them, so a set taken from its front costs
 * O(entries taken since the last rehash) per take (the key pool of an exchange, -keypool=100000).
 * Here members added in rank order go to a queue read from a moving head, the others to a binary heap;
 * the lowest is the lower of the two fronts. A deleted member's node stays until it reaches a front
 * (dropped then, once) or the nodes are twice the members (the dead ones dropped: amortised O(1)).
 */
interface Node<T> {
  readonly item: T;
  readonly rank: number;
  /** Insertion order: equal ranks come out as they went in. */
  readonly seq: number;
}

export class RankedSet<T> {
  /** Member → its live node (a node not named here is a deleted member's). */
  private readonly live = new Map<T, Node<T>>();
  /** Nodes in (rank, seq) order from `head` on. */
  private queue: Node<T>[] = [];
  private head = 0;
  /** Nodes added below the queue's last rank, as a binary heap. */
  private heap: Node<T>[] = [];
  private seq = 0;

  get size(): number {
    return this.live.size;
  }

  has(item: T): boolean {
    return this.live.has(item);
  }

  /** Adds `item` at `rank` (a member already in keeps its rank). */
  add(item: T, rank: number): void {
    if (this.live.has(item)) return;
    const node: Node<T> = { item, rank, seq: this.seq++ };
    this.live.set(item, node);
    const last = this.queue.length > this.head ? this.queue[this.queue.length - 1]! : undefined;
    if (!last || rank >= last.rank) this.queue.push(node);
    else {
      this.heap.push(node);
      this.up(this.heap.length - 1);
    }
  }

  delete(item: T): boolean {
    if (!this.live.delete(item)) return false;
    if (this.live.size === 0) this.clear();
    else if (this.queue.length - this.head + this.heap.length > 2 * this.live.size + 16) this.compact();
    return true;
  }

  /** The lowest-ranked member (the earliest added among equal ranks), or undefined when empty. */
  first(): T | undefined {
    const q = this.queueFront();
    const h = this.heapFront();
    return (!h || (q && this.less(q, h)) ? q : h)?.item;
  }

  clear(): void {
    this.live.clear();
    this.queue = [];
    this.head = 0;
    this.heap = [];
  }

  private isLive(n: Node<T>): boolean {
    return this.live.get(n.item) === n;
  }

  private queueFront(): Node<T> | undefined {
    const q = this.queue;
    while (this.head < q.length && !this.isLive(q[this.head]!)) this.head++;
    // Drop the consumed front once it is half the array (amortised O(1)).
    if (this.head > 16 && this.head * 2 > q.length) {
      this.queue = q.slice(this.head);
      this.head = 0;
    }
    return this.queue[this.head];
  }

  private heapFront(): Node<T> | undefined {
    const heap = this.heap;
    while (heap.length > 0 && !this.isLive(heap[0]!)) this.pop();
    return heap[0];
  }

  /** The dead nodes dropped: the queue filtered (still in order), the heap's live nodes merged into it. */
  private compact(): void {
    const queue = this.queue.slice(this.head).filter((n) => this.isLive(n));
    const rest = this.heap.filter((n) => this.isLive(n)).sort((a, b) => (this.less(a, b) ? -1 : 1));
    const merged: Node<T>[] = [];
    let i = 0;
    let j = 0;
    while (i < queue.length || j < rest.length) merged.push(j >= rest.length || (i < queue.length && this.less(queue[i]!, rest[j]!)) ? queue[i++]! : rest[j++]!);
    this.queue = merged;
    this.head = 0;
    this.heap = [];
  }

  private less(a: Node<T>, b: Node<T>): boolean {
    return a.rank < b.rank || (a.rank === b.rank && a.seq < b.seq);
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop()!;
    if (heap.length === 0) return;
    heap[0] = last;
    this.down(0);
  }

  private up(i: number): void {
    const heap = this.heap;
    const node = heap[i]!;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(node, heap[p]!)) break;
      heap[i] = heap[p]!;
      i = p;
    }
    heap[i] = node;
  }

  private down(i: number): void {
    const heap = this.heap;
    const n = heap.length;
    const node = heap[i]!;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && this.less(heap[c + 1]!, heap[c]!)) c++;
      if (!this.less(heap[c]!, node)) break;
      heap[i] = heap[c]!;
      i = c;
    }
    heap[i] = node;
  }
}
