import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Unspent, walletDaemon } from '../helpers/wallet-rpc.js';
import { startDaemon, removeDir, RpcCallError, type Daemon } from '../helpers/daemon.js';
import { decodeWIF, p2shAddress } from '../../src/chain/address/index.js';
import { publicKeyFromPrivate } from '../../src/chain/crypto/secp256k1.js';
import { concatScript, pushData } from '../../src/chain/script/script.js';
import { OP_2, OP_3, OP_CHECKMULTISIG } from '../../src/chain/script/opcodes.js';
import { Transaction } from '../../src/chain/tx/transaction.js';

/**
 * The raw-transaction workflow over HTTP against a real daemon (issue 5 item 6): create → fund →
 * sign → send → generate → getrawtransaction; a 2-of-3 P2SH multisig signed by two parties in turn;
 * signing with only given keys; every sighash type accepted by the node; wrong key and missing
 * prevtx; komodod's codes and messages for bad input, the wallet unchanged.
 */

interface Signed {
  hex: string;
  complete: boolean;
  errors?: { txid: string; vout: number; scriptSig: string; sequence: number; error: string }[];
}

async function rpcError(d: Daemon, method: string, ...params: unknown[]): Promise<{ code: number; message: string } | 'no error'> {
  try {
    await d.rpc(method, ...params);
  } catch (e) {
    if (e instanceof RpcCallError) return { code: e.code, message: e.message };
    throw e;
  }
  return 'no error';
}

test('wallet raw-transaction workflow over HTTP', async (t) => {
  const d = await walletDaemon(t);
  await d.rpc('generate', 2);

  await t.test('create → fund → sign → send → generate → getrawtransaction', async () => {
    const to = await d.rpc<string>('getnewaddress');
    const raw = await d.rpc<string>('createrawtransaction', [], { [to]: 1.5 });
    const tip = await d.rpc<number>('getblockcount');
    const tx = Transaction.fromHex(raw);
    // -ac_sapling=1: v4 with expiry next height + 200.
    assert.equal(tx.version, 4);
    assert.equal(tx.expiryHeight, tip + 1 + 200);
    assert.equal(tx.vin.length, 0);

    const funded = await d.rpcRaw<{ hex: string; changepos: number; fee: number }>('fundrawtransaction', [raw]);
    assert.equal(funded.error, null);
    // komodod's key order: hex, changepos, fee (the help text says otherwise); the 5000-sat floor.
    assert.match(funded.raw, /^\{"result":\{"hex":"[0-9a-f]+","changepos":0,"fee":0\.00005000\}/);
    const ftx = Transaction.fromHex(funded.result.hex);
    assert.equal(ftx.vout.length, 2);
    assert.equal(ftx.vout[1]!.value, 150_000_000n, 'the payee moves behind the change');
    assert.ok(ftx.vin.every((i) => i.sequence === 0xfffffffe && i.scriptSig.length === 0));

    const signed = await d.rpcRaw<Signed>('signrawtransaction', [funded.result.hex]);
    assert.equal(signed.result.complete, true);
    assert.ok(!signed.raw.includes('"errors"'), 'errors only when non-empty');
    // Deterministic (RFC 6979): the same inputs and keys sign to the same bytes.
    const again = await d.rpc<Signed>('signrawtransaction', funded.result.hex);
    assert.equal(again.hex, signed.result.hex);

    const txid = await d.rpc<string>('sendrawtransaction', signed.result.hex);
    await d.rpc('generate', 1);
    const verbose = await d.rpc<{ confirmations: number; txid: string }>('getrawtransaction', txid, 1);
    assert.equal(verbose.txid, txid);
    assert.equal(verbose.confirmations, 1);
    const unspent = await d.rpc<Unspent[]>('listunspent', 1, 9999999, [to]);
    assert.equal(unspent.length, 1);
    assert.equal(unspent[0]!.amount, 1.5);
    const wtx = await d.rpc<{ confirmations: number; fee: number; txid: string }>('gettransaction', txid);
    assert.equal(wtx.confirmations, 1);
    assert.equal(wtx.fee, -0.00005);
  });

  await t.test('2-of-3 P2SH multisig signed by two parties in turn', async () => {
    const wifs: string[] = [];
    for (let i = 0; i < 3; i++) wifs.push(await d.rpc<string>('dumpprivkey', await d.rpc<string>('getnewaddress')));
    const pubs = wifs.map((w) => {
      const k = decodeWIF(w)!;
      return publicKeyFromPrivate(k.key, k.compressed);
    });
    const redeem = concatScript(OP_2, ...pubs.map(pushData), OP_3, OP_CHECKMULTISIG);
    const p2sh = p2shAddress(redeem);
    assert.equal((await d.rpc<{ isvalid: boolean; isscript: boolean }>('validateaddress', p2sh)).isscript, true);
    const fundTxid = await d.rpc<string>('sendtoaddress', p2sh, 2);
    await d.rpc('generate', 1);
    const fundTx = Transaction.fromHex(await d.rpc<string>('getrawtransaction', fundTxid));
    const n = fundTx.vout.findIndex((o) => o.value === 200_000_000n);
    const spk = Buffer.from(fundTx.vout[n]!.script).toString('hex');
    const dest = await d.rpc<string>('getnewaddress');
    const raw = await d.rpc<string>('createrawtransaction', [{ txid: fundTxid, vout: n }], { [dest]: 1.9999 });
    const prevtxs = [{ txid: fundTxid, vout: n, scriptPubKey: spk, redeemScript: Buffer.from(redeem).toString('hex'), amount: 2 }];

    const first = await d.rpc<Signed>('signrawtransaction', raw, prevtxs, [wifs[0]]);
    assert.equal(first.complete, false);
    assert.equal(first.errors!.length, 1);
    assert.equal(first.errors![0]!.txid, fundTxid);
    assert.equal(first.errors![0]!.vout, n);
    const second = await d.rpc<Signed>('signrawtransaction', first.hex, prevtxs, [wifs[2]]);
    assert.equal(second.complete, true);
    assert.equal(second.errors, undefined);
    const txid = await d.rpc<string>('sendrawtransaction', second.hex);
    await d.rpc('generate', 1);
    assert.equal((await d.rpc<{ confirmations: number }>('getrawtransaction', txid, 1)).confirmations, 1);
  });

  await t.test('signing with only the given keys; wrong key; missing prevtx', async () => {
    const coin = (await d.rpc<Unspent[]>('listunspent')).find((u) => !u.generated && u.amount > 0.1)!;
    const dest = await d.rpc<string>('getnewaddress');
    const raw = await d.rpc<string>('createrawtransaction', [{ txid: coin.txid, vout: coin.vout }], { [dest]: 0.01 });
    // An empty key list signs nothing, even though the wallet holds the key.
    const none = await d.rpc<Signed>('signrawtransaction', raw, null, []);
    assert.equal(none.complete, false);
    assert.equal(none.errors![0]!.error, 'Operation not valid with the current stack size');
    assert.equal(none.errors![0]!.scriptSig, '');
    assert.equal(none.errors![0]!.sequence, 0xffffffff);
    // A key that is not the coin's: still unsigned.
    const other = await d.rpc<string>('dumpprivkey', await d.rpc<string>('getnewaddress'));
    const wrong = await d.rpc<Signed>('signrawtransaction', raw, null, [other]);
    assert.equal(wrong.complete, false);
    // The right key given explicitly.
    const right = await d.rpc<Signed>('signrawtransaction', raw, null, [await d.rpc<string>('dumpprivkey', coin.address)]);
    assert.equal(right.complete, true);
    // An input nobody knows.
    const ghost = 'ab'.repeat(32);
    const raw2 = await d.rpc<string>('createrawtransaction', [{ txid: ghost, vout: 3 }], { [dest]: 0.01 });
    const missing = await d.rpc<Signed>('signrawtransaction', raw2);
    assert.equal(missing.complete, false);
    assert.deepEqual(missing.errors, [{ txid: ghost, vout: 3, scriptSig: '', sequence: 4294967295, error: 'Input not found or already spent' }]);
  });

  await t.test('every sighash type gives a transaction the node accepts', async () => {
    const me = await d.rpc<string>('getnewaddress');
    // Six coins to spend, one per sighash type.
    const split: Record<string, number> = {};
    const addrs: string[] = [];
    for (let i = 0; i < 6; i++) {
      const a = await d.rpc<string>('getnewaddress');
      addrs.push(a);
      split[a] = 1;
    }
    const splitTxid = await d.rpc<string>('sendmany', '', split);
    await d.rpc('generate', 1);
    const coins = await d.rpc<Unspent[]>('listunspent', 1, 9999999, addrs);
    assert.equal(coins.length, 6);
    assert.ok(coins.every((c) => c.txid === splitTxid));
    const types = ['ALL', 'NONE', 'SINGLE', 'ALL|ANYONECANPAY', 'NONE|ANYONECANPAY', 'SINGLE|ANYONECANPAY'];
    for (let i = 0; i < types.length; i++) {
      const c = coins[i]!;
      const raw = await d.rpc<string>('createrawtransaction', [{ txid: c.txid, vout: c.vout }], { [me]: 0.9999 });
      const s: Signed = await d.rpc<Signed>('signrawtransaction', raw, null, null, types[i]);
      assert.equal(s.complete, true, types[i]);
      const sig = Transaction.fromHex(s.hex).vin[0]!.scriptSig;
      const hashType = sig[sig[0]!]!; // the byte ending the pushed signature
      assert.equal(hashType, [1, 2, 3, 0x81, 0x82, 0x83][i]);
      await d.rpc('sendrawtransaction', s.hex);
    }
    await d.rpc('generate', 1);
    assert.equal((await d.rpc<string[]>('getrawmempool')).length, 0);
  });

  await t.test('getaccountaddress, getwalletinfo, setpubkey, validateaddress: komodod fields and order', async () => {
    const acct = await d.rpc<string>('getaccountaddress', '');
    assert.equal(await d.rpc<string>('getaccountaddress', ''), acct, 'the same address while it is unused');
    await d.rpc('sendtoaddress', acct, 1);
    assert.notEqual(await d.rpc<string>('getaccountaddress', ''), acct, 'a fresh one once it received');
    const info = await d.rpcRaw('getwalletinfo', []);
    assert.match(info.raw, /^\{"result":\{"walletversion":60000,"balance":[0-9.]+,"unconfirmed_balance":0\.00000000,"immature_balance":0\.00000000,"txcount":\d+,"keypoololdest":\d+,"keypoolsize":\d+,"paytxfee":0\.00000000\}/);
    const v = await d.rpcRaw('validateaddress', [acct]);
    assert.match(v.raw, /^\{"result":\{"isvalid":true,"address":"R[^"]+","scriptPubKey":"76a914[0-9a-f]{40}88ac","segid":\d+,"ismine":true,"iswatchonly":false,"isscript":false,"pubkey":"0[23][0-9a-f]{64}","iscompressed":true,"account":""\}/);
    assert.deepEqual(await d.rpc('validateaddress', 'nope'), { isvalid: false });
    // setpubkey once (the dev chain runs without -pubkey), then refused with the pubkey kept.
    const pub = (await d.rpc<{ pubkey: string }>('validateaddress', acct)).pubkey;
    assert.deepEqual(await d.rpc('setpubkey', pub), { ismine: 'true', address: acct, pubkey: pub });
    assert.deepEqual(await d.rpc('setpubkey', pub), { error: 'Can only set pubkey once, to change it you need to restart your daemon.', address: acct, pubkey: pub });
    // Change now goes to that pubkey (USE_EXTERNAL_PUBKEY): <pubkey> OP_CHECKSIG.
    const f = await d.rpc<{ hex: string; changepos: number }>('fundrawtransaction', await d.rpc<string>('createrawtransaction', [], { [acct]: 0.5 }));
    assert.equal(Buffer.from(Transaction.fromHex(f.hex).vout[f.changepos]!.script).toString('hex'), `21${pub}ac`);
  });

  await t.test("bad input: komodod's codes and messages, the wallet unchanged", async () => {
    const before = await d.rpc<number>('getbalance');
    const unspentBefore = (await d.rpc<Unspent[]>('listunspent')).length;
    const addr = await d.rpc<string>('getnewaddress');
    const p2pk = `21${(await d.rpc<{ pubkey: string }>('validateaddress', addr)).pubkey}ac`;
    const txid = 'cd'.repeat(32);
    const cases: [string, unknown[], number, string][] = [
      // A P2PK script and the R-address of the same key are the same CTxDestination in komodod.
      ['createrawtransaction', [[], { [addr]: 1, [p2pk]: 2 }], -8, `Invalid parameter, duplicated destination: ${p2pk}`],
      ['createrawtransaction', [[], { RBadAddress: 1 }], -5, 'Invalid Komodo address or script: RBadAddress'],
      ['createrawtransaction', [[], { [addr]: -1 }], -3, 'Amount out of range'],
      ['createrawtransaction', [[], { [addr]: '0.000000001' }], -3, 'Invalid amount'],
      ['createrawtransaction', [[{ txid: 'xyz', vout: 0 }], {}], -8, "txid must be hexadecimal string (not 'xyz')"],
      ['createrawtransaction', [[{ txid }], {}], -8, 'Invalid parameter, missing vout key'],
      ['createrawtransaction', [[{ txid, vout: -1 }], {}], -8, 'Invalid parameter, vout must be positive'],
      ['createrawtransaction', [[], {}, -1], -8, 'Invalid parameter, locktime out of range'],
      ['createrawtransaction', [[], {}, 0, 500000000], -8, 'Invalid parameter, expiryheight must be nonnegative and less than 500000000.'],
      ['createrawtransaction', [null, {}], -8, 'Invalid parameter, arguments 1 and 2 must be non-null'],
      ['createrawtransaction', [{}, {}], -3, 'Expected type array, got object'],
      ['createrawtransaction', [[], { data: 'zz' }], -8, "Data must be hexadecimal string (not 'zz')"],
      ['createrawtransaction', [[], { '76a914': 1 }], -5, 'Invalid script: 76a914 (only P2PKH, P2PK and P2SH scripts are allowed)'],
      ['signrawtransaction', ['00'], -22, 'TX decode failed'],
      ['signrawtransaction', ['zz'], -8, "argument 1 must be hexadecimal string (not 'zz')"],
      ['signrawtransaction', [await d.rpc<string>('createrawtransaction', [], {}), null, ['notakey']], -5, 'Invalid private key'],
      ['signrawtransaction', [await d.rpc<string>('createrawtransaction', [], {}), null, null, 'EVERYTHING'], -8, 'Invalid sighash param'],
      ['signrawtransaction', [await d.rpc<string>('createrawtransaction', [], {}), null, null, 'ALL', '12345678'], -1, '12345678 is not a valid consensus branch id'],
      ['signrawtransaction', [await d.rpc<string>('createrawtransaction', [], {}), [1]], -22, 'expected object with {"txid\'","vout","scriptPubKey"}'],
      ['signrawtransaction', [await d.rpc<string>('createrawtransaction', [], {}), [{ txid, vout: 0 }]], -3, 'Missing scriptPubKey'],
      ['fundrawtransaction', ['zz'], -22, 'TX decode failed'],
      ['fundrawtransaction', [await d.rpc<string>('createrawtransaction', [], { [addr]: 10000500 })], -32603, 'Insufficient funds'],
      ['fundrawtransaction', [await d.rpc<string>('createrawtransaction', [], {})], -32603, 'Transaction amounts must be positive'],
      ['fundrawtransaction', [await d.rpc<string>('createrawtransaction', [], { [addr]: 0.0000001 })], -32603, 'Transaction amount too small'],
      ['fundrawtransaction', [await d.rpc<string>('createrawtransaction', [{ txid, vout: 0 }], { [addr]: 1 })], -32603, 'Insufficient funds'],
      ['sendtoaddress', ['RBadAddress', 1], -5, 'Invalid Komodo address'],
      ['sendtoaddress', [addr, 0], -3, 'Invalid amount for send'],
      ['sendtoaddress', [addr, 10000500], -6, 'Insufficient funds'],
      ['listunspent', [1, 9, ['RBad']], -5, 'Invalid Komodo address: RBad'],
      ['listunspent', [1, 9, [addr, addr]], -8, `Invalid parameter, duplicated address: ${addr}`],
      ['dumpprivkey', ['RBad'], -5, 'Invalid transparent address'],
      ['importprivkey', ['notakey'], -5, 'Invalid private key encoding'],
      ['gettransaction', [txid], -5, 'Invalid or non-wallet transaction id'],
      ['backupwallet', ['x'], -4, 'Cannot backup wallet until the -exportdir option has been set'],
      ['dumpwallet', ['x'], -4, 'Cannot export wallet until the komodod -exportdir option has been set'],
    ];
    for (const [method, params, code, message] of cases) {
      assert.deepEqual(await rpcError(d!, method, ...params), { code, message }, `${method} ${JSON.stringify(params)}`);
    }
    const sigPrev = await d.rpc<Signed>('signrawtransaction', await d.rpc<string>('createrawtransaction', [], {}));
    assert.deepEqual(sigPrev, { hex: sigPrev.hex, complete: true });
    // Non-hex branch id text parses as 0 (Sprout), a valid id: komodod's istringstream quirk.
    assert.equal((await d.rpc<Signed>('signrawtransaction', sigPrev.hex, null, null, 'ALL', 'zz')).complete, true);
    assert.equal(await d.rpc<number>('getbalance'), before);
    assert.equal((await d.rpc<Unspent[]>('listunspent')).length, unspentBefore);
    // Help texts are komodod's.
    const help = await d.rpc<string>('help', 'fundrawtransaction');
    assert.match(help, /^fundrawtransaction "hexstring"\n\nAdd inputs to a transaction until it has enough in value to meet its out value\./);
  });
});

test('before Sapling (an asset chain without -ac_sapling): v1 transactions, no expiry height', async (t) => {
  const d = await startDaemon(['-gen=0', '-ac_name=WALVONE', '-ac_supply=1000', '-regtest', '-txexpirydelta=150']);
  t.after(async () => {
    await d.stop();
    removeDir(d.datadir);
  });
  assert.equal(await d.rpc('createrawtransaction', [], {}), '01000000000000000000');
  assert.deepEqual(await rpcError(d, 'createrawtransaction', [], {}, 0, 5), {
    code: -8,
    message: 'Invalid parameter, expiryheight can only be used if Overwinter is active when the transaction is mined',
  });
  // A locktime makes the default sequence 0xfffffffe.
  const withLock = Transaction.fromHex(await d.rpc<string>('createrawtransaction', [{ txid: 'ef'.repeat(32), vout: 1 }], {}, 77));
  assert.equal(withLock.lockTime, 77);
  assert.equal(withLock.vin[0]!.sequence, 0xfffffffe);
  await d.rpc('generate', 2);
  const to = await d.rpc<string>('getnewaddress');
  const funded = await d.rpc<{ hex: string; changepos: number; fee: number }>('fundrawtransaction', await d.rpc<string>('createrawtransaction', [], { [to]: 1 }));
  assert.equal(Transaction.fromHex(funded.hex).version, 1);
  const signed = await d.rpc<Signed>('signrawtransaction', funded.hex);
  assert.equal(signed.complete, true);
  const txid = await d.rpc<string>('sendrawtransaction', signed.hex);
  const sent = await d.rpc<string>('sendtoaddress', to, 2);
  await d.rpc('generate', 1);
  for (const id of [txid, sent]) assert.equal((await d.rpc<{ confirmations: number; version: number }>('getrawtransaction', id, 1)).version, 1);
});
