import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { startDaemon, removeDir } from '../helpers/daemon.js';
import { startCli } from '../cli/cli-runner.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import type { InspectRecord } from '../../src/node/inspect.js';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { decodeWIF, encodeWIF } from '../../src/chain/address/wif.js';

/**
 * acnoded -inspect: a WebSocket client sees the messages between actors of a generate flow
 * (rpc → miner → chainStore → blockConnected → mempool), of a sendrawtransaction flow
 * (rpc → mempool → chainStore the first time at a tip, rpc → mempool once the mempool reads that
 * tip's coins itself), and `acnode-cli inspect` prints them as lines.
 */

interface Msg {
  type: string;
  sessionId?: string;
  _version?: string;
  snapshot?: { context?: Record<string, unknown> };
  acnode: InspectRecord;
}

class Collector {
  readonly msgs: Msg[] = [];
  private waiters: (() => void)[] = [];
  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.msgs.push(JSON.parse(String(data)) as Msg);
      for (const w of [...this.waiters]) w();
    });
  }
  /** Waits for a record matching `pred` after position `from`; returns its index. */
  waitFor(pred: (r: InspectRecord) => boolean, from = 0, ms = 20_000): Promise<number> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const i = this.msgs.findIndex((m, k) => k >= from && pred(m.acnode));
        if (i >= 0) {
          clearTimeout(t);
          this.waiters = this.waiters.filter((w) => w !== check);
          resolve(i);
        }
      };
      const t = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== check);
        reject(new Error(`no matching record within ${ms} ms; last:\n${this.msgs.slice(-30).map((m) => JSON.stringify(m.acnode)).join('\n')}`));
      }, ms);
      this.waiters.push(check);
      check();
    });
  }
}

test('acnoded -inspect streams actor messages over WebSocket; acnode-cli inspect prints them', async (t) => {
  const d = await startDaemon(['-gen=0', '-inspect']);
  t.after(async () => {
    await d.stop();
    removeDir(d.datadir);
  });
  const line = d.log.find((l) => l.includes('inspector listening on'));
  const url = /(ws:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{48})/.exec(line ?? '')?.[1];
  assert.ok(url, `inspector line in the log:\n${d.log.join('\n')}`);
  const states = await d.rpc<{ inspector: string }>('getactorstates');
  assert.equal(states.inspector, url);

  const ws = new WebSocket(url!);
  const c = new Collector(ws);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  t.after(() => ws.terminate());

  await t.test('a new client first gets the actors and the recent ring', async () => {
    // The actors arrive as separate messages: wait for each rather than for the first.
    for (const a of ['chainStore', 'mempool', 'miner', 'pacer']) await c.waitFor((r) => r.kind === 'actor' && r.actor === a);
    const actors = c.msgs.filter((m) => m.type === '@xstate.actor').map((m) => m.acnode.actor);
    for (const a of ['chainStore', 'mempool', 'miner', 'pacer']) assert.ok(actors.includes(a), a);
    // Stately's message shape, and contexts cut down to summaries (the snapshot is its own message too).
    const snap = c.msgs[await c.waitFor((r) => r.kind === 'state' && r.actor === 'chainStore')]!;
    assert.equal(snap.type, '@xstate.snapshot');
    assert.ok(snap.sessionId && snap._version);
    assert.ok(snap.snapshot?.context && 'summary' in snap.snapshot.context && !('logic' in snap.snapshot.context));
  });

  await t.test('generate: rpc → miner → chainStore → blockConnected → mempool', async () => {
    const from = c.msgs.length;
    const [hash] = await d.rpc<string[]>('generate', 1);
    const rpcCall = await c.waitFor((r) => r.kind === 'rpc' && r.type === 'generate' && r.ok === undefined, from);
    assert.equal(c.msgs[rpcCall]!.acnode.detail, '[1]');
    const minerReq = await c.waitFor((r) => r.kind === 'event' && r.actor === 'miner' && r.op === 'generate', rpcCall);
    const submit = await c.waitFor((r) => r.kind === 'event' && r.actor === 'chainStore' && r.op === 'submitBlock', minerReq);
    const submitId = c.msgs[submit]!.acnode.reqId;
    await c.waitFor((r) => r.kind === 'state' && r.actor === 'chainStore' && r.state === 'ready.working', submit);
    const reply = await c.waitFor((r) => r.kind === 'emit' && r.actor === 'chainStore' && r.type === 'reply' && r.reqId === submitId, submit);
    assert.equal(c.msgs[reply]!.acnode.ok, true);
    const connected = await c.waitFor((r) => r.kind === 'emit' && r.actor === 'chainStore' && r.type === 'blockConnected', reply);
    assert.match(c.msgs[connected]!.acnode.detail ?? '', new RegExp(`^height \\d+ ${hash}$`));
    await c.waitFor((r) => r.kind === 'event' && r.actor === 'mempool' && r.op === 'blockConnected', connected);
    await c.waitFor((r) => r.kind === 'rpc' && r.type === 'generate' && r.ok === true, minerReq);
  });

  await t.test('sendrawtransaction: rpc → mempool → chainStore (when served)', async (tt) => {
    if ((await d.rpc<string>('help', 'sendrawtransaction')).startsWith('help: unknown command')) {
      tt.skip('sendrawtransaction is not served by this build');
      return;
    }
    // A well-formed v4 transaction spending an output that does not exist: the mempool asks the
    // chain store for its inputs and refuses it.
    const tx = new Transaction();
    tx.overwintered = true;
    tx.version = 4;
    tx.versionGroupId = 0x892f2085;
    tx.expiryHeight = 1000;
    tx.vin.push(new TxIn(new Outpoint(new Uint8Array(32).fill(7), 0), new Uint8Array([0x51])));
    tx.vout.push(new TxOut(100_000n, new Uint8Array([0x76, 0xa9, 0x14, ...new Uint8Array(20).fill(1), 0x88, 0xac])));
    const from = c.msgs.length;
    const r = await d.rpcRaw('sendrawtransaction', [tx.toHex()]);
    assert.ok(r.error, 'refused');
    const call = await c.waitFor((x) => x.kind === 'rpc' && x.type === 'sendrawtransaction' && x.ok === undefined, from);
    const accept = await c.waitFor((x) => x.kind === 'event' && x.actor === 'mempool' && x.op === 'accept', call);
    const view = await c.waitFor((x) => x.kind === 'event' && x.actor === 'chainStore' && x.op === 'view', accept);
    await c.waitFor((x) => x.kind === 'emit' && x.actor === 'chainStore' && x.type === 'reply' && x.reqId === c.msgs[view]!.acnode.reqId, view);
    const refused = await c.waitFor((x) => x.kind === 'emit' && x.actor === 'mempool' && x.type === 'reply' && x.reqId === c.msgs[accept]!.acnode.reqId, view);
    assert.equal(c.msgs[refused]!.acnode.ok, false);
    const done = await c.waitFor((x) => x.kind === 'rpc' && x.type === 'sendrawtransaction' && x.ok === false, call);
    assert.match(c.msgs[done]!.acnode.detail ?? '', new RegExp(`^${r.error!.code}: `));
  });

  await t.test('sendrawtransaction accepted: rpc → mempool (coins read through its read transaction, no chainStore ask), txsAccepted → p2p (when served)', async (tt) => {
    for (const m of ['createrawtransaction', 'fundrawtransaction', 'signrawtransaction', 'getnewaddress']) {
      if ((await d.rpc<string>('help', m)).startsWith('help: unknown command')) {
        tt.skip(`${m} is not served by this build`);
        return;
      }
    }
    // Block 1 (mined above) holds the premine to the node's key.
    const addr = await d.rpc<string>('getnewaddress');
    const raw = await d.rpc<string>('createrawtransaction', [], { [addr]: 1 });
    const funded = await d.rpc<{ hex: string }>('fundrawtransaction', raw);
    const signed = await d.rpc<{ hex: string; complete: boolean }>('signrawtransaction', funded.hex);
    assert.equal(signed.complete, true);
    const from = c.msgs.length;
    const txid = await d.rpc<string>('sendrawtransaction', signed.hex);
    const call = await c.waitFor((x) => x.kind === 'rpc' && x.type === 'sendrawtransaction' && x.ok === undefined, from);
    const accept = await c.waitFor((x) => x.kind === 'event' && x.actor === 'mempool' && x.op === 'accept', call);
    const ok = await c.waitFor((x) => x.kind === 'emit' && x.actor === 'mempool' && x.type === 'reply' && x.reqId === c.msgs[accept]!.acnode.reqId, accept);
    assert.equal(c.msgs[ok]!.acnode.ok, true);
    // The refused call above asked the chain store at this tip: the mempool has the tip's part, and
    // reads this one's coins through the chain store's LMDB environment, no message (design.md, Storage).
    assert.equal(c.msgs.slice(accept, ok).some((m) => m.acnode.actor === 'chainStore' && m.acnode.op === 'view'), false, 'no view asked of the chain store');
    const accepted = await c.waitFor((x) => x.kind === 'emit' && x.actor === 'mempool' && x.type === 'txsAccepted', accept);
    assert.equal(c.msgs[accepted]!.acnode.detail, txid);
    if (c.msgs.some((m) => m.acnode.kind === 'actor' && m.acnode.actor === 'p2p')) {
      await c.waitFor((x) => x.kind === 'event' && x.actor === 'p2p' && x.op === 'txsAccepted', accepted);
    } else {
      tt.diagnostic('no p2p actor in this build: the relay step is not checked');
    }
  });

  await t.test('acnode-cli inspect mempool prints one line per message, filtered by actor', async () => {
    const cli = startCli([`-datadir=${d.datadir}`, `-rpcport=${d.rpcPort}`, 'inspect', 'mempool'], { timeoutMs: 60_000 });
    await cli.waitFor(/^inspecting ws:\/\/127\.0\.0\.1:\d+\/ \(actors: mempool\)/, 30_000, 'err');
    // The ring replays: mempool's start and its earlier blockConnected are already there.
    await cli.waitFor(/^\d\d:\d\d:\d\d\.\d{3} mempool\s+\+ started \(service\)$/m);
    await d.rpc('generate', 1);
    await cli.waitFor(/mempool\s+← request #\d+ blockConnected\n(.*\n)*.*mempool\s+= ready\.working\n(.*\n)*.*mempool\s+→ reply #\d+ ok/);
    const lines = cli.out().trimEnd().split('\n');
    for (const l of lines) assert.match(l, /^\d\d:\d\d:\d\d\.\d{3} \S+\s+[←→=+] /, l);
    assert.ok(lines.every((l) => / mempool\s/.test(l) || / from mempool/.test(l)), 'only mempool lines');
    cli.proc.kill('SIGTERM');
    const r = await cli.done;
    assert.equal(r.code, 0, r.err);
  });
});

/** One raw HTTP exchange (fetch refuses to send some headers a browser sends itself). */
function httpRaw(port: number, method: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path: '/', headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('-inspect: no secret reaches the stream; foreign Origins and tokenless clients are refused; RPC answers no CORS preflight', async (t) => {
  const dumpDir = mkdtempSync(join(tmpdir(), 'acnode-dump-'));
  const d = await startDaemon(['-gen=0', '-inspect', `-exportdir=${dumpDir}`]);
  t.after(async () => {
    await d.stop();
    removeDir(d.datadir);
    removeDir(dumpDir);
  });
  const url = /(ws:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{48})/.exec(d.log.find((l) => l.includes('inspector listening on')) ?? '')?.[1];
  assert.ok(url);
  const port = Number(new URL(url!).port);

  // Refusals: no token, a foreign Origin (with the token), each answered 403 and the Origin logged.
  for (const [target, headers] of [
    [url!.replace(/\?.*/, ''), {}],
    [url!, { Origin: 'https://evil.example' }],
  ] as const) {
    const status = await new Promise<number | 'open'>((resolve, reject) => {
      const ws = new WebSocket(target, { headers });
      ws.once('open', () => (ws.terminate(), resolve('open')));
      ws.once('unexpected-response', (_q, res) => (res.resume(), resolve(res.statusCode ?? 0)));
      ws.once('error', (e) => /Unexpected server response/.test(String(e)) || reject(e));
    });
    assert.equal(status, 403, `${target} ${JSON.stringify(headers)}`);
  }
  await d.logged(/inspector: refused a request from Origin "https:\/\/evil\.example"/);
  const page = await httpRaw(port, 'GET', { Origin: 'https://evil.example', Host: `127.0.0.1:${port}` });
  assert.equal(page.status, 403);

  // JSON-RPC: a browser's CORS preflight gets libevent's 501 and no Access-Control-Allow-Origin (as komodod).
  const preflight = await httpRaw(d.rpcPort, 'OPTIONS', { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,content-type' });
  assert.equal(preflight.status, 501);
  assert.equal(preflight.headers['access-control-allow-origin'], undefined);
  const post = await d.rpcRaw('getblockcount', []);
  assert.equal(post.status, 200);

  // Every byte the stream carries, from before the first secret until the last call is recorded.
  const ws = new WebSocket(url!);
  const c = new Collector(ws);
  const raw: string[] = [];
  ws.on('message', (m) => raw.push(String(m)));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  t.after(() => ws.terminate());

  const key = randomBytes(32);
  const wif = encodeWIF(key, true);
  const addr = await d.rpc<string>('getnewaddress');
  await d.rpc('importprivkey', wif, '', false);
  const dumped = await d.rpc<string>('dumpprivkey', addr);
  const dumpPath = join(dumpDir, 'secretdumpfile');
  assert.equal(await d.rpc('dumpwallet', 'secretdumpfile'), dumpPath);
  assert.ok(readFileSync(dumpPath, 'utf8').includes(dumped), 'the dump holds the keys');
  await d.rpcRaw('importwallet', [dumpPath]);
  await d.rpcRaw('signrawtransaction', ['00', [], [wif, dumped]]);
  await d.rpcRaw('walletpassphrase', ['correct horse battery staple', 60]);
  // tokencreate signs with the node key (the dev chain's -pubkey): the wallet signs, the key stays in it.
  await d.rpc('generate', 1);
  const created = await d.rpc<{ result: string; hex: string }>('tokencreate', 'T', '1');
  assert.equal(created.result, 'success');
  const nodeAddr = (await d.rpc<{ myaddress: string }>('tokenaddress')).myaddress;
  const nodeWif = await d.rpc<string>('dumpprivkey', nodeAddr);
  const signCC = c.msgs[await c.waitFor((r) => r.kind === 'event' && r.actor === 'wallet' && r.op === 'signCC')]!.acnode.reqId;
  await c.waitFor((r) => r.kind === 'emit' && r.actor === 'wallet' && r.type === 'reply' && r.reqId === signCC && r.ok === true);
  const from = c.msgs.length;
  await d.rpc('getblockcount');
  await c.waitFor((r) => r.kind === 'rpc' && r.type === 'getblockcount' && r.ok === true, from);

  const all = raw.join('\n');
  assert.ok(all.includes('"importprivkey"') && all.includes('"dumpwallet"') && all.includes('"signrawtransaction"'), 'the calls themselves are recorded');
  const hexKey = key.toString('hex');
  for (const [what, secret] of [
    ['the imported WIF', wif],
    ['the imported key in hex', hexKey],
    ['dumpprivkey\'s result', dumped],
    ['the dump path', 'secretdumpfile'],
    ['the passphrase', 'correct horse'],
  ] as const) {
    assert.ok(!all.includes(secret), `${what} reached the inspection stream`);
  }
  // the same with the stream's own bytes of a 32-byte key
  assert.ok(!all.includes(Buffer.from(key).reverse().toString('hex')));
  // The node key tokencreate signed with: not in the stream, nor in the log.
  const nodeKey = decodeWIF(nodeWif)!.key;
  for (const [what, secret] of [
    ['the node key\'s WIF', nodeWif],
    ['the node key in hex', Buffer.from(nodeKey).toString('hex')],
    ['the node key reversed', Buffer.from(nodeKey).reverse().toString('hex')],
  ] as const) {
    assert.ok(!all.includes(secret), `${what} reached the inspection stream`);
    assert.ok(!d.log.some((l) => l.includes(secret)), `${what} reached the log`);
  }
});
