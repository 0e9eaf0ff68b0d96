import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConvertError, RPC_CONVERT_PARAMS, isConverted, parseNonRfcJsonValue, rpcConvertValues } from '../../src/cli/convert.js';
import { writeJson } from '../../src/rpc/json-write.js';
import { JsonNumber, JsonObject } from '../../src/rpc/json-value.js';

// komodod src/rpc/client.cpp at 0adeeab: 137 rows (getlastsegidstakes 0 twice), 136 distinct pairs.
test('the conversion table is komodod vRPCConvertParams, complete', () => {
  assert.equal(RPC_CONVERT_PARAMS.length, 137);
  assert.equal(new Set(RPC_CONVERT_PARAMS.map(([m, i]) => `${m}/${i}`)).size, 136);
  assert.deepEqual(RPC_CONVERT_PARAMS[0], ['stop', 0]);
  assert.deepEqual(RPC_CONVERT_PARAMS.at(-1), ['migrate_completeimporttransaction', 1]);
  // Rows the reference sheet (rawtx.md §2) names.
  for (const [m, idx] of [
    ['createrawtransaction', 0], ['createrawtransaction', 1], ['createrawtransaction', 2], ['createrawtransaction', 3],
    ['getrawtransaction', 1], ['signrawtransaction', 1], ['signrawtransaction', 2], ['sendrawtransaction', 1],
    ['fundrawtransaction', 1], ['gettxout', 1], ['gettxout', 2], ['listunspent', 0], ['listunspent', 1],
    ['listunspent', 2], ['getblock', 1], ['getblockhash', 0], ['sendtoaddress', 1], ['sendtoaddress', 4],
    ['getrawmempool', 0], ['generate', 0], ['setgenerate', 0], ['setgenerate', 1], ['getNotarisationsForBlock', 0],
  ] as const) assert.ok(isConverted(m, idx), `${m} ${idx}`);
  // Not converted: signrawtransaction 3 and 4 stay strings; token methods take strings; case matters.
  for (const [m, idx] of [
    ['signrawtransaction', 0], ['signrawtransaction', 3], ['getblock', 0], ['tokencreate', 1], ['tokentransfer', 2],
    ['sendtoaddress', 0], ['sendtoaddress', 2], ['Generate', 0], ['getnotarisationsforblock', 0], ['help', 0],
  ] as const) assert.ok(!isConverted(m, idx), `${m} ${idx}`);
});

test('ParseNonRFCJSONValue: one JSON value of any kind, numbers kept as typed', () => {
  assert.equal(parseNonRfcJsonValue('true'), true);
  assert.equal(parseNonRfcJsonValue('null'), null);
  assert.equal(parseNonRfcJsonValue('"abc"'), 'abc');
  const n = parseNonRfcJsonValue('90000000000.00000001');
  assert.ok(n instanceof JsonNumber);
  assert.equal(n.text, '90000000000.00000001');
  const o = parseNonRfcJsonValue(' {"b":1,"a":[1,2]} ');
  assert.ok(o instanceof JsonObject);
  assert.equal(writeJson(o), '{"b":1,"a":[1,2]}');
  for (const bad of ['abc', '', '1,2', '{', 'tru', "'x'", '01x']) {
    assert.throws(() => parseNonRfcJsonValue(bad), (e: unknown) => e instanceof ConvertError && e.message === `Error JSON:${bad}`, bad);
  }
});

test('RPCConvertValues: converted positions parsed, the others strings as typed', () => {
  const p = rpcConvertValues('createrawtransaction', ['[{"txid":"ab","vout":0}]', '{"RAddr":1.5,"data":"00"}', '0', '100']);
  assert.equal(writeJson(p), '[[{"txid":"ab","vout":0}],{"RAddr":1.5,"data":"00"},0,100]');
  assert.equal(writeJson(rpcConvertValues('getblock', ['00ab', '2'])), '["00ab",2]');
  assert.equal(writeJson(rpcConvertValues('getblock', ['5', 'false'])), '["5",false]');
  assert.equal(writeJson(rpcConvertValues('tokencreate', ['DUKE', '1987.420', "Duke's token"])), '["DUKE","1987.420","Duke\'s token"]');
  assert.equal(writeJson(rpcConvertValues('signrawtransaction', ['00', '[]', '["k"]', 'ALL', 'extra'])), '["00",[],["k"],"ALL","extra"]');
  // A method acnode does not know still converts by the table (komodo-cli knows nothing of the server).
  assert.equal(writeJson(rpcConvertValues('z_sendmany', ['zaddr', '[{"address":"x","amount":1}]', '1', '0.0001'])), '["zaddr",[{"address":"x","amount":1}],1,0.0001]');
  assert.throws(() => rpcConvertValues('generate', ['two']), /^ConvertError: Error JSON:two$/);
  assert.deepEqual(rpcConvertValues('echo', []), []);
});
