import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Daemon, removeDir, startDaemon } from '../helpers/daemon.js';
import { foreignKey } from '../helpers/foreign-key.js';

/**
 * backupwallet restores the whole wallet: komodod's wallet.dat holds keys, watch-only scripts, labels
 * and account entries in one file; acnode's wallet is three stores, so the backup is three files
 * (the destination, `.watchonly.db` and `.walletacct.db` beside it). Put back under their names in a
 * stopped node, they give the wallet as it was at the backup, and nothing made after it.
 */

test('backupwallet writes every wallet store, and the backup restores the wallet as it was', async (t) => {
  const exportDir = mkdtempSync(join(tmpdir(), 'acnode-export-'));
  const args = ['-gen=0', `-exportdir=${exportDir}`];
  let d = await startDaemon(args);
  t.after(async () => {
    await d.stop();
    removeDir(d.datadir);
    removeDir(exportDir);
  });
  await d.rpc('generate', 2);

  const alice = await d.rpc<string>('getnewaddress', 'alice');
  const watched = foreignKey().address;
  assert.equal(await d.rpc('importaddress', watched, 'watched', false), null);
  assert.equal(await d.rpc('move', '', 'alice', 1, 1, 'rent'), true);
  const accounts = await d.rpc<Record<string, number>>('listaccounts', 1, true);
  const balance = await d.rpc<number>('getbalance');
  assert.equal(accounts.alice, 1, 'the move credits alice');

  const bak = await d.rpc<string>('backupwallet', 'bak1');
  assert.equal(bak, join(exportDir, 'bak1'));
  for (const file of [bak, `${bak}.watchonly.db`, `${bak}.walletacct.db`]) {
    assert.ok(existsSync(file), `${file} written`);
    assert.equal(statSync(file).mode & 0o777, 0o600, `${file} is 0600`);
  }

  // Made after the backup: gone once it is restored.
  const later = foreignKey().address;
  assert.equal(await d.rpc('importaddress', later, 'later', false), null);
  const bob = await d.rpc<string>('getnewaddress', 'bob');
  assert.equal(await d.rpc('move', 'alice', 'bob', 0.5), true);

  const dir = d.datadir;
  await d.stop();
  copyFileSync(bak, join(dir, 'wallet.db'));
  copyFileSync(`${bak}.watchonly.db`, join(dir, 'watchonly.db'));
  copyFileSync(`${bak}.walletacct.db`, join(dir, 'walletacct.db'));
  d = await new Daemon(dir, args).start();

  assert.deepEqual(await d.rpc('listaccounts', 1, true), accounts, 'accounts as at the backup');
  assert.equal(await d.rpc('getbalance'), balance);
  assert.deepEqual(await d.rpc('getaddressesbyaccount', 'alice'), [alice]);
  const w = await d.rpc<{ ismine: boolean; iswatchonly: boolean; account?: string }>('validateaddress', watched);
  assert.deepEqual([w.ismine, w.iswatchonly, w.account], [false, true, 'watched'], 'the watched address and its label restored');
  assert.equal((await d.rpc<{ iswatchonly: boolean }>('validateaddress', later)).iswatchonly, false, 'an import after the backup is not in it');
  // The key itself was in the backup's keypool (komodod's reason for the pool): only its label is new.
  assert.equal((await d.rpc<{ ismine: boolean }>('validateaddress', bob)).ismine, true, 'a pool key handed out after the backup is still the wallet\'s');
  assert.deepEqual(await d.rpc('getaddressesbyaccount', 'bob'), [], 'a label given after the backup is not in it');
  const moves = (await d.rpc<{ category: string; account: string; comment?: string }[]>('listtransactions', '*', 100)).filter((e) => e.category === 'move');
  assert.deepEqual(
    moves.map((m) => [m.account, m.comment]),
    [
      ['', 'rent'],
      ['alice', 'rent'],
    ],
    'the move made before the backup, both sides, and none after',
  );
});
