import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createActor } from 'xstate';
import { serviceMachine, type ServiceLogic, type WriteOutcome } from '../../src/machines/service.js';
import { Asker } from '../../src/actors/ask.js';
import { actorState } from '../../src/node/inspect.js';
import { ServiceFailure, type Op } from '../../src/actors/protocol.js';

/** A ServiceLogic whose every part not given is a plain default: nothing to load or close, every request a write answered null. */
function stubLogic(name: string, parts: Partial<ServiceLogic>): ServiceLogic {
  return {
    name,
    async load() {},
    isWrite: () => true,
    read: () => null,
    async write(): Promise<WriteOutcome> {
      return { result: null };
    },
    summary: () => ({}),
    async close() {},
    ...parts,
  };
}

/** A counter service whose writes are slow, so requests pile up behind a running write. */
/** A service actor whose machine steps (the events it takes) are recorded in `steps`. */
function steppedService(logic: ServiceLogic) {
  const steps: string[] = [];
  const actor = createActor(serviceMachine, {
    input: { logic },
    inspect: (e) => {
      if (e.type === '@xstate.event' && e.actorRef === actor) steps.push((e.event as { type: string }).type);
    },
  });
  return { actor, steps };
}

function counter(): ServiceLogic & { log: string[]; closed: boolean } {
  let value = 0;
  const log: string[] = [];
  return {
    name: 'counter',
    log,
    closed: false,
    async load() {
      await new Promise((r) => setTimeout(r, 20));
    },
    isWrite: (b: Op) => b.op === 'add' || b.op === 'boom',
    read(b: Op) {
      if (b.op === 'get') return value;
      throw new ServiceFailure(-32601, `unknown op ${b.op}`);
    },
    async write(b: Op): Promise<WriteOutcome> {
      if (b.op === 'boom') throw new ServiceFailure(-8, 'boom');
      const before = value;
      await new Promise((r) => setTimeout(r, 5));
      value = before + (b.n as number);
      log.push(`add ${b.n as number}`);
      return { result: value, notices: [{ type: 'changed', value }] };
    },
    summary: () => ({ value }),
    async close() {
      this.closed = true;
    },
  };
}

test('service machine: writes apply in arrival order, reads answer at once, failures are replies', async () => {
  const logic = counter();
  const actor = createActor(serviceMachine, { input: { logic } });
  const notices: number[] = [];
  actor.on('changed', (e) => notices.push((e as unknown as { value: number }).value));
  actor.start();
  const ask = new Asker('counter', actor, 2000);
  // Sent while loading: they wait for the load.
  const writes = [1, 2, 3, 4].map((n) => ask.ask({ op: 'add', n }));
  const results = await Promise.all(writes);
  assert.deepEqual(results, [1, 3, 6, 10]);
  assert.deepEqual(logic.log, ['add 1', 'add 2', 'add 3', 'add 4']);
  assert.deepEqual(notices, [1, 3, 6, 10]);
  assert.equal(await ask.ask({ op: 'get' }), 10);
  await assert.rejects(ask.ask({ op: 'boom' }), (e: unknown) => e instanceof ServiceFailure && e.code === -8);
  await assert.rejects(ask.ask({ op: 'nope' }), (e: unknown) => e instanceof ServiceFailure && e.code === -32601);
  // The actor survived both failures.
  assert.equal(await ask.ask({ op: 'add', n: 5 }), 15);
  assert.deepEqual((actorState(actor).context as { summary: unknown }).summary, { value: 15 });
  assert.equal(ask.waiting, 0);
  actor.send({ type: 'stop' });
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(actor.getSnapshot().status, 'done');
  assert.equal(logic.closed, true);
});

test('service machine: a stop during a write lets the write finish first', async () => {
  const logic = counter();
  const actor = createActor(serviceMachine, { input: { logic } }).start();
  const ask = new Asker('counter', actor, 2000);
  await ask.ask({ op: 'get' });
  const pending = ask.ask({ op: 'add', n: 7 });
  actor.send({ type: 'stop' });
  assert.equal(await pending, 7);
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(actor.getSnapshot().status, 'done');
  await assert.rejects(ask.ask({ op: 'get' }, 50), /did not answer/);
});

test('service machine: a stop during the load waits for it (what the load writes is done when the service stops)', async () => {
  for (const fails of [false, true]) {
    let loaded = false;
    let closedAfterLoad: boolean | undefined;
    const logic: ServiceLogic = {
      ...counter(),
      async load() {
        // A load that writes as it goes (the wallet's store opening, its rescan and re-accept).
        await new Promise((r) => setTimeout(r, 40));
        loaded = true;
        if (fails) throw new Error('damaged');
      },
      async close() {
        closedAfterLoad = loaded;
      },
    };
    const actor = createActor(serviceMachine, { input: { logic } }).start();
    const ask = new Asker('counter', actor, 2000);
    const queued = ask.ask({ op: 'add', n: 1 });
    actor.send({ type: 'stop' });
    await assert.rejects(queued, (e: unknown) => e instanceof ServiceFailure && e.code === -32603, 'a request queued behind the load is refused, not applied');
    await new Promise<void>((resolve) => {
      if (actor.getSnapshot().status === 'done') return resolve();
      actor.subscribe({ complete: resolve });
    });
    assert.equal(loaded, true, `the load ran to its end before the service stopped${fails ? ' (a failed load too)' : ''}`);
    // A failed load has nothing to close (as a stop in the failed state); a finished one closes after it.
    assert.equal(closedAfterLoad, fails ? undefined : true);
  }
});

test('service machine: concurrent batchable writes reach writeBatch together; early outcomes are answered at once', async () => {
  const calls: number[] = [];
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const logic = stubLogic('batcher', {
    isWrite: (b: Op) => b.op === 'put' || b.op === 'plain',
    async write(b: Op): Promise<WriteOutcome> {
      return { result: `plain ${String(b.n)}` };
    },
    batchable: (b: Op) => b.op === 'put',
    async writeBatch(bodies, report) {
      calls.push(bodies.length);
      // The first is settled at once; the rest wait (as the mempool waits for its workers).
      report([{ ok: true, result: `put ${String(bodies[0]!.n)}` }], [{ type: 'early', n: bodies[0]!.n }]);
      await held;
      report(
        bodies.slice(1).map((b) => (b.n === 3 ? { ok: false as const, error: new ServiceFailure(-26, 'bad 3') } : { ok: true as const, result: `put ${String(b.n)}` })),
        [],
      );
    },
  });
  const actor = createActor(serviceMachine, { input: { logic } });
  const notices: unknown[] = [];
  actor.on('early', (e) => notices.push(e));
  actor.start();
  const svc = new Asker('batcher', actor);
  await svc.ask({ op: 'plain', n: 0 });
  const answered: string[] = [];
  const asks = [1, 2, 3, 4].map((n) =>
    svc.ask({ op: 'put', n }).then(
      (r) => void answered.push(String(r)),
      (e: Error) => void answered.push(`error ${e.message}`),
    ),
  );
  await asks[0];
  // The first answered while the others are still held.
  assert.deepEqual(answered, ['put 1']);
  assert.equal(notices.length, 1);
  release();
  await Promise.all(asks);
  assert.deepEqual(answered, ['put 1', 'put 2', 'error bad 3', 'put 4']);
  assert.deepEqual(calls, [4], 'the four concurrent writes were one batch');
  // A plain write after the batch still goes through write().
  assert.equal(await svc.ask({ op: 'plain', n: 5 }), 'plain 5');
  actor.stop();
});

test('service machine: a write that needs no waiting is applied in the step that brings it, and never overtakes a queued one', async () => {
  const log: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const logic = stubLogic('now', {
    isWrite: (b: Op) => b.op !== 'get',
    read: () => log.length,
    async write(b: Op): Promise<WriteOutcome> {
      if (b.op === 'slow') await held;
      log.push(`write ${String(b.n)}`);
      return { result: `write ${String(b.n)}` };
    },
    writesNow: (b: Op) => b.op === 'quick' || b.op === 'bad',
    writeNow(b: Op): WriteOutcome {
      if (b.op === 'bad') throw new ServiceFailure(-8, 'bad quick write');
      log.push(`now ${String(b.n)}`);
      return { result: `now ${String(b.n)}`, notices: [{ type: 'quick', n: b.n }] };
    },
    summary: () => ({ applied: log.length }),
  });
  const actor = createActor(serviceMachine, { input: { logic } });
  const seen: string[] = [];
  actor.on('reply', (r) => seen.push(`reply ${String((r as unknown as { result?: unknown }).result)}`));
  actor.on('quick', (e) => seen.push(`notice ${String((e as unknown as { n: number }).n)}`));
  actor.start();
  const svc = new Asker('now', actor, 2000);
  await svc.ask({ op: 'get' });
  // Idle: applied synchronously inside send(), its reply before its notice; inspection sees it at once.
  seen.length = 0;
  const first = svc.ask({ op: 'quick', n: 1 });
  assert.deepEqual(log, ['now 1']);
  assert.deepEqual(seen, ['reply now 1', 'notice 1']);
  assert.deepEqual((actorState(actor).context as { summary: unknown }).summary, { applied: 1 });
  assert.equal(await first, 'now 1');
  // Behind a running write it waits its turn (through write(), as any write).
  const slow = svc.ask({ op: 'slow', n: 2 });
  const quick = svc.ask({ op: 'quick', n: 3 });
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(log, ['now 1']);
  release();
  assert.equal(await slow, 'write 2');
  assert.equal(await quick, 'write 3');
  assert.deepEqual(log, ['now 1', 'write 2', 'write 3']);
  // A failing one is an error reply; the actor goes on.
  await assert.rejects(svc.ask({ op: 'bad' }), (e: unknown) => e instanceof ServiceFailure && e.code === -8);
  assert.equal(await svc.ask({ op: 'quick', n: 4 }), 'now 4');
  assert.equal(actor.getSnapshot().status, 'active');
  actor.stop();
});

test('Asker.askTo: the answer goes to the receiver, inside send() when the step answers it; failures and timeouts as ask() rejects', async () => {
  let release = () => {};
  const logic = stubLogic('to', {
    isWrite: (b: Op) => b.op !== 'get',
    read: () => 'read',
    writesNow: (b: Op) => b.op === 'quick' || b.op === 'bad',
    writeNow(b: Op): WriteOutcome {
      if (b.op === 'bad') throw new ServiceFailure(-26, '16: bad quick write');
      return { result: `now ${String(b.n)}` };
    },
    async write(b: Op): Promise<WriteOutcome> {
      await new Promise<void>((r) => (release = r));
      return { result: `write ${String(b.n)}` };
    },
  });
  const actor = createActor(serviceMachine, { input: { logic } }).start();
  const svc = new Asker('to', actor, 2000);
  await svc.ask({ op: 'get' });
  const got: string[] = [];
  const to = { ok: (r: unknown) => void got.push(`ok ${String(r)}`), fail: (e: ServiceFailure) => void got.push(`fail ${e.constructor.name} ${e.code} ${e.message}`) };
  // Answered in the step: delivered before askTo returns, no timer left waiting.
  svc.askTo({ op: 'quick', n: 1 }, to);
  svc.askTo({ op: 'bad' }, to);
  assert.deepEqual(got, ['ok now 1', 'fail ServiceFailure -26 16: bad quick write']);
  assert.equal(svc.waiting, 0);
  // Answered later: delivered when the reply comes.
  svc.askTo({ op: 'slow', n: 2 }, to);
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(got.length, 2);
  assert.equal(svc.waiting, 1);
  release();
  await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual(got.slice(2), ['ok write 2']);
  // Not answered in time: the receiver's failure is the timeout, and a late reply is dropped.
  svc.askTo({ op: 'slow', n: 3 }, to, 20);
  await new Promise((r) => setTimeout(r, 40));
  assert.deepEqual(got.slice(3), ['fail AskTimeout -32603 to did not answer slow within 20 ms']);
  release();
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(got.length, 4);
  assert.equal(svc.waiting, 0);
  actor.stop();
});

test('service machine: a batch its sender gathered starts at once; a lone batchable write waits a turn for company', async () => {
  const batches: string[][] = [];
  const logic = stubLogic('gather', {
    batchable: () => true,
    gathered: (b: Op) => b.op === 'many',
    async writeBatch(bodies, report) {
      batches.push(bodies.map((b) => b.op));
      report(bodies.map(() => ({ ok: true as const, result: null })), []);
    },
  });
  const actor = createActor(serviceMachine, { input: { logic } }).start();
  const svc = new Asker('gather', actor, 2000);
  await new Promise((r) => setTimeout(r, 5));
  const many = svc.ask({ op: 'many' });
  assert.deepEqual(actor.getSnapshot().value, { ready: 'working' });
  const late = svc.ask({ op: 'one' });
  await Promise.all([many, late]);
  assert.deepEqual(batches, [['many'], ['one']], 'the gathered batch did not wait for the next request');
  batches.length = 0;
  const one = svc.ask({ op: 'one' });
  assert.deepEqual(actor.getSnapshot().value, { ready: 'gathering' });
  const two = svc.ask({ op: 'one' });
  await Promise.all([one, two]);
  assert.deepEqual(batches, [['one', 'one']]);
  actor.stop();
});

test('service machine: a told request (Asker.tell) is applied in order with asked ones; only its failure is emitted, to onTellFailure', async () => {
  const logic = counter();
  const actor = createActor(serviceMachine, { input: { logic } });
  const replies: number[] = [];
  actor.on('reply', (r) => replies.push((r as unknown as { reqId: number }).reqId));
  actor.start();
  const ask = new Asker('counter', actor, 2000);
  const failures: string[] = [];
  ask.onTellFailure((e) => failures.push(`${e.code} ${e.message}`));
  ask.tell({ op: 'add', n: 1 });
  ask.tell({ op: 'boom' });
  ask.tell({ op: 'add', n: 2 });
  assert.equal(await ask.ask({ op: 'add', n: 3 }), 6);
  assert.deepEqual(logic.log, ['add 1', 'add 2', 'add 3']);
  assert.deepEqual(failures, ['-8 boom']);
  // One reply for the failed told request (id 0), one for the asked one: none for the told successes.
  assert.equal(replies.length, 2);
  assert.deepEqual(replies.filter((id) => id === 0).length, 1);
  assert.equal(ask.waiting, 0);
  actor.stop();
});

test('service machine: what a batch settles before its writeBatch returns goes out with the drain (no settled step); what it settles later, at once', async () => {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const logic = stubLogic('merger', {
    batchable: () => true,
    gathered: () => true,
    async writeBatch(bodies, report) {
      // 'now': settled before returning (a lone accept verified at once); 'later': after a wait.
      if (bodies[0]!.op === 'now') return report([{ ok: true, result: 'now' }], [{ type: 'note', n: 1 }]);
      await held;
      report([{ ok: true, result: 'later' }], []);
    },
  });
  const { actor, steps } = steppedService(logic);
  const order: string[] = [];
  actor.on('reply', (r) => order.push(`reply ${String((r as unknown as { result?: unknown }).result)}`));
  actor.on('note', () => order.push('note'));
  actor.start();
  const svc = new Asker('merger', actor, 2000);
  await new Promise((r) => setImmediate(r));
  steps.length = 0;
  assert.equal(await svc.ask({ op: 'now' }), 'now');
  assert.deepEqual(order, ['reply now', 'note']);
  assert.deepEqual(steps, ['request', 'drained'], 'one machine step brought the answer');
  // A writeBatch that is still running when it settles: the answer goes out without waiting for it.
  const later = svc.ask({ op: 'wait' });
  await new Promise((r) => setTimeout(r, 20));
  release();
  assert.equal(await later, 'later');
  actor.stop();
});

test('service machine: a gathered batch that needs no waiting is taken in the step that brings it (no working state, no drained step), its answer a settled step', async () => {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const taken: string[] = [];
  const logic = stubLogic('poster', {
    isWrite: (b: Op) => b.op !== 'get',
    read: () => taken.length,
    async write(b: Op): Promise<WriteOutcome> {
      taken.push(`write ${b.op}`);
      return { result: `write ${b.op}` };
    },
    batchable: (b: Op) => b.op !== 'plain' && b.op !== 'get',
    gathered: () => true,
    async writeBatch(bodies, report) {
      taken.push(`batch ${bodies.map((b) => b.op).join(',')}`);
      report(bodies.map((b) => ({ ok: true as const, result: `batch ${b.op}` })), []);
    },
    postsNow: (b: Op) => b.op === 'post' || b.op === 'throws',
    postNow(b: Op, report) {
      if (b.op === 'throws') throw new ServiceFailure(-8, 'refused at once');
      taken.push(`post ${String(b.n)}`);
      void held.then(() => report([{ ok: true, result: `posted ${String(b.n)}` }], [{ type: 'note', n: b.n }]));
    },
  });
  const { actor, steps } = steppedService(logic);
  const order: string[] = [];
  actor.on('reply', (r) => order.push(`reply ${String((r as unknown as { result?: unknown }).result)}`));
  actor.on('note', (e) => order.push(`note ${String((e as unknown as { n: number }).n)}`));
  actor.start();
  const svc = new Asker('poster', actor, 2000);
  await svc.ask({ op: 'get' });
  steps.length = 0;
  order.length = 0;
  // Taken inside send(): the machine stays idle, free to take the next one at once.
  const first = svc.ask({ op: 'post', n: 1 });
  assert.deepEqual(taken, ['post 1']);
  assert.deepEqual(actor.getSnapshot().value, { ready: 'idle' });
  const second = svc.ask({ op: 'post', n: 2 });
  assert.deepEqual(taken, ['post 1', 'post 2']);
  // A plain write meanwhile goes through the writer (the logic orders it after what it took).
  const plain = svc.ask({ op: 'plain' });
  assert.deepEqual(actor.getSnapshot().value, { ready: 'working' });
  assert.equal(await plain, 'write plain');
  release();
  assert.deepEqual(await Promise.all([first, second]), ['posted 1', 'posted 2']);
  assert.deepEqual(order, ['reply write plain', 'reply posted 1', 'note 1', 'reply posted 2', 'note 2']);
  assert.deepEqual(steps, ['request', 'request', 'request', 'drained', 'settled', 'settled'], 'a posted batch: its request, then its settled; no drained');
  // One that postsNow declines takes the writer's way (working, drained), as before.
  steps.length = 0;
  assert.equal(await svc.ask({ op: 'batch' }), 'batch batch');
  assert.deepEqual(steps, ['request', 'drained']);
  // A postNow that throws is its caller's error; the actor goes on.
  await assert.rejects(svc.ask({ op: 'throws' }), (e: unknown) => e instanceof ServiceFailure && e.code === -8 && e.message === 'refused at once');
  assert.equal(actor.getSnapshot().status, 'active');
  assert.equal(await svc.ask({ op: 'plain' }), 'write plain');
  actor.stop();
});

test('Asker: a request answered in the step that received it arms no timer; one answered later keeps its timeout', async (t) => {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const logic = stubLogic('timers', {
    isWrite: (b: Op) => b.op !== 'get',
    read: () => 'read',
    async write(b: Op): Promise<WriteOutcome> {
      if (b.op === 'never') await new Promise(() => {});
      await held;
      return { result: 'written' };
    },
    writesNow: (b: Op) => b.op === 'quick',
    writeNow: () => ({ result: 'now' }),
  });
  const actor = createActor(serviceMachine, { input: { logic } }).start();
  const svc = new Asker('timers', actor, 2000);
  await svc.ask({ op: 'get' });
  const timers = t.mock.method(globalThis, 'setTimeout');
  // Answered inside send(): nothing armed, nothing left pending.
  assert.equal(await svc.ask({ op: 'get' }), 'read');
  assert.equal(await svc.ask({ op: 'quick' }), 'now');
  assert.equal(timers.mock.callCount(), 0);
  assert.equal(svc.waiting, 0);
  // Answered later: its timer is armed, and cleared by the answer.
  const later = svc.ask({ op: 'slow' });
  assert.equal(timers.mock.callCount(), 1);
  assert.equal(svc.waiting, 1);
  release();
  assert.equal(await later, 'written');
  assert.equal(svc.waiting, 0);
  timers.mock.restore();
  // Never answered: the timeout still fails it.
  await assert.rejects(svc.ask({ op: 'never' }, 30), /did not answer never within 30 ms/);
  assert.equal(svc.waiting, 0);
  actor.stop();
});
