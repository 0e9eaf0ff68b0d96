import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Unspent, sats, walletDaemon } from '../helpers/wallet-rpc.js';
import { accountBalancesBrute } from '../helpers/accounts.js';

/**
 * listsinceblock from every block of the chain (and from blocks reorged out, and an unknown hash)
 * against the same answer computed over the whole wallet — komodod's rule, depth < 1 + tip - height
 * of the given block, applied to listsinceblock's full listing — with transactions in the mempool,
 * across a reorg that leaves coinbases orphaned and sends back in the mempool, and after a restart;
 * getbalance "account" against komodod's GetAccountBalance (a brute force over listtransactions) as keys are relabelled.
 */

interface Entry {
  txid: string;
  category: string;
  rawconfirmations: number;
}
interface Since {
  transactions: Entry[];
  lastblock: string;
}

test('listsinceblock against a brute force over the whole wallet, across a reorg and a restart; getbalance "account" as keys are relabelled', async (t) => {
  // The dev chain with coinbases maturing after 3 blocks: the mempool then never holds a spend of the
  // coinbase the reorg removes (acnode's mempool does not drop such spends on a disconnect, as
  // komodod's removeForReorg does: its next block would be refused).
  const node = await walletDaemon(t, ['-gen=0', '-regtest', '-ac_name=ACSINCE', '-ac_supply=10000000', '-ac_reward=100000000', '-ac_cc=2', '-ac_sapling=1', '-ac_cbmaturity=3']);
  /** Blocks no longer in the active chain, with the height they had (komodod counts them by it). */
  const stale: [string, number][] = [];

  const check = async (label: string, expectCategories: string[]) => {
    const tip = await node.rpc<number>('getblockcount');
    const tipHash = await node.rpc<string>('getbestblockhash');
    const full = await node.rpc<Since>('listsinceblock');
    const seen = new Set(full.transactions.map((e) => (e.rawconfirmations <= 0 ? `${e.category}@${e.rawconfirmations}` : e.category)));
    for (const c of expectCategories) assert.ok(seen.has(c), `${label}: the wallet holds a ${c} entry (${[...seen].join(', ')})`);
    const from: [string, number][] = [...stale];
    for (let h = 0; h <= tip; h++) from.push([await node.rpc<string>('getblockhash', h), h]);
    let partial = 0;
    for (const [hash, height] of from) {
      const depth = 1 + tip - height;
      // komodod: depth == -1 (a given block two above the tip) lists everything, like no block.
      const want = depth === -1 ? full.transactions : full.transactions.filter((e) => e.rawconfirmations < depth);
      if (want.length > 0 && want.length < full.transactions.length) partial++;
      const got = await node.rpc<Since>('listsinceblock', hash);
      assert.deepEqual(got.transactions, want, `${label}: since ${hash} (height ${height}, tip ${tip})`);
      assert.equal(got.lastblock, tipHash);
    }
    assert.ok(partial >= 3, `${label}: some answers are neither empty nor everything`);
    // An unknown block lists everything.
    assert.deepEqual((await node.rpc<Since>('listsinceblock', '00'.repeat(31) + '01')).transactions, full.transactions);
  };

  await node.rpc('generate', 4);
  const alice = await node.rpc<string>('getnewaddress', 'alice');
  for (let i = 0; i < 4; i++) {
    await node.rpc('sendtoaddress', alice, 1 + i);
    await node.rpc('sendtoaddress', await node.rpc<string>('getnewaddress'), 0.5);
    await node.rpc('generate', 1);
  }
  await node.rpc('sendtoaddress', alice, 0.25);
  await check('before the reorg', ['send', 'receive', 'send@0', 'receive@0']);

  // ---- a reorg: the tip goes; its send returns to the mempool, its coinbase is orphaned ----
  // (One block: after invalidating two, acnode's mempool keeps a transaction whose input is gone and
  // every next block is refused, bad-txns-inputs-missingorspent — the same on main before this work.)
  const tip = await node.rpc<number>('getblockcount');
  stale.push([await node.rpc<string>('getbestblockhash'), tip]);
  await node.rpc('invalidateblock', stale[0]![0]);
  assert.equal(await node.rpc<number>('getblockcount'), tip - 1);
  await check('the tip disconnected', ['send@0', 'orphan@-1']);
  // The new chain grows past the old one: the stale blocks now count at heights inside it (a new send
  // makes its first block differ from the invalidated one, which would be refused again).
  await node.rpc('sendtoaddress', await node.rpc<string>('getnewaddress'), 0.3);
  await node.rpc('generate', 3);
  await check('the new chain longer', ['send', 'orphan@-1']);

  // ---- a restart: the heights come from the chain's tx index ----
  await node.rpc('sendtoaddress', alice, 0.125);
  await node.stop();
  await node.start();
  await check('after a restart', ['send@0', 'orphan@-1']);

  // ---- getbalance "account": GetAccountBalance (receipts by the address book now, sends, fees), moved with a relabelled key ----
  const accountSums = async (): Promise<Map<string, bigint>[]> => Promise.all([0, 1, 3].map((minConf) => accountBalancesBrute(node, minConf)));
  const balances = async (label: string, names: string[]) => {
    const sums = await accountSums();
    for (const [i, minConf] of [0, 1, 3].entries()) {
      for (const name of names) {
        assert.equal(sats(await node.rpc<number>('getbalance', name, minConf)), sums[i]!.get(name) ?? 0n, `${label}: getbalance "${name}" ${minConf}`);
      }
    }
  };
  await balances('before relabelling', ['', 'alice', 'bob']);
  assert.ok(sats(await node.rpc<number>('getbalance', 'alice', 0)) > 0n, 'alice holds coins');
  // importprivkey with a label sets the label of a key already held (SetAddressBook): alice's coins are bob's now.
  const aliceBefore = sats(await node.rpc<number>('getbalance', 'alice', 0));
  await node.rpc('importprivkey', await node.rpc<string>('dumpprivkey', alice), 'bob', false);
  assert.equal(sats(await node.rpc<number>('getbalance', 'bob', 0)), aliceBefore);
  assert.equal(sats(await node.rpc<number>('getbalance', 'alice', 0)), 0n);
  await balances('alice relabelled bob', ['', 'alice', 'bob']);
  // The node's key (the coinbases) out of "" into "miner".
  const info = await node.rpc<Unspent[]>('listunspent', 1);
  const minerAddress = info.find((u) => u.account === undefined || u.account === '')!.address;
  await node.rpc('importprivkey', await node.rpc<string>('dumpprivkey', minerAddress), 'miner', false);
  await balances('a key of "" relabelled miner', ['', 'alice', 'bob', 'miner']);
  assert.ok(sats(await node.rpc<number>('getbalance', 'miner', 0)) > 0n, 'miner holds coins');
  // sendmany from an account checks that account's funds (komodod's "Account has insufficient funds").
  const bob = sats(await node.rpc<number>('getbalance', 'bob', 1));
  await assert.rejects(node.rpc('sendmany', 'bob', { [alice]: Number(bob + 100_000_000n) / 1e8 }), /Account has insufficient funds/);
});
