import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hash160, sha256 } from '../../src/chain/crypto/hash.js';
import { publicKeyFromPrivate } from '../../src/chain/crypto/secp256k1.js';
import { toHex } from '../../src/chain/encoding/hex.js';
import { pushData } from '../../src/chain/script/script.js';
import { conditionBinary, fingerprint } from '../../src/chain/cc/condition.js';
import { makeCCcond1, makeCCcond1of2 } from '../../src/chain/cc/builders.js';
import { MODULE_GLOBALS } from '../../src/chain/cc/globals.js';
import { cond1FingerprintOf, cond1Fingerprints, cond1SubScript } from '../../src/chain/cc/cond1.js';
import { KeyStore } from '../../src/actors/wallet/keystore.js';

/** The key store at scale: komodod's key pool, keys loaded without deriving them, CC conditions per key. */

const tmp = () => mkdtempSync(join(tmpdir(), 'acnode-keys-'));

test("the key pool is komodod's: -keypool + 1 at creation, the oldest handed out first, topped up before each", async () => {
  const dir = tmp();
  try {
    const ks = await KeyStore.open(dir);
    // A new wallet: TopUpKeyPool fills 101 and the first run's default key comes from the pool.
    assert.equal(ks.size, 101);
    const node = await ks.nodeKey();
    assert.equal(node.origin, 'node');
    assert.equal((await ks.poolInfo()).size, 101, 'GetOldestKeyPoolTime tops up again');
    const first = await ks.poolKey();
    const taken = await ks.takePoolKey('acct');
    assert.equal(toHex(taken.pubkey), toHex(first.pubkey), 'the lowest index goes first');
    assert.equal(taken.account, 'acct');
    assert.equal(ks.size, 102);
    const info = await ks.poolInfo();
    assert.equal(info.size, 101);
    assert.equal(info.oldest, (await ks.poolKey()).time);
    // The pool keeps its order across a restart.
    const next = toHex((await ks.poolKey()).pubkey);
    const again = await KeyStore.open(dir);
    assert.equal(toHex((await again.poolKey()).pubkey), next);
    assert.equal(toHex((await again.nodeKey()).pubkey), toHex(node.pubkey));
    assert.equal(again.unusedAccountKey('acct')?.hex, toHex(publicKeyFromPrivate(taken.secret!, true)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const small = tmp();
  try {
    const ks = await KeyStore.open(small, { keypool: 0 });
    assert.equal(ks.size, 1, '-keypool=0 still keeps one key in the pool (nTargetSize + 1)');
    await ks.takePoolKey('');
    assert.equal((await ks.poolInfo()).size, 1);
  } finally {
    rmSync(small, { recursive: true, force: true });
  }
});

test('stored public keys are used at load: an uncompressed key keeps its serialisation', async () => {
  const dir = tmp();
  try {
    const a = sha256(new TextEncoder().encode('compressed key'));
    const b = sha256(new TextEncoder().encode('uncompressed key'));
    const line = (s: Uint8Array, compressed: boolean) => {
      const pub = toHex(publicKeyFromPrivate(s, true));
      return JSON.stringify({ _id: pub, pubkey: pub, secret: toHex(s), compressed, time: 1700000000, origin: 'imported', account: '' });
    };
    writeFileSync(join(dir, 'wallet.db'), `${line(a, true)}\n${line(b, false)}\n`, { mode: 0o600 });
    const ks = await KeyStore.open(dir);
    assert.equal(ks.size, 2, 'an existing wallet is not topped up at load');
    const kb = ks.byKeyId(hash160(publicKeyFromPrivate(b, false)))!;
    assert.equal(toHex(kb.pubkey), toHex(publicKeyFromPrivate(b, false)));
    assert.equal(kb.compressed, false);
    assert.equal(toHex(ks.byKeyId(hash160(publicKeyFromPrivate(a, true)))!.pubkey), toHex(publicKeyFromPrivate(a, true)));
    // Both carry the account "": the first in key order is the account's address until a payment uses it.
    const first = ks.unusedAccountKey('')!;
    ks.markUsed(first);
    assert.notEqual(ks.unusedAccountKey('')!.hex, first.hex);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("MakeCCcond1's fingerprint per key and eval code matches the whole condition, and is read back from a sub-script", () => {
  const codes = MODULE_GLOBALS.map((g) => g.evalCode).concat([0x10, 0x7f]);
  for (let i = 0; i < 20; i++) {
    const pk = publicKeyFromPrivate(sha256(Uint8Array.of(i, 42)), true);
    const fps = cond1Fingerprints(pk, codes);
    codes.forEach((ev, j) => {
      const node = makeCCcond1(ev, pk);
      assert.equal(toHex(fps[j]!), toHex(fingerprint(node)), `key ${i} eval ${ev}`);
      const sub = Uint8Array.of(...pushData(conditionBinary(node)), 0xcc);
      assert.equal(toHex(cond1SubScript(fps[j]!)), toHex(sub));
      assert.equal(toHex(cond1FingerprintOf(sub)!), toHex(fps[j]!));
    });
  }
  const pk2 = publicKeyFromPrivate(sha256(Uint8Array.of(9)), true);
  const other = Uint8Array.of(...pushData(conditionBinary(makeCCcond1of2(0xf2, pk2, pk2))), 0xcc);
  assert.equal(cond1FingerprintOf(other), null, 'a 1-of-2 condition is not a 1-of-1');
});
