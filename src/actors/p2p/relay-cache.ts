/** komodod keeps a relayed transaction for getdata 15 minutes (net.cpp RelayTransaction: vRelayExpiration). */
export const RELAY_CACHE_MS = 15 * 60 * 1000;

/**
 * mapRelay: the transactions relayed lately, for a peer's getdata (and AlreadyHave), kept 15
 * minutes from their last relay, oldest first, at most `max` of them.
 *
 * komodod fills it in RelayTransaction whether or not a peer is connected, so a peer that connects
 * later and asks within the 15 minutes gets the transaction even once it has left the mempool (mined):
 * kept here too. But with no peer nothing reads it, and filing each accepted transaction in the map
 * (a delete and a set, ~2% of an accept's main-thread time) is work no one may ever look at. So a
 * relay is appended to a log (three array pushes, no hashing); the log is filed into the map, in
 * order, when something reads it (a getdata, an inv's AlreadyHave) or a relay reaches a peer. The
 * sweep drops what expired from both, the log's expired entries without filing them.
 */
export class RelayCache {
  private readonly filed = new Map<string, { raw: Uint8Array; at: number }>();
  /** The relays not filed yet, oldest first, from `head` on. */
  private txids: string[] = [];
  /** Emptied as dropped, so a dropped transaction is not kept alive until the log is compacted. */
  private raws: (Uint8Array | undefined)[] = [];
  private ats: number[] = [];
  private head = 0;

  constructor(private readonly max: number) {}

  /** A relay at `at` (ms): the transaction is kept until 15 minutes after it. */
  add(txid: string, raw: Uint8Array, at: number): void {
    this.txids.push(txid);
    this.raws.push(raw);
    this.ats.push(at);
    // Bounded as the map is: what `max` later relays would have pushed out of it is dropped unfiled.
    if (this.txids.length - this.head > this.max) this.dropUnfiled(1);
  }

  has(txid: string): boolean {
    this.file();
    return this.filed.has(txid);
  }

  get(txid: string): Uint8Array | undefined {
    this.file();
    return this.filed.get(txid)?.raw;
  }

  /** The txids kept, oldest first (inspection and tests). */
  keys(): string[] {
    this.file();
    return [...this.filed.keys()];
  }

  get size(): number {
    this.file();
    return this.filed.size;
  }

  /** Drops the relays older than 15 minutes: oldest first, stopping at the first fresh one, so a sweep costs what expired. */
  sweep(now: number): void {
    for (const [k, v] of this.filed) {
      if (now - v.at <= RELAY_CACHE_MS) break;
      this.filed.delete(k);
    }
    let n = 0;
    while (this.head + n < this.ats.length && now - this.ats[this.head + n]! > RELAY_CACHE_MS) n++;
    if (n > 0) this.dropUnfiled(n);
  }

  /** The log into the map, in order: a transaction relayed again moves to the end, its 15 minutes starting again. */
  private file(): void {
    const { txids, raws, ats } = this;
    if (txids.length === 0) return;
    for (let i = this.head; i < txids.length; i++) {
      const txid = txids[i]!;
      this.filed.delete(txid);
      this.filed.set(txid, { raw: raws[i]!, at: ats[i]! });
    }
    this.txids = [];
    this.raws = [];
    this.ats = [];
    this.head = 0;
    // Over the bound: the oldest go, in one pass. Not one keys().next() per eviction: a Map's first
    // live entry is found past every entry deleted before it (until V8 rehashes the table), so at the
    // bound each eviction walked thousands of holes (~14 µs a relayed tx, measured, against ~0.2 logged).
    let over = this.filed.size - this.max;
    if (over > 0) {
      for (const k of this.filed.keys()) {
        this.filed.delete(k);
        if (--over === 0) break;
      }
    }
  }

  private dropUnfiled(n: number): void {
    for (let i = this.head; i < this.head + n; i++) this.raws[i] = undefined;
    this.head += n;
    // Compacted once half the log is dropped: each entry is moved at most once per halving.
    if (this.head > 1024 && this.head * 2 > this.txids.length) {
      this.txids = this.txids.slice(this.head);
      this.raws = this.raws.slice(this.head);
      this.ats = this.ats.slice(this.head);
      this.head = 0;
    }
  }
}
