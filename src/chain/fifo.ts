/**
 * A Map bounded to `max` entries whose oldest insertion goes first, in O(1) per insertion.
 *
 * Why not Map alone: evicting with `map.keys().next()` finds the first live entry by walking past every
 * entry deleted since V8 last rehashed the table, so a full map evicting from its front costs O(size)
 * per insertion (measured: 1.5 µs at 10^3 entries, 40 µs at 2·10^4, 176 µs at 10^5). Here the insertion
 * order is kept in an array read from a moving head, and eviction deletes by key.
 * There is no delete(): entries leave only by age, so the array names exactly the map's keys.
 */
export class FifoMap<K, V> {
  private readonly map = new Map<K, V>();
  private order: K[] = [];
  private head = 0;

  constructor(readonly max: number) {
    if (!(max >= 1)) throw new RangeError(`FifoMap bound must be at least 1 (got ${max})`);
  }

  get size(): number {
    return this.map.size;
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  /** Sets `key` (an existing key keeps its place in the order); the oldest goes once over the bound. */
  set(key: K, value: V): this {
    const size = this.map.size;
    this.map.set(key, value);
    if (this.map.size === size) return this;
    this.order.push(key);
    if (this.map.size > this.max) this.map.delete(this.order[this.head++]!);
    // Drop the consumed front once it is half the array: amortised O(1), the array at most 2·max.
    if (this.head > this.max) {
      this.order = this.order.slice(this.head);
      this.head = 0;
    }
    return this;
  }

  clear(): void {
    this.map.clear();
    this.order = [];
    this.head = 0;
  }
}

/** A Set bounded the same way (FifoMap's keys). */
export class FifoSet<K> {
  private readonly map: FifoMap<K, true>;

  constructor(max: number) {
    this.map = new FifoMap(max);
  }

  get size(): number {
    return this.map.size;
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  add(key: K): this {
    this.map.set(key, true);
    return this;
  }

  clear(): void {
    this.map.clear();
  }
}
