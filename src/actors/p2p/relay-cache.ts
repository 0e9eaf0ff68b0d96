/** komodod keeps a relayed transaction for getdata 15 minutes (net.cpp RelayTransaction: vRelayExpiration). */
export const RELAY_CACHE_MS = 15 * 60 * 1000;

/**
 * mapRelay: the transactions relayed lately, for a peer's getdata (and AlreadyHave), kept 15
 * minutes from their last relay, at most `max` of them (the most recently relayed).
 *
 * komodod fills it in RelayTransaction whether or not a peer is connected, so a peer that connects
 * later and asks within the 15 minutes gets the transaction even once it has left the mempool (mined):
 * kept here too. But with no peer nothing reads it, and filing each accepted transaction in a map is
 * work no one may ever look at. So a relay is appended to a log in time order (three array pushes, no
 * hashing), and the log's new entries are filed in the map by txid when something reads it (a
 * getdata, an inv's AlreadyHave). Expiry and the bound take entries off the log's front, never by
 * iterating the map: a Map's first live entry is found past every entry deleted before it (until V8
 * rehashes the table), and at the bound one keys().next() per eviction walked thousands of such
 * holes (~14 µs a relayed tx, measured).
 */
export class RelayCache {
  /** txid → its bytes and the log position of its last relay filed. */
  private readonly filed = new Map<string, { raw: Uint8Array; seq: number }>();
  /** The relays in time order, from `head` on; those before `unfiled` are in `filed`. */
  private txids: string[] = [];
  /** Emptied as dropped, so a dropped transaction is not kept alive until the log is compacted. */
  private raws: (Uint8Array | undefined)[] = [];
  private ats: number[] = [];
  private head = 0;
  private unfiled = 0;
  /** The log position of txids[0] (positions never repeat, so a filed entry names its relay). */
  private base = 0;

  constructor(private readonly max: number) {}

  /** A relay at `at` (ms): the transaction is kept until 15 minutes after it. */
  add(txid: string, raw: Uint8Array, at: number): void {
    this.txids.push(txid);
    this.raws.push(raw);
    this.ats.push(at);
    // Bounded as the map is: the oldest relay goes once `max` later ones are logged.
    if (this.txids.length - this.head > this.max) this.dropFront();
  }

  has(txid: string): boolean {
    this.file();
    return this.filed.has(txid);
  }

  get(txid: string): Uint8Array | undefined {
    this.file();
    return this.filed.get(txid)?.raw;
  }

  /** The txids kept, least recently relayed first (inspection and tests). */
  keys(): string[] {
    this.file();
    const out: string[] = [];
    for (let i = this.head; i < this.txids.length; i++) if (this.isLast(i)) out.push(this.txids[i]!);
    return out;
  }

  get size(): number {
    this.file();
    return this.filed.size;
  }

  /** Drops the relays older than 15 minutes, oldest first, stopping at the first fresh one: a sweep costs what expired. */
  sweep(now: number): void {
    while (this.head < this.txids.length && now - this.ats[this.head]! > RELAY_CACHE_MS) this.dropFront();
  }

  /** The log's new relays into the map: a transaction relayed again is named by its last relay. */
  private file(): void {
    const { txids, raws } = this;
    for (let i = this.unfiled; i < txids.length; i++) this.filed.set(txids[i]!, { raw: raws[i]!, seq: this.base + i });
    this.unfiled = txids.length;
  }

  /** Whether log entry i is its transaction's last relay filed (the one the map names). */
  private isLast(i: number): boolean {
    return this.filed.get(this.txids[i]!)?.seq === this.base + i;
  }

  /** Takes the oldest relay off the log, and its transaction out of the map unless relayed again since. */
  private dropFront(): void {
    const i = this.head;
    if (i < this.unfiled && this.isLast(i)) this.filed.delete(this.txids[i]!);
    this.raws[i] = undefined;
    this.head++;
    // Dropped before it was filed: never filed.
    if (this.unfiled < this.head) this.unfiled = this.head;
    // Compacted once half the log is dropped: each entry is moved at most once per halving.
    if (this.head > 1024 && this.head * 2 > this.txids.length) {
      this.txids = this.txids.slice(this.head);
      this.raws = this.raws.slice(this.head);
      this.ats = this.ats.slice(this.head);
      this.base += this.head;
      this.unfiled -= this.head;
      this.head = 0;
    }
  }
}
