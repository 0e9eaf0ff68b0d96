import { Blake2b } from '../crypto/blake2b.js';

/**
 * Equihash as komodod verifies it (crypto/equihash.cpp IsValidSolution, pow.cpp CheckEquihashSolution).
 * The input is the header's first 108 bytes (CEquihashInput: version..bits) then the 32-byte nonce;
 * `BlockHeader.equihashInput()` gives those 140 bytes.
 */

export interface EquihashParams {
  n: number;
  k: number;
  /**
   * The chain was started with -ac_nk: komodod then personalises BLAKE2b with "NandKPoW" instead of
   * "ZcashPoW" and derives each hash as a word-wise sum of the BLAKE2b outputs of its group of 16
   * (equihash.cpp GenerateHash). Any chain without -ac_nk, regtest's (48,5) included, uses "ZcashPoW".
   */
  acNk?: boolean;
}

/** KMD and every asset chain without -ac_nk. */
export const EQUIHASH_200_9: EquihashParams = { n: 200, k: 9 };
/** komodod regtest's parameters (not checked there, but its genesis carries a valid solution). */
export const EQUIHASH_48_5: EquihashParams = { n: 48, k: 5 };
/** The (n,k) pairs komodod's EhIsValidSolution dispatches (equihash.h); others throw there. */
export const KOMODOD_EQUIHASH_NK: readonly (readonly [number, number])[] = [
  [200, 9], [150, 5], [144, 5], [96, 5], [48, 5], [210, 9],
];

/** Everything derived from (n,k), named as in equihash.h. */
export interface EquihashShape {
  n: number;
  k: number;
  acNk: boolean;
  /** n/(k+1): bits compared per round. */
  collisionBitLength: number;
  /** 512/n: how many index hashes one BLAKE2b output holds. */
  indicesPerHashOutput: number;
  /** ceil(n/8): bytes of one index hash. */
  hashBytes: number;
  /** The BLAKE2b output length. */
  hashOutput: number;
  /** 2^k. */
  indexCount: number;
  /** The minimal solution length: 2^k indices of collisionBitLength+1 bits. */
  solutionWidth: number;
  personalization: Uint8Array;
}

/**
 * Validates (n,k) and derives the sizes. Beyond komodod's own static checks this refuses more than 24
 * bits per round: komodod's ExpandArray/CompressArray keep a 32-bit accumulator, which is exact only for
 * indices of at most 25 bits, so (150,5) (26-bit indices) is not reproduced.
 */
export function equihashShape(params: EquihashParams): EquihashShape {
  const { n, k } = params;
  if (!Number.isInteger(n) || !Number.isInteger(k) || k < 1 || k >= n || n > 512) {
    throw new RangeError(`unsupported Equihash parameters (${n},${k})`);
  }
  const collisionBitLength = Math.floor(n / (k + 1));
  const indicesPerHashOutput = Math.floor(512 / n);
  const hashBytes = Math.ceil(n / 8);
  const hashOutput = indicesPerHashOutput * hashBytes;
  const indexCount = 2 ** k;
  if (collisionBitLength < 8 || collisionBitLength > 24 || hashOutput > 64 || k > 20 || (indexCount * (collisionBitLength + 1)) % 8 !== 0) {
    throw new RangeError(`unsupported Equihash parameters (${n},${k})`);
  }
  const acNk = params.acNk === true;
  const personalization = new Uint8Array(16);
  personalization.set(new TextEncoder().encode(acNk ? 'NandKPoW' : 'ZcashPoW'));
  const view = new DataView(personalization.buffer);
  view.setUint32(8, n, true);
  view.setUint32(12, k, true);
  return {
    n, k, acNk, collisionBitLength, indicesPerHashOutput, hashBytes, hashOutput, indexCount,
    solutionWidth: (indexCount * (collisionBitLength + 1)) / 8,
    personalization,
  };
}

/** equihash_solution_size. */
export function equihashSolutionSize(params: EquihashParams): number {
  return equihashShape(params).solutionWidth;
}

/**
 * Produces the BLAKE2b outputs GenerateHash gives for each block index g, from the state that has
 * absorbed the input (header and nonce).
 */
export class EquihashHasher {
  private readonly base: Blake2b;
  private readonly scratch: Blake2b;
  private readonly raw = new Map<number, Uint8Array>();
  private readonly le = new Uint8Array(4);
  private readonly leView = new DataView(this.le.buffer);

  constructor(readonly shape: EquihashShape, input: Uint8Array) {
    this.base = new Blake2b(shape.hashOutput, shape.personalization).update(input);
    this.scratch = this.base.clone();
  }

  /** BLAKE2b(input || LE32(g)). */
  blake(g: number): Uint8Array {
    this.leView.setUint32(0, g, true);
    // Reuses one scratch state: a fresh clone per index would dominate the (200,9) verification time.
    const state = this.base.copyTo(this.scratch);
    state.update(this.le);
    const out = new Uint8Array(this.shape.hashOutput);
    state.digestInto(out);
    return out;
  }

  private blakeCached(g: number): Uint8Array {
    let h = this.raw.get(g);
    if (!h) {
      h = this.blake(g);
      this.raw.set(g, h);
    }
    return h;
  }

  /** GenerateHash(base_state, g): the hashOutput bytes holding indices g*perHash … */
  hash(g: number): Uint8Array {
    if (!this.shape.acNk) return this.blake(g);
    const sum = new Uint32Array(16);
    for (let g2 = (g & ~0xf) >>> 0; g2 <= g; g2++) addWords(sum, this.blakeCached(g2));
    return finishNkHash(this.shape, sum);
  }
}

/** Adds a BLAKE2b output, zero-padded to 64 bytes, word-wise (uint32 little-endian, mod 2^32) into sum. */
export function addWords(sum: Uint32Array, bytes: Uint8Array): void {
  const padded = new Uint8Array(64);
  padded.set(bytes);
  const view = new DataView(padded.buffer);
  for (let i = 0; i < 16; i++) sum[i] = (sum[i]! + view.getUint32(i * 4, true)) >>> 0;
}

/** The first hashOutput bytes of the word sums, with ZeroizeUnusedBits for n not a multiple of 8. */
export function finishNkHash(shape: EquihashShape, sum: Uint32Array): Uint8Array {
  const out = new Uint8Array(shape.hashOutput);
  const view = new DataView(sum.buffer, sum.byteOffset, 64);
  for (let i = 0; i < out.length; i++) out[i] = view.getUint8(i);
  const rem = shape.n % 8;
  if (rem) {
    const keep = (0xff << (8 - rem)) & 0xff;
    for (let i = shape.hashBytes - 1; i < out.length; i += shape.hashBytes) out[i]! &= keep;
  }
  return out;
}

/**
 * ExpandArray without padding: `count` big-endian bit fields of `bitLen` bits (≤ 25) read from
 * `src[offset…]` into `out[outOffset…]`.
 */
export function expandBits(src: Uint8Array, offset: number, bitLen: number, count: number, out: Uint32Array, outOffset: number): void {
  const mask = bitLen === 32 ? 0xffffffff : (1 << bitLen) - 1;
  let acc = 0;
  let accBits = 0;
  let p = offset;
  for (let j = 0; j < count; j++) {
    while (accBits < bitLen) {
      acc = ((acc << 8) | src[p++]!) >>> 0;
      accBits += 8;
    }
    accBits -= bitLen;
    out[outOffset + j] = (acc >>> accBits) & mask;
  }
}

/** GetIndicesFromMinimal: the 2^k indices, each collisionBitLength+1 bits, big-endian bit-packed. */
export function indicesFromSolution(shape: EquihashShape, solution: Uint8Array): Uint32Array {
  if (solution.length !== shape.solutionWidth) throw new RangeError(`solution must be ${shape.solutionWidth} bytes`);
  const out = new Uint32Array(shape.indexCount);
  expandBits(solution, 0, shape.collisionBitLength + 1, shape.indexCount, out, 0);
  return out;
}

/** GetMinimalFromIndices: packs indices of collisionBitLength+1 bits, big-endian. */
export function solutionFromIndices(shape: EquihashShape, indices: ArrayLike<number>): Uint8Array {
  if (indices.length !== shape.indexCount) throw new RangeError(`a solution has ${shape.indexCount} indices`);
  const bitLen = shape.collisionBitLength + 1;
  const out = new Uint8Array(shape.solutionWidth);
  let acc = 0;
  let accBits = 0;
  let p = 0;
  for (let i = 0; i < indices.length; i++) {
    const v = indices[i]!;
    if (!Number.isInteger(v) || v < 0 || v >= 2 ** bitLen) throw new RangeError(`index ${v} does not fit ${bitLen} bits`);
    acc = ((acc << bitLen) | v) >>> 0;
    accBits += bitLen;
    while (accBits >= 8) {
      accBits -= 8;
      out[p++] = (acc >>> accBits) & 0xff;
    }
  }
  return out;
}

/**
 * IsValidSolution: true when `solution` is a valid Equihash solution for `input` (header 108 bytes +
 * nonce 32). Checks, as komodod: exact length; at every level the two subtrees collide on the next
 * n/(k+1) bits, the left subtree's indices come first, and no index repeats; the XOR of all 2^k hashes
 * is zero. (komodod stops at the first failing rule; every rule only ever makes the answer false, so
 * checking distinctness once over all indices and ordering by each subtree's first index gives the
 * same answer.)
 */
export function verifyEquihash(params: EquihashParams | EquihashShape, input: Uint8Array, solution: Uint8Array): boolean {
  const shape = 'solutionWidth' in params ? params : equihashShape(params);
  if (solution.length !== shape.solutionWidth) return false;
  const indices = indicesFromSolution(shape, solution);
  const count = shape.indexCount;

  const sorted = indices.slice().sort();
  for (let i = 1; i < count; i++) if (sorted[i] === sorted[i - 1]) return false;

  const { k, collisionBitLength, indicesPerHashOutput, hashBytes } = shape;
  const width = k + 1;
  const rows = new Uint32Array(count * width);
  const hasher = new EquihashHasher(shape, input);
  const byBlock = new Map<number, Uint8Array>();
  for (let j = 0; j < count; j++) {
    const index = indices[j]!;
    const g = Math.floor(index / indicesPerHashOutput);
    let h = byBlock.get(g);
    if (!h) {
      h = hasher.hash(g);
      byBlock.set(g, h);
    }
    expandBits(h, (index % indicesPerHashOutput) * hashBytes, collisionBitLength, width, rows, j * width);
  }

  for (let r = 0; r < k; r++) {
    const half = 1 << r;
    for (let left = 0; left < count; left += 2 * half) {
      const right = left + half;
      const lo = left * width;
      const ro = right * width;
      if (rows[lo + r] !== rows[ro + r]) return false;
      if (indices[right]! < indices[left]!) return false;
      for (let c = r + 1; c < width; c++) rows[lo + c] = rows[lo + c]! ^ rows[ro + c]!;
    }
  }
  return rows[k] === 0;
}
