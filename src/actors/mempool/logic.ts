import { Transaction } from '../../chain/tx/transaction.js';
import { isP2PKH } from '../../chain/script/script.js';
import { DecodeError } from '../../chain/encoding/errors.js';
import { NULL_HASH_HEX, toHexReversed } from '../../chain/encoding/hex.js';
import type { Block } from '../../chain/block/block.js';
import { STANDARD_SCRIPT_VERIFY_FLAGS } from '../../chain/script/flags.js';
import {
  ValidationError,
  MissingInputsError,
  checkTransaction,
  contextualCheckTransaction,
  isStandardTx,
  isFinalTx,
  areInputsStandard,
  checkTxInputs,
  checkInputScripts,
  checkAbsurdFee,
  checkStandardSigOps,
  legacySigOpCount,
  p2shInputsSigOpCount,
  valueOut,
  validationContext,
  type Coin,
  type CoinView,
  type ValidationContext,
  type SignatureCache,
  type ScriptExecutionCache,
  type InputScriptOptions,
} from '../../chain/validation/index.js';
import type { CryptoConditionChecker } from '../../chain/script/checker.js';
import { ServiceFailure, noSuchOp, toServiceError } from '../protocol.js';
import type { Asker } from '../ask.js';
import type { ChainReader, ChainStoreProtocol, ChainView, Outpoint, TipView } from '../chainstore/protocol.js';
import { FeeEstimatorFeed, readFeeEstimates, writeFeeEstimates } from './fee-feed.js';
import type { AcceptItem, AcceptOutcome, MempoolAddressDelta, MempoolEntry, MempoolInfo, MempoolNotice, MempoolReplies, MempoolRequest, PriorityDelta, TxAccepted, TxRemoved } from './protocol.js';

export type { AcceptItem, MempoolAddressDelta, MempoolEntry, MempoolInfo, TxAccepted, TxRemoved } from './protocol.js';
import type { BatchOutcome, ServiceLogic, WriteOutcome } from '../../machines/service.js';
import type { ScriptChecks, VerifyPool } from '../verify/pool.js';
import { addressKey } from '../../chain/address/index-key.js';
import { compareOutpoints } from '../../chain/address/unspent-order.js';
import { outpointKey } from '../../chain/tx/input.js';
import { solver } from '../../chain/script/standard.js';
import { mayAcceptCryptoCondition } from '../../chain/cc/script.js';
import { ccReads, readsContext } from '../../chain/assets/context.js';
import { hash160, sha256d } from '../../chain/crypto/hash.js';
import { ExpiryIndex } from './expiry.js';

/**
 * CTxMemPool::addAddressIndex's keys of a script. Unlike ConnectBlock's GetAddressType, komodod's
 * mempool leaves keyType at 1 for CC scripts (type 3 is only set through a CTxDestination, which a
 * solved script never gets), so CC deltas are found without the ccvout flag; and outputs paying a
 * bare multisig are not indexed (inputs spending one are).
 */
export function mempoolAddressKeys(script: Uint8Array, output: boolean): string[] {
  const s = solver(script, { ccEnabled: true, isSupportedCondition: mayAcceptCryptoCondition });
  if (s.type === 'nonstandard' || (output && s.type === 'multisig')) return [];
  const type = s.type === 'scripthash' ? 2 : 1;
  return s.solutions.map((sol) => addressKey(type, sol.length === 20 ? sol : hash160(sol)));
}

/**
 * mempoolAddressKeys(script, output), each added to `keys`: a P2PKH script (nearly every one) read off
 * its template, as addressKeysOf does, without the solver's copy of the hash and the array of keys.
 */
export function addMempoolAddressKeys(keys: Set<string>, script: Uint8Array, output: boolean): void {
  if (isP2PKH(script)) {
    // The hash's hex through one Buffer over its bytes (a subarray and then a Buffer of it were two).
    keys.add(addressKey(1, Buffer.from(script.buffer, script.byteOffset + 3, 20).toString('hex')));
    return;
  }
  for (const a of mempoolAddressKeys(script, output)) keys.add(a);
}

/**
 * What an entry counts for in getmempoolinfo's `usage` (komodod's DynamicMemoryUsage): acnode's
 * estimate of what it holds (the raw bytes, the parsed transaction, about twice that, and the
 * per-entry and per-input bookkeeping).
 */
export function entryUsage(e: Pick<MempoolEntry, 'size' | 'tx'>): number {
  return 3 * e.size + 200 + 100 * e.tx.vin.length;
}

/** komodod's MEMPOOL_HEIGHT: the height mempool coins report. */
export const MEMPOOL_HEIGHT = 0x7fffffff;

export interface MempoolOptions {
  chain: Asker<ChainStoreProtocol>;
  /**
   * The chain store's committed state, read directly (an LMDB read transaction on its environment,
   * opened by the composition root): an accept reads its coins here instead of asking the chain store,
   * when the reader's tip is the mempool's (MempoolLogic.readViews). Without it every accept asks.
   */
  reader?: ChainReader;
  dataCarrierSize: number;
  sigCache?: SignatureCache;
  /** Where admitted transactions are recorded so block connection skips their scripts. */
  scriptCache?: ScriptExecutionCache;
  /**
   * The CC checker for OP_CHECKCRYPTOCONDITION inputs (eval dispatch), given the transactions the
   * validators may read (the mempool's, and the chain's fetched first: ccContext) and the height.
   */
  ccChecker?: (lookup: { tx(txid: string): Transaction | undefined }, height: number) => CryptoConditionChecker | undefined;
  /** The clock (unix seconds) an admitted entry's time is read from; tests set it. */
  now?: () => number;
  /** The node's script-check workers: a burst of accepts has its signatures verified there. */
  verifyPool?: VerifyPool;
  /** -addressindex: keep the mempool's address index (komodod's addAddressIndex runs only then). Default on. */
  addressIndex?: boolean;
  /** fee_estimates.dat: the fee estimator's figures, read at start and written at stop (as komodod). */
  feeEstimatesFile?: string;
  log?: (msg: string) => void;
}

const WRITE_OPS = new Set(['accept', 'acceptMany', 'blockConnected', 'blockDisconnected', 'sync', 'prioritise']);

/** A transaction that passed every check before its input scripts. */
interface Prepared {
  tx: Transaction;
  txid: string;
  raw: Uint8Array;
  fee: bigint;
  /** The chain height it was checked at. */
  height: number;
  branchId: number;
  ccEnabled: boolean;
  /** Outpoint keys it spends, in input order. */
  spends: string[];
  coinView: CoinView;
  prevouts: { value: bigint; script: Uint8Array }[];
  /** The confirmed transactions its CC validation may read, fetched with the coins (ccContext). */
  ccTxs?: ReadonlyMap<string, Transaction>;
  /** The tip's time when it was checked (the fee estimator's IsInitialBlockDownload). */
  tipTime?: number;
}

/** The earlier transactions of a burst, as later ones of the burst see them (not yet in the mempool). */
interface Overlay {
  entries: Map<string, Prepared>;
  spentBy: Map<string, string>;
}

/** One transaction's part of a chain view read or asked: its txid, the outpoints it spends, its output count. */
interface ViewItem {
  txid: string;
  outpoints: Outpoint[];
  outputs: number;
}

/** Takes a prepared transaction out of an overlay (if it is still the one there). */
function leaveOverlay(overlay: Overlay, p: Prepared): void {
  if (overlay.entries.get(p.txid) === p) overlay.entries.delete(p.txid);
  for (const k of p.spends) if (overlay.spentBy.get(k) === p.txid) overlay.spentBy.delete(k);
}

/** Inputs up to which MempoolCoinView finds a chain coin by scanning the inputs rather than by a map. */
const SCAN_INPUTS = 8;

/**
 * The coins a transaction of a burst spends: the chain's (looked up beforehand), else outputs of
 * mempool entries or of the burst's earlier transactions. A class, not an object literal with a
 * closure: one is made per transaction, and tsx names every closure it creates. Validation asks it
 * for each input about eight times (the prepare checks, sigops, fees, the script checks, the fee
 * estimator): a chain coin is found by scanning the transaction's own inputs (the index, then the
 * txid string each Outpoint keeps), which allocates nothing; only a transaction of more than
 * SCAN_INPUTS inputs gets a map by outpoint key, so a lookup never costs its input count.
 */
class MempoolCoinView implements CoinView {
  private readonly byKey: Map<string, Coin> | undefined;

  constructor(
    private readonly tx: Transaction,
    /** The chain's coin of each input, in input order (null where there is none). */
    private readonly chainCoins: readonly (Coin | null | undefined)[],
    private readonly entries: Map<string, MempoolEntry>,
    private readonly overlay: Overlay | undefined,
  ) {
    if (tx.vin.length > SCAN_INPUTS) {
      this.byKey = new Map();
      tx.vin.forEach((input, i) => {
        const c = chainCoins[i];
        if (c) this.byKey!.set(outpointKey(input.prevout.txid(), input.prevout.index), c);
      });
    }
  }

  private chainCoin(txid: string, n: number): Coin | undefined {
    if (this.byKey) return this.byKey.get(outpointKey(txid, n));
    const vin = this.tx.vin;
    for (let i = 0; i < vin.length; i++) {
      const p = vin[i]!.prevout;
      if (p.index !== n || p.txid() !== txid) continue;
      const c = this.chainCoins[i];
      if (c) return c;
    }
    return undefined;
  }

  coin(txid: string, n: number): Coin | undefined {
    const c = this.chainCoin(txid, n);
    if (c) return c;
    const parent = this.entries.get(txid) ?? this.overlay?.entries.get(txid);
    const out = parent?.tx.vout[n];
    if (!parent || !out) return undefined;
    // The chain store's decoded coin's field order (chainstate's decodeCoin): one hidden class for the
    // checks that read a transaction's coins, whichever way each came.
    return { coinbase: false, height: MEMPOOL_HEIGHT, txVersion: parent.tx.version, value: out.value, script: out.script };
  }
}

/** The transactions a CC validator of a mempool check may read: the mempool's, a burst's, the chain's fetched for it. */
class CCTxLookup {
  constructor(
    private readonly entries: Map<string, MempoolEntry>,
    private readonly overlay: Overlay | undefined,
    private readonly ccTxs: ReadonlyMap<string, Transaction> | undefined,
  ) {}

  tx(id: string): Transaction | undefined {
    return this.entries.get(id)?.tx ?? this.overlay?.entries.get(id)?.tx ?? this.ccTxs?.get(id);
  }
}

/**
 * The CC checker of one check, made when a crypto-condition is first checked: most transactions have
 * none, and making one (the eval dispatch and its caches) for each transaction was part of every accept.
 */
function lazyCCChecker(
  make: NonNullable<MempoolOptions['ccChecker']>,
  lookup: CCTxLookup,
  height: number,
): CryptoConditionChecker {
  let made: CryptoConditionChecker | null | undefined;
  return (fulfillment, condition, scriptCode, checker) => {
    if (made === undefined) made = make(lookup, height) ?? null;
    // No checker made: as TransactionSignatureChecker without one.
    return made ? made(fulfillment, condition, scriptCode, checker) : false;
  };
}

function leaveOverlayAll(overlay: Overlay, ps: readonly Prepared[]): void {
  for (const p of ps) leaveOverlay(overlay, p);
}

/** A burst's outcomes and notices not reported yet; send() reports them (nothing when there are none). */
class BurstReport {
  outcomes: BatchOutcome<string>[] = [];
  notices: MempoolNotice[] = [];
  reported = 0;

  constructor(private readonly report: (outcomes: BatchOutcome<string>[], notices: MempoolNotice[]) => void) {}

  send(): void {
    if (this.outcomes.length === 0) return;
    this.reported += this.outcomes.length;
    this.report(this.outcomes, this.notices);
    this.outcomes = [];
    this.notices = [];
  }
}

/**
 * Appends a notice's transactions, each joining the run of its kind the notices end with (one message
 * for the recipients). A new run is an array of its own, so later ones are pushed onto it: each item
 * copied once.
 */
function appendNotice(into: MempoolNotice[], n: MempoolNotice): void {
  if (n.type === 'txsAccepted') for (const item of n.items) pushAccepted(into, item);
  else for (const item of n.items) pushRemoved(into, item.txid, item.reason);
}

/** A transaction entering the mempool joins the run of accepted ones the notices end with, or starts one. */
function pushAccepted(into: MempoolNotice[], item: TxAccepted): void {
  const last = into[into.length - 1];
  if (last?.type === 'txsAccepted') last.items.push(item);
  else into.push({ type: 'txsAccepted', items: [item] });
}

/** A transaction leaving the mempool joins the run of removals the notices end with, or starts one. */
function pushRemoved(into: MempoolNotice[], txid: string, reason: TxRemoved['reason']): void {
  const last = into[into.length - 1];
  if (last?.type === 'txsRemoved') last.items.push({ txid, reason });
  else into.push({ type: 'txsRemoved', items: [{ txid, reason }] });
}

/** Where a burst's transaction stands once checked up to its scripts. */
type BurstStage =
  | { kind: 'failed'; error: unknown }
  /** already in the mempool, or earlier in the bursts being verified: its txid again */
  | { kind: 'present'; txid: string }
  /** its scripts checked here (a crypto-condition input) */
  | { kind: 'ready'; p: Prepared }
  /** its signatures posted to the workers */
  | { kind: 'deferred'; p: Prepared };

/**
 * The transaction of an accept and its txid (the hash of the bytes as given: a transaction decodes only
 * from its canonical serialisation). The caller may hand over the one it decoded from `raw` already.
 */
function decodeAccept(raw: Uint8Array, decoded?: unknown): { tx: Transaction; txid: string } {
  const tx = decoded instanceof Transaction ? decoded : parseTx(raw);
  return { tx, txid: toHexReversed(sha256d(raw)) };
}

function parseTx(raw: Uint8Array): Transaction {
  try {
    // Views into raw, which the entry keeps beside the transaction.
    return Transaction.fromRaw(raw, true);
  } catch (e) {
    if (e instanceof DecodeError) throw new ServiceFailure(-22, 'TX decode failed');
    throw e;
  }
}

function outpointsOf(tx: Transaction): [string, number][] {
  const vin = tx.vin;
  const out = new Array<[string, number]>(vin.length);
  for (let i = 0; i < vin.length; i++) out[i] = [vin[i]!.prevout.txid(), vin[i]!.prevout.index];
  return out;
}

/** One transaction's outcome in an acceptMany answer: plain data, as a reply carries it. */
function itemOutcome(o: BatchOutcome<string>): AcceptOutcome {
  return o.ok ? o : { ok: false, error: toServiceError(o.error) };
}

/** The items of a run of accept and acceptMany bodies, in order, and how many of them are each body's own. */
function burstItems(bodies: readonly MempoolRequest[]): { items: AcceptItem[]; sizes: number[] } {
  const items: AcceptItem[] = [];
  const sizes: number[] = [];
  for (const b of bodies) {
    const own: AcceptItem[] = b.op === 'acceptMany' ? b.items : b.op === 'accept' ? [b] : [];
    // The request's own item (an accept body is one): what the burst reads of it is raw,
    // allowHighFees, tx (used only when a Transaction) and relay; a copy only to make allowHighFees a boolean.
    for (const i of own) items.push(typeof i.allowHighFees === 'boolean' ? i : { raw: i.raw, allowHighFees: i.allowHighFees === true, tx: i.tx, relay: i.relay });
    sizes.push(own.length);
  }
  return { items, sizes };
}

/**
 * A burst's report as its bodies are answered: every body whose transactions have all settled, in
 * order (an acceptMany with one outcome per transaction, an accept with its own).
 */
function answerBodies(
  bodies: readonly MempoolRequest[],
  sizes: readonly number[],
  report: (outcomes: BatchOutcome[], notices: MempoolNotice[]) => void,
): (outcomes: BatchOutcome<string>[], notices: MempoolNotice[]) => void {
  let body = 0;
  const held: BatchOutcome<string>[] = [];
  /** The notices of reports that answered no body yet: they go out with the next one that does. */
  let waiting: MempoolNotice[] = [];
  return (outcomes, notices) => {
    held.push(...outcomes);
    const done: BatchOutcome[] = [];
    while (body < bodies.length && held.length >= sizes[body]!) {
      const mine = held.splice(0, sizes[body]!);
      done.push(bodies[body]!.op === 'acceptMany' ? { ok: true, result: mine.map(itemOutcome) } : mine[0]!);
      body++;
    }
    // A report that answers nobody (part of one caller's acceptMany: 16 sendrawtransaction calls in
    // flight arrive as one) would cost the service a machine step and the wallet and p2p one each,
    // for notices nobody waits on: they wait for the report that answers a body. The last report
    // answers the last body, so nothing stays behind; the wallet still has them before the answer.
    if (waiting.length > 0 || done.length === 0) {
      for (const n of notices) appendNotice(waiting, n);
      if (done.length === 0) return;
      notices = waiting;
      waiting = [];
    }
    report(done, notices);
  };
}

/** A burst's transactions decoded: each one's or its decode error, what their views need, the decoded ones by txid. */
interface ParsedBurst {
  parsed: ({ tx: Transaction; txid: string } | { error: unknown })[];
  wanted: ViewItem[];
  txs: Map<string, Transaction>;
  /** The inputs of the decoded ones (the workers' batch size follows it). */
  burstInputs: number;
}

/** One pass, no closure or one-element array per transaction: the decoded ones, what their views need (the reader's items as they are), and the burst's transactions by txid. */
function parseBurst(items: readonly AcceptItem[]): ParsedBurst {
  const parsed = new Array<{ tx: Transaction; txid: string } | { error: unknown }>(items.length);
  const wanted: ViewItem[] = [];
  const txs = new Map<string, Transaction>();
  for (let i = 0; i < items.length; i++) {
    let one: { tx: Transaction; txid: string };
    try {
      one = decodeAccept(items[i]!.raw, items[i]!.tx);
    } catch (e) {
      parsed[i] = { error: e };
      continue;
    }
    parsed[i] = one;
    wanted.push({ txid: one.txid, outpoints: outpointsOf(one.tx), outputs: one.tx.vout.length });
    txs.set(one.txid, one.tx);
  }
  let burstInputs = 0;
  for (const tx of txs.values()) burstInputs += tx.vin.length;
  return { parsed, wanted, txs, burstInputs };
}

/** An accept's failure as its reply carries it. */
function toFailure(e: unknown): unknown {
  try {
    return e instanceof ServiceFailure ? e : rejectFailure(e);
  } catch (mapped) {
    return mapped;
  }
}

/** Turns a validation failure into sendrawtransaction's answer (rawtx.md §2.5). */
function rejectFailure(e: unknown): never {
  // state.Error (the absurd-fee check) is not IsInvalid(): sendrawtransaction answers -25 with the reason.
  if (e instanceof ValidationError && e.mode === 'error') throw new ServiceFailure(-25, e.reason);
  if (e instanceof ValidationError) throw new ServiceFailure(-26, `${e.rejectCode}: ${e.reason}`);
  if (e instanceof MissingInputsError) throw new ServiceFailure(-25, 'Missing inputs');
  throw e;
}

/**
 * The mempool: unconfirmed transactions accepted after full validation against the UTXO set plus the
 * mempool itself, with komodod's reject codes; kept consistent with the chain through the chain
 * store's blockConnected/blockDisconnected notices.
 */
export class MempoolLogic implements ServiceLogic<MempoolRequest, MempoolNotice> {
  readonly name = 'mempool';
  readonly entries = new Map<string, MempoolEntry>();
  /** Outpoint key → txid of the mempool transaction spending it. */
  readonly spentBy = new Map<string, string>();
  /**
   * The same outpoints by txid: txid → the output indexes spent. spentAmong looks up each candidate
   * by the txid string it is given (whose hash V8 keeps), instead of building and hashing an outpoint key.
   */
  private readonly spentIndexes = new Map<string, Set<number>>();
  /**
   * Txids of the entries that spend a coinbase (komodod's entry flag fSpendsCoinbase): the entries
   * removeForReorg looks up coins for, so a reorg costs these, not the whole pool.
   */
  private readonly coinbaseSpenders = new Set<string>();
  /** Txids of the entries a lower tip could make non-final (a lock time and a non-final input). */
  private readonly lockTimed = new Set<string>();
  /** The entries by expiry height: a block's expired ones are found without a pass over the pool. */
  readonly expiry = new ExpiryIndex();
  /** Address key → txids of the entries that pay or spend it (komodod's mapAddress, by address). */
  readonly byAddress = new Map<string, Set<string>>();
  /** Txid → the address keys it was indexed under. */
  private readonly indexedAddresses = new Map<string, Set<string>>();
  /** Running totals of the entries' sizes and usage estimates (getmempoolinfo answers from them). */
  private bytes = 0;
  private usage = 0;
  /** komodod's nTransactionsUpdated: +1 per add (addUnchecked), per removal (remove) and per tip change (UpdateTip). */
  private transactionsUpdated = 0;
  /** Entries removed so far (never reset): spentAmong's answer names it, a spend found stays until it moves. */
  private removals = 0;
  /** mapDeltas: prioritisetransaction's priority and fee deltas by txid, until the txid is mined. */
  private readonly deltas = new Map<string, PriorityDelta>();
  /** How many accepts the last burst held (acceptMany). */
  private lastBurst = 0;
  /** Transactions whose signatures the script-check workers verified (bursts), for inspection. */
  private verifiedInPool = 0;
  /** The bursts being verified: their transactions, as the next bursts see them. */
  private readonly pending: Overlay = { entries: new Map(), spentBy: new Map() };
  /** Settles when the last burst posted has entered the mempool. */
  private tail: Promise<void> = Promise.resolve();
  /** Set when a burst's signature failed, until the bursts posted by then have all settled. */
  private redoFrom: Promise<void> | undefined;
  /** Signature failures in bursts so far: a burst checked before one of them is checked again. */
  private failures = 0;
  private readonly now: () => number;
  /** The newest chain tip the mempool knows: the last block notice it applied, or a later tip an answer of the chain store was read at. */
  private chainTip: string | undefined;
  /** That tip's part of a chain view, as the chain store gave it (readViews pairs it with the reader's coins). */
  private tipPart: TipView | undefined;
  /** Chain views read through the reader (not asked), for inspection. */
  private viewsRead = 0;
  /** No burst is still being verified (postBurst). */
  private burstsDone = true;
  /** The lone accept writesNow read the view of, for writeNow in the same machine step. */
  private nowAccept: { body: MempoolRequest; tx: Transaction; txid: string; view?: ChainView } | undefined;
  /** The burst postsNow read the views of, for postNow in the same machine step. */
  private nowBurst: { body: MempoolRequest; items: AcceptItem[]; sizes: number[]; burst: ParsedBurst; views: ChainView[] } | undefined;
  /** The fee and priority estimator (estimatefee, estimatepriority), fed as komodod's mempool feeds it. */
  private readonly fees: FeeEstimatorFeed;

  constructor(private readonly opts: MempoolOptions) {
    this.now = opts.now ?? (() => Math.floor(Date.now() / 1000));
    this.fees = new FeeEstimatorFeed(this.now);
  }

  async load(): Promise<void> {
    if (this.opts.feeEstimatesFile) readFeeEstimates(this.fees.estimator, this.opts.feeEstimatesFile, this.opts.log);
  }

  async close(): Promise<void> {
    // Every burst still being verified is answered before the mempool stops.
    await this.settled();
    if (this.opts.feeEstimatesFile) writeFeeEstimates(this.fees.estimator, this.opts.feeEstimatesFile, this.opts.log);
  }

  isWrite(body: MempoolRequest): boolean {
    return WRITE_OPS.has(body.op);
  }

  batchable(body: MempoolRequest): boolean {
    return body.op === 'accept' || body.op === 'acceptMany';
  }

  /** An acceptMany, or an accept its sender gathered (the RPC layer's calls of one turn): no turn to wait. */
  gathered(body: MempoolRequest): boolean {
    return body.op === 'acceptMany' || (body.op === 'accept' && body.gathered === true);
  }

  /**
   * A run of `accept` and `acceptMany` requests, accepted as one burst. An `acceptMany` (the
   * sendrawtransaction calls of one JSON-RPC batch, sent as one message) is answered once all its
   * transactions are, with one outcome per transaction: `{ ok, result }` or `{ ok, error: { code, message } }`.
   */
  async writeBatch(bodies: MempoolRequest[], report: (outcomes: BatchOutcome[], notices: MempoolNotice[]) => void): Promise<void> {
    const { items, sizes } = burstItems(bodies);
    if (items.length === 0) return report(bodies.map(() => ({ ok: true, result: [] })), []);
    await this.acceptMany(items, answerBodies(bodies, sizes, report));
  }

  /**
   * A gathered burst (an acceptMany, or a gathered accept after a burst) whose taking needs nothing
   * awaited: workers to verify it, no burst being checked again, no crypto-condition context to
   * fetch, its coins read through the reader at the mempool's tip. The machine then takes it in the
   * step that brought it (postNow), not through the writer (a working state and a `drained` step per
   * burst). Its views are read here and kept for postNow, which the machine calls next, in the same step.
   */
  postsNow(body: MempoolRequest): boolean {
    this.nowBurst = undefined;
    if (!this.gathered(body) || !this.opts.verifyPool?.parallel || this.redoFrom !== undefined) return false;
    const { items, sizes } = burstItems([body]);
    // A lone one after no burst is verified on this thread once the bursts before it settle (acceptMany).
    if (items.length === 0 || (items.length < 2 && this.lastBurst < 2)) return false;
    const burst = parseBurst(items);
    // Its CC context would be asked of the chain store.
    for (const tx of burst.txs.values()) if (readsContext(tx)) return false;
    const views = this.readViews(burst.wanted);
    if (!views) return false;
    this.nowBurst = { body, items, sizes, burst, views };
    return true;
  }

  /** The burst postsNow found ready, taken as acceptMany would take it; its answer is reported once it settles. */
  postNow(body: MempoolRequest, report: (outcomes: BatchOutcome[], notices: MempoolNotice[]) => void): void {
    const ready = this.nowBurst;
    this.nowBurst = undefined;
    const pool = this.opts.verifyPool;
    if (!ready || ready.body !== body || !pool) throw new ServiceFailure(-32603, 'mempool: a burst taken at once without its views');
    this.lastBurst = ready.items.length;
    this.postAcceptMany(pool, ready.items, ready.burst, ready.views, undefined, answerBodies([body], ready.sizes, report));
  }

  read(body: MempoolRequest): MempoolReplies[keyof MempoolReplies] {
    switch (body.op) {
      case 'get':
        return this.entries.get(body.txid) ?? null;
      case 'has':
        return this.entries.has(body.txid);
      case 'hasMany':
        // Which of these txids the pool holds: p2p's AlreadyHave for a slice of an inv, in one ask.
        return body.txids.map((t) => this.entries.has(t));
      case 'txids':
        return [...this.entries.keys()];
      case 'entries':
        return this.orderedEntries();
      case 'deltas':
        return body.txids.map((t) => this.deltas.get(t) ?? null);
      case 'estimateFee':
        return this.fees.estimator.estimateFee(body.blocks);
      case 'estimatePriority':
        return this.fees.estimator.estimatePriority(body.blocks);
      case 'info':
        return { size: this.entries.size, bytes: this.bytes, usage: this.usage, transactionsUpdated: this.transactionsUpdated } satisfies MempoolInfo;
      case 'spentBy':
        return this.spentBy.get(outpointKey(body.txid, body.n)) ?? null;
      case 'spentAmong':
        // Which of the outpoints a transaction in the mempool spends (myIsutxo_spentinmempool for a
        // whole candidate list in one request), in the order asked.
        return { spent: body.outpoints.map(([t, n]) => this.spentIndexes.get(t)?.has(n) === true), removals: this.removals };
      case 'addressDeltas':
        return this.addressDeltas(body.addresses);
      case 'spentMany':
        // The mempool's spent index (mapSpent): the spending txid and its input index, per outpoint.
        return body.outpoints.map(([t, n]) => {
          const by = this.spentBy.get(outpointKey(t, n));
          const spender = by ? this.entries.get(by) : undefined;
          if (!by || !spender) return null;
          const vin = spender.tx.vin.findIndex((i) => i.prevout.index === n && i.prevout.txid() === t);
          return { txid: by, vin };
        });
      default:
        throw noSuchOp('mempool', body);
    }
  }

  async write(body: MempoolRequest): Promise<WriteOutcome<MempoolNotice>> {
    const notices: MempoolNotice[] = [];
    switch (body.op) {
      case 'accept':
        await this.settled();
        return { result: await this.accept(body.raw, body.allowHighFees === true, notices, body.tx instanceof Transaction ? body.tx : undefined, body.relay !== false), notices };
      case 'blockConnected':
        // The bursts being verified enter the mempool first (they were sent before the block).
        await this.settled();
        this.chainTip = body.block.header.hashHex();
        this.blockConnected(body.block, body.txids, body.height, notices);
        this.transactionsUpdated++;
        return { result: null, notices };
      case 'blockDisconnected':
        await this.settled();
        // Its transactions are accepted again at the tip below it.
        this.chainTip = toHexReversed(body.block.header.prevHash);
        await this.blockDisconnected(body.block, notices);
        this.transactionsUpdated++;
        return { result: null, notices };
      case 'prioritise': {
        // CTxMemPool::PrioritiseTransaction: deltas add up, for a txid in the pool or not (yet).
        const d = this.deltas.get(body.txid) ?? { priority: 0, fee: 0n };
        this.deltas.set(body.txid, { priority: d.priority + body.priority, fee: d.fee + body.fee });
        return { result: null, notices };
      }
      case 'sync':
        // Nothing to apply: answered once every write sent before it (a chain notice) has applied.
        await this.settled();
        return { result: null, notices };
      default:
        throw noSuchOp('mempool', body);
    }
  }

  summary(): Record<string, unknown> {
    return { size: this.entries.size, bytes: this.bytes, verifiedInPool: this.verifiedInPool, viewsRead: this.viewsRead };
  }

  /** Parents before children, so a block template built in this order is valid. */
  orderedEntries(): MempoolEntry[] {
    const out: MempoolEntry[] = [];
    const seen = new Set<string>();
    const visit = (e: MempoolEntry) => {
      if (seen.has(e.txid)) return;
      seen.add(e.txid);
      for (const input of e.tx.vin) {
        const parent = this.entries.get(input.prevout.txid());
        if (parent) visit(parent);
      }
      out.push(e);
    };
    for (const e of this.entries.values()) visit(e);
    return out;
  }

  /**
   * AcceptToMemoryPool for sendrawtransaction (fLimitFree=false) and relayed transactions, in
   * komodod's check order. Returns the txid; throws ServiceFailure with sendrawtransaction's code.
   */
  async accept(raw: Uint8Array, allowHighFees: boolean, notices: MempoolNotice[], decoded?: Transaction, relay = true): Promise<string> {
    const { tx, txid } = decodeAccept(raw, decoded);
    // Already in the mempool: no error, the txid again (sendrawtransaction relays it again).
    if (this.entries.has(txid)) return txid;
    const viewAsked = this.chainView(tx, txid);
    const ccAsked = this.ccContext([tx]);
    const [view, ccTxs] = ccAsked ? await Promise.all([viewAsked, ccAsked]) : [await viewAsked, undefined];
    return this.applyAccept(tx, txid, raw, allowHighFees, view, notices, relay, ccTxs);
  }

  /** An accept's checks from the chain view on, and its entry: synchronous (accept, writeNow). */
  private applyAccept(tx: Transaction, txid: string, raw: Uint8Array, allowHighFees: boolean, view: ChainView, notices: MempoolNotice[], relay: boolean, ccTxs?: ReadonlyMap<string, Transaction>): string {
    try {
      const p = this.prepare(tx, txid, raw, allowHighFees, view);
      if (ccTxs) p.ccTxs = ccTxs;
      this.checkScripts(p);
      this.commit(p, notices, relay);
      return txid;
    } catch (e) {
      if (e instanceof ServiceFailure) throw e;
      return rejectFailure(e);
    }
  }

  /**
   * A lone sendrawtransaction (an accept its sender gathered alone) that needs nothing awaited: no
   * burst before it still being verified, no crypto-condition context to fetch, its coins read through
   * the reader at the mempool's tip. The machine then applies it in the step that brought it
   * (writeNow), not through the writer (three steps and an ask of the chain store). Its view is read
   * here and kept for writeNow, which the machine calls next, in the same step.
   */
  writesNow(body: MempoolRequest): boolean {
    this.nowAccept = undefined;
    if (body.op !== 'accept' || body.gathered !== true || !(body.tx instanceof Transaction)) return false;
    // As acceptMany's lone transaction: after a burst the thread is better kept free (workers verify).
    if (this.lastBurst >= 2 || !this.burstsDone || this.redoFrom !== undefined) return false;
    // Its CC context would be asked of the chain store.
    if (readsContext(body.tx)) return false;
    const { tx, txid } = decodeAccept(body.raw, body.tx);
    if (this.entries.has(txid)) {
      this.nowAccept = { body, tx, txid };
      return true;
    }
    const view = this.readViews([{ txid, outpoints: outpointsOf(tx), outputs: tx.vout.length }])?.[0];
    if (!view) return false;
    this.nowAccept = { body, tx, txid, view };
    return true;
  }

  /** The lone accept writesNow found ready, applied as accept would apply it. */
  writeNow(body: MempoolRequest): WriteOutcome<MempoolNotice> {
    const ready = this.nowAccept;
    this.nowAccept = undefined;
    if (!ready || ready.body !== body || body.op !== 'accept') throw new ServiceFailure(-32603, 'mempool: an accept applied at once without its view');
    this.lastBurst = 1;
    const notices: MempoolNotice[] = [];
    // Already in the mempool: the txid again, as accept.
    if (!ready.view) return { result: ready.txid, notices };
    return { result: this.applyAccept(ready.tx, ready.txid, body.raw, body.allowHighFees === true, ready.view, notices, body.relay !== false), notices };
  }

  /**
   * The chain views of these transactions read through the reader, no message: only when the reader's
   * snapshot is at the tip the mempool has processed (the last block notice, or a later tip the chain
   * store answered with) and the tip's part (height, times, parameters) is the one the chain store
   * gave for that tip. A snapshot older than that tip would judge a transaction against coins a block
   * the mempool has applied already spent (or miss that it was mined); a newer one belongs with a tip
   * part not known here. Either way: undefined, and the caller asks the chain store.
   */
  private readViews(items: readonly { txid: string; outpoints: readonly Outpoint[]; outputs: number }[]): ChainView[] | undefined {
    const reader = this.opts.reader;
    const tip = this.tipPart;
    if (!reader || !tip || tip.hash !== this.chainTip) return undefined;
    const read = reader.coins(tip.hash, items);
    if (!read || read.length !== items.length) return undefined;
    this.viewsRead += items.length;
    return read.map((c) => ({ height: tip.height, hash: tip.hash, time: tip.time, mtp: tip.mtp, params: tip.params, coins: c.coins, confirmed: c.confirmed, hasUnspentOutputs: c.hasUnspentOutputs }));
  }

  /** The tip a chain store answer was read at: the newest the mempool knows, its part kept for readViews. */
  private learnTip(view: ChainView | undefined): void {
    if (!view) return;
    this.chainTip = view.hash;
    if (this.tipPart?.hash !== view.hash) this.tipPart = { height: view.height, hash: view.hash, time: view.time, mtp: view.mtp, params: view.params };
  }

  /** One transaction's chain view: read through the reader, else asked of the chain store. */
  private chainView(tx: Transaction, txid: string): ChainView | Promise<ChainView> {
    const outpoints = outpointsOf(tx);
    const read = this.readViews([{ txid, outpoints, outputs: tx.vout.length }]);
    if (read) return read[0]!;
    return this.opts.chain.ask({ op: 'view', txid, outpoints }).then((view) => {
      this.learnTip(view);
      return view;
    });
  }

  /** A burst's chain views (one tip for all): read through the reader, else asked of the chain store. */
  private chainViews(wanted: ViewItem[]): ChainView[] | Promise<ChainView[]> {
    const read = this.readViews(wanted);
    if (read) return read;
    return this.opts.chain.ask({ op: 'views', items: wanted }).then((views) => {
      this.learnTip(views[0]);
      return views;
    });
  }

  /** A burst's second half is posted: lone accepts wait for it (writesNow) until it has settled. */
  private postBurst(t: Promise<void>): void {
    this.tail = t;
    this.burstsDone = false;
    void t.then(() => {
      if (this.tail === t) this.burstsDone = true;
    });
  }

  /**
   * A burst of accepts (sendrawtransaction calls or relayed transactions that arrived together),
   * answered exactly as accepting them one by one in order would answer: each is checked against the
   * mempool plus the earlier ones of this burst and of the bursts still being verified, its signatures
   * go to the worker pool, and it enters the mempool in order once they are checked, its caller
   * answered then. This returns once the burst is checked and posted, so the next burst is prepared
   * while the workers verify this one. Should a signature fail, everything after it is accepted again
   * one by one (what it saw may have depended on the failed one), the next bursts included.
   */
  async acceptMany(items: AcceptItem[], report: (outcomes: BatchOutcome<string>[], notices: MempoolNotice[]) => void): Promise<void> {
    const pool = this.opts.verifyPool;
    // A lone transaction is verified here at once (a round trip to a worker would only add latency),
    // unless it follows a burst: then the thread is better kept free to read the requests that follow.
    const lone = items.length < 2 && this.lastBurst < 2;
    this.lastBurst = items.length;
    if (lone || !pool?.parallel) {
      await this.settled();
      const notices: MempoolNotice[] = [];
      return report(await this.acceptEach(items, notices), notices);
    }
    const burst = parseBurst(items);
    const viewsAsked = this.chainViews(burst.wanted);
    const ccAsked = this.ccContext([...burst.txs.values()], burst.txs);
    const [views, ccTxs] = ccAsked ? await Promise.all([viewsAsked, ccAsked]) : [await viewsAsked, undefined];
    // A burst's signature failed and the bursts after it are being checked again: this one waits for
    // them, so that it is not checked against transactions that will not enter the mempool.
    if (this.redoFrom !== undefined) await this.settled();
    this.postAcceptMany(pool, items, burst, views, ccTxs, report);
  }

  /**
   * A burst's first half, once its views are in: each transaction checked against the mempool and the
   * bursts before it, its signatures handed to the workers, and its second half posted (commitBurst).
   */
  private postAcceptMany(
    pool: VerifyPool,
    items: AcceptItem[],
    { parsed, burstInputs }: ParsedBurst,
    views: ChainView[],
    ccTxs: ReadonlyMap<string, Transaction> | undefined,
    report: (outcomes: BatchOutcome<string>[], notices: MempoolNotice[]) => void,
  ): void {
    // From here to the posting nothing awaits: the failures counted now are all this burst was checked after.
    const epoch = this.failures;
    const overlay = this.pending;
    const stages: BurstStage[] = [];
    const mine: Prepared[] = [];
    let checks: ScriptChecks | undefined;
    let checksBranch = 0;
    let v = 0;
    for (let i = 0; i < items.length; i++) {
      const { raw, allowHighFees } = items[i]!;
      const one = parsed[i]!;
      if (!('tx' in one)) {
        stages.push({ kind: 'failed', error: one.error });
        continue;
      }
      const view = views[v++]!;
      if (this.entries.has(one.txid) || overlay.entries.has(one.txid)) {
        stages.push({ kind: 'present', txid: one.txid });
        continue;
      }
      try {
        const p = this.prepare(one.tx, one.txid, raw, allowHighFees, view, overlay);
        if (ccTxs) p.ccTxs = ccTxs;
        checks ??= pool.checks({
          ...this.scriptOptions(p),
          flags: STANDARD_SCRIPT_VERIFY_FLAGS,
          branchId: (checksBranch = p.branchId),
          cacheLookup: false,
          // Small batches: the first answers come back (and their callers are answered) sooner, and
          // the thread that serves the requests can take one in a gap without holding them long;
          // a big burst (a JSON-RPC batch) in fewer, larger ones (burstBatchInputs).
          batchInputs: pool.burstBatchInputs(burstInputs),
        });
        if (p.branchId === checksBranch && checks.defer(i, p.tx, p.coinView, p.raw)) {
          stages.push({ kind: 'deferred', p });
          this.verifiedInPool++;
        } else {
          // A crypto-condition input (its eval code reads the chain and the mempool): checked here, now.
          this.checkScripts(p, overlay);
          stages.push({ kind: 'ready', p });
        }
        overlay.entries.set(p.txid, p);
        for (let k = 0; k < p.spends.length; k++) overlay.spentBy.set(p.spends[k]!, p.txid);
        mine.push(p);
      } catch (e) {
        stages.push({ kind: 'failed', error: e });
      }
    }
    checks?.flush();
    this.postBurst(this.commitBurst(this.tail, epoch, items, stages, checks, mine, report));
  }

  /**
   * The confirmed transactions the Tokens and Assets validators may read when they check `txs`
   * (ccReads of each, and ccReads of those: src/chain/assets/context.ts), asked of the chain store in
   * one message sent beside the coins view, so validation reads no other actor's state: what is in the
   * mempool, in a burst being verified or in this burst (`burst`) is found here when it runs.
   * Undefined, and no message, when no transaction has a token OP_RETURN (nothing would be read).
   */
  private ccContext(txs: readonly Transaction[], burst?: ReadonlyMap<string, Transaction>): Promise<ReadonlyMap<string, Transaction>> | undefined {
    let txids: Set<string> | undefined;
    let shallow: Set<string> | undefined;
    for (const tx of txs) {
      if (!readsContext(tx)) continue;
      txids ??= new Set();
      shallow ??= new Set();
      for (const txid of ccReads(tx)) {
        const known = this.localTx(txid, burst);
        // A confirmed one comes with ccReads of it; a mempool one's reads are looked up here.
        if (!known) txids.add(txid);
        else for (const next of ccReads(known)) if (!this.localTx(next, burst)) shallow.add(next);
      }
    }
    if (!txids || !shallow || (txids.size === 0 && shallow.size === 0)) return undefined;
    return this.opts.chain.ask({ op: 'ccContext', txids: [...txids], shallow: [...shallow] }).then((found) => new Map(found));
  }

  /** A transaction known here: in the mempool, in a burst being verified, or in this burst. */
  private localTx(txid: string, burst?: ReadonlyMap<string, Transaction>): Transaction | undefined {
    return this.entries.get(txid)?.tx ?? this.pending.entries.get(txid)?.tx ?? burst?.get(txid);
  }

  /** Waits until every burst still being verified has entered the mempool (or been refused). */
  private async settled(): Promise<void> {
    for (let t = this.tail; ; t = this.tail) {
      await t;
      if (t === this.tail) return;
    }
  }

  /**
   * A burst's second half, after the bursts before it: in order, each transaction enters the mempool
   * once its signatures are checked; what is settled is reported before waiting for more.
   */
  private async commitBurst(
    before: Promise<void>,
    epoch: number,
    items: AcceptItem[],
    stages: BurstStage[],
    checks: ScriptChecks | undefined,
    mine: Prepared[],
    report: (outcomes: BatchOutcome<string>[], notices: MempoolNotice[]) => void,
  ): Promise<void> {
    await before;
    // A signature failed in a burst before this one after this one was checked: check it again.
    let redo = this.failures !== epoch;
    const out = new BurstReport(report);
    try {
      for (let i = 0; i < items.length; i++) {
        // A signature failed before this transaction, which was checked as if that one had entered
        // the mempool: it is checked again, one by one, with the rest.
        if (redo) {
          leaveOverlayAll(this.pending, mine);
          out.send();
          out.outcomes.push(...(await this.acceptEach(items.slice(i), out.notices)));
          break;
        }
        const stage = stages[i]!;
        let error: unknown;
        if (stage.kind === 'failed') error = stage.error;
        else if (stage.kind === 'deferred') {
          if (checks!.ready(i)) error = checks!.resultNow(i);
          else {
            out.send();
            error = await checks!.result(i);
          }
        }
        if (error !== undefined) {
          out.outcomes.push({ ok: false, error: toFailure(error) });
          if (stage.kind === 'deferred') {
            this.failures++;
            this.redoFrom = this.tail;
            redo = true;
          }
          continue;
        }
        if (stage.kind === 'present') {
          out.outcomes.push({ ok: true, result: stage.txid });
          continue;
        }
        // A failed stage answered above with its error: this one is ready or deferred (and passed).
        const p = (stage as { p: Prepared }).p;
        leaveOverlay(this.pending, p);
        this.commit(p, out.notices, items[i]!.relay !== false);
        out.outcomes.push({ ok: true, result: p.txid });
      }
    } catch (e) {
      // Nothing above should throw; if it does, the rest of the burst is refused, not lost.
      for (let k = out.reported + out.outcomes.length; k < items.length; k++) out.outcomes.push({ ok: false, error: e });
    } finally {
      leaveOverlayAll(this.pending, mine);
      out.send();
      // The last burst in flight is done: what follows is checked against the mempool alone again.
      if (this.redoFrom !== undefined && this.tail === this.redoFrom) this.redoFrom = undefined;
    }
  }

  private async acceptEach(items: AcceptItem[], notices: MempoolNotice[]): Promise<BatchOutcome<string>[]> {
    const out: BatchOutcome<string>[] = [];
    for (const { raw, allowHighFees, tx, relay } of items) {
      try {
        out.push({ ok: true, result: await this.accept(raw, allowHighFees, notices, tx, relay !== false) });
      } catch (e) {
        out.push({ ok: false, error: e });
      }
    }
    return out;
  }

  /**
   * Every check of AcceptToMemoryPool before the input scripts, in komodod's order, against the chain
   * view, the mempool and (in a burst) the earlier transactions of the burst.
   */
  private prepare(tx: Transaction, txid: string, raw: Uint8Array, allowHighFees: boolean, view: ChainView, overlay?: Overlay): Prepared {
    if (view.hasUnspentOutputs) throw new ServiceFailure(-27, 'transaction already in block chain');
    const params = view.params;
    // Only a chain store run with stand-in rules has no parameters, and the mempool cannot judge without them.
    if (!params) throw new ServiceFailure(-32603, 'the chain store has no chain parameters');
    const ctx = validationContext(params);
    const nextHeight = view.height + 1;
    const vin = tx.vin;
    // The inputs read off the transaction (each Outpoint keeps its display txid), no tuple per input.
    const spends = new Array<string>(vin.length);
    for (let i = 0; i < vin.length; i++) spends[i] = outpointKey(vin[i]!.prevout.txid(), vin[i]!.prevout.index);
    this.checkContextFree(tx, raw.length, nextHeight, view, ctx);
    // Conflicts with the mempool: no replacement.
    for (let i = 0; i < spends.length; i++) {
      const k = spends[i]!;
      if (this.spentBy.has(k) || overlay?.spentBy.has(k)) throw new ValidationError(16, 'mempool conflict', 0);
    }
    const coinView = new MempoolCoinView(tx, view.coins, this.entries, overlay);
    for (let i = 0; i < vin.length; i++) {
      if (coinView.coin(vin[i]!.prevout.txid(), vin[i]!.prevout.index)) continue;
      // Known transaction whose output is spent, or nothing known at all.
      if (view.confirmed[i]) throw new ValidationError(18, 'bad-txns-inputs-spent', 0);
      throw new MissingInputsError([spends[i]!]);
    }
    const branchId = params.currentEpochBranchId(nextHeight);
    if (ctx.requireStandard && !areInputsStandard(tx, coinView, branchId, ctx)) {
      // komodod returns false without a reject state here: -25 with an empty message.
      throw new ServiceFailure(-25, '');
    }
    const sigops = legacySigOpCount(tx) + p2shInputsSigOpCount(tx, coinView);
    checkStandardSigOps(sigops, ctx);
    const fee = checkTxInputs(tx, coinView, nextHeight, ctx);
    if (!allowHighFees) checkAbsurdFee(tx, fee, raw.length, valueOut(tx));
    const prevouts = new Array<{ value: bigint; script: Uint8Array }>(vin.length);
    for (let i = 0; i < vin.length; i++) {
      const c = coinView.coin(vin[i]!.prevout.txid(), vin[i]!.prevout.index)!;
      prevouts[i] = { value: c.value, script: c.script };
    }
    return { tx, txid, raw, fee, height: view.height, branchId, ccEnabled: ctx.ccEnabled, spends, coinView, prevouts, tipTime: view.time };
  }

  private scriptOptions(p: Prepared, overlay?: Overlay): Omit<InputScriptOptions, 'txdata' | 'verifyCoinImport'> & { ccEnabled: boolean } {
    const make = this.opts.ccChecker;
    // One object with the same shape on every accept (no spread of a temporary object into it).
    return {
      ccEnabled: p.ccEnabled,
      ccChecker: make ? lazyCCChecker(make, new CCTxLookup(this.entries, overlay, p.ccTxs), p.height + 1) : undefined,
      cache: this.opts.sigCache,
      cacheStore: this.opts.sigCache !== undefined,
    };
  }

  private checkScripts(p: Prepared, overlay?: Overlay): void {
    checkInputScripts(p.tx, p.coinView, STANDARD_SCRIPT_VERIFY_FLAGS, p.branchId, this.scriptOptions(p, overlay));
  }

  /** The transaction passed every check: it enters the mempool and is announced. */
  private commit(p: Prepared, notices: MempoolNotice[], relay = true): void {
    this.opts.scriptCache?.add(p.txid, p.branchId);
    this.fees.accepted(p.txid, p.tx, p.fee, p.raw.length, p.height, p.tipTime ?? 0, p.coinView, this.entries);
    const entry: MempoolEntry = { tx: p.tx, txid: p.txid, raw: p.raw, size: p.raw.length, fee: p.fee, time: this.now(), height: p.height, spends: p.spends, prevouts: p.prevouts };
    this.add(entry);
    const vin = p.tx.vin;
    for (let i = 0; i < vin.length; i++) {
      if (p.coinView.coin(vin[i]!.prevout.txid(), vin[i]!.prevout.index)?.coinbase !== true) continue;
      this.coinbaseSpenders.add(p.txid);
      break;
    }
    // The notice's record is the entry itself (its txid, tx and raw; nothing reads more of it): one
    // object for the pool, the wallet and p2p, not a copy. Not relayed: a record of its own says so.
    const item: TxAccepted = relay ? entry : { txid: p.txid, tx: p.tx, raw: p.raw, relay: false };
    // One txsAccepted for a run of accepted transactions (the notices of one write or burst report).
    pushAccepted(notices, item);
  }

  /** The validation context with -datacarriersize for IsStandardTx: made once per context (per chain parameters), not spread per transaction. */
  private standardContext(ctx: ValidationContext): ValidationContext & { dataCarrierSize: number } {
    if (this.standardCtx?.of !== ctx) this.standardCtx = { of: ctx, ctx: { ...ctx, dataCarrierSize: this.opts.dataCarrierSize } };
    return this.standardCtx.ctx;
  }

  private standardCtx: { of: ValidationContext; ctx: ValidationContext & { dataCarrierSize: number } } | undefined;

  private checkContextFree(tx: Transaction, size: number, nextHeight: number, view: ChainView, ctx: ValidationContext): void {
    checkTransaction(tx, ctx, { tipTime: view.time, size });
    contextualCheckTransaction(tx, nextHeight, ctx, { dosLevel: 10 });
    if (tx.isCoinbase()) throw new ValidationError(16, 'coinbase', 100);
    if (ctx.requireStandard) {
      const reason = isStandardTx(tx, nextHeight, this.standardContext(ctx));
      if (reason) throw new ValidationError(64, reason, 0);
    }
    // CheckFinalTx with the standard locktime flags: the median time past of the tip.
    if (!isFinalTx(tx, nextHeight, view.mtp)) throw new ValidationError(64, 'non-final', 0);
  }

  /** The address keys an entry's outputs and spent outputs name. */
  private addressesOf(e: MempoolEntry): Set<string> {
    const keys = new Set<string>();
    const vout = e.tx.vout;
    for (let i = 0; i < vout.length; i++) addMempoolAddressKeys(keys, vout[i]!.script, true);
    const prevouts = e.prevouts;
    if (prevouts) for (let i = 0; i < prevouts.length; i++) addMempoolAddressKeys(keys, prevouts[i]!.script, false);
    return keys;
  }

  /**
   * getAddressIndex: the deltas of the entries touching the addresses, per address in mapAddress key
   * order (txid, index, spending). Costs the entries of those addresses.
   */
  addressDeltas(addresses: string[]): MempoolAddressDelta[] {
    const out: MempoolAddressDelta[] = [];
    for (const a of addresses) {
      const mine: MempoolAddressDelta[] = [];
      for (const txid of this.byAddress.get(a) ?? []) {
        const e = this.entries.get(txid);
        if (!e) continue;
        e.tx.vin.forEach((input, j) => {
          const p = e.prevouts?.[j];
          if (p && mempoolAddressKeys(p.script, false).includes(a)) {
            mine.push({ address: a, txid, index: j, spending: true, satoshis: -p.value, time: e.time, prevtxid: input.prevout.txid(), prevout: input.prevout.index });
          }
        });
        e.tx.vout.forEach((o, k) => {
          if (mempoolAddressKeys(o.script, true).includes(a)) mine.push({ address: a, txid, index: k, spending: false, satoshis: o.value, time: e.time });
        });
      }
      mine.sort((x, y) => compareOutpoints(x, y) || Number(x.spending) - Number(y.spending));
      out.push(...mine);
    }
    return out;
  }

  private unindexAddresses(e: MempoolEntry): void {
    const addresses = this.indexedAddresses.get(e.txid) ?? [];
    this.indexedAddresses.delete(e.txid);
    for (const a of addresses) {
      const s = this.byAddress.get(a);
      s?.delete(e.txid);
      if (s && s.size === 0) this.byAddress.delete(a);
    }
  }

  private add(e: MempoolEntry): void {
    this.entries.set(e.txid, e);
    // AcceptToMemoryPool: `if (fAddressIndex) pool.addAddressIndex(entry, view)`.
    if (this.opts.addressIndex !== false) {
      const addresses = this.addressesOf(e);
      // Kept to unindex it when it leaves (solving its scripts again would cost a block's connection).
      this.indexedAddresses.set(e.txid, addresses);
      for (const a of addresses) {
        let s = this.byAddress.get(a);
        if (!s) this.byAddress.set(a, (s = new Set()));
        s.add(e.txid);
      }
    }
    const vin = e.tx.vin;
    for (let i = 0; i < vin.length; i++) {
      const prevout = vin[i]!.prevout;
      this.spentBy.set(e.spends[i]!, e.txid);
      const prev = prevout.txid();
      let s = this.spentIndexes.get(prev);
      if (!s) this.spentIndexes.set(prev, (s = new Set()));
      s.add(prevout.index);
    }
    if (e.tx.lockTime !== 0 && vin.some((i) => i.sequence >>> 0 !== 0xffffffff)) this.lockTimed.add(e.txid);
    this.expiry.add(e.txid, e.tx.expiryHeight);
    this.bytes += e.size;
    this.usage += entryUsage(e);
    this.transactionsUpdated++;
  }

  /** Takes an entry out of the pool and of everything kept beside it: indexes and running totals. */
  private drop(e: MempoolEntry): void {
    this.entries.delete(e.txid);
    this.fees.removed(e.txid);
    this.coinbaseSpenders.delete(e.txid);
    this.lockTimed.delete(e.txid);
    this.expiry.delete(e.txid, e.tx.expiryHeight);
    this.unindexAddresses(e);
    this.bytes -= e.size;
    this.usage -= entryUsage(e);
    this.transactionsUpdated++;
    this.removals++;
    e.tx.vin.forEach((input, i) => {
      const k = e.spends[i]!;
      if (this.spentBy.get(k) !== e.txid) return;
      this.spentBy.delete(k);
      const prev = input.prevout.txid();
      const s = this.spentIndexes.get(prev);
      s?.delete(input.prevout.index);
      if (s?.size === 0) this.spentIndexes.delete(prev);
    });
  }

  /** Removes a transaction and every mempool transaction that spends its outputs. */
  private remove(txid: string, reason: TxRemoved['reason'], notices: MempoolNotice[]): void {
    const e = this.entries.get(txid);
    if (!e) return;
    this.drop(e);
    pushRemoved(notices, txid, reason);
    e.tx.vout.forEach((_, n) => {
      const child = this.spentBy.get(outpointKey(txid, n));
      if (child) this.remove(child, reason === 'block' ? 'conflict' : reason, notices);
    });
  }

  /** removeForBlock: mined transactions leave, then anything spending what the block spent, then the expired. */
  private blockConnected(block: Block, txids: string[], height: number, notices: MempoolNotice[]): void {
    const mined = this.fees.entriesOf(txids);
    block.txs.forEach((tx, i) => {
      const txid = txids[i]!;
      // removeForBlock's ClearPrioritisation: every transaction of the block, pooled or not.
      this.deltas.delete(txid);
      const mined = this.entries.get(txid);
      if (mined) {
        // Mined: only this entry leaves; its children stay (their inputs are now confirmed).
        this.drop(mined);
        pushRemoved(notices, txid, 'block');
      }
      if (tx.isCoinbase()) return;
      for (const input of tx.vin) {
        const k = outpointKey(input.prevout.txid(), input.prevout.index);
        const other = this.spentBy.get(k);
        if (other && other !== txid) this.remove(other, 'conflict', notices);
      }
    });
    this.fees.blockConnected(height, mined, block.header.time);
    // removeExpired(height + 1): IsExpiredTx of each entry, found by the expiry index.
    for (const txid of this.expiry.takeExpired(height + 1)) this.remove(txid, 'expired', notices);
  }

  /** Removes every mempool transaction spending an output of `tx` (with theirs), `tx` itself not in the pool. */
  private removeSpenders(tx: Transaction, txid: string, notices: MempoolNotice[]): void {
    tx.vout.forEach((_, n) => {
      const child = this.spentBy.get(outpointKey(txid, n));
      if (child) this.remove(child, 'reorg', notices);
    });
  }

  /**
   * DisconnectTip: the disconnected block's transactions return to the mempool when they are still
   * valid; its coinbase, and each one that fails, take the mempool transactions spending them along
   * (mempool.remove(tx, removed, true)). Then removeForReorg at the new tip.
   */
  private async blockDisconnected(block: Block, notices: MempoolNotice[]): Promise<void> {
    for (const tx of block.txs) {
      const txid = tx.txid();
      if (tx.isCoinbase()) {
        this.removeSpenders(tx, txid, notices);
        continue;
      }
      try {
        await this.accept(tx.toRaw(), true, notices);
      } catch {
        // No longer valid on the new chain (e.g. its inputs were spent there): dropped, as komodod.
        this.removeSpenders(tx, txid, notices);
      }
    }
    await this.removeForReorg(notices);
  }

  /**
   * removeForReorg(pcoinsTip, tip + 1, STANDARD_LOCKTIME_VERIFY_FLAGS): entries no longer final at the
   * tip's median time past leave, and entries spending a coinbase whose chain input is gone. komodod
   * runs it once after a whole ActivateBestChainStep; here after each disconnected block, at the tip
   * the chain has then (the same once the last one is handled).
   */
  private async removeForReorg(notices: MempoolNotice[]): Promise<void> {
    const watched = [...new Set([...this.lockTimed, ...this.coinbaseSpenders])];
    if (watched.length === 0) return;
    // The chain inputs of the coinbase spenders (inputs spending another entry are not looked up).
    const outpoints: [string, number][] = [];
    for (const txid of this.coinbaseSpenders) {
      for (const i of this.entries.get(txid)!.tx.vin) {
        const prev = i.prevout.txid();
        if (!this.entries.has(prev)) outpoints.push([prev, i.prevout.index]);
      }
    }
    // One read, so the tip and the coins agree; the view's own-transaction part is not needed (null txid).
    const view = await this.opts.chain.ask({ op: 'view', txid: NULL_HASH_HEX, outpoints });
    const coins = new Map<string, Coin | null>(outpoints.map(([t, n], k) => [outpointKey(t, n), view.coins[k] ?? null]));
    for (const txid of watched) {
      const e = this.entries.get(txid);
      // Already gone with a parent removed before it.
      if (!e) continue;
      if (!isFinalTx(e.tx, view.height + 1, view.mtp)) {
        this.remove(txid, 'reorg', notices);
        continue;
      }
      if (!this.coinbaseSpenders.has(txid)) continue;
      // komodod removes a spend of a coinbase made immature only when that coinbase is also time-locked
      // (-ac_timelockgte, komodo_block_unlocktime), so here only spends of missing coins leave; an
      // immature spend stays and the miner leaves it out until it matures. komodod tests the input's
      // whole transaction (!coins); a missing output is the same here, its conflicts having left at connect.
      const missing = e.tx.vin.some((i) => {
        const k = outpointKey(i.prevout.txid(), i.prevout.index);
        return coins.has(k) && coins.get(k) === null;
      });
      if (missing) this.remove(txid, 'reorg', notices);
    }
  }
}
