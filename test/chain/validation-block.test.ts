import { test } from 'node:test';
import assert from 'node:assert/strict';
import { needVectors, loadVector, readVector } from '../helpers/vectors.js';
import { Block } from '../../src/chain/block/block.js';
import { BlockHeader } from '../../src/chain/block/header.js';
import { COIN } from '../../src/chain/consensus/amount.js';
import { fromHex, toHex } from '../../src/chain/encoding/hex.js';
import { ChainParams, devChainParams } from '../../src/chain/params/chain-params.js';
import { OP_CHECKSIG, OP_RETURN } from '../../src/chain/script/opcodes.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import {
  FutureBlockError,
  REJECT_INVALID,
  REJECT_OBSOLETE,
  ValidationError,
  type ValidationContext,
  bip34Prefix,
  checkBlock,
  checkBlockHeader,
  checkCoinbaseValue,
  contextualCheckBlock,
  contextualCheckBlockHeader,
  validationContext,
} from '../../src/chain/validation/index.js';

/** Asserts that fn throws a ValidationError with komodod's code and reason (and DoS score when given). */
function rejects(fn: () => unknown, code: number, reason: string, dos?: number): ValidationError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ValidationError, `expected ValidationError, got ${String(e)}`);
    assert.equal(e.reason, reason);
    assert.equal(e.rejectCode, code);
    if (dos !== undefined) assert.equal(e.dos, dos);
    return e;
  }
  assert.fail(`expected rejection ${code}: ${reason}`);
}

/**
 * KMD mainnet context for the vector blocks: KMD's MAX_MONEY (200M coins), KMD's Sapling height
 * (1140409) and no CC. komodo_check_deposit's KMD branch (notary rules) is KMD-only and is not
 * modelled, so Sapling is left off here: it only gates that rule and the 4 MB size limit.
 */
const kmdCtx: ValidationContext = {
  ...validationContext(ChainParams.fromArgs({ ac_name: 'KMDVECTORS' })),
  maxMoney: 200_000_000n * COIN,
  activation: { overwinter: -1, sapling: -1 },
  ccEnabled: false,
  maxBlockSigops: 20_000,
};

interface IndexRow {
  file: string;
  hash: string;
  hash_meets_bits_target: boolean;
  txs: unknown[];
}

function heightOf(file: string): number {
  const m = /-(\d)-(\d{3})-(\d{3})\.hex$/.exec(file)!;
  return Number(m[1]) * 1_000_000 + Number(m[2]) * 1000 + Number(m[3]);
}

test('checkBlock with PoW and merkle passes on the real KMD blocks', needVectors, () => {
  const rows = loadVector<{ blocks: IndexRow[] }>('komodo-blocks/index.json').blocks;
  let passed = 0;
  const excluded: string[] = [];
  for (const row of rows) {
    // KMD-only: notary "easy-mined" blocks do not meet their nominal nBits (p2p-blocks.md §8).
    if (!row.hash_meets_bits_target) {
      excluded.push(`${row.file}: notary easy-mined block, hash above nBits target (KMD-only rule)`);
      continue;
    }
    const block = Block.fromHex(readVector(`komodo-blocks/${row.file}`).trim());
    assert.equal(block.hashHex(), row.hash);
    assert.equal(block.txs.length, row.txs.length);
    checkBlock(block, { ...kmdCtx, checkPow: true, checkMerkle: true, height: heightOf(row.file) });
    passed++;
  }
  assert.equal(passed, 17);
  assert.deepEqual(excluded.map((e) => e.split(':')[0]), ['block-kmdmain-1-140-500.hex', 'block-rick-0-899-012.hex']);
});

function vectorBlock(file: string): Block {
  return Block.fromHex(readVector(`komodo-blocks/${file}`).trim());
}

test('checkBlock: one-bit change in the solution → invalid-solution; nBits too hard → high-hash', needVectors, () => {
  const block = vectorBlock('block-kmdmain-0-000-005.hex');
  const bad = Block.fromRaw(block.toRaw());
  bad.header.solution[100]! ^= 0x01;
  rejects(() => checkBlock(bad, { ...kmdCtx, checkPow: true, checkMerkle: true, height: 5 }), REJECT_INVALID, 'invalid-solution', 100);
  // Without Equihash (regtest), a target the hash does not meet.
  const hard = Block.fromRaw(block.toRaw());
  hard.header.bits = 0x1d00ffff;
  rejects(
    () => checkBlock(hard, { ...kmdCtx, checkEquihash: false, checkPow: true, checkMerkle: true, height: 5 }),
    REJECT_INVALID,
    'high-hash',
    50,
  );
});

test('checkBlock: merkle mismatch, duplicate tx (mutation), two coinbases, missing coinbase', needVectors, () => {
  const block = vectorBlock('block-kmdmain-0-899-012.hex');
  assert.equal(block.txs.length, 3);
  const opts = { ...kmdCtx, checkPow: false, checkMerkle: true, height: 899012 };
  checkBlock(block, opts);

  const badRoot = Block.fromRaw(block.toRaw());
  badRoot.header.merkleRoot[0]! ^= 1;
  const e = rejects(() => checkBlock(badRoot, opts), REJECT_INVALID, 'bad-txnmrklroot', 100);
  assert.equal(e.corruptionPossible, true);

  // CVE-2012-2459: [cb, a, b, b] has the merkle root of [cb, a, b].
  const dup = Block.fromRaw(block.toRaw());
  dup.txs.push(dup.txs[2]!.clone());
  assert.equal(toHex(dup.merkleTree().root), toHex(block.header.merkleRoot));
  rejects(() => checkBlock(dup, opts), REJECT_INVALID, 'bad-txns-duplicate', 100);

  const twoCb = Block.fromRaw(block.toRaw());
  const cb2 = twoCb.txs[0]!.clone();
  cb2.vin[0]!.scriptSig = Uint8Array.of(0x51, 0x52);
  twoCb.txs.push(cb2);
  twoCb.updateMerkleRoot();
  rejects(() => checkBlock(twoCb, opts), REJECT_INVALID, 'bad-cb-multiple', 100);

  const noCb = Block.fromRaw(block.toRaw());
  noCb.txs.shift();
  noCb.updateMerkleRoot();
  rejects(() => checkBlock(noCb, opts), REJECT_INVALID, 'bad-cb-missing', 100);

  const empty = Block.fromRaw(block.toRaw());
  empty.txs = [];
  rejects(() => checkBlock(empty, { ...opts, checkMerkle: false }), REJECT_INVALID, 'bad-blk-length', 100);
});

test('checkBlock runs checkTransaction on every tx and counts legacy sigops', needVectors, () => {
  const block = vectorBlock('block-kmdmain-0-899-012.hex');
  const opts = { ...kmdCtx, checkPow: false, checkMerkle: true, height: 899012 };
  const neg = Block.fromRaw(block.toRaw());
  neg.txs[1]!.vout[0]!.value = -1n;
  neg.updateMerkleRoot();
  rejects(() => checkBlock(neg, opts), REJECT_INVALID, 'bad-txns-vout-negative', 100);

  // 60,006 OP_CHECKSIG in outputs: over the asset-chain limit of 60,000 (komodo_utils.cpp:1179).
  const many = Block.fromRaw(block.toRaw());
  for (let i = 0; i < 6; i++) many.txs[1]!.vout.push(new TxOut(0n, new Uint8Array(10001).fill(OP_CHECKSIG)));
  many.updateMerkleRoot();
  const acCtx = { ...opts, maxBlockSigops: 60_000 };
  const e = rejects(() => checkBlock(many, acCtx), REJECT_INVALID, 'bad-blk-sigops', 100);
  assert.equal(e.corruptionPossible, true);
  many.txs[1]!.vout.pop();
  many.updateMerkleRoot();
  checkBlock(many, acCtx); // 50,005 sigops + the block's own: under the limit
});

test('checkBlockHeader: version ≥ 4 above genesis; future time with komodod limits', needVectors, () => {
  const block = vectorBlock('block-kmdmain-0-000-001.hex');
  const h = block.header.clone();
  checkBlockHeader(h, kmdCtx, { height: 1, now: h.time, checkPow: true });
  h.version = 3;
  rejects(() => checkBlockHeader(h, kmdCtx, { height: 1 }), REJECT_INVALID, 'version-too-low', 100);
  checkBlockHeader(h, kmdCtx, { height: 0 });
  const now = h.time - 61;
  const f = rejects(() => checkBlockHeader(h, kmdCtx, { height: 0, now }), REJECT_INVALID, 'time-too-new', 0);
  assert.ok(f instanceof FutureBlockError && f.retryLater);
  const far = rejects(() => checkBlockHeader(h, kmdCtx, { height: 0, now: h.time - 300 }), REJECT_INVALID, 'time-too-new');
  assert.ok(far instanceof FutureBlockError && !far.retryLater);
  checkBlockHeader(h, kmdCtx, { height: 0, now: h.time - 60 });
});

test('contextualCheckBlockHeader: bad-diffbits, time-too-old, time-too-new (7 × blocktime), bad-version, block 1 locked', () => {
  const ctx = validationContext(devChainParams()); // ac_blocktime=5: nMaxFutureBlockTime 35 s
  const h = new BlockHeader();
  h.version = 4;
  h.bits = 0x200f0f0f;
  h.time = 1_700_000_000;
  const prev = { height: 10, mtp: h.time - 1, nextBits: 0x200f0f0f };
  contextualCheckBlockHeader(h, prev, ctx, h.time);
  rejects(() => contextualCheckBlockHeader(h, { ...prev, nextBits: 0x200f0f0e }, ctx, h.time), REJECT_INVALID, 'bad-diffbits', 100);
  rejects(() => contextualCheckBlockHeader(h, { ...prev, mtp: h.time }, ctx, h.time), REJECT_INVALID, 'time-too-old', 0);
  contextualCheckBlockHeader(h, prev, ctx, h.time - 35);
  rejects(() => contextualCheckBlockHeader(h, prev, ctx, h.time - 36), REJECT_INVALID, 'time-too-new', 0);
  const old = h.clone();
  old.version = 3;
  rejects(() => contextualCheckBlockHeader(old, prev, ctx, h.time), REJECT_OBSOLETE, 'bad-version', 0);
  // A different block 1 once the chain is past height 1: DoS 1, no reason (checkpoint code).
  const prev0 = { height: 0, mtp: h.time - 1, nextBits: 0x200f0f0f };
  const e = rejects(() => contextualCheckBlockHeader(h, { ...prev0, activeChain: { tipHeight: 5, hashAtHeight1: new Uint8Array(32) } }, ctx, h.time), 0, '', 1);
  assert.match(e.message, /height 1 forbidden/);
  contextualCheckBlockHeader(h, { ...prev0, activeChain: { tipHeight: 5, hashAtHeight1: h.hash() } }, ctx, h.time);
  contextualCheckBlockHeader(h, { ...prev0, activeChain: { tipHeight: 1 } }, ctx, h.time);
});

function coinbase(height: number, outputs: TxOut[], scriptSig?: Uint8Array, v4 = true): Transaction {
  const tx = new Transaction();
  if (v4) {
    tx.overwintered = true;
    tx.version = 4;
    tx.versionGroupId = 0x892f2085;
  }
  const sig = scriptSig ?? Uint8Array.from([...bip34Prefix(height), 0x01, 0x01]);
  tx.vin = [new TxIn(Outpoint.null(), sig, 0xffffffff)];
  tx.vout = outputs;
  return tx;
}

const P2PK = fromHex('21' + '02'.padEnd(66, '1') + 'ac');

function blockOf(height: number, txs: Transaction[], time = 1_700_000_000): Block {
  const b = new Block();
  b.header.time = time;
  b.txs = txs;
  b.updateMerkleRoot();
  void height;
  return b;
}

test('BIP34: the coinbase starts with CScript() << height (p2p-blocks.md §6 examples)', () => {
  const ctx = validationContext(devChainParams());
  const cases: [number, string][] = [
    [1, '51'],
    [16, '60'],
    [17, '0111'],
    [128, '028000'],
    [1000, '02e803'],
    [32768, '03008000'],
  ];
  for (const [height, prefix] of cases) {
    assert.equal(toHex(bip34Prefix(height)), prefix, `height ${height}`);
    const ok = blockOf(height, [coinbase(height, [new TxOut(1n, P2PK)], fromHex(prefix + '0101'))]);
    contextualCheckBlock(ok, height, ctx);
    // The prefix must match exactly: the same push for another height fails.
    const wrong = blockOf(height + 1, [coinbase(height + 1, [new TxOut(1n, P2PK)], fromHex(prefix + '0101'))]);
    rejects(() => contextualCheckBlock(wrong, height + 1, ctx), REJECT_INVALID, 'bad-cb-height', 100);
  }
  // Height 1 as a data push (01 01) is not OP_1.
  const pushed = blockOf(1, [coinbase(1, [new TxOut(1n, P2PK)], fromHex('0101' + '0101'))]);
  rejects(() => contextualCheckBlock(pushed, 1, ctx), REJECT_INVALID, 'bad-cb-height', 100);
  // A scriptSig shorter than the prefix.
  const short = blockOf(32768, [coinbase(32768, [new TxOut(1n, P2PK)], fromHex('0300'))]);
  rejects(() => contextualCheckBlock(short, 32768, ctx), REJECT_INVALID, 'bad-cb-height', 100);
});

test('contextualCheckBlock: contextual tx rules at the height and finality at the block time', () => {
  const ctx = validationContext(devChainParams()); // Sapling from 1
  const v1cb = blockOf(5, [coinbase(5, [new TxOut(1n, P2PK)], undefined, false)]);
  rejects(() => contextualCheckBlock(v1cb, 5, ctx), REJECT_INVALID, 'tx-overwinter-active', 100);
  const cb = coinbase(5, [new TxOut(1n, P2PK)]);
  const spend = new Transaction();
  spend.overwintered = true;
  spend.version = 4;
  spend.versionGroupId = 0x892f2085;
  spend.vin = [new TxIn(new Outpoint(new Uint8Array(32).fill(7), 0), Uint8Array.of(0x51), 0)];
  spend.vout = [new TxOut(1n, P2PK)];
  spend.lockTime = 6; // height lock not reached at 5
  rejects(() => contextualCheckBlock(blockOf(5, [cb, spend]), 5, ctx), REJECT_INVALID, 'bad-txns-nonfinal', 10);
  spend.lockTime = 4;
  contextualCheckBlock(blockOf(5, [cb, spend]), 5, ctx);
});

test('checkCoinbaseValue: block 1 pays exactly the premine + fees; later blocks at most subsidy + fees', () => {
  const params = devChainParams();
  const ctx = validationContext(params);
  // rawtx.md §7.7: ac_supply × COIN + (magic & 0xffffff).
  const premine = 10_000_000n * COIN + BigInt(params.magic & 0xffffff);
  assert.equal(ctx.blockSubsidy(1), premine);
  checkCoinbaseValue(blockOf(1, [coinbase(1, [new TxOut(premine, P2PK)])]), 1, 0n, ctx);
  checkCoinbaseValue(blockOf(1, [coinbase(1, [new TxOut(premine + 7n, P2PK)])]), 1, 7n, ctx);
  rejects(() => checkCoinbaseValue(blockOf(1, [coinbase(1, [new TxOut(premine - 1n, P2PK)])]), 1, 0n, ctx), REJECT_INVALID, 'bad-cb-amount', 100);
  rejects(() => checkCoinbaseValue(blockOf(1, [coinbase(1, [new TxOut(premine + 1n, P2PK)])]), 1, 0n, ctx), REJECT_INVALID, 'bad-cb-amount', 100);

  const reward = ctx.blockSubsidy(2);
  assert.equal(reward, 100_000_000n); // -ac_reward=100000000
  checkCoinbaseValue(blockOf(2, [coinbase(2, [new TxOut(reward + 50n, P2PK)])]), 2, 50n, ctx);
  checkCoinbaseValue(blockOf(2, [coinbase(2, [new TxOut(reward - 1n, P2PK)])]), 2, 0n, ctx); // paying less is fine
  rejects(() => checkCoinbaseValue(blockOf(2, [coinbase(2, [new TxOut(reward + 51n, P2PK)])]), 2, 50n, ctx), REJECT_INVALID, 'bad-cb-amount', 100);
});

test('komodo_check_deposit after Sapling: extra coinbase outputs bounded by subsidy − vout[0], ≥ 5000 from the third', () => {
  const ctx = validationContext(devChainParams());
  const reward = ctx.blockSubsidy(3);
  const opret = Uint8Array.of(OP_RETURN, 0x01, 0x00);
  const ok = blockOf(3, [coinbase(3, [new TxOut(reward - 10_000n, P2PK), new TxOut(5_000n, P2PK), new TxOut(5_000n, P2PK), new TxOut(0n, opret)])]);
  checkCoinbaseValue(ok, 3, 0n, ctx);
  const over = blockOf(3, [coinbase(3, [new TxOut(reward - 10_000n, P2PK), new TxOut(10_001n, P2PK)])]);
  const e = rejects(() => checkCoinbaseValue(over, 3, 0n, ctx), 0, '', 0);
  assert.match(e.message, /komodo_check_deposit/);
  const strange = blockOf(3, [coinbase(3, [new TxOut(reward - 10_000n, P2PK), new TxOut(5_001n, P2PK), new TxOut(4_999n, P2PK)])]);
  rejects(() => checkCoinbaseValue(strange, 3, 0n, ctx), 0, '');
  // vout[0] above the subsidy (fees): komodod's uint64 wrap lifts the bound on the other outputs.
  const fees = blockOf(3, [coinbase(3, [new TxOut(reward + 1n, P2PK), new TxOut(1_000_000n, P2PK)])]);
  checkCoinbaseValue(fees, 3, 1_000_001n, ctx);
});
