import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CoinBook, coinKey, type BookCoin } from '../../src/actors/wallet/coins.js';
import type { HeldKey } from '../../src/actors/wallet/keystore.js';
import { prng } from '../helpers/prng.js';

/**
 * The coin book's running totals against the same totals summed over every coin, as the wallet's
 * readers summed them before (GetBalance, minconf, unconfirmed, immature; listunspent by key), after
 * each of a few thousand random changes: blocks, coinbases maturing, mempool spends and removals (the
 * tip only rises: a reorg makes the wallet rebuild its book).
 */

const MATURITY = 10;

function naive(book: CoinBook) {
  const tip = book.tipHeight;
  const out: { c: BookCoin; conf: number; mature: boolean; fromMe: boolean }[] = [];
  for (const [k, c] of book.coins) if (!book.memSpent.has(k)) out.push({ c, conf: tip - c.height + 1, mature: !c.coinbase || tip - c.height + 1 >= MATURITY, fromMe: false });
  for (const [k, c] of book.memCoins) if (!book.memSpent.has(k) && !book.coins.has(k)) out.push({ c, conf: 0, mature: true, fromMe: c.trusted });
  const sum = (f: (x: (typeof out)[number]) => boolean) => out.filter(f).reduce((s, x) => s + x.c.value, 0n);
  return {
    balance: (minConf: number, trustedOnly: boolean) => sum((x) => x.mature && x.conf >= minConf && (!trustedOnly || x.conf > 0 || x.fromMe)),
    unconfirmed: sum((x) => x.conf === 0 && !x.fromMe),
    immature: sum((x) => !x.mature),
    visible: out.map((x) => x.c),
  };
}

test('coin book totals equal the sums over its coins after every change', () => {
  const rand = prng(20240611);
  const r = (n: number) => Math.floor(rand() * n);
  const book = new CoinBook(() => MATURITY);
  const keys = Array.from({ length: 4 }, (_, i) => ({ idHex: String(i).repeat(40) }) as unknown as HeldKey);
  book.setTip(5);
  for (let step = 0; step < 3000; step++) {
    const txid = String(r(40)).padStart(64, '0');
    const k = coinKey(txid, r(3));
    const coin = { txid, n: 0, value: BigInt(r(5) * 1000), script: new Uint8Array(0), lockTime: 0 };
    switch (r(8)) {
      case 0:
      case 1:
        book.setConfirmed(k, { ...coin, height: 1 + r(book.tipHeight), coinbase: r(3) === 0 }, keys[Number(txid) % 4]);
        break;
      case 2:
        book.deleteConfirmed(k);
        break;
      case 3:
        book.setMempool(k, { ...coin, height: 0, coinbase: false }, keys[Number(txid) % 4], r(2) === 0);
        break;
      case 4:
        book.deleteMempool(k);
        break;
      case 5:
        book.setSpent(k, txid);
        break;
      case 6:
        book.deleteSpent(k);
        break;
      case 7:
        book.setTip(book.tipHeight + r(3));
        break;
    }
    const want = naive(book);
    for (const minConf of [0, 1, 2, 3, 7, 50, 9999999]) {
      assert.equal(book.balance(minConf), want.balance(minConf, true), `step ${step} minconf ${minConf}`);
      assert.equal(book.balance(minConf, false), want.balance(minConf, false), `step ${step} minconf ${minConf} untrusted`);
    }
    assert.deepEqual(book.totals(), { unconfirmed: want.unconfirmed, immature: want.immature }, `step ${step}`);
    if (step % 10 === 0) {
      assert.deepEqual([...book.visible()], want.visible);
      for (const key of keys) assert.deepEqual(book.visibleOfKey(key.idHex).sort(CoinBook.order), want.visible.filter((c) => c.key === key));
      // listunspent's window through the index by height: the whole list filtered by depth, in its order.
      for (const [lo, hi] of [[0, 0], [1, 1], [0, 2], [1, 6], [2, 4], [3, 9999999], [1, 9999999], [-5, 9999999], [5, 3], [book.tipHeight, book.tipHeight + 2], [-3, -1], [1, book.tipHeight], [1, book.tipHeight - 1], [0, book.tipHeight], [2, book.tipHeight]] as const) {
        assert.deepEqual(book.visibleInDepths(lo, hi), want.visible.filter((c) => book.confirmations(c) >= lo && book.confirmations(c) <= hi), `step ${step} depths ${lo}..${hi}`);
      }
    }
  }
});

test('coin book: per-account balances equal the sums over the accounts\' coins, keys relabelled between accounts on the way', () => {
  const rand = prng(20261126);
  const r = (n: number) => Math.floor(rand() * n);
  const book = new CoinBook(() => MATURITY);
  const names = [undefined, '', 'alice', 'bob'];
  const keys = Array.from({ length: 6 }, (_, i) => ({ idHex: String(i).repeat(40), account: names[i % names.length] }) as unknown as HeldKey);
  const keyOf = (txid: string) => keys[Number(txid) % keys.length];
  book.setTip(5);
  let relabels = 0;
  for (let step = 0; step < 3000; step++) {
    const txid = String(r(40)).padStart(64, '0');
    const k = coinKey(txid, r(3));
    const coin = { txid, n: 0, value: BigInt(1 + r(5)) * 1000n, script: new Uint8Array(0), lockTime: 0 };
    switch (r(9)) {
      case 0:
      case 1:
        book.setConfirmed(k, { ...coin, height: 1 + r(book.tipHeight), coinbase: r(3) === 0 }, keyOf(txid));
        break;
      case 2:
        book.deleteConfirmed(k);
        break;
      case 3:
        book.setMempool(k, { ...coin, height: 0, coinbase: false }, keyOf(txid), r(2) === 0);
        break;
      case 4:
        book.deleteMempool(k);
        break;
      case 5:
        if (r(2) === 0) book.setSpent(k, txid);
        else book.deleteSpent(k);
        break;
      case 6:
        book.setTip(book.tipHeight + r(3));
        break;
      default: {
        // SetAddressBook on a key holding coins: what the keystore's relabel listener tells the book.
        const key = keys[r(keys.length)]!;
        key.account = names[1 + r(names.length - 1)];
        book.relabel(key);
        relabels++;
      }
    }
    const want = naive(book);
    for (const account of ['', 'alice', 'bob', 'nobody']) {
      const theirs = new Set(want.visible.filter((c) => (c.key!.account ?? '') === account));
      const own = (minConf: number, trustedOnly: boolean) => {
        // The brute force: the old per-call loop over every visible coin, by the key's account now.
        let s = 0n;
        for (const c of theirs) {
          const conf = book.confirmations(c);
          if (!book.isMature(c) || conf < minConf) continue;
          if (trustedOnly && conf === 0 && !c.trusted) continue;
          s += c.value;
        }
        return s;
      };
      for (const minConf of [0, 1, 2, 7, 9999999]) {
        assert.equal(book.accountBalance(account, minConf), own(minConf, true), `step ${step} account "${account}" minconf ${minConf}`);
        assert.equal(book.accountBalance(account, minConf, false), own(minConf, false), `step ${step} account "${account}" minconf ${minConf} untrusted`);
      }
    }
  }
  assert.ok(relabels > 100);
});

test('coin book: listunspent by address lists a confirmed height-0 coin where the whole list does (among the confirmed, before the mempool)', () => {
  const book = new CoinBook(() => MATURITY);
  const key = { idHex: '1'.repeat(40) } as unknown as HeldKey;
  const other = { idHex: '2'.repeat(40) } as unknown as HeldKey;
  book.setTip(4);
  const coin = (i: number) => ({ txid: String(i).padStart(64, '0'), n: 0, value: 1000n, script: new Uint8Array(0), lockTime: 0, coinbase: false });
  // Entered in this order: a confirmed coin, a mempool coin, then a confirmed coin at height 0 (depth 0).
  book.setConfirmed(coinKey(coin(1).txid, 0), { ...coin(1), height: 3 }, key);
  book.setMempool(coinKey(coin(2).txid, 0), { ...coin(2), height: 0 }, key, true);
  book.setConfirmed(coinKey(coin(3).txid, 0), { ...coin(3), height: 0 }, key);
  book.setConfirmed(coinKey(coin(4).txid, 0), { ...coin(4), height: 2 }, other);
  const whole = [...book.visible()];
  assert.deepEqual(whole.map((c) => c.txid.slice(-1)), ['1', '3', '4', '2']);
  assert.deepEqual(book.visibleOfKey(key.idHex).sort(CoinBook.order), whole.filter((c) => c.key === key));
  assert.deepEqual(book.visibleInDepths(0, 9999999), whole);
});
