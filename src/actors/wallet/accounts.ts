import type { Transaction } from '../../chain/tx/transaction.js';
import { extractDestinations } from '../../chain/script/standard.js';
import { fromHex, toHex } from '../../chain/encoding/hex.js';
import { decodeAddress, encodeAddress, PUBKEY_ADDRESS, SCRIPT_ADDRESS } from '../../chain/address/address.js';
import { copyStore, type Store } from '../storage/datastore.js';
import type { HeldKey, KeyStore } from './keystore.js';
import type { AccountTotal, GroupedAddress, MoveEntry, ReceivedRow } from './protocol.js';
import { SeqIndex } from './seqindex.js';

/**
 * komodod's accounts family (rpcwallet.cpp, wallet.cpp): the address book by account, GetAccountBalance
 * (credits minus debits of an account, with the accounting entries of `move`), ListReceived's tallies
 * by address and account, and GetAddressGroupings. Every figure is kept as wallet transactions enter,
 * move between the chain, the mempool and neither, or change account; a call costs its answer (and
 * O(minconf + maturity) heights per account or address), never a walk over the wallet's transactions.
 */

/** What the accounts ask the wallet. */
export interface AccountsLedger {
  /** IsMine for a key script (P2PKH, P2PK): the wallet key it pays, or undefined. */
  keyOf(script: Uint8Array): HeldKey | undefined;
  /** IsMine for any other script: its destination and level when the wallet watches it or can spend it (a P2SH), else undefined. */
  keylessOf(script: Uint8Array): { address: string; keyIdHex: string | null; level: KeylessLevel } | undefined;
  /** The address-book name of a keyless destination (mapAddressBook), or undefined. */
  labelOf(address: string): string | undefined;
  /** GetDebit(ISMINE_SPENDABLE) of a recorded transaction (its `tx` parsed). */
  debit(txid: string, tx: Transaction): bigint;
  /** GetDebit(ISMINE_WATCH_ONLY): the watch-only outputs it spends. */
  watchDebit(txid: string, tx: Transaction): bigint;
  /** IsMine(script) != ISMINE_NO for a script without a destination (IsChange counts it as change). */
  minesBare(script: Uint8Array): boolean;
  /** The script of a wallet output a transaction spends (IsMine(txin)), or undefined when not the wallet's. */
  spentScript(txid: string, n: number): Uint8Array | undefined;
  /** GetDepthInMainChain's class: the block height (> 0), 0 in the mempool, -1 in neither. */
  state(txid: string): number;
  parse(txid: string): Transaction | null;
  /** The wallet's record of a transaction (where the accounts keep their fields), and every one. */
  rec(txid: string): TxRec | undefined;
  /** The record at an order position, if a transaction is there. */
  atSeq(seq: number): TxRec | undefined;
  all(): Iterable<TxRec>;
  tipHeight(): number;
  maturity(): number;
}

export type KeylessLevel = 'spendable' | 'watch' | 'no';

/**
 * A wallet destination without a wallet key (a watched address, a P2SH the wallet can spend, or a
 * keyless address-book entry IsMine does not own): one object per address, its IsMine level as last told.
 */
export interface Keyless {
  readonly keyless: true;
  /** The index id: the key id (hex) of a P2PKH, 's' + address for a P2SH (as CoinOwner.idx). */
  readonly idHex: string;
  readonly address: string;
  /** mapAddressBook order (CTxDestination: key ids before script ids, each by id). */
  readonly order: string;
  level: KeylessLevel;
}

/** What the accounts count under an address: a wallet key or a keyless destination. */
export type Holder = HeldKey | Keyless;

const isKeyless = (h: Holder): h is Keyless => (h as Keyless).keyless === true;

/** The holder of every watched output without a destination (a bare multisig, a non-standard script): watch-only, never in the address book. */
const BARE: Keyless = { keyless: true, idHex: '', address: '', order: '0', level: 'watch' };

/**
 * mapAddressBook (std::map<CTxDestination>) order: boost::variant compares the kind first (key id, then
 * script id), then the id. A key id is its bare hex (the key's own string: nothing made per key), a
 * script id 'z' + hex, which sorts after every hex digit.
 */
const orderOf = (h: Holder): string => (isKeyless(h) ? h.order : h.idHex);

/**
 * The one place that says whether a wallet destination is spendable or watch-only (isminetype):
 * a held key is spendable; a keyless destination is what IsMine last said of its script ('no' for a
 * keyless address-book entry the wallet neither watches nor can spend).
 */
export function mineKind(k: Holder): KeylessLevel {
  return isKeyless(k) ? k.level : 'spendable';
}

/**
 * A script's destination (ExtractDestination: P2PKH and P2PK give a key id, P2SH a script id) in
 * mapAddressBook's order (see orderOf): key id hex, 'z' + script id hex; null when none.
 */
function destinationOrder(script: Uint8Array): string | null {
  const d = extractDestinations(script, { ccEnabled: false });
  if (!d || d.type === 'multisig') return null;
  const h = d.destinations[0]!;
  return h.kind === 'key' ? toHex(h.hash) : `z${toHex(h.hash)}`;
}

/**
 * One wallet transaction's part in the accounts (GetAmounts, ListReceived, GetAddressGroupings),
 * held on the wallet's own record of the transaction (no map or object of its own: heap per transaction).
 */
export interface TxRec {
  readonly txid: string;
  /** Its order position (nOrderPos). */
  readonly seq: number;
  readonly coinbase: boolean;
  /** strFromAccount: sendfrom/sendmany's account ("" for every other send). */
  fromAccount: string;
  /** Σ listSent + nFee: what the sending account is debited (GetAmounts with ISMINE_SPENDABLE). */
  debited: bigint;
  /**
   * The same with ISMINE_SPENDABLE | ISMINE_WATCH_ONLY (includeWatchonly), where GetDebit(filter) counts
   * watch-only inputs too; absent while equal to `debited` (no field per transaction that spends none).
   */
  debitedAll?: bigint;
  /**
   * Its outputs paying wallet keys: `listed` when GetAmounts lists it as received (its change quirk
   * applied), `book` the address-book name it was counted under (undefined: not listed, received by "");
   * ListReceived tallies every one (coinbases aside) under its address-book name.
   */
  paid: Paid | Paid[] | null;
  /** Where it is counted now (see AccountsLedger.state); null before it is first figured. */
  st: number | null;
}

export interface Paid {
  key: Holder;
  value: bigint;
  listed: boolean;
  /** Listed by GetAmounts under ISMINE_ALL (its change quirk applies when only watch-only inputs are spent); absent while equal to `listed`. */
  listedAll?: boolean;
  book: string | undefined;
  /** Counted as watch-only (isminetype when counted: the sums it went to). */
  watch: boolean;
}

const NO_PAID: Paid[] = [];
/** The outputs a transaction pays wallet keys (one held bare). */
const paidOf = (r: TxRec): Paid[] => (r.paid === null ? NO_PAID : Array.isArray(r.paid) ? r.paid : [r.paid]);

/** Sums by block height (the heights kept sorted): Σ over heights up to X in O(heights above X). */
class HeightSums {
  total = 0n;
  count = 0;
  private readonly at = new Map<number, { v: bigint; n: number }>();
  private hs: number[] = [];
  private sorted = true;

  add(h: number, v: bigint, n: number): void {
    let e = this.at.get(h);
    if (!e) {
      this.at.set(h, (e = { v: 0n, n: 0 }));
      const last = this.hs[this.hs.length - 1];
      if (last !== undefined && last > h) this.sorted = false;
      this.hs.push(h);
    }
    e.v += v;
    e.n += n;
    this.total += v;
    this.count += n;
    if (e.n === 0) {
      this.at.delete(h);
      if (this.hs[this.hs.length - 1] === h) this.hs.pop();
      else this.sorted = false;
    }
  }

  /** The sum over heights ≤ x, and the highest such height holding any (0 when none). */
  upTo(x: number): { sum: bigint; top: number } {
    if (!this.sorted) {
      this.hs = [...this.at.keys()].sort((a, b) => a - b);
      this.sorted = true;
    }
    let sum = this.total;
    let i = this.hs.length - 1;
    for (; i >= 0 && this.hs[i]! > x; i--) sum -= this.at.get(this.hs[i]!)!.v;
    return { sum, top: i >= 0 ? this.hs[i]! : 0 };
  }
}

/** An account's running figures (GetAccountBalance's parts). */
class AccountSums {
  /** Received by non-coinbase transactions in blocks, by height; by mature-able coinbases, by height. */
  readonly recv = new HeightSums();
  readonly cb = new HeightSums();
  /** Received by transactions in the mempool. */
  mem = 0n;
  /**
   * The same three under the filter ISMINE_SPENDABLE | ISMINE_WATCH_ONLY (includeWatchonly): spendable
   * and watch-only receipts as GetAmounts lists them with that filter.
   */
  readonly aRecv = new HeightSums();
  readonly aCb = new HeightSums();
  aMem = 0n;
  /** Debited by its sends (strFromAccount) in the chain or the mempool; `aSent` with the watch-only inputs' debits. */
  sent = 0n;
  aSent = 0n;
  /** The accounting entries' total (GetAccountCreditDebit), and how many there are. */
  moves = 0n;
  moveCount = 0;
  /** The counted transactions sent from it (listaccounts lists every strSentAccount, fee or not). */
  txCount = 0;
  /** ListReceived by account: its address-book addresses' non-coinbase receipts by height, in the mempool, in neither. */
  readonly tally = new HeightSums();
  tMem = 0n;
  tMemN = 0;
  tNone = 0n;
  tNoneN = 0;
  /** The same for its watch-only addresses. */
  readonly wTally = new HeightSums();
  wtMem = 0n;
  wtMemN = 0;
  wtNone = 0n;
  wtNoneN = 0;
}

interface MoveDoc {
  _id: string;
  /** nOrderPos of the debit half; the credit half is the next one. */
  seq: number;
  from: string;
  to: string;
  /** satoshis, decimal */
  amount: string;
  time: number;
  comment: string;
}

/** std::string operator< (bytes). */
const byteCmp = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

export class Accounts {
  private readonly sums = new Map<string, AccountSums>();
  /** Every account's figures together (getbalance "*"). */
  private readonly total = new AccountSums();
  /** Key id → the transactions paying it (one held bare, the usual case): relabelled together, listed as txids. */
  private readonly recsOfKey = new Map<string, TxRec | TxRec[]>();
  /** The address book by account (mapAddressBook's names): the keys labelled, and the node's default key under "". */
  private readonly book = new Map<string, Set<Holder>>();
  private readonly bookOf = new Map<Holder, string>();
  /** The keyless destinations met (paid by a wallet transaction, or given an address-book entry), by address. */
  private readonly keyless = new Map<string, Keyless>();
  /** The accounting entries by nOrderPos (each move is two). */
  private readonly moves = new Map<number, MoveEntry>();
  /** Each account's accounting entries' order positions (listtransactions for one account). */
  private readonly movesOf = new Map<string, number[]>();
  /** strFromAccount → the transactions sent from it (a named account's listtransactions), "" left out. */
  private readonly sentFrom = new Map<string, Set<TxRec>>();
  /**
   * The order positions of the transactions that may have an entry for "" (listtransactions ""): those
   * paying a holder under "" or under no address-book name, and those sent from "" that spend a wallet
   * output (see isDefault); kept as each is figured, read newest first.
   */
  private readonly defaults = new SeqIndex();
  /** The transactions spending wallet outputs whose `debited` figures are both 0 (zero-valued sends, no fee): rare, still listed as sends. */
  private readonly zeroSends = new Set<TxRec>();
  private readonly isDefaultAt = (seq: number): boolean => {
    const rec = this.ledger.atSeq(seq);
    return rec !== undefined && rec.st !== null && this.isDefault(rec);
  };
  /** GetAddressGroupings, as a union-find over key ids; rebuilt when a grouped change key enters the book. */
  private readonly parent = new Map<string, string>();
  private groupsDirty = false;
  private store!: Store<MoveDoc>;

  constructor(
    private readonly keys: KeyStore,
    private readonly ledger: AccountsLedger,
  ) {}

  /** Copies the accounting entries' file (backupwallet). */
  async persistTo(path: string): Promise<void> {
    await copyStore(this.store as unknown as Store<{ _id?: string }>, path);
  }

  /** Loads the accounting entries; answers the order position after the last one. */
  async open(store: Store<MoveDoc>): Promise<number> {
    this.store = store;
    let next = 0;
    const docs = (await store.find({})).sort((a, b) => a.seq - b.seq);
    for (const d of docs) {
      this.addMove(d);
      next = Math.max(next, d.seq + 2);
    }
    this.keys.watch((k) => {
      this.bookKey(k);
      this.keyBecameHeld(k);
    });
    this.keys.onRelabel((k) => this.relabel(k));
    return next;
  }

  /** The account a key is listed under in the address book, or undefined when it is not listed. */
  bookName(k: Holder): string | undefined {
    if (isKeyless(k)) return this.ledger.labelOf(k.address);
    // init.cpp's first run: SetAddressBook(vchDefaultKey, "", "receive") for the node's default key.
    return k.account ?? (k.origin === 'node' ? '' : undefined);
  }

  private bookKey(k: Holder): void {
    const name = this.bookName(k);
    const before = this.bookOf.get(k);
    if (before === name) return;
    if (before !== undefined) {
      const set = this.book.get(before)!;
      set.delete(k);
      if (set.size === 0) this.book.delete(before);
    }
    if (name === undefined) this.bookOf.delete(k);
    else {
      this.bookOf.set(k, name);
      let set = this.book.get(name);
      if (!set) this.book.set(name, (set = new Set()));
      set.add(k);
    }
  }

  // ---- transactions ------------------------------------------------------------------------

  /** A transaction recorded (or its amounts to be recomputed): figured from `tx` and counted where it stands. */
  track(txid: string, tx: Transaction, fromAccount?: string): void {
    const rec = this.ledger.rec(txid);
    if (!rec) return;
    const was = rec.st !== null && this.isDefault(rec);
    this.count(rec, null);
    this.index(rec, false);
    this.fileSender(rec, false);
    if (fromAccount !== undefined) rec.fromAccount = fromAccount;
    this.fileSender(rec, true);
    this.amounts(rec, tx);
    this.index(rec, true);
    this.group(rec, this.inputsOf(tx, rec));
    this.count(rec, this.ledger.state(txid));
    this.fileDefault(rec, was);
  }

  /** The transaction's place changed (a block, the mempool, neither): its figures move with it. */
  sync(txid: string): void {
    const rec = this.ledger.rec(txid);
    if (!rec || rec.st === null) return;
    const was = this.isDefault(rec);
    this.count(rec, this.ledger.state(txid));
    this.fileDefault(rec, was);
  }

  /**
   * EraseFromWallet: the transaction leaves every figure and index (its record is going): its sums,
   * the key ids it pays (recsOfKey), its sending account (sentFrom). The groupings are figured again
   * when next read (GetAddressGroupings walks mapWallet). O(its outputs).
   */
  forget(rec: TxRec): void {
    if (rec.st !== null && this.isDefault(rec)) this.defaults.dropped(this.isDefaultAt);
    this.zeroSends.delete(rec);
    this.count(rec, null);
    this.index(rec, false);
    this.fileSender(rec, false);
    this.groupsDirty = true;
  }

  /** MarkDirty: the wallet's keys changed what is its own; every transaction is figured again. */
  retrackAll(): void {
    for (const rec of [...this.ledger.all()]) {
      const tx = this.ledger.parse(rec.txid);
      if (tx) this.track(rec.txid, tx);
    }
    this.groupsDirty = true;
  }

  /** sendfrom / sendmany: the account a transaction is sent from (strFromAccount). */
  setFromAccount(txid: string, account: string): void {
    const rec = this.ledger.rec(txid);
    if (!rec || rec.fromAccount === account) return;
    const st = rec.st;
    const was = st !== null && this.isDefault(rec);
    this.count(rec, null);
    this.fileSender(rec, false);
    rec.fromAccount = account;
    this.fileSender(rec, true);
    this.count(rec, st);
    if (st !== null) this.fileDefault(rec, was);
  }

  /**
   * Whether a figured transaction may have an entry for "": a holder it pays counted under "" or under
   * no address-book name (ListTransactions' received account), or sent from "" spending a wallet
   * output under either filter (its sent entries). A superset: the caller figures each one's entries.
   */
  private isDefault(rec: TxRec): boolean {
    if (rec.fromAccount === '' && (rec.debited !== 0n || (rec.debitedAll ?? 0n) !== 0n || this.zeroSends.has(rec))) return true;
    for (const p of paidOf(rec)) if (!p.book) return true;
    return false;
  }

  /** Files a figured transaction's position under "" when it now may have an entry there (`was`: it may before). */
  private fileDefault(rec: TxRec, was: boolean): void {
    const now = this.isDefault(rec);
    if (now && !was) this.defaults.add(rec.seq);
    else if (was && !now) this.defaults.dropped(this.isDefaultAt);
  }

  /**
   * listtransactions "": the order positions that may hold an entry for "" — its transactions (see
   * isDefault) and its accounting entries — newest first, lazily: a walk stopped after count + from
   * entries costs them (and the positions it meets that left "", dropped as met), not the wallet.
   */
  *defaultPositions(): Generator<number> {
    const moves = this.movesOf.get('') ?? [];
    let m = moves.length - 1;
    for (const seq of this.defaults.newestFirst(this.isDefaultAt)) {
      while (m >= 0 && moves[m]! > seq) yield moves[m--]!;
      yield seq;
    }
    while (m >= 0) yield moves[m--]!;
  }

  private fileSender(rec: TxRec, add: boolean): void {
    if (rec.fromAccount === '') return;
    let set = this.sentFrom.get(rec.fromAccount);
    if (add) {
      if (!set) this.sentFrom.set(rec.fromAccount, (set = new Set()));
      set.add(rec);
    } else if (set?.delete(rec) && set.size === 0) this.sentFrom.delete(rec.fromAccount);
  }

  /**
   * listtransactions for a named account (not "", which holds every unlabelled key's receipts): the
   * wallet transactions that may have an entry for it — those paying an address in its address book
   * (ListTransactions' received entries carry the address-book name of their destination, which is
   * the holder's) and those sent from it (strSentAccount) — and its accounting entries' positions.
   * A superset (the caller figures each one's entries, and skips what is no longer recorded);
   * costs the account's transactions, not the wallet's.
   */
  ofAccount(account: string): { recs: TxRec[]; moves: readonly number[] } {
    const recs: TxRec[] = [...(this.sentFrom.get(account) ?? [])];
    for (const h of this.book.get(account) ?? []) recs.push(...this.recsOf(h.idHex));
    return { recs, moves: this.movesOf.get(account) ?? [] };
  }

  fromAccount(txid: string): string {
    return this.ledger.rec(txid)?.fromAccount ?? '';
  }

  /**
   * CWalletTx::GetAmounts (the transparent part) with what ListReceived and GetAddressGroupings read,
   * under both filters the accounts answer: ISMINE_SPENDABLE, and ISMINE_ALL (includeWatchonly), whose
   * GetDebit(filter) adds the watch-only outputs spent, so a transaction spending only watch-only
   * outputs is a send there (its sends and fee debited, its change quirk applied) and not here.
   */
  private amounts(rec: TxRec, tx: Transaction): void {
    const debit = rec.coinbase ? 0n : this.ledger.debit(rec.txid, tx);
    const debitAll = debit + (rec.coinbase ? 0n : this.ledger.watchDebit(rec.txid, tx));
    let valueOut = 0n;
    for (const o of tx.vout) valueOut += o.value;
    const holders = tx.vout.map((o) => this.holderOf(o.script));
    // IsChange: IsMine at any level and no address-book entry, or no destination at all.
    const change = tx.vout.map((o, i) => {
      const k = holders[i];
      return k ? this.bookName(k) === undefined : debitAll > 0n && this.ledger.minesBare(o.script);
    });
    const list = (d: bigint): { debited: bigint; listed: boolean[] } => {
      let debited = d > 0n ? d - valueOut : 0n;
      let oneshot = 0;
      const listed = tx.vout.map((o, i) => {
        if (d === 0n) return holders[i] !== undefined;
        // komodod's quirk: IsChange outputs after the second one are left out.
        if (change[i] && oneshot++ > 1) return false;
        debited += o.value;
        return holders[i] !== undefined;
      });
      return { debited, listed };
    };
    const mine = list(debit);
    const all = debitAll === debit ? mine : list(debitAll);
    let paid: Paid | Paid[] | null = null;
    holders.forEach((k, i) => {
      if (!k) return;
      const listed = mine.listed[i]!;
      const p: Paid = all.listed[i] === listed ? { key: k, value: tx.vout[i]!.value, listed, book: undefined, watch: false } : { key: k, value: tx.vout[i]!.value, listed, book: undefined, watch: false, listedAll: all.listed[i]! };
      paid = paid === null ? p : Array.isArray(paid) ? (paid.push(p), paid) : [paid, p];
    });
    if (debitAll > 0n && mine.debited === 0n && all.debited === 0n) this.zeroSends.add(rec);
    else this.zeroSends.delete(rec);
    rec.debited = mine.debited;
    // Set only on the transactions whose two figures differ (then left in place, as undefined, when they agree again).
    if (all.debited !== mine.debited) rec.debitedAll = all.debited;
    else if (rec.debitedAll !== undefined) rec.debitedAll = undefined;
    rec.paid = paid;
  }

  /** The destinations (see destinationOrder) of the wallet outputs a transaction spends (IsMine(txin), any level); only when it spends any. */
  private inputsOf(tx: Transaction, rec: TxRec): string[] {
    const inputs: string[] = [];
    if (rec.coinbase || (rec.debitedAll ?? rec.debited) === 0n) return inputs;
    for (const i of tx.vin) {
      const s = this.ledger.spentScript(i.prevout.txid(), i.prevout.index);
      const id = s ? destinationOrder(s) : null;
      if (id) inputs.push(id);
    }
    return inputs;
  }

  private index(rec: TxRec, add: boolean): void {
    for (const { key } of paidOf(rec)) {
      if (key === BARE) continue;
      const id = key.idHex;
      const at = this.recsOfKey.get(id);
      if (add) {
        if (at === undefined) this.recsOfKey.set(id, rec);
        else if (Array.isArray(at)) {
          if (!at.includes(rec)) at.push(rec);
        } else if (at !== rec) this.recsOfKey.set(id, [at, rec]);
      } else if (at === rec) this.recsOfKey.delete(id);
      else if (Array.isArray(at)) {
        const i = at.indexOf(rec);
        if (i >= 0) at.splice(i, 1);
        if (at.length === 1) this.recsOfKey.set(id, at[0]!);
      }
    }
  }

  private recsOf(id: string): TxRec[] {
    const at = this.recsOfKey.get(id);
    return at === undefined ? [] : Array.isArray(at) ? at : [at];
  }

  private acc(name: string): AccountSums {
    let a = this.sums.get(name);
    if (!a) this.sums.set(name, (a = new AccountSums()));
    return a;
  }

  /** Moves a transaction's figures to the place `st` (null: uncounted). */
  private count(rec: TxRec, st: number | null): void {
    if (rec.st === st) return;
    if (rec.st !== null) this.apply(rec, rec.st, -1);
    rec.st = st;
    if (st !== null) {
      for (const p of paidOf(rec)) (p.book = this.bookName(p.key)), (p.watch = mineKind(p.key) === 'watch');
      this.apply(rec, st, 1);
    }
  }

  private apply(rec: TxRec, st: number, sign: 1 | -1): void {
    const s = BigInt(sign);
    // GetAccountBalance skips depth < 0; a coinbase counts only from its block (and once mature, read later).
    if (st >= 0 && !(rec.coinbase && st === 0)) {
      for (const p of paidOf(rec)) {
        // Each figure goes to its account and to the whole wallet's (getbalance "*").
        for (const a of [this.acc(p.book ?? ''), this.total]) {
          if (p.listed && !p.watch) {
            if (st === 0) a.mem += s * p.value;
            else (rec.coinbase ? a.cb : a.recv).add(st, s * p.value, sign);
          }
          if (p.listedAll ?? p.listed) {
            if (st === 0) a.aMem += s * p.value;
            else (rec.coinbase ? a.aCb : a.aRecv).add(st, s * p.value, sign);
          }
        }
      }
      for (const from of [this.acc(rec.fromAccount), this.total]) {
        from.sent += s * rec.debited;
        from.aSent += s * (rec.debitedAll ?? rec.debited);
      }
      this.acc(rec.fromAccount).txCount += sign;
    }
    // ListReceived: the address book's addresses, coinbases left out.
    for (const { book, value, watch } of rec.coinbase ? NO_PAID : paidOf(rec)) {
      if (book === undefined) continue;
      const a = this.acc(book);
      if (watch) {
        if (st > 0) a.wTally.add(st, s * value, sign);
        else if (st === 0) (a.wtMem += s * value), (a.wtMemN += sign);
        else (a.wtNone += s * value), (a.wtNoneN += sign);
      } else if (st > 0) a.tally.add(st, s * value, sign);
      else if (st === 0) (a.tMem += s * value), (a.tMemN += sign);
      else (a.tNone += s * value), (a.tNoneN += sign);
    }
  }

  /** Who an output pays in the accounts: a wallet key, a keyless destination the wallet watches or can spend, or nobody. */
  private holderOf(script: Uint8Array): Holder | undefined {
    const k = this.ledger.keyOf(script);
    if (k) return k;
    const d = this.ledger.keylessOf(script);
    if (d) return this.intern(d.address, d.keyIdHex, d.level);
    // A watched script with no destination: received by "" (GetAccountAmounts: not in the address book), change, never grouped or tallied.
    return this.ledger.minesBare(script) ? BARE : undefined;
  }

  private intern(address: string, keyIdHex: string | null, level: KeylessLevel): Keyless {
    let h = this.keyless.get(address);
    if (!h) {
      h = { keyless: true, idHex: keyIdHex ?? `s${address}`, address, order: keyIdHex ?? `z${toHex(decodeAddress(address)?.hash ?? new Uint8Array())}`, level };
      this.keyless.set(address, h);
      this.bookKey(h);
    }
    return h;
  }

  /**
   * A keyless destination's address-book entry or IsMine level changed (importaddress,
   * addmultisigaddress): it enters the book under its name and its transactions are figured again.
   * O(its transactions).
   */
  keylessChanged(address: string, keyIdHex: string | null, level: KeylessLevel): void {
    const h = this.intern(address, keyIdHex, level);
    h.level = level;
    this.relabel(h);
  }

  /**
   * A key entered the wallet (importprivkey of a watched address): its address is the key's from now
   * on (one mapAddressBook entry per destination); the keyless holder leaves the book and its
   * transactions are figured again under the key. O(its transactions); a Map miss for any other key.
   */
  private keyBecameHeld(k: HeldKey): void {
    if (this.keyless.size === 0) return;
    const address = addressOf(k.idHex);
    const h = this.keyless.get(address);
    if (!h) return;
    this.keyless.delete(address);
    const name = this.bookOf.get(h);
    if (name !== undefined) {
      this.bookOf.delete(h);
      const set = this.book.get(name)!;
      set.delete(h);
      if (set.size === 0) this.book.delete(name);
    }
    for (const rec of [...this.recsOf(h.idHex)]) {
      const tx = this.ledger.parse(rec.txid);
      if (tx) this.track(rec.txid, tx);
    }
  }

  /** A key's account changed: its transactions are figured again (IsChange and the account both follow the book). */
  private relabel(k: Holder): void {
    const wasBook = this.bookOf.has(k);
    this.bookKey(k);
    if (!wasBook && this.bookOf.has(k) && this.parent.has(orderOf(k))) this.groupsDirty = true;
    for (const rec of [...this.recsOf(k.idHex)]) {
      const tx = this.ledger.parse(rec.txid);
      if (tx) this.track(rec.txid, tx);
    }
  }

  // ---- balances ----------------------------------------------------------------------------

  /**
   * GetAccountBalance(account, minconf): received at least minconf deep (a coinbase once mature),
   * minus the account's sends and fees in the chain or the mempool, plus its accounting entries.
   * komodo_dpowconfs is the depth itself on a chain never notarised. O(minconf + maturity).
   */
  balance(account: string, minConf: number, watchOnly = false): bigint {
    const a = this.sums.get(account);
    return a ? this.net(a, minConf, watchOnly) + a.moves : 0n;
  }

  /**
   * getbalance "*" minconf includeWatchonly: the same sum over every wallet transaction (komodod's own
   * loop, "a different way from GetBalance()": receipts minconf deep less every send and fee). O(minconf + maturity).
   */
  balanceAll(minConf: number, watchOnly = false): bigint {
    return this.net(this.total, minConf, watchOnly);
  }

  /** Receipts at least minconf deep (coinbases once mature) less sends and fees, under the filter asked for. */
  private net(a: AccountSums, minConf: number, watchOnly: boolean): bigint {
    const tip = this.ledger.tipHeight();
    const matured = tip - Math.max(minConf, this.ledger.maturity()) + 1;
    // isminefilter ISMINE_SPENDABLE | ISMINE_WATCH_ONLY: the watch-only receipts and debits too.
    if (watchOnly) return a.aRecv.upTo(tip - minConf + 1).sum + (minConf <= 0 ? a.aMem : 0n) + a.aCb.upTo(matured).sum - a.aSent;
    return a.recv.upTo(tip - minConf + 1).sum + (minConf <= 0 ? a.mem : 0n) + a.cb.upTo(matured).sum - a.sent;
  }

  /**
   * listaccounts: every address-book name whose keys pass the filter, every account a counted
   * transaction was sent from, every account with accounting entries, each with GetAccountBalance;
   * in std::map (byte) order.
   */
  list(minConf: number, watchOnly: boolean): AccountTotal[] {
    const names = new Set<string>();
    for (const [name, ks] of this.book) {
      for (const k of ks) {
        const kind = mineKind(k);
        // IsMine(destination) & includeWatchonly: a keyless entry IsMine does not own is never listed.
        if (kind === 'spendable' || (watchOnly && kind === 'watch')) {
          names.add(name);
          break;
        }
      }
    }
    for (const [name, a] of this.sums) if (a.txCount > 0 || a.moveCount > 0) names.add(name);
    return [...names].sort(byteCmp).map((account) => ({ account, amount: this.balance(account, minConf, watchOnly) }));
  }

  /** getaddressesbyaccount: the account's address-book addresses (keyless ones too), in mapAddressBook order. */
  addresses(account: string): string[] {
    return [...(this.book.get(account) ?? [])].sort(byOrder).map(addressOfHolder);
  }

  /** An address's ListReceived tally at `minConf` from the transactions paying it: amount, the smallest depth included (max int: none), the txids. */
  private tallyOf(k: Holder, minConf: number): Tally & { txids: string[] } {
    const tip = this.ledger.tipHeight();
    const out = { amount: 0n, conf: Number.MAX_SAFE_INTEGER, txids: [] as string[], any: false };
    const picked = this.recsOf(k.idHex).filter((r) => !r.coinbase && r.st !== null && depthAt(r.st, tip) >= minConf);
    // mapWallet order (uint256: internal bytes), one txids entry per output.
    picked.sort((a, b) => internalCmp(a.txid, b.txid));
    for (const r of picked) {
      for (const p of paidOf(r)) {
        if (p.key !== k) continue;
        out.amount += p.value;
        out.conf = Math.min(out.conf, depthAt(r.st!, tip));
        out.txids.push(r.txid);
        out.any = true;
      }
    }
    return out;
  }

  /** An account's ListReceived tally at `minConf`, from its running sums: O(minconf). */
  private accountTally(account: string, minConf: number, watchOnly = false): Tally {
    const a = this.sums.get(account);
    if (!a) return { amount: 0n, conf: Number.MAX_SAFE_INTEGER, any: false };
    const tip = this.ledger.tipHeight();
    const { sum, top } = a.tally.upTo(tip - minConf + 1);
    let high = top;
    let amount = sum;
    // IsMine(address) & filter: the watch-only addresses' receipts only when asked for.
    if (watchOnly) {
      const w = a.wTally.upTo(tip - minConf + 1);
      amount += w.sum;
      high = Math.max(high, w.top);
    }
    const out = { amount, conf: high > 0 ? tip - high + 1 : Number.MAX_SAFE_INTEGER, any: high > 0 };
    const memN = a.tMemN + (watchOnly ? a.wtMemN : 0);
    const noneN = a.tNoneN + (watchOnly ? a.wtNoneN : 0);
    if (minConf <= 0 && memN > 0) (out.amount += a.tMem + (watchOnly ? a.wtMem : 0n)), (out.conf = 0), (out.any = true);
    if (minConf <= -1 && noneN > 0) (out.amount += a.tNone + (watchOnly ? a.wtNone : 0n)), (out.conf = -1), (out.any = true);
    return out;
  }

  /**
   * ListReceived (listreceivedbyaddress / listreceivedbyaccount): the address book in key-id order,
   * each address's non-coinbase receipts at least minconf deep; by account, summed per name in byte order.
   */
  received(minConf: number, includeEmpty: boolean, watchOnly: boolean, byAccount: boolean): ReceivedRow[] {
    if (byAccount) {
      const rows: ReceivedRow[] = [];
      for (const account of [...this.book.keys()].sort(byteCmp)) {
        // Only addresses IsMine & filter take part: an account of such addresses alone has no row.
        const mine = [...this.book.get(account)!].filter((k) => owned(k, watchOnly)).sort(byOrder);
        if (mine.length === 0) continue;
        const t = this.accountTally(account, minConf, watchOnly);
        if (!t.any && !includeEmpty) continue;
        // komodod assigns (not ORs) the flag: the account's last address in mapAddressBook order decides it.
        const last = mine.pop()!;
        const watchOnlyRow = watchOnly && mineKind(last) === 'watch' && this.tallyOf(last, minConf).any;
        rows.push({ account, amount: t.amount, confirmations: t.conf, watchOnly: watchOnlyRow });
      }
      return rows;
    }
    const rows: ReceivedRow[] = [];
    for (const [k, account] of [...this.bookOf].sort(([a], [b]) => byOrder(a, b))) {
      // IsMine(address) & filter: a watch-only address only when asked for, a keyless one IsMine does not own never.
      if (!owned(k, watchOnly)) continue;
      const watch = mineKind(k) === 'watch';
      const t = this.tallyOf(k, minConf);
      if (!t.any && !includeEmpty) continue;
      rows.push({ address: addressOfHolder(k), account, amount: t.amount, confirmations: t.conf, watchOnly: t.any && watch, txids: t.txids });
    }
    return rows;
  }

  /** getreceivedbyaccount: the account's address-book addresses' receipts at least minconf deep. O(minconf). */
  receivedByAccount(account: string, minConf: number): bigint {
    // IsMine(address) as a bool: watch-only addresses count too.
    return this.accountTally(account, minConf, true).amount;
  }

  // ---- moves -------------------------------------------------------------------------------

  private addMove(d: MoveDoc): void {
    const amount = BigInt(d.amount);
    this.moves.set(d.seq, { kind: 'move', account: d.from, amount: -amount, time: d.time, otherAccount: d.to, comment: d.comment });
    this.moves.set(d.seq + 1, { kind: 'move', account: d.to, amount, time: d.time, otherAccount: d.from, comment: d.comment });
    for (const [name, seq] of [[d.from, d.seq], [d.to, d.seq + 1]] as const) {
      const at = this.movesOf.get(name);
      if (at) at.push(seq);
      else this.movesOf.set(name, [seq]);
    }
    this.acc(d.from).moves -= amount;
    this.acc(d.to).moves += amount;
    this.acc(d.from).moveCount++;
    this.acc(d.to).moveCount++;
  }

  /** move: the debit and credit entries at order positions seq and seq + 1, written as one record. */
  async move(seq: number, from: string, to: string, amount: bigint, time: number, comment: string): Promise<void> {
    const d: MoveDoc = { _id: `move${seq}`, seq, from, to, amount: amount.toString(), time, comment };
    await this.store.insert(d);
    this.addMove(d);
  }

  /** The accounting entry at an order position, if one is there. */
  moveAt(seq: number): MoveEntry | undefined {
    return this.moves.get(seq);
  }

  // ---- groupings ---------------------------------------------------------------------------

  private find(x: string): string {
    let r = x;
    while (this.parent.get(r) !== r) r = this.parent.get(r)!;
    let c = x;
    while (c !== r) {
      const n = this.parent.get(c)!;
      this.parent.set(c, r);
      c = n;
    }
    return r;
  }

  private union(ids: string[]): void {
    for (const id of ids) if (!this.parent.has(id)) this.parent.set(id, id);
    for (let i = 1; i < ids.length; i++) {
      const a = this.find(ids[0]!);
      const b = this.find(ids[i]!);
      if (a !== b) this.parent.set(b, a);
    }
  }

  /**
   * GetAddressGroupings' sets for one transaction: its wallet inputs with its change (IsChange: any
   * IsMine level, no address-book entry), and each wallet output alone; IsMine at any level, so
   * watch-only destinations and spendable P2SH ones are grouped as the keys' are.
   */
  private group(rec: TxRec, inputs: string[]): void {
    if (inputs.length > 0) {
      // (ExtractDestination fails for a script without a destination: never grouped.)
      const change = paidOf(rec).filter((p) => p.key !== BARE && this.bookName(p.key) === undefined).map((p) => orderOf(p.key));
      this.union([...inputs, ...change]);
    }
    for (const p of paidOf(rec)) if (p.key !== BARE) this.union([orderOf(p.key)]);
  }

  /**
   * listaddressgroupings: the groups (std::set<std::set<CTxDestination>>: each sorted as CTxDestination
   * — key ids, then script ids, each by id — the groups in lexicographic order), each address with its
   * GetAddressBalances figure (`balanceOf` takes the coin index: key id hex, 's' + address of a P2SH)
   * and its address-book name.
   */
  groupings(balanceOf: (idx: string) => bigint): GroupedAddress[][] {
    if (this.groupsDirty) {
      this.groupsDirty = false;
      this.parent.clear();
      // Rare (a change address entered the address book, keys imported): every transaction again.
      for (const rec of this.ledger.all()) {
        const tx = this.ledger.parse(rec.txid);
        if (tx) this.group(rec, this.inputsOf(tx, rec));
      }
    }
    const groups = new Map<string, string[]>();
    for (const id of this.parent.keys()) {
      const r = this.find(id);
      let g = groups.get(r);
      if (!g) groups.set(r, (g = []));
      g.push(id);
    }
    const sorted = [...groups.values()].map((g) => g.sort());
    sorted.sort((a, b) => {
      for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
      return a.length - b.length;
    });
    return sorted.map((g) =>
      g.map((order) => {
        if (order[0] === 'z') {
          const id = order.slice(1);
          const address = encodeAddress(SCRIPT_ADDRESS, fromHex(id));
          const name = this.ledger.labelOf(address);
          return { address, amount: balanceOf(`s${address}`), ...(name !== undefined ? { account: name } : {}) };
        }
        const k = this.keys.byIdHex(order);
        const name = k ? this.bookName(k) : this.ledger.labelOf(addressOf(order));
        return { address: addressOf(order), amount: balanceOf(order), ...(name !== undefined ? { account: name } : {}) };
      }),
    );
  }
}

interface Tally {
  amount: bigint;
  conf: number;
  any: boolean;
}

/** GetDepthInMainChain from a place (see AccountsLedger.state). */
const depthAt = (st: number, tip: number): number => (st > 0 ? tip - st + 1 : st);

const addressOf = (idHex: string): string => encodeAddress(PUBKEY_ADDRESS, fromHex(idHex));
const addressOfHolder = (h: Holder): string => (isKeyless(h) ? h.address : addressOf(h.idHex));
const byOrder = (a: Holder, b: Holder): number => {
  const x = orderOf(a);
  const y = orderOf(b);
  return x < y ? -1 : x > y ? 1 : 0;
};
/** IsMine(destination) & filter. */
const owned = (k: Holder, watchOnly: boolean): boolean => {
  const kind = mineKind(k);
  return kind === 'spendable' || (watchOnly && kind === 'watch');
};

/** uint256 order: the display hex compared from its last byte (internal byte order). */
function internalCmp(a: string, b: string): number {
  for (let i = a.length - 2; i >= 0; i -= 2) {
    const x = a.slice(i, i + 2);
    const y = b.slice(i, i + 2);
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

export type { MoveDoc };
