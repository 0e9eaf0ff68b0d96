import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256 } from '../../src/chain/crypto/hash.js';
import { publicKeyFromPrivate } from '../../src/chain/crypto/secp256k1.js';
import { toHex } from '../../src/chain/encoding/hex.js';
import { encodeWIF } from '../../src/chain/address/index.js';
import { KeyStore } from '../../src/actors/wallet/keystore.js';
import { WalletCrypt } from '../../src/actors/wallet/walletcrypt.js';
import { Secret } from '../../src/chain/crypto/secret.js';
import { sanitize } from '../../src/node/inspect.js';
import { redactParams } from '../../src/node/inspect-redact.js';
import { inspect } from 'node:util';
import { keyAad, open, seal, unwrapMasterKey, validKdfParams, wrapMasterKey, KDF_PARAMS } from '../../src/actors/wallet/crypter.js';

/** The wallet's encryption at rest: the crypter's AEAD and KDF, then the key store encrypted, locked, unlocked, re-keyed. */

const utf8 = (s: string) => new TextEncoder().encode(s);
const tmp = () => mkdtempSync(join(tmpdir(), 'acnode-crypt-'));

test('seal/open: a round trip; a wrong key, a changed byte or other additional data fail the GCM tag', () => {
  const key = sha256(utf8('master'));
  const plain = sha256(utf8('a private key'));
  const aad = keyAad(publicKeyFromPrivate(plain, true));
  const box = seal(key, plain, aad);
  assert.equal(box.length, 12 + 32 + 16, 'nonce ‖ ciphertext ‖ tag');
  assert.ok(!Buffer.from(box).toString('hex').includes(toHex(plain)), 'the ciphertext is not the key');
  assert.equal(toHex(open(key, box, aad)!), toHex(plain));
  assert.notEqual(toHex(seal(key, plain, aad)), toHex(box), 'a fresh nonce each time');
  assert.equal(open(sha256(utf8('other')), box, aad), null, 'wrong key');
  assert.equal(open(key, box, keyAad(publicKeyFromPrivate(sha256(utf8('x')), true))), null, 'a box moved onto another key');
  for (const at of [0, 12, 30, box.length - 1]) {
    const bad = Uint8Array.from(box);
    bad[at]! ^= 1;
    assert.equal(open(key, bad, aad), null, `byte ${at} changed`);
  }
  assert.equal(open(key, box.subarray(0, 20), aad), null, 'a short box');
});

test('the master key record: the right passphrase opens it, a wrong one or a changed record does not', async () => {
  const master = sha256(utf8('random master key'));
  const rec = await wrapMasterKey(master, utf8('correct horse'));
  assert.deepEqual([rec.N, rec.r, rec.p], [KDF_PARAMS.N, KDF_PARAMS.r, KDF_PARAMS.p], 'the costs are stored with the record');
  assert.equal(toHex((await unwrapMasterKey(rec, utf8('correct horse')))!), toHex(master));
  assert.equal(await unwrapMasterKey(rec, utf8('correct horsE')), null);
  const boxBytes = Buffer.from(rec.box, 'hex');
  boxBytes[20]! ^= 0x80;
  assert.equal(await unwrapMasterKey({ ...rec, box: boxBytes.toString('hex') }, utf8('correct horse')), null, 'changed box');
  assert.equal(await unwrapMasterKey({ ...rec, N: 2 ** 14 }, utf8('correct horse')), null, 'changed costs (bound into the additional data)');
  // A hostile record cannot make a load allocate gigabytes.
  assert.equal(validKdfParams({ N: 2 ** 30, r: 8, p: 1 }), false);
  assert.equal(validKdfParams({ N: 3000, r: 8, p: 1 }), false);
  assert.equal(await unwrapMasterKey({ ...rec, N: 2 ** 30 }, utf8('correct horse')), null);
});

test('the key store encrypted: no plain key on disk, locked after, unlocked by the passphrase, re-keyed by a change', async () => {
  const dir = tmp();
  try {
    const ks = await KeyStore.open(dir, { keypool: 3 });
    const imported = sha256(utf8('imported key'));
    await ks.add(imported, 'imported', false, 1700000000, 'label');
    const node = await ks.nodeKey();
    const plain = ks.all().map((k) => ({ hex: k.hex, secret: toHex(k.secret!), compressed: k.compressed }));
    const oldPool = ks.all().filter((k) => k.origin === 'pool').map((k) => k.hex);
    assert.equal(oldPool.length, 3, "-keypool + 1, less the node key");
    assert.equal(ks.crypted, false);
    assert.equal(ks.locked, false);

    await ks.encrypt(utf8('pass one'));
    assert.equal(ks.crypted, true);
    assert.equal(ks.locked, true, 'EncryptWallet ends locked');
    // NewKeyPool: the old pool keys leave it, -keypool new ones (not +1) fill it.
    const pool = ks.all().filter((k) => k.origin === 'pool');
    assert.equal(pool.length, 3);
    assert.ok(pool.every((k) => !oldPool.includes(k.hex)));
    assert.ok(oldPool.every((h) => ks.get(h)?.origin === 'new'));
    assert.ok(ks.all().every((k) => k.secret === undefined && ks.secretOf(k) === undefined), 'no key readable while locked');

    // The file: no private key in hex, nor as a WIF, of any key; one line per record (rewritten, not appended to).
    const file = readFileSync(join(dir, 'wallet.db'), 'utf8');
    const all = [...plain, ...ks.all().map((k) => ({ hex: k.hex, secret: '', compressed: k.compressed }))];
    for (const k of plain) {
      assert.ok(!file.includes(k.secret), 'a private key in hex');
      const bytes = Buffer.from(k.secret, 'hex');
      for (const prefix of [0x80, 0xbc]) for (const c of [true, false]) assert.ok(!file.includes(encodeWIF(bytes, c, prefix)), 'a WIF');
    }
    const lines = file.split('\n').filter((l) => l !== '');
    assert.equal(lines.length, new Set(lines.map((l) => JSON.parse(l)._id)).size, 'no superseded record left in the file');
    assert.ok(lines.some((l) => JSON.parse(l).masterKey), 'the master key record');
    assert.equal(all.length > 0, true);

    // TopUpKeyPool does nothing while locked; the pool runs out, then -12.
    await ks.topUp();
    assert.equal((await ks.poolInfo()).size, 3);
    for (let i = 0; i < 3; i++) await ks.takePoolKey('');
    assert.equal((await ks.poolInfo()).size, 0);
    await assert.rejects(ks.poolKey(), { code: -12, message: 'Error: Keypool ran out, please call keypoolrefill first' });
    await assert.rejects(ks.add(sha256(utf8('while locked')), 'imported'), /locked/);

    assert.equal(await ks.unlock(utf8('pass two')), false);
    assert.equal(ks.locked, true);
    assert.equal(await ks.unlock(utf8('pass one')), true);
    assert.equal(ks.locked, false);
    for (const k of plain) assert.equal(toHex(ks.secretOf(ks.get(k.hex)!)!), k.secret, 'every key opens');
    await ks.topUp();
    assert.equal((await ks.poolInfo()).size, 4, 'refilled while unlocked (-keypool + 1)');
    const opened = ks.secretOf(node)!;
    ks.lock();
    assert.ok(opened.every((b) => b === 0), 'locking wipes the opened keys');
    assert.equal(ks.secretOf(node), undefined);

    // A restart: still encrypted and locked; the new pool keys were stored sealed too.
    const again = await KeyStore.open(dir, { keypool: 3 });
    assert.equal(again.crypted, true);
    assert.equal(again.locked, true);
    assert.equal(again.size, ks.size);
    assert.ok(!readFileSync(join(dir, 'wallet.db'), 'utf8').includes('"secret"'));
    assert.equal(await again.changePassphrase(utf8('pass two'), utf8('pass three')), false, 'a wrong old passphrase');
    assert.equal(await again.changePassphrase(utf8('pass one'), utf8('pass three')), true);
    assert.equal(again.locked, true, 'a change on a locked wallet leaves it locked');
    assert.equal(await again.unlock(utf8('pass one')), false, 'the old passphrase no longer opens it');
    assert.equal(await again.unlock(utf8('pass three')), true);
    assert.equal(toHex(again.secretOf(again.get(toHex(publicKeyFromPrivate(imported, true)))!)!), toHex(imported));
    // Unlocked, a change keeps it unlocked; a wrong old passphrase locks it (ChangeWalletPassphrase locks first).
    assert.equal(await again.changePassphrase(utf8('pass three'), utf8('pass four')), true);
    assert.equal(again.locked, false);
    assert.equal(await again.changePassphrase(utf8('nope'), utf8('pass five')), false);
    assert.equal(again.locked, true);
    const third = await KeyStore.open(dir, { keypool: 3 });
    assert.equal(await third.unlock(utf8('pass four')), true, 'the change was stored');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an encryption cut short: before the master key record the wallet stays unencrypted; after it, the plain keys are removed at load', async () => {
  const dir = tmp();
  try {
    const ks = await KeyStore.open(dir, { keypool: 1 });
    const secrets = ks.all().map((k) => toHex(k.secret!));
    await ks.encrypt(utf8('pw'));
    const lines = readFileSync(join(dir, 'wallet.db'), 'utf8').split('\n').filter((l) => l !== '');
    const idOf = (s: string) => toHex(publicKeyFromPrivate(Buffer.from(s, 'hex'), true));
    // A key held before the encryption (not one of the new pool keys), in whatever order the file lists them.
    const keyLine = lines.find((l) => JSON.parse(l).csecret && secrets.some((s) => idOf(s) === JSON.parse(l)._id))!;
    const master = lines.find((l) => JSON.parse(l).masterKey)!;
    // Phase 2 cut short: that key still holds its plain key beside the sealed one.
    const first = JSON.parse(keyLine);
    const firstSecret = secrets.find((s) => idOf(s) === first._id)!;
    const torn = lines.map((l) => (l === keyLine ? JSON.stringify({ ...first, secret: firstSecret }) : l));
    writeFileSync(join(dir, 'wallet.db'), torn.join('\n') + '\n', { mode: 0o600 });
    const logs: string[] = [];
    const resumed = await KeyStore.open(dir, { keypool: 1, log: (m) => logs.push(m) });
    assert.equal(resumed.locked, true);
    assert.ok(!readFileSync(join(dir, 'wallet.db'), 'utf8').includes(firstSecret), 'the plain key is gone from the file');
    assert.match(logs.join('\n'), /finished an encryption that was cut short \(1 plain keys/);
    assert.ok(!logs.join('\n').includes(firstSecret));
    assert.equal(await resumed.unlock(utf8('pw')), true);
    assert.equal(toHex(resumed.secretOf(resumed.get(first._id)!)!), firstSecret);
    // Phase 1 cut short: sealed copies but no master key record: an unencrypted wallet with its plain keys.
    const phase1 = lines.filter((l) => l !== master).map((l) => {
      const d = JSON.parse(l);
      const s = secrets.find((x) => idOf(x) === d._id);
      return JSON.stringify(s ? { ...d, secret: s } : d);
    });
    writeFileSync(join(dir, 'wallet.db'), phase1.join('\n') + '\n', { mode: 0o600 });
    const plainAgain = await KeyStore.open(dir, { keypool: 1 });
    assert.equal(plainAgain.crypted, false);
    assert.equal(toHex(plainAgain.secretOf(plainAgain.get(first._id)!)!), firstSecret);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('passphrases crossing to the wallet actor never render: the -inspect sanitiser, JSON, and the recorded call params', () => {
  const pass = 'my very secret passphrase';
  const events = [
    { op: 'encryptWallet', passphrase: new Secret(utf8(pass)) },
    { op: 'walletPassphrase', passphrase: new Secret(utf8(pass)), timeout: 60 },
    { op: 'walletPassphraseChange', oldPassphrase: new Secret(utf8(pass)), newPassphrase: new Secret(utf8(pass + '2')) },
  ];
  for (const e of events) {
    for (const text of [JSON.stringify(sanitize({ type: 'request', reqId: 1, body: e })), JSON.stringify(e), String(Object.values(e)), inspect(e)]) {
      assert.ok(!text.includes(pass) && !text.includes(Buffer.from(pass).toString('hex')), text);
    }
  }
  assert.deepEqual(redactParams('walletpassphrase', [pass, 60]), ['[redacted]', 60]);
  assert.deepEqual(redactParams('walletpassphrasechange', [pass, pass]), ['[redacted]', '[redacted]']);
  assert.deepEqual(redactParams('encryptwallet', [pass]), ['[redacted]']);
});

test('the unlock timer: walletlock and the timeout relock; an operation that started unlocked finishes before the relock', async () => {
  const dir = tmp();
  try {
    const ks = await KeyStore.open(dir, { keypool: 1 });
    const node = await ks.nodeKey();
    const crypt = new WalletCrypt(ks, () => Math.floor(Date.now() / 1000), () => {});
    await assert.rejects(crypt.unlock(new Secret(utf8('x')), 10), { code: -15, message: 'Error: running with an unencrypted wallet, but walletpassphrase was called.' });
    await crypt.encrypt(new Secret(utf8('pw')));
    assert.deepEqual(crypt.state(), { crypted: true, locked: true, unlockedUntil: 0 });
    assert.throws(() => crypt.requireUnlocked(), { code: -13 });
    await assert.rejects(crypt.unlock(new Secret(utf8('bad')), 10), { code: -14 });
    await crypt.unlock(new Secret(utf8('pw')), 100);
    const st = crypt.state();
    assert.equal(st.locked, false);
    assert.ok(st.unlockedUntil >= Math.floor(Date.now() / 1000) + 99);
    crypt.lock();
    assert.deepEqual(crypt.state(), { crypted: true, locked: true, unlockedUntil: 0 });
    // Under a running operation the relock waits for its end; with nothing running the timer locks.
    await crypt.unlock(new Secret(utf8('pw')), 1);
    let during: string | undefined;
    const op = crypt.whileUnlocked(async () => {
      await new Promise((r) => setTimeout(r, 1300));
      during = toHex(ks.secretOf(node) ?? new Uint8Array(0));
      return crypt.state().locked;
    });
    assert.equal(await op, false, 'still unlocked inside the operation, past the deadline');
    assert.equal(during!.length, 64);
    assert.equal(crypt.state().locked, true, 'relocked as the operation ended');
    assert.equal(crypt.state().unlockedUntil, 0);
    await crypt.unlock(new Secret(utf8('pw')), 0);
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(ks.locked, true, 'the timer fired with nothing running');
    crypt.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
