import { DecodeError } from './errors.js';

/** komodod's MAX_SIZE (serialize.h): no CompactSize may announce more than this. */
export const MAX_SIZE = 0x02000000;

/**
 * Reads komodod's little-endian serialisation from untrusted bytes. Every read checks what is left
 * first, so a hostile length can never make us allocate or read past the end.
 */
export class BufferReader {
  private readonly view: DataView;
  offset = 0;

  constructor(readonly data: Uint8Array, offset = 0) {
    this.view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    this.offset = offset;
  }

  get left(): number {
    return this.data.length - this.offset;
  }

  private need(n: number): void {
    if (n > this.left) throw new DecodeError(`unexpected end of data: need ${n} bytes, ${this.left} left`);
  }

  u8(): number {
    this.need(1);
    return this.data[this.offset++]!;
  }

  u16(): number {
    this.need(2);
    const v = this.view.getUint16(this.offset, true);
    this.offset += 2;
    return v;
  }

  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.offset, true);
    this.offset += 4;
    return v;
  }

  i32(): number {
    this.need(4);
    const v = this.view.getInt32(this.offset, true);
    this.offset += 4;
    return v;
  }

  u64(): bigint {
    this.need(8);
    const v = this.view.getBigUint64(this.offset, true);
    this.offset += 8;
    return v;
  }

  i64(): bigint {
    this.need(8);
    const v = this.view.getBigInt64(this.offset, true);
    this.offset += 8;
    return v;
  }

  /** A view of the next n bytes (no copy); callers that keep it past the buffer's life copy it. */
  bytes(n: number): Uint8Array {
    this.need(n);
    const v = this.data.subarray(this.offset, this.offset + n);
    this.offset += n;
    return v;
  }

  /** ReadCompactSize with komodod's canonical-encoding and MAX_SIZE checks. */
  compactSize(): number {
    const first = this.u8();
    let v: number;
    if (first < 0xfd) return first;
    if (first === 0xfd) {
      v = this.u16();
      if (v < 0xfd) throw new DecodeError('non-canonical ReadCompactSize()');
    } else if (first === 0xfe) {
      v = this.u32();
      if (v < 0x10000) throw new DecodeError('non-canonical ReadCompactSize()');
    } else {
      const big = this.u64();
      if (big < 0x100000000n) throw new DecodeError('non-canonical ReadCompactSize()');
      throw new DecodeError('ReadCompactSize(): size too large');
    }
    if (v > MAX_SIZE) throw new DecodeError('ReadCompactSize(): size too large');
    return v;
  }

  varBytes(): Uint8Array {
    return this.bytes(this.compactSize());
  }

  /** A count of items each at least minItemSize bytes long: rejects counts the remaining data cannot hold. */
  count(minItemSize: number): number {
    const n = this.compactSize();
    if (n * Math.max(1, minItemSize) > this.left) {
      throw new DecodeError(`count ${n} exceeds the ${this.left} bytes left`);
    }
    return n;
  }
}
