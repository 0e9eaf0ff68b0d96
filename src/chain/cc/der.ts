import { DecodeError } from '../encoding/errors.js';

/**
 * The narrow DER subset crypto-conditions use: one-byte tags, definite lengths, OCTET STRING,
 * INTEGER as asn1c's NativeInteger writes it, BIT STRING and sorted SET OF. Reading is tolerant
 * where asn1c's BER decoder is (non-minimal lengths); callers re-encode and compare, as komodod does.
 */

export const MASK64 = (1n << 64n) - 1n;

export interface Tlv {
  readonly tag: number;
  /** Offset of the tag byte. */
  readonly start: number;
  readonly contentStart: number;
  /** One past the last content byte. */
  readonly end: number;
}

/** Reads one TLV at `pos` that must end by `limit`. */
export function readTlv(buf: Uint8Array, pos: number, limit: number): Tlv {
  if (pos >= limit) throw new DecodeError('crypto-condition: truncated (tag expected)');
  const tag = buf[pos]!;
  // High-tag-number form never appears in this schema's DER; asn1c would re-encode it differently.
  if ((tag & 0x1f) === 0x1f) throw new DecodeError('crypto-condition: multi-byte tag');
  let p = pos + 1;
  if (p >= limit) throw new DecodeError('crypto-condition: truncated (length expected)');
  const first = buf[p++]!;
  let len: number;
  if (first < 0x80) {
    len = first;
  } else if (first === 0x80) {
    // Indefinite length: BER only, never the DER the re-encoding check demands.
    throw new DecodeError('crypto-condition: indefinite length');
  } else {
    const n = first & 0x7f;
    if (n > 4) throw new DecodeError('crypto-condition: length too large');
    if (p + n > limit) throw new DecodeError('crypto-condition: truncated length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[p++]!;
  }
  if (len > limit - p) throw new DecodeError('crypto-condition: length exceeds the available bytes');
  return { tag, start: pos, contentStart: p, end: p + len };
}

/** Reads a TLV and requires the given tag. */
export function expectTlv(buf: Uint8Array, pos: number, limit: number, tag: number, what: string): Tlv {
  const t = readTlv(buf, pos, limit);
  if (t.tag !== tag) {
    throw new DecodeError(`crypto-condition: expected ${what} (tag ${hexByte(tag)}), got ${hexByte(t.tag)}`);
  }
  return t;
}

function hexByte(b: number): string {
  return '0x' + b.toString(16).padStart(2, '0');
}

/** Tag, definite length (short form below 0x80, else 0x80 | byte count and big-endian bytes) and the content parts, in one allocation. */
export function tlv(tag: number, ...content: Uint8Array[]): Uint8Array {
  let len = 0;
  for (const c of content) len += c.length;
  let lenBytes = 0;
  if (len >= 0x80) for (let v = len; v > 0; v = Math.floor(v / 256)) lenBytes++;
  const out = new Uint8Array(2 + lenBytes + len);
  out[0] = tag;
  let p = 1;
  if (lenBytes === 0) out[p++] = len;
  else {
    out[p++] = 0x80 | lenBytes;
    for (let i = lenBytes - 1; i >= 0; i--) out[p++] = Math.floor(len / 256 ** i) & 0xff;
  }
  for (const c of content) {
    out.set(c, p);
    p += c.length;
  }
  return out;
}

/**
 * NativeInteger_encode_der: the native unsigned long as 8 big-endian bytes, then INTEGER_encode_der
 * strips redundant leading 00/FF bytes (two's-complement minimal). Values >= 2^63 thus come out as
 * 8 bytes with the top bit set, which komodod's unsigned decoder reads back as the same value.
 */
export function encodeUint(value: bigint): Uint8Array {
  let v = value & MASK64;
  const b = new Uint8Array(8);
  for (let i = 7; i >= 0; i--) {
    b[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  let s = 0;
  while (s < 7) {
    if (b[s] === 0x00 && (b[s + 1]! & 0x80) === 0) s++;
    else if (b[s] === 0xff && (b[s + 1]! & 0x80) !== 0) s++;
    else break;
  }
  return b.subarray(s);
}

/**
 * asn_INTEGER2ulong: leading zero bytes beyond 8 are ignored, any other excess fails; the rest is
 * read big-endian as unsigned. (Non-minimal forms decode here and fail the caller's re-encoding check.)
 */
export function decodeUint(content: Uint8Array): bigint {
  let start = 0;
  while (content.length - start > 8) {
    if (content[start] !== 0) throw new DecodeError('crypto-condition: INTEGER out of range');
    start++;
  }
  let v = 0n;
  for (let i = start; i < content.length; i++) v = (v << 8n) | BigInt(content[i]!);
  return v;
}

/** A BIT STRING as asn1c holds it: the unused-bits count and the data bytes. */
export interface BitString {
  readonly unused: number;
  readonly data: Uint8Array;
}

/** OCTET_STRING_decode_ber for BIT STRING: first byte is the unused count, unused bits are zeroed. */
export function decodeBitString(content: Uint8Array): BitString {
  if (content.length === 0) return { unused: 0, data: new Uint8Array(0) };
  const unused = content[0]!;
  const data = content.slice(1);
  if (data.length > 0) data[data.length - 1]! &= shiftMask(unused);
  return { unused, data };
}

/** OCTET_STRING_encode_der for BIT STRING: unused & 7, then the data with the unused bits cleared. */
export function encodeBitString(bs: BitString): Uint8Array {
  const out = new Uint8Array(1 + bs.data.length);
  out[0] = bs.unused & 7;
  out.set(bs.data, 1);
  if (bs.data.length > 0 && bs.unused & 7) out[out.length - 1]! &= shiftMask(bs.unused);
  return out;
}

// `0xff << n` in C on x86 (shift counts taken mod 32), truncated to a byte.
function shiftMask(n: number): number {
  return (0xff << (n & 31)) & 0xff;
}

/** fromAsnSubtypes: every bit of every data byte, MSB first, bit i -> 1 << i (x86 wraps i mod 32). */
export function bitStringToMask(bs: BitString): number {
  let mask = 0;
  for (let i = 0; i < bs.data.length * 8; i++) {
    if (bs.data[i >> 3]! & (1 << (7 - (i % 8)))) mask |= 1 << (i & 31);
  }
  return mask >>> 0;
}

/** asnSubtypes: the minimal BIT STRING for a 32-bit mask (an empty mask gives `07 00`). */
export function maskToBitString(mask: number): BitString {
  let maxId = 0;
  const buf = new Uint8Array(4);
  for (let i = 0; i < 32; i++) {
    if ((mask >>> i) & 1) {
      maxId = i;
      buf[i >> 3]! |= 1 << (7 - (i % 8));
    }
  }
  return { unused: 7 - (maxId % 8), data: buf.slice(0, 1 + (maxId >> 3)) };
}

/** asn1c's SET OF DER order: memcmp over the common length, the shorter first on a tie. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** A SET OF: the element encodings sorted bytewise, wrapped in `tag`. */
export function setOf(tag: number, elements: Uint8Array[]): Uint8Array {
  return tlv(tag, ...elements.slice().sort(compareBytes));
}

/**
 * glibc's qsort for small arrays is a top-down merge sort (msort.c) that takes from the left run
 * while cmp <= 0. komodod's comparators in threshold.c are not total orders, so the algorithm shows:
 * reproduce it rather than use Array.prototype.sort.
 */
export function glibcMergeSort<T>(items: T[], cmp: (a: T, b: T) => number): T[] {
  const a = items.slice();
  const tmp: T[] = new Array(a.length);
  const sort = (lo: number, n: number): void => {
    if (n <= 1) return;
    const n1 = n >> 1;
    const n2 = n - n1;
    sort(lo, n1);
    sort(lo + n1, n2);
    let i = lo;
    let j = lo + n1;
    const iEnd = lo + n1;
    const jEnd = lo + n;
    let k = 0;
    while (i < iEnd && j < jEnd) tmp[k++] = cmp(a[i]!, a[j]!) <= 0 ? a[i++]! : a[j++]!;
    while (i < iEnd) tmp[k++] = a[i++]!;
    // The rest of the right run is already in place.
    for (let m = 0; m < k; m++) a[lo + m] = tmp[m]!;
  };
  sort(0, a.length);
  return a;
}

/** `(int)(unsigned long)x`: the low 32 bits as a signed int (gcc's conversion). */
export function toCInt(x: bigint): number {
  return Number(BigInt.asIntN(32, x & MASK64));
}
