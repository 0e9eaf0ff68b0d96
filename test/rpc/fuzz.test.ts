import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { createRpcServer, type RpcServer } from '../../src/rpc/server.js';
import { helpMethod, type RpcMethod } from '../../src/rpc/table.js';
import { getInt, getStr } from '../../src/rpc/params.js';
import { parseHashV } from '../../src/rpc/params.js';

/**
 * A few thousand malformed requests (seeded, so a failure replays), then the server must still answer
 * correctly. Every reply must be one of komodod's: a JSON envelope (or batch array) with the status
 * rawtx.md §1.3 gives its error code.
 */

const AUTH = 'Basic ' + Buffer.from('u:p').toString('base64');
let calls = 0;
const methods: RpcMethod[] = [
  helpMethod,
  { name: 'echo', category: 'test', help: 'echo', handler: (p) => p },
  { name: 'count', category: 'test', help: 'count', maxArgs: 0, handler: () => ++calls },
  { name: 'typed', category: 'test', help: 'typed "s" n "hash"', minArgs: 3, maxArgs: 3, handler: (p) => [getStr(p[0]!), getInt(p[1]!), Buffer.from(parseHashV(p[2]!, 'hash')).toString('hex')] },
];

let server: RpcServer;
before(async () => {
  server = await createRpcServer({ methods, env: { chainName: 'FUZZ', rpcPort: 1 }, auth: { user: 'u', password: 'p' }, port: 0 });
});
after(async () => {
  await server.close();
});

function post(agent: http.Agent, body: Buffer): Promise<{ status: number; body: string; type: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: server.port, method: 'POST', path: '/', agent, headers: { Authorization: AUTH, 'Content-Type': 'text/plain;', 'Content-Length': body.length } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString('utf8'), type: res.headers['content-type'] }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const SEEDS = [
  '{"jsonrpc":"1.0","id":"curltest","method":"echo","params":[1,"a",{"b":[true,null]}]}',
  '{"id":1,"method":"typed","params":["x",5,"00ff"]}',
  '[{"id":1,"method":"echo"},{"id":2,"method":"help","params":["echo"]}]',
  '{"id":[1,2],"method":"help","params":[]}',
  '{"method":"typed","params":[1,2.5,"zz"],"id":null}',
];
const PIECES = ['{', '}', '[', ']', ',', ':', '"', '\\', '\\u', 'null', 'true', '-', '1e', '0.', '"method"', '"params"', '"id"', '\u00e9', '\u0000', '\ud834', ' ', '\n', '99999999999999999999999'];

test('3000 seeded malformed bodies: every reply is a komodod envelope; the server still answers', async () => {
  let seed = 0x5eed;
  const rnd = (n: number): number => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  const mutate = (src: Buffer): Buffer => {
    const b = [...src];
    for (let k = 1 + rnd(4); k > 0; k--) {
      const at = rnd(b.length + 1);
      switch (rnd(5)) {
        case 0: b.splice(at, 1); break; // delete a byte
        case 1: b.splice(at, 0, rnd(256)); break; // insert a random byte
        case 2: if (at < b.length) b[at] = rnd(256); break; // overwrite
        case 3: b.splice(at, 0, ...Buffer.from(PIECES[rnd(PIECES.length)]!, 'utf8')); break;
        default: b.length = at; // truncate
      }
    }
    return Buffer.from(b);
  };
  const agents = [0, 1, 2].map(() => new http.Agent({ keepAlive: true, maxSockets: 1 }));
  const countBefore = calls;
  let parsed = 0;
  try {
    for (let i = 0; i < 3000; i += agents.length) {
      const bodies = agents.map(() => {
        const r = rnd(10);
        if (r === 0) return Buffer.from(Array.from({ length: rnd(64) }, () => rnd(256)));
        if (r === 1) return Buffer.from('['.repeat(400 + rnd(300)) + ']'.repeat(rnd(700)));
        return mutate(Buffer.from(SEEDS[rnd(SEEDS.length)]!, 'utf8'));
      });
      const replies = await Promise.all(bodies.map((b, k) => post(agents[k]!, b)));
      for (const [k, r] of replies.entries()) {
        const what = bodies[k]!.toString('hex');
        assert.equal(r.type, 'application/json', what);
        assert.ok(r.body.endsWith('\n'), what);
        const v = JSON.parse(r.body) as unknown;
        const envelopes = Array.isArray(v) ? v : [v];
        if (Array.isArray(v)) assert.equal(r.status, 200, what);
        for (const e of envelopes as Record<string, unknown>[]) {
          assert.deepEqual(Object.keys(e), ['result', 'error', 'id'], what);
          if (e.error !== null) {
            const err = e.error as { code: number; message: string };
            assert.deepEqual(Object.keys(err), ['code', 'message'], what);
            assert.equal(e.result, null);
            if (!Array.isArray(v)) assert.equal(r.status, err.code === -32600 ? 400 : err.code === -32601 ? 404 : 500, what);
            assert.ok(!/\bat .*\.ts:\d+/.test(err.message), `stack leaked for ${what}`);
          } else {
            parsed++;
            if (!Array.isArray(v)) assert.equal(r.status, 200, what);
          }
        }
      }
    }
  } finally {
    for (const a of agents) a.destroy();
  }
  // some mutations are still valid calls, most are not: the corpus exercised both paths
  assert.ok(parsed > 50, `only ${parsed} successful calls`);
  assert.equal(calls, countBefore, 'no malformed body reached the "count" method');
  // and the server answers a well-formed request exactly
  const ok = await post(new http.Agent(), Buffer.from('{"jsonrpc":"1.0","id":"curltest","method":"count","params":[]}'));
  assert.equal(ok.status, 200);
  assert.equal(ok.body, `{"result":${countBefore + 1},"error":null,"id":"curltest"}\n`);
});

test('random bytes at the HTTP level never take the server down', async () => {
  let seed = 7;
  const rnd = (n: number): number => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return (seed >>> 8) % n;
  };
  const heads = ['POST / HTTP/1.1\r\n', 'GET / HTTP/1.0\r\n', 'POST / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n', 'POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', ''];
  await Promise.all(
    Array.from({ length: 60 }, (_, i) =>
      new Promise<void>((resolve) => {
        const s = net.connect(server.port, '127.0.0.1', () => {
          const junk = Buffer.from(Array.from({ length: rnd(200) }, () => rnd(256)));
          s.write(Buffer.concat([Buffer.from(heads[i % heads.length]!), junk]));
          setTimeout(() => s.destroy(), 50);
        });
        s.on('error', () => {});
        s.on('close', () => resolve());
        s.resume();
      }),
    ),
  );
  const ok = await post(new http.Agent(), Buffer.from('{"id":1,"method":"echo","params":[1]}'));
  assert.equal(ok.body, '{"result":[1],"error":null,"id":1}\n');
});
