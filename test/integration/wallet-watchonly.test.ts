import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Unspent, walletDaemon } from '../helpers/wallet-rpc.js';
import { foreignKey } from '../helpers/foreign-key.js';
import { rpcError } from '../helpers/daemon.js';

/**
 * Watch-only over HTTP, as komodod 0adeeab answers it: importaddress (addresses and hex scripts,
 * labels, rescan, errors), the watch-only levels in validateaddress, listunspent, getbalance,
 * listtransactions, gettransaction and listsinceblock (includeWatchonly, involvesWatchonly), coin
 * selection never taking a watch-only coin, addmultisigaddress (a P2SH the wallet can spend, signed
 * by signrawtransaction with the wallet's redeem script), all of it kept across a restart, and
 * cleanwallettransactions.
 */

type R = Record<string, unknown>;

test('watch-only addresses and scripts, multisig addresses and cleanwallettransactions as komodod answers them', async (t) => {
  const node = await walletDaemon(t);
  const err = (m: string, ...p: unknown[]) => rpcError(node.rpc(m, ...p));
  const unspentAt = async (address: string, ...p: unknown[]) => (await node.rpc<Unspent[]>('listunspent', ...p)).filter((u) => u.address === address);

  await node.rpc('generate', 2);
  const w = foreignKey();
  const hexOnly = foreignKey();
  const mine = await node.rpc<string>('getnewaddress');

  await t.test('importaddress: usage, type and address errors', async () => {
    const usage = await err('importaddress');
    assert.equal(usage.code, -1);
    assert.ok(usage.message.startsWith('importaddress "address" ( "label" rescan )\n\nAdds an address or script (in hex) that can be watched as if it were in your wallet but cannot be used to spend.\n'));
    assert.ok(usage.message.includes('> acnode-cli -ac_name=ACDEV importaddress "myaddress" "testing" false\n'));
    // komodod 0adeeab takes three params: there is no p2sh flag.
    assert.equal((await err('importaddress', w.address, '', false, true)).code, -1);
    assert.deepEqual(await err('importaddress', 'notanaddress'), { code: -5, message: 'Invalid Komodo address or script' });
    assert.deepEqual(await err('importaddress', ''), { code: -5, message: 'Invalid Komodo address or script' });
    assert.deepEqual(await err('importaddress', 'abc'), { code: -5, message: 'Invalid Komodo address or script' });
    assert.deepEqual(await err('importaddress', 5), { code: -1, message: 'JSON value is not a string as expected' });
    assert.deepEqual(await err('importaddress', w.address, 'x', 'yes'), { code: -1, message: 'JSON value is not a boolean as expected' });
    assert.deepEqual(await err('importaddress', mine), { code: -4, message: 'The wallet already contains the private key for this address or script' });
    const mineScript = (await node.rpc<R>('validateaddress', mine)).scriptPubKey as string;
    assert.deepEqual(await err('importaddress', mineScript), { code: -4, message: 'The wallet already contains the private key for this address or script' });
    const v = await node.rpc<R>('validateaddress', w.address);
    assert.equal(v.ismine, false);
    assert.equal(v.iswatchonly, false);
    assert.equal('account' in v, false);
  });

  let paid = '';
  let spendable = 0;
  await t.test('an imported address is watch-only: validateaddress, listunspent, getbalance', async () => {
    assert.equal(await node.rpc('importaddress', w.address, 'watched', false), null);
    const v = await node.rpc<R>('validateaddress', w.address);
    assert.deepEqual(Object.keys(v), ['isvalid', 'address', 'scriptPubKey', 'segid', 'ismine', 'iswatchonly', 'isscript', 'account']);
    assert.equal(v.ismine, false);
    assert.equal(v.iswatchonly, true);
    assert.equal(v.account, 'watched');
    // Importing it again answers null; the label is set again.
    assert.equal(await node.rpc('importaddress', w.address, 'watched2', false), null);
    assert.equal((await node.rpc<R>('validateaddress', w.address)).account, 'watched2');

    const before = await node.rpc<number>('getbalance');
    paid = await node.rpc<string>('sendtoaddress', w.address, 5);
    await node.rpc('generate', 1);
    spendable = await node.rpc<number>('getbalance');
    const coins = await unspentAt(w.address);
    assert.equal(coins.length, 1);
    const c = coins[0]!;
    assert.equal(c.txid, paid);
    assert.equal(c.amount, 5);
    assert.equal(c.spendable, false);
    assert.equal(c.account, 'watched2');
    assert.equal(c.scriptPubKey, w.script);
    assert.deepEqual(Object.keys(c), ['txid', 'vout', 'generated', 'address', 'segid', 'account', 'amount', 'interest', 'scriptPubKey', 'rawconfirmations', 'confirmations', 'spendable']);
    assert.deepEqual(await node.rpc<Unspent[]>('listunspent', 1, 9999999, [w.address]), coins);
    // getbalance leaves it out; includeWatchonly counts it.
    assert.ok(spendable < before, 'the 5 sent left the spendable balance');
    assert.equal(await node.rpc<number>('getbalance', '*', 1), spendable);
    assert.equal(await node.rpc<number>('getbalance', '*', 1, false), spendable);
    assert.equal(Math.round((await node.rpc<number>('getbalance', '*', 1, true)) * 1e8), Math.round(spendable * 1e8) + 5e8);
    // GetAccountBalance counts the label's watched address only with includeWatchonly (ISMINE_WATCH_ONLY).
    assert.equal(await node.rpc<number>('getbalance', 'watched2', 1, true), 5);
    assert.equal(await node.rpc<number>('getbalance', 'watched2', 1), 0);
    // ListReceived: the watched address with includeWatchonly (involvesWatchonly), not without.
    const byAddr = await node.rpc<R[]>('listreceivedbyaddress', 1, false, true);
    const row = byAddr.find((r) => r.address === w.address);
    assert.ok(row, 'the watched address is listed with includeWatchonly');
    assert.equal(row.involvesWatchonly, true);
    assert.equal(row.account, 'watched2');
    assert.equal(row.amount, 5);
    assert.deepEqual(row.txids, [paid]);
    assert.equal((await node.rpc<R[]>('listreceivedbyaddress', 1, false)).find((r) => r.address === w.address), undefined);
    assert.equal((await node.rpc<R[]>('listreceivedbyaddress', 1, true)).find((r) => r.address === w.address), undefined);
    // By account, and listaccounts: the label's account with includeWatchonly only.
    const byAcc = (await node.rpc<R[]>('listreceivedbyaccount', 1, false, true)).find((r) => r.account === 'watched2');
    assert.deepEqual(byAcc && [byAcc.amount, byAcc.involvesWatchonly], [5, true]);
    assert.equal((await node.rpc<R[]>('listreceivedbyaccount', 1, true)).find((r) => r.account === 'watched2'), undefined);
    assert.equal((await node.rpc<Record<string, number>>('listaccounts', 1, true)).watched2, 5);
    assert.equal((await node.rpc<Record<string, number>>('listaccounts', 1)).watched2, undefined);
    assert.equal((await node.rpc<R>('getwalletinfo')).balance, spendable);
    // getreceivedbyaddress tallies an address IsMine at any level.
    assert.equal(await node.rpc<number>('getreceivedbyaddress', w.address), 5);
    assert.equal(await node.rpc<number>('getreceivedbyaddress', hexOnly.address), 0);
  });

  await t.test('history: involvesWatchonly where komodod prints it, includeWatchonly adds the watch-only entries', async () => {
    const onlyMine = (await node.rpc<R[]>('listtransactions', '*', 100)).filter((e) => e.txid === paid);
    // The send to the watched address: its destination is watched, so the entry says so even without the flag.
    assert.deepEqual(
      onlyMine.map((e) => [e.category, e.address, e.involvesWatchonly]),
      onlyMine.map((e) => [e.category, e.address, e.address === w.address ? true : undefined]),
    );
    assert.ok(onlyMine.some((e) => e.category === 'send' && e.address === w.address && e.involvesWatchonly === true), 'the send to the watched address says involvesWatchonly');
    assert.ok(!onlyMine.some((e) => e.category === 'receive' && e.address === w.address), 'no watch-only receive entry without includeWatchonly');
    const all = (await node.rpc<R[]>('listtransactions', '*', 100, 0, true)).filter((e) => e.txid === paid);
    const recv = all.find((e) => e.category === 'receive' && e.address === w.address)!;
    assert.ok(recv, 'the watch-only receive entry with includeWatchonly');
    assert.equal(Object.keys(recv)[0], 'involvesWatchonly');
    assert.equal(recv.account, 'watched2');
    assert.equal(recv.amount, 5);
    assert.equal(all.length, onlyMine.length + 1);

    const tx = await node.rpc<R>('gettransaction', paid);
    const txw = await node.rpc<R>('gettransaction', paid, true);
    assert.equal((txw.details as R[]).length, (tx.details as R[]).length + 1);
    // The credit of the watched output counts under includeWatchonly: amount rises by 5.
    assert.equal(Math.round(((txw.amount as number) - (tx.amount as number)) * 1e8), 5e8);
    assert.equal(txw.fee, tx.fee);

    const since = await node.rpc<R>('listsinceblock', '', 1, true);
    assert.ok((since.transactions as R[]).some((e) => e.txid === paid && e.category === 'receive' && e.address === w.address && e.involvesWatchonly === true), 'the watch-only entry with includeWatchonly');
    const sinceMine = await node.rpc<R>('listsinceblock', '', 1);
    assert.ok(!(sinceMine.transactions as R[]).some((e) => e.txid === paid && e.category === 'receive' && e.address === w.address), 'no watch-only entry without includeWatchonly');
  });

  await t.test('coin selection never takes a watch-only coin', async () => {
    // Every spendable coin locked: only the watch-only one is left, and it is never selected.
    const locked = (await node.rpc<Unspent[]>('listunspent', 0)).filter((u) => u.spendable).map((u) => ({ txid: u.txid, vout: u.vout }));
    assert.equal(await node.rpc('lockunspent', false, locked), true);
    try {
      assert.deepEqual(await err('sendtoaddress', mine, 1), { code: -4, message: 'Insufficient funds' });
      const raw = await node.rpc<string>('createrawtransaction', [], { [mine]: 1 });
      assert.deepEqual(await err('fundrawtransaction', raw), { code: -32603, message: 'Insufficient funds' });
    } finally {
      assert.equal(await node.rpc('lockunspent', true), true);
    }
    const watched = (await unspentAt(w.address, 0))[0]!;
    const txid = await node.rpc<string>('sendtoaddress', mine, 1);
    const spent = (await node.rpc<R>('getrawtransaction', txid, 1)).vin as R[];
    assert.ok(!spent.some((i) => i.txid === watched.txid && i.vout === watched.vout), 'the watched coin stays unspent');
    assert.deepEqual(await unspentAt(w.address, 0), [watched]);
  });

  await t.test('a hex script imported with a rescan: earlier coins found, no address-book entry', async () => {
    const earlier = await node.rpc<string>('sendtoaddress', hexOnly.address, 2);
    await node.rpc('generate', 1);
    assert.equal((await unspentAt(hexOnly.address)).length, 0, 'not watched yet');
    assert.equal(await node.rpc('importaddress', hexOnly.script), null);
    const coins = await unspentAt(hexOnly.address);
    assert.deepEqual(coins.map((c) => [c.txid, c.amount, c.spendable, 'account' in c]), [[earlier, 2, false, false]]);
    const v = await node.rpc<R>('validateaddress', hexOnly.address);
    assert.equal(v.iswatchonly, true);
    assert.equal('account' in v, false);
    assert.ok((await node.rpc<R[]>('listtransactions', '*', 100, 0, true)).some((e) => e.txid === earlier && e.category === 'receive' && e.involvesWatchonly === true), 'the rescan recorded the earlier payment');
  });

  let multisig = '';
  let partialMultisig = '';
  let multisigCoin: Unspent | undefined;
  const k1 = await node.rpc<string>('getnewaddress');
  const k2 = await node.rpc<string>('getnewaddress');
  const pub2 = (await node.rpc<R>('validateaddress', k2)).pubkey as string;
  await t.test('addmultisigaddress: errors, and a P2SH of the wallet\'s own keys it can spend', async () => {
    const usage = await err('addmultisigaddress', 1);
    assert.equal(usage.code, -1);
    assert.ok(usage.message.startsWith('addmultisigaddress nrequired ["key",...] ( "account" )\n\nAdd a nrequired-to-sign multisignature address to the wallet.\nEach key is a ACDEV address or hex-encoded public key.\n'));
    assert.deepEqual(await err('addmultisigaddress', 0, [k1]), { code: -1, message: 'a multisignature address must require at least one key to redeem' });
    assert.deepEqual(await err('addmultisigaddress', 3, [k1, k2]), { code: -1, message: 'not enough keys supplied (got 2 keys, but need at least 3 to redeem)' });
    assert.deepEqual(await err('addmultisigaddress', 1, ['zz']), { code: -1, message: ' Invalid public key: zz' });
    assert.deepEqual(await err('addmultisigaddress', 1, [w.address]), { code: -1, message: `no full public key for address ${w.address}` });
    assert.deepEqual(await err('addmultisigaddress', 1, [k1], '*'), { code: -11, message: 'Invalid account name' });

    multisig = await node.rpc<string>('addmultisigaddress', 2, [k1, pub2], 'shared');
    const created = await node.rpc<R>('createmultisig', 2, [k1, pub2]);
    assert.equal(multisig, created.address);
    const v = await node.rpc<R>('validateaddress', multisig);
    assert.deepEqual(Object.keys(v), ['isvalid', 'address', 'scriptPubKey', 'segid', 'ismine', 'iswatchonly', 'isscript', 'script', 'hex', 'addresses', 'sigsrequired', 'account']);
    assert.equal(v.ismine, true);
    assert.equal(v.iswatchonly, false);
    assert.equal(v.script, 'multisig');
    assert.equal(v.hex, created.redeemScript);
    assert.deepEqual(v.addresses, [k1, k2]);
    assert.equal(v.sigsrequired, 2);
    assert.equal(v.account, 'shared');

    // Holding one key of two: the P2SH is not the wallet's (komodod wants every key).
    const partial = await node.rpc<string>('addmultisigaddress', 1, [k1, w.pubkey]);
    partialMultisig = partial;
    const vp = await node.rpc<R>('validateaddress', partial);
    assert.equal(vp.ismine, false);
    assert.equal(vp.iswatchonly, false);
    assert.equal(vp.account, '');
    assert.deepEqual(vp.addresses, [k1, w.address]);

    const funded = await node.rpc<string>('sendtoaddress', multisig, 3);
    await node.rpc('generate', 1);
    const coins = await unspentAt(multisig);
    assert.equal(coins.length, 1);
    multisigCoin = coins[0]!;
    assert.equal(multisigCoin.txid, funded);
    assert.equal(multisigCoin.spendable, true);
    assert.equal(multisigCoin.account, 'shared');
    assert.equal(multisigCoin.redeemScript, created.redeemScript);
    assert.deepEqual(await node.rpc<Unspent[]>('listunspent', 1, 9999999, [multisig]), coins);
    // The P2SH of the wallet's own keys is spendable: GetAccountBalance counts it under its account.
    assert.equal(await node.rpc<number>('getbalance', 'shared', 1), 3);
  });

  await t.test('signrawtransaction signs the P2SH with the wallet\'s redeem script and keys', async () => {
    const c = multisigCoin!;
    const to = await node.rpc<string>('getnewaddress');
    const raw = await node.rpc<string>('createrawtransaction', [{ txid: c.txid, vout: c.vout }], { [to]: 2.9999 });
    const signed = await node.rpc<R>('signrawtransaction', raw);
    assert.equal(signed.complete, true, JSON.stringify(signed));
    const txid = await node.rpc<string>('sendrawtransaction', signed.hex);
    await node.rpc('generate', 1);
    assert.equal((await unspentAt(multisig)).length, 0);
    assert.equal((await node.rpc<R>('gettransaction', txid)).confirmations, 1);
  });

  await t.test('a restart keeps the watched scripts, labels and redeem scripts', async () => {
    const before = { watch: await unspentAt(w.address), hex: await unspentAt(hexOnly.address), all: await node.rpc<number>('getbalance', '*', 1, true) };
    const accountsBefore = { watched: await node.rpc<number>('getbalance', 'watched2', 1, true), shared: await node.rpc<number>('getbalance', 'shared', 1) };
    const receivedBefore = await node.rpc<R[]>('listreceivedbyaddress', 1, true, true);
    // mapAddressBook by name: the keyless entries too (the partial multisig's "" entry, IsMine or not).
    const bookBefore = await node.rpc<string[]>('getaddressesbyaccount', '');
    assert.ok(bookBefore.includes(partialMultisig));
    await node.stop();
    await node.start();
    const v = await node.rpc<R>('validateaddress', w.address);
    assert.equal(v.iswatchonly, true);
    assert.equal(v.account, 'watched2');
    assert.equal((await node.rpc<R>('validateaddress', multisig)).ismine, true);
    assert.equal((await node.rpc<R>('validateaddress', multisig)).account, 'shared');
    assert.deepEqual(await unspentAt(w.address), before.watch);
    assert.deepEqual(await unspentAt(hexOnly.address), before.hex);
    assert.equal(await node.rpc<number>('getbalance', '*', 1, true), before.all);
    // The accounts sums of keyless destinations are figured again from the stored transactions.
    assert.equal(accountsBefore.watched, 5);
    assert.deepEqual({ watched: await node.rpc<number>('getbalance', 'watched2', 1, true), shared: await node.rpc<number>('getbalance', 'shared', 1) }, accountsBefore);
    assert.deepEqual(await node.rpc<R[]>('listreceivedbyaddress', 1, true, true), receivedBefore);
    assert.deepEqual(await node.rpc<string[]>('getaddressesbyaccount', ''), bookBefore);
  });

  await t.test('importprivkey of a watched key makes its coin spendable; importaddress then refuses it', async () => {
    await node.rpc('importprivkey', w.wif);
    const v = await node.rpc<R>('validateaddress', w.address);
    assert.equal(v.ismine, true);
    assert.equal(v.iswatchonly, false);
    const coins = await unspentAt(w.address);
    assert.deepEqual(coins.map((c) => [c.txid, c.spendable]), [[paid, true]]);
    // The address is the key's now (its account, spendable): the watched label's account no longer holds it.
    assert.equal(await node.rpc<number>('getbalance', 'watched2', 1, true), 0);
    const rows = (await node.rpc<R[]>('listreceivedbyaddress', 1, true, true)).filter((r) => r.address === w.address);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.involvesWatchonly, undefined);
    assert.equal(rows[0]!.account, v.account);
    assert.equal(rows[0]!.amount, 5);
    assert.deepEqual(await err('importaddress', w.address), { code: -4, message: 'The wallet already contains the private key for this address or script' });
  });

  await t.test('cleanwallettransactions', async () => {
    const usage = await err('cleanwallettransactions', 'a', 'b');
    assert.equal(usage.code, -1);
    assert.ok(usage.message.startsWith('cleanwallettransactions "txid"\n\nRemove all txs that are spent. You can clear all txs bar one, by specifiying a txid.\n'));
    assert.deepEqual(await err('cleanwallettransactions', 'ab'.repeat(32)), { code: -1, message: '\nThe transaction could not be found!\n' });
    // A transaction paying no wallet script (found in the chain's index) is "not yours".
    const foreign = foreignKey();
    const coin = (await node.rpc<Unspent[]>('listunspent')).find((u) => u.spendable && u.amount >= 1 && u.amount < 1000)!;
    const raw = await node.rpc<string>('createrawtransaction', [{ txid: coin.txid, vout: coin.vout }], { [foreign.address]: (Math.round(coin.amount * 1e8) - 10000) / 1e8 });
    const sent = await node.rpc<string>('sendrawtransaction', (await node.rpc<R>('signrawtransaction', raw)).hex);
    assert.deepEqual(await err('cleanwallettransactions', sent), { code: -1, message: '\nThe transaction is not yours!\n' });

    // Everything spendable spent to one new address: the deepest unspent wallet output is the watched
    // one, and every wallet transaction deeper than it (plus one block) goes.
    await node.rpc('generate', 1);
    await node.rpc('lockunspent', true);
    const sweep = await node.rpc<string>('sendtoaddress', await node.rpc<string>('getnewaddress'), await node.rpc<number>('getbalance'), '', '', true);
    await node.rpc('generate', 1);
    const available = await node.rpc<Unspent[]>('listunspent', 0);
    const oldestTxDepth = Math.max(0, ...available.map((u) => u.confirmations)) + 1;
    const history = await node.rpc<R[]>('listtransactions', '*', 100000, 0, true);
    const depthOf = new Map(history.map((e) => [e.txid as string, e.confirmations as number]));
    const expected = [...depthOf].filter(([, c]) => c > oldestTxDepth).map(([txid]) => txid);
    assert.ok(expected.length > 0, 'the test has old transactions to clean');
    const total = (await node.rpc<R>('getwalletinfo')).txcount as number;
    const r = await node.rpc<R>('cleanwallettransactions');
    assert.deepEqual(Object.keys(r), ['total_transactions', 'remaining_transactions', 'removed_transactions']);
    assert.deepEqual(r, { total_transactions: total, remaining_transactions: total - expected.length, removed_transactions: expected.length });
    for (const txid of expected) assert.equal((await err('gettransaction', txid)).code, -5);
    assert.equal((await node.rpc<R>('gettransaction', sweep)).txid, sweep);

    // Keeping one: every other transaction goes.
    const left = (await node.rpc<R>('getwalletinfo')).txcount as number;
    const kept = await node.rpc<R>('cleanwallettransactions', sweep);
    assert.deepEqual(kept, { total_transactions: left, remaining_transactions: 1, removed_transactions: left - 1 });
    assert.equal((await node.rpc<R>('getwalletinfo')).txcount, 1);
    assert.equal((await node.rpc<R>('gettransaction', sweep)).txid, sweep);
    // The erase is stored: a restart reads the wallet's transactions without them (the load's rescan
    // records again only the transactions that made unspent wallet outputs; the foreign payment made none).
    await node.stop();
    await node.start();
    assert.equal((await err('gettransaction', sent)).code, -5);
    assert.equal((await node.rpc<R>('gettransaction', sweep)).txid, sweep);
  });
});
