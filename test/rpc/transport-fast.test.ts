import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { createRpcServer, type RpcServer } from '../../src/rpc/server.js';
import { handleRpcBody, handleRpcBodyTo, type RpcReply } from '../../src/rpc/envelope.js';
import { RpcError } from '../../src/rpc/errors.js';
import { RpcTable, type RpcMethod } from '../../src/rpc/table.js';
import { BasicAuth } from '../../src/rpc/auth.js';
import { formatDouble, writeJson } from '../../src/rpc/json-write.js';
import { JsonNumber, JsonObject, type JsonOut } from '../../src/rpc/json-value.js';
import { rawTransactionMethods } from '../../src/rpc/methods/rawtransactions.js';
import { devChainParams } from '../../src/chain/params/chain-params.js';
import type { NodeServices } from '../../src/actors/services.js';

/**
 * The per-request shortcuts of the RPC transport (issue 4's benchmark) change no byte: integers printed
 * without the %.16g machinery, the accepted-header memo of BasicAuth, synchronous handlers answered
 * without promises, the request body read without body-parser, and a decoderawtransaction reply held
 * against the bytes the transport produced before those changes.
 */

/** A signed v4 P2PKH spend (the bench's sample) and its full reply as the transport wrote it before. */
const HEX = "0400008085202f8901f9f3a53ac59cf7962356b351505b24d5da0744d62693ff42a3cb741fcd6ecfac000000006a47304402205e3efeddbd93a46564417d434c61fa5534da84e47fcbf28913bd8a174ee4de3d022050ed616026384c84c393dc3cc6dbed2de2e8428a51d9673d228fc9dec8d3d2c8012103691b4b2a3283a6eda01a7e9cfca3664fce13a0ab3b01479d25afcf4392104af6ffffffff016ff529df6e0000001976a91498386383dc3826147a6e59c6ee49d31ad649aa9888ac00000000000000000000000000000000000000";
const GOLDEN = "{\"result\":{\"txid\":\"49d3cd31644f3aca45ec0459e0fc18fd107ef659555f664c05f0c5bae45497e9\",\"overwintered\":true,\"version\":4,\"versiongroupid\":\"892f2085\",\"locktime\":0,\"expiryheight\":0,\"vin\":[{\"txid\":\"accf6ecd1f74cba342ff9326d64407dad5245b5051b3562396f79cc53aa5f3f9\",\"vout\":0,\"scriptSig\":{\"asm\":\"304402205e3efeddbd93a46564417d434c61fa5534da84e47fcbf28913bd8a174ee4de3d022050ed616026384c84c393dc3cc6dbed2de2e8428a51d9673d228fc9dec8d3d2c8[ALL] 03691b4b2a3283a6eda01a7e9cfca3664fce13a0ab3b01479d25afcf4392104af6\",\"hex\":\"47304402205e3efeddbd93a46564417d434c61fa5534da84e47fcbf28913bd8a174ee4de3d022050ed616026384c84c393dc3cc6dbed2de2e8428a51d9673d228fc9dec8d3d2c8012103691b4b2a3283a6eda01a7e9cfca3664fce13a0ab3b01479d25afcf4392104af6\"},\"sequence\":4294967295}],\"vout\":[{\"value\":4761.90471535,\"valueZat\":476190471535,\"n\":0,\"scriptPubKey\":{\"asm\":\"OP_DUP OP_HASH160 98386383dc3826147a6e59c6ee49d31ad649aa98 OP_EQUALVERIFY OP_CHECKSIG\",\"hex\":\"76a91498386383dc3826147a6e59c6ee49d31ad649aa9888ac\",\"reqSigs\":1,\"type\":\"pubkeyhash\",\"addresses\":[\"RPA4LdcFtGXAvH9f46AJwCWp1fAoq9QTZd\"]}}],\"vjoinsplit\":[],\"valueBalance\":0.00000000,\"vShieldedSpend\":[],\"vShieldedOutput\":[]},\"error\":null,\"id\":\"golden\"}\n";

test('decoderawtransaction: the reply bytes are unchanged (golden from the transport before the shortcuts)', async () => {
  const table = new RpcTable({ chainName: 'T', rpcPort: 1 }, rawTransactionMethods({ baseParams: devChainParams() } as unknown as NodeServices));
  const body = Buffer.from(JSON.stringify({ jsonrpc: '1.0', id: 'golden', method: 'decoderawtransaction', params: [HEX] }));
  for (let i = 0; i < 3; i++) {
    // repeated: nothing cached by the first rendering changes the second
    const r = await handleRpcBody(table, body);
    assert.equal(r.status, 200);
    assert.equal(r.body, GOLDEN);
  }
});

test('integers print as %.16g does; -0 and values past 2^53 keep the double path', () => {
  const xs = [0, -0, 1, -1, 7, 4294967295, 2 ** 31, -(2 ** 31), 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, -(2 ** 53), 2 ** 53 + 2,
    1e15, 9999999999999998, 1e16, 1e21, 123456789012, 0.5, -2.5, 1e-7, 3.0, 100];
  for (const x of xs) assert.equal(writeJson(x), formatDouble(x), String(x));
  assert.equal(writeJson(-0), '-0');
  assert.equal(writeJson([1, -0, 2 ** 53 + 2]), '[1,-0,9007199254740994]');
});

test('objects: key order, undefined members left out, Maps, JsonObjects, null-prototype objects', () => {
  const bare = Object.create(null) as Record<string, JsonOut>;
  bare.z = 1;
  bare.a = undefined;
  bare.b = 'x';
  const v: JsonOut = {
    b: 1, a: undefined, 2: 'two', 1: [], k: {}, m: new Map<string, JsonOut>([['y', undefined], ['x', null], ['w', true]]),
    j: new JsonObject([['d', new JsonNumber('1.50')], ['d', false]]), n: bare, e: '\u007f"\\\n\u0001é', u: undefined,
  };
  assert.equal(writeJson(v), '{"1":[],"2":"two","b":1,"k":{},"m":{"x":null,"w":true},"j":{"d":1.50,"d":false},"n":{"z":1,"b":"x"},"e":"\\u007f\\"\\\\\\n\\u0001é"}');
  assert.equal(writeJson({ a: undefined }), '{}');
  assert.equal(writeJson([]), '[]');
  assert.throws(() => writeJson({ f: (() => 1) as unknown as JsonOut }), /cannot write/);
});

test('BasicAuth: a correct header is remembered, a wrong one never is', () => {
  const auth = new BasicAuth('u', 'p:w');
  const good = 'Basic ' + Buffer.from('u:p:w').toString('base64');
  const wrong = 'Basic ' + Buffer.from('u:p:x').toString('base64');
  assert.equal(auth.check(wrong), false);
  assert.equal(auth.check(good), true);
  assert.equal(auth.check(good), true);
  assert.equal(auth.check(wrong), false);
  assert.equal(auth.check(wrong), false);
  // lenient forms komodod accepts stay accepted, and each is remembered on its own
  assert.equal(auth.check(good + '  '), true);
  assert.equal(auth.check(good + '==garbage'), true);
  // many accepted variants fill the memo; wrong headers are still refused afterwards
  for (let i = 0; i < 20; i++) assert.equal(auth.check(good + ' '.repeat(i + 3)), true);
  assert.equal(auth.check(wrong), false);
  assert.equal(auth.check('basic' + good.slice(5)), false);
  assert.equal(auth.check(good.slice(0, -2)), false);
});

test('table.run: a synchronous handler answers without a promise, with the same errors as execute', async () => {
  const methods: RpcMethod[] = [
    { name: 'sync', category: 't', help: 'sync', maxArgs: 1, handler: (p) => p.length },
    { name: 'async', category: 't', help: 'async', handler: async () => 'later' },
    { name: 'boom', category: 't', help: 'boom', handler: () => { throw new Error('boom'); } },
    { name: 'aboom', category: 't', help: 'aboom', handler: async () => { throw new Error('aboom'); } },
  ];
  const t = new RpcTable({ chainName: 'T', rpcPort: 1 }, methods);
  assert.equal(t.run('sync', []), 0);
  const later = t.run('async', []);
  assert.ok(later instanceof Promise);
  assert.equal(await later, 'later');
  assert.throws(() => t.run('boom', []), { code: -1, message: 'boom' });
  assert.throws(() => t.run('sync', ['a', 'b']), { code: -1, message: 'sync' });
  assert.throws(() => t.run('nosuch', []), { code: -32601, message: 'Method not found' });
  await assert.rejects(t.run('aboom', []) as Promise<JsonOut>, { code: -1, message: 'aboom' });
  await assert.rejects(t.execute('boom', []), { code: -1, message: 'boom' });
  t.warmup = 'Loading';
  assert.throws(() => t.run('sync', []), { code: -28, message: 'Loading' });
});

test('handleRpcBodyTo: the same replies as handleRpcBody, at once for synchronous calls, later (exactly once) for the others', async () => {
  const methods: RpcMethod[] = [
    { name: 'sync', category: 't', help: 'sync', handler: (p) => p },
    { name: 'later', category: 't', help: 'later', handler: async (p) => p },
    { name: 'refuse', category: 't', help: 'refuse', handler: () => Promise.reject(new RpcError(-26, '16: refused')) },
    { name: 'throwlater', category: 't', help: 'throwlater', handler: async () => { throw new Error('plain'); } },
  ];
  const t = new RpcTable({ chainName: 'T', rpcPort: 1 }, methods);
  const bodies: [string, boolean][] = [
    ['{"id":"a","method":"sync","params":[1,"x"]}', true],
    ['{"id":7,"method":"later","params":[{"k":1.50}]}', false],
    ['{"id":[1],"method":"refuse","params":[]}', false],
    ['{"id":null,"method":"throwlater"}', false],
    ['{"id":2,"method":"nosuch"}', true],
    ['{"id":3,"method":1}', true],
    ['{"method"', true],
    ['7', true],
    ['[{"id":1,"method":"later","params":[1]},{"id":2,"method":"sync"},{"id":3,"method":"refuse"}]', false],
  ];
  for (const [text, now] of bodies) {
    const body = Buffer.from(text);
    const want = await handleRpcBody(t, body);
    const later: RpcReply[] = [];
    const got = handleRpcBodyTo(t, body, (r) => void later.push(r), (e) => assert.fail(String(e)));
    if (now) {
      assert.deepEqual(got, want, text);
    } else {
      assert.equal(got, undefined, text);
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(later, [want], text);
    }
  }
});

// ---- over HTTP ------------------------------------------------------------------------------------

const AUTH = 'Basic ' + Buffer.from('u:p').toString('base64');
let server: RpcServer;

before(async () => {
  const methods: RpcMethod[] = [
    { name: 'echo', category: 't', help: 'echo', handler: (p) => p },
    { name: 'later', category: 't', help: 'later', handler: async (p) => { await new Promise((r) => setTimeout(r, 20)); return p; } },
  ];
  // depth 1 + 1 thread: a request the queue forgot to release would make every later one a 500
  server = await createRpcServer({ methods, env: { chainName: 'T', rpcPort: 1 }, auth: { user: 'u', password: 'p' }, port: 0, endpoints: [{ host: '127.0.0.1', port: 0 }], workQueue: 1, threads: 1 });
});
after(() => server.close());

/** Writes `parts` on one connection with a pause between them; the bytes received until `want` replies ended. */
function exchange(parts: (string | Buffer)[], want: number, pauseMs = 30): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect(server.port, '127.0.0.1');
    let out = '';
    const timer = setTimeout(() => { s.destroy(); reject(new Error(`timed out with ${JSON.stringify(out)}`)); }, 30_000);
    s.on('data', (d) => {
      out += d.toString('latin1');
      if ((out.match(/HTTP\/1\.1 /g) ?? []).length >= want && /\n$/.test(out)) {
        clearTimeout(timer);
        s.destroy();
        resolve(Buffer.from(out, 'latin1').toString('utf8').replace(/Date: [^\r]*\r\n/g, ''));
      }
    });
    s.on('error', reject);
    s.on('connect', async () => {
      for (const p of parts) {
        s.write(p);
        await new Promise((r) => setTimeout(r, pauseMs));
      }
    });
  });
}

const request = (body: string): string =>
  `POST / HTTP/1.1\r\nHost: x\r\nAuthorization: ${AUTH}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
const reply = (status: string, body: string): string =>
  `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: keep-alive\r\nKeep-Alive: timeout=30\r\n\r\n${body}`;

test('a body arriving in pieces, then pipelined requests on the same connection, sync and async', async () => {
  const body = '{"id":1,"method":"echo","params":["é",1.50,[true]]}';
  const want = reply('200 OK', '{"result":["é",1.50,[true]],"error":null,"id":1}\n');
  const whole = request(body);
  const bytes = Buffer.from(whole);
  const cut = [bytes.subarray(0, 20), bytes.subarray(20, bytes.length - 30), bytes.subarray(bytes.length - 30, bytes.length - 1), bytes.subarray(bytes.length - 1)];
  assert.equal(await exchange(cut, 1), want);
  const later = request('{"id":2,"method":"later","params":[]}');
  assert.equal(await exchange([whole + later + whole], 3), want + reply('200 OK', '{"result":[],"error":null,"id":2}\n') + want);
});

test('an aborted body gets no reply and releases its work-queue place', async () => {
  for (let i = 0; i < 4; i++) {
    await new Promise<void>((resolve) => {
      const s = net.connect(server.port, '127.0.0.1', () => {
        s.write(`POST / HTTP/1.1\r\nHost: x\r\nAuthorization: ${AUTH}\r\nContent-Length: 100\r\n\r\n{"method"`);
        setTimeout(() => { s.destroy(); resolve(); }, 30);
      });
      s.on('data', () => assert.fail('an aborted request was answered'));
    });
  }
  const ok = await new Promise<{ status?: number; body: string }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: server.port, method: 'POST', path: '/', headers: { authorization: AUTH } }, (res) => {
      let b = '';
      res.on('data', (c: Buffer) => (b += c));
      res.on('end', () => resolve({ status: res.statusCode, body: b }));
    });
    req.on('error', reject);
    req.end('{"id":3,"method":"echo","params":[]}');
  });
  assert.deepEqual(ok, { status: 200, body: '{"result":[],"error":null,"id":3}\n' });
  // ten more in a row: the queue (1 + 1 places) never fills with finished requests
  for (let i = 0; i < 10; i++) assert.match(await exchange([request('{"method":"echo"}')], 1), /^HTTP\/1\.1 200 OK/);
});
