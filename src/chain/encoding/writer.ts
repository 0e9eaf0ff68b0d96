/** Builds komodod's little-endian serialisation into a growable buffer. */
export class BufferWriter {
  private buf: Uint8Array;
  private view: DataView;
  length = 0;

  constructor(capacity = 256) {
    this.buf = new Uint8Array(capacity);
    this.view = new DataView(this.buf.buffer);
  }

  private reserve(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.length + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  u8(v: number): this {
    this.reserve(1);
    this.buf[this.length++] = v & 0xff;
    return this;
  }

  u16(v: number): this {
    this.reserve(2);
    this.view.setUint16(this.length, v, true);
    this.length += 2;
    return this;
  }

  u32(v: number): this {
    this.reserve(4);
    this.view.setUint32(this.length, v >>> 0, true);
    this.length += 4;
    return this;
  }

  i32(v: number): this {
    this.reserve(4);
    this.view.setInt32(this.length, v | 0, true);
    this.length += 4;
    return this;
  }

  u64(v: bigint): this {
    this.reserve(8);
    this.view.setBigUint64(this.length, BigInt.asUintN(64, v), true);
    this.length += 8;
    return this;
  }

  i64(v: bigint): this {
    this.reserve(8);
    this.view.setBigInt64(this.length, BigInt.asIntN(64, v), true);
    this.length += 8;
    return this;
  }

  bytes(b: Uint8Array): this {
    this.reserve(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
    return this;
  }

  compactSize(n: number): this {
    if (n < 0xfd) return this.u8(n);
    if (n <= 0xffff) return this.u8(0xfd).u16(n);
    if (n <= 0xffffffff) return this.u8(0xfe).u32(n);
    return this.u8(0xff).u64(BigInt(n));
  }

  varBytes(b: Uint8Array): this {
    return this.compactSize(b.length).bytes(b);
  }

  /** The bytes written so far (a copy, so the writer can be reused). */
  finish(): Uint8Array {
    return this.buf.slice(0, this.length);
  }

  /** The bytes written so far without a copy: a view valid until the next write or reset. */
  written(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }

  /**
   * The writer's buffer itself, the bytes written being its first `length`: for a reader of them that
   * takes an end (a hash of a scratch writer's bytes) without the view written() makes. Valid until
   * the next write or reset.
   */
  buffer(): Uint8Array {
    return this.buf;
  }

  /** Empties the writer and keeps its buffer (a scratch writer reused from call to call). */
  reset(): this {
    this.length = 0;
    return this;
  }
}

/** WriteCompactSize alone, for a caller that streams its bytes without a Writer. */
export function compactSizeBytes(n: number): Uint8Array {
  if (n < 0xfd) return Uint8Array.of(n);
  const len = compactSizeLength(n);
  const b = new Uint8Array(len);
  const v = new DataView(b.buffer);
  b[0] = len === 3 ? 0xfd : len === 5 ? 0xfe : 0xff;
  if (len === 3) v.setUint16(1, n, true);
  else if (len === 5) v.setUint32(1, n, true);
  else v.setBigUint64(1, BigInt(n), true);
  return b;
}

export function compactSizeLength(n: number): number {
  return n < 0xfd ? 1 : n <= 0xffff ? 3 : n <= 0xffffffff ? 5 : 9;
}
