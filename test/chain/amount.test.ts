import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AmountError, formatAmount, parseAmount, parseFixedPoint } from '../../src/chain/encoding/amount.js';

const COIN = 100_000_000n;
/** komodo_globals.cpp's default MAX_MONEY, which komodod's unit tests run with. */
const MAX_MONEY = 200_000_000n * COIN;

test('formatAmount: komodod rpc_tests.cpp rpc_format_monetary_values', () => {
  const cases: [bigint, string][] = [
    [0n, '0.00000000'],
    [1n, '0.00000001'],
    [17622195n, '0.17622195'],
    [50000000n, '0.50000000'],
    [89898989n, '0.89898989'],
    [100000000n, '1.00000000'],
    [2099999999999990n, '20999999.99999990'],
    [2099999999999999n, '20999999.99999999'],
    [(COIN / 10000n) * 123456789n, '12345.67890000'],
    [-COIN, '-1.00000000'],
    [-COIN / 10n, '-0.10000000'],
    [COIN * 100000000n, '100000000.00000000'],
    [COIN * 10000000n, '10000000.00000000'],
    [COIN * 1000000n, '1000000.00000000'],
    [COIN * 100000n, '100000.00000000'],
    [COIN * 10000n, '10000.00000000'],
    [COIN * 1000n, '1000.00000000'],
    [COIN * 100n, '100.00000000'],
    [COIN * 10n, '10.00000000'],
    [COIN, '1.00000000'],
    [COIN / 10n, '0.10000000'],
    [COIN / 100n, '0.01000000'],
    [COIN / 1000n, '0.00100000'],
    [COIN / 10000n, '0.00010000'],
    [COIN / 100000n, '0.00001000'],
    [COIN / 1000000n, '0.00000100'],
    [COIN / 10000000n, '0.00000010'],
    [COIN / 100000000n, '0.00000001'],
  ];
  for (const [sat, text] of cases) assert.equal(formatAmount(sat), text);
});

test('parseAmount: komodod rpc_tests.cpp rpc_parse_monetary_values', () => {
  const ok: [string, bigint][] = [
    ['0', 0n],
    ['0.00000000', 0n],
    ['0.00000001', 1n],
    ['0.17622195', 17622195n],
    ['0.5', 50000000n],
    ['0.50000000', 50000000n],
    ['0.89898989', 89898989n],
    ['1.00000000', 100000000n],
    ['20999999.9999999', 2099999999999990n],
    ['20999999.99999999', 2099999999999999n],
    ['1e-8', COIN / 100000000n],
    ['0.1e-7', COIN / 100000000n],
    ['0.01e-6', COIN / 100000000n],
    ['0.0000000000000000000000000000000000000000000000000000000000000000000000000001e+68', COIN / 100000000n],
    ['10000000000000000000000000000000000000000000000000000000000000000e-64', COIN],
    ['0.000000000000000000000000000000000000000000000000000000000000000100000000000000000000000000000000000000000000000000000e64', COIN],
    ['0.00000001000000', 1n],
    ['0.19e-6', 19n],
    // json_parse_errors: the number's text after the JSON parser trimmed the trailing space.
    ['0.00000000000000000000000000000000000001e+30', 1n],
  ];
  for (const [text, sat] of ok) assert.equal(parseAmount(text, MAX_MONEY), sat, text);

  // BOOST_CHECK_THROW cases; the message is the one AmountFromValue would throw for each.
  assert.throws(() => parseAmount('-0.00000001', MAX_MONEY), { name: 'AmountError', message: 'Amount out of range' });
  for (const text of ['1e-9', '0.000000019', '19e-9', '92233720368.54775808', '1e+11', '1e11', '93e+9']) {
    assert.throws(() => parseAmount(text, MAX_MONEY), { name: 'AmountError', message: 'Invalid amount' }, text);
  }
});

test('parseFixedPoint: komodod util_tests.cpp test_ParseFixedPoint', () => {
  const ok: [string, bigint][] = [
    ['0', 0n],
    ['1', 100000000n],
    ['0.0', 0n],
    ['-0.1', -10000000n],
    ['1.1', 110000000n],
    ['1.10000000000000000', 110000000n],
    ['1.1e1', 1100000000n],
    ['1.1e-1', 11000000n],
    ['1000', 100000000000n],
    ['-1000', -100000000000n],
    ['0.00000001', 1n],
    ['0.0000000100000000', 1n],
    ['-0.00000001', -1n],
    ['1000000000.00000001', 100000000000000001n],
    ['9999999999.99999999', 999999999999999999n],
    ['-9999999999.99999999', -999999999999999999n],
  ];
  for (const [text, v] of ok) assert.equal(parseFixedPoint(text, 8), v, text);
  const bad = [
    '', '-', 'a-1000', '-a1000', '-1000a', '-01000', '00.1', '.1', '--0.1', '0.000000001', '-0.000000001',
    '0.00000001000000001', '-10000000000.00000000', '10000000000.00000000', '-10000000000.00000001',
    '10000000000.00000001', '-10000000000.00000009', '10000000000.00000009', '-99999999999.99999999',
    '99999909999.09999999', '92233720368.54775807', '92233720368.54775808', '-92233720368.54775808',
    '-92233720368.54775809', '1.1e', '1.1e-', '1.',
  ];
  for (const text of bad) assert.equal(parseFixedPoint(text, 8), null, text);
});

test('the 11-digit whole-coin quirk (utilstrencodings.cpp:427-442 at 0adeeab) reaches AmountFromValue', () => {
  // n == 11, all digits, and (val[0] < '9' || val[1] < '3'): val64 * 100000000 as int64.
  assert.equal(parseFixedPoint('90000000000', 8), 90000000000n * COIN); // the source's own example
  assert.equal(parseFixedPoint('10000000000', 8), 10000000000n * COIN); // plain parsing rejects 1e10 coins
  assert.equal(parseFixedPoint('00000000001', 8), COIN); // leading zeros, plain parsing rejects them
  assert.equal(parseFixedPoint('92233720368', 8), 9223372036800000000n); // still below 2^63
  assert.ok(parseFixedPoint('92299999999', 8)! < 0n); // uint64 product wraps negative in the int64
  // Not the quirk: first digit 9 and second >= 3, a sign or a point, or another length.
  assert.equal(parseFixedPoint('93000000000', 8), null);
  assert.equal(parseFixedPoint('-1000000000', 8), -1000000000n * COIN);
  assert.equal(parseFixedPoint('100000000000', 8), null);
  // Through AmountFromValue: the value then only has to fit MAX_MONEY.
  assert.equal(parseAmount('00000000001', MAX_MONEY), COIN);
  assert.throws(() => parseAmount('90000000000', MAX_MONEY), { message: 'Amount out of range' });
  // So an 11-digit value above MAX_MONEY is "out of range" where plain parsing says "Invalid amount".
  assert.throws(() => parseAmount('12345678901', MAX_MONEY), { message: 'Amount out of range' });
  assert.throws(() => parseAmount('99999999999', MAX_MONEY), { message: 'Invalid amount' });
  assert.throws(() => parseAmount('12345678901.0', MAX_MONEY), { message: 'Invalid amount' });
  assert.equal(parseAmount('90000000000', 9_000_000_000_000_000_000n), 90000000000n * COIN);
  assert.throws(() => parseAmount('92299999999', 9_000_000_000_000_000_000n), { message: 'Amount out of range' });
  // The lossless number text of design.md's example is a normal 20-character parse: too large.
  assert.throws(() => parseAmount('90000000000.00000001', MAX_MONEY), { message: 'Invalid amount' });
});

test('parseAmount: value types and range', () => {
  for (const v of [null, undefined, true, {}, [], Number.NaN]) {
    assert.throws(() => parseAmount(v, MAX_MONEY), (e: unknown) => e instanceof AmountError && e.message === 'Amount is not a number or string' && e.code === -3);
  }
  assert.equal(parseAmount(1.5, MAX_MONEY), 150000000n);
  assert.equal(parseAmount(MAX_MONEY / COIN, MAX_MONEY), MAX_MONEY);
  assert.throws(() => parseAmount('200000000.00000001', MAX_MONEY), { message: 'Amount out of range' });
  assert.throws(() => parseAmount(' 1', MAX_MONEY), { message: 'Invalid amount' });
  assert.throws(() => parseAmount('1.000000001', MAX_MONEY), { message: 'Invalid amount' });
  assert.throws(() => parseAmount('0x10', MAX_MONEY), { message: 'Invalid amount' });
});
