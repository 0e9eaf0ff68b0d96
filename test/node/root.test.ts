import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createActor } from 'xstate';
import type { ServiceLogic } from '../../src/machines/service.js';
import { nodeMachine, serviceRef, pacerRef, SERVICE_IDS, type NodeSystem, type ServiceId } from '../../src/node/root.js';
import { InspectHub, type InspectRecord } from '../../src/node/inspect.js';

/** A service that records when it loads and closes; its close takes a few turns (a store flushing). */
function fakeService(name: string, events: string[], opts: { failLoad?: boolean } = {}): ServiceLogic {
  return {
    name,
    load: async () => {
      if (opts.failLoad) throw new Error(`${name} cannot load`);
    },
    isWrite: () => false,
    read: () => name,
    write: async () => ({ result: null }),
    summary: () => ({ name }),
    close: async () => {
      events.push(`close ${name}`);
      await new Promise((r) => setTimeout(r, 5));
      events.push(`closed ${name}`);
    },
  };
}

function makers(events: string[], seen: Partial<Record<ServiceId, string[]>>, failing?: ServiceId) {
  const make = (id: ServiceId) => (system: NodeSystem) => {
    // What a maker finds by system id: the services spawned before it.
    seen[id] = SERVICE_IDS.filter((other) => system.get(other) !== undefined);
    return fakeService(id, events, { failLoad: id === failing });
  };
  return Object.fromEntries(SERVICE_IDS.map((id) => [id, make(id)])) as Record<ServiceId, (system: NodeSystem) => ServiceLogic>;
}

const settle = () => new Promise((r) => setTimeout(r, 20));

function whenDone(actor: { getSnapshot(): { status: string }; subscribe(o: { complete?: () => void; error?: () => void }): unknown }): Promise<void> {
  return new Promise((resolve) => {
    if (actor.getSnapshot().status !== 'active') return resolve();
    actor.subscribe({ complete: () => resolve(), error: () => resolve() });
  });
}

test('the root spawns the services in order, each found by its system id, and stops them in order after quieting the node', async () => {
  const events: string[] = [];
  const seen: Partial<Record<ServiceId, string[]>> = {};
  const root = createActor(nodeMachine, {
    input: {
      services: makers(events, seen),
      pacerIntervalMs: 1000,
      quiesce: async () => {
        events.push('quiesce');
        await settle();
        events.push('quiet');
      },
    },
  });
  // Each maker sees exactly the services spawned before it.
  SERVICE_IDS.forEach((id, i) => assert.deepEqual(seen[id], SERVICE_IDS.slice(0, i), id));
  root.start();
  await settle();
  for (const id of SERVICE_IDS) assert.ok(serviceRef(root.system, id).getSnapshot().matches('ready'), id);
  const pacer = pacerRef(root.system);
  assert.equal(pacer.getSnapshot().status, 'active');
  root.send({ type: 'stop' });
  await whenDone(root);
  assert.equal(pacer.getSnapshot().status, 'stopped');
  // Each service closes only once the one before it has closed (its store flushed), the chain store last.
  assert.deepEqual(events, [
    'quiesce',
    'quiet',
    ...['p2p', 'miner', 'tokenRegistry', 'wallet', 'mempool', 'chainStore'].flatMap((id) => [`close ${id}`, `closed ${id}`]),
  ]);
  assert.equal(root.getSnapshot().value, 'stopped');
});

test('a service that failed leaves the node running, and the stop goes on past it', async () => {
  const events: string[] = [];
  const root = createActor(nodeMachine, { input: { services: makers(events, {}, 'wallet'), pacerIntervalMs: 1000, quiesce: async () => {} } });
  root.start();
  await settle();
  assert.equal(root.getSnapshot().status, 'active');
  assert.equal(serviceRef(root.system, 'wallet').getSnapshot().value, 'failed');
  assert.ok(serviceRef(root.system, 'mempool').getSnapshot().matches('ready'));
  root.send({ type: 'stop' });
  await whenDone(root);
  // A failed service has nothing to close; the others close in order.
  assert.deepEqual(events, ['p2p', 'miner', 'tokenRegistry', 'mempool', 'chainStore'].flatMap((id) => [`close ${id}`, `closed ${id}`]));
});

test('the inspector sees the tree: the root, then each service announced with the root as its parent', async () => {
  const hub = new InspectHub();
  const root = createActor(nodeMachine, { systemId: 'node', inspect: hub.observe, input: { services: makers([], {}), pacerIntervalMs: 1000, quiesce: async () => {} } });
  const recs: InspectRecord[] = [];
  hub.subscribe((_m, r) => recs.push(r));
  root.start();
  await settle();
  const announced = hub.recent().map((m) => JSON.parse(m) as { type: string; name?: string; parentId?: string; rootId?: string; acnode: InspectRecord }).filter((m) => m.type === '@xstate.actor');
  assert.deepEqual(announced.map((m) => m.name), ['node', ...SERVICE_IDS, 'pacer']);
  for (const m of announced.slice(1)) {
    assert.equal(m.parentId, root.sessionId, m.name);
    assert.equal(m.rootId, root.sessionId, m.name);
  }
  // A service's own steps (its load, its writer) are not announced; its state changes are, by name.
  assert.ok(recs.some((r) => r.kind === 'state' && r.actor === 'chainStore' && r.state === 'ready.idle'));
  root.send({ type: 'stop' });
  await whenDone(root);
});
