import { randomInt } from 'node:crypto';
import { Transaction } from '../../chain/tx/transaction.js';
import type { Block } from '../../chain/block/block.js';
import type { ChainParams } from '../../chain/params/chain-params.js';
import { fromHex, toHex, toHexReversed, concatBytes } from '../../chain/encoding/hex.js';
import { hash160 } from '../../chain/crypto/hash.js';
import { isValidPrivateKey, publicKeyFromPrivate } from '../../chain/crypto/secp256k1.js';
import { p2pkhScript, p2pkScript, pushData } from '../../chain/script/script.js';
import { extractDestinations, parsePayToCryptoCondition, solver } from '../../chain/script/standard.js';
import { conditionBinary } from '../../chain/cc/condition.js';
import { makeCCcond1 } from '../../chain/cc/builders.js';
import { MODULE_GLOBALS } from '../../chain/cc/globals.js';
import { encodeAddress, PUBKEY_ADDRESS, SCRIPT_ADDRESS } from '../../chain/address/address.js';
import { ServiceFailure, type Op } from '../protocol.js';
import type { Asker } from '../ask.js';
import type { Notice, ServiceLogic, WriteOutcome } from '../../machines/service.js';
import { openStore, type Store } from '../storage/datastore.js';
import type { KeyStore, WalletKey } from './keystore.js';
import { Secret } from './secret.js';
import { signVariants, type PrevOut, type InputError } from './sign.js';
import { buildTransaction, fundTransaction, WalletBuildError, type Recipient, type Spendable } from './select.js';
import { InitialDownload, KOMODOD_RESEND_TIMES, ResendClock, compareTxids, reacceptOrder, resendable, type ResendTimes } from './rebroadcast.js';

/** An output the wallet owns: confirmed (height > 0) or in the mempool (height 0). */
export interface WalletCoin {
  txid: string;
  n: number;
  value: bigint;
  script: Uint8Array;
  /** Block height, or 0 while the creating transaction is in the mempool. */
  height: number;
  coinbase: boolean;
  /** nLockTime of the creating transaction (listunspent prints `interest` when it is not 0). */
  lockTime: number;
}

/** A coin as the wallet's readers see it, with its depth at the current tip. */
export interface CoinView extends WalletCoin {
  confirmations: number;
  /** The creating transaction spends wallet coins (trusted while unconfirmed). */
  fromMe: boolean;
  /** Immature coinbase outputs are not spendable yet. */
  mature: boolean;
  address: string | null;
  account: string | undefined;
}

/** A transaction that pays or spends the wallet (mapWallet's CWalletTx). */
export interface WalletTx {
  txid: string;
  tx: Transaction;
  /** Unix time the wallet first saw it (nTimeReceived). */
  timeReceived: number;
  /** The order the wallet learned it (nOrderPos). */
  seq: number;
  /** sendtoaddress/sendmany comments (CWalletTx::mapValue: "comment", "to"), in key order. */
  mapValue?: Record<string, string>;
}

interface TxDoc {
  _id: string;
  raw: string;
  time: number;
  /** The order the wallet learned it (nOrderPos). */
  seq?: number;
  mapValue?: Record<string, string>;
}

interface ChainCoin {
  value: bigint;
  script: Uint8Array;
  height: number;
  coinbase: boolean;
  txVersion: number;
}

interface ScanResult {
  height: number;
  hash: string;
  mtp: number;
  coins: { txid: string; n: number; coin: ChainCoin; lockTime?: number }[];
}

export interface WalletOptions {
  chain: Asker;
  mempool: Asker;
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
]);

const key = (txid: string, n: number): string => `${txid}:${n}`;

/**
 * The wallet: keys (the KeyStore), the outputs they own (P2PKH and P2PK; CC outputs of the wallet's
 * pubkeys tracked apart, as komodod's IsMine does not count them), and the transactions that touch
 * them. Kept current by the chain store's and the mempool's notices; rebuilt from the chain store's
 * UTXO set on load, so a restart or a reorg never leaves a wrong balance.
 */
export class WalletLogic implements ServiceLogic {
  readonly name = 'wallet';
  /** Confirmed unspent wallet outputs. */
  readonly coins = new Map<string, WalletCoin>();
  /** Outputs created by wallet-relevant mempool transactions. */
  readonly memCoins = new Map<string, WalletCoin>();
  /** Outpoint → the mempool transaction spending it. */
  readonly memSpent = new Map<string, string>();
  /** Per wallet-relevant mempool transaction, its keys in memCoins and memSpent (its removal costs its size, not the mempool's). */
  private readonly memKeys = new Map<string, { coins: string[]; spent: string[] }>();
  /** CC outputs of the wallet's pubkeys (confirmed). */
  readonly ccCoins = new Map<string, WalletCoin>();
  readonly txs = new Map<string, WalletTx>();
  /** Outpoint → the wallet transactions spending it (mapTxSpends: two or more are in conflict). */
  private readonly txSpends = new Map<string, string[]>();
  private readonly resendClock: ResendClock;
  private readonly initialDownload = new InitialDownload();
  private scripts = new Set<string>();
  private ccSubs = new Set<string>();
  tipHeight = 0;
  tipMtp = 0;
  private txStore!: Store<TxDoc>;
  private nextSeq = 0;
  private readonly now: () => number;
  private readonly log: (msg: string) => void;
  externalPubkey: Uint8Array | undefined;

  constructor(private readonly opts: WalletOptions) {
    this.now = opts.now ?? (() => Math.floor(Date.now() / 1000));
    this.log = opts.log ?? (() => {});
    this.externalPubkey = opts.externalPubkey;
    this.resendClock = new ResendClock(opts.resendTimes ?? KOMODOD_RESEND_TIMES, opts.random ?? ((n) => randomInt(n)));
  }

  get keys(): KeyStore {
    return this.opts.keys;
  }

  // ---- loading -------------------------------------------------------------------------------

  async load(): Promise<void> {
    this.txStore = await openStore<TxDoc>(this.opts.dir, 'wallettx', { secret: true });
    const docs = (await this.txStore.find({})).sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
    for (const d of docs) {
      try {
        const tx = Transaction.fromRaw(fromHex(d.raw));
        this.txs.set(d._id, { txid: d._id, tx, timeReceived: d.time, seq: d.seq ?? 0, ...(d.mapValue ? { mapValue: d.mapValue } : {}) });
        this.addSpends(d._id, tx);
        this.nextSeq = Math.max(this.nextSeq, (d.seq ?? 0) + 1);
      } catch {
        this.log(`wallet: skipping an unreadable stored transaction ${d._id}`);
      }
    }
    this.refreshScripts();
    if (this.opts.rescanBlocks) {
      const found = await this.opts.chain.ask<{ txid: string; tx: Transaction; time: number }[]>({ op: 'txsByScript', scripts: [...this.scripts] }, 10 * 60_000);
      for (const f of found) await this.record(f.txid, f.tx, f.time);
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
    const tip = await this.opts.chain.ask<{ time: number }>({ op: 'tip' });
    this.initialDownload.tipTime(tip.time, this.now());
    // komodod: `if (IsInitialBlockDownload()) return;` — a node started on a stale tip leaves them out.
    if (this.initialDownload.active) return;
    const pending = [...this.txs.values()].filter((w) => !w.tx.isCoinbase() && !this.memKeys.has(w.txid));
    if (pending.length === 0) return;
    const inChain = await this.opts.chain.ask<boolean[]>({ op: 'inChain', txids: pending.map((w) => w.txid) }, 10 * 60_000);
    const candidates = reacceptOrder(pending.filter((_, i) => !inChain[i]));
    let accepted = 0;
    for (const w of candidates) {
      try {
        // fRejectAbsurdFee as komodod's call; not announced now: the rebroadcast does that.
        await this.opts.mempool.ask<string>({ op: 'accept', raw: w.tx.toRaw(), tx: w.tx, allowHighFees: false, relay: false });
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
   */
  private resend(): WriteOutcome {
    const now = this.now();
    // komodod signals it from SendMessages only outside initial block download: asked again a bit later.
    if (this.initialDownload.active) return { result: 5_000 };
    const before = this.resendClock.round(now);
    const next = Math.max(1, this.resendClock.dueIn(now)) * 1000;
    if (before === null) return { result: next };
    const inMempool: WalletTx[] = [];
    for (const txid of this.memKeys.keys()) {
      const w = this.txs.get(txid);
      if (w) inMempool.push(w);
    }
    const items = resendable(inMempool, before, now);
    if (items.length === 0) return { result: next };
    this.log(`ResendWalletTransactions: rebroadcast ${items.length} unconfirmed transactions`);
    return { result: next, notices: [{ type: 'relayTxs', items: items.map((w) => ({ txid: w.txid, raw: w.tx.toRaw() })) }] };
  }

  /** GetConflicts: the other wallet transactions spending an outpoint this one spends, in txid order. */
  conflicts(txid: string): string[] {
    const w = this.txs.get(txid);
    if (!w || w.tx.isCoinbase()) return [];
    const out = new Set<string>();
    for (const input of w.tx.vin) {
      const spenders = this.txSpends.get(input.prevout.key());
      if (spenders && spenders.length > 1) for (const t of spenders) out.add(t);
    }
    out.delete(txid);
    return [...out].sort(compareTxids);
  }

  private addSpends(txid: string, tx: Transaction): void {
    if (tx.isCoinbase()) return;
    for (const input of tx.vin) {
      const k = input.prevout.key();
      const spenders = this.txSpends.get(k);
      if (!spenders) this.txSpends.set(k, [txid]);
      else if (!spenders.includes(txid)) spenders.push(txid);
    }
  }

  async close(): Promise<void> {}

  /** The scripts the wallet's keys own: P2PKH and P2PK of each key, and CC 1-of-1 conditions. */
  private refreshScripts(): void {
    this.scripts = new Set();
    this.ccSubs = new Set();
    for (const k of this.keys.all()) {
      this.scripts.add(toHex(p2pkhScript(hash160(k.pubkey))));
      this.scripts.add(toHex(p2pkScript(k.pubkey)));
      const compressed = publicKeyFromPrivate(k.secret, true);
      for (const g of MODULE_GLOBALS) {
        this.ccSubs.add(toHex(concatBytes(pushData(conditionBinary(makeCCcond1(g.evalCode, compressed))), Uint8Array.of(0xcc))));
      }
    }
  }

  isMine(script: Uint8Array): boolean {
    return this.scripts.has(toHex(script));
  }

  private isMineCC(script: Uint8Array): boolean {
    const cc = parsePayToCryptoCondition(script);
    return !!cc && this.ccSubs.has(toHex(cc.ccSubScript));
  }

  /**
   * Rebuilds the confirmed coins from the chain store's UTXO set (one pass in memory there), then
   * replays the mempool. Transactions that created found coins and are unknown to the wallet are
   * fetched and recorded, so history starts at least with what the wallet holds.
   */
  async rescan(): Promise<number> {
    const scan = await this.opts.chain.ask<ScanResult>({ op: 'coinsByScript', scripts: [...this.scripts], ccSubScripts: [...this.ccSubs] }, 10 * 60_000);
    this.coins.clear();
    this.ccCoins.clear();
    this.tipHeight = scan.height;
    this.tipMtp = scan.mtp;
    const missing = new Set<string>();
    for (const { txid, n, coin } of scan.coins) {
      const wc: WalletCoin = { txid, n, value: coin.value, script: coin.script, height: coin.height, coinbase: coin.coinbase, lockTime: this.txs.get(txid)?.tx.lockTime ?? 0 };
      if (this.isMine(coin.script)) this.coins.set(key(txid, n), wc);
      else this.ccCoins.set(key(txid, n), wc);
      if (!this.txs.has(txid)) missing.add(txid);
    }
    for (const txid of missing) {
      const info = await this.opts.chain.ask<{ tx: Transaction; time: number } | null>({ op: 'tx', txid });
      if (!info) continue;
      await this.record(txid, info.tx, info.time);
      for (const c of [...this.coins.values(), ...this.ccCoins.values()]) if (c.txid === txid) c.lockTime = info.tx.lockTime;
    }
    this.memCoins.clear();
    this.memSpent.clear();
    this.memKeys.clear();
    const entries = await this.opts.mempool.ask<{ txid: string; tx: Transaction }[]>({ op: 'entries' });
    for (const e of entries) await this.txAccepted(e.txid, e.tx);
    return this.coins.size;
  }

  private async record(txid: string, tx: Transaction, time = this.now()): Promise<void> {
    if (this.txs.has(txid)) return;
    const seq = this.nextSeq++;
    this.txs.set(txid, { txid, tx, timeReceived: time, seq });
    this.addSpends(txid, tx);
    await this.txStore.update({ _id: txid }, { _id: txid, raw: toHex(tx.toRaw()), time, seq }, { upsert: true });
  }

  /** The transaction pays a wallet script or spends a wallet output. */
  private touches(tx: Transaction): boolean {
    if (tx.vout.some((o) => this.isMine(o.script) || this.isMineCC(o.script))) return true;
    if (tx.isCoinbase()) return false;
    return tx.vin.some((i) => this.isOurOutput(i.prevout.txid(), i.prevout.index));
  }

  /** Whether an outpoint was a wallet output (by the recorded transaction that made it). */
  isOurOutput(txid: string, n: number): boolean {
    const out = this.txs.get(txid)?.tx.vout[n];
    return !!out && this.isMine(out.script);
  }

  // ---- requests ------------------------------------------------------------------------------

  /**
   * Every wallet request is serialised behind the notices already queued (a balance asked right
   * after `generate` or `sendrawtransaction` must include that block or transaction).
   */
  isWrite(_body: Op): boolean {
    return true;
  }

  /**
   * Applied at once when nothing is queued before them (ServiceLogic.writesNow): reads, the
   * mempool's removals, and accepted transactions none of which concerns the wallet (most of them,
   * on a busy node).
   */
  writesNow(body: Op): boolean {
    if (!WRITE_OPS.has(body.op) || body.op === 'txsRemoved') return true;
    return body.op === 'txsAccepted' && !(body.items as { tx: Transaction }[]).some(({ tx }) => this.concerns(tx));
  }

  writeNow(body: Op): WriteOutcome {
    switch (body.op) {
      case 'txsAccepted':
        // writesNow found none that concerns the wallet: nothing to record.
        return { result: null };
      case 'resend':
        return this.resend();
      case 'txsRemoved':
        // Transactions that left the mempool (mined, conflicting, expired), in order.
        this.spendableCache = undefined;
        for (const txid of body.txids as string[]) this.txRemoved(txid);
        return { result: null };
      default:
        return { result: this.read(body) };
    }
  }

  read(body: Op): unknown {
    switch (body.op) {
      case 'coins':
        return this.coinViews();
      case 'ccCoins':
        return [...this.ccCoins.values()];
      case 'tip':
        return { height: this.tipHeight, mtp: this.tipMtp };
      case 'tx':
        return this.txs.get(body.txid as string) ?? null;
      case 'conflicts':
        return this.conflicts(body.txid as string);
      case 'txs':
        return [...this.txs.values()];
      case 'isMine':
        return this.isMine(body.script as Uint8Array);
      case 'keyById':
        return this.keyInfo(body.keyId as Uint8Array);
      case 'secret': {
        const k = this.keys.byKeyId(body.keyId as Uint8Array);
        return k ? { secret: new Secret(k.secret), compressed: k.compressed } : null;
      }
      case 'allKeys':
        return this.keys.all().map((k) => ({ secret: new Secret(k.secret), compressed: k.compressed, pubkey: k.pubkey, time: k.time ?? 0, origin: k.origin ?? '', account: k.account }));
      case 'info':
        return { keys: this.keys.size, pool: this.keys.poolInfo(), txCount: this.txs.size, externalPubkey: this.externalPubkey ?? null };
      case 'sign':
        return this.sign(body.variants as Transaction[], body.coins as (PrevOut | null)[], body.hashType as number, body.branchId as number);
      default:
        throw new ServiceFailure(-32601, `wallet has no operation ${body.op}`);
    }
  }

  async write(body: Op): Promise<WriteOutcome> {
    // Anything that may change the coins drops the cached spendable list (fund only reads them).
    if (WRITE_OPS.has(body.op) && body.op !== 'fund') this.spendableCache = undefined;
    switch (body.op) {
      case 'blockConnected': {
        this.resendClock.bestReceived = this.now();
        // AddToWallet's -walletnotify moments: a wallet transaction mined (its block set) ...
        const touched = await this.blockConnected(body.block as Block, body.txids as string[], body.height as number);
        return { result: null, notices: touched.map((txid) => ({ type: 'walletTx', txid })) };
      }
      case 'blockDisconnected':
        // UpdateTip sets nTimeBestReceived on a disconnected block too.
        this.resendClock.bestReceived = this.now();
        // The chain store answers with its state after the whole reorg; later notices re-apply idempotently.
        await this.rescan();
        return { result: null };
      case 'txsAccepted': {
        // ... and wallet transactions entering the mempool (a burst accepted together, in its order).
        const notices: Notice[] = [];
        for (const { txid, tx } of body.items as { txid: string; tx: Transaction }[]) {
          if (await this.txAccepted(txid, tx)) notices.push({ type: 'walletTx', txid });
        }
        return { result: null, notices };
      }
      case 'txsRemoved':
        return this.writeNow(body);
      case 'newAddress': {
        const k = await this.keys.takePoolKey(body.account as string);
        this.refreshScripts();
        return { result: encodeAddress(PUBKEY_ADDRESS, hash160(k.pubkey)) };
      }
      case 'accountAddress':
        return { result: await this.accountAddress(body.account as string) };
      case 'importKey':
        return { result: await this.importKeys([{ ...(body as unknown as ImportEntry), relabel: true }], body.rescan !== false) };
      case 'importKeys':
        return { result: await this.importKeys(body.entries as ImportEntry[], body.rescan !== false) };
      case 'fund':
        return { result: await this.fund(body.tx as Transaction) };
      case 'send':
        return { result: await this.send(body.recipients as Recipient[], (body.mapValue as Record<string, string> | undefined) ?? {}) };
      case 'rescan':
        return { result: await this.rescan() };
      case 'setPubkey':
        this.externalPubkey = body.pubkey as Uint8Array;
        return { result: null };
      case 'backup':
        await this.keys.persistTo(body.path as string);
        return { result: null };
      default:
        if (WRITE_OPS.has(body.op)) throw new ServiceFailure(-32601, `wallet has no operation ${body.op}`);
        return this.writeNow(body);
    }
  }

  summary(): Record<string, unknown> {
    return { keys: this.keys.size, coins: this.coins.size, mempoolCoins: this.memCoins.size, txs: this.txs.size, height: this.tipHeight };
  }

  // ---- notices -------------------------------------------------------------------------------

  private async blockConnected(block: Block, txids: string[], height: number): Promise<string[]> {
    const touched: string[] = [];
    for (let i = 0; i < block.txs.length; i++) {
      const tx = block.txs[i]!;
      const txid = txids[i]!;
      this.txRemoved(txid);
      if (!this.touches(tx)) continue;
      touched.push(txid);
      await this.record(txid, tx);
      if (!tx.isCoinbase()) for (const input of tx.vin) this.coins.delete(input.prevout.key()), this.ccCoins.delete(input.prevout.key());
      tx.vout.forEach((out, n) => {
        const wc: WalletCoin = { txid, n, value: out.value, script: out.script, height, coinbase: tx.isCoinbase(), lockTime: tx.lockTime };
        if (this.isMine(out.script)) this.coins.set(key(txid, n), wc);
        else if (this.isMineCC(out.script)) this.ccCoins.set(key(txid, n), wc);
      });
    }
    if (height >= this.tipHeight) {
      this.tipHeight = height;
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
    const keys = { coins: [] as string[], spent: tx.vin.map((i) => i.prevout.key()) };
    for (const k of keys.spent) this.memSpent.set(k, txid);
    tx.vout.forEach((out, n) => {
      if (!this.isMine(out.script)) return;
      const k = key(txid, n);
      keys.coins.push(k);
      this.memCoins.set(k, { txid, n, value: out.value, script: out.script, height: 0, coinbase: false, lockTime: tx.lockTime });
    });
    this.memKeys.set(txid, keys);
    return true;
  }

  private txRemoved(txid: string): void {
    const keys = this.memKeys.get(txid);
    if (!keys) return;
    this.memKeys.delete(txid);
    for (const k of keys.coins) if (this.memCoins.get(k)?.txid === txid) this.memCoins.delete(k);
    for (const k of keys.spent) if (this.memSpent.get(k) === txid) this.memSpent.delete(k);
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

  /** Every unspent wallet output (confirmed, then mempool), not spent by a mempool transaction. */
  coinViews(withAddress = true): CoinView[] {
    const maturity = this.opts.params().coinbaseMaturity;
    const fromMe = new Map<string, boolean>();
    const isFromMe = (txid: string): boolean => {
      let v = fromMe.get(txid);
      if (v === undefined) {
        const tx = this.txs.get(txid)?.tx;
        v = tx ? this.isFromMe(tx) : false;
        fromMe.set(txid, v);
      }
      return v;
    };
    const out: CoinView[] = [];
    const view = (c: WalletCoin): CoinView => {
      const confirmations = c.height > 0 ? this.tipHeight - c.height + 1 : 0;
      let address: string | null = null;
      let account: string | undefined;
      if (withAddress) {
        const dest = extractDestinations(c.script, { ccEnabled: false });
        const h = dest?.destinations[0];
        address = h ? encodeAddress(h.kind === 'key' ? PUBKEY_ADDRESS : SCRIPT_ADDRESS, h.hash) : null;
        if (h?.kind === 'key') account = this.keys.byKeyId(h.hash)?.account;
      }
      return { ...c, confirmations, fromMe: isFromMe(c.txid), mature: !c.coinbase || confirmations >= maturity, address, account };
    };
    for (const [k, c] of this.coins) if (!this.memSpent.has(k)) out.push(view(c));
    for (const [k, c] of this.memCoins) if (!this.memSpent.has(k) && !this.coins.has(k)) out.push(view(c));
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
    this.spendableCache = this.coinViews(false)
      .filter((c) => c.mature && c.value > 0n && (c.confirmations > 0 || c.fromMe))
      .map((c) => ({ txid: c.txid, n: c.n, value: c.value, script: c.script, depth: c.confirmations, fromMe: c.fromMe, sigSize: sizeOf(c.script) }));
    return this.spendableCache;
  }

  private spendableCache: Spendable[] | undefined;

  /** DummySignatureCreator's scriptSig size: a 72-byte signature (+ the public key for P2PKH). */
  private sigSize(script: Uint8Array): number {
    const s = solver(script, { ccEnabled: false });
    if (s.type === 'pubkey') return 73;
    const k = s.type === 'pubkeyhash' ? this.keys.byKeyId(s.solutions[0]!) : undefined;
    return 73 + 1 + (k ? k.pubkey.length : 33);
  }

  // ---- keys ----------------------------------------------------------------------------------

  private async accountAddress(account: string): Promise<string> {
    // GetAccountAddress: the account's current key while it is unused, else a new one.
    for (const k of this.keys.all()) {
      if (k.account !== account) continue;
      const script = toHex(p2pkhScript(hash160(k.pubkey)));
      const used = [...this.txs.values()].some((w) => w.tx.vout.some((o) => toHex(o.script) === script));
      if (!used) return encodeAddress(PUBKEY_ADDRESS, hash160(k.pubkey));
    }
    const k = await this.keys.takePoolKey(account);
    this.refreshScripts();
    return encodeAddress(PUBKEY_ADDRESS, hash160(k.pubkey));
  }

  private async importKeys(entries: ImportEntry[], rescan: boolean): Promise<{ added: number }> {
    let added = 0;
    for (const e of entries) {
      const secret = e.secret.bytes;
      if (!isValidPrivateKey(secret)) continue;
      if (this.keys.has(secret)) {
        // importprivkey sets the label (SetAddressBook) even when the key is already there.
        if (e.label !== undefined && e.relabel) await this.keys.setAccount(toHex(publicKeyFromPrivate(secret, true)), e.label);
        continue;
      }
      await this.keys.add(secret, 'imported', e.compressed, e.time ?? this.now(), e.label);
      added++;
    }
    this.refreshScripts();
    if (rescan && added > 0) await this.rescan();
    return { added };
  }

  private signingKey = (keyId: Uint8Array): { key: Uint8Array; compressed: boolean } | undefined => {
    const k = this.keys.byKeyId(keyId);
    return k ? { key: k.secret, compressed: k.compressed } : undefined;
  };

  private sign(variants: Transaction[], coins: (PrevOut | null)[], hashType: number, branchId: number): { tx: Transaction; errors: InputError[] } {
    return signVariants(variants, coins, { keys: this.signingKey, hashType, branchId, ccEnabled: this.opts.params().ccEnabled });
  }

  // ---- building ------------------------------------------------------------------------------

  /** The change script: P2PK of -pubkey (USE_EXTERNAL_PUBKEY), else the key pool's next key. */
  private async changeScript(keep: boolean): Promise<{ script: Uint8Array; key?: WalletKey }> {
    if (this.externalPubkey) return { script: p2pkScript(this.externalPubkey) };
    const k = keep ? await this.keys.takePoolKey() : await this.keys.poolKey();
    this.refreshScripts();
    return { script: p2pkhScript(hash160(k.pubkey)), key: k };
  }

  private async fund(orig: Transaction): Promise<{ tx: Transaction; fee: bigint; changePos: number }> {
    const coins = orig.vin.length > 0 ? [] : this.spendable();
    // SelectCoins takes a preset input's value from the wallet transaction that made it (mapWallet),
    // whoever it pays; an input from outside the wallet fails the call ("Insufficient funds").
    let preset: Spendable[] | null = [];
    for (const input of orig.vin) {
      const txid = input.prevout.txid();
      const out = this.txs.get(txid)?.tx.vout[input.prevout.index];
      if (!out) {
        preset = null;
        break;
      }
      preset.push({ txid, n: input.prevout.index, value: out.value, script: out.script, depth: 1, fromMe: true, sigSize: this.sigSize(out.script) });
    }
    const params = this.opts.params();
    const { script } = await this.changeScript(false);
    try {
      return fundTransaction(orig, coins, preset, script, params.maxTxSize(this.tipHeight + 1));
    } catch (e) {
      if (e instanceof WalletBuildError) throw new ServiceFailure(-32603, e.message);
      throw e;
    }
  }

  /**
   * SendMoney: CreateTransaction (locktime = the tip's median time past, inputs at 0xfffffffe),
   * signed with SIGHASH_ALL, then CommitTransaction through the mempool. Errors as komodod's -4/-6.
   */
  private async send(recipients: Recipient[], mapValue: Record<string, string>): Promise<string> {
    const tip = await this.opts.chain.ask<{ height: number; mtp: number }>({ op: 'tip' });
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
      built = buildTransaction({ base, recipients, coins, preset: [], changeScript: change.script, maxTxSize: params.maxTxSize(nextHeight) });
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
    const signed = signVariants([built.tx], prev, { keys: this.signingKey, hashType: 1, branchId: params.currentEpochBranchId(nextHeight), ccEnabled: params.ccEnabled });
    if (signed.errors.length > 0) throw new ServiceFailure(-4, 'Signing transaction failed');
    let txid: string;
    try {
      txid = await this.opts.mempool.ask<string>({ op: 'accept', raw: signed.tx.toRaw(), allowHighFees: false });
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
    return txid;
  }
}

export interface ImportEntry {
  secret: Secret;
  compressed: boolean;
  label?: string;
  /** importprivkey: set the label on a key already held (importwallet skips such keys). */
  relabel?: boolean;
  time?: number;
}

function formatCoins(sats: bigint): string {
  const s = sats.toString().padStart(9, '0');
  return `${s.slice(0, -8)}.${s.slice(-8)}`;
}

export { toHexReversed };
