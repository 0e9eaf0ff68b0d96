import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import { createRpcServer, MAX_BODY_SIZE, type RpcServer } from '../../src/rpc/server.js';
import { helpMethod, helpExampleCli, helpExampleRpc, type RpcMethod } from '../../src/rpc/table.js';
import { RpcError } from '../../src/rpc/errors.js';
import { Amount, JsonNumber, type JsonValue } from '../../src/rpc/json-value.js';
import { amountFromValue, valueFromAmount } from '../../src/rpc/amount.js';
import { Subnet, parseAddress } from '../../src/chain/p2p/subnet.js';
import { waitUntil } from '../helpers/wait.js';

/**
 * The transport over real HTTP on 127.0.0.1, against komodod's rules (reference/rawtx.md §1, httprpc.cpp,
 * httpserver.cpp, libevent 2.1.12 http.c). A small method table stands in for the node's methods.
 */

const USER = 'user';
const PASS = 'pass word:with colon';
const AUTH = 'Basic ' + Buffer.from(`${USER}:${PASS}`).toString('base64');
const LIBEVENT_CT = 'text/html; charset=ISO-8859-1';

const seen: JsonValue[][] = [];
/** The release of each `slow` call whose handler runs, in the order they started. */
const slowReleases: (() => void)[] = [];

const methods: RpcMethod[] = [
  helpMethod,
  {
    name: 'echo',
    category: 'test',
    help: 'echo ...\n\nReturns its params.',
    handler: (p) => {
      seen.push(p);
      return p;
    },
  },
  {
    name: 'getamount',
    category: 'test',
    help: (e) => `getamount "value"\n\nParses an amount.\n\nExamples:\n${helpExampleCli(e, 'getamount', '1')}${helpExampleRpc(e, 'getamount', '1')}`,
    minArgs: 1,
    maxArgs: 1,
    handler: (p) => ({ sats: amountFromValue(p[0]!, 21_000_000n * 100_000_000n), value: valueFromAmount(amountFromValue(p[0]!, 21_000_000n * 100_000_000n)) }),
  },
  {
    name: 'fail',
    category: 'test',
    help: 'fail code',
    handler: (p) => {
      const code = Number((p[0] as JsonNumber | undefined)?.text ?? '0');
      if (code) throw new RpcError(code, `failed with ${code}`);
      const e = new Error('plain failure');
      e.stack = 'SECRET STACK';
      throw e;
    },
  },
  { name: 'nan', category: 'test', help: 'nan', handler: () => ({ x: NaN }) },
  {
    name: 'slow',
    category: 'test',
    help: 'slow',
    handler: () => new Promise((resolve) => { slowReleases.push(() => resolve('done')); }),
  },
  { name: 'stop', category: 'control', help: 'stop\n\nStop Komodo server.', maxArgs: 1, handler: () => 'TESTAC server stopping' },
];

let server: RpcServer;
const logs: string[] = [];

before(async () => {
  server = await createRpcServer({
    methods,
    env: { chainName: 'TESTAC', rpcPort: 27486 },
    auth: { user: USER, password: PASS },
    port: 0,
    workQueue: 1,
    threads: 1,
    log: (l) => logs.push(l),
  });
});

after(async () => {
  await server.close();
});

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  reused: boolean;
}

function send(
  opts: { method?: string; path?: string; headers?: Record<string, string | number>; body?: string | Buffer; agent?: http.Agent; host?: string; port?: number } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: opts.host ?? '127.0.0.1',
        port: opts.port ?? server.port,
        method: opts.method ?? 'POST',
        path: opts.path ?? '/',
        // Node's client frames a GET body only when told its length
        headers:
          opts.body !== undefined && !opts.headers?.['Transfer-Encoding']
            ? { 'Content-Length': Buffer.byteLength(opts.body), ...opts.headers }
            : (opts.headers ?? {}),
        agent: opts.agent ?? false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), reused: req.reusedSocket }),
        );
      },
    );
    req.on('error', reject);
    if (opts.body !== undefined) req.end(opts.body);
    else req.end();
  });
}

/** The mission's request: curl --user u:p --data-binary '...' -H 'content-type: text/plain;' http://127.0.0.1:PORT/ */
function curl(body: string): Promise<Reply> {
  return send({
    headers: {
      Host: `127.0.0.1:${server.port}`,
      Authorization: AUTH,
      'User-Agent': 'curl/8.5.0',
      Accept: '*/*',
      'content-type': 'text/plain;',
      'Content-Length': Buffer.byteLength(body),
    },
    body,
  });
}

function rpc(body: string | Buffer, headers: Record<string, string | number> = {}): Promise<Reply> {
  return send({ headers: { Authorization: AUTH, ...headers }, body });
}

/**
 * A raw HTTP exchange, for requests Node's client will not send: what the server sent until it closed
 * the connection, or until 500 ms passed without more once it had answered (30 s without an answer).
 */
function raw(text: string | Buffer, port = server.port): Promise<string> {
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    const s = net.connect(port, '127.0.0.1', () => s.write(text));
    let quiet = setTimeout(() => s.end(), 30_000);
    s.on('data', (d) => {
      out.push(d);
      clearTimeout(quiet);
      quiet = setTimeout(() => s.end(), 500);
    });
    s.on('error', () => {});
    s.on('close', () => {
      clearTimeout(quiet);
      resolve(Buffer.concat(out).toString('latin1'));
    });
  });
}

test("the mission's curl request: 200, compact envelope + newline, application/json", async () => {
  const r = await curl('{"jsonrpc":"1.0","id":"curltest","method":"echo","params":["abc",1,true]}');
  assert.equal(r.status, 200);
  assert.equal(r.headers['content-type'], 'application/json');
  assert.equal(r.body, '{"result":["abc",1,true],"error":null,"id":"curltest"}\n');
  assert.equal(r.headers['content-length'], String(Buffer.byteLength(r.body)));
});

test('check order of httpserver.cpp/httprpc.cpp: 404 before 405, 405 before 401, 401 before the body', async () => {
  // URI must be exactly "/": 404 with an empty body, whatever the method or credentials
  for (const path of ['/wallet/x', '/?a=b', '//', '/x']) {
    for (const method of ['POST', 'GET']) {
      const r = await send({ method, path, headers: { Authorization: AUTH }, body: '{}' });
      assert.equal(r.status, 404, `${method} ${path}`);
      assert.equal(r.body, '');
      assert.equal(r.headers['content-type'], LIBEVENT_CT);
    }
  }
  // a fragment is part of the URI libevent compares
  assert.match(await raw('POST /#x HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'), /^HTTP\/1\.1 404 /);
  // DELETE passes libevent but komodod does not know it: 405 with an empty body, before the 404 check
  for (const path of ['/', '/x']) {
    const d = await send({ method: 'DELETE', path });
    assert.equal(d.status, 405);
    assert.equal(d.body, '');
  }
  // GET/PUT on "/": 405 with komodod's text, before authentication
  for (const method of ['GET', 'PUT']) {
    const r = await send({ method });
    assert.equal(r.status, 405, method);
    assert.equal(r.body, 'JSONRPC server handles only POST requests');
    assert.equal(r.headers['content-type'], LIBEVENT_CT);
  }
  const head = await send({ method: 'HEAD' });
  assert.equal(head.status, 405);
  assert.equal(head.body, '');
  // other methods never reach komodod: libevent answers 501 with its page
  for (const method of ['OPTIONS', 'PATCH', 'TRACE']) {
    const r = await send({ method, path: '/x' });
    assert.equal(r.status, 501, method);
    assert.equal(r.body, '<HTML><HEAD>\n<TITLE>501 Not Implemented</TITLE>\n</HEAD><BODY>\n<H1>Not Implemented</H1>\n</BODY></HTML>\n');
    assert.equal(r.headers['content-type'], 'text/html');
  }
  assert.match(await raw('FOO / HTTP/1.1\r\nHost: a\r\n\r\n'), /^HTTP\/1\.1 501 Not Implemented\r\n/);
  assert.match(await raw('CONNECT a:1 HTTP/1.1\r\nHost: a\r\n\r\n'), /^HTTP\/1\.1 501 Not Implemented\r\n/);
  assert.match(await raw('garbage\r\n\r\n'), /^HTTP\/1\.1 400 Bad Request\r\n/);
});

test('authentication: 401 with WWW-Authenticate; a wrong password waits 250 ms; lenient base64 as komodod', async () => {
  const none = await send({ body: '{"method":"echo"}' });
  assert.equal(none.status, 401);
  assert.equal(none.body, '');
  assert.equal(none.headers['www-authenticate'], 'Basic realm="jsonrpc"');
  for (const header of [
    'Basic ' + Buffer.from(`${USER}:wrong`).toString('base64'),
    'basic ' + Buffer.from(`${USER}:${PASS}`).toString('base64'),
    'Basic',
    'Bearer x',
  ]) {
    const t0 = Date.now();
    const r = await send({ headers: { Authorization: header }, body: '{"method":"echo"}' });
    assert.equal(r.status, 401, header);
    assert.equal(r.headers['www-authenticate'], 'Basic realm="jsonrpc"');
    assert.ok(Date.now() - t0 >= 240, `waited ${Date.now() - t0} ms`);
  }
  assert.ok(logs.some((l) => l.startsWith('ThreadRPCServer incorrect password attempt from ')));
  // DecodeBase64 stops at the first bad character: trailing garbage after the credentials still passes
  const lenient = await send({ headers: { Authorization: AUTH + '!garbage' }, body: '{"method":"echo","id":1}' });
  assert.equal(lenient.status, 200);
});

test('bodies: text/plain;, application/json, no content type, odd charsets and encodings are all just bytes', async () => {
  const body = '{"method":"echo","params":["é"],"id":7}';
  const want = '{"result":["é"],"error":null,"id":7}\n';
  const variants: Record<string, string>[] = [
    { 'content-type': 'text/plain;' },
    { 'content-type': 'application/json' },
    {},
    { 'content-type': 'application/x-www-form-urlencoded' },
    { 'content-type': 'text/plain; charset=koi8-r' },
    { 'content-encoding': 'gzip' },
  ];
  for (const headers of variants) {
    const r = await rpc(body, headers);
    assert.equal(r.status, 200, JSON.stringify(headers));
    assert.equal(r.body, want);
  }
  // chunked request bodies are read too
  const chunked = await rpc(body, { 'Transfer-Encoding': 'chunked' });
  assert.equal(chunked.body, want);
});

test('envelope errors: codes, messages, HTTP status, id echoed when known', async () => {
  const cases: [string, number, string][] = [
    ['', 500, '{"result":null,"error":{"code":-32700,"message":"Parse error"},"id":null}\n'],
    ['{', 500, '{"result":null,"error":{"code":-32700,"message":"Parse error"},"id":null}\n'],
    ['{"method":"echo"} x', 500, '{"result":null,"error":{"code":-32700,"message":"Parse error"},"id":null}\n'],
    ['1', 500, '{"result":null,"error":{"code":-32700,"message":"Top-level object parse error"},"id":null}\n'],
    ['"str"', 500, '{"result":null,"error":{"code":-32700,"message":"Top-level object parse error"},"id":null}\n'],
    ['null', 500, '{"result":null,"error":{"code":-32700,"message":"Top-level object parse error"},"id":null}\n'],
    ['{"id":5}', 400, '{"result":null,"error":{"code":-32600,"message":"Missing method"},"id":5}\n'],
    ['{"id":5,"method":null}', 400, '{"result":null,"error":{"code":-32600,"message":"Missing method"},"id":5}\n'],
    ['{"id":"a","method":1}', 400, '{"result":null,"error":{"code":-32600,"message":"Method must be a string"},"id":"a"}\n'],
    ['{"id":1,"method":"echo","params":{"a":1}}', 400, '{"result":null,"error":{"code":-32600,"message":"Params must be an array"},"id":1}\n'],
    ['{"id":1,"method":"echo","params":"x"}', 400, '{"result":null,"error":{"code":-32600,"message":"Params must be an array"},"id":1}\n'],
    ['{"id":1,"method":"nosuch"}', 404, '{"result":null,"error":{"code":-32601,"message":"Method not found"},"id":1}\n'],
    ['{"id":1,"method":"fail","params":[-8]}', 500, '{"result":null,"error":{"code":-8,"message":"failed with -8"},"id":1}\n'],
    ['{"id":1,"method":"fail","params":[-32600]}', 400, '{"result":null,"error":{"code":-32600,"message":"failed with -32600"},"id":1}\n'],
    ['{"id":1,"method":"fail"}', 500, '{"result":null,"error":{"code":-1,"message":"plain failure"},"id":1}\n'],
    ['{"id":1,"method":"nan"}', 500, '{"result":null,"error":{"code":-1,"message":"cannot write a non-finite number as JSON"},"id":1}\n'],
    ['{"id":1,"method":"getamount","params":[true]}', 500, '{"result":null,"error":{"code":-3,"message":"Amount is not a number or string"},"id":1}\n'],
    // params null means no params; jsonrpc/version and other keys are ignored and never echoed
    ['{"jsonrpc":"2.0","version":"1.1","x":1,"method":"echo","params":null,"id":null}', 200, '{"result":[],"error":null,"id":null}\n'],
    // the id is echoed exactly as given: any JSON, numbers by their text, first of duplicate keys
    ['{"id":1.10000000000000000001,"method":"echo"}', 200, '{"result":[],"error":null,"id":1.10000000000000000001}\n'],
    ['{"id":{"a":[1,"\\u0001"]},"method":"echo","id":2}', 200, '{"result":[],"error":null,"id":{"a":[1,"\\u0001"]}}\n'],
  ];
  for (const [body, status, want] of cases) {
    const r = await rpc(body);
    assert.equal(r.body, want, body);
    assert.equal(r.status, status, body);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.ok(!r.body.includes('SECRET'));
  }
});

test('wrong argument count answers the full help text (-1, HTTP 500); help and help <cmd>', async () => {
  const helpText =
    'getamount "value"\n\nParses an amount.\n\nExamples:\n' +
    '> acnode-cli -ac_name=TESTAC getamount 1\n' +
    `> curl --user myusername --data-binary '{"jsonrpc": "1.0", "id":"curltest", "method": "getamount", "params": [1] }' -H 'content-type: text/plain;' http://127.0.0.1:27486/\n`;
  const r = await rpc('{"id":1,"method":"getamount","params":[]}');
  assert.equal(r.status, 500);
  assert.deepEqual(JSON.parse(r.body), { result: null, error: { code: -1, message: helpText }, id: 1 });
  const h = await rpc('{"id":1,"method":"help","params":["getamount"]}');
  assert.deepEqual(JSON.parse(h.body), { result: helpText, error: null, id: 1 });
  const all = await rpc('{"id":1,"method":"help"}');
  assert.equal(JSON.parse(all.body).result, '== Control ==\nhelp ( "command" )\nstop\n\n== Test ==\necho ...\nfail code\ngetamount "value"\nnan\nslow');
  const unknown = await rpc('{"id":1,"method":"help","params":["nope"]}');
  assert.equal(unknown.body, '{"result":"help: unknown command: nope","error":null,"id":1}\n');
});

test('lossless numbers reach the handler as text; amounts print with 8 decimals', async () => {
  seen.length = 0;
  const r = await rpc('{"id":1,"method":"echo","params":[90000000000.00000001,1e-8,-0,12345678901234567890123]}');
  assert.equal(r.body, '{"result":[90000000000.00000001,1e-8,-0,12345678901234567890123],"error":null,"id":1}\n');
  const p = seen[0]!;
  assert.ok(p[0] instanceof JsonNumber);
  assert.equal((p[0] as JsonNumber).text, '90000000000.00000001');
  const a = await rpc('{"id":1,"method":"getamount","params":[1]}');
  assert.equal(a.body, '{"result":{"sats":100000000,"value":1.00000000},"error":null,"id":1}\n');
  const b = await rpc('{"id":1,"method":"getamount","params":["0.1"]}');
  assert.equal(b.body, '{"result":{"sats":10000000,"value":0.10000000},"error":null,"id":1}\n');
  assert.equal(new Amount(-123456789n).toString(), '-1.23456789');
});

test('batches: always 200, one envelope per element in order, non-objects -32600, empty batch []', async () => {
  const r = await rpc('[{"id":1,"method":"echo","params":[1]},5,{"id":2,"method":"nosuch"},{"id":3},[],{"id":4,"method":"fail","params":[-25]}]');
  assert.equal(r.status, 200);
  assert.equal(
    r.body,
    '[{"result":[1],"error":null,"id":1},' +
      '{"result":null,"error":{"code":-32600,"message":"Invalid Request object"},"id":null},' +
      '{"result":null,"error":{"code":-32601,"message":"Method not found"},"id":2},' +
      '{"result":null,"error":{"code":-32600,"message":"Missing method"},"id":3},' +
      '{"result":null,"error":{"code":-32600,"message":"Invalid Request object"},"id":null},' +
      '{"result":null,"error":{"code":-25,"message":"failed with -25"},"id":4}]\n',
  );
  const empty = await rpc('[]');
  assert.equal(empty.status, 200);
  assert.equal(empty.body, '[]\n');
  assert.equal(empty.headers['content-type'], 'application/json');
});

test('warm-up: -28 with the status text for everything but help, per batch element', async () => {
  server.setWarmup('Loading block index...');
  try {
    const r = await rpc('{"id":1,"method":"echo"}');
    assert.equal(r.status, 500);
    assert.equal(r.body, '{"result":null,"error":{"code":-28,"message":"Loading block index..."},"id":1}\n');
    const b = await rpc('[{"id":1,"method":"help","params":["stop"]},{"id":2,"method":"stop"}]');
    assert.equal(
      b.body,
      '[{"result":"stop\\n\\nStop Komodo server.","error":null,"id":1},{"result":null,"error":{"code":-28,"message":"Loading block index..."},"id":2}]\n',
    );
  } finally {
    server.setWarmup(null);
  }
  assert.equal((await rpc('{"id":1,"method":"stop"}')).body, '{"result":"TESTAC server stopping","error":null,"id":1}\n');
});

test('body size: 32 MiB accepted, a larger declared body is refused at once with libevent 413', async () => {
  // exactly MAX_SIZE bytes: a valid request padded with spaces
  const head = '{"id":1,"method":"echo","params":["x"]}';
  const exact = Buffer.alloc(MAX_BODY_SIZE, 0x20);
  exact.write(head, 0);
  const ok = await rpc(exact);
  assert.equal(ok.status, 200);
  assert.equal(ok.body, '{"result":["x"],"error":null,"id":1}\n');
  // one byte more, declared: 413 before the body is read, connection closed
  const reply = await raw(`POST / HTTP/1.1\r\nHost: a\r\nAuthorization: ${AUTH}\r\nContent-Length: ${MAX_BODY_SIZE + 1}\r\n\r\n{}`);
  assert.match(reply, /^HTTP\/1\.1 413 Request Entity Too Large\r\n/);
  assert.match(reply, /\r\nConnection: close\r\n/i);
  assert.ok(reply.endsWith('<HTML><HEAD>\n<TITLE>413 Request Entity Too Large</TITLE>\n</HEAD><BODY>\n<H1>Request Entity Too Large</H1>\n</BODY></HTML>\n'));
  // with Expect: 100-continue the same, and no "100 Continue" first
  const expect = await raw(`POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: ${MAX_BODY_SIZE + 1}\r\n\r\n`);
  assert.match(expect, /^HTTP\/1\.1 413 Request Entity Too Large\r\n/);
  const cont = await raw(`POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nAuthorization: ${AUTH}\r\nConnection: close\r\nContent-Length: 24\r\n\r\n{"id":1,"method":"echo"}`);
  assert.match(cont, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
  // chunked past the limit: 413 as well
  const big = await rpc(Buffer.alloc(MAX_BODY_SIZE + 1024, 0x20), { 'Transfer-Encoding': 'chunked' });
  assert.equal(big.status, 413);
  // and the server still answers
  assert.equal((await rpc('{"id":1,"method":"echo"}')).status, 200);
});

test('keep-alive: several requests over one connection', async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const replies: Reply[] = [];
    for (let i = 0; i < 5; i++) replies.push(await send({ agent, headers: { Authorization: AUTH }, body: `{"id":${i},"method":"echo"}` }));
    assert.deepEqual(replies.map((r) => r.body), [0, 1, 2, 3, 4].map((i) => `{"result":[],"error":null,"id":${i}}\n`));
    assert.deepEqual(replies.map((r) => r.reused), [false, true, true, true, true]);
    // an error reply keeps the connection too
    const err = await send({ agent, headers: { Authorization: AUTH }, body: '{' });
    assert.equal(err.status, 500);
    assert.equal(err.reused, true);
  } finally {
    agent.destroy();
  }
});

test('work queue: requests past threads + depth get 500 "Work queue depth exceeded"', async (t) => {
  // A failure below leaves no slow call holding the server's close.
  t.after(() => {
    for (const release of slowReleases) release();
  });
  // this server has one thread and a queue of one: two slow calls fill it
  // Each sent once the one before is running (its handler called), however long the trip takes.
  const first = rpc('{"id":1,"method":"slow"}');
  await waitUntil('the first slow call runs', () => slowReleases.length === 1);
  const second = rpc('{"id":2,"method":"slow"}');
  await waitUntil('the second slow call runs', () => slowReleases.length === 2);
  const [release1, release2] = slowReleases as [() => void, () => void];
  const third = await rpc('{"id":3,"method":"echo"}');
  assert.equal(third.status, 500);
  assert.equal(third.body, 'Work queue depth exceeded');
  release1();
  release2();
  assert.equal((await first).body, '{"result":"done","error":null,"id":1}\n');
  assert.equal((await second).body, '{"result":"done","error":null,"id":2}\n');
  assert.equal((await rpc('{"id":4,"method":"echo"}')).status, 200);
});

test('work queue: a wrong password holds its place through the 250 ms pause, then frees it', async () => {
  // komodod sleeps in the worker thread: the two places of this server are taken until both are answered
  const wrong = { Authorization: 'Basic ' + Buffer.from(`${USER}:wrong`).toString('base64') };
  const attempts = () => logs.filter((l) => l.startsWith('ThreadRPCServer incorrect password attempt from ')).length;
  const before = attempts();
  const first = rpc('{"id":1,"method":"echo"}', wrong);
  const second = rpc('{"id":2,"method":"echo"}', wrong);
  await waitUntil('both wrong passwords are pausing', () => attempts() === before + 2);
  const third = await rpc('{"id":3,"method":"echo"}');
  assert.equal(third.status, 500);
  assert.equal(third.body, 'Work queue depth exceeded');
  assert.equal((await first).status, 401);
  assert.equal((await second).status, 401);
  // answered, their places are free again (more calls than the queue holds, one after the other)
  for (let i = 0; i < 3; i++) assert.equal((await rpc(`{"id":${4 + i},"method":"echo"}`)).body, `{"result":[],"error":null,"id":${4 + i}}\n`);
});

/** A non-loopback IPv4 address of this machine, if it has one. */
function externalIPv4(): string | undefined {
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return undefined;
}

const ext = externalIPv4();
test(
  'allow list over the wire: 403 (empty body) for a peer outside -rpcallowip, before every other check',
  { skip: ext ? false : 'this machine has no non-loopback IPv4 address to connect from' },
  async () => {
    const addr = ext!;
    // komodod with -rpcallowip binds :: and 0.0.0.0, so the external address is reachable
    // a documentation subnet that does not hold this machine's address
    const other = ['198.51.100.0/24', '203.0.113.0/24'].find((s) => !Subnet.parse(s)!.match(parseAddress(addr)!))!;
    const denied = await createRpcServer({ methods, env: { chainName: 'T', rpcPort: 1 }, auth: { user: USER, password: PASS }, port: 0, allowIps: [other] });
    const allowed = await createRpcServer({ methods, env: { chainName: 'T', rpcPort: 1 }, auth: { user: USER, password: PASS }, port: 0, allowIps: [`${addr}/255.255.255.255`] });
    try {
      for (const [method, path] of [['POST', '/'], ['GET', '/x'], ['DELETE', '/']]) {
        const r = await send({ host: addr, port: denied.port, method, path, headers: { Authorization: AUTH }, body: '{"method":"echo"}' });
        assert.equal(r.status, 403, `${method} ${path}`);
        assert.equal(r.body, '');
      }
      // loopback is always allowed
      assert.equal((await send({ port: denied.port, headers: { Authorization: AUTH }, body: '{"method":"echo"}' })).status, 200);
      const ok = await send({ host: addr, port: allowed.port, headers: { Authorization: AUTH }, body: '{"method":"echo","id":1}' });
      assert.equal(ok.status, 200);
      assert.equal(ok.body, '{"result":[],"error":null,"id":1}\n');
    } finally {
      await denied.close();
      await allowed.close();
    }
  },
);

test('port 0 binds both loopback addresses on one OS-chosen port', () => {
  assert.ok(server.port > 0);
  for (const a of server.addresses) assert.equal(a.port, server.port);
  assert.ok(server.addresses.some((a) => a.host === '127.0.0.1'));
});
