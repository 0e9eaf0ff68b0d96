import { test } from 'node:test';
import assert from 'node:assert/strict';
import { walletDaemon } from '../helpers/wallet-rpc.js';
import { createHash } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { rpcError } from '../helpers/daemon.js';
import { encodeWIF, decodeWIF } from '../../src/chain/address/index.js';
import { encodeAddress, PUBKEY_ADDRESS } from '../../src/chain/address/address.js';
import { hash160 } from '../../src/chain/crypto/hash.js';

/**
 * signmessage (against the test's own CKey::SignCompact over komodod's message hash), getrawchangeaddress
 * and getunconfirmedbalance over HTTP: results, errors and help.
 */

const sha256d = (b: Uint8Array) => createHash('sha256').update(createHash('sha256').update(b).digest()).digest();

/** CHashWriter << strMessageMagic << strMessage (both with a one-byte length, short here). */
function messageHash(message: string): Uint8Array {
  const magic = Buffer.from('Komodo Signed Message:\n');
  const m = Buffer.from(message);
  return sha256d(Buffer.concat([Buffer.of(magic.length), magic, Buffer.of(m.length), m]));
}

function ownSign(key: Uint8Array, compressed: boolean, message: string): string {
  const sig = secp256k1.sign(messageHash(message), key, { prehash: false, format: 'recovered' });
  return Buffer.concat([Buffer.of(27 + sig[0]! + (compressed ? 4 : 0)), sig.subarray(1)]).toString('base64');
}

test('signmessage, getrawchangeaddress, getunconfirmedbalance as komodod answers them', async (t) => {
  const node = await walletDaemon(t);
  const err = (m: string, ...p: unknown[]) => rpcError(node.rpc(m, ...p));

  await t.test('signmessage: the wallet key signs deterministically, verifymessage agrees', async () => {
    const addr = await node.rpc<string>('getnewaddress');
    const sig = await node.rpc<string>('signmessage', addr, 'test test');
    assert.equal(await node.rpc('verifymessage', addr, sig, 'test test'), true);
    assert.equal(await node.rpc('verifymessage', addr, sig, 'test tesT'), false);
    assert.equal(await node.rpc<string>('signmessage', addr, 'test test'), sig, 'RFC 6979: the same signature every time');
    const wif = decodeWIF(await node.rpc<string>('dumpprivkey', addr))!;
    assert.equal(sig, ownSign(wif.key, true, 'test test'));
    // An uncompressed key imported: header 27 + recid, the address of the uncompressed key.
    const key = Uint8Array.from(createHash('sha256').update('uncompressed signer').digest());
    await node.rpc('importprivkey', encodeWIF(key, false), '', false);
    const uaddr = encodeAddress(PUBKEY_ADDRESS, hash160(secp256k1.getPublicKey(key, false)));
    const usig = await node.rpc<string>('signmessage', uaddr, 'héllo');
    assert.equal(usig, ownSign(key, false, 'héllo'));
    assert.equal(await node.rpc('verifymessage', uaddr, usig, 'héllo'), true);
    // Errors in komodod's order and form.
    const foreign = encodeAddress(PUBKEY_ADDRESS, new Uint8Array(20).fill(7));
    assert.deepEqual(await err('signmessage', foreign, 'm'), { code: -4, message: 'Private key not available' });
    assert.deepEqual(await err('signmessage', 'Rbad', 'm'), { code: -3, message: 'Invalid address' });
    const ms = await node.rpc<{ address: string }>('createmultisig', 1, [addr]);
    assert.deepEqual(await err('signmessage', ms.address, 'm'), { code: -3, message: 'Address does not refer to key' });
    assert.deepEqual(await err('signmessage', 5, 'm'), { code: -1, message: 'JSON value is not a string as expected' });
    assert.deepEqual(await err('signmessage', addr, 5), { code: -1, message: 'JSON value is not a string as expected' });
    const usage = await err('signmessage', addr);
    assert.equal(usage.code, -1);
    assert.ok(usage.message.startsWith('signmessage "t-addr" "message"\n\nSign a message with the private key of a t-addr\n\nArguments:\n'));
    // The key never reaches an answer or the log.
    assert.ok(!node.log.join('\n').includes(await node.rpc<string>('dumpprivkey', addr)));
  });

  await t.test('getrawchangeaddress: a new wallet key each call, outside the address book', async () => {
    const a = await node.rpc<string>('getrawchangeaddress');
    const b = await node.rpc<string>('getrawchangeaddress', 'ignored');
    assert.notEqual(a, b);
    const v = await node.rpc<Record<string, unknown>>('validateaddress', a);
    assert.equal(v.ismine, true);
    assert.equal(v.account, undefined, 'no address-book entry, as CReserveKey::KeepKey leaves it');
    const usage = await err('getrawchangeaddress', 1, 2);
    assert.equal(usage.code, -1);
    assert.equal(usage.message.split('\n').slice(0, 4).join('\n'), 'getrawchangeaddress\n\nReturns a new ACDEV address, for receiving change.\nThis is for use with raw transactions, NOT normal use.');
  });

  await t.test('getunconfirmedbalance: mempool coins from outside the wallet', async () => {
    await node.rpc('generate', 2);
    assert.equal(await node.rpc('getunconfirmedbalance'), 0);
    const usage = await err('getunconfirmedbalance', 1);
    assert.deepEqual(usage, { code: -1, message: "getunconfirmedbalance\nReturns the server's total unconfirmed balance\n" });
    // A coin at a key the wallet does not hold, then spent back to the wallet from outside.
    const key = Uint8Array.from(createHash('sha256').update('outsider').digest());
    const outsider = encodeAddress(PUBKEY_ADDRESS, hash160(secp256k1.getPublicKey(key, true)));
    const paid = await node.rpc<string>('sendtoaddress', outsider, 3);
    await node.rpc('generate', 1);
    const tx = await node.rpc<{ vout: { n: number; value: number; scriptPubKey: { addresses?: string[] } }[] }>('getrawtransaction', paid, 1);
    const out = tx.vout.find((o) => o.scriptPubKey.addresses?.[0] === outsider)!;
    const mine = await node.rpc<string>('getnewaddress');
    const raw = await node.rpc<string>('createrawtransaction', [{ txid: paid, vout: out.n }], { [mine]: 2.9999 });
    const signed = await node.rpc<{ hex: string; complete: boolean }>('signrawtransaction', raw, null, [encodeWIF(key, true)]);
    assert.equal(signed.complete, true);
    const balance = await node.rpc<number>('getbalance');
    await node.rpc('sendrawtransaction', signed.hex);
    assert.equal(await node.rpc('getunconfirmedbalance'), 2.9999);
    assert.equal(await node.rpc<number>('getbalance'), balance, 'untrusted: not in GetBalance');
    await node.rpc('generate', 1);
    assert.equal(await node.rpc('getunconfirmedbalance'), 0);
  });

  await t.test('getreceivedbyaddress: P2PKH outputs of non-coinbase wallet transactions at minconf', async () => {
    const addr = await node.rpc<string>('getnewaddress');
    const got = (minconf?: unknown) => node.rpc<number>('getreceivedbyaddress', addr, ...(minconf === undefined ? [] : [minconf]));
    assert.equal(await got(), 0);
    await node.rpc('sendtoaddress', addr, 1);
    assert.equal(await got(), 0);
    assert.equal(await got(0), 1);
    await node.rpc('generate', 1);
    assert.equal(await got(), 1);
    assert.equal(await got(2), 0);
    await node.rpc('sendtoaddress', addr, 0.25);
    await node.rpc('generate', 1);
    assert.equal(await got(2), 1);
    assert.equal(await got(), 1.25);
    // Spending the coins does not change what was received.
    await node.rpc('sendtoaddress', await node.rpc<string>('getnewaddress'), (await node.rpc<number>('getbalance')) - 1);
    await node.rpc('generate', 1);
    assert.equal(await got(), 1.25);
    // The node's address only received coinbases (and P2PK change): not tallied.
    const nodeAddr = encodeAddress(PUBKEY_ADDRESS, hash160(Buffer.from(await node.nodePubkey(), 'hex')));
    assert.ok((await node.rpc<number>('getbalance')) > 0);
    assert.equal(await node.rpc('getreceivedbyaddress', nodeAddr, 0), 0);
    // Not the wallet's (a P2SH too: createmultisig holds no redeem script): 0, before minconf is read; the wallet's with a bad minconf fails.
    const foreign = encodeAddress(PUBKEY_ADDRESS, new Uint8Array(20).fill(9));
    assert.equal(await node.rpc('getreceivedbyaddress', foreign, 'x'), 0);
    const ms = await node.rpc<{ address: string }>('createmultisig', 1, [addr]);
    assert.equal(await node.rpc('getreceivedbyaddress', ms.address, 0), 0);
    assert.deepEqual(await err('getreceivedbyaddress', addr, 'x'), { code: -1, message: 'JSON value is not an integer as expected' });
    assert.deepEqual(await err('getreceivedbyaddress', 'Rbad'), { code: -5, message: 'Invalid Komodo address' });
    const usage = await err('getreceivedbyaddress');
    assert.equal(usage.code, -1);
    assert.ok(usage.message.startsWith('getreceivedbyaddress "ACDEV_address" ( minconf )\n\nReturns the total amount received by the given ACDEV address in transactions with at least minconf confirmations.\n'));
  });

  await t.test('keypoolrefill: TopUpKeyPool to newsize + 1, -keypool (100) by default', async () => {
    const size = async () => (await node.rpc<{ keypoolsize: number }>('getwalletinfo')).keypoolsize;
    assert.equal(await size(), 101);
    assert.equal(await node.rpc('keypoolrefill', 150), null);
    assert.equal(await size(), 151);
    assert.equal(await node.rpc('keypoolrefill'), null);
    assert.equal(await node.rpc('keypoolrefill', 0), null);
    assert.equal(await size(), 151, 'never shrinks');
    assert.deepEqual(await err('keypoolrefill', -1), { code: -8, message: 'Invalid parameter, expected valid size.' });
    assert.deepEqual(await err('keypoolrefill', 'x'), { code: -1, message: 'JSON value is not an integer as expected' });
    const usage = await err('keypoolrefill', 1, 2);
    assert.equal(usage.code, -1);
    assert.ok(usage.message.startsWith('keypoolrefill ( newsize )\n\nFills the keypool.\n\nArguments\n1. newsize     (numeric, optional, default=100) The new keypool size\n\nExamples:\n'));
  });

  await t.test('resendwallettransactions: the wallet transactions in the mempool, oldest first', async () => {
    assert.deepEqual(await node.rpc('resendwallettransactions'), []);
    const addr = await node.rpc<string>('getnewaddress');
    const a = await node.rpc<string>('sendtoaddress', addr, 1);
    const b = await node.rpc<string>('sendtoaddress', addr, 2);
    const got = await node.rpc<string[]>('resendwallettransactions');
    assert.deepEqual([...got].sort(), [a, b].sort());
    await node.rpc('generate', 1);
    assert.deepEqual(await node.rpc('resendwallettransactions'), []);
    const usage = await err('resendwallettransactions', 1);
    assert.deepEqual(usage, {
      code: -1,
      message: 'resendwallettransactions\nImmediately re-broadcast unconfirmed wallet transactions to all peers.\nIntended only for testing; the wallet code periodically re-broadcasts\nautomatically.\nReturns array of transaction ids that were re-broadcast.\n',
    });
  });
});
