import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toHex } from '../../src/chain/encoding/hex.js';
import { cAtof, cAtoll, parseHexLenient, parseTokenAmount, parseTokenSupply, parseUint256 } from '../../src/chain/tokens/cparse.js';
import { checkTokenCreateParams, checkTokenTransferParams } from '../../src/chain/tokens/params.js';

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

test('supply parsing: atof then (int64)(x*1e8 + 0.00000000499999) (design.md, tokens.md §5.1)', () => {
  assert.equal(parseTokenSupply('1987.420'), 198742000000n); // tokens.md §5.1 / qa test_token.py
  assert.equal(parseTokenSupply('1.123456789'), 112345678n); // design.md
  assert.equal(parseTokenSupply('abc'), 0n); // design.md: "abc" gives "Token supply must be positive"
  assert.equal(parseTokenSupply('-1987420'), -198742000000000n); // qa: negative supply is an error
  assert.equal(parseTokenSupply('0.00000001'), 1n); // tokens.md §5.2: NFT supply is RPC "0.00000001"
  // C strtod grammar: leading space, exponents, hex floats, trailing junk ignored
  assert.equal(cAtof('  \t1e2xyz'), 100);
  assert.equal(cAtof('0x10'), 16);
  assert.equal(cAtof('0x1.8p1'), 3);
  assert.equal(cAtof('0x1p-0000000000000001'), 0.5);
  assert.equal(cAtof('0x1p99999999999'), Infinity);
  assert.equal(cAtof('0x'), 0);
  assert.equal(cAtof('.5'), 0.5);
  assert.equal(cAtof('5.'), 5);
  assert.equal(cAtof('1e'), 1);
  assert.equal(cAtof('-inf'), -Infinity);
  assert.ok(Number.isNaN(cAtof('nan(123)')));
  assert.equal(cAtof(''), 0);
  // out of int64 range / NaN convert to INT64_MIN on x86-64 (cvttsd2si), which is not positive
  assert.equal(parseTokenSupply('1e300'), INT64_MIN);
  assert.equal(parseTokenSupply('inf'), INT64_MIN);
  assert.equal(parseTokenSupply('nan'), INT64_MIN);
  assert.equal(parseTokenSupply('92233720368'), 9223372036800000000n);
});

test('amount parsing: atoll (design.md: "1.9" → 1, "10abc" → 10)', () => {
  assert.equal(parseTokenAmount('1.9'), 1n);
  assert.equal(parseTokenAmount('10abc'), 10n);
  assert.equal(parseTokenAmount(' -5'), -5n);
  assert.equal(parseTokenAmount('+7'), 7n);
  assert.equal(parseTokenAmount('x1'), 0n);
  assert.equal(cAtoll('99999999999999999999999'), INT64_MAX); // strtoll saturates
  assert.equal(cAtoll('-99999999999999999999999'), INT64_MIN);
  assert.equal(cAtoll('0000000000000000000000000012'), 12n);
});

test('ParseHex and Parseuint256 as komodod', () => {
  assert.equal(toHex(parseHexLenient('f2 01zz03')), 'f201');
  assert.equal(toHex(parseHexLenient('abc')), 'ab');
  assert.equal(parseHexLenient('zz').length, 0);
  const disp = '916a6907e39cec679a6c832255c71b74e4941895d2d8775a6d2a0e8a322401ed';
  assert.equal(toHex(parseUint256(disp).reverse()), disp);
  assert.ok(parseUint256('deadbeef').every((b) => b === 0)); // tokens.md §10.4: not 64 chars → zero
});

test('tokencreate param rules and messages (rpcwallet.cpp tokencreate, tokens.md §5.1, §13)', () => {
  const err = (p: Parameters<typeof checkTokenCreateParams>[0]) => {
    const r = checkTokenCreateParams(p);
    return r.ok ? undefined : r.error;
  };
  assert.equal(err({ name: '', supply: '1' }), 'Token name must not be empty and up to 32 characters');
  assert.equal(err({ name: 'x'.repeat(34), supply: '1' }), 'Token name must not be empty and up to 32 characters');
  assert.equal(err({ name: 'x'.repeat(32), supply: '1' }), undefined);
  assert.equal(err({ name: 'é'.repeat(17), supply: '1' }), 'Token name must not be empty and up to 32 characters'); // bytes, not chars
  assert.equal(err({ name: 'NUKE', supply: '-1987420' }), 'Token supply must be positive');
  assert.equal(err({ name: 'NUKE', supply: 'abc' }), 'Token supply must be positive');
  assert.equal(err({ name: 'D', supply: '1', description: 'd'.repeat(4097) }), 'Token description must be <= 4096 characters');
  assert.equal(err({ name: 'D', supply: '1', description: 'd'.repeat(4096) }), undefined);
  assert.equal(err({ name: 'D', supply: '1', data: 'zz' }), 'Non-fungible data incorrect');
  assert.equal(err({ name: 'D', supply: '1', data: 'ab'.repeat(10002) }), 'Non-fungible data size must be <= 10001');
  // order: the name is checked before the supply
  assert.equal(err({ name: '', supply: 'abc' }), 'Token name must not be empty and up to 32 characters');
  const ok = checkTokenCreateParams({ name: 'DUKE', supply: '1987.420', description: "Duke's custom token" });
  assert.ok(ok.ok);
  assert.equal(ok.value.supply, 198742000000n);
  assert.equal(ok.value.nftData.length, 0);
});

test('tokentransfer param rules and messages (rpcwallet.cpp tokentransfer, tokens.md §6.1, §13)', () => {
  const tid = '916a6907e39cec679a6c832255c71b74e4941895d2d8775a6d2a0e8a322401ed';
  const pk = '021a559101e355c907d9c553671044d619769a6e71d624f68bfec7d0afa6bd6a96';
  const err = (tokenid: string, destpubkey: string, amount: string) => {
    const r = checkTokenTransferParams({ tokenid, destpubkey, amount });
    return r.ok ? undefined : r.error;
  };
  assert.equal(err('deadbeef', pk, '1'), 'invalid tokenid');
  assert.equal(err(tid, pk, '0'), 'amount must be positive');
  assert.equal(err(tid, pk, '-1'), 'amount must be positive');
  assert.equal(err('00', pk, '0'), 'invalid tokenid'); // tokenid first
  assert.equal(err(tid, pk, '1'), undefined);
  assert.equal(err(tid, '02deaddeaddeaddeaddeaddeaddeaddeaddeaddeaddeaddeaddeaddeaddeaddead', '1'), undefined); // burn key
  assert.equal(err(tid, pk.slice(0, 64), '1'), 'invalid destination pubkey');
  const r = checkTokenTransferParams({ tokenid: tid, destpubkey: pk, amount: '1.9' });
  assert.ok(r.ok);
  assert.equal(r.value.amount, 1n);
});
