import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createActor } from 'xstate';
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
import { SignatureCache, type Coin } from '../../src/chain/validation/index.js';
import { MempoolLogic, mempoolAddressKeys } from '../../src/actors/mempool/logic.js';
import { VerifyPool } from '../../src/actors/verify/pool.js';
import { serviceMachine } from '../../src/machines/service.js';
import type { MempoolNotice as Notice, TxsAccepted } from '../../src/actors/mempool/protocol.js';
import { Asker } from '../../src/actors/ask.js';
import type { ChainStoreProtocol } from '../../src/actors/chainstore/protocol.js';
import { ServiceFailure } from '../../src/actors/protocol.js';
import { prng } from '../helpers/prng.js';
import { highSTwin } from '../helpers/signatures.js';
import { fakeChainView } from '../helpers/fake-chain-view.js';

/**
 * A burst of accepts (writeBatch: signatures verified in the worker pool while later transactions are
 * checked against the earlier ones) must answer exactly as accepting them one by one: the same result
 * or error for each, the same notices in the same order, the same mempool.
 */

const params = devChainParams();
const HEIGHT = 200;
const BRANCH = params.currentEpochBranchId(HEIGHT + 1);
const KEY = sha256(new TextEncoder().encode('mempool burst key'));
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

/** The chain as the mempool sees it: a fixed tip and a fixed set of confirmed coins. */
function fakeChain(coins: Map<string, Coin>, confirmed: Set<string>): Asker<ChainStoreProtocol> {
  const view = (outpoints: [string, number][]) =>
    fakeChainView({ height: HEIGHT, time: TIME, params }, outpoints, (t, n) => coins.get(`${t}:${n}`) ?? null, (t) => confirmed.has(t));
  const chain = {
    ask: async (body: { op: string; outpoints?: [string, number][]; items?: { outpoints: [string, number][] }[] }) => {
      if (body.op === 'view') return view(body.outpoints!);
      if (body.op === 'views') return body.items!.map((i) => view(i.outpoints));
      throw new Error(`fake chain has no ${body.op}`);
    },
  };
  return chain as unknown as Asker<ChainStoreProtocol>;
}

function newTx(): Transaction {
  return Transaction.ofFormat(params.txFormat(HEIGHT + 1), 0);
}

type Flaw = 'none' | 'badsig' | 'highs';

function spendTx(inputs: Spend[], flaw: Flaw = 'none', outputs = 1): Transaction {
  const tx = newTx();
  for (const s of inputs) tx.vin.push(new TxIn(new Outpoint(Uint8Array.from(Buffer.from(s.txid, 'hex').reverse()), s.n), new Uint8Array(0), 0xffffffff));
  const total = inputs.reduce((a, s) => a + s.value, 0n) - FEE;
  for (let k = 0; k < outputs; k++) tx.vout.push(new TxOut(total / BigInt(outputs), P2PKH));
  inputs.forEach((s, n) => {
    let sig: Uint8Array;
    if (flaw === 'badsig' && n === inputs.length - 1) {
      // A valid DER signature over another amount: it does not verify (a consensus failure).
      sig = signatureFor(tx, n, P2PKH, s.value - 1n, BRANCH, KEY, SIGHASH_ALL);
    } else {
      sig = signatureFor(tx, n, P2PKH, s.value, BRANCH, KEY, SIGHASH_ALL);
      if (flaw === 'highs' && n === inputs.length - 1) {
        // Its high-S twin: valid in a block, refused by mempool policy (LOW_S).
        sig = highSTwin(sig);
      }
    }
    tx.vin[n]!.scriptSig = concatScript(pushData(sig), pushData(PUB));
  });
  return tx;
}

/**
 * A seeded sequence of raw transactions mixing what a burst can hold: independent spends, children of
 * earlier ones, double spends of earlier ones, bad and high-S signatures (and children and rivals of
 * those), duplicates, missing inputs and undecodable bytes.
 */
function scenario(seed: number, length: number) {
  const rnd = prng(seed);
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const coins = new Map<string, Coin>();
  const confirmed = new Set<string>();
  const fresh: Spend[] = [];
  for (let i = 0; i < length * 2; i++) {
    const txid = toHexReversed(sha256(Uint8Array.of(seed & 0xff, (seed >> 8) & 0xff, i & 0xff, i >> 8)));
    coins.set(`${txid}:0`, { value: COIN, script: P2PKH, height: 10, coinbase: false, txVersion: 4 });
    confirmed.add(txid);
    fresh.push({ txid, n: 0, value: COIN });
  }
  // A confirmed transaction whose only output is already spent.
  const spentTxid = toHexReversed(sha256(Uint8Array.of(0xee, seed & 0xff)));
  confirmed.add(spentTxid);
  const raws: Uint8Array[] = [];
  const made: { tx: Transaction; inputs: Spend[] }[] = [];
  const outputsOf = (tx: Transaction): Spend[] => tx.vout.map((o, n) => ({ txid: tx.txid(), n, value: o.value }));
  for (let i = 0; i < length; i++) {
    const r = rnd();
    let inputs: Spend[];
    let flaw: Flaw = rnd() < 0.12 ? 'badsig' : rnd() < 0.06 ? 'highs' : 'none';
    if (r < 0.35 || made.length === 0) inputs = [fresh.pop()!];
    else if (r < 0.6) inputs = [pick(outputsOf(pick(made).tx))];
    else if (r < 0.7) inputs = [pick(pick(made).inputs)];
    else if (r < 0.78) inputs = [fresh.pop()!, pick(outputsOf(pick(made).tx))];
    else if (r < 0.84) {
      raws.push(pick(raws));
      continue;
    } else if (r < 0.88) inputs = [{ txid: toHexReversed(sha256(Uint8Array.of(0xab, i))), n: 0, value: COIN }];
    else if (r < 0.91) inputs = [{ txid: spentTxid, n: 0, value: COIN }];
    else if (r < 0.94) {
      raws.push(Uint8Array.of(0x04, 0x00, 0x00));
      continue;
    } else {
      inputs = [fresh.pop()!];
      flaw = 'badsig';
    }
    const tx = spendTx(inputs, flaw, 1 + Math.floor(rnd() * 3));
    made.push({ tx, inputs });
    raws.push(tx.toRaw());
  }
  return { coins, confirmed, raws };
}

function answer(o: { ok: true; result: unknown } | { ok: false; error: unknown }): unknown {
  if (o.ok) return { ok: o.result };
  const e = o.error;
  return e instanceof ServiceFailure ? { code: e.code, message: e.message } : { other: String(e) };
}

function state(m: MempoolLogic, notices: Notice[]) {
  return {
    entries: [...m.entries.keys()],
    spentBy: [...m.spentBy.entries()].sort(),
    // Per transaction, in order (how the accepted ones are grouped into txsAccepted notices is the next test's).
    notices: notices.flatMap((n) => (n.type === 'txsAccepted' ? n.items.map((i) => `txAccepted ${i.txid}`) : n.items.map((i) => `txRemoved ${i.txid}`))),
  };
}

let pool: VerifyPool;
test.before(async () => {
  pool = await VerifyPool.start({ threads: 2, batchInputs: 4 });
});
test.after(async () => {
  await pool?.stop();
});

test('a burst answers as one-by-one acceptance: results, notices and mempool (seeded scenarios)', async () => {
  const reached = new Set<string>();
  for (let seed = 1; seed <= 12; seed++) {
    const { coins, confirmed, raws } = scenario(seed, 60);
    const serial = new MempoolLogic({ chain: fakeChain(coins, confirmed), dataCarrierSize: 80, now: () => TIME });
    const serialNotices: Notice[] = [];
    const serialAnswers: unknown[] = [];
    for (const raw of raws) {
      try {
        serialAnswers.push({ ok: await serial.accept(raw, false, serialNotices) });
      } catch (e) {
        serialAnswers.push(answer({ ok: false, error: e }));
      }
    }
    const cache = new SignatureCache();
    const burst = new MempoolLogic({ chain: fakeChain(coins, confirmed), dataCarrierSize: 80, now: () => TIME, verifyPool: pool, sigCache: cache });
    const burstNotices: Notice[] = [];
    const burstAnswers: unknown[] = [];
    // Bursts of 1 to 20, as they would arrive.
    const rnd = prng(seed * 7919);
    // As the service machine drives it: the next burst is handed over as soon as acceptMany returns
    // (the one before may still be verified), and the answers come in reports, in order.
    for (let i = 0; i < raws.length; ) {
      const k = 1 + Math.floor(rnd() * 20);
      await burst.acceptMany(
        raws.slice(i, i + k).map((raw) => ({ raw, allowHighFees: false })),
        (outcomes, notices) => {
          burstAnswers.push(...outcomes.map(answer));
          burstNotices.push(...notices);
        },
      );
      i += k;
    }
    await burst.close();
    assert.deepEqual(burstAnswers, serialAnswers, `seed ${seed}: answers`);
    assert.deepEqual(state(burst, burstNotices), state(serial, serialNotices), `seed ${seed}: mempool and notices`);
    for (const a of serialAnswers) reached.add('ok' in (a as object) ? 'accepted' : String((a as { message: string }).message).replace(/ \(.*/, ''));
  }
  // The scenarios do reach every kind of answer (else the comparison would prove little).
  for (const reason of [
    'accepted',
    '16: mempool conflict',
    'Missing inputs',
    '18: bad-txns-inputs-spent',
    '16: mandatory-script-verify-flag-failed',
    '64: non-mandatory-script-verify-flag',
    'TX decode failed',
  ]) {
    assert.ok(reached.has(reason), `the scenarios reach ${reason}: ${[...reached].join(' | ')}`);
  }
});

/**
 * A mempool actor over `count` confirmed coins, with one independent spend of each (the one at `bad`
 * with a signature that does not verify), and the txids of its txsAccepted notices, in order.
 */
function mempoolActor(seed: number, count: number, bad: number) {
  const { coins, confirmed } = scenario(seed, 0);
  const txs = Array.from({ length: count }, (_, i) => {
    const txid = toHexReversed(sha256(Uint8Array.of(seed, i)));
    coins.set(`${txid}:0`, { value: COIN, script: P2PKH, height: 10, coinbase: false, txVersion: 4 });
    confirmed.add(txid);
    return spendTx([{ txid, n: 0, value: COIN }], i === bad ? 'badsig' : 'none');
  });
  const logic = new MempoolLogic({ chain: fakeChain(coins, confirmed), dataCarrierSize: 80, now: () => TIME, verifyPool: pool });
  const actor = createActor(serviceMachine, { input: { logic } });
  const accepted: string[] = [];
  const notices = { count: 0 };
  actor.on('txsAccepted', (e) => {
    notices.count++;
    accepted.push(...(e as unknown as TxsAccepted).items.map((i) => i.txid));
  });
  actor.start();
  return { txs, actor, accepted, notices, mempool: new Asker('mempool', actor) };
}

test('the service machine hands concurrent accepts to writeBatch, verified in the pool', async () => {
  const { txs, actor, accepted, notices, mempool } = mempoolActor(0x77, 24, 5);
  const before = pool.stats.batches;
  const replies = await Promise.allSettled(txs.map((tx) => mempool.ask({ op: 'accept', raw: tx.toRaw() })));
  replies.forEach((r, i) => {
    if (i === 5) assert.match((r as PromiseRejectedResult).reason.message, /^16: mandatory-script-verify-flag-failed/);
    else assert.deepEqual(r, { status: 'fulfilled', value: txs[i]!.txid() });
  });
  assert.deepEqual(accepted, txs.filter((_, i) => i !== 5).map((t) => t.txid()));
  // One txsAccepted per report of the burst (what settled together), not one per transaction.
  assert.ok(notices.count > 0 && notices.count < accepted.length / 2, `${notices.count} txsAccepted notices for ${accepted.length} transactions`);
  assert.ok(pool.stats.batches > before, 'the burst was verified in the pool');
  actor.stop();
});

test('an accept its sender gathered (sendrawtransaction alone) starts at once; a plain accept waits a turn for company', async () => {
  const { txs, actor, mempool } = mempoolActor(0x7a, 2, -1);
  await new Promise((r) => setImmediate(r)); // loaded
  const gathered = mempool.ask({ op: 'accept', raw: txs[0]!.toRaw(), allowHighFees: false, gathered: true });
  assert.deepEqual(actor.getSnapshot().value, { ready: 'working' });
  assert.equal(await gathered, txs[0]!.txid());
  await new Promise((r) => setImmediate(r));
  const plain = mempool.ask({ op: 'accept', raw: txs[1]!.toRaw(), allowHighFees: false });
  assert.deepEqual(actor.getSnapshot().value, { ready: 'gathering' });
  assert.equal(await plain, txs[1]!.txid());
  actor.stop();
});

test('a lone sendrawtransaction is verified inline, not in the pool: a bad signature still gets komodod\'s error, a good one its txid then its notice', async () => {
  const { txs, actor, accepted, mempool } = mempoolActor(0x7b, 2, 0);
  await new Promise((r) => setImmediate(r)); // loaded
  const before = pool.stats.batches;
  const order: string[] = [];
  actor.on('txsAccepted', (e) => {
    for (const i of (e as unknown as TxsAccepted).items) order.push(`notice ${i.txid}`);
  });
  await assert.rejects(mempool.ask({ op: 'accept', raw: txs[0]!.toRaw(), allowHighFees: false, gathered: true }), (e: Error & { code?: number }) => {
    assert.equal(e.code, -26);
    assert.match(e.message, /^16: mandatory-script-verify-flag-failed \(/);
    return true;
  });
  const good = mempool.ask({ op: 'accept', raw: txs[1]!.toRaw(), allowHighFees: false, gathered: true }).then((txid) => void order.push(`reply ${txid}`));
  await good;
  const id = txs[1]!.txid();
  // Reply and notice leave in one step: by the time the caller's continuation runs (where the RPC
  // layer writes its answer) the notice is out, so the wallet has the transaction first (komodod's
  // AcceptToMemoryPool syncs the wallet before sendrawtransaction returns).
  assert.deepEqual(order, [`notice ${id}`, `reply ${id}`]);
  assert.deepEqual(accepted, [id]);
  assert.equal(pool.stats.batches, before, 'neither was posted to the script-check workers');
  actor.stop();
});

test('relay: false (the wallet re-accept) reaches the txsAccepted notice, alone and in a burst; other accepts are relayed', async () => {
  const { txs, actor, mempool } = mempoolActor(0x79, 9, -1);
  const relay = new Map<string, unknown>();
  actor.on('txsAccepted', (e) => {
    for (const i of (e as unknown as TxsAccepted).items) relay.set(i.txid, i.relay);
  });
  const quiet = (i: number) => i % 3 === 0;
  // A burst (verified in the pool), then one alone.
  await Promise.all(txs.slice(0, 8).map((tx, i) => mempool.ask({ op: 'accept', raw: tx.toRaw(), allowHighFees: false, ...(quiet(i) ? { relay: false } : {}) })));
  await mempool.ask({ op: 'accept', raw: txs[8]!.toRaw(), allowHighFees: false, relay: false });
  assert.deepEqual(
    txs.map((t) => relay.get(t.txid())),
    txs.map((_, i) => (quiet(i) || i === 8 ? false : undefined)),
  );
  assert.equal(relay.size, 9);
  actor.stop();
});

test('acceptMany (a JSON-RPC batch as one message) among accepts: one outcome per transaction, in order, as one by one', async () => {
  const { txs, actor, accepted, mempool } = mempoolActor(0x78, 8, 3);
  const raws = txs.map((t) => t.toRaw());
  const item = (raw: Uint8Array) => ({ raw, allowHighFees: false });
  const [first, many, empty, last] = await Promise.all([
    mempool.ask({ op: 'accept', raw: raws[0] }),
    // tx 1 twice (the second: its txid again), tx 3's signature is bad, a byte string that is no transaction.
    mempool.ask({ op: 'acceptMany', items: [item(raws[1]!), item(raws[2]!), item(raws[1]!), item(raws[3]!), item(Uint8Array.of(1, 2, 3)), item(raws[4]!)] }),
    mempool.ask({ op: 'acceptMany', items: [] }),
    mempool.ask({ op: 'accept', raw: raws[5] }),
  ]);
  assert.equal(first, txs[0]!.txid());
  assert.deepEqual(empty, []);
  assert.equal(last, txs[5]!.txid());
  const m = many as { ok: boolean; result?: string; error?: { code: number; message: string } }[];
  assert.deepEqual(m.slice(0, 3), [1, 2, 1].map((i) => ({ ok: true, result: txs[i]!.txid() })));
  assert.equal(m[3]!.ok, false);
  assert.equal(m[3]!.error!.code, -26);
  assert.match(m[3]!.error!.message, /^16: mandatory-script-verify-flag-failed/);
  assert.deepEqual(m[4], { ok: false, error: { code: -22, message: 'TX decode failed' } });
  assert.deepEqual(m[5], { ok: true, result: txs[4]!.txid() });
  assert.deepEqual(accepted, [0, 1, 2, 4, 5].map((i) => txs[i]!.txid()));
  actor.stop();
});

test('a JSON-RPC batch of 50 (one acceptMany) goes to the workers in a few larger batches, a bad signature among them still answered as one by one', async () => {
  const { txs, actor, accepted, mempool } = mempoolActor(0x7c, 50, 31);
  await new Promise((r) => setImmediate(r)); // loaded
  const before = pool.stats.batches;
  const many = (await mempool.ask({ op: 'acceptMany', items: txs.map((t) => ({ raw: t.toRaw(), allowHighFees: false })) })) as { ok: boolean; result?: string; error?: { code: number } }[];
  // Four batches per verifying thread (two here): 50 inputs in batches of 7, not 25 batches of two.
  assert.equal(pool.stats.batches - before, 8);
  assert.equal(many[31]!.ok, false);
  assert.equal(many[31]!.error!.code, -26);
  assert.deepEqual(many.filter((_, i) => i !== 31), txs.filter((_, i) => i !== 31).map((t) => ({ ok: true, result: t.txid() })));
  assert.deepEqual(accepted, txs.filter((_, i) => i !== 31).map((t) => t.txid()));
  actor.stop();
});

test('one acceptMany (16 calls in flight) verified in several batches: its notices leave in one txsAccepted, with its answer and before it', async () => {
  const { txs, actor, accepted, notices, mempool } = mempoolActor(0x7d, 16, 9);
  await new Promise((r) => setImmediate(r)); // loaded
  const before = pool.stats.batches;
  const order: string[] = [];
  actor.on('txsAccepted', (e) => order.push(`notice ${(e as unknown as TxsAccepted).items.length}`));
  const many = (await mempool.ask({ op: 'acceptMany', items: txs.map((t) => ({ raw: t.toRaw(), allowHighFees: false })) }).then((m) => {
    order.push('reply');
    return m;
  })) as { ok: boolean; result?: string; error?: { code: number } }[];
  // The checks went out in several batches (so the burst settled in several reports).
  assert.ok(pool.stats.batches - before > 1, `${pool.stats.batches - before} batches`);
  assert.equal(many[9]!.error!.code, -26);
  assert.deepEqual(many.filter((_, i) => i !== 9), txs.filter((_, i) => i !== 9).map((t) => ({ ok: true, result: t.txid() })));
  // The reports before the last answered nobody: their notices waited for it, in order.
  assert.deepEqual(accepted, txs.filter((_, i) => i !== 9).map((t) => t.txid()));
  assert.equal(notices.count, 1);
  assert.deepEqual(order, ['notice 15', 'reply']);
  actor.stop();
});

test('-addressindex off: the mempool keeps no address index (komodod adds it only under fAddressIndex); on: it does', async () => {
  const { coins, confirmed, raws } = scenario(3, 20);
  const deltas = async (addressIndex: boolean | undefined) => {
    const logic = new MempoolLogic({ chain: fakeChain(coins, confirmed), dataCarrierSize: 80, now: () => TIME, ...(addressIndex === undefined ? {} : { addressIndex }) });
    let accepted = 0;
    for (const raw of raws) {
      try {
        await logic.accept(raw, false, []);
        accepted++;
      } catch {
        // Scenarios mix in refused transactions.
      }
    }
    assert.ok(accepted > 0);
    const [key] = mempoolAddressKeys(P2PKH, true);
    return { accepted, deltas: logic.read({ op: 'addressDeltas', addresses: [key!] }) as unknown[] };
  };
  const on = await deltas(undefined);
  assert.ok(on.deltas.length >= on.accepted, 'every accepted transaction pays and spends the indexed key');
  assert.deepEqual((await deltas(true)).deltas, on.deltas);
  const off = await deltas(false);
  assert.equal(off.accepted, on.accepted);
  assert.deepEqual(off.deltas, []);
});

test('the coin view finds each input its own coin: by scan (few inputs, same output index of different values) and by map (over 8 inputs)', async () => {
  for (const inputs of [3, 12]) {
    const coins = new Map<string, Coin>();
    const confirmed = new Set<string>();
    const spends: Spend[] = Array.from({ length: inputs }, (_, i) => {
      const txid = toHexReversed(sha256(Uint8Array.of(0x5c, inputs, i)));
      // Every input spends output 0 of its own transaction, each worth a different amount.
      const value = COIN + BigInt(i) * 1_000_000n;
      coins.set(`${txid}:0`, { value, script: P2PKH, height: 10, coinbase: false, txVersion: 4 });
      confirmed.add(txid);
      return { txid, n: 0, value };
    });
    const logic = new MempoolLogic({ chain: fakeChain(coins, confirmed), dataCarrierSize: 80, now: () => TIME, verifyPool: pool });
    const parent = spendTx(spends, 'none', 2);
    // A child spending both outputs of the parent (mempool coins) and one more confirmed coin.
    const extra = toHexReversed(sha256(Uint8Array.of(0x5d, inputs)));
    coins.set(`${extra}:0`, { value: 3n * COIN, script: P2PKH, height: 10, coinbase: false, txVersion: 4 });
    confirmed.add(extra);
    const child = spendTx([...parent.vout.map((o, n) => ({ txid: parent.txid(), n, value: o.value })), { txid: extra, n: 0, value: 3n * COIN }]);
    const notices: Notice[] = [];
    // One input unknown: Missing inputs, whichever way its coins are found.
    const missing = spendTx([...spends.slice(0, -1), { ...spends[inputs - 1]!, txid: toHexReversed(sha256(Uint8Array.of(0x5e, inputs))) }]);
    await assert.rejects(logic.accept(missing.toRaw(), false, notices), /Missing inputs/);
    assert.equal(await logic.accept(parent.toRaw(), false, notices), parent.txid());
    assert.equal(await logic.accept(child.toRaw(), false, notices), child.txid());
    const total = spends.reduce((a, s) => a + s.value, 0n);
    assert.equal(logic.entries.get(parent.txid())!.fee, total - parent.vout.reduce((a, o) => a + o.value, 0n));
    assert.deepEqual(logic.entries.get(parent.txid())!.prevouts!.map((p) => p.value), spends.map((s) => s.value));
    assert.equal(logic.entries.get(child.txid())!.fee, FEE);
    await logic.close();
  }
});
