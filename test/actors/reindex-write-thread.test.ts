import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { Block } from '../../src/chain/block/block.js';
import { hash160, sha256 } from '../../src/chain/crypto/hash.js';
import { publicKeyFromPrivate } from '../../src/chain/crypto/secp256k1.js';
import { equalBytes } from '../../src/chain/encoding/hex.js';
import { devChainParams } from '../../src/chain/params/chain-params.js';
import { p2pkhScript } from '../../src/chain/script/script.js';
import { produceScriptSig } from '../../src/chain/script/sign.js';
import { SIGHASH_ALL } from '../../src/chain/script/sighash.js';
import { buildTokenCreate, buildTokenTransfer } from '../../src/chain/tokens/index.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { ChainStoreLogic } from '../../src/actors/chainstore/logic.js';
import { ChainDb } from '../../src/actors/chainstore/chaindb.js';
import { consensusRules } from '../../src/actors/chainstore/consensus.js';
import { ccEvalChecker } from '../../src/chain/consensus/cc-eval.js';
import { assembleBlock, solveBlock } from '../../src/actors/miner/assemble.js';
import { readBlockFiles, writeBlockFiles } from '../helpers/blockfiles.js';
import { removeDir } from '../helpers/daemon.js';

/**
 * -reindex with its write thread (write-thread.ts): the chain store's thread verifies each block while
 * the thread writes the one before. The chain state it leaves must be the one the serial reindex
 * leaves, key by key, and a block that fails (a bad signature, a coin spent by a block still being
 * written) must stop the chain before it, with nothing of it written.
 */
const params = devChainParams();
const KEY = sha256(new TextEncoder().encode('reindex write thread test key'));
const PUB = publicKeyFromPrivate(KEY, true);
const P2PKH = p2pkhScript(hash160(PUB));
const LANES = 6;

const newRules = () => consensusRules({ params: () => params, ccChecker: ccEvalChecker(() => params) });

function sign(tx: Transaction, n: number, script: Uint8Array, amount: bigint, height: number): void {
  const keys = (id: Uint8Array) => (equalBytes(id, hash160(PUB)) ? { key: KEY, compressed: true } : undefined);
  const sig = produceScriptSig(script, { tx, nIn: n, amount, branchId: params.currentEpochBranchId(height), hashType: SIGHASH_ALL, keys });
  assert.ok(sig.complete);
  tx.vin[n]!.scriptSig = sig.scriptSig;
}

/** A block of `txs` on the store's tip (not submitted): its template, solved. */
function blockOn(s: ChainStoreLogic, txs: Transaction[], over?: { prev: string; height: number; time: number }): Block {
  const tpl = s.templateContext();
  const { block } = assembleBlock({
    prevHash: over?.prev ?? tpl.hash,
    height: over?.height ?? tpl.height + 1,
    bits: tpl.nextBits,
    mtp: tpl.mtp,
    params,
    txs: txs.map((tx) => ({ tx, fee: 0n, size: tx.toRaw().length })),
    payTo: PUB,
    now: over?.time ?? tpl.time + 5,
  });
  assert.equal(block.txs.length, txs.length + 1);
  assert.ok(solveBlock(block, params));
  return block;
}

async function mine(s: ChainStoreLogic, txs: Transaction[]): Promise<Block> {
  const block = blockOn(s, txs);
  const r = (await s.write({ op: 'submitBlock', raw: block.toRaw() })).result as { status: string; reason?: string };
  assert.equal(r.status, "connected", `height ${s.index.height + 1}: ${r.reason}`);
  return block;
}

type Lane = { tx: Transaction; n: number };
const stepTx = (from: Lane, height: number, pay = 1000n): Transaction => {
  const tx = Transaction.ofFormat(params.txFormat(height), 0);
  const value = from.tx.vout[from.n]!.value;
  tx.vin.push(new TxIn(new Outpoint(from.tx.hash(), from.n)));
  tx.vout.push(new TxOut(value - pay, P2PKH), new TxOut(pay, p2pkhScript(hash160(Uint8Array.of(height, from.n)))));
  sign(tx, 0, from.tx.vout[from.n]!.script, value, height);
  return tx;
};

/**
 * A signed chain: the premine fanned out to lanes, a token created and transferred, then blocks moving
 * every lane a step (each spending what the block before created) and, in some, a second step in the
 * same block (spending what the block itself created).
 */
async function signedChain(dir: string): Promise<{ tip: string; height: number; lanes: Lane[] }> {
  const s = new ChainStoreLogic({ dir, rules: newRules(), baseParams: params });
  await s.load();
  const premine = (await mine(s, [])).txs[0]!;
  const fan = Transaction.ofFormat(params.txFormat(2), 0);
  fan.vin.push(new TxIn(new Outpoint(premine.hash(), 0)));
  const each = 1_000_000_000n;
  for (let i = 0; i < LANES; i++) fan.vout.push(new TxOut(each, P2PKH));
  fan.vout.push(new TxOut(premine.vout[0]!.value - each * BigInt(LANES) - 10_000n, P2PKH));
  sign(fan, 0, premine.vout[0]!.script, premine.vout[0]!.value, 2);
  await mine(s, [fan]);
  const ctx = { nextHeight: 3, activation: params.activation };
  const create = buildTokenCreate({ ...ctx, privateKey: KEY, name: 'RIDX', description: 'write thread', supply: 1000n, coins: [{ txid: fan.hash(), vout: LANES, value: fan.vout[LANES]!.value, script: P2PKH }] });
  assert.ok(create.ok);
  let lanes: Lane[] = Array.from({ length: LANES }, (_, n) => ({ tx: fan, n }));
  const step = (height: number) => (lanes = lanes.map((l) => ({ tx: stepTx(l, height), n: 0 })));
  await mine(s, [create.tx, ...step(3).map((l) => l.tx)]);
  const c = create.tx;
  const change = c.vout.length - 2;
  const transfer = buildTokenTransfer({
    ...ctx,
    nextHeight: 4,
    privateKey: KEY,
    tokenid: c.hash(),
    destPubkey: publicKeyFromPrivate(sha256(Uint8Array.of(7)), true),
    amount: 100n,
    coins: [{ txid: c.hash(), vout: change, value: c.vout[change]!.value, script: c.vout[change]!.script }],
    tokenCoins: [{ txid: c.hash(), vout: 1, value: c.vout[1]!.value, script: c.vout[1]!.script }],
  });
  assert.ok(transfer.ok, transfer.ok ? '' : transfer.error);
  await mine(s, [transfer.tx, ...step(4).map((l) => l.tx)]);
  for (let height = 5; height <= 12; height++) {
    const txs = step(height).map((l) => l.tx);
    // A second step in the same block on every other lane.
    if (height % 2 === 0) lanes = lanes.map((l, i) => (i % 2 === 0 ? ((txs.push(stepTx(l, height, 500n)), { tx: txs.at(-1)!, n: 0 })) : l));
    await mine(s, txs);
  }
  const tip = { tip: s.index.tip.hash, height: s.index.height, lanes };
  await s.close();
  return tip;
}

/** Every record of every named database of the chain state, in key order. */
function dump(dir: string): Map<string, string[]> {
  const names = ['meta', 'blocks', 'coins', 'undo', 'txs', 'spent', 'addressUnspent', 'addressBalance', 'addressHistory', 'pools', 'richlist', 'snapshotTotals', 'supply', 'tokens', 'tokenOutputs', 'tokenTracked', 'tokenMarkers', 'tokenNormal', 'tokenUndo'];
  const db = ChainDb.open(join(dir, 'chaindb'));
  const out = new Map<string, string[]>();
  for (const name of names) out.set(name, [...db.index(name).getRange({})].map(({ key, value }) => `${key.toString('hex')} ${value.toString('hex')}`));
  void db.close();
  return out;
}

async function reindex(dir: string, writeThread: boolean, logs: string[] = []): Promise<ChainStoreLogic> {
  const s = new ChainStoreLogic({ dir, rules: newRules(), baseParams: params, reindex: true, writeThread, log: (m) => logs.push(m) });
  await s.load();
  return s;
}

const copyOf = (dir: string) => {
  const to = mkdtempSync(join(tmpdir(), 'acnode-rx-'));
  cpSync(dir, to, { recursive: true });
  return to;
};

test('-reindex with the write thread leaves the chain state the serial reindex leaves, key by key', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-rx-'));
  const { tip, height } = await signedChain(dir);
  const serialDir = copyOf(dir);
  const threadDir = copyOf(dir);
  const serial = await reindex(serialDir, false);
  assert.equal(serial.index.tip.hash, tip);
  await serial.close();
  const logs: string[] = [];
  const threaded = await reindex(threadDir, true, logs);
  assert.equal(threaded.index.tip.hash, tip);
  assert.equal(threaded.index.height, height);
  assert.ok(!logs.some((l) => /write thread did not load/.test(l)), logs.join('\n'));
  await threaded.close();
  const want = dump(serialDir);
  const got = dump(threadDir);
  assert.ok((want.get('coins')?.length ?? 0) > LANES && (want.get('tokenOutputs')?.length ?? 0) > 0, 'the chain has coins and token outputs');
  for (const [name, rows] of want) assert.deepEqual(got.get(name), rows, `database ${name}`);
  for (const d of [dir, serialDir, threadDir]) removeDir(d);
});

test('-reindex with the write thread stops before a block with a bad signature, or spending a coin the block before spent, and writes nothing of it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-rx-'));
  const { tip, height, lanes } = await signedChain(dir);
  const before = dump(dir);
  const s = new ChainStoreLogic({ dir, rules: newRules(), baseParams: params });
  await s.load();
  const time = s.index.tip.header.time;
  // Blocks after the tip, each with every lane stepped: `bad` is the block that fails (its first
  // transaction's signature no longer matches what it signs, or it spends again what the block before spent).
  const after = (bad: 'signature' | 'double spend'): Block[] => {
    let prev = tip;
    let ls = lanes;
    const out: Block[] = [];
    for (let k = 1; k <= 4; k++) {
      const h = height + k;
      const txs = ls.map((l) => stepTx(l, h));
      if (k === 2 && bad === 'signature') txs[0]!.vout[0]!.value -= 1n;
      if (k === 2 && bad === 'double spend') txs[0] = stepTx(lanes[0]!, h, 777n);
      const b = blockOn(s, txs, { prev, height: h, time: time + 5 * k });
      out.push(b);
      prev = b.hashHex();
      ls = txs.map((tx) => ({ tx, n: 0 }));
    }
    return out;
  };
  const cases = [
    { bad: 'signature' as const, reason: /mandatory-script-verify-flag-failed/ },
    { bad: 'double spend' as const, reason: /bad-txns-inputs-missingorspent/ },
  ];
  const built = cases.map((c) => ({ ...c, blocks: after(c.bad) }));
  await s.close();
  for (const { bad, reason, blocks } of built) {
    const d = copyOf(dir);
    // The blocks are in the block files, as received before the reindex.
    const files = readBlockFiles(d, params.messageStart).map((r) => r.raw);
    writeBlockFiles(d, params.messageStart, [...files, ...blocks.map((b) => b.toRaw())]);
    const logs: string[] = [];
    const r = await reindex(d, true, logs);
    // The block before the bad one connects; the bad one is marked failed, and nothing after it connects.
    assert.equal(r.index.tip.hash, blocks[0]!.hashHex(), `${bad}: ${logs.join('\n')}`);
    assert.equal(r.index.get(blocks[1]!.hashHex())!.failed, true, bad);
    assert.ok(logs.some((l) => l.includes(`block ${blocks[1]!.hashHex()} at height ${height + 2} is invalid`) && reason.test(l)), `${bad}: ${logs.join('\n')}`);
    await r.close();
    // Nothing of the bad block is written: what the chain state holds is the good block's effects over the chain before.
    const got = dump(d);
    assert.deepEqual(got.get('txs')!.length, before.get('txs')!.length + blocks[0]!.txs.length, bad);
    for (const tx of blocks[1]!.txs.slice(1)) assert.ok(!got.get('txs')!.some((row) => row.startsWith(Buffer.from(tx.hash()).toString('hex'))), `${bad}: a transaction of the bad block is indexed`);
    removeDir(d);
  }
  removeDir(dir);
});
