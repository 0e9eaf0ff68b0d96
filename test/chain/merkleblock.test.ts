import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BlockHeader } from '../../src/chain/block/header.js';
import { merkleRoot } from '../../src/chain/block/merkle.js';
import { buildMerkleBlock, extractMatches, merkleBlockFromRaw, merkleBlockToRaw } from '../../src/chain/block/merkleblock.js';
import { sha256d } from '../../src/chain/crypto/hash.js';
import { prng } from '../helpers/prng.js';

const MAX = 66666;

test('CMerkleBlock: built, serialised and read back, it commits to the block merkle root and the matched txids, for every tree shape', () => {
  const rnd = prng(30);
  for (const n of [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 100]) {
    const txids = Array.from({ length: n }, (_, i) => sha256d(new Uint8Array([i, n])));
    const header = new BlockHeader();
    header.merkleRoot = merkleRoot(txids).root;
    for (let round = 0; round < 5; round++) {
      const match = txids.map(() => rnd() < 0.3);
      const mb = merkleBlockFromRaw(merkleBlockToRaw(buildMerkleBlock(header, txids, match)));
      const { root, matches } = extractMatches(mb, MAX);
      assert.deepEqual(root, header.merkleRoot, `n=${n}`);
      assert.deepEqual(matches, txids.filter((_, i) => match[i]));
    }
  }
});

test('CPartialMerkleTree::ExtractMatches: a malformed tree commits to uint256() (no txids)', () => {
  const txids = Array.from({ length: 7 }, (_, i) => sha256d(new Uint8Array([i])));
  const header = new BlockHeader();
  header.merkleRoot = merkleRoot(txids).root;
  const good = buildMerkleBlock(header, txids, [false, true, false, false, true, false, false]);
  const zero = new Uint8Array(32);
  // a hash too many, a hash too few, a flag too few, more transactions than a block holds, none
  assert.deepEqual(extractMatches({ ...good, hashes: [...good.hashes, zero] }, MAX).root, zero);
  assert.deepEqual(extractMatches({ ...good, hashes: good.hashes.slice(1) }, MAX).root, zero);
  assert.deepEqual(extractMatches({ ...good, bits: good.bits.slice(0, -1) }, MAX).root, zero);
  assert.deepEqual(extractMatches({ ...good, nTransactions: MAX + 1 }, MAX).root, zero);
  assert.deepEqual(extractMatches({ ...good, nTransactions: 0 }, MAX).root, zero);
  // unused flag bytes beyond the padding of the last one
  assert.deepEqual(extractMatches({ ...good, bits: [...good.bits, ...Array<boolean>(16).fill(false)] }, MAX).root, zero);
  // two identical sibling branches (CVE-2012-2459's duplicate)
  const dup = buildMerkleBlock(header, [txids[0]!, txids[0]!], [true, true]);
  assert.deepEqual(extractMatches(dup, MAX), { root: zero, matches: [] });
  assert.deepEqual(extractMatches(good, MAX).root, header.merkleRoot);
});
