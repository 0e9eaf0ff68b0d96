import { sha256d } from '../crypto/hash.js';
import { equalBytes } from '../encoding/hex.js';

/** hashPair's input, filled anew by each call (sha256d keeps nothing of it): a block's tree hashes about as many pairs as it has transactions. */
const PAIR = new Uint8Array(64);

/** SHA256d(left || right): one inner node of komodod's merkle tree. */
function hashPair(left: Uint8Array, right: Uint8Array): Uint8Array {
  const buf = PAIR;
  buf.set(left, 0);
  buf.set(right, 32);
  return sha256d(buf);
}

export interface MerkleTree {
  /** The root in internal byte order; 32 zero bytes for an empty leaf list (uint256() in komodod). */
  root: Uint8Array;
  /**
   * komodod's CVE-2012-2459 flag: two identical hashes at the end of a level. komodod (Bitcoin 0.11's
   * BuildMerkleTree) only looks at the last pair of each level, so this is that check, not Core's later
   * all-pairs one. A mutated block is rejected as `bad-txns-duplicate`.
   */
  mutated: boolean;
  /** Every level, leaves first, root last (vMerkleTree), for merkle branches. */
  levels: Uint8Array[][];
}

/** BuildMerkleTree (primitives/block.cpp): an odd level pairs its last hash with itself. */
export function buildMerkleTree(leaves: readonly Uint8Array[]): MerkleTree {
  const levels: Uint8Array[][] = [leaves.slice()];
  let mutated = false;
  let level = levels[0]!;
  while (level.length > 1) {
    const size = level.length;
    const next: Uint8Array[] = [];
    for (let i = 0; i < size; i += 2) {
      const i2 = Math.min(i + 1, size - 1);
      if (i2 === i + 1 && i2 + 1 === size && equalBytes(level[i]!, level[i2]!)) mutated = true;
      next.push(hashPair(level[i]!, level[i2]!));
    }
    levels.push(next);
    level = next;
  }
  const root = level.length === 0 ? new Uint8Array(32) : level[0]!.slice();
  return { root, mutated, levels };
}

/** The merkle root and mutation flag of a list of txids (internal byte order). */
export function merkleRoot(leaves: readonly Uint8Array[]): { root: Uint8Array; mutated: boolean } {
  const { root, mutated } = buildMerkleTree(leaves);
  return { root, mutated };
}

/** GetMerkleBranch: the sibling hashes from leaf `index` up to the root. */
export function merkleBranch(tree: MerkleTree, index: number): Uint8Array[] {
  const leafCount = tree.levels[0]!.length;
  if (!Number.isInteger(index) || index < 0 || index >= leafCount) throw new RangeError(`leaf ${index} out of range`);
  const branch: Uint8Array[] = [];
  let i = index;
  for (let depth = 0; depth < tree.levels.length - 1; depth++) {
    const level = tree.levels[depth]!;
    branch.push(level[Math.min(i ^ 1, level.length - 1)]!);
    i >>= 1;
  }
  return branch;
}

/** CheckMerkleBranch: the root a leaf and its branch lead to (index -1 gives zero, as komodod). */
export function merkleRootFromBranch(leaf: Uint8Array, branch: readonly Uint8Array[], index: number): Uint8Array {
  if (index === -1) return new Uint8Array(32);
  let hash = leaf;
  let i = index;
  for (const sibling of branch) {
    hash = i & 1 ? hashPair(sibling, hash) : hashPair(hash, sibling);
    i >>= 1;
  }
  return hash;
}
