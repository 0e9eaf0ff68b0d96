import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answer, explorerTable } from '../../src/node/explorer/data.js';
import { RpcError } from '../../src/rpc/errors.js';
import type { RpcMethod } from '../../src/rpc/table.js';

const env = { chainName: 'T', rpcPort: 1 };
const enc = (v: unknown) => new TextEncoder().encode(typeof v === 'string' ? v : JSON.stringify(v));

test('answer: the result or komodod-shaped error, never a throw', async () => {
  const methods: RpcMethod[] = [
    { name: 'getblockcount', category: 'blockchain', help: 'getblockcount', maxArgs: 0, handler: () => 7 },
    { name: 'getblockhash', category: 'blockchain', help: 'getblockhash index', minArgs: 1, maxArgs: 1, handler: () => { throw new RpcError(-8, 'Block height out of range'); } },
    { name: 'dumpprivkey', category: 'wallet', help: 'dumpprivkey', handler: () => 'secret' },
  ];
  const table = explorerTable(env, methods);
  assert.equal(await answer(table, enc({ method: 'getblockcount', params: [] })), '{"result":7,"error":null}');
  assert.equal(await answer(table, enc({ method: 'getblockcount' })), '{"result":7,"error":null}');
  assert.deepEqual(JSON.parse(await answer(table, enc({ method: 'getblockhash', params: [5] }))).error, { code: -8, message: 'Block height out of range' });
  assert.deepEqual(JSON.parse(await answer(table, enc({ method: 'getblockcount', params: [1] }))).error, { code: -1, message: 'getblockcount' });
  assert.equal(JSON.parse(await answer(table, enc({ method: 'dumpprivkey', params: [] }))).error.code, -32601);
  assert.equal(JSON.parse(await answer(table, enc('{"method":'))).error.code, -32700);
  assert.equal(JSON.parse(await answer(table, enc([1]))).error.code, -32600);
  assert.equal(JSON.parse(await answer(table, enc({ method: 5 }))).error.code, -32600);
  assert.equal(JSON.parse(await answer(table, enc({ method: 'getblockcount', params: {} }))).error.code, -32600);
});
