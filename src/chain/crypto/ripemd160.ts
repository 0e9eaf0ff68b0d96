import { padTail } from './md-padding.js';

/**
 * RIPEMD-160 (Dobbertin, Bosselaers, Preneel 1996), hash160's second half: every address, every
 * script solved for an address index, every CC condition filed by its address.
 *
 * Why not @noble/hashes' ripemd160 (the reference the tests compare against): like its sha256 (see
 * sha256.ts), each call makes a hash object whose small typed arrays are read through DataViews, and
 * measured beside this file's sibling it ran at a quarter of SHA-256's speed on 32 bytes. Here the
 * state, the words and the padding block are allocated once and words are read from bytes with shifts.
 */

/** The message word each step reads, left line then right line (the spec's r and r'). */
const RL = Uint8Array.from([
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
  7, 4, 13, 1, 10, 6, 15, 3, 12, 0, 9, 5, 2, 14, 11, 8,
  3, 10, 14, 4, 9, 15, 8, 1, 2, 7, 0, 6, 13, 11, 5, 12,
  1, 9, 11, 10, 0, 8, 12, 4, 13, 3, 7, 15, 14, 5, 6, 2,
  4, 0, 5, 9, 7, 12, 2, 10, 14, 1, 3, 8, 11, 6, 15, 13,
]);
const RR = Uint8Array.from([
  5, 14, 7, 0, 9, 2, 11, 4, 13, 6, 15, 8, 1, 10, 3, 12,
  6, 11, 3, 7, 0, 13, 5, 10, 14, 15, 8, 12, 4, 9, 1, 2,
  15, 5, 1, 3, 7, 14, 6, 9, 11, 8, 12, 2, 10, 0, 4, 13,
  8, 6, 4, 1, 3, 11, 15, 0, 5, 12, 2, 13, 9, 7, 10, 14,
  12, 15, 10, 4, 1, 5, 8, 7, 6, 2, 13, 14, 0, 3, 9, 11,
]);

/** The left rotation of each step (the spec's s and s'). */
const SL = Uint8Array.from([
  11, 14, 15, 12, 5, 8, 7, 9, 11, 13, 14, 15, 6, 7, 9, 8,
  7, 6, 8, 13, 11, 9, 7, 15, 7, 12, 15, 9, 11, 7, 13, 12,
  11, 13, 6, 7, 14, 9, 13, 15, 14, 8, 13, 6, 5, 12, 7, 5,
  11, 12, 14, 15, 14, 15, 9, 8, 9, 14, 5, 6, 8, 6, 5, 12,
  9, 15, 5, 11, 6, 8, 13, 12, 5, 12, 13, 14, 11, 8, 5, 6,
]);
const SR = Uint8Array.from([
  8, 9, 9, 11, 13, 15, 15, 5, 7, 7, 8, 11, 14, 14, 12, 6,
  9, 13, 15, 7, 12, 8, 9, 11, 7, 7, 12, 7, 6, 15, 13, 11,
  9, 7, 15, 11, 8, 6, 6, 14, 12, 13, 5, 14, 13, 13, 7, 5,
  15, 5, 8, 11, 14, 14, 6, 14, 6, 9, 12, 9, 12, 5, 15, 8,
  8, 5, 12, 9, 12, 5, 14, 6, 8, 13, 6, 5, 15, 13, 11, 11,
]);

/** The added constant of each group of 16 steps, left and right. */
const KL = Int32Array.from([0x00000000, 0x5a827999, 0x6ed9eba1, 0x8f1bbcdc, 0xa953fd4e]);
const KR = Int32Array.from([0x50a28be6, 0x5c4dd124, 0x6d703ef3, 0x7a6d76e9, 0x00000000]);

const IV = Int32Array.from([0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0]);

/** The running hash value, the block's words and the last block(s) with their padding. */
const H = new Int32Array(5);
const X = new Int32Array(16);
const TAIL = new Uint8Array(128);

/** The boolean function of group `g` (0..4); the right line runs the groups in reverse. */
function f(g: number, x: number, y: number, z: number): number {
  switch (g) {
    case 0:
      return x ^ y ^ z;
    case 1:
      return (x & y) | (~x & z);
    case 2:
      return (x | ~y) ^ z;
    case 3:
      return (x & z) | (y & ~z);
    default:
      return x ^ (y | ~z);
  }
}

const rotl = (x: number, n: number): number => (x << n) | (x >>> (32 - n));

/** Compresses the 64-byte block of `m` at `off` into H. */
function block(m: Uint8Array, off: number): void {
  // Words are little-endian.
  for (let i = 0; i < 16; i++, off += 4) X[i] = m[off]! | (m[off + 1]! << 8) | (m[off + 2]! << 16) | (m[off + 3]! << 24);
  let al = H[0]!;
  let bl = H[1]!;
  let cl = H[2]!;
  let dl = H[3]!;
  let el = H[4]!;
  let ar = al;
  let br = bl;
  let cr = cl;
  let dr = dl;
  let er = el;
  for (let j = 0; j < 80; j++) {
    const g = (j / 16) | 0;
    let t = (rotl((al + f(g, bl, cl, dl) + X[RL[j]!]! + KL[g]!) | 0, SL[j]!) + el) | 0;
    al = el;
    el = dl;
    dl = rotl(cl, 10);
    cl = bl;
    bl = t;
    t = (rotl((ar + f(4 - g, br, cr, dr) + X[RR[j]!]! + KR[g]!) | 0, SR[j]!) + er) | 0;
    ar = er;
    er = dr;
    dr = rotl(cr, 10);
    cr = br;
    br = t;
  }
  const t = (H[1]! + cl + dr) | 0;
  H[1] = H[2]! + dl + er;
  H[2] = H[3]! + el + ar;
  H[3] = H[4]! + al + br;
  H[4] = H[0]! + bl + cr;
  H[0] = t;
}

export function ripemd160(data: Uint8Array): Uint8Array {
  H.set(IV);
  const n = data.length;
  const full = n - (n % 64);
  for (let off = 0; off < full; off += 64) block(data, off);
  const tailLen = padTail(data, full, TAIL, true);
  block(TAIL, 0);
  if (tailLen === 128) block(TAIL, 64);
  const out = new Uint8Array(20);
  for (let i = 0; i < 5; i++) {
    const w = H[i]!;
    out[4 * i] = w;
    out[4 * i + 1] = w >>> 8;
    out[4 * i + 2] = w >>> 16;
    out[4 * i + 3] = w >>> 24;
  }
  return out;
}
