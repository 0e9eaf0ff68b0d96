import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Unspent, sats, walletDaemon } from '../helpers/wallet-rpc.js';
import { foreignKey } from '../helpers/foreign-key.js';
import { accountBalancesBrute } from '../helpers/accounts.js';

/**
 * Watch-only beyond the coins, over HTTP, as komodod 0adeeab answers it:
 * - a watched address spending its coin outside the wallet is a send under includeWatchonly
 *   (GetDebit(ISMINE_ALL) counts watch-only inputs): GetAccountBalance, getbalance "*" (komodod's sum
 *   over the wallet's transactions), listaccounts, gettransaction, listtransactions and listsinceblock;
 * - listaddressgroupings groups watch-only inputs with their change (IsChange: any IsMine level, no
 *   address-book entry) and lists watch-only and P2SH destinations with their GetAddressBalances figure;
 * - a wallet transaction already paying a script that importaddress / addmultisigaddress adds later
 *   (no rescan) counts it at once: listunspent, getbalance, listtransactions, listreceivedbyaddress,
 *   listaddressgroupings; and all of it again after a restart.
 */

type R = Record<string, unknown>;

test('watch-only debits, groupings and scripts imported after the wallet saw them, as komodod answers them', async (t) => {
  const node = await walletDaemon(t);
  const unspentAt = async (address: string, minConf = 1) => node.rpc<Unspent[]>('listunspent', minConf, 9999999, [address]);
  const bal = async (...p: unknown[]) => sats(await node.rpc<number>('getbalance', ...p));
  const accounts = async (minConf: number, watch: boolean) => new Map(Object.entries(await node.rpc<Record<string, number>>('listaccounts', minConf, watch)).map(([k, v]) => [k, sats(v)]));
  /** GetAccountBalance (and getbalance "*", and listaccounts) against the brute force over listtransactions, at each minconf and filter. */
  const agreesWithListing = async (label: string) => {
    for (const watch of [false, true]) {
      for (const minConf of [0, 1, 2]) {
        const want = await accountBalancesBrute(node, minConf, watch);
        const listed = await accounts(minConf, watch);
        for (const [account, v] of want) {
          assert.equal(await bal(account, minConf, watch), v, `${label}: getbalance "${account}" ${minConf} ${watch}`);
          assert.equal(listed.get(account), v, `${label}: listaccounts ${minConf} ${watch} "${account}"`);
        }
        // "*": every receipt less every send and fee (no moves here), komodod's loop over mapWallet.
        const all = [...want.values()].reduce((a, b) => a + b, 0n);
        assert.equal(await bal('*', minConf, watch), all, `${label}: getbalance "*" ${minConf} ${watch}`);
      }
    }
  };

  await node.rpc('generate', 2);
  const w = foreignKey();
  const change = foreignKey();
  const x = foreignKey();
  // A labelled watched address, and a watched script with no address-book entry (its outputs are change).
  await node.rpc('importaddress', w.address, 'watched', false);
  await node.rpc('importaddress', change.script, '', false);
  const t1 = await node.rpc<string>('sendtoaddress', w.address, 5);
  await node.rpc('generate', 1);
  await agreesWithListing('paid');

  const before = {
    empty0: await bal('', 0, true),
    empty1: await bal('', 1, true),
    emptyMine: await bal('', 0),
    mine1: await bal('', 1),
    allMine1: await bal('*', 1),
    all0: await bal('*', 0, true),
    all1: await bal('*', 1, true),
    allMine: await bal('*', 0),
    watched: await bal('watched', 1, true),
  };
  assert.equal(before.watched, 5_00000000n);

  let t2 = '';
  await t.test('a watched address spends its coin outside the wallet: a send under includeWatchonly only', async () => {
    const coin = (await unspentAt(w.address))[0]!;
    assert.equal(coin.txid, t1);
    const raw = await node.rpc<string>('createrawtransaction', [{ txid: coin.txid, vout: coin.vout }], { [x.address]: 1, [change.address]: 3.9999 });
    const signed = await node.rpc<R>('signrawtransaction', raw, [], [w.wif]);
    assert.equal(signed.complete, true);
    t2 = await node.rpc<string>('sendrawtransaction', signed.hex);

    // GetAmounts(ISMINE_ALL): debit 5 (the watched input), sends 1 + 3.9999 (the change listed: the first two
    // are), fee 0.0001, all from "" (strFromAccount); the change received by "" (no address-book entry).
    assert.equal(await bal('', 0, true), before.empty0 - 5_00000000n + 3_99990000n);
    assert.equal(await bal('', 1, true), before.empty1 - 5_00000000n);
    assert.equal(await bal('', 0), before.emptyMine, 'ISMINE_SPENDABLE: no debit, nothing received');
    assert.equal(await bal('watched', 1, true), 5_00000000n, 'the label\'s receipt stays; the send is debited from ""');
    assert.equal(await bal('*', 0, true), before.all0 - 5_00000000n + 3_99990000n);
    assert.equal(await bal('*', 1, true), before.all1 - 5_00000000n);
    assert.equal(await bal('*', 0), before.allMine);
    assert.equal((await accounts(0, true)).get(''), before.empty0 - 5_00000000n + 3_99990000n);

    const tx = await node.rpc<R>('gettransaction', t2, true);
    assert.deepEqual([tx.amount, tx.fee], [-1, -0.0001]);
    assert.deepEqual(
      (tx.details as R[]).map((e) => [e.involvesWatchonly, e.account, e.address, e.category, e.amount, e.fee]),
      [
        [true, '', x.address, 'send', -1, -0.0001],
        [true, '', change.address, 'send', -3.9999, -0.0001],
        [true, '', change.address, 'receive', 3.9999, undefined],
      ],
    );
    const mine = await node.rpc<R>('gettransaction', t2);
    assert.equal(mine.amount, 0);
    assert.equal('fee' in mine, false);
    assert.deepEqual(mine.details, []);
    const listed = (await node.rpc<R[]>('listtransactions', '*', 100, 0, true)).filter((e) => e.txid === t2);
    // ListTransactions pushes the sends then the receipts; listtransactions reverses its whole page.
    assert.deepEqual(listed.map((e) => [e.category, e.amount]), [['receive', 3.9999], ['send', -3.9999], ['send', -1]]);
    assert.deepEqual((await node.rpc<R[]>('listtransactions', '*', 100)).filter((e) => e.txid === t2), []);
    const since = ((await node.rpc<R>('listsinceblock', '', 1, true)).transactions as R[]).filter((e) => e.txid === t2);
    assert.deepEqual(since.map((e) => [e.category, e.amount, e.fee]), [['send', -1, -0.0001], ['send', -3.9999, -0.0001], ['receive', 3.9999, undefined]]);
    await agreesWithListing('spent in the mempool');

    // Mined (the block's coinbase counts on both sides): the change is received at depth 1 now.
    await node.rpc('generate', 1);
    assert.equal((await bal('', 1, true)) - (await bal('', 1)), before.empty1 - before.mine1 - 5_00000000n + 3_99990000n);
    assert.equal((await bal('*', 1, true)) - (await bal('*', 1)), before.all1 - before.allMine1 - 5_00000000n + 3_99990000n);
    await agreesWithListing('spent in a block');
  });

  await t.test('listaddressgroupings: a watch-only input grouped with its watch-only change', async () => {
    const groups = await node.rpc<unknown[][][]>('listaddressgroupings');
    const withW = groups.filter((g) => g.some((a) => a[0] === w.address));
    assert.equal(withW.length, 1);
    // CTxDestination order: by key id. The spent watched coin's address holds 0 now; the change no book name.
    const expected = [
      [w.address, 0, 'watched'],
      [change.address, 3.9999],
    ].sort((a, b) => (Buffer.compare(hash160Of(a[0] as string, w, change), hash160Of(b[0] as string, w, change))));
    assert.deepEqual(withW[0], expected);
    // No wallet key is grouped with them (the sender's change is the wallet's own, its inputs the wallet's).
    assert.ok(!groups.some((g) => g !== withW[0] && g.some((a) => a[0] === change.address)));
  });

  const later = foreignKey();
  const laterMem = foreignKey();
  const keyLater = foreignKey();
  const k1 = await node.rpc<string>('getnewaddress');
  const k2 = await node.rpc<string>('getnewaddress');
  const ms = await node.rpc<R>('createmultisig', 2, [k1, k2]);
  const msAddress = ms.address as string;
  let t4 = '';
  let t5 = '';
  let t6 = '';
  await t.test('importaddress and addmultisigaddress without rescan: a wallet transaction already paying the script counts it at once', async () => {
    const own = await node.rpc<string>('getnewaddress');
    // The wallet's own transactions (funded from its coins, paying one of its keys too), each paying a script not watched yet.
    const pay = async (to: Record<string, number>) => {
      const funded = await node.rpc<R>('fundrawtransaction', await node.rpc<string>('createrawtransaction', [], to));
      return node.rpc<string>('sendrawtransaction', (await node.rpc<R>('signrawtransaction', funded.hex)).hex);
    };
    t4 = await pay({ [own]: 1, [later.address]: 2 });
    t6 = await pay({ [own]: 1, [msAddress]: 3 });
    await node.rpc('generate', 1);
    t5 = await pay({ [own]: 1, [laterMem.address]: 0.5 });
    assert.deepEqual(await unspentAt(later.address), []);
    const all1 = await bal('*', 1, true);
    const groupsBefore = JSON.stringify(await node.rpc('listaddressgroupings'));
    assert.ok(!groupsBefore.includes(later.address));

    assert.equal(await node.rpc('importaddress', later.address, 'later', false), null);
    const coins = await unspentAt(later.address);
    assert.deepEqual(coins.map((c) => [c.txid, c.amount, c.spendable, c.account]), [[t4, 2, false, 'later']]);
    assert.equal(await bal('later', 1, true), 2_00000000n);
    assert.equal(await bal('later', 1), 0n);
    assert.equal(await bal('*', 1, true), all1 + 2_00000000n);
    const recv = (await node.rpc<R[]>('listtransactions', '*', 100, 0, true)).filter((e) => e.txid === t4 && e.category === 'receive' && e.address === later.address);
    assert.deepEqual(recv.map((e) => [e.account, e.amount, e.involvesWatchonly]), [['later', 2, true]]);
    assert.ok(((await node.rpc<R>('gettransaction', t4, true)).details as R[]).some((e) => e.category === 'receive' && e.address === later.address));
    const row = (await node.rpc<R[]>('listreceivedbyaddress', 1, false, true)).find((r) => r.address === later.address);
    assert.deepEqual(row && [row.amount, row.txids, row.involvesWatchonly, row.account], [2, [t4], true, 'later']);
    assert.deepEqual((await node.rpc<unknown[][][]>('listaddressgroupings')).filter((g) => g.some((a) => a[0] === later.address)), [[[later.address, 2, 'later']]]);

    // In the mempool: the coin at 0 confirmations.
    await node.rpc('importaddress', laterMem.address, '', false);
    assert.deepEqual((await unspentAt(laterMem.address, 0)).map((c) => [c.txid, c.amount, c.confirmations, c.spendable]), [[t5, 0.5, 0, false]]);
    assert.equal(await bal('', 0, true) - (await bal('', 0)), 3_99990000n - 5_00000000n + 50000000n, 'under includeWatchonly "" has the change, the mempool coin and the watched input\'s debit');

    // A P2SH of the wallet's own keys, paid before its redeem script was added: spendable at once.
    assert.equal(await node.rpc('addmultisigaddress', 2, [k1, k2], 'shared'), msAddress);
    const msCoins = await unspentAt(msAddress);
    assert.deepEqual(msCoins.map((c) => [c.txid, c.amount, c.spendable, c.account]), [[t6, 3, true, 'shared']]);
    assert.equal(await bal('shared', 1), 3_00000000n);
    assert.deepEqual((await node.rpc<unknown[][][]>('listaddressgroupings')).filter((g) => g.some((a) => a[0] === msAddress)), [[[msAddress, 3, 'shared']]]);

    // importprivkey without a rescan, of a key a wallet transaction already pays: spendable at once.
    const t7 = await pay({ [own]: 1, [keyLater.address]: 1.5 });
    await node.rpc('generate', 1);
    assert.deepEqual(await unspentAt(keyLater.address), []);
    await node.rpc('importprivkey', keyLater.wif, 'imported', false);
    assert.deepEqual((await unspentAt(keyLater.address)).map((c) => [c.txid, c.amount, c.spendable, c.account]), [[t7, 1.5, true, 'imported']]);
    assert.equal(await bal('imported', 1), 1_50000000n);
    await agreesWithListing('after the imports');
  });

  await t.test('a restart: the same figures', async () => {
    const snapshot = async () => ({
      later: await unspentAt(later.address),
      mem: await unspentAt(laterMem.address, 0),
      ms: await unspentAt(msAddress),
      key: await unspentAt(keyLater.address),
      groups: await node.rpc('listaddressgroupings'),
      balances: [await bal('', 1, true), await bal('*', 0, true), await bal('*', 1, true), await bal('later', 1, true), await bal('shared', 1)],
      received: await node.rpc('listreceivedbyaddress', 1, false, true),
    });
    const was = await snapshot();
    await node.stop();
    await node.start();
    assert.deepEqual(await snapshot(), was);
    await agreesWithListing('after a restart');
  });
});

/** The key id of one of the test's foreign addresses (the order listaddressgroupings prints them in). */
function hash160Of(address: string, ...keys: { address: string; id: string }[]): Buffer {
  return Buffer.from(keys.find((k) => k.address === address)!.id, 'hex');
}
