import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createActor } from 'xstate';
import { serviceMachine, type Notice, type ServiceLogic } from '../../src/machines/service.js';
import { pacerMachine } from '../../src/machines/pacer.js';
import type { Asker } from '../../src/actors/ask.js';
import type { Op } from '../../src/actors/protocol.js';
import type { CommandNotifier } from '../../src/node/notify.js';
import { routeNotices } from '../../src/node/routes.js';

/**
 * A service whose one write, `emit`, announces the notices it is given (as a logic's write does), and
 * `emitNow` the same applied in the step that brings it (as the mempool's lone accept, writeNow).
 */
function emitter(name: string): ServiceLogic {
  return {
    name,
    load: async () => {},
    isWrite: (b) => b.op === 'emit' || b.op === 'emitNow',
    writesNow: (b) => b.op === 'emitNow',
    writeNow: (b) => ({ result: null, notices: b.notices as Notice[] }),
    read: () => null,
    write: async (b) => ({ result: null, notices: b.notices as Notice[] }),
    summary: () => ({}),
    close: async () => {},
  };
}

const settle = () => new Promise((r) => setTimeout(r, 20));

test('the routing table: each notice reaches its recipients in the order written, mempool runs as one message', async () => {
  const calls: string[] = [];
  const recorder = (to: string) => {
    // Asked or told (the mempool's runs are told): recorded alike, in the order sent.
    const record = (body: Op) => {
      const detail = body.op === 'txsAccepted' || body.op === 'relayTxs' ? ` ${(body.items as { txid: string }[]).map((i) => i.txid).join(',')}` : body.op === 'txsRemoved' ? ` ${(body.txids as string[]).join(',')}` : '';
      calls.push(`${to} ${body.op}${detail}`);
    };
    // As the real Asker: the routing's hook runs before every request sent.
    let hook: (() => void) | undefined;
    const send = (body: Op) => {
      hook?.();
      record(body);
    };
    return {
      ask: async (body: Op) => {
        send(body);
        return null;
      },
      tell: send,
      onTellFailure: () => {},
      beforeSend: (h: () => void) => (hook = h),
    } as unknown as Asker;
  };
  const notified: string[] = [];
  const notifier = (kind: string) => ({ notify: (arg: string) => notified.push(`${kind} ${arg}`), close: () => {} }) as unknown as CommandNotifier;
  const make = (name: string) => createActor(serviceMachine, { input: { logic: emitter(name) } }).start();
  const chainStore = make('chainStore');
  const mempool = make('mempool');
  const miner = make('miner');
  const wallet = make('wallet');
  const pacer = createActor(pacerMachine, { input: { intervalMs: 60_000, on: false } }).start();
  const askers = { mempool: recorder('mempool'), miner: recorder('miner'), wallet: recorder('wallet'), p2p: recorder('p2p') };
  routeNotices({
    chainStore,
    mempool,
    miner,
    wallet,
    pacer,
    ask: askers as never,
    blockNotify: notifier('blocknotify'),
    walletNotify: notifier('walletnotify'),
    log: () => {},
  });
  const emit = (actor: typeof chainStore, notices: Notice[]) => actor.send({ type: 'request', reqId: 1, body: { op: 'emit', notices } });
  await settle();

  emit(chainStore, [
    { type: 'blockConnected', hash: 'h1', height: 1, block: null, txids: [] },
    { type: 'tipChanged', hash: 'h1' },
  ]);
  await settle();
  assert.deepEqual(calls.splice(0), ['mempool blockConnected', 'wallet blockConnected', 'p2p tipChanged']);
  assert.deepEqual(notified.splice(0), ['blocknotify h1']);

  emit(chainStore, [{ type: 'blockDisconnected', hash: 'h1', height: 1, block: null, txids: [] }]);
  await settle();
  assert.deepEqual(calls.splice(0), ['mempool blockDisconnected', 'wallet blockDisconnected', 'p2p tipChanged']);

  // A run of accepted transactions (several txsAccepted notices in a row: a burst reported in parts)
  // is one message to the wallet and one to p2p (the unrelayed one left out); a txsRemoved after it
  // starts the next run, and accepted ones after that the one after, every transaction in order.
  emit(mempool, [
    { type: 'txsAccepted', items: [{ txid: 'a', tx: null, raw: null }] },
    { type: 'txsAccepted', items: [{ txid: 'b', tx: null, raw: null, relay: false }, { txid: 'e', tx: null, raw: null }] },
    { type: 'txsRemoved', items: [{ txid: 'c', reason: 'block' }, { txid: 'd', reason: 'conflict' }] },
    { type: 'txsRemoved', items: [{ txid: 'h', reason: 'expired' }] },
    { type: 'txsAccepted', items: [{ txid: 'f', tx: null, raw: null }, { txid: 'g', tx: null, raw: null, relay: false }] },
    { type: 'txsRemoved', items: [{ txid: 'f', reason: 'reorg' }] },
  ]);
  await settle();
  assert.deepEqual(calls.splice(0), [
    'wallet txsAccepted a,b,e',
    'p2p txsAccepted a,e',
    'wallet txsRemoved c,d,h',
    'wallet txsAccepted f,g',
    'p2p txsAccepted f',
    'wallet txsRemoved f',
  ]);

  // A lone accept, applied in the step that brought it: its run goes out after the promise chain that
  // ends in the caller's reply (the reply is written first, the wallet's and p2p's steps after it) ...
  const emitNow = (actor: typeof chainStore, notices: Notice[]) => actor.send({ type: 'request', reqId: 2, body: { op: 'emitNow', notices } });
  emitNow(mempool, [{ type: 'txsAccepted', items: [{ txid: 'x', tx: null, raw: null }] }]);
  void Promise.resolve()
    .then(() => 0)
    .then(() => 0)
    .then(() => 0)
    .then(() => calls.push('reply written'));
  await settle();
  assert.deepEqual(calls.splice(0), ['reply written', 'wallet txsAccepted x', 'p2p txsAccepted x']);
  // ... but before anything more reaches the wallet or p2p: a request sent meanwhile (a JSON-RPC
  // batch's next call, in a microtask after the reply) forwards the run first.
  emitNow(mempool, [{ type: 'txsAccepted', items: [{ txid: 'y', tx: null, raw: null }] }]);
  void Promise.resolve().then(() => askers.wallet.ask({ op: 'balance' } as never));
  await settle();
  assert.deepEqual(calls.splice(0), ['wallet txsAccepted y', 'p2p txsAccepted y', 'wallet balance']);
  emitNow(mempool, [{ type: 'txsAccepted', items: [{ txid: 'z', tx: null, raw: null }] }]);
  askers.p2p.tell({ op: 'peerinfo' } as never);
  await settle();
  assert.deepEqual(calls.splice(0), ['wallet txsAccepted z', 'p2p txsAccepted z', 'p2p peerinfo']);

  emit(wallet, [
    { type: 'walletTx', txid: 'w' },
    { type: 'relayTxs', items: [{ txid: 'r', raw: null }] },
  ]);
  await settle();
  assert.deepEqual(notified.splice(0), ['walletnotify w']);
  assert.deepEqual(calls.splice(0), ['p2p relayTxs r']);

  // setgenerate on: the pacer ticks at once, and the tick asks the miner for a block.
  emit(miner, [{ type: 'generateChanged', on: true }]);
  await settle();
  assert.equal(pacer.getSnapshot().value, 'on');
  assert.deepEqual(calls.splice(0), ['miner generate']);
  emit(miner, [{ type: 'generateChanged', on: false }]);
  await settle();
  assert.equal(pacer.getSnapshot().value, 'off');

  for (const a of [chainStore, mempool, miner, wallet]) a.stop();
  pacer.stop();
});

test("the mempool's runs wait for more (a wallet submitting one call at a time): one message per window, forwarded early by a send to the recipient or by flush", async () => {
  const calls: string[] = [];
  const recorder = (to: string) => {
    let hook: (() => void) | undefined;
    const send = (body: Op) => {
      hook?.();
      calls.push(`${to} ${body.op}${body.op === 'txsAccepted' ? ` ${(body.items as { txid: string }[]).map((i) => i.txid).join(',')}` : ''}`);
    };
    return { ask: async (body: Op) => (send(body), null), tell: send, onTellFailure: () => {}, beforeSend: (h: () => void) => (hook = h) } as unknown as Asker;
  };
  const make = (name: string) => createActor(serviceMachine, { input: { logic: emitter(name) } }).start();
  const [chainStore, mempool, miner, wallet] = ['chainStore', 'mempool', 'miner', 'wallet'].map(make) as [ReturnType<typeof make>, ReturnType<typeof make>, ReturnType<typeof make>, ReturnType<typeof make>];
  const pacer = createActor(pacerMachine, { input: { intervalMs: 60_000, on: false } }).start();
  const askers = { mempool: recorder('mempool'), miner: recorder('miner'), wallet: recorder('wallet'), p2p: recorder('p2p') };
  // A window no test outlasts: what is forwarded below is forwarded by a send or a flush, not by the timer.
  const routed = routeNotices({ chainStore, mempool, miner, wallet, pacer, ask: askers as never, log: () => {}, runWindowMs: 600_000 });
  const accept = (txid: string) => mempool.send({ type: 'request', reqId: 2, body: { op: 'emitNow', notices: [{ type: 'txsAccepted', items: [{ txid, tx: null, raw: null }] }] } });
  await settle();

  // Lone accepts in separate turns of the event loop, each answered: one run, held.
  accept('a');
  await settle();
  accept('b');
  await settle();
  assert.deepEqual(calls, []);
  // The wallet asked anything: the run reaches it (and p2p) first, in one message each.
  await askers.wallet.ask({ op: 'balance' } as never);
  assert.deepEqual(calls.splice(0), ['wallet txsAccepted a,b', 'p2p txsAccepted a,b', 'wallet balance']);
  // The node's stop flushes what is held.
  accept('c');
  await settle();
  assert.deepEqual(calls, []);
  routed.flush();
  assert.deepEqual(calls.splice(0), ['wallet txsAccepted c', 'p2p txsAccepted c']);

  for (const a of [chainStore, mempool, miner, wallet]) a.stop();
  pacer.stop();
});
