/**
 * arith_uint256's compact target encoding (arith_uint256.cpp SetCompact/GetCompact) over bigint, with
 * arith_uint256's 256-bit wrap-around where komodod's arithmetic can overflow.
 */

export const UINT256_MASK = (1n << 256n) - 1n;

export interface DecodedCompact {
  target: bigint;
  /** The sign bit (0x00800000) is set on a non-zero mantissa. */
  negative: boolean;
  /** The value does not fit 256 bits. */
  overflow: boolean;
}

/** SetCompact: nBits -> 256-bit target plus komodod's negative/overflow flags. */
export function setCompact(compact: number): DecodedCompact {
  const c = compact >>> 0;
  const size = c >>> 24;
  let word = c & 0x007fffff;
  let target: bigint;
  if (size <= 3) {
    word >>>= 8 * (3 - size);
    target = BigInt(word);
  } else {
    // arith_uint256 <<= drops every bit shifted past 256.
    target = (BigInt(word) << BigInt(8 * (size - 3))) & UINT256_MASK;
  }
  const negative = word !== 0 && (c & 0x00800000) !== 0;
  const overflow = word !== 0 && (size > 34 || (word > 0xff && size > 33) || (word > 0xffff && size > 32));
  return { target, negative, overflow };
}

/** base_uint::bits(): position of the highest set bit plus one (0 for zero). */
export function bitLength(v: bigint): number {
  return v === 0n ? 0 : v.toString(2).length;
}

/** GetCompact: 256-bit value -> nBits (the sign bit only with `negative` and a non-zero mantissa). */
export function getCompact(value: bigint, negative = false): number {
  const v = value & UINT256_MASK;
  let size = Math.floor((bitLength(v) + 7) / 8);
  let compact: number;
  if (size <= 3) {
    compact = Number(v << BigInt(8 * (3 - size)));
  } else {
    // GetLow64() of the shifted value, then truncated to uint32 by the assignment.
    compact = Number((v >> BigInt(8 * (size - 3))) & 0xffffffffn);
  }
  // 0x00800000 is the sign bit: a mantissa that would set it moves one byte up.
  if (compact & 0x00800000) {
    compact >>>= 8;
    size++;
  }
  compact = (compact | (size << 24)) >>> 0;
  if (negative && (compact & 0x007fffff) !== 0) compact = (compact | 0x00800000) >>> 0;
  return compact;
}

/** uint256 bytes in internal (little-endian) order -> integer, as UintToArith256. */
export function uint256FromLE(bytes: Uint8Array): bigint {
  if (bytes.length !== 32) throw new RangeError('uint256 must be 32 bytes');
  let v = 0n;
  for (let i = 31; i >= 0; i--) v = (v << 8n) | BigInt(bytes[i]!);
  return v;
}

/** Integer -> uint256 bytes in internal (little-endian) order, as ArithToUint256. */
export function uint256ToLE(value: bigint): Uint8Array {
  let v = value & UINT256_MASK;
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** base_uint::GetHex(): 64 hex digits, most significant first. */
export function uint256Hex(value: bigint): string {
  return (value & UINT256_MASK).toString(16).padStart(64, '0');
}
