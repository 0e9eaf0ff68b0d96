import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Block, txHashesOf, txSizesOf } from '../../src/chain/block/block.js';
import { BlockHeader, HEADER_SIZE } from '../../src/chain/block/header.js';
import { buildMerkleTree, merkleBranch, merkleRoot, merkleRootFromBranch } from '../../src/chain/block/merkle.js';
import { kmdGenesisBlock, regtestGenesisBlock, KMD_GENESIS_HASH, REGTEST_GENESIS_HASH } from '../../src/chain/block/genesis.js';
import { DecodeError } from '../../src/chain/encoding/errors.js';
import { fromHex, toHex, toHexReversed, fromHexReversed } from '../../src/chain/encoding/hex.js';
import { sha256d } from '../../src/chain/crypto/hash.js';
import { needVectors, loadVector, readVector } from '../helpers/vectors.js';
import { mutate, prng } from '../helpers/prng.js';
import { assembleBlock } from '../../src/chain/block/assemble.js';
import { devChainParams } from '../../src/chain/params/chain-params.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';

interface IndexTx {
  txid: string;
  overwintered: boolean;
  version: number;
  vin: number;
  vout: number;
  shielded_spends: number;
  shielded_outputs: number;
  joinsplits: number;
  size: number;
}
interface IndexBlock {
  file: string;
  size: number;
  hash: string;
  version: number;
  prev_hash: string;
  merkle_root: string;
  final_sapling_root: string;
  time: number;
  bits: string;
  nonce: string;
  solution_len: number;
  txs: IndexTx[];
}

function vectorBlocks(): { entry: IndexBlock; hex: string }[] {
  const index = loadVector<{ blocks: IndexBlock[] }>('komodo-blocks/index.json');
  return index.blocks.map((entry) => ({ entry, hex: readVector(`komodo-blocks/${entry.file}`).trim() }));
}

test('komodo-blocks: all 19 blocks parse, re-serialise byte for byte and match index.json', needVectors, () => {
  const blocks = vectorBlocks();
  assert.equal(blocks.length, 19);
  for (const { entry, hex } of blocks) {
    const block = Block.fromHex(hex);
    assert.equal(block.toHex(), hex.toLowerCase(), entry.file);
    assert.equal(hex.length / 2, entry.size, entry.file);
    const h = block.header;
    assert.equal(block.hashHex(), entry.hash, entry.file);
    assert.equal(h.version, entry.version, entry.file);
    assert.equal(toHexReversed(h.prevHash), entry.prev_hash, entry.file);
    assert.equal(toHexReversed(h.merkleRoot), entry.merkle_root, entry.file);
    assert.equal(toHexReversed(h.finalSaplingRoot), entry.final_sapling_root, entry.file);
    assert.equal(h.time, entry.time, entry.file);
    assert.equal(h.bits, parseInt(entry.bits, 16), entry.file);
    assert.equal(toHexReversed(h.nonce), entry.nonce, entry.file);
    assert.equal(h.solution.length, entry.solution_len, entry.file);
    // The block hash is SHA256d over the 140 fixed bytes plus CompactSize(1344) and the solution.
    assert.equal(toHexReversed(sha256d(fromHex(hex).subarray(0, HEADER_SIZE + 3 + 1344))), entry.hash, entry.file);
    assert.equal(block.txs.length, entry.txs.length, entry.file);
    block.txs.forEach((tx, i) => {
      const e = entry.txs[i]!;
      assert.equal(tx.txid(), e.txid, `${entry.file} tx ${i}`);
      assert.equal(tx.overwintered, e.overwintered);
      assert.equal(tx.version, e.version);
      assert.equal(tx.vin.length, e.vin);
      assert.equal(tx.vout.length, e.vout);
      assert.equal(tx.shieldedSpends.length, e.shielded_spends);
      assert.equal(tx.shieldedOutputs.length, e.shielded_outputs);
      assert.equal(tx.joinSplits.length, e.joinsplits);
      assert.equal(tx.toRaw().length, e.size);
    });
    const tree = block.merkleTree();
    assert.equal(toHexReversed(tree.root), entry.merkle_root, entry.file);
    assert.equal(tree.mutated, false, entry.file);
    // Every transaction's merkle branch leads back to the root (gettxoutproof's building block).
    block.txs.forEach((tx, i) => {
      assert.equal(toHexReversed(merkleRootFromBranch(tx.hash(), merkleBranch(tree, i), i)), entry.merkle_root);
    });
    // The header alone round-trips too.
    const headerBytes = fromHex(hex).subarray(0, HEADER_SIZE + 3 + 1344);
    assert.equal(BlockHeader.fromRaw(headerBytes).toHex(), toHex(headerBytes));
  }
});

test('txHashesOf/txSizesOf: each transaction hashed and sized from the block\'s own bytes, as komodod reports them', needVectors, () => {
  for (const { entry, hex } of vectorBlocks()) {
    const raw = fromHex(hex);
    const starts: number[] = [];
    Block.fromRaw(raw, starts);
    assert.equal(starts.length, entry.txs.length + 1, entry.file);
    assert.deepEqual(txHashesOf(raw, starts).map(toHexReversed), entry.txs.map((t) => t.txid), entry.file);
    assert.deepEqual(txSizesOf(starts), entry.txs.map((t) => t.size), entry.file);
  }
  // A block of one transaction: one hash, one size; no starts, nothing.
  const genesis = regtestGenesisBlock();
  const raw = genesis.toRaw();
  const starts: number[] = [];
  Block.fromRaw(raw, starts);
  assert.deepEqual(txHashesOf(raw, starts), [genesis.txs[0]!.hash()]);
  assert.deepEqual(txSizesOf(starts), [genesis.txs[0]!.toRaw().length]);
  assert.deepEqual(txHashesOf(raw, []), []);
});

test('KMD genesis rebuilt from its fields (p2p-blocks.md §4.1) equals the real block', needVectors, () => {
  const genesis = kmdGenesisBlock();
  assert.equal(genesis.hashHex(), KMD_GENESIS_HASH);
  assert.equal(genesis.hashHex(), '027e3758c3a65b12aa1046462b486d0a63bfa1beae327897f56c5cfb7daaae71');
  assert.equal(toHexReversed(genesis.header.merkleRoot), '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b');
  assert.equal(genesis.toHex(), readVector('komodo-blocks/block-kmdmain-0-000-000.hex').trim());
  // 140 fixed bytes + fd4005 + 1344 = 1487 header bytes, then 01 + the 204-byte coinbase.
  assert.equal(genesis.header.toRaw().length, 1487);
  assert.equal(genesis.txs[0]!.toRaw().length, 204);
});

test('regtest genesis rebuilt from chainparams.cpp has komodod\'s asserted hash and merkle root', () => {
  const genesis = regtestGenesisBlock();
  assert.equal(genesis.hashHex(), REGTEST_GENESIS_HASH);
  assert.equal(genesis.hashHex(), '029f11d80ef9765602235e1bc9727e3eb6ba20839319f761fee920d63401e327');
  assert.equal(toHexReversed(genesis.header.merkleRoot), 'c4eaa58879081de3c24a7b117ed2b28300e7ec4c4c1dff1d3f1268b7857a4ddb');
  // chainparams.cpp's comment shows the coinbase scriptSig: 04ffff071f0104455a6361736830623963…
  assert.ok(toHex(genesis.txs[0]!.vin[0]!.scriptSig).startsWith('04ffff071f0104455a6361736830623963'));
  assert.equal(genesis.header.solution.length, 36);
});

test('decoding rejects truncation, trailing bytes and hostile counts with DecodeError', needVectors, () => {
  const raw = fromHex(readVector('komodo-blocks/block-kmdmain-0-899-012.hex').trim());
  // Every strict prefix fails (sampled densely over the header, sparsely over the transactions).
  for (let len = 0; len < raw.length; len += len < 1600 ? 1 : 37) {
    assert.throws(() => Block.fromRaw(raw.subarray(0, len)), DecodeError, `prefix ${len}`);
  }
  const trailing = new Uint8Array(raw.length + 1);
  trailing.set(raw);
  assert.throws(() => Block.fromRaw(trailing), (e: unknown) => e instanceof DecodeError && /trailing/.test(e.message));

  const headerLen = HEADER_SIZE + 3 + 1344;
  const header = raw.subarray(0, headerLen);
  assert.throws(() => BlockHeader.fromRaw(raw.subarray(0, headerLen + 1)), DecodeError);
  // A tx count of 2^25 with nothing behind it, and one past MAX_SIZE: refused before any allocation.
  const withCount = (count: Uint8Array) => {
    const b = new Uint8Array(headerLen + count.length);
    b.set(header);
    b.set(count, headerLen);
    return b;
  };
  assert.throws(() => Block.fromRaw(withCount(Uint8Array.of(0xfe, 0x00, 0x00, 0x00, 0x02))), DecodeError);
  assert.throws(() => Block.fromRaw(withCount(Uint8Array.of(0xfe, 0x01, 0x00, 0x00, 0x02))), DecodeError);
  assert.throws(() => Block.fromRaw(withCount(Uint8Array.of(0xff, 0, 0, 0, 0, 1, 0, 0, 0))), DecodeError);
  // A non-canonical count (0x01 written as fd0100).
  assert.throws(() => Block.fromRaw(withCount(Uint8Array.of(0xfd, 0x01, 0x00))), DecodeError);
  // A solution length larger than the data.
  const badSolution = header.slice();
  badSolution.set([0xfe, 0xff, 0xff, 0xff, 0x01], HEADER_SIZE);
  assert.throws(() => BlockHeader.fromRaw(badSolution), DecodeError);
  // A header with an empty solution and a block with no transactions still parse.
  const empty = new BlockHeader();
  assert.equal(BlockHeader.fromRaw(empty.toRaw()).toHex(), empty.toHex());
  assert.equal(empty.toRaw().length, HEADER_SIZE + 1);
  assert.equal(Block.fromRaw(new Block(empty, []).toRaw()).txs.length, 0);
});

test('Block.headerOf: the header fromRaw reads, and fromRaw\'s DecodeError for the same bytes', needVectors, () => {
  const rnd = prng(21);
  const blocks = [...vectorBlocks().map((b) => fromHex(b.hex)), regtestGenesisBlock().toRaw()];
  const outcome = (f: () => { toHex(): string }): string => {
    try {
      return f().toHex();
    } catch (e) {
      assert.ok(e instanceof DecodeError, String(e));
      return `DecodeError: ${e.message}`;
    }
  };
  let failures = 0;
  for (const raw of blocks) {
    assert.equal(Block.headerOf(raw).toHex(), Block.fromRaw(raw).header.toHex());
    const cases = [raw.subarray(0, raw.length - 1), Uint8Array.from([...raw, 0])];
    for (let i = 0; i < 40; i++) cases.push(mutate(raw, rnd));
    for (const c of cases) {
      const want = outcome(() => Block.fromRaw(c).header);
      assert.equal(outcome(() => Block.headerOf(c)), want);
      if (want.startsWith('DecodeError')) failures++;
    }
  }
  assert.ok(failures > 40, `${failures} of the cases fail to decode`);
});

function leaf(n: number): Uint8Array {
  return sha256d(Uint8Array.of(n));
}

test('merkle root follows komodod\'s BuildMerkleTree, including the CVE-2012-2459 mutation flag', () => {
  // No leaves: uint256(); one leaf: the leaf itself.
  assert.deepEqual(merkleRoot([]).root, new Uint8Array(32));
  assert.deepEqual(merkleRoot([leaf(1)]).root, leaf(1));
  const pair = (a: Uint8Array, b: Uint8Array) => {
    const buf = new Uint8Array(64);
    buf.set(a);
    buf.set(b, 32);
    return sha256d(buf);
  };
  const [a, b, c] = [leaf(1), leaf(2), leaf(3)];
  // Odd levels pair their last hash with itself.
  assert.deepEqual(merkleRoot([a, b, c]).root, pair(pair(a, b), pair(c, c)));
  assert.equal(merkleRoot([a, b, c]).mutated, false);
  // The block comment's example: [1..6] and [1..6,5,6] share a root; the second is mutated.
  const six = [1, 2, 3, 4, 5, 6].map(leaf);
  const eight = [...six, leaf(5), leaf(6)];
  const r6 = merkleRoot(six);
  const r8 = merkleRoot(eight);
  assert.deepEqual(r8.root, r6.root);
  assert.equal(r6.mutated, false);
  assert.equal(r8.mutated, true);
  // Identical last two leaves are a mutation; identical hashes elsewhere are not looked at (komodod
  // checks only the end of each level).
  assert.equal(merkleRoot([a, b, c, c]).mutated, true);
  assert.equal(merkleRoot([a, a, b, c]).mutated, false);
  // The mutation can appear on an upper level: [a,b,a,b] has two equal inner nodes at the end.
  assert.equal(merkleRoot([a, b, a, b]).mutated, true);
  // Branches verify for every leaf of an odd-sized tree.
  const seven = [1, 2, 3, 4, 5, 6, 7].map(leaf);
  const tree = buildMerkleTree(seven);
  seven.forEach((l, i) => assert.deepEqual(merkleRootFromBranch(l, merkleBranch(tree, i), i), tree.root));
  assert.deepEqual(merkleRootFromBranch(a, [], -1), new Uint8Array(32));
});

test('header fields serialise in komodod\'s order and the hash covers the solution', () => {
  const h = new BlockHeader();
  h.version = 4;
  h.prevHash = fromHexReversed('027e3758c3a65b12aa1046462b486d0a63bfa1beae327897f56c5cfb7daaae71');
  h.time = 0x01020304;
  h.bits = 0x200f0f0f;
  h.nonce = new Uint8Array(32).fill(7);
  h.solution = new Uint8Array(36).fill(9);
  const raw = h.toRaw();
  assert.equal(raw.length, HEADER_SIZE + 1 + 36);
  assert.equal(toHex(raw.subarray(0, 4)), '04000000');
  assert.deepEqual(raw.subarray(4, 36), h.prevHash);
  assert.equal(toHex(raw.subarray(100, 104)), '04030201');
  assert.equal(toHex(raw.subarray(104, 108)), '0f0f0f20');
  assert.equal(raw[HEADER_SIZE], 36);
  assert.deepEqual(h.equihashInput(), raw.subarray(0, HEADER_SIZE));
  const before = h.hashHex();
  h.solution[35] = 8;
  assert.notEqual(h.hashHex(), before);
  assert.equal(h.toJSON().bits, '200f0f0f');
});

test('assembleBlock: the txids a caller hands over give the block their hashing gives; a wrong one gives another merkle root', () => {
  const params = devChainParams();
  const height = 10;
  const spend = (prev: Uint8Array, n: number, value: bigint) => {
    const tx = Transaction.ofFormat(params.txFormat(height), 0);
    tx.vin.push(new TxIn(new Outpoint(prev, n)));
    tx.vout.push(new TxOut(value, Uint8Array.of(0x51)), new TxOut(1n, Uint8Array.of(0x51)));
    return tx;
  };
  const parent = spend(sha256d(Uint8Array.of(1)), 0, 5000n);
  const child = spend(parent.hash(), 1, 4000n);
  const other = spend(sha256d(Uint8Array.of(2)), 3, 3000n);
  const txs = [parent, child, other].map((tx) => ({ tx, fee: 100n, size: tx.toRaw().length }));
  const input = { prevHash: '00'.repeat(32), height, bits: 0x200f0f0f, mtp: 1_700_000_000, params, payTo: new Uint8Array(33).fill(2), now: 1_700_000_100 };
  const hashed = assembleBlock({ ...input, txs }).block;
  const given = assembleBlock({ ...input, txs: txs.map((e) => ({ ...e, txid: e.tx.txid() })) }).block;
  assert.equal(hashed.txs.length, 4);
  assert.deepEqual(given.header.merkleRoot, hashed.header.merkleRoot);
  assert.deepEqual(given.header.merkleRoot, hashed.merkleTree().root, 'the tree of the transactions themselves');
  assert.equal(toHex(given.toRaw()), toHex(hashed.toRaw()));
  const wrong = assembleBlock({ ...input, txs: txs.map((e, k) => ({ ...e, txid: k === 2 ? '11'.repeat(32) : e.tx.txid() })) }).block;
  assert.notDeepEqual(wrong.header.merkleRoot, wrong.merkleTree().root);
});
