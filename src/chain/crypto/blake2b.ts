/**
 * BLAKE2b (RFC 7693), unkeyed, with an output of 1..64 bytes and an optional 16-byte personalisation
 * (the salt is always zero). It serves the ZIP-243 signature hashes and Equihash, where it is the main
 * cost after ECDSA.
 *
 * JavaScript has no fast 64-bit integer, so every 64-bit word is held as two int32 halves, low half
 * first: word i of a state array is at [2i] (low) and [2i+1] (high). Little-endian, the bytes of such
 * an array are then the bytes of the words, which is what the message and the output are made of.
 *
 * Speed notes (measured on V8, see the bench): the compression keeps the 16 working words in 32 local
 * variables, which is about twice as fast as a typed array. The carry of each 32-bit addition is the
 * comparison `(lo >>> 0) < (a >>> 0)` turned into a number with unary `+`, which V8 compiles without
 * a branch; written `cond ? 1 : 0` it becomes a branch that mispredicts on random data and costs
 * another factor of 2-3 (hidden in benchmarks that hash the same bytes over and over).
 */

/** RFC 7693 §2.6: the IV (the SHA-512 IV), as [low, high] halves. */
const IV = Int32Array.from([
  0xf3bcc908, 0x6a09e667, 0x84caa73b, 0xbb67ae85, 0xfe94f82b, 0x3c6ef372, 0x5f1d36f1, 0xa54ff53a,
  0xade682d1, 0x510e527f, 0x2b3e6c1f, 0x9b05688c, 0xfb41bd6b, 0x1f83d9ab, 0x137e2179, 0x5be0cd19,
]);

/**
 * RFC 7693 §2.7: the message schedule SIGMA of the 12 rounds (rounds 10 and 11 repeat rows 0 and 1),
 * flattened and doubled so that an entry indexes the low half of a message word in M.
 */
const SIGMA = Uint8Array.from(
  [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3,
    11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4,
    7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8,
    9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13,
    2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9,
    12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11,
    13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10,
    6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5,
    10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0,
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3,
  ].map((i) => 2 * i),
);

const BLOCK = 128;

// Scratch shared by every instance: nothing in this module yields, so one copy is enough.
/** The message block m[0..15] being compressed, read little-endian. */
const M = new Int32Array(32);
/** The chaining value digestInto() finalises, so that finalising leaves the instance untouched. */
const FINAL = new Int32Array(16);

/**
 * RFC 7693 §3.2, the compression F: folds the 128-byte block at data[offset…] into the chaining value
 * h, `count` being the byte counter t including this block and `last` the final-block flag f.
 *
 * Each G (RFC 7693 §3.1) is written out on the local halves vNl/vNh; its eight steps are the 64-bit
 * a = a + b + m, d = (d ^ a) >>> 32, c = c + d, b = (b ^ c) >>> 24, then again with the second message
 * word and rotations 16 and 63. An addition carries into the high half when the unsigned low sum is
 * below an addend; a rotation by 32 swaps the halves, by 24 and 16 moves bits between them, and by 63
 * is a left rotation by 1.
 */
function compress(h: Int32Array, data: Uint8Array, offset: number, count: number, last: boolean): void {
  for (let i = 0; i < 32; i++, offset += 4) {
    M[i] = data[offset]! | (data[offset + 1]! << 8) | (data[offset + 2]! << 16) | (data[offset + 3]! << 24);
  }
  // v[0..7] = h, v[8..15] = IV, v[12] ^= t (low 64 bits; t stays below 2^53), v[14] = ~v[14] if last.
  let v0l = h[0]!, v0h = h[1]!, v1l = h[2]!, v1h = h[3]!, v2l = h[4]!, v2h = h[5]!, v3l = h[6]!, v3h = h[7]!;
  let v4l = h[8]!, v4h = h[9]!, v5l = h[10]!, v5h = h[11]!, v6l = h[12]!, v6h = h[13]!, v7l = h[14]!, v7h = h[15]!;
  let v8l = IV[0]!, v8h = IV[1]!, v9l = IV[2]!, v9h = IV[3]!, v10l = IV[4]!, v10h = IV[5]!, v11l = IV[6]!, v11h = IV[7]!;
  let v12l = IV[8]! ^ count, v12h = IV[9]! ^ Math.floor(count / 0x100000000);
  let v13l = IV[10]!, v13h = IV[11]!;
  let v14l = last ? ~IV[12]! : IV[12]!, v14h = last ? ~IV[13]! : IV[13]!;
  let v15l = IV[14]!, v15h = IV[15]!;
  let lo: number, t: number, u: number, x: number, y: number;
  for (let s = 0; s < 12 * 16; s += 16) {
    // G(v0, v4, v8, v12) with m[SIGMA[0]], m[SIGMA[1]] (columns)
    x = SIGMA[s]!; y = SIGMA[s + 1]!;
    lo = (v0l + v4l) | 0; v0h = (v0h + v4h + +((lo >>> 0) < (v0l >>> 0))) | 0;  // a = a + b + m[x] ...
    v0l = (lo + M[x]!) | 0; v0h = (v0h + M[x + 1]! + +((v0l >>> 0) < (lo >>> 0))) | 0;
    t = v12l ^ v0l; v12l = v12h ^ v0h; v12h = t;  // d = (d ^ a) >>> 32: swap halves
    lo = (v8l + v12l) | 0; v8h = (v8h + v12h + +((lo >>> 0) < (v8l >>> 0))) | 0; v8l = lo;  // c = c + d
    t = v4l ^ v8l; u = v4h ^ v8h; v4l = (t >>> 24) | (u << 8); v4h = (u >>> 24) | (t << 8);  // b = (b ^ c) >>> 24
    lo = (v0l + v4l) | 0; v0h = (v0h + v4h + +((lo >>> 0) < (v0l >>> 0))) | 0;  // a = a + b + m[y] ...
    v0l = (lo + M[y]!) | 0; v0h = (v0h + M[y + 1]! + +((v0l >>> 0) < (lo >>> 0))) | 0;
    t = v12l ^ v0l; u = v12h ^ v0h; v12l = (t >>> 16) | (u << 16); v12h = (u >>> 16) | (t << 16);  // d = (d ^ a) >>> 16
    lo = (v8l + v12l) | 0; v8h = (v8h + v12h + +((lo >>> 0) < (v8l >>> 0))) | 0; v8l = lo;  // c = c + d
    t = v4l ^ v8l; u = v4h ^ v8h; v4l = (t << 1) | (u >>> 31); v4h = (u << 1) | (t >>> 31);  // b = (b ^ c) >>> 63, i.e. rotate left by 1
    // G(v1, v5, v9, v13) with m[SIGMA[2]], m[SIGMA[3]]
    x = SIGMA[s + 2]!; y = SIGMA[s + 3]!;
    lo = (v1l + v5l) | 0; v1h = (v1h + v5h + +((lo >>> 0) < (v1l >>> 0))) | 0;
    v1l = (lo + M[x]!) | 0; v1h = (v1h + M[x + 1]! + +((v1l >>> 0) < (lo >>> 0))) | 0;
    t = v13l ^ v1l; v13l = v13h ^ v1h; v13h = t;
    lo = (v9l + v13l) | 0; v9h = (v9h + v13h + +((lo >>> 0) < (v9l >>> 0))) | 0; v9l = lo;
    t = v5l ^ v9l; u = v5h ^ v9h; v5l = (t >>> 24) | (u << 8); v5h = (u >>> 24) | (t << 8);
    lo = (v1l + v5l) | 0; v1h = (v1h + v5h + +((lo >>> 0) < (v1l >>> 0))) | 0;
    v1l = (lo + M[y]!) | 0; v1h = (v1h + M[y + 1]! + +((v1l >>> 0) < (lo >>> 0))) | 0;
    t = v13l ^ v1l; u = v13h ^ v1h; v13l = (t >>> 16) | (u << 16); v13h = (u >>> 16) | (t << 16);
    lo = (v9l + v13l) | 0; v9h = (v9h + v13h + +((lo >>> 0) < (v9l >>> 0))) | 0; v9l = lo;
    t = v5l ^ v9l; u = v5h ^ v9h; v5l = (t << 1) | (u >>> 31); v5h = (u << 1) | (t >>> 31);
    // G(v2, v6, v10, v14) with m[SIGMA[4]], m[SIGMA[5]]
    x = SIGMA[s + 4]!; y = SIGMA[s + 5]!;
    lo = (v2l + v6l) | 0; v2h = (v2h + v6h + +((lo >>> 0) < (v2l >>> 0))) | 0;
    v2l = (lo + M[x]!) | 0; v2h = (v2h + M[x + 1]! + +((v2l >>> 0) < (lo >>> 0))) | 0;
    t = v14l ^ v2l; v14l = v14h ^ v2h; v14h = t;
    lo = (v10l + v14l) | 0; v10h = (v10h + v14h + +((lo >>> 0) < (v10l >>> 0))) | 0; v10l = lo;
    t = v6l ^ v10l; u = v6h ^ v10h; v6l = (t >>> 24) | (u << 8); v6h = (u >>> 24) | (t << 8);
    lo = (v2l + v6l) | 0; v2h = (v2h + v6h + +((lo >>> 0) < (v2l >>> 0))) | 0;
    v2l = (lo + M[y]!) | 0; v2h = (v2h + M[y + 1]! + +((v2l >>> 0) < (lo >>> 0))) | 0;
    t = v14l ^ v2l; u = v14h ^ v2h; v14l = (t >>> 16) | (u << 16); v14h = (u >>> 16) | (t << 16);
    lo = (v10l + v14l) | 0; v10h = (v10h + v14h + +((lo >>> 0) < (v10l >>> 0))) | 0; v10l = lo;
    t = v6l ^ v10l; u = v6h ^ v10h; v6l = (t << 1) | (u >>> 31); v6h = (u << 1) | (t >>> 31);
    // G(v3, v7, v11, v15) with m[SIGMA[6]], m[SIGMA[7]]
    x = SIGMA[s + 6]!; y = SIGMA[s + 7]!;
    lo = (v3l + v7l) | 0; v3h = (v3h + v7h + +((lo >>> 0) < (v3l >>> 0))) | 0;
    v3l = (lo + M[x]!) | 0; v3h = (v3h + M[x + 1]! + +((v3l >>> 0) < (lo >>> 0))) | 0;
    t = v15l ^ v3l; v15l = v15h ^ v3h; v15h = t;
    lo = (v11l + v15l) | 0; v11h = (v11h + v15h + +((lo >>> 0) < (v11l >>> 0))) | 0; v11l = lo;
    t = v7l ^ v11l; u = v7h ^ v11h; v7l = (t >>> 24) | (u << 8); v7h = (u >>> 24) | (t << 8);
    lo = (v3l + v7l) | 0; v3h = (v3h + v7h + +((lo >>> 0) < (v3l >>> 0))) | 0;
    v3l = (lo + M[y]!) | 0; v3h = (v3h + M[y + 1]! + +((v3l >>> 0) < (lo >>> 0))) | 0;
    t = v15l ^ v3l; u = v15h ^ v3h; v15l = (t >>> 16) | (u << 16); v15h = (u >>> 16) | (t << 16);
    lo = (v11l + v15l) | 0; v11h = (v11h + v15h + +((lo >>> 0) < (v11l >>> 0))) | 0; v11l = lo;
    t = v7l ^ v11l; u = v7h ^ v11h; v7l = (t << 1) | (u >>> 31); v7h = (u << 1) | (t >>> 31);
    // G(v0, v5, v10, v15) with m[SIGMA[8]], m[SIGMA[9]] (diagonals)
    x = SIGMA[s + 8]!; y = SIGMA[s + 9]!;
    lo = (v0l + v5l) | 0; v0h = (v0h + v5h + +((lo >>> 0) < (v0l >>> 0))) | 0;
    v0l = (lo + M[x]!) | 0; v0h = (v0h + M[x + 1]! + +((v0l >>> 0) < (lo >>> 0))) | 0;
    t = v15l ^ v0l; v15l = v15h ^ v0h; v15h = t;
    lo = (v10l + v15l) | 0; v10h = (v10h + v15h + +((lo >>> 0) < (v10l >>> 0))) | 0; v10l = lo;
    t = v5l ^ v10l; u = v5h ^ v10h; v5l = (t >>> 24) | (u << 8); v5h = (u >>> 24) | (t << 8);
    lo = (v0l + v5l) | 0; v0h = (v0h + v5h + +((lo >>> 0) < (v0l >>> 0))) | 0;
    v0l = (lo + M[y]!) | 0; v0h = (v0h + M[y + 1]! + +((v0l >>> 0) < (lo >>> 0))) | 0;
    t = v15l ^ v0l; u = v15h ^ v0h; v15l = (t >>> 16) | (u << 16); v15h = (u >>> 16) | (t << 16);
    lo = (v10l + v15l) | 0; v10h = (v10h + v15h + +((lo >>> 0) < (v10l >>> 0))) | 0; v10l = lo;
    t = v5l ^ v10l; u = v5h ^ v10h; v5l = (t << 1) | (u >>> 31); v5h = (u << 1) | (t >>> 31);
    // G(v1, v6, v11, v12) with m[SIGMA[10]], m[SIGMA[11]]
    x = SIGMA[s + 10]!; y = SIGMA[s + 11]!;
    lo = (v1l + v6l) | 0; v1h = (v1h + v6h + +((lo >>> 0) < (v1l >>> 0))) | 0;
    v1l = (lo + M[x]!) | 0; v1h = (v1h + M[x + 1]! + +((v1l >>> 0) < (lo >>> 0))) | 0;
    t = v12l ^ v1l; v12l = v12h ^ v1h; v12h = t;
    lo = (v11l + v12l) | 0; v11h = (v11h + v12h + +((lo >>> 0) < (v11l >>> 0))) | 0; v11l = lo;
    t = v6l ^ v11l; u = v6h ^ v11h; v6l = (t >>> 24) | (u << 8); v6h = (u >>> 24) | (t << 8);
    lo = (v1l + v6l) | 0; v1h = (v1h + v6h + +((lo >>> 0) < (v1l >>> 0))) | 0;
    v1l = (lo + M[y]!) | 0; v1h = (v1h + M[y + 1]! + +((v1l >>> 0) < (lo >>> 0))) | 0;
    t = v12l ^ v1l; u = v12h ^ v1h; v12l = (t >>> 16) | (u << 16); v12h = (u >>> 16) | (t << 16);
    lo = (v11l + v12l) | 0; v11h = (v11h + v12h + +((lo >>> 0) < (v11l >>> 0))) | 0; v11l = lo;
    t = v6l ^ v11l; u = v6h ^ v11h; v6l = (t << 1) | (u >>> 31); v6h = (u << 1) | (t >>> 31);
    // G(v2, v7, v8, v13) with m[SIGMA[12]], m[SIGMA[13]]
    x = SIGMA[s + 12]!; y = SIGMA[s + 13]!;
    lo = (v2l + v7l) | 0; v2h = (v2h + v7h + +((lo >>> 0) < (v2l >>> 0))) | 0;
    v2l = (lo + M[x]!) | 0; v2h = (v2h + M[x + 1]! + +((v2l >>> 0) < (lo >>> 0))) | 0;
    t = v13l ^ v2l; v13l = v13h ^ v2h; v13h = t;
    lo = (v8l + v13l) | 0; v8h = (v8h + v13h + +((lo >>> 0) < (v8l >>> 0))) | 0; v8l = lo;
    t = v7l ^ v8l; u = v7h ^ v8h; v7l = (t >>> 24) | (u << 8); v7h = (u >>> 24) | (t << 8);
    lo = (v2l + v7l) | 0; v2h = (v2h + v7h + +((lo >>> 0) < (v2l >>> 0))) | 0;
    v2l = (lo + M[y]!) | 0; v2h = (v2h + M[y + 1]! + +((v2l >>> 0) < (lo >>> 0))) | 0;
    t = v13l ^ v2l; u = v13h ^ v2h; v13l = (t >>> 16) | (u << 16); v13h = (u >>> 16) | (t << 16);
    lo = (v8l + v13l) | 0; v8h = (v8h + v13h + +((lo >>> 0) < (v8l >>> 0))) | 0; v8l = lo;
    t = v7l ^ v8l; u = v7h ^ v8h; v7l = (t << 1) | (u >>> 31); v7h = (u << 1) | (t >>> 31);
    // G(v3, v4, v9, v14) with m[SIGMA[14]], m[SIGMA[15]]
    x = SIGMA[s + 14]!; y = SIGMA[s + 15]!;
    lo = (v3l + v4l) | 0; v3h = (v3h + v4h + +((lo >>> 0) < (v3l >>> 0))) | 0;
    v3l = (lo + M[x]!) | 0; v3h = (v3h + M[x + 1]! + +((v3l >>> 0) < (lo >>> 0))) | 0;
    t = v14l ^ v3l; v14l = v14h ^ v3h; v14h = t;
    lo = (v9l + v14l) | 0; v9h = (v9h + v14h + +((lo >>> 0) < (v9l >>> 0))) | 0; v9l = lo;
    t = v4l ^ v9l; u = v4h ^ v9h; v4l = (t >>> 24) | (u << 8); v4h = (u >>> 24) | (t << 8);
    lo = (v3l + v4l) | 0; v3h = (v3h + v4h + +((lo >>> 0) < (v3l >>> 0))) | 0;
    v3l = (lo + M[y]!) | 0; v3h = (v3h + M[y + 1]! + +((v3l >>> 0) < (lo >>> 0))) | 0;
    t = v14l ^ v3l; u = v14h ^ v3h; v14l = (t >>> 16) | (u << 16); v14h = (u >>> 16) | (t << 16);
    lo = (v9l + v14l) | 0; v9h = (v9h + v14h + +((lo >>> 0) < (v9l >>> 0))) | 0; v9l = lo;
    t = v4l ^ v9l; u = v4h ^ v9h; v4l = (t << 1) | (u >>> 31); v4h = (u << 1) | (t >>> 31);
  }
  // h ^= v[0..7] ^ v[8..15]
  h[0] ^= v0l ^ v8l; h[1] ^= v0h ^ v8h; h[2] ^= v1l ^ v9l; h[3] ^= v1h ^ v9h;
  h[4] ^= v2l ^ v10l; h[5] ^= v2h ^ v10h; h[6] ^= v3l ^ v11l; h[7] ^= v3h ^ v11h;
  h[8] ^= v4l ^ v12l; h[9] ^= v4h ^ v12h; h[10] ^= v5l ^ v13l; h[11] ^= v5h ^ v13h;
  h[12] ^= v6l ^ v14l; h[13] ^= v6h ^ v14h; h[14] ^= v7l ^ v15l; h[15] ^= v7h ^ v15h;
}

/**
 * An incremental BLAKE2b. digest() and digestInto() do not consume the state: they may be called
 * again, and update() may go on afterwards as if they had not been called.
 */
export class Blake2b {
  /** The chaining value h[0..7]. */
  private readonly h = new Int32Array(16);
  /** Bytes not compressed yet: 1..128 once anything was absorbed, as the last block is compressed by digest. */
  private readonly buf = new Uint8Array(BLOCK);
  private bufLen = 0;
  /** Bytes absorbed so far, compressed or not. */
  private count = 0;
  private outLen = 0;

  constructor(outLen: number, personalization?: Uint8Array) {
    this.reset(outLen, personalization);
  }

  /** Starts over as a fresh hash with these parameters (the one-shot reuses one instance this way). */
  reset(outLen: number, personalization?: Uint8Array): this {
    if (!Number.isInteger(outLen) || outLen < 1 || outLen > 64) {
      throw new Error(`BLAKE2b output length must be an integer from 1 to 64, got ${outLen}`);
    }
    if (personalization !== undefined && (!(personalization instanceof Uint8Array) || personalization.length !== 16)) {
      const got = personalization instanceof Uint8Array ? `${personalization.length} bytes` : typeof personalization;
      throw new Error(`BLAKE2b personalization must be 16 bytes, got ${got}`);
    }
    const h = this.h;
    h.set(IV);
    // RFC 7693 §2.5: h = IV ^ parameter block. Its first word holds the digest length, key length 0,
    // fanout 1 and depth 1; the salt (bytes 32..47) is zero; the personalisation (48..63) meets h[6..7].
    h[0] ^= 0x01010000 | outLen;
    if (personalization) {
      for (let i = 0, p = 0; i < 4; i++, p += 4) {
        h[12 + i] ^= personalization[p]! | (personalization[p + 1]! << 8) | (personalization[p + 2]! << 16) | (personalization[p + 3]! << 24);
      }
    }
    this.bufLen = 0;
    this.count = 0;
    this.outLen = outLen;
    return this;
  }

  update(data: Uint8Array): this {
    const len = data.length;
    if (len === 0) return this;
    const buf = this.buf;
    let pos = 0;
    // A pending block is compressed only once more data shows it is not the last (RFC 7693 §3.3).
    if (this.bufLen > 0) {
      const take = Math.min(BLOCK - this.bufLen, len);
      for (let i = 0; i < take; i++) buf[this.bufLen + i] = data[i]!;
      this.bufLen += take;
      this.count += take;
      pos = take;
      if (pos === len) return this;
      compress(this.h, buf, 0, this.count, false);
    }
    // Whole blocks straight from the input, keeping back at least one byte for digest.
    while (len - pos > BLOCK) {
      this.count += BLOCK;
      compress(this.h, data, pos, this.count, false);
      pos += BLOCK;
    }
    const rest = len - pos;
    for (let i = 0; i < rest; i++) buf[i] = data[pos + i]!;
    this.bufLen = rest;
    this.count += rest;
    return this;
  }

  /** Writes the outLen-byte digest to out[0…outLen-1]. */
  digestInto(out: Uint8Array): void {
    const outLen = this.outLen;
    if (out.length < outLen) throw new Error(`BLAKE2b output needs ${outLen} bytes, got ${out.length}`);
    // RFC 7693 §3.3: the last block (empty for an empty message) zero-padded, with the final flag.
    this.buf.fill(0, this.bufLen);
    FINAL.set(this.h);
    compress(FINAL, this.buf, 0, this.count, true);
    // The output is the first outLen little-endian bytes of h.
    for (let i = 0; i < outLen; i++) out[i] = FINAL[i >> 2]! >>> (8 * (i & 3));
  }

  digest(): Uint8Array {
    const out = new Uint8Array(this.outLen);
    this.digestInto(out);
    return out;
  }

  /** Makes `other` an exact copy of this state and returns it (Equihash does this once per index). */
  copyTo(other: Blake2b): Blake2b {
    other.h.set(this.h);
    const n = this.bufLen;
    for (let i = 0; i < n; i++) other.buf[i] = this.buf[i]!;
    other.bufLen = n;
    other.count = this.count;
    other.outLen = this.outLen;
    return other;
  }

  clone(): Blake2b {
    return this.copyTo(new Blake2b(this.outLen));
  }
}

const oneShot = new Blake2b(64);

/** BLAKE2b of `data` in one call (outLen 1..64, personalization 16 bytes); allocates only the output. */
export function blake2b(data: Uint8Array, outLen: number, personalization?: Uint8Array): Uint8Array {
  return oneShot.reset(outLen, personalization).update(data).digest();
}
