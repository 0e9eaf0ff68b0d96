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
  for (const [k, c] of book.memCoins) if (!book.memSpent.has(k) && !book.coins.has(k)) out.push({ c, conf: 0, mature: true, fromMe: c.fromMe });
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
    }
  }
});
