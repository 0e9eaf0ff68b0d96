import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseJson } from '../../src/rpc/json-read.js';
import { JsonNumber, type JsonValue } from '../../src/rpc/json-value.js';
import { RpcError } from '../../src/rpc/errors.js';
import {
  getStr, getBool, getObj, getArr, getInt, getInt64, getReal, rpcTypeCheck, rpcTypeCheckObj,
  parseHashV, parseHashO, parseHexV, parseHexO,
} from '../../src/rpc/params.js';
import { amountFromValue, valueFromAmount } from '../../src/rpc/amount.js';

const j = (text: string): JsonValue => parseJson(text);
const num = (text: string): JsonNumber => new JsonNumber(text);

/** A thrown plain Error (komodod's std::runtime_error, -1 over RPC) with this exact message. */
function throwsPlain(fn: () => unknown, message: string): void {
  assert.throws(fn, (e: unknown) => e instanceof Error && !(e instanceof RpcError) && e.message === message);
}

function throwsRpc(fn: () => unknown, code: number, message: string): void {
  assert.throws(fn, (e: unknown) => e instanceof RpcError && e.code === code && e.message === message);
}

test('UniValue accessors: byte-exact type errors (rawtx.md §1.6)', () => {
  assert.equal(getStr('x'), 'x');
  throwsPlain(() => getStr(num('1')), 'JSON value is not a string as expected');
  throwsPlain(() => getStr(null), 'JSON value is not a string as expected');
  assert.equal(getBool(false), false);
  throwsPlain(() => getBool('true'), 'JSON value is not a boolean as expected');
  assert.ok(getObj(j('{}')));
  throwsPlain(() => getObj(j('[]')), 'JSON value is not an object as expected');
  assert.deepEqual(getArr(j('[]')), []);
  throwsPlain(() => getArr(j('{}')), 'JSON value is not an array as expected');
  throwsPlain(() => getInt('1'), 'JSON value is not an integer as expected');
  throwsPlain(() => getInt64(true), 'JSON value is not an integer as expected');
  throwsPlain(() => getReal('1'), 'JSON value is not a number as expected');
});

test('get_int is int32 and get_int64 int64, over the number text (strtol must take all of it)', () => {
  assert.equal(getInt(num('2147483647')), 2147483647);
  assert.equal(getInt(num('-2147483648')), -2147483648);
  assert.equal(getInt(num('-0')), 0);
  // rawtx.md §2.1: sequence 4294967295 cannot be given through get_int
  throwsPlain(() => getInt(num('4294967295')), 'JSON integer out of range');
  throwsPlain(() => getInt(num('2147483648')), 'JSON integer out of range');
  throwsPlain(() => getInt(num('1.0')), 'JSON integer out of range');
  throwsPlain(() => getInt(num('1e3')), 'JSON integer out of range');
  assert.equal(getInt64(num('9223372036854775807')), 9223372036854775807n);
  assert.equal(getInt64(num('-9223372036854775808')), -9223372036854775808n);
  throwsPlain(() => getInt64(num('9223372036854775808')), 'JSON integer out of range');
  throwsPlain(() => getInt64(num('0.5')), 'JSON integer out of range');
  assert.equal(getReal(num('1e-8')), 1e-8);
  throwsPlain(() => getReal(num('1e400')), 'JSON double out of range');
});

test('RPCTypeCheck: -3 "Expected type X, got Y", only params present, allowNull', () => {
  const p = j('["a", 1, null, [], {}, true]') as JsonValue[];
  rpcTypeCheck(p, ['string', 'number', 'null', 'array', 'object', 'bool', 'string']);
  throwsRpc(() => rpcTypeCheck(p, ['string', 'string']), -3, 'Expected type string, got number');
  throwsRpc(() => rpcTypeCheck(p, ['string', 'number', 'bool']), -3, 'Expected type bool, got null');
  rpcTypeCheck(p, ['string', 'number', 'bool'], true);
  throwsRpc(() => rpcTypeCheck(p, ['string', 'number', 'bool', 'object'], true), -3, 'Expected type object, got array');
  // rawtx.md §2.5: sendrawtransaction without allowNull rejects an explicit null
  throwsRpc(() => rpcTypeCheck(j('["00", null]') as JsonValue[], ['string', 'bool']), -3, 'Expected type bool, got null');
});

test('RPCTypeCheckObj: keys in std::map order, "Missing key", "Expected type X for key, got Y"', () => {
  const types = { txid: 'string', vout: 'number', scriptPubKey: 'string' } as const;
  // rawtx.md §2.6: checked as scriptPubKey, txid, vout (byte order puts upper case first)
  throwsRpc(() => rpcTypeCheckObj(j('{}'), types), -3, 'Missing scriptPubKey');
  throwsRpc(() => rpcTypeCheckObj(j('{"scriptPubKey":"00"}'), types), -3, 'Missing txid');
  throwsRpc(() => rpcTypeCheckObj(j('{"scriptPubKey":"00","txid":"aa","vout":"0"}'), types), -3,
    'Expected type number for vout, got string');
  rpcTypeCheckObj(j('{"vout":0,"txid":"aa","scriptPubKey":"00"}'), types);
  rpcTypeCheckObj(j('{"vout":null}'), types, true);
  throwsRpc(() => rpcTypeCheckObj(j('{"vout":"x"}'), types, true), -3, 'Expected type number for vout, got string');
  // find_value on a non-object finds nothing
  throwsRpc(() => rpcTypeCheckObj(j('[]'), types), -3, 'Missing scriptPubKey');
});

test('ParseHashV/ParseHashO: -8 message, SetHex zero-padding and keeping the last 64 digits', () => {
  throwsRpc(() => parseHashV('xyz', 'txid'), -8, "txid must be hexadecimal string (not 'xyz')");
  throwsRpc(() => parseHashV('', 'txid'), -8, "txid must be hexadecimal string (not '')");
  throwsRpc(() => parseHashV('abc', 'txid'), -8, "txid must be hexadecimal string (not 'abc')");
  throwsRpc(() => parseHashV(num('12'), 'parameter 1'), -8, "parameter 1 must be hexadecimal string (not '')");
  throwsRpc(() => parseHashO(j('{"txid":1}'), 'txid'), -8, "txid must be hexadecimal string (not '')");
  throwsRpc(() => parseHashO(j('{}'), 'blockhash'), -8, "blockhash must be hexadecimal string (not '')");
  const full = '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff';
  const h = parseHashV(full, 'txid');
  // internal order is the display hex reversed
  assert.equal(Buffer.from(h).reverse().toString('hex'), full);
  // shorter: a big-endian number, zero-padded on the left of the display hex
  assert.equal(Buffer.from(parseHashV('01ff', 'txid')).reverse().toString('hex'), '0'.repeat(60) + '01ff');
  // longer: only the last 64 digits
  assert.equal(Buffer.from(parseHashV('abcd' + full, 'txid')).reverse().toString('hex'), full);
  assert.equal(Buffer.from(parseHashO(j(`{"txid":"${full.toUpperCase()}"}`), 'txid')).reverse().toString('hex'), full);
});

test('ParseHexV/ParseHexO: the same check and message, returning the bytes', () => {
  assert.deepEqual(Buffer.from(parseHexV('00ff', 'argument 1')), Buffer.from([0, 255]));
  throwsRpc(() => parseHexV('0', 'argument 1'), -8, "argument 1 must be hexadecimal string (not '0')");
  throwsRpc(() => parseHexO(j('{"scriptPubKey":"zz"}'), 'scriptPubKey'), -8,
    "scriptPubKey must be hexadecimal string (not 'zz')");
});

test('AmountFromValue: -3 messages, exact number text, 8-decimal output', () => {
  const MAX = 21_000_000n * 100_000_000n;
  assert.equal(amountFromValue(num('1'), MAX), 100000000n);
  assert.equal(amountFromValue('0.00000001', MAX), 1n);
  assert.equal(amountFromValue(num('1e-8'), MAX), 1n);
  throwsRpc(() => amountFromValue(true, MAX), -3, 'Amount is not a number or string');
  throwsRpc(() => amountFromValue(null, MAX), -3, 'Amount is not a number or string');
  throwsRpc(() => amountFromValue(num('0.000000001'), MAX), -3, 'Invalid amount');
  throwsRpc(() => amountFromValue('abc', MAX), -3, 'Invalid amount');
  throwsRpc(() => amountFromValue(num('-1'), MAX), -3, 'Amount out of range');
  throwsRpc(() => amountFromValue(num('21000000.00000001'), MAX), -3, 'Amount out of range');
  // numbers with more precision than a double reach the parser as their exact text: 9999999999.99999999
  // (a double would read 10000000000), and the design's 90000000000.00000001, which komodod's
  // ParseFixedPoint refuses (it needs |v| < 10^18 satoshis) with "Invalid amount"
  const [exact, big] = parseJson('[9999999999.99999999, 90000000000.00000001]') as JsonValue[];
  assert.equal(amountFromValue(exact!, 10n ** 18n), 999999999999999999n);
  throwsRpc(() => amountFromValue(big!, 10n ** 19n), -3, 'Invalid amount');
  assert.equal(valueFromAmount(9000000000000000001n).toString(), '90000000000.00000001');
  assert.equal(valueFromAmount(-1n).toString(), '-0.00000001');
});
