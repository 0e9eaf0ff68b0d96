import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Daemon, removeDir, rpcError } from '../helpers/daemon.js';
import { encodeWIF } from '../../src/chain/address/index.js';
import { waitUntil } from '../helpers/wait.js';

/**
 * Wallet encryption over HTTP, as komodod 0adeeab answers it: encryptwallet disabled by default on a
 * chain that is not -ac_public; with -developerencryptwallet it encrypts and stops the node; after the
 * restart the key-using calls fail -13 until walletpassphrase, which relocks by itself; walletlock,
 * walletpassphrasechange; no private key left in any file of the data directory.
 */

const PASS = 'correct horse battery staple';
const NEW_PASS = 'tr0ub4dor&3';

/** Every regular file under a directory, recursively (the data directory after encryption). */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/** The private keys wallet.db holds in the clear (an unencrypted wallet), hex. */
function plainKeys(datadir: string): string[] {
  return readFileSync(join(datadir, 'wallet.db'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { secret?: string })
    .flatMap((d) => (typeof d.secret === 'string' ? [d.secret] : []));
}

/** Polls until `check` holds (no fixed sleep beyond need). */
const until = (what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> => waitUntil(what, check, timeoutMs, 100);

test('wallet encryption: disabled by default; encryptwallet, the locked wallet, walletpassphrase, walletlock, walletpassphrasechange', async (t) => {
  const datadir = mkdtempSync(join(tmpdir(), 'acnode-crypt-'));
  const daemons: Daemon[] = [];
  t.after(async () => {
    for (const d of daemons) await d.stop();
    removeDir(datadir);
  });
  const start = async (args: string[]) => {
    const d = new Daemon(datadir, ['-gen=0', '-keypool=4', ...args]);
    daemons.push(d);
    return d.start();
  };

  let d = await start([]);
  await t.test('without -developerencryptwallet (a chain without -ac_public): the disabled error, the other three -15', async () => {
    assert.deepEqual(await rpcError(d.rpc('encryptwallet', PASS)), { code: -16, message: 'Error: wallet encryption is disabled.' });
    const usage = await rpcError(d.rpc('encryptwallet'));
    assert.equal(usage.code, -1);
    assert.ok(usage.message.startsWith('encryptwallet "passphrase"\n\nWARNING: encryptwallet is disabled.\nTo enable it, restart acnoded with the -experimentalfeatures and\n-developerencryptwallet commandline options, or add these two lines\nto the ACDEV.conf file:\n\nexperimentalfeatures=1\ndeveloperencryptwallet=1\n\nEncrypts the wallet'), usage.message);
    for (const m of ['walletpassphrase', 'walletpassphrasechange', 'walletlock']) {
      assert.deepEqual(await rpcError(d.rpc(m, 'x', 1)), { code: -15, message: `Error: running with an unencrypted wallet, but ${m} was called.` });
    }
    // komodod gives no help text for them on an unencrypted wallet: help neither lists nor shows them.
    const list = await d.rpc<string>('help');
    assert.match(list, /\nencryptwallet "passphrase"\n/);
    assert.ok(!/walletpassphrase|walletlock/.test(list));
    assert.equal(await d.rpc('help', 'walletlock'), 'help: unknown command: walletlock');
    assert.ok(!(await d.rpc<string>('help', 'sendtoaddress')).includes('Requires wallet passphrase'));
    assert.equal('unlocked_until' in (await d.rpc<Record<string, unknown>>('getwalletinfo')), false);
  });

  // Keys the wallet holds before encryption: the pool, the node key, a change key, an imported key.
  await d.rpc('generate', 3);
  const imported = createHash('sha256').update('imported before encryption').digest();
  const importedAddr = await d.rpc<string>('importprivkey', encodeWIF(imported, true), 'imp', false);
  const addr = await d.rpc<string>('getnewaddress');
  const wifBefore = await d.rpc<string>('dumpprivkey', addr);
  await d.stop();
  const secrets = plainKeys(datadir);
  assert.ok(secrets.length >= 6 && secrets.includes(imported.toString('hex')));

  await t.test('-experimentalfeatures=0 with -developerencryptwallet stops the start, as komodod init', async () => {
    await assert.rejects(start(['-experimentalfeatures=0', '-developerencryptwallet']), /Wallet encryption requires -experimentalfeatures\./);
  });

  d = await start(['-developerencryptwallet']);
  await t.test('encryptwallet: every key sealed, the node stops, no private key left in any file', async () => {
    assert.deepEqual(await rpcError(d.rpc('encryptwallet', '')), { code: -1, message: 'encryptwallet <passphrase>\nEncrypts the wallet with <passphrase>.' });
    assert.deepEqual(await rpcError(d.rpc('encryptwallet', 5)), { code: -1, message: 'JSON value is not a string as expected' });
    assert.equal(
      await d.rpc('encryptwallet', PASS),
      'wallet encrypted; Komodo server stopping, restart to run with encrypted wallet. The keypool has been flushed, you need to make a new backup.',
    );
    assert.equal(await d.exitedBy(60_000), 0);
    const files = filesUnder(datadir);
    assert.ok(files.some((f) => f.endsWith('wallet.db')));
    for (const f of files) {
      if (statSync(f).size > 64 * 1024 * 1024) continue;
      const text = readFileSync(f).toString('latin1');
      for (const s of secrets) {
        const bytes = Buffer.from(s, 'hex');
        assert.ok(!text.includes(s), `a private key in hex in ${f}`);
        assert.ok(!text.includes(encodeWIF(bytes, true)) && !text.includes(encodeWIF(bytes, false)), `a WIF in ${f}`);
      }
    }
    const walletLines = readFileSync(join(datadir, 'wallet.db'), 'utf8').split('\n').filter((l) => l !== '');
    assert.equal(walletLines.filter((l) => l.includes('"secret"')).length, 0, 'no plaintext record left behind by nedb appends');
    assert.ok(!d.log.join('\n').includes(PASS), 'the passphrase is never logged');
  });

  d = await start(['-developerencryptwallet']);
  await t.test('locked: the key-using calls fail -13, keys from the pool until it runs out, help as komodod', async () => {
    const info = await d.rpc<Record<string, unknown>>('getwalletinfo');
    assert.equal(info.unlocked_until, 0);
    assert.deepEqual(Object.keys(info).slice(-3), ['keypoolsize', 'unlocked_until', 'paytxfee']);
    assert.equal(info.keypoolsize, 4, 'NewKeyPool wrote -keypool keys; a locked wallet does not top up');
    assert.equal((await d.rpc<Record<string, unknown>>('getinfo')).unlocked_until, 0);
    const locked = { code: -13, message: 'Error: Please enter the wallet passphrase with walletpassphrase first.' };
    const raw = await d.rpc<string>('createrawtransaction', [], { [addr]: 1 });
    const calls: [string, ...unknown[]][] = [
      ['dumpprivkey', addr],
      ['dumpwallet', 'dump'],
      ['importprivkey', encodeWIF(createHash('sha256').update('k').digest(), true)],
      ['importwallet', '/nonexistent'],
      ['signmessage', addr, 'hello'],
      ['sendtoaddress', addr, 1],
      ['sendmany', '', { [addr]: 1 }],
      ['keypoolrefill'],
      ['signrawtransaction', raw],
      ['tokencreate', 'T', '1'],
    ];
    for (const [m, ...p] of calls) assert.deepEqual(await rpcError(d.rpc(m, ...p)), locked, m);
    // fundrawtransaction signs nothing (komodod has no EnsureWalletIsUnlocked there): it works locked.
    const funded = await d.rpc<{ hex: string; changepos: number }>('fundrawtransaction', raw);
    assert.match(funded.hex, /^[0-9a-f]+$/);
    // With its own keys, signrawtransaction needs no wallet key.
    const own = await d.rpc<{ complete: boolean }>('signrawtransaction', raw, [], [encodeWIF(imported, true)]);
    assert.equal(own.complete, true);
    assert.deepEqual(await rpcError(d.rpc('encryptwallet', PASS)), { code: -15, message: 'Error: running with an encrypted wallet, but encryptwallet was called.' });
    // getnewaddress takes pool keys while there are some (GetKeyFromPool), then -12.
    for (let i = 0; i < 4; i++) await d.rpc('getnewaddress');
    const ranOut = { code: -12, message: 'Error: Keypool ran out, please call keypoolrefill first' };
    assert.deepEqual(await rpcError(d.rpc('getnewaddress')), ranOut);
    assert.deepEqual(await rpcError(d.rpc('getrawchangeaddress')), ranOut);
    assert.equal((await d.rpc<Record<string, unknown>>('getwalletinfo')).keypoolsize, 0);
    // help: the three methods of an encrypted wallet, not encryptwallet; HelpRequiringPassphrase lines.
    const list = await d.rpc<string>('help');
    assert.match(list, /\nwalletlock\nwalletpassphrase "passphrase" timeout\nwalletpassphrasechange "oldpassphrase" "newpassphrase"(\n|$)/);
    assert.ok(!list.includes('encryptwallet'));
    assert.equal(await d.rpc('help', 'encryptwallet'), 'help: unknown command: encryptwallet');
    for (const m of ['sendtoaddress', 'sendmany', 'signmessage', 'keypoolrefill', 'signrawtransaction'])
      assert.ok((await d.rpc<string>('help', m)).includes('\nRequires wallet passphrase to be set with walletpassphrase call.'), m);
    assert.equal((await rpcError(d.rpc('walletlock', 1))).message.split('\n')[0], 'walletlock');
    assert.equal((await rpcError(d.rpc('walletpassphrase', PASS))).message.split('\n')[0], 'walletpassphrase "passphrase" timeout');
  });

  await t.test('walletpassphrase unlocks for its timeout (the pool refilled), then relocks by itself; walletlock locks', async () => {
    assert.deepEqual(await rpcError(d.rpc('walletpassphrase', 'wrong', 60)), { code: -14, message: 'Error: The wallet passphrase entered was incorrect.' });
    assert.deepEqual(await rpcError(d.rpc('walletpassphrase', '', 60)), { code: -1, message: 'walletpassphrase <passphrase> <timeout>\nStores the wallet decryption key in memory for <timeout> seconds.' });
    assert.deepEqual(await rpcError(d.rpc('walletpassphrase', PASS, 'x')), { code: -1, message: 'JSON value is not an integer as expected' });
    assert.equal((await d.rpc<Record<string, unknown>>('getwalletinfo')).unlocked_until, 0, 'a failed call leaves it locked');

    // The key-using calls under an unlock that outlasts them on any machine, then a short one for the relock.
    let before = Math.floor(Date.now() / 1000);
    assert.equal(await d.rpc('walletpassphrase', PASS, 600), null);
    const info = await d.rpc<Record<string, number>>('getwalletinfo');
    assert.ok(info.unlocked_until! >= before + 600 && info.unlocked_until! <= Math.floor(Date.now() / 1000) + 600, String(info.unlocked_until));
    assert.equal(info.keypoolsize, 5, 'TopUpKeyPool on unlock: -keypool + 1');
    assert.equal(await d.rpc('dumpprivkey', addr), wifBefore, 'the same key, opened');
    assert.equal(await d.rpc('dumpprivkey', importedAddr), encodeWIF(imported, true));
    assert.equal(typeof (await d.rpc('signmessage', addr, 'hello')), 'string');
    assert.equal(await d.rpc('walletlock'), null);
    before = Math.floor(Date.now() / 1000);
    assert.equal(await d.rpc('walletpassphrase', PASS, 3), null);
    const short = (await d.rpc<Record<string, number>>('getwalletinfo')).unlocked_until!;
    assert.ok(short >= before + 3 && short <= Math.floor(Date.now() / 1000) + 3, String(short));
    await until('the relock', async () => (await d.rpc<Record<string, number>>('getwalletinfo')).unlocked_until === 0);
    assert.deepEqual(await rpcError(d.rpc('dumpprivkey', addr)), { code: -13, message: 'Error: Please enter the wallet passphrase with walletpassphrase first.' });

    await d.rpc('walletpassphrase', PASS, 600);
    const txid = await d.rpc<string>('sendtoaddress', addr, 1);
    assert.match(txid, /^[0-9a-f]{64}$/);
    const token = await d.rpc<{ result: string }>('tokencreate', 'T', '1');
    assert.equal(token.result, 'success');
    assert.equal(await d.rpc('keypoolrefill', 8), null);
    assert.equal((await d.rpc<Record<string, number>>('getwalletinfo')).keypoolsize, 9);
    assert.equal(await d.rpc('walletlock'), null);
    assert.equal((await d.rpc<Record<string, number>>('getwalletinfo')).unlocked_until, 0);
    assert.equal((await rpcError(d.rpc('signmessage', addr, 'hello'))).code, -13);
  });

  await t.test('walletpassphrasechange re-seals the master key: the old passphrase gets -14, the new one unlocks', async () => {
    assert.deepEqual(await rpcError(d.rpc('walletpassphrasechange', 'wrong', NEW_PASS)), { code: -14, message: 'Error: The wallet passphrase entered was incorrect.' });
    assert.deepEqual(await rpcError(d.rpc('walletpassphrasechange', PASS, '')), {
      code: -1,
      message: 'walletpassphrasechange <oldpassphrase> <newpassphrase>\nChanges the wallet passphrase from <oldpassphrase> to <newpassphrase>.',
    });
    assert.equal(await d.rpc('walletpassphrasechange', PASS, NEW_PASS), null);
    assert.deepEqual(await rpcError(d.rpc('walletpassphrase', PASS, 60)), { code: -14, message: 'Error: The wallet passphrase entered was incorrect.' });
    assert.equal(await d.rpc('walletpassphrase', NEW_PASS, 60), null);
    assert.equal(await d.rpc('dumpprivkey', addr), wifBefore);
    const masters = readFileSync(join(datadir, 'wallet.db'), 'utf8').split('\n').filter((l) => l.includes('"masterKey"'));
    assert.equal(masters.length, 1, 'the old master key record is not left in the file');
    await d.rpc('walletlock');
    const log = d.log.join('\n');
    for (const s of [PASS, NEW_PASS, wifBefore, encodeWIF(imported, true), imported.toString('hex')]) assert.ok(!log.includes(s), 'a secret in the log');
  });
});

test('an -ac_public chain has wallet encryption on by default (komodo_acpublic), -developerencryptwallet=0 turns it off', async (t) => {
  const datadir = mkdtempSync(join(tmpdir(), 'acnode-crypt-pub-'));
  const chain = ['-ac_name=CRYPTPUB', '-ac_supply=1000', '-ac_public=1', '-gen=0'];
  const daemons: Daemon[] = [];
  t.after(async () => {
    for (const d of daemons) await d.stop();
    removeDir(datadir);
  });
  const off = await new Daemon(datadir, [...chain, '-developerencryptwallet=0']).start();
  daemons.push(off);
  assert.deepEqual(await rpcError(off.rpc('encryptwallet', PASS)), { code: -16, message: 'Error: wallet encryption is disabled.' });
  await off.stop();
  const d = await new Daemon(datadir, chain).start();
  daemons.push(d);
  const usage = await rpcError(d.rpc('encryptwallet'));
  assert.ok(usage.message.startsWith('encryptwallet "passphrase"\n\nEncrypts the wallet'), 'no "disabled" warning');
  assert.match(await d.rpc<string>('encryptwallet', PASS), /^wallet encrypted; Komodo server stopping/);
  assert.equal(await d.exitedBy(60_000), 0);
});
