import { randomBytes } from 'node:crypto';
import { MAX_INV_SZ } from '../../chain/p2p/messages.js';

/**
 * komodod's bookkeeping of transactions asked of peers (net.h, net.cpp CNode::AskFor), kept in typed
 * arrays: komodod lets one peer have 100,000 hashes waiting for an answer, and as JS strings in a Set
 * that is over 10 MB per peer; here it is about 1 MB.
 *
 * - setAskFor (per peer, FingerprintSet): the hashes asked of the peer and not answered yet.
 * - mapAskFor (per peer, AskQueue): requests not sent yet, by the time they may go out.
 * - mapAlreadyAskedFor (global, AlreadyAsked): when each hash was last asked of anyone.
 *
 * The sets are keyed by the hash's first 64 bits. Two hashes sharing them count as one: the second
 * is not asked of the same peer. A txid's 64 bits cannot be aimed at without 2^64 work, and a peer
 * that knows a txid can simply announce it, so this changes nothing a peer could not do anyway.
 */

/** net.h MAPASKFOR_MAX_SZ: requests queued for one peer. */
export const MAPASKFOR_MAX_SZ = MAX_INV_SZ;
/** net.h SETASKFOR_MAX_SZ: hashes asked of one peer and not answered ("larger due to getdata latency"). */
export const SETASKFOR_MAX_SZ = 2 * MAX_INV_SZ;

// Bucket positions are salted per process: a peer cannot pick hashes that pile into one probe run.
const SALT = randomBytes(8);
const K0 = SALT.readUInt32LE(0);
const K1 = SALT.readUInt32LE(4);

const word = (h: Uint8Array, o: number): number => (h[o]! | (h[o + 1]! << 8) | (h[o + 2]! << 16) | (h[o + 3]! << 24)) >>> 0;

function bucketOf(lo: number, hi: number, mask: number): number {
  let x = Math.imul((lo ^ K0) >>> 0, 0xcc9e2d51);
  x = Math.imul(x ^ (x >>> 15) ^ ((hi ^ K1) >>> 0), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) & mask;
}

/**
 * An open-addressing table (linear probing, backward-shift deletion) of 64-bit keys, each with an
 * optional int32 value. It grows past 80% load and shrinks below 20%, so it holds what is in it.
 */
class FingerprintTable {
  /** Two words per bucket (lo, hi); 0/0 marks an empty bucket, so a 0/0 key is stored as 1/0. */
  private keys!: Uint32Array;
  private vals: Int32Array | undefined;
  private mask = 0;
  size = 0;

  constructor(
    private readonly withValues: boolean,
    private readonly minBuckets = 16,
  ) {
    this.alloc(minBuckets);
  }

  private alloc(buckets: number): void {
    this.keys = new Uint32Array(buckets * 2);
    this.vals = this.withValues ? new Int32Array(buckets) : undefined;
    this.mask = buckets - 1;
  }

  /** The bucket holding the key, or -1 - (the empty bucket where it would go). */
  private find(lo: number, hi: number): number {
    const k = this.keys;
    for (let i = bucketOf(lo, hi, this.mask); ; i = (i + 1) & this.mask) {
      const a = k[i * 2]!;
      const b = k[i * 2 + 1]!;
      if (a === lo && b === hi) return i;
      if (a === 0 && b === 0) return -1 - i;
    }
  }

  get(lo: number, hi: number): number | undefined {
    if (lo === 0 && hi === 0) lo = 1;
    const i = this.find(lo, hi);
    return i < 0 ? undefined : (this.vals?.[i] ?? 0);
  }

  /** Adds the key (value `v`) unless present; false when it was present (its value is kept). */
  add(lo: number, hi: number, v = 0): boolean {
    if (lo === 0 && hi === 0) lo = 1;
    if ((this.size + 1) * 5 > (this.mask + 1) * 4) this.resize((this.mask + 1) * 2);
    const i = this.find(lo, hi);
    if (i >= 0) return false;
    const at = -1 - i;
    this.keys[at * 2] = lo;
    this.keys[at * 2 + 1] = hi;
    if (this.vals) this.vals[at] = v;
    this.size++;
    return true;
  }

  set(lo: number, hi: number, v: number): void {
    if (lo === 0 && hi === 0) lo = 1;
    const i = this.find(lo, hi);
    if (i >= 0) this.vals![i] = v;
    else this.add(lo, hi, v);
  }

  delete(lo: number, hi: number): boolean {
    if (lo === 0 && hi === 0) lo = 1;
    let i = this.find(lo, hi);
    if (i < 0) return false;
    const k = this.keys;
    const mask = this.mask;
    // Backward shift: every later key of the run whose home is not between the hole and itself moves into the hole.
    for (let j = (i + 1) & mask; ; j = (j + 1) & mask) {
      const a = k[j * 2]!;
      const b = k[j * 2 + 1]!;
      if (a === 0 && b === 0) break;
      const home = bucketOf(a, b, mask);
      const stays = i <= j ? home > i && home <= j : home > i || home <= j;
      if (stays) continue;
      k[i * 2] = a;
      k[i * 2 + 1] = b;
      if (this.vals) this.vals[i] = this.vals[j]!;
      i = j;
    }
    k[i * 2] = 0;
    k[i * 2 + 1] = 0;
    this.size--;
    const buckets = mask + 1;
    if (buckets > this.minBuckets && this.size * 5 < buckets) this.resize(buckets / 2);
    return true;
  }

  clear(): void {
    this.size = 0;
    this.alloc(this.minBuckets);
  }

  private resize(buckets: number): void {
    const keys = this.keys;
    const vals = this.vals;
    const old = keys.length / 2;
    this.alloc(buckets);
    this.size = 0;
    for (let i = 0; i < old; i++) {
      const a = keys[i * 2]!;
      const b = keys[i * 2 + 1]!;
      if (a !== 0 || b !== 0) this.add(a, b, vals?.[i] ?? 0);
    }
  }
}

/** A set of 32-byte hashes by their first 64 bits: komodod's per-peer setAskFor. */
export class FingerprintSet {
  private readonly table = new FingerprintTable(false);

  get size(): number {
    return this.table.size;
  }

  has(hash: Uint8Array): boolean {
    return this.table.get(word(hash, 0), word(hash, 4)) !== undefined;
  }

  /** False when the hash was in the set already. */
  add(hash: Uint8Array): boolean {
    return this.table.add(word(hash, 0), word(hash, 4));
  }

  delete(hash: Uint8Array): boolean {
    return this.table.delete(word(hash, 0), word(hash, 4));
  }

  clear(): void {
    this.table.clear();
  }
}

/**
 * mapAlreadyAskedFor: a limitedmap<CInv, int64_t>(MAX_INV_SZ) of when each hash was last asked for
 * (µs). limitedmap keeps the entries with the highest times: an insert that brings the map to its
 * limit first drops the entry with the lowest time, so it never holds more than limit - 1.
 */
export class AlreadyAsked {
  /** hash key → entry number */
  private readonly table = new FingerprintTable(true);
  private times = new Float64Array(0);
  private los = new Uint32Array(0);
  private his = new Uint32Array(0);
  /** A min-heap of entry numbers by time, and each entry's place in it. */
  private heap = new Int32Array(0);
  private place = new Int32Array(0);
  private readonly freeList: number[] = [];
  private used = 0;

  constructor(readonly limit = MAX_INV_SZ) {}

  get size(): number {
    return this.table.size;
  }

  get(hash: Uint8Array): number | undefined {
    const e = this.table.get(word(hash, 0), word(hash, 4));
    return e === undefined ? undefined : this.times[e];
  }

  /** limitedmap::update for a present hash, limitedmap::insert otherwise. */
  set(hash: Uint8Array, time: number): void {
    const lo = word(hash, 0);
    const hi = word(hash, 4);
    const e = this.table.get(lo, hi);
    if (e !== undefined) {
      this.times[e] = time;
      this.siftDown(this.siftUp(this.place[e]!));
      return;
    }
    // The map reaches its limit with this insert: the lowest time goes first (not counting the new one).
    if (this.size > 0 && this.size + 1 === this.limit) this.removeEntry(this.heap[0]!);
    const n = this.newEntry();
    this.times[n] = time;
    this.los[n] = lo;
    this.his[n] = hi;
    this.table.add(lo, hi, n);
    const at = this.size - 1;
    this.heap[at] = n;
    this.place[n] = at;
    this.siftUp(at);
  }

  delete(hash: Uint8Array): void {
    const e = this.table.get(word(hash, 0), word(hash, 4));
    if (e !== undefined) this.removeEntry(e);
  }

  private newEntry(): number {
    const reused = this.freeList.pop();
    if (reused !== undefined) return reused;
    if (this.used === this.times.length) this.grow(Math.max(1024, this.times.length * 2));
    return this.used++;
  }

  private grow(n: number): void {
    const t = new Float64Array(n);
    t.set(this.times);
    this.times = t;
    for (const k of ['los', 'his'] as const) {
      const a = new Uint32Array(n);
      a.set(this[k]);
      this[k] = a;
    }
    for (const k of ['heap', 'place'] as const) {
      const a = new Int32Array(n);
      a.set(this[k]);
      this[k] = a;
    }
  }

  private removeEntry(e: number): void {
    this.table.delete(this.los[e]!, this.his[e]!);
    const at = this.place[e]!;
    const last = this.size; // the table already dropped it: the heap's last slot is `size`
    const moved = this.heap[last]!;
    this.heap[at] = moved;
    this.place[moved] = at;
    if (at !== last) this.siftDown(this.siftUp(at));
    this.freeList.push(e);
    if (this.size === 0) {
      // Empty: give the arrays back.
      this.freeList.length = 0;
      this.used = 0;
      this.times = new Float64Array(0);
      this.los = new Uint32Array(0);
      this.his = new Uint32Array(0);
      this.heap = new Int32Array(0);
      this.place = new Int32Array(0);
    }
  }

  private siftUp(at: number): number {
    const h = this.heap;
    const e = h[at]!;
    const t = this.times[e]!;
    while (at > 0) {
      const up = (at - 1) >> 1;
      if (this.times[h[up]!]! <= t) break;
      h[at] = h[up]!;
      this.place[h[at]!] = at;
      at = up;
    }
    h[at] = e;
    this.place[e] = at;
    return at;
  }

  private siftDown(at: number): void {
    const h = this.heap;
    const n = this.size;
    const e = h[at]!;
    const t = this.times[e]!;
    for (;;) {
      let c = at * 2 + 1;
      if (c >= n) break;
      if (c + 1 < n && this.times[h[c + 1]!]! < this.times[h[c]!]!) c++;
      if (this.times[h[c]!]! >= t) break;
      h[at] = h[c]!;
      this.place[h[at]!] = at;
      at = c;
    }
    h[at] = e;
    this.place[e] = at;
  }
}

/**
 * mapAskFor: one peer's requests not sent yet, ordered by the time each may be sent (µs), earliest
 * first, and in arrival order among equal times (a std::multimap). The hashes are kept whole: they go
 * out in getdata.
 */
export class AskQueue {
  private times = new Float64Array(0);
  private seqs = new Float64Array(0);
  private hashes = new Uint8Array(0);
  private seq = 0;
  private readonly scratch = new Uint8Array(32);
  size = 0;

  /** The earliest time queued, or Infinity. */
  get nextTime(): number {
    return this.size ? this.times[0]! : Infinity;
  }

  push(time: number, hash: Uint8Array): void {
    if (this.size === this.times.length) this.resize(Math.max(64, this.size * 2));
    let at = this.size++;
    const seq = this.seq++;
    // Sift up with a hole: parents move down until the new entry's place is found.
    while (at > 0) {
      const up = (at - 1) >> 1;
      if (this.before(up, time, seq)) break;
      this.move(up, at);
      at = up;
    }
    this.times[at] = time;
    this.seqs[at] = seq;
    this.hashes.set(hash.subarray(0, 32), at * 32);
  }

  /** Removes the earliest request, writing its hash into `out` at `offset`. */
  pop(out: Uint8Array, offset: number): void {
    out.set(this.hashes.subarray(0, 32), offset);
    const last = --this.size;
    if (last > 0) {
      const time = this.times[last]!;
      const seq = this.seqs[last]!;
      const hash = this.scratch;
      hash.set(this.hashes.subarray(last * 32, last * 32 + 32));
      let at = 0;
      for (;;) {
        let c = at * 2 + 1;
        if (c >= last) break;
        if (c + 1 < last && this.before(c + 1, this.times[c]!, this.seqs[c]!)) c++;
        if (!this.before(c, time, seq)) break;
        this.move(c, at);
        at = c;
      }
      this.times[at] = time;
      this.seqs[at] = seq;
      this.hashes.set(hash, at * 32);
    }
    if (this.times.length > 64 && this.size * 4 < this.times.length) this.resize(this.times.length / 2);
  }

  clear(): void {
    this.size = 0;
    this.resize(0);
  }

  /** Entry i comes before (time, seq). */
  private before(i: number, time: number, seq: number): boolean {
    const t = this.times[i]!;
    return t < time || (t === time && this.seqs[i]! < seq);
  }

  private move(from: number, to: number): void {
    this.times[to] = this.times[from]!;
    this.seqs[to] = this.seqs[from]!;
    this.hashes.copyWithin(to * 32, from * 32, from * 32 + 32);
  }

  private resize(n: number): void {
    const t = new Float64Array(n);
    const s = new Float64Array(n);
    const h = new Uint8Array(n * 32);
    t.set(this.times.subarray(0, this.size));
    s.set(this.seqs.subarray(0, this.size));
    h.set(this.hashes.subarray(0, this.size * 32));
    this.times = t;
    this.seqs = s;
    this.hashes = h;
  }
}
