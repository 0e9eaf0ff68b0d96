import { padTail } from './md-padding.js';

/**
 * SHA-256 (FIPS 180-4) and double SHA-256, for the hashes a node computes by the thousand: txids,
 * merkle pairs, block headers, hash160's first half.
 *
 * Why not @noble/hashes' sha256 (which stays the reference the tests compare against): each of its
 * calls makes a hash object whose 64-byte block buffer and output are small typed arrays read through
 * DataViews, and V8 must move such an array off its heap the first time its `.buffer` is taken, so a
 * call allocates two or three backing stores. Measured on a 500-transaction block's connection, those
 * DataViews (createView) were a third of all the hashing time. Here the state, the message schedule
 * and the padding block are allocated once, words are read from bytes with shifts, and sha256d feeds
 * the first digest to the second compression as words, without bytes in between.
 */

/** FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
const K = Int32Array.from([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** FIPS 180-4 §5.3.3: the initial hash value. */
const IV = Int32Array.from([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);

/** The running hash value, the message schedule and the last block(s) with their padding. */
const H = new Int32Array(8);
const W = new Int32Array(64);
const TAIL = new Uint8Array(128);

/** Schedules W[16..63] from W[0..15] and runs the 64 rounds into H. */
function rounds(): void {
  for (let t = 16; t < 64; t++) {
    const w15 = W[t - 15]!;
    const w2 = W[t - 2]!;
    const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
    const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
    W[t] = (s1 + W[t - 7]! + s0 + W[t - 16]!) | 0;
  }
  let a = H[0]! | 0;
  let b = H[1]! | 0;
  let c = H[2]! | 0;
  let d = H[3]! | 0;
  let e = H[4]! | 0;
  let f = H[5]! | 0;
  let g = H[6]! | 0;
  let h = H[7]! | 0;
  for (let t = 0; t < 64; t++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const T1 = (h + S1 + ((e & f) ^ (~e & g)) + K[t]! + W[t]!) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const T2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + T1) | 0;
    d = c;
    c = b;
    b = a;
    a = (T1 + T2) | 0;
  }
  H[0] = H[0]! + a;
  H[1] = H[1]! + b;
  H[2] = H[2]! + c;
  H[3] = H[3]! + d;
  H[4] = H[4]! + e;
  H[5] = H[5]! + f;
  H[6] = H[6]! + g;
  H[7] = H[7]! + h;
}

/** Compresses the 64-byte block of `m` at `off` into H. */
function block(m: Uint8Array, off: number): void {
  for (let i = 0; i < 16; i++, off += 4) W[i] = (m[off]! << 24) | (m[off + 1]! << 16) | (m[off + 2]! << 8) | m[off + 3]!;
  rounds();
}

/** H = SHA-256 state after all of `data`, padding included. */
function hashInto(data: Uint8Array): void {
  H.set(IV);
  const n = data.length;
  const full = n - (n % 64);
  for (let off = 0; off < full; off += 64) block(data, off);
  const tailLen = padTail(data, full, TAIL, false);
  block(TAIL, 0);
  if (tailLen === 128) block(TAIL, 64);
}

/** H as 32 big-endian bytes. */
function digest(): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 0; i < 8; i++) {
    const w = H[i]!;
    out[4 * i] = w >>> 24;
    out[4 * i + 1] = w >>> 16;
    out[4 * i + 2] = w >>> 8;
    out[4 * i + 3] = w;
  }
  return out;
}

export function sha256(data: Uint8Array): Uint8Array {
  hashInto(data);
  return digest();
}

/** SHA-256 of SHA-256: the second hash reads the first digest's words straight from H. */
export function sha256d(data: Uint8Array): Uint8Array {
  hashInto(data);
  // One block: the 32-byte digest, 0x80, zeros, and the length 256 bits.
  for (let i = 0; i < 8; i++) W[i] = H[i]!;
  W[8] = 0x80000000 | 0;
  W.fill(0, 9, 15);
  W[15] = 256;
  H.set(IV);
  rounds();
  return digest();
}
