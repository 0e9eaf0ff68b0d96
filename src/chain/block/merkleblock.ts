import { sha256d } from '../crypto/hash.js';
import { DecodeError } from '../encoding/errors.js';
import { equalBytes } from '../encoding/hex.js';
import { BufferReader } from '../encoding/reader.js';
import { BufferWriter } from '../encoding/writer.js';
import { BlockHeader } from './header.js';

/**
 * komodod's CMerkleBlock (merkleblock.cpp): a block header and a partial merkle tree naming some of
 * its transactions (gettxoutproof / verifytxoutproof, BIP 37's merkleblock). Hashes in internal order.
 */
export interface MerkleBlock {
  header: BlockHeader;
  nTransactions: number;
  hashes: Uint8Array[];
  bits: boolean[];
}

function pair(left: Uint8Array, right: Uint8Array): Uint8Array {
  const b = new Uint8Array(64);
  b.set(left, 0);
  b.set(right, 32);
  return sha256d(b);
}

/** CalcTreeWidth: the number of nodes at `height` above the leaves. */
function treeWidth(n: number, height: number): number {
  return Math.floor((n + (1 << height) - 1) / 2 ** height);
}

function treeHeight(n: number): number {
  let h = 0;
  while (treeWidth(n, h) > 1) h++;
  return h;
}

/** CMerkleBlock(block, txids): the tree over `txids` (the block's, in order) marking those `match` selects. */
export function buildMerkleBlock(header: BlockHeader, txids: readonly Uint8Array[], match: readonly boolean[]): MerkleBlock {
  const n = txids.length;
  const hashes: Uint8Array[] = [];
  const bits: boolean[] = [];
  const calc = (height: number, pos: number): Uint8Array => {
    if (height === 0) return txids[pos]!;
    const left = calc(height - 1, pos * 2);
    const right = pos * 2 + 1 < treeWidth(n, height - 1) ? calc(height - 1, pos * 2 + 1) : left;
    return pair(left, right);
  };
  const build = (height: number, pos: number): void => {
    let parentOfMatch = false;
    for (let p = pos * 2 ** height; p < (pos + 1) * 2 ** height && p < n; p++) parentOfMatch ||= match[p]!;
    bits.push(parentOfMatch);
    if (height === 0 || !parentOfMatch) {
      hashes.push(calc(height, pos));
    } else {
      build(height - 1, pos * 2);
      if (pos * 2 + 1 < treeWidth(n, height - 1)) build(height - 1, pos * 2 + 1);
    }
  };
  build(treeHeight(n), 0);
  return { header, nTransactions: n, hashes, bits };
}

/** CMerkleBlock's serialisation: header, nTransactions (u32), vHash, vBits packed LSB first into bytes. */
export function merkleBlockToRaw(mb: MerkleBlock): Uint8Array {
  const w = new BufferWriter();
  mb.header.write(w);
  w.u32(mb.nTransactions);
  w.compactSize(mb.hashes.length);
  for (const h of mb.hashes) w.bytes(h);
  const bytes = new Uint8Array((mb.bits.length + 7) >> 3);
  mb.bits.forEach((b, p) => {
    if (b) bytes[p >> 3]! |= 1 << (p & 7);
  });
  w.varBytes(bytes);
  return w.finish();
}

/** `ssMB >> merkleBlock`: reads one CMerkleBlock from the front of `data` (bytes after it are left, as komodod). */
export function merkleBlockFromRaw(data: Uint8Array): MerkleBlock {
  const r = new BufferReader(data);
  const header = BlockHeader.read(r);
  const nTransactions = r.u32();
  const count = r.compactSize();
  if (count * 32 > r.left) throw new DecodeError('unexpected end of data');
  const hashes: Uint8Array[] = [];
  for (let i = 0; i < count; i++) hashes.push(r.bytes(32).slice());
  const packed = r.varBytes();
  const bits: boolean[] = [];
  for (let p = 0; p < packed.length * 8; p++) bits.push((packed[p >> 3]! & (1 << (p & 7))) !== 0);
  return { header, nTransactions, hashes, bits };
}

/**
 * CPartialMerkleTree::ExtractMatches: the matched txids and the root the tree commits to, or a null
 * root (komodod's uint256()) when the tree is malformed. `maxTransactions`: MAX_BLOCK_SIZE / 60.
 */
export function extractMatches(mb: MerkleBlock, maxTransactions: number): { root: Uint8Array; matches: Uint8Array[] } {
  const zero = { root: new Uint8Array(32), matches: [] as Uint8Array[] };
  const n = mb.nTransactions;
  if (n === 0 || n > maxTransactions || mb.hashes.length > n || mb.bits.length < mb.hashes.length) return zero;
  const matches: Uint8Array[] = [];
  let bitsUsed = 0;
  let hashUsed = 0;
  let bad = false;
  const extract = (height: number, pos: number): Uint8Array => {
    if (bitsUsed >= mb.bits.length) {
      bad = true;
      return new Uint8Array(32);
    }
    const parentOfMatch = mb.bits[bitsUsed++]!;
    if (height === 0 || !parentOfMatch) {
      if (hashUsed >= mb.hashes.length) {
        bad = true;
        return new Uint8Array(32);
      }
      const h = mb.hashes[hashUsed++]!;
      if (height === 0 && parentOfMatch) matches.push(h);
      return h;
    }
    const left = extract(height - 1, pos * 2);
    let right = left;
    if (pos * 2 + 1 < treeWidth(n, height - 1)) {
      right = extract(height - 1, pos * 2 + 1);
      // the two branches cover distinct transactions, so never hash alike
      if (equalBytes(right, left)) bad = true;
    }
    return pair(left, right);
  };
  const root = extract(treeHeight(n), 0);
  if (bad) return zero;
  // every bit used, but for the padding of the last byte; every hash used
  if ((bitsUsed + 7) >> 3 !== (mb.bits.length + 7) >> 3 || hashUsed !== mb.hashes.length) return zero;
  return { root, matches };
}
