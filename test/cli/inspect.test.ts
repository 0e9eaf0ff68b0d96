import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createActor } from 'xstate';
import WebSocket from 'ws';
import { InspectHub, actorState, sanitize, stateText, type InspectRecord } from '../../src/node/inspect.js';
import { formatRecord } from '../../src/cli/inspect-client.js';
import { serviceMachine, type ServiceLogic } from '../../src/machines/service.js';
import { pacerMachine } from '../../src/machines/pacer.js';
import { RpcTable } from '../../src/rpc/table.js';
import { RpcError } from '../../src/rpc/errors.js';
import { JsonNumber, JsonObject } from '../../src/rpc/json-value.js';
import { waitUntil } from '../helpers/wait.js';

/** A tiny service: `get` reads, `put` writes and emits a notice; its index must never reach a client. */
function logic(): ServiceLogic & { index: Map<string, string> } {
  const index = new Map<string, string>();
  return {
    name: 'kv',
    index,
    load: async () => {},
    isWrite: (b) => b.op === 'put',
    read: (b) => index.get(String(b.key)) ?? null,
    write: async (b) => {
      index.set(String(b.key), String(b.value));
      return { result: true, notices: [{ type: 'stored', height: index.size, hash: 'ab' }] };
    },
    summary: () => ({ keys: index.size }),
    close: async () => {},
  };
}

const settle = () => new Promise((r) => setTimeout(r, 20));

test('the hub records events, state changes and emitted events of root actors, by system id', async () => {
  const hub = new InspectHub({ ringSize: 1000 });
  const recs: InspectRecord[] = [];
  hub.subscribe((_m, r) => recs.push(r));
  const kv = logic();
  kv.index.set('big', 'x'.repeat(10_000));
  const actor = createActor(serviceMachine, { input: { logic: kv }, systemId: 'kv', inspect: hub.observe });
  actor.start();
  await settle();
  actor.send({ type: 'request', reqId: 41, body: { op: 'put', key: 'a', value: '1' } });
  await settle();
  assert.equal(actor.system.get('kv'), actor, 'found by its system id');
  const kinds = recs.map((r) => `${r.kind}:${r.type}${r.reqId ? `#${r.reqId}` : ''}${r.op ? `/${r.op}` : ''}${r.state ? `=${r.state}` : ''}`);
  assert.equal(kinds[0], 'actor:service');
  // Stately's actor message carries the machine definition (functions named, not run).
  const def = JSON.parse((JSON.parse(hub.recent()[0]!) as { definition: string }).definition) as { id: string; states: Record<string, unknown> };
  assert.equal(def.id, 'service');
  assert.ok(def.states.ready && def.states.loading);
  for (const k of ['event:request#41/put', 'state:request=ready.working', 'emit:reply#41', 'emit:stored', 'state:done.actor=ready.idle'])
    assert.ok(kinds.includes(k), `${k} in ${kinds.join(' ')}`);
  const stored = recs.find((r) => r.type === 'stored')!;
  assert.equal(stored.detail, 'height 2 ab');
  assert.equal(recs.find((r) => r.type === 'reply')!.ok, true);
  // Every message is JSON with Stately's fields, and no context carries the index.
  for (const m of hub.recent()) {
    assert.ok(m.length < 4000, 'small messages');
    assert.ok(!m.includes('xxxxxxxxxx'), 'no index content');
    const o = JSON.parse(m) as { type: string; acnode: InspectRecord };
    assert.match(o.type, /^@(xstate\.(actor|event|snapshot)|acnode\.(emit|rpc))$/);
  }
  const view = actorState(actor);
  assert.equal(view.state, 'ready.idle');
  assert.deepEqual(view.context, { summary: { keys: 2 }, queued: 0, inflight: 0, stopRequested: false });
  actor.stop();
});

test('the ring is bounded, announcements are kept, a throwing listener breaks nothing', async () => {
  const hub = new InspectHub({ ringSize: 5 });
  hub.subscribe(() => {
    throw new Error('listener bug');
  });
  const pacer = createActor(pacerMachine, { input: { intervalMs: 1000, on: false }, systemId: 'pacer', inspect: hub.observe });
  pacer.start();
  for (let i = 0; i < 10; i++) pacer.send({ type: i % 2 ? 'off' : 'on' });
  pacer.send({ type: 'off' });
  const recent = hub.recent();
  assert.equal(recent.length, 6); // one announcement + the last five
  assert.equal((JSON.parse(recent[0]!) as { type: string }).type, '@xstate.actor');
  assert.equal(pacer.getSnapshot().value, 'off');
  pacer.stop();
  // An observer fed garbage does not throw.
  hub.observe({ type: '@xstate.event' } as never);
});

test('sanitize: bounded strings and arrays, bytes as hex, class instances and maps named', () => {
  class Block {
    x = 1;
  }
  const out = sanitize({ s: 'a'.repeat(300), a: Array.from({ length: 30 }, (_, i) => i), b: new Uint8Array([1, 255]), blk: new Block(), m: new Map([[1, 2]]), n: 5n, deep: { a: { b: { c: { d: { e: 1 } } } } } }) as Record<string, unknown>;
  assert.match(out.s as string, /^a{200}…\(300 chars\)$/);
  assert.equal((out.a as unknown[]).length, 21);
  assert.equal((out.a as unknown[])[20], '…10 more');
  assert.equal(out.b, '01ff');
  // 32 bytes may be a private key: never rendered
  assert.equal(sanitize(new Uint8Array(32).fill(0xab)), '[32 bytes]');
  assert.equal(out.blk, '[Block]');
  assert.equal(out.m, '[Map(1)]');
  assert.equal(out.n, '5');
  assert.deepEqual(out.deep, { a: { b: { c: '[object]' } } });
  assert.equal(stateText({ ready: 'idle' }), 'ready.idle');
  assert.equal(stateText({ a: { b: 'c' }, d: 'e' }), 'a.b.c,d.e');
});

test('RPC calls are recorded with their outcome; the WebSocket endpoint replays then streams', async (t) => {
  const hub = new InspectHub();
  const table = new RpcTable(
    { chainName: 'T', rpcPort: 1 },
    hub.wrapRpcMethods([
      { name: 'echo', category: 'x', help: 'echo', handler: (p) => p[0] ?? null },
      { name: 'fail', category: 'x', help: 'fail', handler: () => { throw new RpcError(-8, 'bad\nsecond line'); } },
    ]),
  );
  const url = await hub.listen(0);
  t.after(() => hub.close());
  assert.match(url, /^ws:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{48}$/);
  // At /stately a browser gets @statelyai/inspect's bridge page pointed at this endpoint (token
  // included), and sends no Referer to stately.ai.
  const pageRes = await fetch(hub.pageUrl!.replace('/?', '/stately?'));
  assert.equal(pageRes.status, 200);
  assert.equal(pageRes.headers.get('referrer-policy'), 'no-referrer');
  const page = await pageRes.text();
  assert.ok(page.includes(`new WebSocket(${JSON.stringify(url)})`) && page.includes('https://stately.ai/inspect'));
  assert.equal(await table.execute('echo', ['hi']), 'hi');
  const ws = new WebSocket(url);
  const got: InspectRecord[] = [];
  ws.on('message', (d) => got.push((JSON.parse(String(d)) as { acnode: InspectRecord }).acnode));
  await new Promise<void>((r) => ws.once('open', () => r()));
  await assert.rejects(table.execute('fail', []), /bad/);
  // The four records reach the socket however slow the machine; then a moment for any that should not come.
  await waitUntil('four records streamed', () => got.length >= 4);
  await new Promise((r) => setTimeout(r, 100));
  ws.terminate();
  assert.deepEqual(
    got.map((r) => [r.type, r.ok, r.detail]),
    [
      ['echo', undefined, '["hi"]'],
      ['echo', true, undefined],
      ['fail', undefined, '[]'],
      ['fail', false, '-8: bad'],
    ],
  );
});

test('acnode-cli inspect line format', () => {
  const base = { seq: 1, time: Date.UTC(2026, 0, 1, 12, 34, 56, 789) };
  assert.equal(formatRecord({ ...base, kind: 'event', actor: 'chainStore', source: 'miner', type: 'request', reqId: 7, op: 'submitBlock' }), '12:34:56.789 chainStore     ← request #7 submitBlock from miner');
  assert.equal(formatRecord({ ...base, kind: 'emit', actor: 'mempool', type: 'reply', reqId: 9, ok: false, detail: '-25: Missing inputs' }), '12:34:56.789 mempool        → reply #9 failed -25: Missing inputs');
  assert.equal(formatRecord({ ...base, kind: 'state', actor: 'mempool', type: 'request', state: 'ready.working', status: 'active' }), '12:34:56.789 mempool        = ready.working');
  assert.equal(formatRecord({ ...base, kind: 'rpc', actor: 'rpc', type: 'generate', detail: '[1]' }), '12:34:56.789 rpc            ← generate [1]');
  assert.equal(formatRecord({ ...base, kind: 'rpc', actor: 'rpc', type: 'generate', ok: true }), '12:34:56.789 rpc            → generate ok');
  assert.equal(formatRecord({ ...base, kind: 'actor', actor: 'tokenRegistry', type: 'service' }), '12:34:56.789 tokenRegistry  + started (service)');
});

/** An upgrade attempt's outcome: 'open', or the HTTP status it was refused with. */
function upgrade(url: string, headers: Record<string, string> = {}): Promise<number | 'open'> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => {
      ws.terminate();
      resolve('open');
    });
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
    });
    ws.once('error', (e) => {
      if (!/Unexpected server response/.test(String(e))) reject(e);
    });
  });
}

test("the endpoint needs this start's token, refuses foreign Origins and Hosts (403), logs each refused Origin once", async (t) => {
  const logged: string[] = [];
  const hub = new InspectHub({ log: (m) => logged.push(m) });
  const url = await hub.listen(0);
  t.after(() => hub.close());
  const port = new URL(url).port;
  const bare = `ws://127.0.0.1:${port}/`;
  const page = hub.pageUrl!;
  assert.equal(await upgrade(url), 'open');
  assert.equal(await upgrade(url, { Origin: `http://127.0.0.1:${port}` }), 'open', 'our own page');
  assert.equal(await upgrade(url.replace('127.0.0.1', 'localhost')), 'open');
  // no token, a wrong token, a token of the right length but wrong
  assert.equal(await upgrade(bare), 403);
  assert.equal(await upgrade(`${bare}?token=x`), 403);
  assert.equal(await upgrade(url.replace(/token=./, (m) => m.slice(0, -1) + (m.endsWith('0') ? '1' : '0'))), 403);
  // a foreign Origin with the right token (a page that learnt it still cannot connect)
  assert.equal(await upgrade(url, { Origin: 'https://evil.example' }), 403);
  assert.equal(await upgrade(url, { Origin: 'https://evil.example' }), 403);
  assert.equal(await upgrade(url, { Origin: 'null' }), 403);
  assert.equal(await upgrade(url, { Origin: `http://127.0.0.1:${Number(port) + 1}` }), 403, 'another local port is another origin');
  // DNS rebinding: a foreign Host name resolving to loopback
  assert.equal(await upgrade(url, { Host: `evil.example:${port}` }), 403);
  // the page: the same rules
  assert.equal((await fetch(page.replace(/\?token=.*/, ''))).status, 403);
  const foreign = await fetch(page, { headers: { Origin: 'https://evil.example' } });
  assert.equal(foreign.status, 403);
  assert.equal(foreign.headers.get('access-control-allow-origin'), null);
  assert.doesNotMatch(await foreign.text(), /stately|WebSocket/);
  assert.deepEqual(
    logged.filter((l) => l.includes('refused')).map((l) => /Origin "([^"]*)"/.exec(l)?.[1]),
    ['https://evil.example', 'null', `http://127.0.0.1:${Number(port) + 1}`],
    'each refused Origin logged once',
  );
  assert.equal(hub.clients, 0, 'no refused client holds a connection');
});

test('secrets never enter the recorder: key-bearing params, WIFs anywhere, error details', async () => {
  const hub = new InspectHub();
  const seen: string[] = [];
  hub.subscribe((m) => seen.push(m));
  const wif = 'UpFCo5m9aAVj8qFLHBgpBC8WF1f8jMYAjpVCD4ceN1x7SnN6CcZq'; // the WIF of the key 0707…07 (version 188, compressed)
  const table = new RpcTable(
    { chainName: 'T', rpcPort: 1 },
    hub.wrapRpcMethods(
      ['importprivkey', 'signrawtransaction', 'walletpassphrase', 'walletpassphrasechange', 'importwallet', 'dumpwallet', 'echo'].map((name) => ({
        name,
        category: 'x',
        help: name,
        handler: (p: unknown[]) => {
          if (name === 'echo' && p[1] === 'fail') throw new RpcError(-5, `Invalid key ${String(p[0])}`);
          return null;
        },
      })),
    ),
  );
  await table.execute('importprivkey', [wif, 'label', false]);
  await table.execute('signrawtransaction', ['00', [], ['hexkey-or-wif-one', wif]]);
  await table.execute('walletpassphrase', ['correct horse battery staple', new JsonNumber('60')]);
  await table.execute('walletpassphrasechange', ['old pass phrase', 'new pass phrase']);
  await table.execute('importwallet', ['/secret/dump/path']);
  await table.execute('dumpwallet', ['/secret/out/path']);
  await table.execute('echo', [new JsonObject([['nested', [wif]]])]);
  await assert.rejects(table.execute('echo', [wif, 'fail']));
  const all = seen.join('\n');
  for (const secret of [wif, 'hexkey-or-wif-one', 'correct horse', 'old pass', 'new pass', '/secret/']) {
    assert.ok(!all.includes(secret), `${secret} reached the recorder`);
  }
  // what is not secret stays readable
  assert.ok(all.includes('label') && all.includes('[redacted]'));
  // an actor's event carrying a WIF string is redacted too
  assert.equal((sanitize({ note: `key ${wif} here` }) as { note: string }).note, 'key [redacted] here');
});
