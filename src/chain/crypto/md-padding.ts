/**
 * Merkle–Damgård strengthening, shared by SHA-256 and RIPEMD-160: after the last whole 64-byte block
 * of `data` (ending at `full`), the rest, 0x80, zeros, and the message's bit length in the last 8
 * bytes, into `tail` (128 bytes). Returns how many bytes of it to compress: 64, or 128 when the rest
 * leaves fewer than 9 bytes. SHA-256 writes the length big-endian, RIPEMD-160 (as MD4) little-endian.
 */
export function padTail(data: Uint8Array, full: number, tail: Uint8Array, littleEndian: boolean): number {
  const n = data.length;
  const rest = n - full;
  const tailLen = rest < 56 ? 64 : 128;
  tail.fill(0);
  for (let i = 0; i < rest; i++) tail[i] = data[full + i]!;
  tail[rest] = 0x80;
  // n * 8 as two 32-bit halves without exceeding 2^53.
  const hi = Math.floor(n / 0x20000000);
  const lo = (n * 8) >>> 0;
  const at = tailLen - 8;
  for (let i = 0; i < 4; i++) {
    if (littleEndian) (tail[at + i] = lo >>> (8 * i)), (tail[at + 4 + i] = hi >>> (8 * i));
    else (tail[at + i] = hi >>> (24 - 8 * i)), (tail[at + 4 + i] = lo >>> (24 - 8 * i));
  }
  return tailLen;
}
