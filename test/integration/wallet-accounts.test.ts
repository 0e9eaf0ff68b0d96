import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Unspent, sats, walletDaemon } from '../helpers/wallet-rpc.js';
import { rpcError, type Daemon } from '../helpers/daemon.js';
import { accountBalancesBrute } from '../helpers/accounts.js';
import { base58check } from '../helpers/base58.js';

/**
 * komodod's accounts family over HTTP: getaccount, setaccount, getaddressesbyaccount, listaccounts,
 * getreceivedbyaccount, listreceivedbyaddress, listreceivedbyaccount, move, sendfrom, getbalance64 and
 * listaddressgroupings — result keys in komodod's order, its errors, moves listed by listtransactions,
 * sendfrom held to the account's balance, every balance against a brute force over listtransactions,
 * and all of it again after a restart.
 */

interface Received {
  address: string;
  account: string;
  amount: number;
  rawconfirmations: number;
  confirmations: number;
  txids: string[];
}
interface ListEntry {
  account: string;
  category: string;
  amount: number;
  txid?: string;
  otheraccount?: string;
  comment?: string;
}

/** A P2PKH address's key id, from validateaddress's script (mapAddressBook orders by it). */
const keyId = async (d: Daemon, a: string) => (await d.rpc<{ scriptPubKey: string }>('validateaddress', a)).scriptPubKey.slice(6, 46);
/** Every account's GetAccountBalance, from getbalance and from listaccounts, against the brute force. */
async function checkBalances(d: Daemon, label: string): Promise<void> {
  for (const minConf of [0, 1, 2, 5]) {
    const brute = await accountBalancesBrute(d, minConf);
    const listed = await d.rpc<Record<string, number>>('listaccounts', minConf);
    for (const [name, v] of Object.entries(listed)) {
      assert.equal(sats(v), brute.get(name) ?? 0n, `${label}: listaccounts ${minConf} "${name}"`);
      assert.equal(sats(await d.rpc<number>('getbalance', name, minConf)), brute.get(name) ?? 0n, `${label}: getbalance "${name}" ${minConf}`);
    }
    for (const [name, v] of brute) if (v !== 0n) assert.ok(name in listed, `${label}: listaccounts ${minConf} names "${name}"`);
  }
}

test('the accounts family: address book, balances by account, move, sendfrom, received listings, groupings, restart', { timeout: 300_000 }, async (t) => {
  const node = await walletDaemon(t, ['-gen=0', '-regtest', '-ac_name=ACACCT', '-ac_supply=10000000', '-ac_reward=100000000', '-ac_cc=2', '-ac_sapling=1', '-ac_cbmaturity=3']);
  await node.rpc('generate', 5);

  // ---- the address book ----
  const miner = (await node.rpc<Unspent[]>('listunspent'))[0]!.address;
  assert.equal(await node.rpc('getaccount', miner), '');
  assert.deepEqual(await rpcError(node.rpc('getaccount', 'notanaddress')), { code: -5, message: 'Invalid Komodo address' });
  assert.deepEqual(await rpcError(node.rpc('setaccount', 'notanaddress', 'x')), { code: -5, message: 'Invalid Komodo address' });
  // An address of a key no one holds (version 60, key id 0x11...).
  const foreign = base58check(Uint8Array.from([60, ...new Array(20).fill(0x11)]));
  assert.equal(await node.rpc('getaccount', foreign), '');
  assert.deepEqual(await rpcError(node.rpc('setaccount', foreign, 'x')), { code: -1, message: 'setaccount can only be used with own address' });
  assert.deepEqual(await rpcError(node.rpc('setaccount', miner, 5)), { code: -1, message: 'JSON value is not a string as expected' });
  assert.equal((await rpcError(node.rpc('getaccount'))).code, -1);

  const alice = await node.rpc<string>('getnewaddress', 'alice');
  const spare = await node.rpc<string>('getnewaddress');
  assert.equal(await node.rpc('getaccount', alice), 'alice');
  assert.equal(await node.rpc('getaccount', spare), '');
  assert.equal(await node.rpc('setaccount', spare, 'alice'), null);
  assert.equal(await node.rpc('getaccount', spare), 'alice');
  // mapAddressBook's order: by key id.
  const byId = [alice, spare];
  const ids = new Map([[alice, await keyId(node, alice)], [spare, await keyId(node, spare)]]);
  byId.sort((a, b) => (ids.get(a)! < ids.get(b)! ? -1 : 1));
  assert.deepEqual(await node.rpc('getaddressesbyaccount', 'alice'), byId);
  assert.deepEqual(await node.rpc('getaddressesbyaccount', 'nobody'), []);
  assert.ok((await node.rpc<string[]>('getaddressesbyaccount', '')).includes(miner), 'the node key is listed under ""');

  // setaccount of an account's current address (GetAccountAddress) gives that account a new one first.
  const frankCurrent = await node.rpc<string>('getaccountaddress', 'frank');
  assert.equal(await node.rpc('setaccount', frankCurrent, 'erin'), null);
  const frankNow = await node.rpc<string[]>('getaddressesbyaccount', 'frank');
  assert.equal(frankNow.length, 1);
  assert.notEqual(frankNow[0], frankCurrent);
  assert.equal(await node.rpc('getaccountaddress', 'frank'), frankNow[0]);
  assert.deepEqual(await node.rpc('getaddressesbyaccount', 'erin'), [frankCurrent]);

  // ---- receipts, then the balances by account ----
  const pay1 = await node.rpc<string>('sendtoaddress', alice, 2);
  await node.rpc('generate', 1);
  const pay2 = await node.rpc<string>('sendtoaddress', alice, 0.5);
  assert.equal(await node.rpc('getreceivedbyaccount', 'alice'), 2);
  assert.equal(await node.rpc('getreceivedbyaccount', 'alice', 0), 2.5);
  assert.equal(await node.rpc('getreceivedbyaccount', 'nobody', 0), 0);
  assert.deepEqual(await rpcError(node.rpc('getreceivedbyaccount', 'alice', 'x')), { code: -1, message: 'JSON value is not an integer as expected' });
  assert.equal(await node.rpc('getbalance', 'alice'), 2);
  assert.equal(await node.rpc('getbalance', 'alice', 0), 2.5);
  const accounts = await node.rpc<Record<string, number>>('listaccounts');
  assert.deepEqual(Object.keys(accounts), ['', 'alice', 'erin', 'frank']);
  assert.equal(accounts.alice, 2);
  // A relabelled key takes its receipts along, and its old account leaves listaccounts with it.
  const gina = await node.rpc<string>('getnewaddress', 'gina');
  await node.rpc('sendtoaddress', gina, 0.1);
  assert.equal(await node.rpc('getbalance', 'gina', 0), 0.1);
  assert.ok('gina' in (await node.rpc<Record<string, number>>('listaccounts', 0)));
  await node.rpc('importprivkey', await node.rpc<string>('dumpprivkey', gina), 'erin', false);
  assert.equal(await node.rpc('getbalance', 'erin', 0), 0.1);
  assert.equal(await node.rpc('getbalance', 'gina', 0), 0);
  assert.ok(!('gina' in (await node.rpc<Record<string, number>>('listaccounts', 0))));

  // listreceivedbyaddress: komodod's keys and order, non-coinbase receipts only, txids per output.
  const byAddr = await node.rpc<Received[]>('listreceivedbyaddress', 0);
  const aliceRow = byAddr.find((r) => r.address === alice)!;
  assert.deepEqual(Object.keys(aliceRow), ['address', 'account', 'amount', 'rawconfirmations', 'confirmations', 'txids']);
  assert.equal(aliceRow.account, 'alice');
  assert.equal(aliceRow.amount, 2.5);
  assert.equal(aliceRow.confirmations, 0);
  assert.deepEqual(new Set(aliceRow.txids), new Set([pay1, pay2]));
  assert.ok(!byAddr.some((r) => r.address === spare), 'an address with no receipt is left out');
  const oneConf = await node.rpc<Received[]>('listreceivedbyaddress');
  assert.deepEqual(oneConf.find((r) => r.address === alice), { address: alice, account: 'alice', amount: 2, rawconfirmations: 1, confirmations: 1, txids: [pay1] });
  const withEmpty = await node.rpc<Received[]>('listreceivedbyaddress', 1, true);
  assert.deepEqual(withEmpty.find((r) => r.address === spare), { address: spare, account: 'alice', amount: 0, rawconfirmations: 0, confirmations: 0, txids: [] });
  // In mapAddressBook order.
  const orderIds = await Promise.all(withEmpty.map((r) => keyId(node, r.address)));
  assert.deepEqual(orderIds, [...orderIds].sort());
  const byAcct = await node.rpc<Record<string, unknown>[]>('listreceivedbyaccount', 0, true);
  assert.deepEqual(Object.keys(byAcct[0]!), ['account', 'amount', 'rawconfirmations', 'confirmations']);
  assert.deepEqual(byAcct.find((r) => r.account === 'alice'), { account: 'alice', amount: 2.5, rawconfirmations: 0, confirmations: 0 });
  assert.deepEqual(await rpcError(node.rpc('listreceivedbyaddress', 1, 'x')), { code: -1, message: 'JSON value is not a boolean as expected' });
  assert.equal((await rpcError(node.rpc('listreceivedbyaccount', 1, true, true, 4))).code, -1);
  await node.rpc('generate', 1);

  // ---- move: two accounting entries, listed by listtransactions ----
  assert.deepEqual(await rpcError(node.rpc('move', '', 'alice', 0)), { code: -3, message: 'Invalid amount for send' });
  assert.deepEqual(await rpcError(node.rpc('move', '', 'alice', 1, 'x')), { code: -1, message: 'JSON value is not an integer as expected' });
  const before = sats(await node.rpc<number>('getbalance', '', 1));
  assert.equal(await node.rpc('move', '', 'alice', 1, 6, 'happy birthday!'), true);
  assert.equal(sats(await node.rpc<number>('getbalance', '', 1)), before - 100_000_000n);
  assert.equal(await node.rpc('getbalance', 'alice'), 3.5);
  // A move may take an account below zero (komodod checks nothing).
  assert.equal(await node.rpc('move', 'carol', 'dave', 0.25), true);
  assert.equal(await node.rpc('getbalance', 'carol', 0), -0.25);
  const last = await node.rpc<Record<string, unknown>[]>('listtransactions', '*', 4);
  const moves = last.slice(-4);
  assert.deepEqual(Object.keys(moves[0]!), ['account', 'category', 'time', 'amount', 'otheraccount', 'comment']);
  assert.deepEqual(
    moves.map((m) => [m.account, m.category, m.amount, m.otheraccount, m.comment]),
    [
      ['', 'move', -1, 'alice', 'happy birthday!'],
      ['alice', 'move', 1, '', 'happy birthday!'],
      ['carol', 'move', -0.25, 'dave', ''],
      ['dave', 'move', 0.25, 'carol', ''],
    ],
  );
  const aliceList = await node.rpc<ListEntry[]>('listtransactions', 'alice', 10);
  assert.deepEqual(aliceList.map((e) => e.category), ['receive', 'receive', 'move']);

  // ---- sendfrom: the account's balance decides, the account is debited ----
  assert.deepEqual(await rpcError(node.rpc('sendfrom', 'alice', foreign, 3.6)), { code: -6, message: 'Account has insufficient funds' });
  assert.deepEqual(await rpcError(node.rpc('sendfrom', 'nobody', foreign, 0.1)), { code: -6, message: 'Account has insufficient funds' });
  assert.deepEqual(await rpcError(node.rpc('sendfrom', 'alice', 'bad', 0.1)), { code: -5, message: 'Invalid Komodo address' });
  assert.deepEqual(await rpcError(node.rpc('sendfrom', 'alice', foreign, -1)), { code: -3, message: 'Amount out of range' });
  assert.deepEqual(await rpcError(node.rpc('sendfrom', 'alice', foreign, 0)), { code: -3, message: 'Invalid amount for send' });
  // minconf 50: alice's receipts are not that deep, her move is.
  assert.deepEqual(await rpcError(node.rpc('sendfrom', 'alice', foreign, 1.5, 50)), { code: -6, message: 'Account has insufficient funds' });
  const aliceBefore = sats(await node.rpc<number>('getbalance', 'alice', 0));
  const sent = await node.rpc<string>('sendfrom', 'alice', foreign, 3, 1, 'rent', 'landlord');
  const tx = await node.rpc<{ fee: number; comment: string; to: string; details: ListEntry[] }>('gettransaction', sent);
  assert.equal(tx.comment, 'rent');
  assert.equal(tx.to, 'landlord');
  // komodod's GetAmounts quirk: the first two change outputs are "sent" too (only later ones are left
  // out as change), so the account is debited every output and the fee; the change is received by "".
  const outs = (await node.rpc<{ vout: { value: number }[] }>('getrawtransaction', sent, 1)).vout.reduce((v, o) => v + sats(o.value), 0n);
  assert.ok(outs > 300_000_000n, 'the send has change');
  assert.equal(sats(await node.rpc<number>('getbalance', 'alice', 0)), aliceBefore - outs + sats(tx.fee));
  const sends = (await node.rpc<ListEntry[]>('listtransactions', 'alice', 10)).filter((e) => e.category === 'send');
  assert.ok(sends.length > 0 && sends.every((e) => e.txid === sent), 'the send is listed under alice');
  // listtransactions for one account (walked through that account's own transactions) is the whole listing's entries for it.
  const everything = await node.rpc<ListEntry[]>('listtransactions', '*', 1000);
  for (const a of ['alice', 'carol', 'dave', '', 'nobody']) assert.deepEqual(await node.rpc<ListEntry[]>('listtransactions', a, 1000), everything.filter((e) => e.account === a), `listtransactions "${a}"`);
  // The account is what is left after the send: a second one of 1 fails.
  assert.deepEqual(await rpcError(node.rpc('sendfrom', 'alice', foreign, 1, 0)), { code: -6, message: 'Account has insufficient funds' });
  await node.rpc('generate', 2);
  await checkBalances(node, 'after sendfrom');

  // ---- listaddressgroupings: the send's inputs with its change ----
  const groups = await node.rpc<[string, number, string?][][]>('listaddressgroupings');
  const unspent = await node.rpc<Unspent[]>('listunspent', 0);
  const held = new Map<string, bigint>();
  for (const u of unspent) held.set(u.address, (held.get(u.address) ?? 0n) + sats(u.amount));
  const seen = new Set<string>();
  for (const g of groups) {
    for (const [address, amount, account] of g) {
      assert.ok(!seen.has(address), `${address} is in one group`);
      seen.add(address);
      assert.equal(sats(amount), held.get(address) ?? 0n, `${address}'s balance`);
      assert.equal(account, await node.rpc('getaddressesbyaccount', account ?? '\u0000').then((l) => ((l as string[]).includes(address) ? account : undefined)));
    }
    const gids = await Promise.all(g.map(([a]) => keyId(node, a)));
    assert.deepEqual(gids, [...gids].sort(), 'a group is in key-id order');
  }
  const sentTx = await node.rpc<{ vin: { txid: string; vout: number }[]; vout: { scriptPubKey: { addresses?: string[] } }[] }>('getrawtransaction', sent, 1);
  const inputAddresses = new Set<string>();
  for (const i of sentTx.vin) {
    const prev = await node.rpc<{ vout: { scriptPubKey: { addresses?: string[] } }[] }>('getrawtransaction', i.txid, 1);
    for (const a of prev.vout[i.vout]!.scriptPubKey.addresses ?? []) inputAddresses.add(a);
  }
  const changeAddress = sentTx.vout.flatMap((o) => o.scriptPubKey.addresses ?? []).find((a) => a !== foreign)!;
  const groupOf = (a: string) => groups.find((g) => g.some(([x]) => x === a));
  assert.ok(groupOf(changeAddress), 'the change address is grouped');
  for (const a of inputAddresses) assert.equal(groupOf(a), groupOf(changeAddress), `input ${a} grouped with the change`);

  // ---- getbalance64 ----
  const b64 = await node.rpc<{ mature: number; immature: number; staking: number[]; notstaking: number[] }>('getbalance64');
  assert.deepEqual(Object.keys(b64), ['mature', 'immature', 'staking', 'notstaking']);
  assert.equal(b64.staking.length, 64);
  assert.equal(b64.notstaking.length, 64);
  const spendable = await node.rpc<Unspent[]>('listunspent', 0);
  const total = spendable.reduce((s, u) => s + sats(u.amount), 0n);
  assert.equal(BigInt(b64.staking.reduce((s, x) => s + x, 0) + b64.notstaking.reduce((s, x) => s + x, 0)), total);
  assert.equal(sats(b64.immature), total, 'every coin is under 100 deep');
  assert.deepEqual(await rpcError(node.rpc('getbalance64', 1)), { code: -1, message: 'getbalance64\n' });
  assert.equal(await node.rpc('help', 'getbalance64'), 'help: unknown command: getbalance64');
  const help = await node.rpc<string>('help');
  assert.ok(!help.includes('getbalance64'));
  for (const line of ['getaccount "ACACCT_address"', 'move "fromaccount" "toaccount" amount ( minconf "comment" )', 'listaddressgroupings', 'sendfrom "fromaccount" "toACACCTaddress" amount ( minconf "comment" "comment-to" )']) {
    assert.ok(help.split('== Wallet ==')[1]!.split('\n').includes(line), `help lists ${line}`);
  }

  // ---- a restart keeps the accounts, the moves and the sending account ----
  const snapshot = async () => ({
    accounts: await node.rpc('listaccounts', 0),
    list: await node.rpc('listtransactions', '*', 100),
    received: await node.rpc('listreceivedbyaddress', 0, true),
    byAccount: await node.rpc('listreceivedbyaccount', 0, true),
    groups: await node.rpc('listaddressgroupings'),
    book: await node.rpc('getaddressesbyaccount', 'alice'),
  });
  const was = await snapshot();
  await node.stop();
  await node.start();
  assert.deepEqual(await snapshot(), was);
  await checkBalances(node, 'after a restart');
  // A move after the restart takes the next order position.
  await node.rpc('move', 'alice', '', 0.125, 1, 'back');
  const tail = await node.rpc<ListEntry[]>('listtransactions', '*', 2);
  assert.deepEqual(tail.map((e) => [e.account, e.amount, e.comment]), [['alice', -0.125, 'back'], ['', 0.125, 'back']]);
});
