import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Unspent, sats } from '../helpers/wallet-rpc.js';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startDaemon, removeDir, type Daemon } from '../helpers/daemon.js';
import { encodeWIF, pubkeyToAddress } from '../../src/chain/address/index.js';
import { publicKeyFromPrivate } from '../../src/chain/crypto/secp256k1.js';

/**
 * The wallet's state across a reorg (invalidateblock/reconsiderblock), a restart and a kill -9;
 * importprivkey's rescan; dumpwallet → importwallet and backupwallet with -exportdir.
 */

const sum = (us: Unspent[]) => us.reduce((s, u) => s + sats(u.amount), 0n);
const keyOf = (us: Unspent[]) => us.map((u) => `${u.txid}:${u.vout}:${u.confirmations}`).sort();

test('wallet balances across reorgs, restarts and key imports', async (t) => {
  const exportDir = mkdtempSync(join(tmpdir(), 'acnode-export-'));
  const daemons: Daemon[] = [];
  t.after(async () => {
    for (const d of daemons) {
      await d.stop();
      removeDir(d.datadir);
    }
    removeDir(exportDir);
  });
  const d = await startDaemon(['-gen=0', `-exportdir=${exportDir}`]);
  daemons.push(d);
  await d.rpc('generate', 2);

  const addr = await d.rpc<string>('getnewaddress');
  const txid = await d.rpc<string>('sendtoaddress', addr, 5, 'for rent', 'landlord');
  const [h3] = await d.rpc<string[]>('generate', 1);
  const balance = sats(await d.rpc<number>('getbalance'));
  const unspent = await d.rpc<Unspent[]>('listunspent');
  assert.equal(sum(unspent), balance);
  assert.equal((await d.rpc<Unspent[]>('listunspent', 1, 9999999, [addr]))[0]!.amount, 5);

  await t.test('invalidateblock: the block leaves, its transaction waits in the mempool', async () => {
    await d.rpc('invalidateblock', h3);
    assert.equal(await d.rpc<number>('getblockcount'), 2);
    assert.deepEqual(await d.rpc<Unspent[]>('listunspent', 1, 9999999, [addr]), []);
    const pending = await d.rpc<Unspent[]>('listunspent', 0, 9999999, [addr]);
    assert.equal(pending.length, 1);
    assert.equal(pending[0]!.confirmations, 0);
    assert.equal(pending[0]!.txid, txid);
    // Every trusted coin counts: confirmed ones and the wallet's own mempool outputs.
    assert.equal(sats(await d.rpc<number>('getbalance')), sum(await d.rpc<Unspent[]>('listunspent', 0)));
    assert.ok(sats(await d.rpc<number>('getbalance')) < balance, 'block 3 coinbase is gone');
    assert.equal((await d.rpc<{ confirmations: number }>('gettransaction', txid)).confirmations, 0);
  });

  await t.test('reconsiderblock: back where it was', async () => {
    await d.rpc('reconsiderblock', h3);
    assert.equal(await d.rpc<number>('getblockcount'), 3);
    assert.equal(sats(await d.rpc<number>('getbalance')), balance);
    assert.deepEqual(keyOf(await d.rpc<Unspent[]>('listunspent')), keyOf(unspent));
  });

  await t.test('a competing branch mines the transaction again', async () => {
    await d.rpc('invalidateblock', h3);
    await d.rpc('generate', 2);
    assert.equal(await d.rpc<number>('getblockcount'), 4);
    const mine = await d.rpc<Unspent[]>('listunspent', 1, 9999999, [addr]);
    assert.equal(mine.length, 1);
    assert.equal(mine[0]!.confirmations, 2);
    assert.equal(sats(await d.rpc<number>('getbalance')), sum(await d.rpc<Unspent[]>('listunspent', 0)));
    assert.equal((await d.rpc<string[]>('getrawmempool')).length, 0);
  });

  await t.test('restart and kill -9: the same coins and history', async () => {
    const before = keyOf(await d.rpc<Unspent[]>('listunspent'));
    const bal = await d.rpc<number>('getbalance');
    const history = await d.rpc<unknown[]>('listtransactions', '*', 100);
    await d.stop();
    await d.start();
    assert.deepEqual(keyOf(await d.rpc<Unspent[]>('listunspent')), before);
    assert.equal(await d.rpc<number>('getbalance'), bal);
    assert.deepEqual(await d.rpc<unknown[]>('listtransactions', '*', 100), history);
    // sendtoaddress's comments are kept with the transaction (mapValue), in key order.
    const gt = await d.rpcRaw<{ comment: string; to: string }>('gettransaction', [txid]);
    assert.match(gt.raw, /"timereceived":\d+,"comment":"for rent","to":"landlord","vjoinsplit":\[\],"details":/);
    await d.crash();
    await d.start();
    assert.deepEqual(keyOf(await d.rpc<Unspent[]>('listunspent')), before);
    assert.equal(await d.rpc<number>('getbalance'), bal);
    // The node key is the same one after restarts: coinbases still pay the wallet.
    const b0 = sats(await d.rpc<number>('getbalance'));
    await d.rpc('generate', 1);
    assert.ok(sats(await d.rpc<number>('getbalance')) > b0);
  });

  await t.test('importprivkey rescans for the coins of the key', async () => {
    let secret: Uint8Array;
    do secret = new Uint8Array(randomBytes(32));
    while (secret[0] === 0xff);
    const address = pubkeyToAddress(publicKeyFromPrivate(secret, true));
    assert.equal((await d.rpc<{ ismine: boolean }>('validateaddress', address)).ismine, false);
    await d.rpc('sendtoaddress', address, 3);
    await d.rpc('generate', 1);
    const before = sats(await d.rpc<number>('getbalance'));
    assert.equal(await d.rpc('importprivkey', encodeWIF(secret, true), 'imported'), address);
    assert.equal((await d.rpc<{ ismine: boolean; account: string }>('validateaddress', address)).ismine, true);
    assert.equal((await d.rpc<{ account: string }>('validateaddress', address)).account, 'imported');
    const found = await d.rpc<Unspent[]>('listunspent', 1, 9999999, [address]);
    assert.equal(found.length, 1);
    assert.equal(found[0]!.amount, 3);
    assert.equal(sats(await d.rpc<number>('getbalance')), before + sats(3));
    assert.equal(await d.rpc('dumpprivkey', address), encodeWIF(secret, true));
  });

  await t.test('dumpwallet → importwallet, backupwallet', async () => {
    const path = await d.rpc<string>('dumpwallet', 'dump1');
    assert.equal(path, join(exportDir, 'dump1'));
    const text = readFileSync(path, 'utf8');
    assert.match(text, /^# Wallet dump created by /);
    assert.match(text, /\n# End of dump\n$/);
    assert.match(text, new RegExp(`\\n(U|K|L|5|7)[1-9A-HJ-NP-Za-km-z]+ \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ label= # addr=${addr}\\n`));
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.deepEqual(await d.rpcRaw('dumpwallet', ['dump1']).then((r) => r.error), { code: -8, message: `Cannot overwrite existing file ${path}` });
    assert.deepEqual(await d.rpcRaw('dumpwallet', ['a/b']).then((r) => r.error), { code: -4, message: "Filename is invalid as only alphanumeric characters are allowed.  Try 'ab' instead." });

    const other = await startDaemon(['-gen=0']);
    daemons.push(other);
    assert.equal((await other.rpc<{ ismine: boolean }>('validateaddress', addr)).ismine, false);
    assert.equal(await other.rpc('importwallet', path), null);
    assert.equal((await other.rpc<{ ismine: boolean }>('validateaddress', addr)).ismine, true);
    assert.equal(await other.rpc('dumpprivkey', addr), await d.rpc('dumpprivkey', addr));
    assert.deepEqual((await other.rpcRaw('importwallet', [join(exportDir, 'nothere')])).error, { code: -8, message: 'Cannot open wallet dump file' });

    const bak = await d.rpc<string>('backupwallet', 'bak1');
    assert.equal(bak, join(exportDir, 'bak1'));
    assert.equal(statSync(bak).mode & 0o777, 0o600);
    assert.ok(readFileSync(bak, 'utf8').length > 0);
  });
});

test('-rescan rebuilds the transaction history from the blocks', async (t) => {
  const d = await startDaemon(['-gen=0']);
  t.after(async () => {
    await d.stop();
    removeDir(d.datadir);
  });
  await d.rpc('generate', 2);
  const a = await d.rpc<string>('getnewaddress');
  const first = await d.rpc<string>('sendtoaddress', a, 4);
  await d.rpc('generate', 1);
  // Spend the received coin again, so one wallet transaction has no unspent output left.
  const coin = (await d.rpc<Unspent[]>('listunspent', 1, 9999999, [a]))[0]!;
  const raw = await d.rpc<string>('createrawtransaction', [{ txid: coin.txid, vout: coin.vout }], { [await d.rpc<string>('getnewaddress')]: 3.9999 });
  const second = await d.rpc<string>('sendrawtransaction', (await d.rpc<{ hex: string }>('signrawtransaction', raw)).hex);
  await d.rpc('generate', 1);
  const txids = async () => new Set((await d.rpc<{ txid: string }[]>('listtransactions', '*', 1000)).map((e) => e.txid));
  const before = await txids();
  assert.ok(before.has(first) && before.has(second));
  const balance = await d.rpc<number>('getbalance');
  await d.stop();
  rmSync(join(d.datadir, 'wallettx.db'));
  // Without -rescan only what created the unspent outputs is found again.
  await d.start();
  assert.equal(await d.rpc<number>('getbalance'), balance);
  // The premine's coinbase was spent whole by the first send: no output of it is left.
  const premine = (await d.rpc<{ tx: string[] }>('getblock', await d.rpc<string>('getblockhash', 1))).tx[0]!;
  assert.ok(before.has(premine));
  assert.ok(!(await txids()).has(premine), 'a transaction with no unspent output left is not found in the UTXO set');
  await d.stop();
  rmSync(join(d.datadir, 'wallettx.db'));
  (d.args as string[]).push('-rescan');
  await d.start();
  assert.deepEqual(await txids(), before);
  assert.equal(await d.rpc<number>('getbalance'), balance);
});
