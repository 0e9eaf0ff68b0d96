import { test } from 'node:test';
import assert from 'node:assert/strict';
import { walletDaemon } from '../helpers/wallet-rpc.js';
import { foreignKey } from '../helpers/foreign-key.js';
import { rpcError } from '../helpers/daemon.js';

/**
 * getreceivedbyaddress for P2SH addresses, as komodod 0adeeab answers it (rpcwallet.cpp): 0 unless
 * IsMine(scriptPubKey) at any level, before minconf is read; else every output to the script in the
 * wallet's non-coinbase transactions at least minconf deep. IsMine (wallet_ismine.cpp) counts a P2SH
 * when the wallet holds its redeem script and every key of that multisig (addmultisigaddress), or
 * watches the P2SH script itself (importaddress of the address); a multisig short of a key, or a
 * redeem script imported as a hex script (watched bare: komodod's importaddress has no p2sh flag), is not,
 * until the missing key is imported.
 */

type R = Record<string, unknown>;

test('getreceivedbyaddress for P2SH addresses: spendable, watched, short of a key, at minconf 0, 1 and 2, across a restart', async (t) => {
  const node = await walletDaemon(t);
  const err = (m: string, ...p: unknown[]) => rpcError(node.rpc(m, ...p));
  const got = (address: string, ...minconf: unknown[]) => node.rpc<number>('getreceivedbyaddress', address, ...minconf);
  await node.rpc('generate', 2);

  const k1 = await node.rpc<string>('getnewaddress');
  const k2 = await node.rpc<string>('getnewaddress');
  const k3 = await node.rpc<string>('getnewaddress');
  const pub2 = (await node.rpc<R>('validateaddress', k2)).pubkey as string;
  const [f1, f2, f3, f4] = [foreignKey(), foreignKey(), foreignKey(), foreignKey()];

  // Every key the wallet's: spendable.
  const full = await node.rpc<string>('addmultisigaddress', 2, [k1, pub2], 'shared');
  // One key of two: the redeem script is held, the P2SH is not the wallet's.
  const partial = await node.rpc<string>('addmultisigaddress', 1, [k1, f1.pubkey]);
  // One key of two, its P2SH address watched: watch-only.
  const partialWatched = await node.rpc<string>('addmultisigaddress', 1, [k2, f2.pubkey]);
  assert.equal(await node.rpc('importaddress', partialWatched, 'pw', false), null);
  // No key of the wallet's, the P2SH address watched.
  const watched = (await node.rpc<{ address: string }>('createmultisig', 1, [f3.pubkey])).address;
  assert.equal(await node.rpc('importaddress', watched, 'w', false), null);
  // The redeem script imported as a script: the bare multisig is watched, its P2SH is not.
  const bare = await node.rpc<{ address: string; redeemScript: string }>('createmultisig', 1, [f4.pubkey]);
  assert.equal(await node.rpc('importaddress', bare.redeemScript, '', false), null);
  const level = async (a: string) => {
    const v = await node.rpc<R>('validateaddress', a);
    return [v.ismine, v.iswatchonly];
  };
  assert.deepEqual(await level(full), [true, false]);
  assert.deepEqual(await level(partial), [false, false]);
  assert.deepEqual(await level(partialWatched), [false, true]);
  assert.deepEqual(await level(watched), [false, true]);
  assert.deepEqual(await level(bare.address), [false, false]);

  const all = [full, partial, partialWatched, watched, bare.address];
  const figures = async (...minconf: unknown[]) => Promise.all(all.map((a) => got(a, ...minconf)));

  await t.test('in the mempool: counted at minconf 0 for the IsMine ones only', async () => {
    for (const a of all) await node.rpc('sendtoaddress', a, 1);
    assert.deepEqual(await figures(0), [1, 0, 1, 1, 0]);
    assert.deepEqual(await figures(), [0, 0, 0, 0, 0]);
    assert.deepEqual(await figures(1), [0, 0, 0, 0, 0]);
  });

  await t.test('confirmed: at depth 1, then 2', async () => {
    await node.rpc('generate', 1);
    assert.deepEqual(await figures(), [1, 0, 1, 1, 0]);
    assert.deepEqual(await figures(0), [1, 0, 1, 1, 0]);
    assert.deepEqual(await figures(2), [0, 0, 0, 0, 0]);
    await node.rpc('sendtoaddress', full, 0.5);
    await node.rpc('sendtoaddress', watched, 0.25);
    assert.deepEqual(await figures(0), [1.5, 0, 1, 1.25, 0]);
    assert.deepEqual(await figures(), [1, 0, 1, 1, 0]);
    await node.rpc('generate', 1);
    assert.deepEqual(await figures(), [1.5, 0, 1, 1.25, 0]);
    assert.deepEqual(await figures(2), [1, 0, 1, 1, 0]);
    assert.deepEqual(await figures(3), [0, 0, 0, 0, 0]);
  });

  await t.test('minconf is read after IsMine: a bad one fails only for an IsMine P2SH', async () => {
    assert.equal(await got(partial, 'x'), 0);
    assert.equal(await got(bare.address, 'x'), 0);
    for (const a of [full, partialWatched, watched]) {
      assert.deepEqual(await err('getreceivedbyaddress', a, 'x'), { code: -1, message: 'JSON value is not an integer as expected' });
    }
  });

  let keep = '';
  await t.test('payments before addmultisigaddress count once the P2SH is the wallet\'s, and those after', async () => {
    const later = await node.rpc<{ address: string }>('createmultisig', 1, [k3]);
    await node.rpc('sendtoaddress', later.address, 2);
    await node.rpc('generate', 1);
    assert.equal(await got(later.address), 0);
    assert.equal(await node.rpc('addmultisigaddress', 1, [k3]), later.address);
    assert.equal(await got(later.address), 2);
    keep = await node.rpc<string>('sendtoaddress', later.address, 0.75);
    assert.equal(await got(later.address, 0), 2.75);
    assert.equal(await got(later.address), 2);
    await node.rpc('generate', 1);
    assert.equal(await got(later.address), 2.75);
    all.push(later.address);
  });

  await t.test('importprivkey of the key it was short of: the multisig is spendable, its earlier payment counts', async () => {
    assert.equal(await node.rpc('importprivkey', f1.wif, '', false), f1.address);
    assert.deepEqual(await level(partial), [true, false]);
    assert.equal(await got(partial), 1);
    await node.rpc('sendtoaddress', partial, 0.125);
    await node.rpc('generate', 1);
    assert.equal(await got(partial), 1.125);
  });

  await t.test('a restart files them again with the same figures', async () => {
    const before = [await figures(), await figures(2)];
    assert.deepEqual(before[0], [1.5, 1.125, 1, 1.25, 0, 2.75]);
    await node.stop();
    await node.start();
    assert.deepEqual([await figures(), await figures(2)], before);
  });

  await t.test('cleanwallettransactions: the erased transactions no longer count (EraseFromWallet leaves mapWallet)', async () => {
    await node.rpc('cleanwallettransactions', keep);
    assert.deepEqual(await figures(0), [0, 0, 0, 0, 0, 0.75]);
  });
});
