import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createActor } from 'xstate';
import { serviceMachine, type ServiceLogic, type WriteOutcome } from '../../src/machines/service.js';
import { Asker } from '../../src/actors/ask.js';
import { ServiceFailure, type Op } from '../../src/actors/protocol.js';

/** A counter service whose writes are slow, so requests pile up behind a running write. */
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
  assert.deepEqual(actor.getSnapshot().context.summary, { value: 15 });
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
