import { randomInt } from 'node:crypto';
import { Transaction } from '../../chain/tx/transaction.js';
import type { Block } from '../../chain/block/block.js';
import type { ChainParams } from '../../chain/params/chain-params.js';
import { equalBytes, fromHex, toHex, toHexReversed } from '../../chain/encoding/hex.js';
import { hash160 } from '../../chain/crypto/hash.js';
import { isValidPrivateKey, publicKeyFromPrivate } from '../../chain/crypto/secp256k1.js';
import { isP2PKH, isP2SH, p2pkhScript, p2pkScript, p2shScript } from '../../chain/script/script.js';
import { parsePayToCryptoCondition, solver } from '../../chain/script/standard.js';
import { cond1FingerprintOf, cond1Fingerprints, cond1SubScript } from '../../chain/cc/cond1.js';
import { MODULE_GLOBALS } from '../../chain/cc/globals.js';
import { decodeAddress, encodeAddress, PUBKEY_ADDRESS, SCRIPT_ADDRESS } from '../../chain/address/address.js';
import { ServiceFailure, noSuchOp } from '../protocol.js';
import type { Asker } from '../ask.js';
import type { ServiceLogic, WriteOutcome } from '../../machines/service.js';
import type { ChainStoreProtocol } from '../chainstore/protocol.js';
import type { MempoolProtocol } from '../mempool/protocol.js';
import type { ImportEntry, MoveEntry, UnspentView, WalletInfo, WalletNotice, WalletReplies, WalletRequest } from './protocol.js';
import { openStore, peekDoc, type Store } from '../storage/datastore.js';
import type { HeldKey, KeyStore, WalletKey } from './keystore.js';
import { CoinBook, coinKey, type BookCoin, type CoinOwner, type WalletCoin } from './coins.js';
import { scriptDestination, txDetail, type TxDetail, type Ledger } from './accounting.js';
import { ISMINE_NO, ISMINE_SPENDABLE, ISMINE_WATCH_ONLY, WatchBook, isMineLevel, type IsMineFilter, type IsMineType } from './watchonly.js';
import { WatchOps } from './watch-ops.js';
import { TxHeights } from './txheights.js';
import { Accounts, type MoveDoc, type TxRec } from './accounts.js';
import { Secret } from '../../chain/crypto/secret.js';
import { signMessage } from '../../chain/crypto/message.js';
import { signVariants, type PrevOut, type InputError } from '../../chain/tx/sign.js';
import type { SigningKey } from '../../chain/script/sign.js';
import { buildTransaction, fundTransaction, WalletBuildError, type Recipient, type Spendable } from './select.js';
import { WalletCrypt } from './walletcrypt.js';
import { signCCTx } from './cc-sign.js';
import { InitialDownload, KOMODOD_RESEND_TIMES, ResendClock, compareTxids, reacceptOrder, resendable, type PendingTx, type ResendTimes } from './rebroadcast.js';

export type { WalletCoin } from './coins.js';
export type { TxDetail, Entry } from './accounting.js';
export type { CoinView, ImportEntry, UnspentView } from './protocol.js';

/**
 * A transaction that pays or spends the wallet (mapWallet's CWalletTx), kept small: its raw bytes stay
 * in the datastore's record (nedb holds every record in memory) and are parsed for the few answers that
 * need them. Its wallet outputs and debit are cached, recomputed when the keys that decide them changed
 * (komodod's MarkDirty).
 */
export interface WalletTx extends TxRec {
  txid: string;
  /** Unix time the wallet first saw it (nTimeReceived). */
  timeReceived: number;
  /** The order the wallet learned it (nOrderPos). */
  seq: number;
  /** sendtoaddress/sendmany comments (CWalletTx::mapValue: "comment", "to"), in key order. */
  mapValue?: Record<string, string>;
  coinbase: boolean;
  lockTime: number;
  /** The height of the active-chain block holding it, 0 when in none (filed in the wallet's TxHeights). */
  height: number;
  /** The wallet version `mineN`/`mineV` were computed at, and the one `debit`/`fromMe` were. */
  outsVer: number;
  debitVer: number;
  /** The outputs paying the wallet's scripts: their indexes and values. */
  mineN: number[];
  mineV: bigint[];
  /** It spends a wallet output (IsFromMe), and the sum of those (GetDebit). */
  fromMe: boolean;
  debit: bigint;
  /** Every input spends a spendable wallet output: IsTrusted while unconfirmed. */
  trusted: boolean;
  /** The watch-only outputs (ISMINE_WATCH_ONLY), and the watch-only outputs it spends (GetDebit(ISMINE_WATCH_ONLY)). */
  watchN?: number[];
  watchV?: bigint[];
  watchDebit?: bigint;
}

interface TxDoc {
  _id: string;
  /**
   * The raw transaction in base64: nedb keeps every record in memory, and base64 takes two thirds of
   * hex's room (about 150 bytes less per wallet transaction). `raw`, hex, is what earlier versions
   * wrote; it is still read.
   */
  b64?: string;
  raw?: string;
  time: number;
  /** The order the wallet learned it (nOrderPos). */
  seq?: number;
  mapValue?: Record<string, string>;
  /** strFromAccount (sendfrom/sendmany), kept as komodod keeps it in mapValue["fromaccount"] on disk. */
  fromAccount?: string;
}

/** A stored transaction's bytes, from base64 or (written by earlier versions) hex. */
function docBytes(d: TxDoc): Uint8Array {
  if (d.b64 !== undefined) return new Uint8Array(Buffer.from(d.b64, 'base64'));
  return fromHex(d.raw ?? '');
}

export interface WalletOptions {
  chain: Asker<ChainStoreProtocol>;
  mempool: Asker<MempoolProtocol>;
  keys: KeyStore;
  dir: string;
  /** The parameters in force at the tip (the chain store's `params`). */
  params: () => ChainParams;
  /** -rescan: rebuild the transaction history from the chain's blocks once at load. */
  rescanBlocks?: boolean;
  /** -txexpirydelta: the expiry of the transactions the wallet builds is the next height plus this. */
  expiryDelta?: number;
  /** The -pubkey the node runs with (change goes to it, as komodod's USE_EXTERNAL_PUBKEY). */
  externalPubkey?: Uint8Array;
  /** The rebroadcast's timing (komodod's unless a test shortens it). */
  resendTimes?: ResendTimes;
  /** GetRand(n): a whole number in [0, n). */
  random?: (n: number) => number;
  now?: () => number;
  log?: (msg: string) => void;
}

const WRITE_OPS = new Set([
  'blockConnected',
  'blockDisconnected',
  'txsAccepted',
  'txsRemoved',
  'newAddress',
  'accountAddress',
  'importKey',
  'importKeys',
  'fund',
  'send',
  'rescan',
  'setPubkey',
  'backup',
  'walletInfo',
  'lockCoins',
  'setTxFee',
  'rawChangeAddress',
  'keypoolRefill',
  'resendNow',
  'encryptWallet',
  'walletPassphrase',
  'walletPassphraseChange',
  'walletLock',
  'setAccount',
  'move',
  'importAddress',
  'addMultisig',
  'cleanTxs',
]);

const key = coinKey;
const CC_EVAL_CODES = MODULE_GLOBALS.map((g) => g.evalCode);
const NONE_N: number[] = [];
const NONE_V: bigint[] = [];


/** The key id a P2PKH script pays (the exact 25-byte template), or null. */
function p2pkhKeyId(script: Uint8Array): Uint8Array | null {
  return isP2PKH(script) ? script.subarray(3, 23) : null;
}

/** The key a P2PK script pays (<33 or 65 bytes> OP_CHECKSIG), or null. */
function p2pkKey(script: Uint8Array): Uint8Array | null {
  if (script.length === 35 && script[0] === 33 && script[34] === 0xac) return script.subarray(1, 34);
  if (script.length === 67 && script[0] === 65 && script[66] === 0xac) return script.subarray(1, 66);
  return null;
}

/** A small number from a script (FNV-1a, 30 bits: a Smi map key, no string per output; hits are checked against the script). */
function scriptSlot(script: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < script.length; i++) h = Math.imul(h ^ script[i]!, 0x01000193);
  return h & 0x3fffffff;
}

/** A small number from a fingerprint's first bytes (a map key; hits are checked against the key). */
const fpSlot = (fp: Uint8Array): number => fp[0]! | (fp[1]! << 8) | (fp[2]! << 16) | ((fp[3]! & 0x3f) << 24);

/**
 * The wallet: keys (the KeyStore), the outputs they own (P2PKH and P2PK; CC outputs of the wallet's
 * pubkeys tracked apart, as komodod's IsMine does not count them), and the transactions that touch
 * them. Kept current by the chain store's and the mempool's notices; rebuilt from the chain store's
 * UTXO set on load, so a restart or a reorg never leaves a wrong balance. Everything a call reads is
 * kept as it changes (coins and their totals in the CoinBook, each key's scripts and CC conditions
 * when the key is added, transactions in learning order), so no call costs more as the wallet grows.
 */
export class WalletLogic implements ServiceLogic<WalletRequest, WalletNotice> {
  readonly name = 'wallet';
  readonly book: CoinBook;
  /** Per wallet-relevant mempool transaction, its keys in memCoins and memSpent (its removal costs its size, not the mempool's). */
  private readonly memKeys = new Map<string, { coins: string[]; spent: string[] }>();
  /** CC outputs of the wallet's pubkeys (confirmed). */
  readonly ccCoins = new Map<string, WalletCoin>();
  readonly txs = new Map<string, WalletTx>();
  /** The transactions in the order the wallet learned them (OrderedTxItems); `seq` is the index here. */
  private readonly ordered: (WalletTx | undefined)[] = [];
  /** The transactions by the height of their block, and those in none (listsinceblock). */
  private readonly byHeight = new TxHeights<WalletTx>();
  /** The CC 1-of-1 conditions of the wallet's keys, by fingerprint slot → the keys (checked on a hit). */
  private readonly ccKeys = new Map<number, HeldKey | HeldKey[]>();
  /** Bumped when keys that may own outputs already seen arrive (imports): cached outputs and debits are recomputed. */
  private version = 0;
  /**
   * Outpoint → the wallet transactions spending it (mapTxSpends: two or more are in conflict), kept as
   * transactions are recorded, so GetConflicts costs the inputs of the transaction asked about.
   */
  private readonly txSpends = new Map<string, WalletTx | WalletTx[]>();
  private readonly resendClock: ResendClock;
  /**
   * P2PKH key id (hex) of a key the wallet holds, or 's' + script id (hex) of a P2SH the wallet can
   * spend → the outputs of recorded non-coinbase transactions paying it (getreceivedbyaddress tallies
   * these: the address's outputs, never the whole wallet), filed as transactions are recorded. An
   * output to a script the wallet cannot spend then (a foreign payee, a watched address, a P2SH
   * short of a key, a key or redeem script added later) is filed in payersOf instead, as a slot
   * entry, not an object and a string per output: komodod tallies only IsMine addresses, and these
   * are read from there when the address becomes the wallet's.
   */
  private readonly receivedBy = new Map<string, { w: WalletTx; value: bigint }[]>();
  /**
   * scriptSlot of a script the wallet cannot spend (not IsMine, or watch-only) → the recorded
   * transactions paying it (one held bare, the usual case): when importaddress, addmultisigaddress or
   * importprivkey (without a rescan) makes such a script the wallet's, exactly those transactions are figured again, as komodod's
   * IsMine read afresh would count them. No string or object per output: a Map entry per slot.
   */
  private readonly payersOf = new Map<number, WalletTx | WalletTx[]>();
  /**
   * setLockedCoins (lockunspent): outpoints coin selection never takes, by coinKey. In memory only,
   * as komodod's: a restart starts with none locked.
   */
  private readonly locked = new Set<string>();
  /** payTxFee per kB (settxfee), 0 while unset (DEFAULT_TRANSACTION_FEE); in memory, as komodod's global. */
  private payTxFee = 0n;
  private readonly initialDownload = new InitialDownload();
  /** The accounts family's indexes (address book, account balances, ListReceived, groupings, moves). */
  readonly accounts: Accounts;
  tipMtp = 0;
  private txStore!: Store<TxDoc>;
  /** Watched scripts, redeem scripts and keyless address-book entries (watchonly.ts). */
  watch!: WatchBook;
  private nextSeq = 0;
  private readonly now: () => number;
  private readonly log: (msg: string) => void;
  externalPubkey: Uint8Array | undefined;
  /** Encryption: the unlock timer and the unlocked check of the key-using operations. */
  private readonly crypt: WalletCrypt;

  constructor(private readonly opts: WalletOptions) {
    this.now = opts.now ?? (() => Math.floor(Date.now() / 1000));
    this.log = opts.log ?? (() => {});
    this.externalPubkey = opts.externalPubkey;
    this.book = new CoinBook(() => this.opts.params().coinbaseMaturity);
    this.resendClock = new ResendClock(opts.resendTimes ?? KOMODOD_RESEND_TIMES, opts.random ?? ((n) => randomInt(n)));
    this.crypt = new WalletCrypt(opts.keys, this.now, this.log);
    this.accounts = new Accounts(opts.keys, {
      keyOf: (script) => this.keyOfScript(script),
      keylessOf: (script) => {
        if (this.watch.empty) return undefined;
        const level = this.mineLevel(script);
        const dest = level === ISMINE_NO ? null : scriptDestination(script);
        return dest ? { ...dest, level: level === ISMINE_WATCH_ONLY ? 'watch' : 'spendable' } : undefined;
      },
      labelOf: (address) => this.watch.labelOf(address),
      debit: (txid, tx) => this.debitOf(this.txs.get(txid)!, tx).debit,
      watchDebit: (txid, tx) => this.debitOf(this.txs.get(txid)!, tx).watchDebit ?? 0n,
      minesBare: (script) => !this.watch.empty && scriptDestination(script) === null && this.mineLevel(script) !== ISMINE_NO,
      // The spent coin is still in the book when its spender is recorded; the stored transaction otherwise (the load).
      spentScript: (txid, n) => {
        const c = this.book.coins.get(key(txid, n)) ?? this.book.memCoins.get(key(txid, n));
        if (c) return c.script;
        return this.isOurOutput(txid, n) ? this.parsed(txid)?.vout[n]?.script : undefined;
      },
      state: (txid) => {
        const w = this.txs.get(txid);
        return !w ? -1 : w.height > 0 ? w.height : this.memKeys.has(txid) ? 0 : -1;
      },
      parse: (txid) => this.parsed(txid),
      rec: (txid) => this.txs.get(txid),
      atSeq: (seq) => this.ordered[seq],
      all: () => this.txs.values(),
      tipHeight: () => this.tipHeight,
      maturity: () => this.opts.params().coinbaseMaturity,
    });
  }

  get keys(): KeyStore {
    return this.opts.keys;
  }

  /** importaddress, addmultisigaddress, validateaddress's wallet part, cleanwallettransactions (watch-ops.ts). */
  private readonly watchOps = new WatchOps({
    book: () => this.watch,
    mineLevel: (script) => this.mineLevel(script),
    keylessChanged: (script) => this.keylessChanged(script),
    accountOfAddress: (address, keyIdHex) => this.accountOfAddress(address, keyIdHex),
    relabelOwner: (idx, account) => this.book.relabelOwner(idx, account),
    markDirty: () => this.markDirty(),
    refigurePaying: (script) => this.refigurePaying(script),
    rescan: () => this.rescan(),
    ownsAnOutput: (tx) => tx.vout.some((o) => this.mineLevel(o.script) !== ISMINE_NO || this.isMineCC(o.script)),
    txCount: () => this.txs.size,
    txidsBut: (keep) => [...this.txs.keys()].filter((t) => t !== keep),
    txidsUpTo: (height) => this.byHeight.upTo(height).map((w) => w.txid),
    tipHeight: () => this.tipHeight,
    oldestCoinHeight: () => {
      // CC outputs of the wallet's keys are IsMine in komodod's AvailableCoins too (a pass over them: this call erases history anyway).
      let low = this.book.oldestMatureHeight();
      for (const c of this.ccCoins.values()) if (low === null || c.height < low) low = c.height;
      return low;
    },
    erase: (txids) => this.erase(txids),
    log: (msg) => this.log(msg),
  });

  /** Confirmed unspent wallet outputs. */
  get coins(): Map<string, BookCoin> {
    return this.book.coins;
  }

  /** Outputs created by wallet-relevant mempool transactions. */
  get memCoins(): Map<string, BookCoin> {
    return this.book.memCoins;
  }

  /** Outpoint → the mempool transaction spending it. */
  get memSpent(): Map<string, string> {
    return this.book.memSpent;
  }

  get tipHeight(): number {
    return this.book.tipHeight;
  }

  // ---- loading -------------------------------------------------------------------------------

  async load(): Promise<void> {
    // Each key's CC conditions are made once, as the key arrives (and for every key held now).
    this.keys.watch((k) => this.indexKey(k));
    // A key relabelled (importprivkey's label, a pool key handed out to an account) takes its coins along.
    this.keys.onRelabel((k) => this.book.relabel(k));
    this.nextSeq = await this.accounts.open(await openStore<MoveDoc>(this.opts.dir, 'walletacct', { secret: true }));
    this.watch = await WatchBook.open(this.opts.dir);
    // The keyless address-book entries enter the accounts' book (getaddressesbyaccount, ListReceived's empty rows) before any transaction.
    for (const address of this.watch.labelled()) {
      const d = decodeAddress(address);
      if (d && (d.version === PUBKEY_ADDRESS || d.version === SCRIPT_ADDRESS)) this.keylessChanged(d.version === PUBKEY_ADDRESS ? p2pkhScript(d.hash) : p2shScript(d.hash));
    }
    this.txStore = await openStore<TxDoc>(this.opts.dir, 'wallettx', { secret: true });
    const docs = (await this.txStore.find({})).sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
    for (const d of docs) {
      try {
        const tx = Transaction.fromRaw(docBytes(d));
        this.remember(d._id, tx, d.time, d.seq ?? 0, d.mapValue, d.fromAccount);
        this.nextSeq = Math.max(this.nextSeq, (d.seq ?? 0) + 1);
      } catch {
        this.log(`wallet: skipping an unreadable stored transaction ${d._id}`);
      }
    }
    await this.placeFromChain([...this.txs.keys()]);
    if (this.opts.rescanBlocks) {
      const found = await this.opts.chain.ask({ op: 'txsByScript', scripts: this.allScripts() }, 10 * 60_000);
      for (const f of found) {
        await this.record(f.txid, f.tx, f.time);
        this.place(f.txid, f.height);
      }
      this.markDirty();
      this.accounts.retrackAll();
      this.log(`wallet: -rescan found ${found.length} transactions`);
    }
    await this.rescan();
    await this.reaccept();
  }

  /**
   * ReacceptWalletTransactions (wallet.cpp), once at load: every wallet transaction neither in the
   * chain nor in the mempool (depth -1), coinbases aside, goes through the mempool's full acceptance
   * again, parents first. One that cannot enter (its inputs spent by a mined transaction, expired...)
   * stays as it is, at depth -1, and is not tried again until the next start (komodod's rule).
   */
  private async reaccept(): Promise<void> {
    const tip = await this.opts.chain.ask({ op: 'tip' });
    this.initialDownload.tipTime(tip.time, this.now());
    // komodod: `if (IsInitialBlockDownload()) return;` — a node started on a stale tip leaves them out.
    if (this.initialDownload.active) return;
    // Once per start, over the whole wallet as komodod's loop over mapWallet; only the few found
    // neither in the chain nor in the mempool are read from their stored records.
    const pending: WalletTx[] = [];
    for (const w of this.txs.values()) if (!w.coinbase && !this.memKeys.has(w.txid)) pending.push(w);
    if (pending.length === 0) return;
    const inChain = await this.opts.chain.ask({ op: 'inChain', txids: pending.map((w) => w.txid) }, 10 * 60_000);
    const stranded: PendingTx[] = [];
    pending.forEach((w, i) => {
      if (inChain[i]) return;
      const tx = this.parsed(w.txid);
      if (tx) stranded.push({ txid: w.txid, tx, timeReceived: w.timeReceived, seq: w.seq });
    });
    const candidates = reacceptOrder(stranded);
    let accepted = 0;
    for (const w of candidates) {
      try {
        // fRejectAbsurdFee as komodod's call; not announced now: the rebroadcast does that.
        await this.opts.mempool.ask({ op: 'accept', raw: w.tx.toRaw(), tx: w.tx, allowHighFees: false, relay: false });
        await this.txAccepted(w.txid, w.tx);
        accepted++;
      } catch (e) {
        this.log(`wallet: transaction ${w.txid} not re-accepted into the mempool: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    if (candidates.length > 0) this.log(`wallet: re-accepted ${accepted} of ${candidates.length} unconfirmed wallet transactions into the mempool`);
  }

  /**
   * One call of ResendWalletTransactions: when a round is due and a block came since the last one,
   * the wallet's transactions still in the mempool that were received minAge before that block are
   * relayed again (a relayTxs notice for the p2p actor). Answers the milliseconds until the next call.
   * A round costs the wallet's transactions in the mempool, never the whole wallet.
   */
  private resend(): WriteOutcome<WalletNotice> {
    const now = this.now();
    // komodod signals it from SendMessages only outside initial block download: asked again a bit later.
    if (this.initialDownload.active) return { result: 5_000 };
    const before = this.resendClock.round(now);
    const next = Math.max(1, this.resendClock.dueIn(now)) * 1000;
    if (before === null) return { result: next };
    const items = this.resendBefore(before, now);
    if (items.length === 0) return { result: next };
    this.log(`ResendWalletTransactions: rebroadcast ${items.length} unconfirmed transactions`);
    return { result: next, notices: [{ type: 'relayTxs', items }] };
  }

  /**
   * ResendWalletTransactionsBefore(before): the wallet's transactions in the mempool received by
   * then, oldest first, as relay items. Costs the wallet's transactions in the mempool.
   */
  private resendBefore(before: number, now: number): { txid: string; raw: Uint8Array }[] {
    const inMempool: PendingTx[] = [];
    for (const txid of this.memKeys.keys()) {
      const w = this.txs.get(txid);
      // Only those old enough are read from their records (resendable checks the time again).
      if (!w || w.timeReceived > before) continue;
      const tx = this.parsed(txid);
      if (tx) inMempool.push({ txid, tx, timeReceived: w.timeReceived, seq: w.seq });
    }
    return resendable(inMempool, before, now).map((w) => ({ txid: w.txid, raw: w.tx.toRaw() }));
  }

  /**
   * GetConflicts: the other wallet transactions spending an outpoint this one spends, in txid order.
   * Costs this transaction's inputs (one index lookup each); `tx` when the caller has it parsed.
   */
  conflicts(txid: string, tx?: Transaction | null): string[] {
    const w = this.txs.get(txid);
    if (!w || w.coinbase) return [];
    const t = tx ?? this.parsed(txid);
    if (!t) return [];
    const out = new Set<string>();
    for (const input of t.vin) {
      const spenders = this.txSpends.get(input.prevout.key());
      if (Array.isArray(spenders)) for (const s of spenders) out.add(s.txid);
    }
    out.delete(txid);
    return [...out].sort(compareTxids);
  }

  /** Files a recorded transaction under the slots of the scripts it pays that the wallet cannot spend (see payersOf). */
  private indexPayers(w: WalletTx, tx: Transaction): void {
    for (const o of tx.vout) {
      if (this.keyOfScript(o.script) || (!this.watch.empty && this.mineLevel(o.script) === ISMINE_SPENDABLE)) continue;
      const slot = scriptSlot(o.script);
      const at = this.payersOf.get(slot);
      if (at === undefined) this.payersOf.set(slot, w);
      else if (Array.isArray(at)) {
        if (!at.includes(w)) at.push(w);
      } else if (at !== w) this.payersOf.set(slot, [at, w]);
    }
  }

  /** The recorded transactions filed under `script`'s slot (some may pay another script of that slot). */
  private payersAt(script: Uint8Array): readonly WalletTx[] {
    const at = this.payersOf.get(scriptSlot(script));
    return at === undefined ? [] : Array.isArray(at) ? at : [at];
  }

  /** Takes an erased transaction out of the slots it was filed under. */
  private unindexPayers(w: WalletTx, tx: Transaction): void {
    for (const o of tx.vout) {
      const slot = scriptSlot(o.script);
      const at = this.payersOf.get(slot);
      if (at === w) this.payersOf.delete(slot);
      else if (Array.isArray(at)) {
        const rest = at.filter((x) => x !== w);
        this.payersOf.set(slot, rest.length === 1 ? rest[0]! : rest);
      }
    }
  }

  /**
   * A script became the wallet's (importaddress, addmultisigaddress, importprivkey; the caller marked
   * the wallet dirty): the recorded transactions paying it count it at once, as komodod's IsMine read afresh —
   * their outputs to it enter the coins (a confirmed one when still in the UTXO set, a mempool one as
   * it stands), and they and the wallet transactions spending those outputs are figured again in the
   * accounts. O(the transactions paying the script), never a walk of the wallet.
   */
  private async refigurePaying(script: Uint8Array): Promise<void> {
    const at = this.payersAt(script);
    if (at.length === 0) return;
    const o = this.ownerOf(script);
    if (!o) return;
    const confirmed: WalletCoin[] = [];
    const again = new Set<string>();
    for (const w of [...at]) {
      const tx = this.parsed(w.txid);
      if (!tx) continue;
      tx.vout.forEach((out, n) => {
        if (!equalBytes(out.script, script)) return;
        again.add(w.txid);
        for (const s of this.spendersOf(w.txid, n)) again.add(s.txid);
        const wc: WalletCoin = { txid: w.txid, n, value: out.value, script: out.script, height: w.height, coinbase: w.coinbase, lockTime: w.lockTime };
        const mem = this.memKeys.get(w.txid);
        if (w.height > 0) confirmed.push(wc);
        else if (mem) {
          const k = key(w.txid, n);
          this.book.setMempool(k, { ...wc, height: 0 }, o.key, this.trustedOf(w.txid), o.owner);
          if (!mem.coins.includes(k)) mem.coins.push(k);
        }
      });
    }
    if (confirmed.length > 0) {
      // The UTXO set says which are unspent (komodod's IsSpent sees wallet spenders only, so it would
      // list one a foreign transaction spent until a rescan; the README names this departure).
      const coins = await this.opts.chain.ask({ op: 'coins', outpoints: confirmed.map((c) => [c.txid, c.n] as [string, number]) });
      confirmed.forEach((c, i) => {
        const coin = coins[i];
        if (coin) this.book.setConfirmed(key(c.txid, c.n), { ...c, height: coin.height, coinbase: coin.coinbase }, o.key, o.owner);
      });
    }
    this.retrack(again);
  }

  /** Indexes the outpoints a recorded transaction spends (one spender is held bare, the usual case). */
  private addSpends(w: WalletTx, tx: Transaction): void {
    if (w.coinbase) return;
    for (const input of tx.vin) {
      const k = input.prevout.key();
      const at = this.txSpends.get(k);
      if (at === undefined) this.txSpends.set(k, w);
      else if (Array.isArray(at)) {
        if (!at.includes(w)) at.push(w);
      } else if (at !== w) this.txSpends.set(k, [at, w]);
    }
  }

  async close(): Promise<void> {
    this.crypt.close();
  }

  /** A key's CC 1-of-1 conditions, one per module eval code, indexed by fingerprint. */
  private indexKey(k: HeldKey): void {
    for (const fp of cond1Fingerprints(fromHex(k.hex), CC_EVAL_CODES)) {
      const slot = fpSlot(fp);
      const at = this.ccKeys.get(slot);
      if (at === undefined) this.ccKeys.set(slot, k);
      else if (Array.isArray(at)) at.push(k);
      else this.ccKeys.set(slot, [at, k]);
    }
  }

  /** The scripts the wallet's keys own (for the chain store's scans): P2PKH and P2PK of each key. */
  private allScripts(): string[] {
    const out: string[] = [];
    for (const k of this.keys.all()) out.push(toHex(p2pkhScript(hash160(k.pubkey))), toHex(p2pkScript(k.pubkey)));
    // Watched scripts and the P2SH of the redeem scripts held (watchonly.ts keeps both as they come).
    out.push(...this.watch.scanScripts());
    return out;
  }

  /** The CC 1-of-1 sub-scripts of every key, for each module eval code (the chain store's scan). */
  private allCCSubScripts(): string[] {
    const out: string[] = [];
    for (const k of this.keys.all()) {
      for (const fp of cond1Fingerprints(fromHex(k.hex), CC_EVAL_CODES)) out.push(toHex(cond1SubScript(fp)));
    }
    return out;
  }

  /** The wallet key a P2PKH or P2PK script pays (IsMine for these templates), or undefined. */
  private keyOfScript(script: Uint8Array): HeldKey | undefined {
    const id = p2pkhKeyId(script);
    if (id) return this.keys.byKeyId(id);
    const pub = p2pkKey(script);
    if (!pub) return undefined;
    const k = this.keys.byKeyId(hash160(pub));
    // P2PK counts for the key's own serialisation only (compressed or not).
    return k && equalBytes(k.pubkey, pub) ? k : undefined;
  }

  isMine(script: Uint8Array): boolean {
    return this.mineLevel(script) === ISMINE_SPENDABLE;
  }

  /**
   * IsMine's level of a script (ISMINE_SPENDABLE, ISMINE_WATCH_ONLY or ISMINE_NO): the one question
   * "is this the wallet's, and can it spend it". The key templates are checked first (the usual case).
   */
  mineLevel(script: Uint8Array): IsMineType {
    if (this.keyOfScript(script)) return ISMINE_SPENDABLE;
    if (this.watch.empty) return ISMINE_NO;
    return isMineLevel(script, (id) => this.keys.byKeyId(id) !== undefined, this.watch);
  }

  /** A keyless destination's address-book entry or IsMine level changed: the accounts sums follow. */
  private keylessChanged(script: Uint8Array): void {
    const dest = scriptDestination(script);
    if (!dest || (dest.keyIdHex && this.keys.byIdHex(dest.keyIdHex))) return;
    const level = this.mineLevel(script);
    this.accounts.keylessChanged(dest.address, dest.keyIdHex, level === ISMINE_SPENDABLE ? 'spendable' : level === ISMINE_WATCH_ONLY ? 'watch' : 'no');
  }

  /** The address-book name of a destination: its wallet key's account, else the keyless entry's (mapAddressBook). */
  accountOfAddress(address: string, keyIdHex: string | null): string | undefined {
    const k = keyIdHex ? this.keys.byIdHex(keyIdHex) : undefined;
    return k ? this.accounts.bookName(k) : this.watch.labelOf(address);
  }

  /** Who a wallet coin belongs to: its wallet key, or (a watched script, a spendable P2SH) its keyless owner; null when not the wallet's. */
  private ownerOf(script: Uint8Array): { key?: HeldKey; owner?: CoinOwner } | null {
    const key = this.keyOfScript(script);
    if (key) return { key };
    const level = this.watch.empty ? ISMINE_NO : this.mineLevel(script);
    if (level === ISMINE_NO) return null;
    const dest = scriptDestination(script);
    const idx = dest ? (dest.keyIdHex ?? `s${dest.address}`) : '';
    const account = dest ? (this.accountOfAddress(dest.address, dest.keyIdHex) ?? '') : '';
    return { owner: { address: dest?.address ?? null, idx, watch: level === ISMINE_WATCH_ONLY, account } };
  }

  private isMineCC(script: Uint8Array): boolean {
    const cc = parsePayToCryptoCondition(script);
    const fp = cc ? cond1FingerprintOf(cc.ccSubScript) : null;
    if (!fp) return false;
    const at = this.ccKeys.get(fpSlot(fp));
    if (at === undefined) return false;
    for (const k of Array.isArray(at) ? at : [at]) {
      if (cond1Fingerprints(fromHex(k.hex), CC_EVAL_CODES).some((f) => equalBytes(f, fp))) return true;
    }
    return false;
  }

  /** MarkDirty: every cached output set and debit is recomputed when next read. */
  markDirty(): void {
    this.version++;
    this.book.refreshTrusted((txid) => this.trustedOf(txid));
  }

  /**
   * Rebuilds the confirmed coins from the chain store's UTXO set (one pass in memory there), then
   * replays the mempool. Transactions that created found coins and are unknown to the wallet are
   * fetched and recorded, so history starts at least with what the wallet holds.
   */
  async rescan(): Promise<number> {
    const scan = await this.opts.chain.ask({ op: 'coinsByScript', scripts: this.allScripts(), ccSubScripts: this.allCCSubScripts() }, 10 * 60_000);
    this.book.clear();
    // The transactions in the mempool before: their account figures follow where the replay leaves them.
    const wasInMempool = [...this.memKeys.keys()];
    this.memKeys.clear();
    this.ccCoins.clear();
    this.book.tipHeight = scan.height;
    this.tipMtp = scan.mtp;
    const missing = new Set<string>();
    for (const { txid, n, coin } of scan.coins) {
      const wc: WalletCoin = { txid, n, value: coin.value, script: coin.script, height: coin.height, coinbase: coin.coinbase, lockTime: this.txs.get(txid)?.lockTime ?? 0 };
      const o = this.ownerOf(coin.script);
      if (o) this.book.setConfirmed(key(txid, n), wc, o.key, o.owner);
      else this.ccCoins.set(key(txid, n), wc);
      if (!this.txs.has(txid)) missing.add(txid);
    }
    for (const txid of missing) {
      const info = await this.opts.chain.ask({ op: 'tx', txid });
      if (!info) continue;
      await this.record(txid, info.tx, info.time);
      this.place(txid, info.height);
      for (const c of [...this.coins.values(), ...this.ccCoins.values()]) if (c.txid === txid) c.lockTime = info.tx.lockTime;
    }
    // Those recorded after their spenders: remember figured the spenders again.
    const entries = await this.opts.mempool.ask({ op: 'entries' });
    for (const e of entries) await this.txAccepted(e.txid, e.tx);
    for (const txid of wasInMempool) this.accounts.sync(txid);
    return this.coins.size;
  }

  /** Holds a transaction's record in memory (its wallet outputs computed now, its debit when read). */
  private remember(txid: string, tx: Transaction, time: number, seq: number, mapValue?: Record<string, string>, fromAccount?: string): WalletTx {
    const w: WalletTx = {
      txid,
      timeReceived: time,
      seq,
      ...(mapValue ? { mapValue } : {}),
      coinbase: tx.isCoinbase(),
      lockTime: tx.lockTime,
      height: 0,
      outsVer: -1,
      debitVer: -1,
      mineN: NONE_N,
      mineV: NONE_V,
      fromMe: false,
      debit: 0n,
      trusted: false,
      fromAccount: fromAccount ?? '',
      debited: 0n,
      paid: null,
      st: null,
    };
    this.txs.set(txid, w);
    this.ordered[seq] = w;
    this.byHeight.add(w);
    this.computeOuts(w, tx);
    this.addSpends(w, tx);
    this.indexPayers(w, tx);
    if (!w.coinbase) {
      for (const o of tx.vout) {
        const at = this.receivedKeyOf(o.script);
        if (at === null) continue;
        let list = this.receivedBy.get(at);
        if (!list) this.receivedBy.set(at, (list = []));
        list.push({ w, value: o.value });
      }
    }
    this.accounts.track(txid, tx);
    // Spenders recorded before it (a reorg's mempool re-entry of an erased transaction, a load or a
    // rescan in another order) read mapWallet afresh, as komodod's GetDebit does: they debit it now.
    for (let n = 0; n < tx.vout.length; n++) this.refigureSpenders(this.spendersOf(txid, n));
    return w;
  }

  /**
   * The transaction these spend entered or left the wallet: their IsFromMe, GetDebit and IsTrusted
   * are figured again, their mempool coins' trust with them, and the accounts' figures. Costs the
   * spenders, never the wallet.
   */
  private refigureSpenders(spenders: readonly WalletTx[]): void {
    for (const s of spenders) {
      if (!this.txs.has(s.txid)) continue;
      s.debitVer = -1;
      const mem = this.memKeys.get(s.txid);
      if (mem) {
        const trusted = this.debitOf(s).trusted;
        for (const k of mem.coins) this.book.setTrusted(k, s.txid, trusted);
      }
      this.retrack([s.txid]);
    }
  }

  private async record(txid: string, tx: Transaction, time = this.now()): Promise<void> {
    if (this.txs.has(txid)) return;
    const seq = this.nextSeq++;
    this.remember(txid, tx, time, seq);
    await this.txStore.update({ _id: txid }, { _id: txid, b64: Buffer.from(tx.toRaw()).toString('base64'), time, seq }, { upsert: true });
  }

  /**
   * EraseFromWallet for each transaction (cleanwallettransactions): its record, its place in every
   * index, and its outputs still in the book (komodod's balances read mapWallet, so an erased
   * transaction's outputs stop counting; a restart's rescan finds them again from the UTXO set).
   * Costs the erased transactions and the per-address lists they were in.
   */
  private async erase(txids: string[]): Promise<void> {
    const gone = new Set<WalletTx>();
    const addresses = new Set<string>();
    /** The wallet transactions spending an erased one's outputs: their debits no longer count it. */
    const spenders = new Set<WalletTx>();
    for (const txid of txids) {
      const w = this.txs.get(txid);
      if (!w) continue;
      const tx = this.parsed(txid);
      for (let n = 0; n < (tx?.vout.length ?? 0); n++) for (const s of this.spendersOf(txid, n)) spenders.add(s);
      this.outsOf(w);
      for (const n of [...w.mineN, ...(w.watchN ?? [])]) this.book.deleteConfirmed(key(txid, n));
      this.txRemoved(txid);
      for (const input of tx && !w.coinbase ? tx.vin : []) {
        const k = input.prevout.key();
        const at = this.txSpends.get(k);
        if (at === w) this.txSpends.delete(k);
        else if (Array.isArray(at)) {
          const rest = at.filter((x) => x !== w);
          if (rest.length === 1) this.txSpends.set(k, rest[0]!);
          else this.txSpends.set(k, rest);
        }
      }
      for (const o of tx && !w.coinbase ? tx.vout : []) {
        const id = p2pkhKeyId(o.script);
        if (id) addresses.add(toHex(id));
        else if (isP2SH(o.script)) addresses.add(`s${toHex(o.script.subarray(2, 22))}`);
      }
      if (tx) this.unindexPayers(w, tx);
      this.accounts.forget(w);
      this.txs.delete(txid);
      this.ordered[w.seq] = undefined;
      this.byHeight.remove(w);
      gone.add(w);
    }
    for (const idHex of addresses) {
      const rest = (this.receivedBy.get(idHex) ?? []).filter((r) => !gone.has(r.w));
      if (rest.length > 0) this.receivedBy.set(idHex, rest);
      else this.receivedBy.delete(idHex);
    }
    if (gone.size === 0) return;
    await this.txStore.remove({ _id: { $in: [...gone].map((w) => w.txid) } }, { multi: true });
    // Debits read the transactions that made the outputs spent: those erased no longer count.
    this.refigureSpenders([...spenders]);
  }

  /** Files a wallet transaction at the height of its active-chain block (0: in none). */
  private place(txid: string, height: number): void {
    const w = this.txs.get(txid);
    if (w) this.byHeight.place(w, height);
    this.accounts.sync(txid);
  }

  /**
   * The heights of the given wallet transactions in the chain store's tx index, asked in one message
   * (the load: the datastore keeps no heights, the chain is the one truth about them).
   */
  private async placeFromChain(txids: string[]): Promise<void> {
    if (txids.length === 0) return;
    const heights = await this.opts.chain.ask({ op: 'txHeights', txids }, 10 * 60_000);
    if (!Array.isArray(heights)) return;
    txids.forEach((txid, i) => this.place(txid, heights[i] ?? 0));
  }

  /**
   * listsinceblock's candidates: the transactions in blocks above `height` and those in no block,
   * in mapWallet's order (txid in internal byte order). The caller keeps those whose depth is under
   * its limit; the cost is the answer's, never the wallet's.
   */
  private sinceHeight(height: number, filter: IsMineFilter = ISMINE_SPENDABLE): TxDetail[] {
    const picked = [...this.byHeight.after(height), ...this.byHeight.unconfirmed];
    picked.sort((a, b) => compareTxids(a.txid, b.txid));
    return picked.map((w) => this.detail(w.txid, false, filter)!);
  }

  /** The stored transaction, parsed (for the few an answer or a recomputation needs). */
  parsed(txid: string): Transaction | null {
    const d = peekDoc(this.txStore, txid);
    return d ? Transaction.fromRaw(docBytes(d)) : null;
  }

  /** The wallet outputs of a transaction; paid keys are marked used (GetAccountAddress). */
  private computeOuts(w: WalletTx, tx: Transaction | null): void {
    w.outsVer = this.version;
    w.mineN = NONE_N;
    w.mineV = NONE_V;
    delete w.watchN;
    delete w.watchV;
    if (!tx) return;
    tx.vout.forEach((o, n) => {
      const k = this.keyOfScript(o.script);
      if (!k) {
        const level = this.watch.empty ? ISMINE_NO : this.mineLevel(o.script);
        if (level === ISMINE_SPENDABLE) {
          if (w.mineN === NONE_N) (w.mineN = []), (w.mineV = []);
          w.mineN.push(n);
          w.mineV.push(o.value);
        } else if (level === ISMINE_WATCH_ONLY) {
          (w.watchN ??= []).push(n);
          (w.watchV ??= []).push(o.value);
        }
        return;
      }
      if (w.mineN === NONE_N) (w.mineN = []), (w.mineV = []);
      w.mineN.push(n);
      w.mineV.push(o.value);
      // bKeyUsed compares the P2PKH script only.
      if (p2pkhKeyId(o.script)) this.keys.markUsed(k);
    });
  }

  private outsOf(w: WalletTx): WalletTx {
    if (w.outsVer !== this.version) this.computeOuts(w, this.parsed(w.txid));
    return w;
  }

  /** The value of a wallet output, or undefined when the outpoint is not one (by the recorded transaction that made it); `watch` asks for a watch-only one. */
  private ourOutput(txid: string, n: number, watch = false): bigint | undefined {
    const w = this.txs.get(txid);
    if (!w) return undefined;
    this.outsOf(w);
    if (watch) {
      const i = w.watchN ? w.watchN.indexOf(n) : -1;
      return i < 0 ? undefined : w.watchV![i];
    }
    const i = w.mineN.indexOf(n);
    return i < 0 ? undefined : w.mineV[i];
  }

  /** Whether an outpoint was a wallet output, spendable or watch-only (IsMine(txin) != ISMINE_NO). */
  isOurOutput(txid: string, n: number): boolean {
    return this.ourOutput(txid, n) !== undefined || this.ourOutput(txid, n, true) !== undefined;
  }

  /** IsFromMe and GetDebit of a recorded transaction, cached until the keys change. */
  private debitOf(w: WalletTx, tx?: Transaction | null): WalletTx {
    if (w.debitVer === this.version) return w;
    w.debitVer = this.version;
    w.fromMe = false;
    w.debit = 0n;
    w.trusted = false;
    delete w.watchDebit;
    if (w.coinbase) return w;
    const t = tx ?? this.parsed(w.txid);
    // CWalletTx::IsTrusted at depth 0: every input's parent is a wallet transaction and the output it
    // spends is ISMINE_SPENDABLE (one foreign or watch-only input and the whole transaction is not).
    w.trusted = (t?.vin.length ?? 0) > 0;
    for (const i of t?.vin ?? []) {
      const v = this.ourOutput(i.prevout.txid(), i.prevout.index);
      if (v === undefined) {
        w.trusted = false;
        const wv = this.watch.empty ? undefined : this.ourOutput(i.prevout.txid(), i.prevout.index, true);
        if (wv !== undefined) w.watchDebit = (w.watchDebit ?? 0n) + wv;
        continue;
      }
      w.fromMe = true;
      w.debit += v;
    }
    return w;
  }

  private fromMeOf(txid: string): boolean {
    const w = this.txs.get(txid);
    return w ? this.debitOf(w).fromMe : false;
  }

  private trustedOf(txid: string): boolean {
    const w = this.txs.get(txid);
    return w ? this.debitOf(w).trusted : false;
  }

  /** The transaction pays a wallet script or spends a wallet output. */
  private touches(tx: Transaction): boolean {
    if (tx.vout.some((o) => this.mineLevel(o.script) !== ISMINE_NO || this.isMineCC(o.script))) return true;
    if (tx.isCoinbase()) return false;
    return tx.vin.some((i) => this.isOurOutput(i.prevout.txid(), i.prevout.index));
  }

  // ---- requests ------------------------------------------------------------------------------

  /**
   * Every wallet request is serialised behind the notices already queued (a balance asked right
   * after `generate` or `sendrawtransaction` must include that block or transaction).
   */
  isWrite(_body: WalletRequest): boolean {
    return true;
  }

  /**
   * Applied at once when nothing is queued before them (ServiceLogic.writesNow): reads, the
   * mempool's removals, and accepted transactions none of which concerns the wallet (most of them,
   * on a busy node).
   */
  writesNow(body: WalletRequest): boolean {
    if (!WRITE_OPS.has(body.op) || body.op === 'txsRemoved') return true;
    return body.op === 'txsAccepted' && !body.items.some(({ tx }) => this.concerns(tx));
  }

  writeNow(body: WalletRequest): WriteOutcome<WalletNotice> {
    switch (body.op) {
      case 'txsAccepted':
        // writesNow found none that concerns the wallet: nothing to record.
        return { result: null };
      case 'resend':
        return this.resend();
      case 'txsRemoved':
        // Transactions that left the mempool (mined, conflicting, expired), in order.
        this.spendableCache = undefined;
        for (const txid of body.txids) this.txRemoved(txid);
        return { result: null };
      default:
        return { result: this.read(body) };
    }
  }

  read(body: WalletRequest): WalletReplies[keyof WalletReplies] {
    switch (body.op) {
      case 'coins':
        return this.coinViews();
      case 'ccCoins':
        return [...this.ccCoins.values()];
      case 'tip':
        return { height: this.tipHeight, mtp: this.tipMtp };
      case 'balance':
        return this.balance(body.minConf, body.account, body.untrusted === true, body.watchOnly === true);
      case 'unspent':
        return this.unspent(body.minDepth, body.maxDepth, body.addresses);
      case 'txDetail':
        return this.detail(body.txid, body.hex === true, filterOf(body.watchOnly));
      case 'listTxs':
        return this.listTxs(body.count, body.from, body.account, filterOf(body.watchOnly));
      case 'txDetails':
        return [...this.txs.values()].map((w) => this.detail(w.txid, false, filterOf(body.watchOnly))!);
      case 'sinceHeight':
        return this.sinceHeight(body.height, filterOf(body.watchOnly));
      case 'describe':
        return this.watchOps.describe(body.script, body.address);
      case 'conflicts':
        return this.conflicts(body.txid);
      case 'isMine':
        return this.isMine(body.script);
      case 'keyById':
        return this.keyInfo(body.keyId);
      case 'secret': {
        this.crypt.requireUnlocked();
        const k = this.keys.byKeyId(body.keyId);
        const secret = k && this.keys.secretOf(k);
        // A copy: the reply is read after this turn, when a relock may have wiped the wallet's own.
        return k && secret ? { secret: new Secret(new Uint8Array(secret)), compressed: k.compressed } : null;
      }
      case 'allKeys':
        this.crypt.requireUnlocked();
        // dumpwallet writes the keys GetKey can read (a box that does not open is left out, as komodod's loop).
        return this.keys.all().flatMap((k) => {
          const secret = this.keys.secretOf(k);
          return secret ? [{ secret: new Secret(new Uint8Array(secret)), compressed: k.compressed, pubkey: k.pubkey, time: k.time ?? 0, origin: k.origin ?? '', account: k.account }] : [];
        });
      case 'info':
        return { keys: this.keys.size, txCount: this.txs.size, externalPubkey: this.externalPubkey ?? null };
      case 'sign':
        this.crypt.requireUnlocked();
        return this.sign(body.variants, body.coins, body.hashType, body.branchId);
      case 'cryptState':
        return this.crypt.state();
      case 'lockedCoins':
        return this.lockedCoins();
      case 'receivedByKey':
        return this.receivedByKey(body.keyId, body.minConf);
      case 'receivedByScriptId':
        return this.receivedByScriptId(body.scriptId, body.minConf);
      case 'unconfirmedBalance':
        return this.book.totals().unconfirmed;
      case 'accountBalance':
        return this.accounts.balance(body.account, body.minConf, body.watchOnly ?? false);
      case 'balanceAll':
        return this.accounts.balanceAll(body.minConf, body.watchOnly ?? false);
      case 'listAccounts':
        return this.accounts.list(body.minConf, body.watchOnly);
      case 'listReceived':
        return this.accounts.received(body.minConf, body.includeEmpty, body.watchOnly, body.byAccount);
      case 'receivedByAccount':
        return this.accounts.receivedByAccount(body.account, body.minConf);
      case 'addressesByAccount':
        return this.accounts.addresses(body.account);
      case 'addressGroupings':
        return this.accounts.groupings((idHex) => this.addressBalance(idHex));
      case 'signCC': {
        // The key stays here: only the signed transaction leaves the wallet. No key for the -pubkey
        // answers null before the lock is looked at (the RPC's own error), as when the RPC layer signed.
        const k = this.keys.get(toHex(body.cc.assembled.mypk));
        if (!k) return null;
        this.crypt.requireUnlocked();
        const secret = this.keys.secretOf(k);
        return secret ? signCCTx(body.cc, secret) : null;
      }
      case 'signMessage': {
        // The key stays here: only the signature leaves the wallet.
        this.crypt.requireUnlocked();
        const k = this.keys.byIdHex(body.keyId);
        const secret = k && this.keys.secretOf(k);
        return k && secret ? signMessage(body.message, secret, k.compressed) : null;
      }
      default:
        throw noSuchOp('wallet', body);
    }
  }

  async write(body: WalletRequest): Promise<WriteOutcome<WalletNotice>> {
    // Anything that may change the coins drops the cached spendable list (fund only reads them).
    if (WRITE_OPS.has(body.op) && body.op !== 'fund' && body.op !== 'walletInfo') this.spendableCache = undefined;
    switch (body.op) {
      case 'blockConnected': {
        this.resendClock.bestReceived = this.now();
        // AddToWallet's -walletnotify moments: a wallet transaction mined (its block set) ...
        const touched = await this.blockConnected(body.block, body.txids, body.height);
        return { result: null, notices: touched.map((txid) => ({ type: 'walletTx', txid })) };
      }
      case 'blockDisconnected':
        // UpdateTip sets nTimeBestReceived on a disconnected block too.
        this.resendClock.bestReceived = this.now();
        // The block's wallet transactions leave the active chain (back to the mempool, or conflicted).
        for (const txid of body.txids) this.place(txid, 0);
        // The chain store answers with its state after the whole reorg; later notices re-apply idempotently.
        await this.rescan();
        return { result: null };
      case 'txsAccepted': {
        // ... and wallet transactions entering the mempool (a burst accepted together, in its order).
        const notices: WalletNotice[] = [];
        for (const { txid, tx } of body.items) {
          if (await this.txAccepted(txid, tx)) notices.push({ type: 'walletTx', txid });
        }
        return { result: null, notices };
      }
      case 'txsRemoved':
        return this.writeNow(body);
      case 'newAddress': {
        // A fresh key: no transaction seen so far can pay it, so nothing cached changes.
        const k = await this.keys.takePoolKey(body.account);
        return { result: encodeAddress(PUBKEY_ADDRESS, hash160(k.pubkey)) };
      }
      case 'accountAddress':
        return { result: await this.accountAddress(body.account) };
      case 'importKey':
        return { result: await this.crypt.whileUnlocked(() => this.importKeys([{ ...body, relabel: true }], body.rescan !== false)) };
      case 'importKeys':
        return { result: await this.crypt.whileUnlocked(() => this.importKeys(body.entries, body.rescan !== false)) };
      case 'fund':
        return { result: await this.fund(body.tx) };
      case 'send':
        return {
          result: await this.crypt.whileUnlocked(() => {
            if (body.checkBalance && body.recipients.reduce((s, r) => s + r.value, 0n) > this.balance(0, undefined, false)) throw new ServiceFailure(-6, 'Insufficient funds');
            return this.send(body.recipients, body.mapValue ?? {}, body.fromAccount ?? '');
          }),
        };
      case 'setAccount':
        return { result: await this.setAccount(body.keyId, body.account) };
      case 'move': {
        // Two order positions, as IncOrderPosNext twice (debit, then credit).
        const seq = this.nextSeq;
        this.nextSeq += 2;
        await this.accounts.move(seq, body.from, body.to, body.amount, this.now(), body.comment);
        return { result: true };
      }
      case 'rescan':
        return { result: await this.rescan() };
      case 'setPubkey':
        this.externalPubkey = body.pubkey;
        return { result: null };
      case 'backup':
        // komodod's wallet.dat holds keys, watch-only scripts and account entries alike; acnode keeps
        // them in three stores, so a backup is the destination file and two beside it, restored by name.
        await this.keys.persistTo(body.path);
        await this.watch.persistTo(`${body.path}.watchonly.db`);
        await this.accounts.persistTo(`${body.path}.walletacct.db`);
        return { result: null };
      case 'walletInfo':
        return { result: await this.walletInfo() };
      case 'lockCoins':
        if (!body.outpoints) {
          // lockunspent with the flag alone: true unlocks every coin, false does nothing.
          if (body.unlock) this.locked.clear();
        } else for (const o of body.outpoints) body.unlock ? this.locked.delete(key(o.txid, o.n)) : this.locked.add(key(o.txid, o.n));
        return { result: true };
      case 'setTxFee':
        this.payTxFee = body.perK;
        return { result: true };
      case 'keypoolRefill':
        this.crypt.requireUnlocked();
        await this.keys.topUp(body.size);
        return { result: (await this.keys.poolInfo()).size };
      case 'resendNow': {
        // The RPC relays at once, in or out of initial download, with no schedule (komodod's GetTime()).
        const items = this.resendBefore(this.now(), this.now());
        return { result: items.map((i) => i.txid), notices: items.length > 0 ? [{ type: 'relayTxs', items }] : [] };
      }
      case 'importAddress':
        return { result: await this.watchOps.importAddress(body.script, body.address, body.label, body.rescan) };
      case 'addMultisig':
        return { result: await this.watchOps.addMultisig(body.redeemScript, body.account) };
      case 'cleanTxs':
        return { result: await this.watchOps.clean(body.keep) };
      case 'rawChangeAddress': {
        // A fresh key: no transaction seen so far can pay it, so nothing cached changes.
        const k = await this.keys.takePoolKey();
        return { result: encodeAddress(PUBKEY_ADDRESS, hash160(k.pubkey)) };
      }
      case 'encryptWallet':
        await this.crypt.encrypt(body.passphrase);
        return { result: null };
      case 'walletPassphrase':
        await this.crypt.unlock(body.passphrase, body.timeout);
        return { result: null };
      case 'walletPassphraseChange':
        await this.crypt.change(body.oldPassphrase, body.newPassphrase);
        return { result: null };
      case 'walletLock':
        this.crypt.lock();
        return { result: null };
      default:
        if (WRITE_OPS.has(body.op)) throw noSuchOp('wallet', body);
        return this.writeNow(body);
    }
  }

  summary(): Record<string, unknown> {
    return {
      keys: this.keys.size,
      coins: this.coins.size,
      mempoolCoins: this.memCoins.size,
      txs: this.txs.size,
      height: this.tipHeight,
      receivedAddresses: this.receivedBy.size,
      ...(this.keys.crypted ? { locked: this.keys.locked } : {}),
    };
  }

  // ---- notices -------------------------------------------------------------------------------

  private async blockConnected(block: Block, txids: string[], height: number): Promise<string[]> {
    const touched: string[] = [];
    for (let i = 0; i < block.txs.length; i++) {
      const tx = block.txs[i]!;
      const txid = txids[i]!;
      this.txRemoved(txid);
      if (!this.touches(tx)) {
        // A wallet transaction recorded earlier is filed at its block even if nothing of it is the wallet's now.
        this.place(txid, height);
        continue;
      }
      touched.push(txid);
      await this.record(txid, tx);
      this.place(txid, height);
      if (!tx.isCoinbase()) for (const input of tx.vin) this.book.deleteConfirmed(input.prevout.key()), this.ccCoins.delete(input.prevout.key());
      tx.vout.forEach((out, n) => {
        const wc: WalletCoin = { txid, n, value: out.value, script: out.script, height, coinbase: tx.isCoinbase(), lockTime: tx.lockTime };
        const o = this.ownerOf(out.script);
        if (o) this.book.setConfirmed(key(txid, n), wc, o.key, o.owner);
        else if (this.isMineCC(out.script)) this.ccCoins.set(key(txid, n), wc);
      });
    }
    if (height >= this.tipHeight) {
      this.book.setTip(height);
      this.tipMtp = Math.max(this.tipMtp, block.header.time);
      this.initialDownload.tipTime(block.header.time, this.now());
    }
    // The median time past for new transactions' locktime is read fresh when building.
    return touched;
  }

  /** A mempool transaction the wallet records: it touches the wallet or spends a wallet output still in the mempool. */
  private concerns(tx: Transaction): boolean {
    return this.touches(tx) || tx.vin.some((i) => this.memCoins.has(i.prevout.key()));
  }

  private async txAccepted(txid: string, tx: Transaction): Promise<boolean> {
    if (!this.concerns(tx)) return false;
    await this.record(txid, tx);
    const trusted = this.debitOf(this.txs.get(txid)!, tx).trusted;
    const coins: string[] = [];
    const keys = { coins, spent: tx.vin.map((i) => i.prevout.key()) };
    for (const k of keys.spent) this.book.setSpent(k, txid);
    tx.vout.forEach((out, n) => {
      const o = this.ownerOf(out.script);
      if (!o) return;
      const k = key(txid, n);
      keys.coins.push(k);
      this.book.setMempool(k, { txid, n, value: out.value, script: out.script, height: 0, coinbase: false, lockTime: tx.lockTime }, o.key, trusted, o.owner);
    });
    this.memKeys.set(txid, keys);
    this.accounts.sync(txid);
    return true;
  }

  private txRemoved(txid: string): void {
    const keys = this.memKeys.get(txid);
    if (!keys) return;
    this.memKeys.delete(txid);
    this.accounts.sync(txid);
    for (const k of keys.coins) if (this.memCoins.get(k)?.txid === txid) this.book.deleteMempool(k);
    for (const k of keys.spent) if (this.memSpent.get(k) === txid) this.book.deleteSpent(k);
  }

  // ---- views ---------------------------------------------------------------------------------

  /** Debit of a transaction: it spends at least one wallet output (IsFromMe). */
  isFromMe(tx: Transaction): boolean {
    return !tx.isCoinbase() && tx.vin.some((i) => this.isOurOutput(i.prevout.txid(), i.prevout.index));
  }

  private keyInfo(keyId: Uint8Array): { pubkey: Uint8Array; compressed: boolean; account: string | undefined } | null {
    const k = this.keys.byKeyId(keyId);
    return k ? { pubkey: k.pubkey, compressed: k.compressed, account: k.account } : null;
  }

  private view(c: BookCoin): UnspentView {
    const { ord: _o, mem: _m, key: k, trusted: _t, counted: _c, owner, account: _a, ...coin } = c;
    if (k) return { ...coin, confirmations: this.book.confirmations(c), address: encodeAddress(PUBKEY_ADDRESS, fromHex(k.idHex)), account: k.account, spendable: true };
    // A keyless coin (watch-only, or a P2SH the wallet can spend): its destination, its address-book entry, its redeem script.
    const address = owner?.address ?? null;
    const out: UnspentView = { ...coin, confirmations: this.book.confirmations(c), address, account: address !== null ? this.watch.labelOf(address) : undefined, spendable: owner?.watch !== true };
    const redeem = owner?.idx.startsWith('s') ? this.watch.redeemScript(c.script.subarray(2, 22)) : undefined;
    if (redeem) out.redeemScript = redeem;
    return out;
  }

  /** Every unspent wallet output (confirmed, then mempool), not spent by a mempool transaction. */
  coinViews(): (UnspentView & { fromMe: boolean; mature: boolean })[] {
    return [...this.book.visible()].map((c) => ({ ...this.view(c), fromMe: c.height > 0 ? this.fromMeOf(c.txid) : c.trusted, mature: this.book.isMature(c) }));
  }

  /**
   * GetBalance (trusted, mature), or with `minConf` the coins that deep; `account` limits it to the
   * coins paying the account's addresses ("" holds the unlabelled ones), from the book's per-account
   * totals; `untrusted` counts unconfirmed coins from outside too (sendmany's funds check).
   */
  private balance(minConf: number, account: string | undefined, untrusted: boolean, watchOnly = false): bigint {
    if (account === undefined) return this.book.balance(minConf, !untrusted, watchOnly);
    return this.book.accountBalance(account, minConf, !untrusted, watchOnly);
  }

  private async walletInfo(): Promise<WalletInfo> {
    const pool = await this.keys.poolInfo();
    const { unconfirmed, immature } = this.book.totals();
    const crypt = this.crypt.state();
    return { balance: this.book.balance(0), unconfirmed, immature, txcount: this.txs.size, pool, payTxFee: this.payTxFee, ...(crypt.crypted ? { unlockedUntil: crypt.unlockedUntil } : {}) };
  }

  /**
   * listunspent: mature coins between the depths; with addresses (key ids), only theirs, through the
   * index by key, in the order the whole list gives them; without, those of the heights the depths
   * span, through the index by height (a narrow window costs its coins, not the wallet's).
   */
  private unspent(minDepth: number, maxDepth: number, addresses?: { idHex: string; p2sh?: string }[]): UnspentView[] {
    let coins: BookCoin[];
    if (addresses) {
      coins = addresses.flatMap((a) => this.book.visibleOfKey(a.p2sh ? `s${a.p2sh}` : a.idHex));
      coins.sort(CoinBook.order);
    } else coins = this.book.visibleInDepths(minDepth, maxDepth);
    const out: UnspentView[] = [];
    for (const c of coins) {
      // AvailableCoins(fOnlyConfirmed=false, fIncludeZeroValue=true): immature coinbases and locked coins left out.
      if (!this.book.isMature(c) || this.locked.has(key(c.txid, c.n))) continue;
      const conf = this.book.confirmations(c);
      if (conf < minDepth || conf > maxDepth) continue;
      out.push(this.view(c));
    }
    return out;
  }

  private readonly ledger: Ledger = {
    isMine: (script) => this.isMine(script),
    // The address book's name: the node's default key is listed under "" (so never change).
    accountOfKeyId: (idHex) => {
      const k = this.keys.byIdHex(idHex);
      return k ? this.accounts.bookName(k) : undefined;
    },
    mineLevel: (script) => this.mineLevel(script),
    accountOfAddress: (address, keyIdHex) => this.accountOfAddress(address, keyIdHex),
  };

  /**
   * gettransaction's view of one wallet transaction (with its hex when asked), or null; `filter`
   * is the isminefilter (ISMINE_SPENDABLE, with ISMINE_WATCH_ONLY for includeWatchonly).
   */
  private detail(txid: string, withHex: boolean, filter: IsMineFilter = ISMINE_SPENDABLE): TxDetail | null {
    const w = this.txs.get(txid);
    const d = w ? peekDoc(this.txStore, txid) : undefined;
    if (!w || !d) return null;
    const raw = docBytes(d);
    const tx = Transaction.fromRaw(raw);
    const meta = { txid, timeReceived: w.timeReceived, ...(w.mapValue ? { mapValue: w.mapValue } : {}), size: raw.length, conflicts: this.conflicts(txid, tx) };
    const debited = this.debitOf(w, tx);
    const watchDebit = debited.watchDebit ?? 0n;
    const out = txDetail(meta, tx, debited.debit + (filter & ISMINE_WATCH_ONLY ? watchDebit : 0n), this.ledger, filter, watchDebit > 0n);
    const from = this.accounts.fromAccount(txid);
    if (from !== '') out.fromAccount = from;
    if (withHex) out.hex = toHex(raw);
    return out;
  }

  /**
   * listtransactions: the newest transactions first (by the order the wallet learned them), walked
   * until their entries for `account` ("*": all) reach count + from. O(count + from) for "*" and for ""
   * (the positions that may hold an entry for it, newest first: Accounts.defaultPositions); for a
   * named account the walk visits only its own transactions (Accounts.ofAccount), so it costs the
   * account's history, not the wallet's.
   */
  private listTxs(count: number, from: number, account: string, filter: IsMineFilter = ISMINE_SPENDABLE): (TxDetail | MoveEntry)[] {
    const out: (TxDetail | MoveEntry)[] = [];
    let entries = 0;
    // One order position: a transaction, or an accounting entry (move), which share the positions (OrderedTxItems).
    const visit = (i: number) => {
      const w = this.ordered[i];
      const move = w ? undefined : this.accounts.moveAt(i);
      if (move && (account === '*' || move.account === account)) out.push(move), entries++;
      if (!w) return;
      const d = this.detail(w.txid, false, filter)!;
      out.push(d);
      if (account === '*') entries += d.received.length + (d.sent.length > 0 || d.fee !== 0n ? d.sent.length : 0);
      else entries += d.received.filter((e) => e.account === account).length + (d.sent.length > 0 || d.fee !== 0n ? d.sent.filter(() => account === (d.fromAccount ?? '')).length : 0);
    };
    if (account === '*') {
      for (let i = Math.max(this.ordered.length, this.nextSeq) - 1; i >= 0 && entries < count + from; i--) visit(i);
      return out;
    }
    if (account === '') {
      // Only the positions that may hold an entry for "" (the others add none), newest first.
      for (const i of this.accounts.defaultPositions()) {
        if (entries >= count + from) break;
        visit(i);
      }
      return out;
    }
    // A named account: only the positions that may hold its entries (the others add none), newest first.
    const { recs, moves } = this.accounts.ofAccount(account);
    const seqs = new Set<number>(moves);
    for (const r of recs) {
      const w = r as WalletTx;
      if (this.ordered[w.seq] === w) seqs.add(w.seq);
    }
    const order = [...seqs].sort((a, b) => b - a);
    for (let j = 0; j < order.length && entries < count + from; j++) visit(order[j]!);
    return out;
  }

  /**
   * The coins coin selection may use (AvailableCoins with fOnlyConfirmed: trusted, mature, value > 0),
   * kept until the next notice or key change, so repeated funding stays at the cost of selection.
   */
  spendable(): Spendable[] {
    if (this.spendableCache) return this.spendableCache;
    const sizes = new Map<string, number>();
    const sizeOf = (script: Uint8Array): number => {
      const h = toHex(script);
      let n = sizes.get(h);
      if (n === undefined) sizes.set(h, (n = this.sigSize(script)));
      return n;
    };
    // A coin paying a wallet key directly (keyOfScript found it): its size from the key, without
    // solving and hex-keying the script (sigSize's answer for these templates).
    const coinSize = (c: BookCoin): number => (c.key && isP2PKH(c.script) ? 74 + c.key.pubkey.length : c.key && p2pkKey(c.script) ? 73 : sizeOf(c.script));
    const out: Spendable[] = [];
    const anyLocked = this.locked.size > 0;
    for (const c of this.book.visible()) {
      // Watch-only coins are never selected (SelectCoinsMinConf skips !fSpendable).
      if (c.value <= 0n || c.owner?.watch || !this.book.isMature(c) || (anyLocked && this.locked.has(key(c.txid, c.n)))) continue;
      const depth = this.book.confirmations(c);
      // AvailableCoins(fOnlyConfirmed): an unconfirmed coin only when IsTrusted, which implies IsFromMe.
      const fromMe = depth > 0 ? this.fromMeOf(c.txid) : c.trusted;
      if (depth === 0 && !fromMe) continue;
      out.push({ txid: c.txid, n: c.n, value: c.value, script: c.script, depth, fromMe, sigSize: coinSize(c) });
    }
    this.spendableCache = out;
    return out;
  }

  private spendableCache: Spendable[] | undefined;

  /** DummySignatureCreator's scriptSig size: a 72-byte signature (+ the public key for P2PKH). */
  private sigSize(script: Uint8Array): number {
    const s = solver(script, { ccEnabled: false });
    if (s.type === 'pubkey') return 73;
    const redeem = s.type === 'scripthash' ? this.watch.redeemScript(s.solutions[0]!) : undefined;
    if (redeem) {
      // A P2SH multisig: OP_0, nRequired dummy signatures, then the pushed redeem script.
      const inner = solver(redeem, { ccEnabled: false });
      const sigs = inner.type === 'multisig' ? 1 + inner.solutions[0]![0]! * 73 : 73 + 1 + 33;
      return sigs + (redeem.length < 0x4c ? 1 : redeem.length <= 0xff ? 2 : 3) + redeem.length;
    }
    const k = s.type === 'pubkeyhash' ? this.keys.byKeyId(s.solutions[0]!) : undefined;
    return 73 + 1 + (k ? k.pubkey.length : 33);
  }

  /**
   * Where receivedBy files an output to `script` (see there): the key id of a P2PKH the wallet holds,
   * 's' + the script id of a P2SH it can spend; null for any other script (payersOf has it).
   */
  private receivedKeyOf(script: Uint8Array): string | null {
    const id = p2pkhKeyId(script);
    if (id) return this.keys.byKeyId(id) ? toHex(id) : null;
    if (!isP2SH(script) || this.watch.empty || this.mineLevel(script) !== ISMINE_SPENDABLE) return null;
    return `s${toHex(script.subarray(2, 22))}`;
  }

  /**
   * getreceivedbyaddress's tally for a P2PKH address (the key id, hex): see receivedByScript.
   */
  private receivedByKey(keyId: string, minConf: number): bigint | null {
    const script = p2pkhScript(fromHex(keyId));
    // IsMine at any level: a watched address's payments count too.
    if (!this.keys.byIdHex(keyId) && this.mineLevel(script) === ISMINE_NO) return null;
    return this.receivedByScript(script, keyId, minConf);
  }

  /**
   * The same for a P2SH address (the script id, hex): IsMine when the wallet can spend it (it holds
   * the redeem script and every key of a multisig one) or watches the P2SH script itself (importaddress
   * of the address); a multisig short of a key, or a redeem script watched bare, is not (wallet_ismine.cpp).
   */
  private receivedByScriptId(scriptId: string, minConf: number): bigint | null {
    const script = p2shScript(fromHex(scriptId));
    if (this.mineLevel(script) === ISMINE_NO) return null;
    return this.receivedByScript(script, `s${scriptId}`, minConf);
  }

  /**
   * getreceivedbyaddress's tally: the outputs to `script` in non-coinbase wallet transactions at least
   * `minConf` deep (GetDepthInMainChain: the block's depth, 0 in the mempool, -1 in neither), once the
   * caller found the script IsMine (komodod answers 0 otherwise, whatever the wallet recorded). The
   * outputs filed while the wallet could spend it (receivedBy, under `filedAt`), then those filed while
   * it could not (payersOf: a watched address, a key or redeem script added since), each output in
   * exactly one of the two. O(the address's outputs, and the transactions filed under its slot).
   * komodo_dpowconfs is the depth itself on a chain never notarised.
   */
  private receivedByScript(script: Uint8Array, filedAt: string, minConf: number): bigint {
    const depth = (w: WalletTx) => (w.height > 0 ? this.tipHeight - w.height + 1 : this.memKeys.has(w.txid) ? 0 : -1);
    let sum = 0n;
    const filed = this.receivedBy.get(filedAt) ?? [];
    for (const { w, value } of filed) if (depth(w) >= minConf) sum += value;
    const payers = this.payersAt(script);
    // A transaction filed above may sit under the slot too (another of its outputs sharing the slot).
    const counted = payers.length > 0 && filed.length > 0 ? new Set(filed.map((r) => r.w)) : undefined;
    for (const w of payers) {
      if (w.coinbase || depth(w) < minConf || counted?.has(w)) continue;
      for (const o of this.parsed(w.txid)?.vout ?? []) if (equalBytes(o.script, script)) sum += o.value;
    }
    return sum;
  }

  /** ListLockedCoins: std::set<COutPoint> order (the txid's internal bytes, then the index). O(locked). */
  private lockedCoins(): { txid: string; n: number }[] {
    const out = [...this.locked].map((k) => {
      const i = k.lastIndexOf(':');
      return { txid: k.slice(0, i), n: Number(k.slice(i + 1)) };
    });
    return out.sort((a, b) => compareTxids(a.txid, b.txid) || a.n - b.n);
  }

  /** GetAddressBalances for one key: its unspent outputs in trusted, mature wallet transactions. O(the key's coins). */
  private addressBalance(idHex: string): bigint {
    let sum = 0n;
    for (const c of this.book.visibleOfKey(idHex)) if (c.counted === 'mature' || c.counted === 'memTrusted') sum += c.value;
    return sum;
  }

  /**
   * setaccount: SetAddressBook(dest, account). When the address is listed and is its old account's
   * current address (GetAccountAddress), komodod first gives the old account a new one (bForceNew);
   * an old account with no unused key gets one too, as GetAccountAddress(old) makes it then.
   */
  private async setAccount(keyId: string, account: string): Promise<boolean> {
    const k = this.keys.byIdHex(keyId);
    if (!k) return false;
    const old = this.accounts.bookName(k);
    if (old !== undefined) {
      const current = this.keys.unusedAccountKey(old);
      if (!current || current === k) await this.keys.takePoolKey(old);
    }
    await this.keys.setAccount(k.hex, account);
    return true;
  }

  /** The wallet transactions spending an outpoint (mapTxSpends). */
  private spendersOf(txid: string, n: number): WalletTx[] {
    const at = this.txSpends.get(key(txid, n));
    return at === undefined ? [] : Array.isArray(at) ? at : [at];
  }

  /**
   * The recorded transactions whose figures a new key changes: those paying its P2PKH script (filed
   * in payersOf while the key was not the wallet's) and those spending such an output. O(the
   * transactions filed under the script's slot).
   */
  private paying(idHexes: string[]): Set<string> {
    const out = new Set<string>();
    for (const id of idHexes) {
      const script = p2pkhScript(fromHex(id));
      for (const w of this.payersAt(script)) {
        this.parsed(w.txid)?.vout.forEach((o, n) => {
          if (!equalBytes(o.script, script)) return;
          out.add(w.txid);
          for (const s of this.spendersOf(w.txid, n)) out.add(s.txid);
        });
      }
    }
    return out;
  }

  /** The accounts figure these transactions again (their wallet outputs or debits changed). */
  private retrack(txids: Iterable<string>): void {
    for (const txid of txids) {
      const tx = this.parsed(txid);
      if (tx) this.accounts.track(txid, tx);
    }
  }

  // ---- keys ----------------------------------------------------------------------------------

  private async accountAddress(account: string): Promise<string> {
    // GetAccountAddress: the account's current key while it is unused, else a new one.
    const k = this.keys.unusedAccountKey(account) ?? (await this.keys.takePoolKey(account));
    return encodeAddress(PUBKEY_ADDRESS, hash160(k.pubkey));
  }

  private async importKeys(entries: ImportEntry[], rescan: boolean): Promise<{ added: number }> {
    let added = 0;
    const newIds: string[] = [];
    const newKeys: Uint8Array[] = [];
    for (const e of entries) {
      const secret = e.secret.bytes;
      if (!isValidPrivateKey(secret)) continue;
      if (this.keys.has(secret)) {
        // importprivkey sets the label (SetAddressBook) even when the key is already there.
        if (e.label !== undefined && e.relabel) await this.keys.setAccount(toHex(publicKeyFromPrivate(secret, true)), e.label);
        continue;
      }
      const k = await this.keys.add(secret, 'imported', e.compressed, e.time ?? this.now(), e.label);
      newIds.push(toHex(hash160(k.pubkey)));
      newKeys.push(k.pubkey);
      added++;
    }
    // A key from outside may own outputs the wallet has seen: what was computed with the old keys is redone when read.
    if (added > 0) {
      this.markDirty();
      this.retrack(this.paying(newIds));
    }
    // Without a rescan, the wallet transactions already paying the key's scripts count their outputs now (a rescan rebuilds the coins).
    if (!rescan) for (const pub of newKeys) for (const script of [p2pkhScript(hash160(pub)), p2pkScript(pub)]) await this.refigurePaying(script);
    if (rescan && added > 0) await this.rescan();
    return { added };
  }

  /** The wallet's redeem scripts (CKeyStore::GetCScript), for signing P2SH inputs. */
  private redeemLookup = (scriptId: Uint8Array): Uint8Array | undefined => this.watch.redeemScript(scriptId);

  private signingKey = (keyId: Uint8Array): SigningKey | undefined => {
    const k = this.keys.byKeyId(keyId);
    const secret = k && this.keys.secretOf(k);
    return k && secret ? { key: secret, compressed: k.compressed, pubkey: k.pubkey } : undefined;
  };

  private sign(variants: Transaction[], coins: (PrevOut | null)[], hashType: number, branchId: number): { tx: Transaction; errors: InputError[] } {
    return signVariants(variants, coins, { keys: this.signingKey, scripts: this.redeemLookup, hashType, branchId, ccEnabled: this.opts.params().ccEnabled });
  }

  // ---- building ------------------------------------------------------------------------------

  /** The change script: P2PK of -pubkey (USE_EXTERNAL_PUBKEY), else the key pool's next key. */
  private async changeScript(keep: boolean): Promise<{ script: Uint8Array; key?: WalletKey }> {
    if (this.externalPubkey) return { script: p2pkScript(this.externalPubkey) };
    // A fresh pool key: no transaction seen so far can pay it, so nothing cached changes.
    const k = keep ? await this.keys.takePoolKey() : await this.keys.poolKey();
    return { script: p2pkhScript(hash160(k.pubkey)), key: k };
  }

  private async fund(orig: Transaction): Promise<{ tx: Transaction; fee: bigint; changePos: number }> {
    const coins = orig.vin.length > 0 ? [] : this.spendable();
    // SelectCoins takes a preset input's value from the wallet transaction that made it (mapWallet),
    // whoever it pays; an input from outside the wallet fails the call ("Insufficient funds").
    let preset: Spendable[] | null = [];
    for (const input of orig.vin) {
      const txid = input.prevout.txid();
      const out = this.txs.has(txid) ? this.parsed(txid)?.vout[input.prevout.index] : undefined;
      if (!out) {
        preset = null;
        break;
      }
      preset.push({ txid, n: input.prevout.index, value: out.value, script: out.script, depth: 1, fromMe: true, sigSize: this.sigSize(out.script) });
    }
    const params = this.opts.params();
    const { script } = await this.changeScript(false);
    try {
      return fundTransaction(orig, coins, preset, script, params.maxTxSize(this.tipHeight + 1), undefined, this.payTxFee);
    } catch (e) {
      if (e instanceof WalletBuildError) throw new ServiceFailure(-32603, e.message);
      throw e;
    }
  }

  /**
   * SendMoney: CreateTransaction (locktime = the tip's median time past, inputs at 0xfffffffe),
   * signed with SIGHASH_ALL, then CommitTransaction through the mempool. Errors as komodod's -4/-6.
   */
  private async send(recipients: Recipient[], mapValue: Record<string, string>, fromAccount = ''): Promise<string> {
    const tip = await this.opts.chain.ask({ op: 'tip' });
    const params = this.opts.params();
    const nextHeight = tip.height + 1;
    const base = new Transaction();
    const f = params.txFormat(nextHeight, this.opts.expiryDelta ?? 200);
    base.overwintered = f.overwintered;
    base.version = f.version;
    base.versionGroupId = f.versionGroupId;
    base.expiryHeight = f.expiryHeight;
    base.lockTime = tip.mtp;
    const coins = this.spendable();
    const change = await this.changeScript(true);
    let built;
    try {
      built = buildTransaction({ base, recipients, coins, preset: [], changeScript: change.script, maxTxSize: params.maxTxSize(nextHeight), payTxFee: this.payTxFee });
    } catch (e) {
      if (e instanceof WalletBuildError) {
        const total = recipients.reduce((s, r) => s + r.value, 0n);
        const balance = coins.reduce((s, c) => s + c.value, 0n);
        if (e.message === 'Insufficient funds' && total <= balance) {
          // komodod's SendMoney: the amount fits but the fee does not.
          throw new ServiceFailure(-4, `Error: This transaction requires a transaction fee of at least ${formatCoins(5000n)} because of its amount, complexity, or use of recently received funds!`);
        }
        throw new ServiceFailure(-4, e.message);
      }
      throw e;
    }
    const prev = built.inputs.map((c) => ({ script: c.script, value: c.value }));
    const signed = signVariants([built.tx], prev, { keys: this.signingKey, scripts: this.redeemLookup, hashType: 1, branchId: params.currentEpochBranchId(nextHeight), ccEnabled: params.ccEnabled });
    if (signed.errors.length > 0) throw new ServiceFailure(-4, 'Signing transaction failed');
    let txid: string;
    try {
      // One send is one transaction, alone: no turn to wait for company (sendrawtransaction's lone
      // call), and the built transaction, not its bytes parsed again.
      txid = await this.opts.mempool.ask({ op: 'accept', raw: signed.tx.toRaw(), tx: signed.tx, allowHighFees: false, gathered: true });
    } catch {
      throw new ServiceFailure(
        -4,
        'Error: The transaction was rejected! This might happen if some of the coins in your wallet were already spent, such as if you used a copy of wallet.dat and coins were spent in the copy but not marked as spent here.',
      );
    }
    // The mempool's txAccepted notice follows; applying it now keeps the next balance right.
    await this.txAccepted(txid, signed.tx);
    const w = this.txs.get(txid);
    if (w && Object.keys(mapValue).length > 0) {
      w.mapValue = mapValue;
      await this.txStore.update({ _id: txid }, { $set: { mapValue } });
    }
    if (w && fromAccount !== '') {
      this.accounts.setFromAccount(txid, fromAccount);
      await this.txStore.update({ _id: txid }, { $set: { fromAccount } });
    }
    return txid;
  }
}

/** isminefilter of a request: ISMINE_SPENDABLE, with ISMINE_WATCH_ONLY for includeWatchonly. */
const filterOf = (watchOnly: boolean | undefined): IsMineFilter => (watchOnly ? ISMINE_SPENDABLE | ISMINE_WATCH_ONLY : ISMINE_SPENDABLE);

function formatCoins(sats: bigint): string {
  const s = sats.toString().padStart(9, '0');
  return `${s.slice(0, -8)}.${s.slice(-8)}`;
}

export { toHexReversed };
