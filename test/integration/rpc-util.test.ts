import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { startDaemon, removeDir, type Daemon, rpcError } from '../helpers/daemon.js';
import { base58check } from '../helpers/base58.js';

/** createmultisig, verifymessage, decodeccopret, txnotarizedconfirmed, z_validateaddress over HTTP. */

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest();
const hash160 = (b: Uint8Array) => createHash('ripemd160').update(sha256(b)).digest();
/** The message hash komodod signs: sha256d(ser("Komodo Signed Message:\n") || ser(message)), built here on its own. */
function komodoMessageHash(message: string): Uint8Array {
  const ser = (s: string) => {
    const b = Buffer.from(s, 'utf8');
    assert.ok(b.length < 253);
    return Buffer.concat([Buffer.of(b.length), b]);
  };
  return sha256(sha256(Buffer.concat([ser('Komodo Signed Message:\n'), ser(message)])));
}

/** signmessage's base64: header 27 + recid (+4 compressed), then r || s. */
function signMessage(key: Uint8Array, message: string): string {
  const sig = secp256k1.sign(komodoMessageHash(message), key, { prehash: false, format: 'recovered' });
  return Buffer.concat([Buffer.of(27 + sig[0]! + 4), sig.subarray(1)]).toString('base64');
}

let d: Daemon | undefined;

test('util methods on the dev chain: results, key order, errors', { timeout: 180_000 }, async (t) => {
  t.after(async () => {
    await d?.stop();
    if (d) removeDir(d.datadir);
  });
  d = await startDaemon();

  // createmultisig: hex keys and wallet addresses, komodod's P2SH address and redeem script.
  const key1 = secp256k1.getPublicKey(Uint8Array.from(sha256(Buffer.from('k1'))), true);
  const key2 = secp256k1.getPublicKey(Uint8Array.from(sha256(Buffer.from('k2'))), true);
  const redeem = Buffer.concat([Buffer.of(0x52, 33), key1, Buffer.of(33), key2, Buffer.of(0x52, 0xae)]);
  const ms = await d.rpc<Record<string, string>>('createmultisig', 2, [Buffer.from(key1).toString('hex'), Buffer.from(key2).toString('hex')]);
  assert.deepEqual(Object.keys(ms), ['address', 'redeemScript']);
  assert.deepEqual(ms, { address: base58check(Buffer.concat([Buffer.of(85), hash160(redeem)])), redeemScript: redeem.toString('hex') });
  const mine = await d.rpc<string>('getnewaddress');
  const minePub = (await d.rpc<{ pubkey: string }>('validateaddress', mine)).pubkey;
  const byAddr = await d.rpc<Record<string, string>>('createmultisig', 1, [mine]);
  assert.equal(byAddr.redeemScript, `5121${minePub}51ae`);
  const foreign = base58check(Buffer.concat([Buffer.of(60), hash160(key1)]));
  const cases: [unknown[], number, string][] = [
    [[0, [foreign]], -1, 'a multisignature address must require at least one key to redeem'],
    [[2, [Buffer.from(key1).toString('hex')]], -1, 'not enough keys supplied (got 1 keys, but need at least 2 to redeem)'],
    [[1, new Array(17).fill(Buffer.from(key1).toString('hex'))], -1, 'Number of addresses involved in the multisignature address creation > 16\nReduce the number'],
    [[1, [foreign]], -1, `no full public key for address ${foreign}`],
    [[1, [ms.address]], -1, `${ms.address} does not refer to a key`],
    [[1, ['02' + '00'.repeat(32)]], -1, ' Invalid public key: 02' + '00'.repeat(32)],
    [[1, ['xyz']], -1, ' Invalid public key: xyz'],
    [['1', [foreign]], -1, 'JSON value is not an integer as expected'],
    [[1, 'abc'], -1, 'JSON value is not an array as expected'],
  ];
  for (const [params, code, message] of cases) assert.deepEqual(await rpcError(d.rpc('createmultisig', ...params)), { code, message }, JSON.stringify(params));
  // 16 uncompressed keys: 1 + 16 * 66 + 2 bytes, over the 520-byte element limit.
  const big = Buffer.from(secp256k1.getPublicKey(Uint8Array.from(sha256(Buffer.from('k3'))), false)).toString('hex');
  assert.deepEqual(await rpcError(d.rpc('createmultisig', 1, new Array(16).fill(big))), { code: -1, message: 'redeemScript exceeds size limit: 1059 > 520' });
  assert.equal((await rpcError(d.rpc('createmultisig', 1))).message.split('\n')[0], 'createmultisig nrequired ["key",...]');

  // verifymessage: a signature made here with the test's own hashing verifies; others do not.
  const priv = Uint8Array.from(sha256(Buffer.from('signer')));
  const signer = base58check(Buffer.concat([Buffer.of(60), hash160(secp256k1.getPublicKey(priv, true))]));
  const sig = signMessage(priv, 'test test');
  assert.equal(await d.rpc('verifymessage', signer, sig, 'test test'), true);
  assert.equal(await d.rpc('verifymessage', signer, sig, 'test tesT'), false);
  assert.equal(await d.rpc('verifymessage', foreign, sig, 'test test'), false);
  assert.equal(await d.rpc('verifymessage', signer, Buffer.alloc(65).toString('base64'), 'test test'), false);
  assert.deepEqual(await rpcError(d.rpc('verifymessage', 'Rbad', sig, 'm')), { code: -3, message: 'Invalid address' });
  assert.deepEqual(await rpcError(d.rpc('verifymessage', ms.address, sig, 'm')), { code: -3, message: 'Address does not refer to key' });
  assert.deepEqual(await rpcError(d.rpc('verifymessage', signer, 'abc!', 'm')), { code: -5, message: 'Malformed base64 encoding' });
  assert.deepEqual(await rpcError(d.rpc('verifymessage', signer, 'abcde', 'm')), { code: -5, message: 'Malformed base64 encoding' });

  // decodeccopret: a token create opret, a token transfer carrying an assets opret, and no opret.
  // f2 'c' with an empty pubkey, name and description.
  const create = '6a05' + 'f263' + '000000';
  assert.deepEqual(await d.rpc('decodeccopret', create), { result: 'success', OpRets: [{ eval_code: 'EVAL_TOKENS', function: 'c' }] });
  const oracle = '6a' + '04' + 'ec43' + '0101';
  const decodedOracle = await d.rpc<Record<string, unknown>>('decodeccopret', oracle);
  assert.deepEqual(Object.keys(decodedOracle), ['result', 'OpRets']);
  assert.deepEqual(decodedOracle, { result: 'success', OpRets: [{ eval_code: 'EVAL_ORACLES', function: 'C' }] });
  assert.deepEqual(await d.rpc('decodeccopret', '6a02' + '7741'), { result: 'success', OpRets: [{ eval_code: '0x77', function: 'A' }] });
  // tokens transfer ('t', tokenid, ccType 1, one pubkey) with an assets blob (id 1, the vector e3 'b' ...).
  const tokenid = 'ab'.repeat(32);
  const transfer = 'f274' + tokenid + '01' + '21' + Buffer.from(key1).toString('hex') + '01' + '05' + '04e3620102';
  // 76 bytes: an OP_PUSHDATA1 push.
  const transferScript = '6a4c' + (transfer.length / 2).toString(16) + transfer;
  assert.deepEqual(await d.rpc('decodeccopret', transferScript), {
    result: 'success',
    OpRets: [{ eval_code: 'EVAL_TOKENS', function: 't' }, { eval_code: 'EVAL_ASSETS', function: 'b' }],
  });
  const noOpret = { result: 'error', error: 'invalid or no CC opret data' };
  assert.deepEqual(await d.rpc('decodeccopret', '76a914' + '00'.repeat(20) + '88ac'), noOpret);
  assert.deepEqual(await d.rpc('decodeccopret', 'zz'), noOpret);
  assert.deepEqual(await d.rpc('decodeccopret', '6a01f2'), noOpret);
  assert.deepEqual(await rpcError(d.rpc('decodeccopret', 5)), { code: -1, message: 'JSON value is not a string as expected' });

  // txnotarizedconfirmed: never notarised, so 101 confirmations are needed.
  await d.rpc('generate', 2);
  const coinbase = (await d.rpc<{ tx: string[] }>('getblock', await d.rpc<string>('getblockhash', 1))).tx[0]!;
  const notYet = await d.rpc<Record<string, unknown>>('txnotarizedconfirmed', coinbase);
  assert.deepEqual(notYet, { result: false });
  await d.rpc('generate', 99);
  assert.deepEqual(await d.rpc('txnotarizedconfirmed', coinbase), { result: true });
  assert.deepEqual(await d.rpc('txnotarizedconfirmed', 'ff'.repeat(32)), { result: false });
  assert.deepEqual(await d.rpc('txnotarizedconfirmed', 'nothex'), { result: false });
  assert.equal((await rpcError(d.rpc('txnotarizedconfirmed'))).message.split('\n')[0], 'txnotarizedconfirmed txid');

  // z_validateaddress on regtest: the regtest Sapling HRP decodes; main-net forms and R-addresses do not.
  const regtestSapling = 'zregtestsapling1e3puxpnal8ljjrqlxv4jctlyndxnm5a3mj5rarjvp0qv72hmm9caduxk9asu9kyc6erfxz3tn2p';
  const z = await d.rpc<Record<string, unknown>>('z_validateaddress', regtestSapling);
  assert.deepEqual(Object.keys(z), ['isvalid', 'address', 'type', 'diversifier', 'diversifiedtransmissionkey', 'ismine']);
  assert.deepEqual(z, {
    isvalid: true,
    address: regtestSapling,
    type: 'sapling',
    diversifier: 'cc43c3067df9ff290c1f33',
    diversifiedtransmissionkey: '9346d698d8c2612fd6f0d671d9fb2acfc00b4c8e3ea8dcb1d33d4d9be42f2c2b',
    ismine: false,
  });
  for (const bad of [mine, ZS_ZOMBIE, ZC_EXAMPLE, regtestSapling.slice(0, -1) + 'q', regtestSapling.toUpperCase().replace('ZREG', 'zreg'), '']) {
    assert.deepEqual(await d.rpc('z_validateaddress', bad), { isvalid: false }, bad);
  }
  assert.deepEqual(await d.rpc('z_validateaddress', regtestSapling.toUpperCase()), { ...z, address: regtestSapling.toUpperCase() });
  assert.deepEqual(await rpcError(d.rpc('z_validateaddress', 1)), { code: -1, message: 'JSON value is not a string as expected' });
});

/** A Komodo (ZOMBIE chain) Sapling address from the developer docs (vectors/komodo-examples/atomicdex-docs). */
const ZS_ZOMBIE = 'zs1e3puxpnal8ljjrqlxv4jctlyndxnm5a3mj5rarjvp0qv72hmm9caduxk9asu9kyc6erfx4zsauj';
/** komodod's own z_validateaddress help example: a Sprout address with the main-net prefix 16 9a. */
const ZC_EXAMPLE = 'zcWsmqT4X2V4jgxbgiCzyrAfRT1vi1F4sn7M5Pkh66izzw8Uk7LBGAH3DtcSMJeUb2pi3W4SQF8LMKkU2cUuVP68yAGcomL';

test('z_validateaddress on a main-net asset chain: zs and zc addresses, komodod key order', { timeout: 120_000 }, async (t) => {
  let m: Daemon | undefined;
  t.after(async () => {
    await m?.stop();
    if (m) removeDir(m.datadir);
  });
  m = await startDaemon(['-ac_name=UTILZ', '-ac_supply=1000', '-gen=0']);
  const s = await m.rpc<Record<string, unknown>>('z_validateaddress', ZS_ZOMBIE);
  assert.deepEqual(Object.keys(s), ['isvalid', 'address', 'type', 'diversifier', 'diversifiedtransmissionkey', 'ismine']);
  assert.equal(s.diversifier, 'cc43c3067df9ff290c1f33');
  assert.equal(s.diversifiedtransmissionkey, '9346d698d8c2612fd6f0d671d9fb2acfc00b4c8e3ea8dcb1d33d4d9be42f2c2b');
  const c = await m.rpc<Record<string, unknown>>('z_validateaddress', ZC_EXAMPLE);
  assert.deepEqual(Object.keys(c), ['isvalid', 'address', 'type', 'payingkey', 'transmissionkey', 'ismine']);
  assert.deepEqual(c, {
    isvalid: true,
    address: ZC_EXAMPLE,
    type: 'sprout',
    payingkey: 'f5bb3c888ccc9831e3f6ba06e7528e26a312eec3acc1823be8918b6a3a5e20ad',
    transmissionkey: '7a58c7132446564e6b810cf895c20537b3528357dc00150a8e201f491efa9c1a',
    ismine: false,
  });
  assert.deepEqual(await m.rpc('z_validateaddress', 'zregtestsapling1e3puxpnal8ljjrqlxv4jctlyndxnm5a3mj5rarjvp0qv72hmm9caduxk9asu9kyc6erfxz3tn2p'), { isvalid: false });
});
