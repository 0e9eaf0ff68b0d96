import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import WebSocket from 'ws';
import { startDaemon, removeDir, type Daemon } from '../helpers/daemon.js';
import { EXPLORER_METHODS } from '../../src/node/explorer/data.js';

/**
 * The local explorer page follows the inspection endpoint's rules: only with -inspect or -explorer,
 * only with this start's token, never to a foreign Origin or Host; its data endpoint reaches the
 * node's read-only methods only, and answers exactly as the JSON-RPC does.
 */

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function http(port: number, path: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: opts.method ?? 'GET', headers: opts.headers ?? {} }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** The page URL the daemon logs once its methods are attached. */
async function pageUrl(d: Daemon): Promise<URL> {
  const end = Date.now() + 30_000;
  for (;;) {
    const m = /explorer page at (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{48})/.exec(d.log.join('\n'));
    if (m) return new URL(m[1]!);
    if (Date.now() > end) throw new Error(`no explorer line:\n${d.log.join('\n')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function api(port: number, base: string, method: string, params: unknown[], headers: Record<string, string> = {}): Promise<Reply> {
  return http(port, `${base}api`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify({ method, params }) });
}

function wsStatus(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => {
      ws.terminate();
      resolve(101);
    });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('error', () => resolve(-1));
  });
}

test('explorer page with -inspect: token, Origin and Host checked on page, files and data; read-only methods only', async (t) => {
  const d = await startDaemon(['-gen=0', '-inspect']);
  t.after(async () => {
    await d.stop();
    removeDir(d.datadir);
  });
  const url = await pageUrl(d);
  const port = Number(url.port);
  const token = url.searchParams.get('token')!;
  const base = `/t/${token}/`;

  // The logged URL leads to the page, which loads only from its own origin.
  const first = await http(port, `/?token=${token}`);
  assert.equal(first.status, 302);
  assert.equal(first.headers.location, base);
  const page = await http(port, base, { headers: { Origin: `http://127.0.0.1:${port}` } });
  assert.equal(page.status, 200);
  assert.match(String(page.headers['content-security-policy']), /^default-src 'self'/);
  assert.equal(page.headers['referrer-policy'], 'no-referrer');
  assert.match(page.body, /<script type="module" src="app.js"><\/script>/);
  assert.doesNotMatch(page.body, /https?:\/\/|<style|<script>/, 'no remote URL, no inline script or style');
  for (const f of ['app.js', 'style.css', 'vendor/preact.js', 'vendor/htm.js', 'vendor/uplot.js', 'vendor/dagre.js']) {
    const r = await http(port, base + f);
    assert.equal(r.status, 200, f);
    assert.match(String(r.headers['content-security-policy']), /^default-src 'self'/, f);
  }
  // Nothing else is served: not node_modules at large, not the node's sources.
  for (const f of ['vendor/ws.js', 'vendor/%2e%2e/preact.js', '..%2fpackage.json', 'routes.ts', 'data.ts']) {
    assert.equal((await http(port, base + f)).status, 404, f);
  }
  // A path climbing out of /t/<token>/ leaves the token behind.
  assert.equal((await http(port, `${base}vendor/../../package.json`)).status, 403);

  // The data endpoint answers as the JSON-RPC does, with the same handler.
  const rpcInfo = await d.rpc<Record<string, unknown>>('getblockchaininfo');
  const viaPage = JSON.parse((await api(port, base, 'getblockchaininfo', [])).body) as { result: Record<string, unknown>; error: null };
  assert.equal(viaPage.error, null);
  assert.deepEqual({ ...viaPage.result, verificationprogress: 0 }, { ...rpcInfo, verificationprogress: 0 });
  const bad = JSON.parse((await api(port, base, 'getblockhash', [99999])).body) as { error: { code: number; message: string } };
  assert.deepEqual(bad.error, { code: -8, message: 'Block height out of range' });
  // Wallet and secret-bearing methods are not in the page's table at all.
  for (const m of ['dumpprivkey', 'dumpwallet', 'getbalance', 'getnewaddress', 'sendtoaddress', 'tokencreate', 'generate', 'stop', 'importprivkey']) {
    const r = JSON.parse((await api(port, base, m, [])).body) as { result: unknown; error: { code: number } };
    assert.equal(r.result, null, m);
    assert.equal(r.error.code, -32601, m);
  }
  // Every method the page names is one of the node's.
  for (const m of EXPLORER_METHODS) {
    const r = JSON.parse((await api(port, base, m, [])).body) as { error: { code: number } | null };
    assert.notEqual(r.error?.code, -32601, m);
  }
  assert.equal((await http(port, base + 'api')).status, 405);

  // Without the token, with a wrong one, from a foreign Origin or to a foreign Host: 403, everywhere.
  const wrong = `/t/${'0'.repeat(48)}/`;
  for (const [path, headers] of [
    ['/', {}],
    [`${wrong}`, {}],
    [`${wrong}app.js`, {}],
    [`${base}`, { Origin: 'http://evil.example' }],
    [`${base}app.js`, { Origin: 'http://evil.example' }],
    [`${base}vendor/preact.js`, { Origin: 'null' }],
    [`${base}`, { Host: 'evil.example' }],
    [`${base}`, { Host: `rebind.example:${port}` }],
    [`/stately`, {}],
  ] as [string, Record<string, string>][]) {
    assert.equal((await http(port, path, { headers })).status, 403, `${path} ${JSON.stringify(headers)}`);
  }
  assert.equal((await api(port, wrong, 'getblockcount', [])).status, 403);
  assert.equal((await api(port, base, 'getblockcount', [], { Origin: 'http://evil.example' })).status, 403);
  assert.equal(await wsStatus(`ws://127.0.0.1:${port}/?token=${token}`, { Origin: 'http://evil.example' }), 403);
  assert.equal(await wsStatus(`ws://127.0.0.1:${port}/`, {}), 403);
  assert.equal(await wsStatus(`ws://127.0.0.1:${port}/?token=${token}`, { Origin: `http://127.0.0.1:${port}` }), 101);

  // Stately's bridge moved to its own path; the local page never loads it.
  const bridge = await http(port, `/stately?token=${token}`);
  assert.equal(bridge.status, 200);
  assert.match(bridge.body, /https:\/\/stately\.ai\/inspect/);
});

test('-explorer serves the page without the actor stream; without either flag nothing is served', async (t) => {
  const d = await startDaemon(['-gen=0', '-explorer']);
  t.after(async () => {
    await d.stop();
    removeDir(d.datadir);
  });
  const url = await pageUrl(d);
  const port = Number(url.port);
  const token = url.searchParams.get('token')!;
  assert.ok(!d.log.some((l) => l.includes('inspector listening')), 'no stream announced');
  assert.equal((await http(port, `/t/${token}/`)).status, 200);
  assert.equal(JSON.parse((await http(port, `/t/${token}/mode.json`)).body).stream, false);
  const count = JSON.parse((await api(port, `/t/${token}/`, 'getblockcount', [])).body) as { result: number };
  assert.equal(count.result, await d.rpc('getblockcount'));
  assert.equal(await wsStatus(`ws://127.0.0.1:${port}/?token=${token}`, {}), 403);
  assert.equal((await http(port, `/stately?token=${token}`)).status, 404);
  assert.equal((await http(port, `/t/${token}/`, { headers: { Origin: 'http://evil.example' } })).status, 403);

  const plain = await startDaemon(['-gen=0']);
  t.after(async () => {
    await plain.stop();
    removeDir(plain.datadir);
  });
  await new Promise((r) => setTimeout(r, 300));
  assert.ok(!plain.log.some((l) => /explorer page|inspector listening/.test(l)), plain.log.join('\n'));
  assert.equal(((await plain.rpc('getactorstates')) as { inspector: unknown }).inspector, null);
});
