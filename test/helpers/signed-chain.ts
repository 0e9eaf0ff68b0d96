/**
 * A signed dev chain built in process for the -reindex tests (the write thread's unit test and the
 * kill test), and a dump of every database of a chain state to compare two of them key by key.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
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
import { assembleBlock, solveBlock } from '../../src/chain/block/assemble.js';

export const params = devChainParams();
const KEY = sha256(new TextEncoder().encode('reindex write thread test key'));
const PUB = publicKeyFromPrivate(KEY, true);
/** The script the test key's coins pay (the premine, every lane). */
export const P2PKH = p2pkhScript(hash160(PUB));
export const LANES = 6;

export const newRules = () => consensusRules({ params: () => params, ccChecker: ccEvalChecker(() => params) });

/** Signs input n (spending `script` of `amount`) with the test key. */
export function sign(tx: Transaction, n: number, script: Uint8Array, amount: bigint, height: number): void {
  const keys = (id: Uint8Array) => (equalBytes(id, hash160(PUB)) ? { key: KEY, compressed: true } : undefined);
  const sig = produceScriptSig(script, { tx, nIn: n, amount, branchId: params.currentEpochBranchId(height), hashType: SIGHASH_ALL, keys });
  assert.ok(sig.complete);
  tx.vin[n]!.scriptSig = sig.scriptSig;
}

/** A block of `txs` on the store's tip (not submitted): its template, solved. */
export function blockOn(s: ChainStoreLogic, txs: Transaction[], over?: { prev: string; height: number; time: number }): Block {
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

/** Mines `txs` on the store's tip and checks it connected. */
export async function mine(s: ChainStoreLogic, txs: Transaction[]): Promise<Block> {
  const block = blockOn(s, txs);
  const r = (await s.write({ op: 'submitBlock', raw: block.toRaw() })).result as { status: string; reason?: string };
  assert.equal(r.status, "connected", `height ${s.index.height + 1}: ${r.reason}`);
  return block;
}

/**
 * Blocks 1 and 2 on a fresh store: the premine, then a transaction fanning it out to `lanes` outputs
 * of 10 coins each and its change, all paying the test key. Returns the fan-out.
 */
export async function fanOut(s: ChainStoreLogic, lanes: number): Promise<Transaction> {
  const premine = (await mine(s, [])).txs[0]!;
  const fan = Transaction.ofFormat(params.txFormat(2), 0);
  fan.vin.push(new TxIn(new Outpoint(premine.hash(), 0)));
  const each = 1_000_000_000n;
  for (let i = 0; i < lanes; i++) fan.vout.push(new TxOut(each, P2PKH));
  fan.vout.push(new TxOut(premine.vout[0]!.value - each * BigInt(lanes) - 10_000n, P2PKH));
  sign(fan, 0, premine.vout[0]!.script, premine.vout[0]!.value, 2);
  await mine(s, [fan]);
  return fan;
}

export type Lane = { tx: Transaction; n: number };
export const stepTx = (from: Lane, height: number, pay = 1000n): Transaction => {
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
export async function signedChain(dir: string, blocks = 12): Promise<{ tip: string; height: number; lanes: Lane[] }> {
  const s = new ChainStoreLogic({ dir, rules: newRules(), baseParams: params });
  await s.load();
  const fan = await fanOut(s, LANES);
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
  for (let height = 5; height <= blocks; height++) {
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
export function dump(dir: string): Map<string, string[]> {
  const names = ['meta', 'blocks', 'coins', 'undo', 'txs', 'spent', 'addressUnspent', 'addressBalance', 'addressHistory', 'pools', 'richlist', 'snapshotTotals', 'supply', 'tokens', 'tokenOutputs', 'tokenTotals', 'tokenTracked', 'tokenMarkers', 'tokenNormal', 'tokenUndo', 'assetOrders', 'assetOrderTracked', 'assetOrderUndo'];
  const db = ChainDb.open(join(dir, 'chaindb'));
  const out = new Map<string, string[]>();
  for (const name of names) out.set(name, [...db.index(name).getRange({})].map(({ key, value }) => `${key.toString('hex')} ${value.toString('hex')}`));
  void db.close();
  return out;
}

