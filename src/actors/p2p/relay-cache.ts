/** komodod keeps a relayed transaction for getdata 15 minutes (net.cpp RelayTransaction: GetTime() + 15 * 60). */
export const RELAY_CACHE_SECONDS = 15 * 60;

/**
 * mapRelay and vRelayExpiration (net.cpp RelayTransaction), as a peer sees them through getdata:
 * - a relay inserts the transaction's bytes unless it is there already (std::map::insert: the first
 *   relay's bytes stay) and queues an expiry 15 minutes on, in whole seconds (GetTime());
 * - expiry runs only when something is relayed, first thing: each queued expiry whose second has
 *   passed erases its txid, whatever relayed it since (a relay again does not restart the 15 minutes;
 *   with nothing relayed, nothing expires, and a getdata is still answered);
 * - acnode adds a bound of `max` queued relays (komodod's map is bounded by its own throughput only):
 *   past it the oldest is erased as if expired.
 *
 * komodod fills it whether or not a peer is connected. With no peer nothing reads it, so a relay is
 * appended to a log (the expiry queue, three array pushes, no hashing) and filed in the map when
 * something reads it or an erase is due (the erase must come after every insert before it). Erases
 * take entries off the log's front, never by iterating the map (a Map's first live entry is found past
 * every entry deleted before it: ~14 µs a relayed tx at the bound, measured).
 */
export class RelayCache {
  /** mapRelay: txid → the bytes of its first relay since its last erase. */
  private readonly filed = new Map<string, Uint8Array>();
  /** vRelayExpiration from `head` on: each relay's txid and expiry second; the bytes of those after `unfiled`. */
  private txids: string[] = [];
  /** Emptied once filed or dropped, so the log holds no transaction alive. */
  private raws: (Uint8Array | undefined)[] = [];
  private expires: number[] = [];
  private head = 0;
  private unfiled = 0;

  constructor(private readonly max: number) {}

  /** RelayTransaction at `at` (ms). */
  add(txid: string, raw: Uint8Array, at: number): void {
    const now = Math.floor(at / 1000);
    // Expire old relay messages, before this one is inserted (every earlier insert first).
    if (this.head < this.txids.length && this.expires[this.head]! < now) {
      this.file();
      while (this.head < this.txids.length && this.expires[this.head]! < now) this.dropFront();
    }
    this.txids.push(txid);
    this.raws.push(raw);
    this.expires.push(now + RELAY_CACHE_SECONDS);
    if (this.txids.length - this.head > this.max) {
      this.file();
      this.dropFront();
    }
  }

  has(txid: string): boolean {
    this.file();
    return this.filed.has(txid);
  }

  get(txid: string): Uint8Array | undefined {
    this.file();
    return this.filed.get(txid);
  }

  /** The txids kept, in the order they were inserted (inspection and tests). */
  keys(): string[] {
    this.file();
    return [...this.filed.keys()];
  }

  get size(): number {
    this.file();
    return this.filed.size;
  }

  /** The log's new relays into the map: std::map::insert, a present txid keeps its bytes. */
  private file(): void {
    const { txids, raws, filed } = this;
    for (let i = this.unfiled; i < txids.length; i++) {
      if (!filed.has(txids[i]!)) filed.set(txids[i]!, raws[i]!);
      raws[i] = undefined;
    }
    this.unfiled = txids.length;
  }

  /** The front expiry: its txid is erased (the caller filed every relay before it). */
  private dropFront(): void {
    const i = this.head;
    this.filed.delete(this.txids[i]!);
    this.raws[i] = undefined;
    this.head++;
    if (this.unfiled < this.head) this.unfiled = this.head;
    // Compacted once half the log is dropped: each entry is moved at most once per halving.
    if (this.head > 1024 && this.head * 2 > this.txids.length) {
      this.txids = this.txids.slice(this.head);
      this.raws = this.raws.slice(this.head);
      this.expires = this.expires.slice(this.head);
      this.unfiled -= this.head;
      this.head = 0;
    }
  }
}
