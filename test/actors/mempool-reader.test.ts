import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import v8 from 'node:v8';
import { hash160 } from '../../src/chain/crypto/hash.js';
import { p2pkhScript } from '../../src/chain/script/script.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { ChainStoreLogic } from '../../src/actors/chainstore/logic.js';
import { LmdbChainReader } from '../../src/actors/chainstore/chain-reader.js';
import { snapshotOf } from '../helpers/chain-snapshot.js';
import type { ChainStoreProtocol, ChainStoreRequest, ChainView } from '../../src/actors/chainstore/protocol.js';
import { MempoolLogic } from '../../src/actors/mempool/logic.js';
import type { MempoolNotice, MempoolProtocol, TxsAccepted } from '../../src/actors/mempool/protocol.js';
import { Asker } from '../../src/actors/ask.js';
import { VerifyPool } from '../../src/actors/verify/pool.js';
import { serviceMachine } from '../../src/machines/service.js';
import { createActor } from 'xstate';
import { ServiceFailure } from '../../src/actors/protocol.js';
import { fanOut, mine, newRules, P2PKH, params, sign } from '../helpers/signed-chain.js';

/**
 * The mempool reads chain coins through its own LMDB read transaction (ChainReader) instead of asking
 * the chain store, only when the snapshot's tip is the tip the mempool has processed: these tests
 * hold a chain store, a mempool over it and, for the stale cases, a reader over a copy of the chain
 * state taken at an older tip.
 */

/** Spends output n of `from` to the test key, `pay` to another script, 10,000 satoshis of fee. */
function spend(from: Transaction, n: number, height: number, pay: bigint): Transaction {
  const tx = Transaction.ofFormat(params.txFormat(height), 0);
  const value = from.vout[n]!.value;
  tx.vin.push(new TxIn(new Outpoint(from.hash(), n)));
  tx.vout.push(new TxOut(value - pay - 10_000n, P2PKH), new TxOut(pay, p2pkhScript(hash160(Uint8Array.of(height, n)))));
  sign(tx, 0, from.vout[n]!.script, value, height);
  return tx;
}

/** A chain store on a fresh directory with `lanes` confirmed outputs paying the test key (the premine fanned out, as signed-chain does). */
async function chainWithLanes(lanes: number): Promise<{ s: ChainStoreLogic; dir: string; fan: Transaction }> {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-mempool-reader-'));
  const s = new ChainStoreLogic({ dir, rules: newRules(), baseParams: params });
  await s.load();
  const fan = await fanOut(s, lanes);
  return { s, dir, fan };
}

/** The chain store answering the mempool's asks directly (its reads), counting them. */
function askerOf(s: ChainStoreLogic): { chain: Asker<ChainStoreProtocol>; asks: () => number } {
  let n = 0;
  const chain = {
    ask: async (body: ChainStoreRequest) => {
      n++;
      return s.read(body);
    },
  } as unknown as Asker<ChainStoreProtocol>;
  return { chain, asks: () => n };
}


async function accept(m: MempoolLogic, tx: Transaction, notices: MempoolNotice[] = []): Promise<string> {
  return m.accept(tx.toRaw(), false, notices, tx);
}

async function rejected(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ServiceFailure, String(e));
    return { code: e.code, message: e.message };
  }
  assert.fail('accepted');
}

test('the mempool reads its coins through the reader once it knows the tip, with the answers the ask gives', async () => {
  const { s, dir, fan } = await chainWithLanes(4);
  try {
    const { chain, asks } = askerOf(s);
    const m = new MempoolLogic({ chain, dataCarrierSize: 80, reader: new LmdbChainReader(() => s.readSource()) });
    const h = s.index.height + 1;
    // The first accept asks (the tip's part comes from the chain store), the next ones read.
    assert.equal(await accept(m, spend(fan, 0, h, 1000n)), spend(fan, 0, h, 1000n).txid());
    assert.equal(asks(), 1);
    await accept(m, spend(fan, 1, h, 1000n));
    // A spent input (the fan spends the coinbase), an unknown one, a conflict: the ask's answers.
    const spentAgain = Transaction.fromRaw(fan.toRaw());
    spentAgain.vout[0]!.value -= 1n;
    assert.deepEqual(await rejected(accept(m, spentAgain)), { code: -26, message: '18: bad-txns-inputs-spent' });
    const unknown = spend(spend(fan, 3, h, 7n), 0, h, 5n);
    assert.deepEqual(await rejected(accept(m, unknown)), { code: -25, message: 'Missing inputs' });
    assert.deepEqual(await rejected(accept(m, spend(fan, 0, h, 2000n))), { code: -26, message: '16: mempool conflict' });
    assert.deepEqual(await rejected(accept(m, fan)), { code: -27, message: 'transaction already in block chain' });
    assert.equal(asks(), 1, 'every accept after the first read through the reader');
    assert.equal(m.summary().viewsRead, 5);
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** V8's own answer whether two objects have one hidden class (map): natives syntax, enabled for this function only. */
function haveSameMap(a: unknown, b: unknown): boolean {
  v8.setFlagsFromString('--allow-natives-syntax');
  try {
    return (new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: unknown, b: unknown) => boolean)(a, b);
  } finally {
    v8.setFlagsFromString('--no-allow-natives-syntax');
  }
}

test('a chain view asked of the chain store and one read through the reader have one object shape, their coin arrays too', async () => {
  const { s, dir, fan } = await chainWithLanes(4);
  try {
    const { chain } = askerOf(s);
    const m = new MempoolLogic({ chain, dataCarrierSize: 80, reader: new LmdbChainReader(() => s.readSource()) });
    const h = s.index.height + 1;
    await accept(m, spend(fan, 0, h, 1000n));
    const tx = spend(fan, 1, h, 1000n);
    const outpoints: [string, number][] = tx.vin.map((i) => [i.prevout.txid(), i.prevout.index]);
    const asked = s.read({ op: 'view', txid: tx.txid(), outpoints }) as ChainView;
    // The mempool's own read (private): what its checks get on every accept after a block's first.
    const read = (m as unknown as { readViews(items: unknown[]): ChainView[] | undefined }).readViews([{ txid: tx.txid(), outpoints, outputs: tx.vout.length }])![0]!;
    assert.deepEqual(read, asked, 'the same view either way');
    // One shape, so the checks reading them stay monomorphic: V8 deoptimised checkContextFree on the
    // second shape (`view.time`, wrong map) when a burst after a block met the chain store's view.
    assert.ok(haveSameMap(read, asked), 'the view objects share a map');
    assert.ok(haveSameMap(read.coins, asked.coins), 'the coin arrays share a map (elements kind)');
    assert.ok(haveSameMap(read.confirmed, asked.confirmed), 'the confirmed arrays share a map (elements kind)');
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a mempool parent\'s coin and a chain coin have one object shape in the coin view an accept is checked with', async () => {
  const { s, dir, fan } = await chainWithLanes(4);
  try {
    const { chain } = askerOf(s);
    const m = new MempoolLogic({ chain, dataCarrierSize: 80, reader: new LmdbChainReader(() => s.readSource()) });
    const h = s.index.height + 1;
    const parent = spend(fan, 0, h, 1000n);
    await accept(m, parent);
    // A child spending the mempool parent's output 0 and the chain's output 1 of the fan.
    const child = Transaction.ofFormat(params.txFormat(h), 0);
    child.vin.push(new TxIn(new Outpoint(parent.hash(), 0)), new TxIn(new Outpoint(fan.hash(), 1)));
    child.vout.push(new TxOut(1000n, P2PKH));
    sign(child, 0, parent.vout[0]!.script, parent.vout[0]!.value, h);
    sign(child, 1, fan.vout[1]!.script, fan.vout[1]!.value, h);
    const outpoints: [string, number][] = child.vin.map((i) => [i.prevout.txid(), i.prevout.index]);
    const internals = m as unknown as {
      readViews(items: unknown[]): ChainView[] | undefined;
      prepare(tx: Transaction, txid: string, raw: Uint8Array, allowHighFees: boolean, view: ChainView): { coinView: { coin(txid: string, n: number): object | undefined } };
    };
    const view = internals.readViews([{ txid: child.txid(), outpoints, outputs: child.vout.length }])![0]!;
    // What the accept's checks (and the fee estimator) read for each input.
    const { coinView } = internals.prepare(child, child.txid(), child.toRaw(), true, view);
    const fromMempool = coinView.coin(parent.txid(), 0)!;
    const fromChain = coinView.coin(fan.txid(), 1)!;
    assert.equal((fromMempool as { height: number }).height, 0x7fffffff, 'the mempool parent\'s coin (MEMPOOL_HEIGHT)');
    assert.equal(fromChain, view.coins[1], 'the chain\'s decoded coin');
    assert.ok(haveSameMap(fromMempool, fromChain), 'one map for both coins');
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a block connected between two accepts: the snapshot at the newer tip is not paired with the older tip, then is used once the mempool has the block', async () => {
  const { s, dir, fan } = await chainWithLanes(4);
  try {
    const { chain, asks } = askerOf(s);
    const m = new MempoolLogic({ chain, dataCarrierSize: 80, reader: new LmdbChainReader(() => s.readSource()) });
    const h = s.index.height + 1;
    const x = spend(fan, 0, h, 1000n);
    await accept(m, x);
    assert.equal(asks(), 1);
    // A block mining y (which the mempool never saw) and a conflict of x, before the mempool hears of it.
    const y = spend(fan, 1, h, 1000n);
    const xConflict = spend(fan, 0, h, 3000n);
    const block = await mine(s, [y, xConflict]);
    // The committed tip is the block's, the mempool's the one before: the chain store is asked.
    assert.deepEqual(await rejected(accept(m, y)), { code: -27, message: 'transaction already in block chain' });
    assert.equal(asks(), 2);
    const notices: MempoolNotice[] = [];
    await m.write({ op: 'blockConnected', block, txids: block.txs.map((t) => t.txid()), height: s.index.height });
    void notices;
    assert.equal(m.entries.has(x.txid()), false, 'x left as a conflict of the block');
    // Now the mempool's tip is the block: read, and the block's spends are seen.
    assert.deepEqual(await rejected(accept(m, x)), { code: -26, message: '18: bad-txns-inputs-spent' });
    assert.equal(await accept(m, spend(y, 0, h + 1, 100n)), spend(y, 0, h + 1, 100n).txid());
    assert.equal(asks(), 2, 'read through the reader at the block');
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a snapshot older than the tip the mempool has processed is never used: the chain store is asked', async () => {
  const { s, dir, fan } = await chainWithLanes(4);
  const old = snapshotOf(dir, join(dir, 'snapshot'));
  try {
    const { chain, asks } = askerOf(s);
    // The reader is held at the tip before the block below (a snapshot never renewed).
    const m = new MempoolLogic({ chain, dataCarrierSize: 80, reader: new LmdbChainReader(old.source) });
    const h = s.index.height + 1;
    const x = spend(fan, 0, h, 1000n);
    await accept(m, x);
    await accept(m, spend(fan, 2, h, 1000n));
    assert.equal(asks(), 1, 'the snapshot is at the tip: read');
    // x is mined; the mempool applies the block (x leaves it) while the snapshot stays at the tip before.
    const block = await mine(s, [x]);
    await m.write({ op: 'blockConnected', block, txids: block.txs.map((t) => t.txid()), height: s.index.height });
    assert.equal(m.entries.has(x.txid()), false);
    // Read at the old snapshot, x's input would still be unspent and x accepted again.
    assert.deepEqual(await rejected(accept(m, x)), { code: -27, message: 'transaction already in block chain' });
    assert.equal(m.entries.has(x.txid()), false);
    assert.ok(asks() >= 2, 'asked, not read');
  } finally {
    await old.close();
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A pool whose checks are answered only once `open` is called: a burst stays in flight until then. */
function gatedPool(pool: VerifyPool): { gated: VerifyPool; open: () => void } {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const gated = {
    parallel: true,
    burstBatchInputs: (inputs: number) => pool.burstBatchInputs(inputs),
    checks(opts: Parameters<VerifyPool['checks']>[0]) {
      const c = pool.checks(opts);
      return {
        defer: (...a: Parameters<typeof c.defer>) => c.defer(...a),
        flush: () => c.flush(),
        ready: () => false,
        result: async (pos: number) => {
          await gate;
          return c.result(pos);
        },
      };
    },
  };
  return { gated: gated as unknown as VerifyPool, open };
}

test('a lone sendrawtransaction is applied in the step that brings it, in arrival order with a burst still being verified', async () => {
  const { s, dir, fan } = await chainWithLanes(6);
  const pool = await VerifyPool.start({ threads: 1, batchInputs: 2 });
  const { gated, open } = gatedPool(pool);
  try {
    const { chain } = askerOf(s);
    const logic = new MempoolLogic({ chain, dataCarrierSize: 80, reader: new LmdbChainReader(() => s.readSource()), verifyPool: gated });
    const actor = createActor(serviceMachine, { input: { logic } });
    const order: string[] = [];
    actor.on('txsAccepted', (e) => {
      for (const i of (e as unknown as TxsAccepted).items) order.push(`notice ${i.txid}`);
    });
    actor.start();
    const mempool = new Asker<MempoolProtocol>('mempool', actor);
    await new Promise((r) => setImmediate(r)); // loaded
    const h = s.index.height + 1;
    const lone = (tx: Transaction) => mempool.ask({ op: 'accept', raw: tx.toRaw(), tx, allowHighFees: false, gathered: true });
    // The first asks the chain store (the mempool learns the tip), through the writer.
    const a = spend(fan, 0, h, 1000n);
    assert.equal(await lone(a), a.txid());
    // The next is applied as it arrives: in the mempool, its notice out, before ask() returns.
    const b = spend(fan, 1, h, 1000n);
    const bAnswer = lone(b).then((txid) => void order.push(`reply ${txid}`));
    assert.ok(logic.entries.has(b.txid()), 'applied in the step that received it');
    assert.deepEqual(actor.getSnapshot().value, { ready: 'idle' });
    await bAnswer;
    assert.deepEqual(order, [`notice ${a.txid()}`, `notice ${b.txid()}`, `reply ${b.txid()}`]);
    // A burst, then one more transaction after it (to the workers, as it follows a burst), both held.
    const [c, d, e] = [2, 3, 4].map((n) => spend(fan, n, h, 1000n)) as [Transaction, Transaction, Transaction];
    const burst = mempool.ask({ op: 'acceptMany', items: [c, d].map((tx) => ({ raw: tx.toRaw(), tx, allowHighFees: false })) });
    await new Promise((r) => setImmediate(r));
    const after = mempool.ask({ op: 'acceptMany', items: [{ raw: e.toRaw(), tx: e, allowHighFees: false }] });
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(actor.getSnapshot().value, { ready: 'idle' }, 'the bursts are posted, their checks held');
    assert.equal(logic.entries.has(e.txid()), false);
    // A lone spend of e now: checked after e enters the mempool, as one by one, not against the chain alone.
    const child = spend(e, 0, h, 500n);
    const childAnswer = lone(child);
    assert.equal(logic.entries.has(child.txid()), false, 'not applied before the bursts in flight');
    open();
    assert.deepEqual(await burst, [c, d].map((tx) => ({ ok: true, result: tx.txid() })));
    assert.deepEqual(await after, [{ ok: true, result: e.txid() }]);
    assert.equal(await childAnswer, child.txid());
    assert.deepEqual([...logic.entries.keys()], [a, b, c, d, e, child].map((tx) => tx.txid()));
    actor.stop();
  } finally {
    open();
    await pool.stop();
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a burst of calls in flight is taken in the step that brings it once the coins are read (request, then settled: no drained), answered as one by one', async () => {
  const { s, dir, fan } = await chainWithLanes(8);
  const pool = await VerifyPool.start({ threads: 2, batchInputs: 2 });
  try {
    assert.ok(pool.parallel);
    const { chain, asks } = askerOf(s);
    const logic = new MempoolLogic({ chain, dataCarrierSize: 80, reader: new LmdbChainReader(() => s.readSource()), verifyPool: pool });
    const steps: string[] = [];
    const actor = createActor(serviceMachine, {
      input: { logic },
      inspect: (e) => {
        if (e.type === '@xstate.event' && e.actorRef === actor) steps.push((e.event as { type: string }).type);
      },
    });
    const notices: string[] = [];
    actor.on('txsAccepted', (e) => {
      for (const i of (e as unknown as TxsAccepted).items) notices.push(i.txid);
    });
    actor.start();
    const mempool = new Asker<MempoolProtocol>('mempool', actor);
    await new Promise((r) => setImmediate(r)); // loaded
    const h = s.index.height + 1;
    const many = (txs: Transaction[]) => mempool.ask({ op: 'acceptMany', items: txs.map((tx) => ({ raw: tx.toRaw(), tx, allowHighFees: false })) });
    // The first burst: the mempool does not know the tip yet, its coins are asked: through the writer.
    steps.length = 0;
    const [a, b] = [0, 1].map((n) => spend(fan, n, h, 1000n)) as [Transaction, Transaction];
    assert.deepEqual(await many([a, b]), [a, b].map((tx) => ({ ok: true, result: tx.txid() })));
    assert.equal(asks(), 1);
    assert.ok(steps.includes('drained'), `asked: through the writer (${steps.join(', ')})`);
    // The next: read through the reader, taken in the step that brings it; a spent input, a repeat,
    // a conflict within the burst and a child of an earlier one answered as one by one would answer.
    steps.length = 0;
    const c = spend(fan, 2, h, 1000n);
    const d = spend(fan, 3, h, 1000n);
    const rival = spend(fan, 2, h, 2000n);
    const child = spend(a, 0, h, 500n);
    const answer = many([c, a, rival, child, fan, d]);
    // Taken inside send(): c, child and d are with the workers already (a is there, rival and fan refused).
    assert.equal(logic.summary().verifiedInPool, 2 + 3, 'taken in the step that brought it');
    assert.equal(logic.entries.has(c.txid()), false);
    assert.deepEqual(actor.getSnapshot().value, { ready: 'idle' });
    assert.deepEqual(await answer, [
      { ok: true, result: c.txid() },
      { ok: true, result: a.txid() },
      { ok: false, error: { code: -26, message: '16: mempool conflict' } },
      { ok: true, result: child.txid() },
      { ok: false, error: { code: -27, message: 'transaction already in block chain' } },
      { ok: true, result: d.txid() },
    ]);
    assert.equal(asks(), 1, 'read through the reader');
    assert.deepEqual(steps, ['request', 'settled'], 'one step to take it, one to answer it');
    assert.deepEqual(notices, [a, b, c, child, d].map((tx) => tx.txid()));
    assert.deepEqual([...logic.entries.keys()], [a, b, c, child, d].map((tx) => tx.txid()));
    actor.stop();
  } finally {
    await pool.stop();
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
