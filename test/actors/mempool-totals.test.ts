import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sha256 } from '@noble/hashes/sha2.js';
import { devChainParams } from '../../src/chain/params/chain-params.js';
import { hash160 } from '../../src/chain/crypto/hash.js';
import { publicKeyFromPrivate } from '../../src/chain/crypto/secp256k1.js';
import { toHexReversed } from '../../src/chain/encoding/hex.js';
import { concatScript, p2pkhScript, pushData } from '../../src/chain/script/script.js';
import { SIGHASH_ALL } from '../../src/chain/script/sighash.js';
import { signatureFor } from '../../src/chain/script/sign.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { Block } from '../../src/chain/block/block.js';
import type { Coin } from '../../src/chain/validation/index.js';
import { MempoolLogic, entryUsage, type MempoolInfo } from '../../src/actors/mempool/logic.js';
import { coinbaseFor } from '../../src/chain/block/assemble.js';
import type { MempoolNotice as Notice } from '../../src/actors/mempool/protocol.js';
import type { Asker } from '../../src/actors/ask.js';
import type { ChainStoreProtocol } from '../../src/actors/chainstore/protocol.js';
import { fakeChainView } from '../helpers/fake-chain-view.js';

/**
 * getmempoolinfo answers from running totals (size, bytes, usage) that every add and every removal
 * updates; spentAmong from spent outpoints kept by txid, updated with them. After each step — accepts, a refused accept, a block mining some entries and conflicting
 * with others (their children with them), expiry, a disconnected block whose transactions come back
 * (one of them no longer valid) — the totals equal a full recount of the entries.
 */

const params = devChainParams();
const HEIGHT = 200;
const BRANCH = params.currentEpochBranchId(HEIGHT + 1);
const KEY = sha256(new TextEncoder().encode('mempool totals key'));
const PUB = publicKeyFromPrivate(KEY, true);
const P2PKH = p2pkhScript(hash160(PUB));
const COIN = 100_000_000n;
const FEE = 10_000n;
const TIME = 1_700_000_000;

interface Spend {
  txid: string;
  n: number;
  value: bigint;
}

/** The chain as the mempool sees it: a fixed tip and a set of confirmed coins the test changes. */
function fakeChain(coins: Map<string, Coin>): Asker<ChainStoreProtocol> {
  const view = (outpoints: [string, number][]) => fakeChainView({ height: HEIGHT, time: TIME, params }, outpoints, (t, n) => coins.get(`${t}:${n}`) ?? null);
  return {
    ask: async (body: { op: string; outpoints?: [string, number][] }) => {
      if (body.op === 'view') return view(body.outpoints!);
      throw new Error(`fake chain has no ${body.op}`);
    },
  } as unknown as Asker<ChainStoreProtocol>;
}

/** A signed spend of `inputs` into `outputs` equal P2PKH outputs, with an optional expiry height. */
function spendTx(inputs: Spend[], outputs = 1, expiryHeight?: number, extraFee = 0n): Transaction {
  const tx = Transaction.ofFormat(params.txFormat(HEIGHT + 1), expiryHeight);
  for (const s of inputs) tx.vin.push(new TxIn(new Outpoint(Uint8Array.from(Buffer.from(s.txid, 'hex').reverse()), s.n), new Uint8Array(0), 0xffffffff));
  const total = inputs.reduce((a, s) => a + s.value, 0n) - FEE - extraFee;
  for (let k = 0; k < outputs; k++) tx.vout.push(new TxOut(total / BigInt(outputs), P2PKH));
  inputs.forEach((s, n) => {
    tx.vin[n]!.scriptSig = concatScript(pushData(signatureFor(tx, n, P2PKH, s.value, BRANCH, KEY, SIGHASH_ALL)), pushData(PUB));
  });
  return tx;
}

const out = (tx: Transaction, n: number): Spend => ({ txid: tx.txid(), n, value: tx.vout[n]!.value });

function block(height: number, txs: Transaction[]): { block: Block; txids: string[] } {
  const b = new Block(undefined, [coinbaseFor(height, 0n, PUB, params, TIME, height), ...txs]);
  return { block: b, txids: b.txs.map((t) => t.txid()) };
}

/** The totals getmempoolinfo reads, and the same figures counted over every entry. */
function check(m: MempoolLogic, step: string, size: number): void {
  const running = m.read({ op: 'info' }) as MempoolInfo;
  const entries = [...m.entries.values()];
  const recount: MempoolInfo = {
    size: entries.length,
    bytes: entries.reduce((s, e) => s + e.size, 0),
    usage: entries.reduce((s, e) => s + entryUsage(e), 0),
    transactionsUpdated: running.transactionsUpdated,
  };
  assert.deepEqual(running, recount, `${step}: running totals equal a recount`);
  assert.equal(running.size, size, `${step}: ${size} entries`);
  // spentAmong (kept by txid beside spentBy) answers as spentBy for every outpoint seen so far.
  const asked = [...seen];
  const answer = (m.read({ op: 'spentAmong', outpoints: asked.map((k) => [k.slice(0, 64), Number(k.slice(65))]) }) as { spent: boolean[] }).spent;
  assert.deepEqual(answer, asked.map((k) => m.spentBy.has(k)), `${step}: spentAmong equals spentBy`);
  // Its count of removals moves whenever an entry left since the last step, and only then (a spend
  // found stays spent while it holds: the CC input walks skip past such spends).
  const { removals } = m.read({ op: 'spentAmong', outpoints: [] }) as { removals: number };
  const before = lastSeen.get(m) ?? { removals: 0, txids: new Set<string>() };
  const left = [...before.txids].filter((t) => !m.entries.has(t)).length;
  if (left === 0) assert.equal(removals, before.removals, `${step}: no entry left, removals unchanged`);
  else assert.ok(removals - before.removals >= left, `${step}: ${left} entries left, removals ${before.removals} -> ${removals}`);
  lastSeen.set(m, { removals, txids: new Set(m.entries.keys()) });
}
const lastSeen = new WeakMap<MempoolLogic, { removals: number; txids: Set<string> }>();

/** Every outpoint any transaction of the test spends or creates (spentAmong is asked about all of them). */
const seen = new Set<string>();
const note = (tx: Transaction) => {
  for (const i of tx.vin) seen.add(`${i.prevout.txid()}:${i.prevout.index}`);
  tx.vout.forEach((_, n) => seen.add(`${tx.txid()}:${n}`));
};

test('getmempoolinfo totals equal a full recount after adds and every kind of removal', async () => {
  const coins = new Map<string, Coin>();
  const confirmed: Spend[] = [];
  for (let i = 0; i < 8; i++) {
    const txid = toHexReversed(sha256(Uint8Array.of(0x70, i)));
    coins.set(`${txid}:0`, { value: COIN, script: P2PKH, height: 10, coinbase: false, txVersion: 4 });
    confirmed.push({ txid, n: 0, value: COIN });
  }
  const m = new MempoolLogic({ chain: fakeChain(coins), dataCarrierSize: 80, now: () => TIME });
  const notices: Notice[] = [];
  const accept = (tx: Transaction) => {
    note(tx);
    return m.accept(tx.toRaw(), false, notices);
  };
  check(m, 'empty', 0);

  // Adds: independent spends of different sizes, a parent with children and a grandchild.
  const a = spendTx([confirmed[0]!], 3);
  const b = spendTx([out(a, 0)]);
  const c = spendTx([out(a, 1), out(a, 2)], 2);
  const cc = spendTx([out(c, 0)]);
  const d = spendTx([confirmed[1]!], 2);
  const dChild = spendTx([out(d, 1)]);
  const e = spendTx([confirmed[2]!], 1, HEIGHT + 4);
  const f = spendTx([confirmed[3]!], 4);
  const g = spendTx([confirmed[4]!, confirmed[5]!]);
  for (const tx of [a, b, c, cc, d, dChild, e, f, g]) await accept(tx);
  check(m, 'after adds', 9);

  // Refused accepts change nothing: a double spend of a mempool input, and the same transaction again.
  await assert.rejects(accept(spendTx([confirmed[4]!], 2)), /mempool conflict/);
  assert.equal(await accept(g), g.txid());
  check(m, 'after refused accepts', 9);

  // A block mines f and a (a's children stay: their inputs are confirmed now) and a rival of d:
  // d leaves as a conflict, and its child with it.
  const dRival = spendTx([confirmed[1]!], 1);
  note(dRival);
  const first = block(HEIGHT + 1, [a, f, dRival]);
  for (const [tx, n] of [[a, 3], [f, 4], [dRival, 1]] as const) {
    for (let k = 0; k < n; k++) coins.set(`${tx.txid()}:${k}`, { value: tx.vout[k]!.value, script: P2PKH, height: HEIGHT + 1, coinbase: false, txVersion: 4 });
  }
  coins.delete(`${confirmed[0]!.txid}:0`);
  coins.delete(`${confirmed[1]!.txid}:0`);
  coins.delete(`${confirmed[3]!.txid}:0`);
  const connected = await m.write({ op: 'blockConnected', block: first.block, txids: first.txids, height: HEIGHT + 1 });
  // Every transaction the block took out, in the order it left, in one notice (not one per transaction).
  assert.deepEqual(connected.notices, [
    {
      type: 'txsRemoved',
      items: [
        { txid: a.txid(), reason: 'block' },
        { txid: f.txid(), reason: 'block' },
        { txid: d.txid(), reason: 'conflict' },
        { txid: dChild.txid(), reason: 'conflict' },
      ],
    },
  ]);
  assert.deepEqual([d, dChild, a].map((t) => m.entries.has(t.txid())), [false, false, false]);
  check(m, 'after a block (mined, conflicts)', 5);

  // e expires once the next block's height passes its expiry height.
  const empty = block(HEIGHT + 4, []);
  await m.write({ op: 'blockConnected', block: empty.block, txids: empty.txids, height: HEIGHT + 4 });
  assert.equal(m.entries.has(e.txid()), false, 'e expired');
  check(m, 'after expiry', 4);

  // The first block is disconnected: a and f come back (re-added through accept); the rival of d
  // comes back too, d being gone. Coins as before the block.
  for (const [tx, n] of [[a, 3], [f, 4], [dRival, 1]] as const) for (let k = 0; k < n; k++) coins.delete(`${tx.txid()}:${k}`);
  coins.set(`${confirmed[0]!.txid}:0`, { value: COIN, script: P2PKH, height: 10, coinbase: false, txVersion: 4 });
  coins.set(`${confirmed[1]!.txid}:0`, { value: COIN, script: P2PKH, height: 10, coinbase: false, txVersion: 4 });
  coins.set(`${confirmed[3]!.txid}:0`, { value: COIN, script: P2PKH, height: 10, coinbase: false, txVersion: 4 });
  // One of the block's transactions is no longer valid on the new chain (its input is gone): not re-added.
  const gone = spendTx([{ txid: toHexReversed(sha256(Uint8Array.of(0x71))), n: 0, value: COIN }]);
  note(gone);
  const reorged = block(HEIGHT + 1, [a, f, dRival, gone]);
  const disconnected = await m.write({ op: 'blockDisconnected', block: reorged.block });
  // The re-added ones are announced as accepted; nothing left the pool.
  assert.deepEqual(
    disconnected.notices?.map((n) => `${n.type} ${n.items.map((i) => i.txid).join(',')}`),
    [`txsAccepted ${[a, f, dRival].map((t) => t.txid()).join(',')}`],
  );
  assert.deepEqual([a, f, dRival, gone].map((t) => m.entries.has(t.txid())), [true, true, true, false]);
  check(m, 'after a disconnected block (re-adds)', 7);

  // Everything is mined: the totals return to zero.
  const all = block(HEIGHT + 2, m.orderedEntries().map((x) => x.tx));
  await m.write({ op: 'blockConnected', block: all.block, txids: all.txids, height: HEIGHT + 2 });
  check(m, 'after mining everything', 0);
  const { transactionsUpdated: _updates, ...totals } = m.read({ op: 'info' }) as MempoolInfo;
  assert.deepEqual(totals, { size: 0, bytes: 0, usage: 0 });
});
