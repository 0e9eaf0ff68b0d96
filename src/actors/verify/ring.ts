/**
 * A single-producer, single-consumer queue of byte records in a SharedArrayBuffer: how the calling
 * thread hands script-check batches to a worker and the worker hands back its results, without a
 * MessagePort (whose postMessage cost ~27 µs a batch on the mempool thread, plus the worker's message
 * event, measured with 16 sendrawtransaction calls in flight).
 *
 * Layout: eight Int32 control words (five used), then the data area. A record is a u32 length and its bytes, padded
 * to 4; a length of WRAP says the rest of the area is unused and the next record starts at 0. The
 * producer publishes a record with an Atomics store of `head` after writing it, the consumer frees it
 * with an Atomics store of `tail` after copying it out (JavaScript's memory model orders the plain
 * writes before them). One byte is always left free, so head === tail means empty.
 */

const HEAD = 0;
const TAIL = 1;
/** Set by the consumer while it sleeps in waitForRecord (the producer then wakes it). */
const SLEEPING = 2;
/** Set by the producer to ask the consumer to stop (closed). */
const CLOSED = 3;
/** Set by the producer while it waits in pushWaiting (the consumer then wakes it). */
const PRODUCER_WAITING = 4;
const CONTROL_WORDS = 8;
const CONTROL_BYTES = CONTROL_WORDS * 4;
const WRAP = 0xffffffff;

function padded(n: number): number {
  return (n + 3) & ~3;
}

export class SharedRing {
  private readonly ctrl: Int32Array;
  private readonly data: Uint8Array;
  private readonly view: DataView;
  /** Bytes in the data area (a multiple of 4). */
  readonly capacity: number;

  constructor(readonly buffer: SharedArrayBuffer) {
    this.ctrl = new Int32Array(buffer, 0, CONTROL_WORDS);
    this.capacity = (buffer.byteLength - CONTROL_BYTES) & ~3;
    this.data = new Uint8Array(buffer, CONTROL_BYTES, this.capacity);
    this.view = new DataView(buffer, CONTROL_BYTES, this.capacity);
  }

  static create(capacity: number): SharedRing {
    return new SharedRing(new SharedArrayBuffer(CONTROL_BYTES + padded(capacity)));
  }

  /** Bytes a record of `length` takes in the data area. */
  private static size(length: number): number {
    return 4 + padded(length);
  }

  /**
   * Whether a record of `length` bytes always fits once the ring is empty (a larger one must go another
   * way): at most half the area, since an empty ring may stand anywhere and a record never straddles
   * the end.
   */
  fits(length: number): boolean {
    return SharedRing.size(length) <= this.capacity / 2;
  }

  /**
   * Appends a record made of `parts`, concatenated; false (nothing written) when it does not fit in
   * the free space now. Producer side only.
   */
  push(...parts: Uint8Array[]): boolean {
    let length = 0;
    for (const p of parts) length += p.length;
    const need = SharedRing.size(length);
    const cap = this.capacity;
    let head = Atomics.load(this.ctrl, HEAD);
    const tail = Atomics.load(this.ctrl, TAIL);
    const free = tail > head ? tail - head - 1 : cap - head + tail - 1;
    const toEnd = cap - head;
    // A record never straddles the end: if it does not fit before it, the rest of the area is skipped.
    const wasted = need > toEnd ? toEnd : 0;
    if (need + wasted > free) return false;
    if (wasted > 0) {
      // Records are padded to 4 and the area is a multiple of 4: there is room for the marker.
      this.view.setUint32(head, WRAP, true);
      head = 0;
    }
    this.view.setUint32(head, length, true);
    let at = head + 4;
    for (const p of parts) {
      this.data.set(p, at);
      at += p.length;
    }
    Atomics.store(this.ctrl, HEAD, (head + need) % cap);
    if (Atomics.load(this.ctrl, SLEEPING) === 1) Atomics.notify(this.ctrl, HEAD);
    return true;
  }

  /** The next record, copied out of the ring, or undefined when there is none. Consumer side only. */
  shift(): Uint8Array | undefined {
    let tail = Atomics.load(this.ctrl, TAIL);
    const head = Atomics.load(this.ctrl, HEAD);
    if (tail === head) return undefined;
    if (this.view.getUint32(tail, true) === WRAP) tail = 0;
    const length = this.view.getUint32(tail, true);
    const record = this.data.slice(tail + 4, tail + 4 + length);
    Atomics.store(this.ctrl, TAIL, (tail + SharedRing.size(length)) % this.capacity);
    if (Atomics.load(this.ctrl, PRODUCER_WAITING) === 1) Atomics.notify(this.ctrl, TAIL);
    return record;
  }

  /**
   * Consumer side: sleeps until a record is there (true), the ring is closed (false) or `timeoutMs`
   * passes (true: look again).
   */
  waitForRecord(timeoutMs: number): boolean {
    if (Atomics.load(this.ctrl, CLOSED) === 1) return false;
    const head = Atomics.load(this.ctrl, HEAD);
    if (head !== Atomics.load(this.ctrl, TAIL)) return true;
    Atomics.store(this.ctrl, SLEEPING, 1);
    // Seen again after announcing the sleep: a push in between either saw SLEEPING or moved head.
    if (Atomics.load(this.ctrl, HEAD) === head && Atomics.load(this.ctrl, CLOSED) === 0) Atomics.wait(this.ctrl, HEAD, head, timeoutMs);
    Atomics.store(this.ctrl, SLEEPING, 0);
    return Atomics.load(this.ctrl, CLOSED) === 0;
  }

  /** Producer side: no more records; a consumer asleep in waitForRecord wakes and returns false. */
  close(): void {
    Atomics.store(this.ctrl, CLOSED, 1);
    Atomics.notify(this.ctrl, HEAD);
  }

  /**
   * Producer side: push(), sleeping while the ring is full until the consumer frees space. Only for a
   * record that fits() (any other would wait forever).
   */
  pushWaiting(...parts: Uint8Array[]): void {
    let length = 0;
    for (const p of parts) length += p.length;
    if (!this.fits(length)) throw new RangeError(`a ${length}-byte record never fits a ${this.capacity}-byte ring`);
    for (;;) {
      const tail = Atomics.load(this.ctrl, TAIL);
      if (this.push(...parts)) return;
      Atomics.store(this.ctrl, PRODUCER_WAITING, 1);
      // Seen again after announcing the wait: a shift in between either saw the flag or moved tail.
      // The timeout only bounds a sleep should a wake-up be missed.
      if (Atomics.load(this.ctrl, TAIL) === tail) Atomics.wait(this.ctrl, TAIL, tail, 1000);
      Atomics.store(this.ctrl, PRODUCER_WAITING, 0);
    }
  }
}
