import { fromHexReversed, toHexReversed } from '../../chain/encoding/hex.js';
import { Transaction } from '../../chain/tx/transaction.js';
import { InvMessage, MAX_INV_SZ, MSG_TX, type InvItem } from '../../chain/p2p/messages.js';
import { REJECT_INVALID } from '../../chain/validation/errors.js';
import { ValidationError, checkTransaction, contextualCheckTransaction, validationContext } from '../../chain/validation/index.js';
import { ServiceFailure } from '../protocol.js';
import { AlreadyAsked, MAPASKFOR_MAX_SZ, SETASKFOR_MAX_SZ } from './askfor.js';
import { RelayCache } from './relay-cache.js';
import type { Bans } from './bans.js';
import { P2PPart, hashKey, type P2PCore } from './context.js';
import type { Peer } from './peer.js';
import type { BlockSync } from './sync.js';

export const DEFAULT_MAX_ORPHAN_TRANSACTIONS = 100;
/** Relayed transactions of one peer waiting for the mempool's answer at once (a burst's size). */
const MAX_TX_INFLIGHT = 64;
const MAX_RELAY_CACHE = 20_000;
/** Inventory entries looked up together: one ask of the chain store and the mempool per slice. */
export const INV_SLICE = 1000;
/** Transactions per getdata when the ask queue is sent (main.cpp:8620). */
const GETDATA_BATCH = 1000;
/** AskFor: a hash asked of one peer is asked of the next one this much later (µs). */
const ASK_RETRY_US = 2 * 60 * 1_000_000;

/** DoS scores of komodod's input-level rejections (CheckTxInputs, AcceptToMemoryPool, main.cpp). */
const INPUT_DOS: ReadonlyMap<string, number> = new Map([
  ['coinbase', 100],
  ['bad-txns-in-belowout', 100],
  ['bad-txns-fee-negative', 100],
  ['bad-txns-fee-outofrange', 100],
  ['bad-txns-inputvalues-outofrange', 100],
  ['bad-txns-premature-spend-of-coinbase', 0],
  ['bad-txns-too-many-sigops', 1],
  ['bad-txns-inputs-spent', 0],
  ['mempool conflict', 0],
]);

interface OrphanTx {
  tx: Transaction;
  raw: Uint8Array;
  txid: string;
  fromPeer: number;
  prevs: string[];
}

/**
 * Transaction relay: announcing accepted transactions (and keeping them for getdata), asking peers
 * for the transactions they announce (komodod's AskFor), handing received ones to the mempool, and
 * the orphans and recent rejects that spare the mempool a second look.
 */
export class TxRelay extends P2PPart {
  readonly orphanTxs = new Map<string, OrphanTx>();
  private readonly recentRejects = new Set<string>();
  /** hashRecentRejectsChainTip: the tip recentRejects was last reset at. */
  private rejectsTip = '';
  /** mapAlreadyAskedFor: when each transaction was last asked of some peer (µs). */
  readonly alreadyAsked = new AlreadyAsked(MAX_INV_SZ);
  /** AskFor's static nLastTime: request times are never reused, so requests keep their order. */
  private askLastTime = 0;
  /** mapRelay (net.cpp RelayTransaction): each relayed tx for 15 minutes from its first relay, for getdata (relay-cache.ts). */
  readonly relayCache = new RelayCache(MAX_RELAY_CACHE);

  constructor(
    core: P2PCore,
    private readonly bans: Bans,
    private readonly sync: BlockSync,
  ) {
    super(core);
  }

  /**
   * AlreadyHave for MSG_TX entries (main.cpp:7038-7066): recently rejected (at this tip), an orphan,
   * in the mempool, or with an unspent output in the chain (HaveCoins): one ask of the mempool, then
   * one of the chain store for those still unknown. Not mapRelay: komodod's AlreadyHave never reads
   * it, so a relayed transaction that left the mempool unmined is asked for again.
   */
  async haveTxs(hexes: readonly string[]): Promise<boolean[]> {
    const out = hexes.map((h) => this.rejected(h) || this.orphanTxs.has(h));
    await this.fillUnknown(out, hexes, (txids) => this.opts.mempool.ask({ op: 'hasMany', txids }));
    await this.fillUnknown(out, hexes, (txids) => this.opts.chain.ask({ op: 'haveCoins', txids }));
    return out;
  }

  /** Asks `have` about the entries of `out` still false, and fills them in. */
  private async fillUnknown(out: boolean[], hexes: readonly string[], have: (txids: string[]) => Promise<boolean[]>): Promise<void> {
    const ask = hexes.filter((_, i) => !out[i]);
    if (ask.length === 0) return;
    const answers = await have(ask);
    let k = 0;
    for (let i = 0; i < out.length; i++) if (!out[i]) out[i] = answers[k++] === true;
  }

  /** recentRejects->contains, after AlreadyHave's reset: a new tip gives every rejected transaction a second chance. */
  private rejected(txid: string): boolean {
    if (this.rejectsTip !== this.sync.tip.hash) {
      this.rejectsTip = this.sync.tip.hash;
      this.recentRejects.clear();
    }
    return this.recentRejects.has(txid);
  }

  /** A transaction relayed in the last 15 minutes (mapRelay), for getdata. */
  relayed(txid: string): Uint8Array | undefined {
    return this.relayCache.get(txid);
  }

  // ---- asking for announced transactions ------------------------------------------------------

  /**
   * CNode::AskFor (net.cpp:2165-2197): queues a request for a transaction unless the peer's queues
   * are full (then the announcement is dropped) or it was asked of this peer already. A transaction
   * asked of another peer in the last two minutes is asked of this one when those two minutes end.
   */
  askFor(p: Peer, hash: Uint8Array, nowUs: number): void {
    // komodod's checks are `size() > max`: each set takes one entry past its limit.
    if (p.askQueue.size > MAPASKFOR_MAX_SZ || p.askFor.size > SETASKFOR_MAX_SZ) return;
    if (!p.askFor.add(hash)) return;
    const last = this.alreadyAsked.get(hash) ?? 0;
    // Request times are never reused: at least one µs after the previous one, and at most a second ago.
    const now = Math.max(nowUs - 1_000_000, this.askLastTime + 1);
    this.askLastTime = now;
    const at = Math.max(last + ASK_RETRY_US, now);
    this.alreadyAsked.set(hash, at);
    p.askQueue.push(at, hash);
  }

  /**
   * SendMessages' getdata for transactions (main.cpp:8613-8634): every queued request whose time has
   * come goes out, in getdata messages of 1,000, unless the transaction arrived meanwhile (then the
   * peer is no longer expected to send it). One pass at a time per peer.
   */
  async sendAskedFor(p: Peer): Promise<void> {
    while (p.askSending) await p.askSending;
    const pass = this.sendDueAsks(p);
    p.askSending = pass;
    try {
      await pass;
    } finally {
      p.askSending = undefined;
    }
  }

  private async sendDueAsks(p: Peer): Promise<void> {
    let batch: InvItem[] = [];
    while (!p.disconnected && p.askQueue.nextTime <= Date.now() * 1000) {
      const nowUs = Date.now() * 1000;
      const hashes = new Uint8Array(INV_SLICE * 32);
      let n = 0;
      while (n < INV_SLICE && p.askQueue.nextTime <= nowUs) p.askQueue.pop(hashes, 32 * n++);
      const slice = Array.from({ length: n }, (_, i) => hashes.subarray(i * 32, i * 32 + 32));
      const have = await this.haveTxs(slice.map((h) => toHexReversed(h)));
      if (p.disconnected) return;
      for (let i = 0; i < n; i++) {
        if (have[i]) {
          p.askFor.delete(slice[i]!);
          continue;
        }
        batch.push({ type: MSG_TX, hash: slice[i]! });
        if (batch.length >= GETDATA_BATCH) {
          p.send('getdata', new InvMessage(batch).toRaw());
          batch = [];
        }
      }
    }
    if (batch.length) p.send('getdata', new InvMessage(batch).toRaw());
  }

  // ---- announcing ------------------------------------------------------------------------------

  onTxAccepted(txid: string, raw: Uint8Array): void {
    this.relayTransaction(txid, raw);
    // Called for every accepted transaction: no promise when there is no orphan to look at.
    if (this.orphanTxs.size > 0) this.background(this.resolveOrphanTxs(txid), 'orphan transactions');
  }

  /**
   * RelayTransaction (net.cpp): the transaction is kept for getdata (mapRelay) and announced by inv to
   * every peer not known to have it. The wallet's rebroadcast comes this way too (RelayWalletTransaction).
   */
  relayTransaction(txid: string, raw: Uint8Array): void {
    // Kept with no peer too (komodod fills mapRelay before it looks at vNodes): a peer that connects
    // within the 15 minutes may ask for it.
    this.relayCache.add(txid, raw, Date.now());
    this.recentRejects.delete(txid);
    if (this.peers.size === 0) return;
    const k = hashKey(MSG_TX, txid);
    for (const p of this.peers.values()) {
      if (p.disconnected || !p.successfullyConnected || !p.relayTxes || p.known.has(k)) continue;
      p.known.add(k);
      // Trickled: the invs of one turn of the event loop go out together (komodod batches tx invs too).
      p.pendingTxInv.push({ type: MSG_TX, hash: fromHexReversed(txid) });
      if (p.pendingTxInv.length === 1) setImmediate(() => this.flushTxInv(p));
    }
  }

  private flushTxInv(p: Peer): void {
    const items = p.pendingTxInv.splice(0);
    for (let i = 0; i < items.length; i += MAX_INV_SZ) p.send('inv', new InvMessage(items.slice(i, i + MAX_INV_SZ)).toRaw());
  }

  async onMempool(p: Peer): Promise<void> {
    const txids = await this.opts.mempool.ask({ op: 'txids' });
    for (let i = 0; i < txids.length; i += MAX_INV_SZ) {
      const chunk = txids.slice(i, i + MAX_INV_SZ).map((t) => ({ type: MSG_TX, hash: fromHexReversed(t) }));
      p.send('inv', new InvMessage(chunk).toRaw());
    }
  }

  // ---- received transactions ------------------------------------------------------------------

  async onTx(p: Peer, payload: Uint8Array): Promise<void> {
    // Ignored entirely while in initial block download (main.cpp:7824-7825).
    if (this.sync.isInitialBlockDownload()) return;
    const tx = Transaction.fromRaw(payload);
    const hash = tx.hash();
    const txid = toHexReversed(hash);
    p.known.add(hashKey(MSG_TX, txid));
    // Answered: no longer expected of this peer, nor asked of others later (main.cpp:7840-7841).
    p.askFor.delete(hash);
    this.alreadyAsked.delete(hash);
    if (this.rejected(txid) || this.orphanTxs.has(txid)) return;
    // Consecutive tx messages reach the mempool together (it verifies a burst in parallel); any other
    // message of the peer waits for them (processMessage), so a peer still sees them handled in order.
    const job: Promise<void> = this.acceptTx(p, tx, payload, txid)
      .then(
        () => {},
        (e: unknown) => this.log(`p2p: tx ${txid} from peer=${p.id}: ${e instanceof Error ? e.message : String(e)}`),
      )
      .finally(() => p.txInflight.delete(job));
    p.txInflight.add(job);
    if (p.txInflight.size >= MAX_TX_INFLIGHT) await Promise.race(p.txInflight);
  }

  /** AcceptToMemoryPool for a relayed tx: relay (through the mempool's txAccepted notice), orphan or reject. */
  private async acceptTx(p: Peer | undefined, tx: Transaction, raw: Uint8Array, txid: string): Promise<boolean> {
    try {
      await this.opts.mempool.ask({ op: 'accept', raw, tx, allowHighFees: false });
      return true;
    } catch (e) {
      const f = e instanceof ServiceFailure ? e : new ServiceFailure(-32603, String(e));
      if (f.code === -25 && f.message === 'Missing inputs') {
        // Missing inputs: an orphan (transparent only), bounded by -maxorphantx.
        if (tx.joinSplits.length === 0 && tx.shieldedSpends.length === 0 && tx.shieldedOutputs.length === 0) {
          this.orphanTxs.set(txid, { tx, raw, txid, fromPeer: p?.id ?? -1, prevs: tx.vin.map((i) => i.prevout.txid()) });
          while (this.orphanTxs.size > DEFAULT_MAX_ORPHAN_TRANSACTIONS) {
            const keys = [...this.orphanTxs.keys()];
            this.orphanTxs.delete(keys[Math.floor(Math.random() * keys.length)]!);
          }
        }
        return false;
      }
      if (f.code === -27) return false;
      this.recentRejects.add(txid);
      if (this.recentRejects.size > 120_000) this.recentRejects.clear();
      const m = /^(\d+): (.*)$/.exec(f.message);
      // Failures without a reject state (non-standard inputs: -25 with no message) send nothing.
      if (p && m) {
        const code = Number(m[1]);
        const reason = m[2]!;
        this.bans.reject(p, 'tx', code, reason.slice(0, 111), fromHexReversed(txid));
        this.bans.misbehaving(p, await this.txDos(tx, code, reason), `invalid tx ${txid}: ${reason}`);
      }
      return false;
    }
  }

  /**
   * The DoS score komodod's validation state carries for a rejected transaction. The mempool's reply
   * keeps the reject code and reason; the score is recovered by re-running the pure context-free
   * checks (whose errors carry komodod's scores) or, for the input checks, from komodod's values.
   */
  private async txDos(tx: Transaction, code: number, reason: string): Promise<number> {
    const fixed = INPUT_DOS.get(reason);
    if (fixed !== undefined) return fixed;
    if (reason.startsWith('mandatory-script-verify-flag-failed')) return 100;
    if (code !== REJECT_INVALID) return 0;
    try {
      const params = (await this.opts.chain.ask({ op: 'params' })) ?? this.opts.params;
      const ctx = validationContext(params);
      checkTransaction(tx, ctx, { tipTime: this.sync.tip.time });
      contextualCheckTransaction(tx, this.sync.tip.height + 1, ctx, { dosLevel: 10 });
    } catch (e) {
      if (e instanceof ValidationError && e.reason === reason) return e.dos;
    }
    return 0;
  }

  private async resolveOrphanTxs(parent: string): Promise<void> {
    for (const o of [...this.orphanTxs.values()]) {
      if (!o.prevs.includes(parent)) continue;
      this.orphanTxs.delete(o.txid);
      await this.acceptTx(undefined, o.tx, o.raw, o.txid);
    }
  }
}
