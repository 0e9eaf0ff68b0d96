import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hash160, sha256 } from '../../src/chain/crypto/hash.js';
import { publicKeyFromPrivate } from '../../src/chain/crypto/secp256k1.js';
import { toHex } from '../../src/chain/encoding/hex.js';
import { p2pkhScript, p2pkScript, p2shScript } from '../../src/chain/script/script.js';
import { multisigScript } from '../../src/chain/script/multisig.js';
import { ISMINE_NO, ISMINE_SPENDABLE, ISMINE_WATCH_ONLY, WatchBook, isMineLevel } from '../../src/actors/wallet/watchonly.js';

/** IsMine's levels (komodod's wallet_ismine.cpp) over a WatchBook, and the book kept across a reopen. */

const pub = (n: number) => publicKeyFromPrivate(sha256(Uint8Array.of(n)), true);

test("isMineLevel follows wallet_ismine.cpp: keys spendable, multisig only in a P2SH with every key, watched scripts watch-only", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-watch-'));
  try {
    const held = new Set([toHex(hash160(pub(1))), toHex(hash160(pub(2)))]);
    const haveKey = (id: Uint8Array) => held.has(toHex(id));
    const book = await WatchBook.open(dir);
    assert.equal(book.empty, true);
    // The key templates.
    assert.equal(isMineLevel(p2pkhScript(hash160(pub(1))), haveKey, book), ISMINE_SPENDABLE);
    assert.equal(isMineLevel(p2pkScript(pub(2)), haveKey, book), ISMINE_SPENDABLE);
    assert.equal(isMineLevel(p2pkhScript(hash160(pub(3))), haveKey, book), ISMINE_NO);
    // Multisig: never bare ("spend-out-from-under-you"), inside a P2SH only with every key held.
    const both = multisigScript(2, [pub(1), pub(2)]);
    const partial = multisigScript(1, [pub(1), pub(3)]);
    assert.equal(isMineLevel(both, haveKey, book), ISMINE_NO);
    assert.equal(isMineLevel(p2shScript(hash160(both)), haveKey, book), ISMINE_NO, 'no redeem script held yet');
    assert.equal(await book.addScript(both), true);
    assert.equal(await book.addScript(both), false);
    assert.equal(await book.addScript(partial), true);
    assert.equal(isMineLevel(p2shScript(hash160(both)), haveKey, book), ISMINE_SPENDABLE);
    assert.equal(isMineLevel(p2shScript(hash160(partial)), haveKey, book), ISMINE_NO, 'one key of two held');
    // Watched scripts: watch-only when not spendable, spendable wins.
    const foreign = p2pkhScript(hash160(pub(3)));
    assert.equal(await book.addWatch(foreign), true);
    assert.equal(await book.addWatch(foreign), false);
    await book.addWatch(partial);
    await book.addWatch(p2shScript(hash160(partial)));
    await book.addWatch(p2pkhScript(hash160(pub(1))));
    assert.equal(isMineLevel(foreign, haveKey, book), ISMINE_WATCH_ONLY);
    assert.equal(isMineLevel(partial, haveKey, book), ISMINE_WATCH_ONLY, 'bare multisig can be watched');
    assert.equal(isMineLevel(p2shScript(hash160(partial)), haveKey, book), ISMINE_WATCH_ONLY);
    assert.equal(isMineLevel(p2pkhScript(hash160(pub(1))), haveKey, book), ISMINE_SPENDABLE);
    // The exact script is watched, not its destination: the P2PK of the same key is not.
    assert.equal(isMineLevel(p2pkScript(pub(3)), haveKey, book), ISMINE_NO);
    const nonstandard = Uint8Array.of(0x51, 0x52, 0x93);
    await book.addWatch(nonstandard);
    assert.equal(isMineLevel(nonstandard, haveKey, book), ISMINE_WATCH_ONLY);
    await book.setLabel('RSomeAddress', 'watched', 'receive');
    assert.equal(book.labelOf('RSomeAddress'), 'watched');
    assert.equal(book.labelOf('ROther'), undefined);

    // Reopened: every script, redeem script and label is back; the file is the wallet's (0600).
    const again = await WatchBook.open(dir);
    assert.equal(isMineLevel(foreign, haveKey, again), ISMINE_WATCH_ONLY);
    assert.equal(isMineLevel(nonstandard, haveKey, again), ISMINE_WATCH_ONLY);
    assert.equal(isMineLevel(p2shScript(hash160(both)), haveKey, again), ISMINE_SPENDABLE);
    assert.equal(toHex(again.redeemScript(hash160(partial))!), toHex(partial));
    assert.equal(again.labelOf('RSomeAddress'), 'watched');
    assert.deepEqual(new Set(again.scanScripts()), new Set(book.scanScripts()));
    assert.ok(again.scanScripts().includes(toHex(p2shScript(hash160(both)))), 'a rescan looks for the P2SH of each redeem script');
    assert.equal(statSync(join(dir, 'watchonly.db')).mode & 0o777, 0o600);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
