import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RpcTable, helpMethod, helpExampleCli, helpExampleRpc, type RpcMethod } from '../../src/rpc/table.js';
import { RpcError } from '../../src/rpc/errors.js';
import { getStr } from '../../src/rpc/params.js';
import type { JsonValue } from '../../src/rpc/json-value.js';

const env = { chainName: 'TESTAC', rpcPort: 27486 };

const echo = (p: JsonValue[]): JsonValue[] => p;

function m(name: string, category: string, help: RpcMethod['help'], extra: Partial<RpcMethod> = {}): RpcMethod {
  return { name, category, help, handler: extra.handler ?? ((p) => p.length), ...extra };
}

function makeTable(): RpcTable {
  return new RpcTable(env, [
    helpMethod,
    m('stop', 'control', 'stop\n\nStop Komodo server.', { maxArgs: 1, handler: () => 'TESTAC server stopping' }),
    m('getblockcount', 'blockchain', 'getblockcount\n\nReturns the number of blocks.\n', { maxArgs: 0 }),
    m('decodescript', 'rawtransactions', (e) => `decodescript "hex"\n\nDecode a hex-encoded script.\n\nExamples:\n${helpExampleCli(e, 'decodescript', '"hexstring"')}${helpExampleRpc(e, 'decodescript', '"hexstring"')}`, { minArgs: 1, maxArgs: 1 }),
    m('getbestblockhash', 'blockchain', 'getbestblockhash\n\nReturns the hash.', { maxArgs: 0 }),
    m('secret', 'hidden', 'secret\n\nNot listed.'),
    m('getlabel', 'wallet', 'getlabel\n\nLabels are skipped.'),
    m('echo', 'util', 'echo "x" ...\n\nEcho.', { handler: echo }),
    m('echoalias', 'util', 'echoalias\n\nSame handler as echo.', { handler: echo }),
  ]);
}

test('help with no argument: categories, sorting by category+name, first lines, hidden and label skipped', async () => {
  const t = makeTable();
  const text = await t.execute('help', []);
  // server.cpp CRPCTable::help: "== Category ==" headers, blank line between categories, no trailing \n;
  // echoalias shares echo's handler (komodod's setDone on the function pointer) so it is shown once
  assert.equal(
    text,
    '== Blockchain ==\ngetbestblockhash\ngetblockcount\n\n' +
      '== Control ==\nhelp ( "command" )\nstop\n\n' +
      '== Rawtransactions ==\ndecodescript "hex"\n\n' +
      '== Util ==\necho "x" ...',
  );
  assert.equal(await t.execute('help', ['']), text);
});

test('help <cmd>: the full text; hidden methods too; unknown and label names as a result string', async () => {
  const t = makeTable();
  assert.equal(await t.execute('help', ['getblockcount']), 'getblockcount\n\nReturns the number of blocks.\n');
  assert.equal(await t.execute('help', ['stop']), 'stop\n\nStop Komodo server.');
  assert.equal(await t.execute('help', ['secret']), 'secret\n\nNot listed.');
  assert.equal(await t.execute('help', ['nosuch']), 'help: unknown command: nosuch');
  assert.equal(await t.execute('help', ['getlabel']), 'help: unknown command: getlabel');
  await assert.rejects(t.execute('help', [1 as unknown as JsonValue]), { code: -1, message: 'JSON value is not a string as expected' });
  await assert.rejects(t.execute('help', ['a', 'b']), { code: -1, message: helpMethod.help as string });
});

test('help examples: komodod format with acnode-cli, curl to 127.0.0.1:<rpcport>', async () => {
  const t = makeTable();
  const text = await t.execute('help', ['decodescript']);
  // server.cpp HelpExampleCli/HelpExampleRpc, with acnode-cli for komodo-cli (deliberate)
  assert.equal(
    text,
    'decodescript "hex"\n\nDecode a hex-encoded script.\n\nExamples:\n' +
      '> acnode-cli -ac_name=TESTAC decodescript "hexstring"\n' +
      `> curl --user myusername --data-binary '{"jsonrpc": "1.0", "id":"curltest", "method": "decodescript", "params": ["hexstring"] }' -H 'content-type: text/plain;' http://127.0.0.1:27486/\n`,
  );
});

test('wrong argument count: -1 with the full help text', async () => {
  const t = makeTable();
  await assert.rejects(t.execute('decodescript', []), { code: -1, message: t.help('decodescript') });
  await assert.rejects(t.execute('decodescript', ['a', 'b']), { code: -1, message: t.help('decodescript') });
  await assert.rejects(t.execute('getblockcount', [null]), { code: -1, message: 'getblockcount\n\nReturns the number of blocks.\n' });
  assert.equal(await t.execute('decodescript', ['00']), 1);
  const c = new RpcTable(env, [m('two', 'x', 'two a b\n\nExactly two.', { checkArgs: (p) => p.length === 2 })]);
  await assert.rejects(c.execute('two', [1 as unknown as JsonValue]), { code: -1, message: 'two a b\n\nExactly two.' });
});

test('errors: RpcError keeps its code, other throws become -1 with the message only; unknown method -32601', async () => {
  const t = new RpcTable(env, [
    m('rpcerr', 'x', 'rpcerr', { handler: () => { throw new RpcError(-8, 'Invalid parameter'); } }),
    m('plain', 'x', 'plain', { handler: async () => { throw new TypeError('boom'); } }),
    m('str', 'x', 'str', { handler: () => { throw 'thrown string'; } }),
    m('accessor', 'x', 'accessor', { handler: (p) => getStr(p[0]!) }),
  ]);
  await assert.rejects(t.execute('rpcerr', []), (e: RpcError) => e.code === -8 && e.message === 'Invalid parameter');
  await assert.rejects(t.execute('plain', []), (e: RpcError) => e instanceof RpcError && e.code === -1 && e.message === 'boom');
  await assert.rejects(t.execute('str', []), { code: -1, message: 'thrown string' });
  await assert.rejects(t.execute('accessor', [null]), { code: -1, message: 'JSON value is not a string as expected' });
  await assert.rejects(t.execute('nosuch', []), { code: -32601, message: 'Method not found' });
});

test('warm-up: every method but help fails with -28 and the status, unknown methods included', async () => {
  const t = makeTable();
  t.warmup = 'Loading block index...';
  await assert.rejects(t.execute('getblockcount', []), { code: -28, message: 'Loading block index...' });
  await assert.rejects(t.execute('nosuch', []), { code: -28, message: 'Loading block index...' });
  assert.equal(await t.execute('help', ['stop']), 'stop\n\nStop Komodo server.');
  t.warmup = null;
  assert.equal(await t.execute('getblockcount', []), 0);
  assert.equal(await t.execute('stop', []), 'TESTAC server stopping');
});
