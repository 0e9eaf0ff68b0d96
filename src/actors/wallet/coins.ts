import type { HeldKey } from './keystore.js';
import type { WalletCoin } from './protocol.js';

export type { WalletCoin } from './protocol.js';

/** The class a visible coin is counted in (null: not visible, spent by a mempool transaction or shadowed). */
type Counted = 'mature' | 'immature' | 'memTrusted' | 'memUntrusted' | null;

/** A coin as the book holds it. */
export interface BookCoin extends WalletCoin {
  /** The order it entered its map (Map iteration order, kept for answers that use a subset). */
  ord: number;
  /** In the mempool map (listed after every confirmed coin), whatever its height says. */
  mem: boolean;
  /** The wallet key its script pays (P2PKH or P2PK), for its address and account. */
  key: HeldKey | undefined;
  /** Mempool coins: IsTrusted while unconfirmed (every input of the creating transaction spends a spendable wallet output). */
  trusted: boolean;
  counted: Counted;
  /** The account it is counted under (its key's address-book account, "" when none). */
  account: string;
  /** A coin the wallet holds no key for (ISMINE_WATCH_ONLY, or a P2SH it can spend): its owner, see CoinOwner. */
  owner?: CoinOwner;
}

/**
 * The owner of a coin paying no wallet key directly (a watched script, or a P2SH whose redeem script
 * the wallet holds): its address, the index it is filed under (see CoinBook.visibleOfKey) and its level.
 */
export interface CoinOwner {
  /** The destination's address (ExtractDestination), or null for a script with none. */
  address: string | null;
  /** The key id hex of a key destination, 's' + script id hex of a P2SH, '' when none. */
  idx: string;
  /** Watch-only (counted apart from the spendable totals) or spendable. */
  watch: boolean;
  /** The address-book name of the destination ("" when none). */
  account: string;
}

/** The running totals of a set of coins: the whole wallet's, or one account's. */
class Totals {
  mature = 0n;
  immature = 0n;
  memTrusted = 0n;
  memUntrusted = 0n;
  /** Height → total of the mature coins confirmed there. */
  readonly matureAt = new Map<number, bigint>();

  add(c: WalletCoin, cls: Counted, adding: boolean): void {
    const v = adding ? c.value : -c.value;
    switch (cls) {
      case 'mature': {
        this.mature += v;
        const t = (this.matureAt.get(c.height) ?? 0n) + v;
        if (t === 0n && !adding) this.matureAt.delete(c.height);
        else this.matureAt.set(c.height, t);
        break;
      }
      case 'immature':
        this.immature += v;
        break;
      case 'memTrusted':
        this.memTrusted += v;
        break;
      case 'memUntrusted':
        this.memUntrusted += v;
        break;
    }
  }

  get empty(): boolean {
    return this.mature === 0n && this.immature === 0n && this.memTrusted === 0n && this.memUntrusted === 0n && this.matureAt.size === 0;
  }

  /** See CoinBook.balance. O(minConf). */
  balance(minConf: number, trustedOnly: boolean, tipHeight: number): bigint {
    if (minConf <= 0) return this.mature + this.memTrusted + (trustedOnly ? 0n : this.memUntrusted);
    // Confirmations tip - h + 1 < minConf: the heights above tip - minConf + 1.
    const above = tipHeight - minConf + 1;
    let recent = 0n;
    if (minConf - 1 <= this.matureAt.size) {
      for (let h = tipHeight; h > above; h--) recent += this.matureAt.get(h) ?? 0n;
    } else for (const [h, v] of this.matureAt) if (h > above) recent += v;
    return this.mature - recent;
  }
}

const accountOf = (key: HeldKey | undefined): string => key?.account ?? '';

/** The index a coin is filed under: its key's id, else its owner's (see CoinOwner.idx). */
const indexOf = (c: BookCoin): string => c.key?.idHex ?? c.owner?.idx ?? '';

export const coinKey = (txid: string, n: number): string => `${txid}:${n}`;

/**
 * The wallet's unspent outputs with every total komodod's balances read, kept as coins come and go:
 * GetBalance (trusted mature), GetUnconfirmedBalance (mempool, not from the wallet), GetImmatureBalance
 * (coinbases short of maturity, held by the height at which they mature), per-height totals of the
 * mature coins (getbalance's minconf), and indexes by key and by account. A coin is visible while no
 * mempool transaction spends it; a mempool coin also while no confirmed coin has its outpoint.
 */
export class CoinBook {
  /** Confirmed unspent wallet outputs. */
  readonly coins = new Map<string, BookCoin>();
  /** Outputs created by wallet-relevant mempool transactions. */
  readonly memCoins = new Map<string, BookCoin>();
  /** Outpoint → the mempool transaction spending it. */
  readonly memSpent = new Map<string, string>();
  /** The whole wallet's totals. */
  private readonly all = new Totals();
  /** The watch-only coins' totals (getbalance's includeWatchonly), apart from the spendable ones. */
  private readonly watchAll = new Totals();
  /** Each account's watch-only totals. */
  private readonly watchByAccount = new Map<string, Totals>();
  /** Each account's totals (getbalance "account", sendmany's funds check), moved with a key relabelled. */
  private readonly byAccount = new Map<string, Totals>();
  /** Height at which coinbase coins mature → their keys. */
  private readonly maturing = new Map<number, Set<string>>();
  /** Key id (hex) → keys of the coins paying it (confirmed and mempool). */
  private readonly byKey = new Map<string, Set<string>>();
  /** Block height → keys of the confirmed coins there (listunspent's minconf/maxconf window). */
  private readonly byHeight = new Map<number, Set<string>>();
  private nextOrd = 0;
  tipHeight = 0;

  constructor(private readonly maturity: () => number) {}

  private matureHeight(c: WalletCoin): number {
    return c.height + this.maturity() - 1;
  }

  /** Puts a confirmed coin (a present one keeps its place, as Map.set does). */
  setConfirmed(k: string, c: WalletCoin, key: HeldKey | undefined, owner?: CoinOwner): void {
    this.put(this.coins, k, c, key, false, owner);
  }

  /** Puts a mempool coin. */
  setMempool(k: string, c: WalletCoin, key: HeldKey | undefined, trusted: boolean, owner?: CoinOwner): void {
    this.put(this.memCoins, k, c, key, trusted, owner);
  }

  private put(map: Map<string, BookCoin>, k: string, c: WalletCoin, key: HeldKey | undefined, trusted: boolean, owner?: CoinOwner): void {
    const old = map.get(k);
    if (old) this.count(k, old, null);
    const bc: BookCoin = { ...c, ord: old ? old.ord : this.nextOrd++, mem: map === this.memCoins, key, trusted, counted: null, account: key || !owner ? accountOf(key) : owner.account, ...(owner && !key ? { owner } : {}) };
    map.set(k, bc);
    if (map === this.coins && old?.height !== bc.height) {
      if (old) toggleMember(this.byHeight, old.height, k, false);
      toggleMember(this.byHeight, bc.height, k, true);
    }
    const idx = indexOf(bc);
    if (!old && idx) this.index(idx, k, true);
    this.recount(k);
  }

  deleteConfirmed(k: string): void {
    this.drop(this.coins, k);
  }

  deleteMempool(k: string): void {
    this.drop(this.memCoins, k);
  }

  private drop(map: Map<string, BookCoin>, k: string): void {
    const c = map.get(k);
    if (!c) return;
    this.count(k, c, null);
    map.delete(k);
    if (map === this.coins) toggleMember(this.byHeight, c.height, k, false);
    const idx = indexOf(c);
    if (idx && !this.coins.has(k) && !this.memCoins.has(k)) this.index(idx, k, false);
    this.recount(k);
  }

  setSpent(k: string, txid: string): void {
    this.memSpent.set(k, txid);
    this.recount(k);
  }

  deleteSpent(k: string): void {
    if (this.memSpent.delete(k)) this.recount(k);
  }

  /** Forgets every coin (a rescan rebuilds them). */
  clear(): void {
    this.coins.clear();
    this.memCoins.clear();
    this.memSpent.clear();
    this.maturing.clear();
    this.byKey.clear();
    this.byHeight.clear();
    this.all.mature = this.all.immature = this.all.memTrusted = this.all.memUntrusted = 0n;
    this.all.matureAt.clear();
    this.byAccount.clear();
    this.watchAll.mature = this.watchAll.immature = this.watchAll.memTrusted = this.watchAll.memUntrusted = 0n;
    this.watchAll.matureAt.clear();
    this.watchByAccount.clear();
  }

  /** Forgets the mempool's coins and spends (a rescan replays the mempool). */
  clearMempool(): void {
    for (const k of [...this.memCoins.keys()]) this.deleteMempool(k);
    for (const k of [...this.memSpent.keys()]) this.deleteSpent(k);
  }

  /** The tip rose to `height`: coinbases maturing at the heights passed become mature (a reorg rebuilds the book instead). */
  setTip(height: number): void {
    const from = this.tipHeight;
    if (height === from) return;
    this.tipHeight = height;
    if (height < from) return this.recountAll();
    for (let h = from + 1; h <= height; h++) {
      const due = this.maturing.get(h);
      if (due) for (const k of [...due]) this.recount(k);
    }
  }

  /** Every coin counted again (the tip went back, or what makes a mempool coin trusted changed). */
  recountAll(): void {
    for (const k of [...this.coins.keys(), ...this.memCoins.keys()]) this.recount(k);
  }

  /** Re-reads whether each mempool coin's transaction is trusted (the keys changed). */
  refreshTrusted(trusted: (txid: string) => boolean): void {
    for (const [k, c] of this.memCoins) {
      const v = trusted(c.txid);
      if (v !== c.trusted) {
        this.count(k, c, null);
        c.trusted = v;
        this.recount(k);
      }
    }
  }

  /** Re-reads whether one mempool coin of `txid` is trusted (its transaction's debit was figured again). */
  setTrusted(k: string, txid: string, trusted: boolean): void {
    const c = this.memCoins.get(k);
    if (!c || c.txid !== txid || c.trusted === trusted) return;
    this.count(k, c, null);
    c.trusted = trusted;
    this.recount(k);
  }

  /**
   * A key's address-book account changed (SetAddressBook): its coins leave the old account's totals
   * for the new one's. O(the key's coins).
   */
  relabel(key: HeldKey): void {
    const to = accountOf(key);
    for (const k of this.byKey.get(key.idHex) ?? []) {
      for (const c of [this.coins.get(k), this.memCoins.get(k)]) {
        if (!c || c.key !== key || c.account === to) continue;
        const cls = c.counted;
        this.count(k, c, null);
        c.account = to;
        this.count(k, c, cls);
      }
    }
  }

  /**
   * A keyless destination's address-book name changed (importaddress's label, addmultisigaddress's
   * account): its coins move between the account totals. O(the destination's coins).
   */
  relabelOwner(idx: string, account: string): void {
    for (const k of this.byKey.get(idx) ?? []) {
      for (const c of [this.coins.get(k), this.memCoins.get(k)]) {
        if (!c || !c.owner || c.key || c.account === account) continue;
        const cls = c.counted;
        this.count(k, c, null);
        c.account = account;
        c.owner.account = account;
        this.count(k, c, cls);
      }
    }
  }

  private index(idHex: string, k: string, add: boolean): void {
    toggleMember(this.byKey, idHex, k, add);
  }

  /** The class each object under `k` belongs in now. */
  private recount(k: string): void {
    const spent = this.memSpent.has(k);
    const conf = this.coins.get(k);
    if (conf) this.count(k, conf, spent ? null : !conf.coinbase || this.tipHeight >= this.matureHeight(conf) ? 'mature' : 'immature');
    const mem = this.memCoins.get(k);
    if (mem) this.count(k, mem, spent || conf ? null : mem.trusted ? 'memTrusted' : 'memUntrusted');
  }

  private count(k: string, c: BookCoin, to: Counted): void {
    if (c.counted === to) return;
    this.add(k, c, c.counted, false);
    this.add(k, c, to, true);
    c.counted = to;
  }

  private add(k: string, c: BookCoin, cls: Counted, adding: boolean): void {
    if (cls === null) return;
    const watch = c.owner?.watch === true;
    (watch ? this.watchAll : this.all).add(c, cls, adding);
    const byAccount = watch ? this.watchByAccount : this.byAccount;
    let acc = byAccount.get(c.account);
    if (!acc) byAccount.set(c.account, (acc = new Totals()));
    acc.add(c, cls, adding);
    if (!adding && acc.empty) byAccount.delete(c.account);
    if (cls === 'immature') toggleMember(this.maturing, this.matureHeight(c), k, adding);
  }

  /**
   * The mature coins with at least `minConf` confirmations: trusted ones only (GetBalance's IsTrusted:
   * mempool coins count when from the wallet) or every one (sendmany's funds check). O(minConf).
   */
  balance(minConf: number, trustedOnly = true, watchOnly = false): bigint {
    const spendable = this.all.balance(minConf, trustedOnly, this.tipHeight);
    return watchOnly ? spendable + this.watchAll.balance(minConf, trustedOnly, this.tipHeight) : spendable;
  }

  /**
   * The same for the coins paying keys of `account` ("" holds the keys with no account): O(minConf),
   * whatever the wallet or the account holds.
   */
  accountBalance(account: string, minConf: number, trustedOnly = true, watchOnly = false): bigint {
    const spendable = this.byAccount.get(account)?.balance(minConf, trustedOnly, this.tipHeight) ?? 0n;
    if (!watchOnly) return spendable;
    return spendable + (this.watchByAccount.get(account)?.balance(minConf, trustedOnly, this.tipHeight) ?? 0n);
  }

  /**
   * The lowest height holding a mature unspent coin, spendable or watch-only (cleanwallettransactions'
   * oldest AvailableCoins depth), or null. O(the heights holding mature coins).
   */
  oldestMatureHeight(): number | null {
    let low: number | null = null;
    for (const t of [this.all, this.watchAll]) for (const h of t.matureAt.keys()) if (low === null || h < low) low = h;
    return low;
  }

  /** getwalletinfo's unconfirmed_balance (mempool coins not from the wallet) and immature_balance. */
  totals(): { unconfirmed: bigint; immature: bigint } {
    return { unconfirmed: this.all.memUntrusted, immature: this.all.immature };
  }

  /** The visible coins (confirmed, then mempool, each in its map's order). */
  *visible(): Generator<BookCoin> {
    for (const c of this.coins.values()) if (c.counted !== null) yield c;
    for (const c of this.memCoins.values()) if (c.counted !== null) yield c;
  }

  /** The visible coins paying the key `idHex`, in the order `visible` gives them. */
  visibleOfKey(idHex: string): BookCoin[] {
    const out: BookCoin[] = [];
    for (const k of this.byKey.get(idHex) ?? []) {
      const conf = this.coins.get(k);
      if (conf && conf.counted !== null) out.push(conf);
      const mem = this.memCoins.get(k);
      if (mem && mem.counted !== null) out.push(mem);
    }
    return out;
  }

  /**
   * The visible coins between `minDepth` and `maxDepth` confirmations (listunspent's window), in the
   * order `visible` gives them: the confirmed ones from the heights the window spans (a depth d is the
   * height tip - d + 1), the mempool's (depth 0) when the window holds 0. A window reaching below the
   * first height is the whole list's walk (its answer is about every coin); a narrower one costs its
   * answer and the lesser of its heights and the heights holding coins, not the wallet's coins.
   */
  visibleInDepths(minDepth: number, maxDepth: number): BookCoin[] {
    const out: BookCoin[] = [];
    const take = (keys: Set<string> | undefined) => {
      for (const k of keys ?? []) {
        const c = this.coins.get(k)!;
        if (c.counted !== null) out.push(c);
      }
    };
    // Heights above 0: depth tip - h + 1 within [minDepth, maxDepth]; a height-0 coin is at depth 0.
    const lo = Math.max(1, this.tipHeight - maxDepth + 1);
    const hi = this.tipHeight - minDepth + 1;
    const mempool = minDepth <= 0 && maxDepth >= 0;
    if (lo === 1 && hi >= this.tipHeight) {
      // The window spans every height to the tip (listunspent's default 1 9999999): the whole list, in its order.
      for (const c of this.coins.values()) {
        const d = this.confirmations(c);
        if (c.counted !== null && d >= minDepth && d <= maxDepth) out.push(c);
      }
    } else {
      if (hi >= lo) {
        if (hi - lo + 1 <= this.byHeight.size) for (let h = lo; h <= hi; h++) take(this.byHeight.get(h));
        else for (const [h, keys] of this.byHeight) if (h >= lo && h <= hi) take(keys);
      }
      if (mempool) take(this.byHeight.get(0));
      // The confirmed map's order is its coins' `ord` order (a new key gets the next one and goes last).
      out.sort((a, b) => a.ord - b.ord);
    }
    if (mempool) for (const c of this.memCoins.values()) if (c.counted !== null) out.push(c);
    return out;
  }

  /**
   * Orders coins as `visible` does: confirmed ones, then the mempool's, each by `ord`. By map, not by
   * height: a confirmed coin at height 0 (depth 0, which visibleInDepths takes with the window's
   * mempool end) stays among the confirmed ones, where the whole list has it.
   */
  static order(a: BookCoin, b: BookCoin): number {
    return (a.mem ? 1 : 0) - (b.mem ? 1 : 0) || a.ord - b.ord;
  }

  /** A visible coin's depth at the tip. */
  confirmations(c: WalletCoin): number {
    return c.height > 0 ? this.tipHeight - c.height + 1 : 0;
  }

  isMature(c: WalletCoin): boolean {
    return !c.coinbase || this.confirmations(c) >= this.maturity();
  }
}

/** Adds `member` to (or removes it from) the set under `key`; an emptied set leaves the map. */
function toggleMember<K>(map: Map<K, Set<string>>, key: K, member: string, add: boolean): void {
  let set = map.get(key);
  if (add) {
    if (!set) map.set(key, (set = new Set()));
    set.add(member);
  } else if (set) {
    set.delete(member);
    if (set.size === 0) map.delete(key);
  }
}
