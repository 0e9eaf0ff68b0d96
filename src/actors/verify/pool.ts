import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { workerEntry } from '../worker-entry.js';
import { secp256k1Backend } from '../../chain/crypto/secp256k1.js';
import type { CryptoConditionChecker } from '../../chain/script/checker.js';
import { TransactionSignatureChecker } from '../../chain/script/checker.js';
import { PrecomputedTxData } from '../../chain/script/sighash.js';
import { BufferWriter } from '../../chain/encoding/writer.js';
import type { Transaction } from '../../chain/tx/transaction.js';
import type { CoinView } from '../../chain/validation/coin.js';
import { checkInputScripts, SignatureCache, type InputScriptOptions } from '../../chain/validation/scripts.js';
import type { ValidationError } from '../../chain/validation/errors.js';
import { isCoinImport, isMint } from '../../chain/validation/tx-values.js';
import { claimBatch, isClaimed, newClaims } from './claims.js';
import { SharedRing } from './ring.js';
import type { Secp256k1BackendChoice } from './sig-backend.js';
import { batchHeader, decodeResult } from './wire.js';
import {
  CacheOnlySignatureChecker,
  checkInputOutcome,
  needsMainThread,
  outcomeError,
  runBatch,
  writeBatchTxInputs,
  type BatchResult,
  type InputOutcome,
  type ScriptBatch,
  type SpentOutput,
} from './jobs.js';

/**
 * Queued inputs per worker that an asynchronous waiter leaves to the workers (see backlogged): about
 * what a worker verifies while the mempool's thread serves a burst of sendrawtransaction calls.
 */
const BACKLOG_INPUTS = 6;

/**
 * Each worker's two rings (ring.ts): batches posted and not yet read, results not yet read. A 1,000-
 * transaction block's batches are ~300 kB in all; what does not fit is verified on the calling thread.
 * The pages are committed as the rings go round: 2 MiB a worker.
 */
const JOBS_RING_BYTES = 1 << 20;
const RESULTS_RING_BYTES = 1 << 20;

/** The fewest inputs per batch of a burst (burstBatchInputs). */
const BURST_BATCH_INPUTS = 2;

/** komodod's MAX_SCRIPTCHECK_THREADS. */
export const MAX_SCRIPTCHECK_THREADS = 16;

/**
 * komodod's -par (init.cpp): 0 means one thread per core, a negative value leaves that many cores
 * free, at most 16; one thread or fewer means no concurrency (0: blocks are checked serially).
 */
export function scriptCheckThreads(par: number, cores = availableParallelism()): number {
  let n = par;
  if (n <= 0) n += cores;
  if (n <= 1) return 0;
  return Math.min(n, MAX_SCRIPTCHECK_THREADS);
}

export interface VerifyPoolOptions {
  /**
   * Script verification threads, komodod's nScriptCheckThreads (scriptCheckThreads(-par)): the calling
   * thread is one of them (it verifies while it waits), so threads - 1 workers are started; 0 or 1: none.
   */
  threads: number;
  /**
   * The secp256k1 backend the workers load (the node's, by name); by default the one the calling
   * thread verifies with, so that a batch gives the same answer on whichever thread runs it.
   */
  backend?: Secp256k1BackendChoice;
  log?: (msg: string) => void;
  /** Inputs per batch posted to a worker. */
  batchInputs?: number;
  /** A wait that sees no result for this long gives up on the workers and verifies here. */
  stallTimeoutMs?: number;
  /** How long start() waits for the workers to load. */
  startTimeoutMs?: number;
  /** Bytes of each worker's jobs ring and results ring (tests make them small to fill them). */
  ringBytes?: number;
}

interface PoolWorker {
  worker: Worker;
  jobs: SharedRing;
  results: SharedRing;
  /** Inputs posted to it and not answered (by it or by the calling thread). */
  load: number;
}


interface Inflight {
  batch: ScriptBatch;
  worker: PoolWorker | undefined;
  inputs: number;
  done: (r: BatchResult) => void;
}

/**
 * The script-verification pool: worker threads that verify transaction inputs in parallel, started
 * and stopped with the node. The caller (the chain store, connecting a block) stays on its thread and
 * the single writer: it posts batches as it walks the block, then waits for them synchronously
 * (Atomics.wait, results read from the workers' rings), claiming batches no worker has started and
 * verifying them itself meanwhile, as komodod's master thread joins its CCheckQueue; block connection
 * keeps its synchronous rules interface.
 * Whatever goes wrong with the workers (not started yet, crashed, stalled), the batches are verified on
 * the calling thread instead: the answer is never different, only slower.
 */
export class VerifyPool {
  /** Script verification threads, the calling one included. */
  readonly threads: number;
  /** Worker threads. */
  readonly size: number;
  private readonly workers: PoolWorker[] = [];
  private readonly signal = new Int32Array(new SharedArrayBuffer(4));
  private readonly claims = newClaims();
  private readonly inflight = new Map<number, Inflight>();
  /** Batches posted and perhaps not claimed by a worker yet, oldest first: the calling thread takes from the end. */
  private readonly queue: number[] = [];
  private nextId = 1;
  private broken = false;
  /** Batches and inputs handed to the pool since start, and the batches the calling thread verified itself. */
  readonly stats = { batches: 0, inputs: 0, local: 0 };
  private stopped = false;
  readonly batchInputs: number;
  private readonly stallTimeoutMs: number;
  private readonly log: (msg: string) => void;

  /** The secp256k1 backend the workers are asked to load. */
  private readonly backendChoice: Secp256k1BackendChoice;
  /** The secp256k1 backend the workers loaded, once they are up. */
  workerBackend: string | undefined;

  private constructor(private readonly opts: VerifyPoolOptions) {
    this.backendChoice = opts.backend ?? secp256k1Backend().name;
    this.threads = Math.max(0, Math.floor(opts.threads));
    this.size = Math.max(0, this.threads - 1);
    this.batchInputs = opts.batchInputs ?? 16;
    this.stallTimeoutMs = opts.stallTimeoutMs ?? 30_000;
    this.log = opts.log ?? (() => {});
  }

  /**
   * Starts `size` workers without waiting for them: until every one has loaded, checks run on the
   * calling thread (`parallel` is false). `ready` resolves when they are up (or given up on).
   */
  static create(opts: VerifyPoolOptions): VerifyPool {
    const pool = new VerifyPool(opts);
    pool.ready = pool.spawn();
    return pool;
  }

  /** Starts `size` workers and waits until each has loaded (or gives up on them: then it runs serially). */
  static async start(opts: VerifyPoolOptions): Promise<VerifyPool> {
    const pool = VerifyPool.create(opts);
    await pool.ready;
    return pool;
  }

  /** Resolves once the workers are up, or were given up on. */
  ready: Promise<void> = Promise.resolve();
  private up = false;

  private async spawn(): Promise<void> {
    if (this.size === 0) return;
    const { entry, eval: isEval } = workerEntry(import.meta.url, 'worker');
    const ready: Promise<void>[] = [];
    for (let i = 0; i < this.size; i++) {
      const jobs = SharedRing.create(this.opts.ringBytes ?? JOBS_RING_BYTES);
      const results = SharedRing.create(this.opts.ringBytes ?? RESULTS_RING_BYTES);
      const worker = new Worker(entry, {
        eval: isEval,
        workerData: { jobs: jobs.buffer, results: results.buffer, signal: this.signal.buffer, claims: this.claims.buffer, backend: this.backendChoice },
      });
      worker.unref();
      this.workers.push({ worker, jobs, results, load: 0 });
      ready.push(
        new Promise<void>((resolve, reject) => {
          worker.once('message', (m: { backend?: string }) => {
            // A worker verifying with another library than the calling thread could answer differently.
            if (this.backendChoice !== 'auto' && m.backend !== this.backendChoice) {
              reject(new Error(`a worker loaded secp256k1 backend ${m.backend}, not ${this.backendChoice}`));
              return;
            }
            this.workerBackend = m.backend;
            resolve();
          });
          worker.once('error', reject);
          worker.once('exit', (code) => reject(new Error(`exited with code ${code}`)));
        }),
      );
      worker.on('error', (e) => {
        if (!this.stopped) this.fail(`script-check worker failed: ${e instanceof Error ? e.message : String(e)}`);
      });
      worker.on('exit', (code) => {
        if (!this.stopped) this.fail(`script-check worker exited (${code})`);
      });
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((_, reject) => {
      // Decided after the loop's next poll: a main thread blocked past the limit (a long chain load or
      // schema upgrade at start) has the workers' hellos queued, and they are read there first.
      timer = setTimeout(() => setImmediate(() => reject(new Error('timed out'))), this.opts.startTimeoutMs ?? 60_000);
    });
    try {
      await Promise.race([Promise.all(ready), timeout]);
      if (this.stopped) return;
      this.up = true;
      // komodod's line, then the library the workers verify with (the node's, checked as they came up).
      this.log(`Using ${this.threads} threads for script verification (secp256k1 backend ${this.workerBackend})`);
    } catch (e) {
      if (!this.stopped) this.fail(`script-check workers did not start (${e instanceof Error ? e.message : String(e)})`);
    } finally {
      clearTimeout(timer);
    }
  }

  /** A batch writer kept between bursts (a new one per burst measured ~3% of the mempool thread). */
  private spareWriter: BufferWriter | undefined = new BufferWriter(4096);

  /** The spare batch writer, or a new one while another set of checks holds it (until returnWriter). */
  borrowWriter(): BufferWriter {
    const w = this.spareWriter ?? new BufferWriter(4096);
    this.spareWriter = undefined;
    return w;
  }

  returnWriter(w: BufferWriter): void {
    this.spareWriter = w.reset();
  }

  /** Callers inside waitAsync: post() wakes them. */
  private asyncWaiters = 0;

  /** Tells whoever waits on the signal that something changed (as a worker does after each answer). */
  private bump(): void {
    Atomics.add(this.signal, 0, 1);
    Atomics.notify(this.signal, 0);
  }

  /** Workers are up and answering: batches go to them. */
  get parallel(): boolean {
    return this.up && !this.broken && !this.stopped;
  }

  private fail(why: string): void {
    if (this.broken) return;
    this.broken = true;
    this.log(`${why}: verifying scripts on the main thread from now on`);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.up = false;
    // Whatever a caller still waits for is done here (nothing can be waiting: waits are synchronous).
    for (const [, f] of this.inflight) f.done(runBatch(f.batch));
    this.inflight.clear();
    this.queue.length = 0;
    // A worker asleep on its empty ring wakes and returns to its event loop, where terminate ends it.
    for (const w of this.workers) w.jobs.close();
    await Promise.all(this.workers.map((w) => w.worker.terminate().catch(() => 0)));
  }

  /**
   * Posts a batch to the least loaded worker at once, so that a worker never waits for the calling
   * thread to hand it more; the batch stays in the queue, where the calling thread may claim it while it
   * waits (then the worker skips it). `done` is called from pump() or wait().
   */
  post(batch: Omit<ScriptBatch, 'id'>, inputs: number, done: (r: BatchResult) => void): number {
    const id = this.nextId++;
    this.stats.batches++;
    this.stats.inputs += inputs;
    const f: Inflight = { batch: { ...batch, id }, worker: undefined, inputs, done };
    this.inflight.set(id, f);
    if (this.parallel) {
      let w = this.workers[0]!;
      for (const o of this.workers) if (o.load < w.load) w = o;
      if (!w.jobs.push(batchHeader(f.batch), f.batch.data)) {
        // Its ring is full (or the batch is larger than the ring): verified here, now.
        claimBatch(this.claims, id);
        this.verifyHere(id, f);
        this.pump();
        return id;
      }
      f.worker = w;
      w.load += inputs;
    }
    this.queue.push(id);
    // A waitAsync parked until an answer arrives wakes to see the new batch too (it may take it).
    if (this.asyncWaiters > 0) this.bump();
    this.pump();
    return id;
  }

  /** Reads the results that arrived (without waiting for more). */
  poll(): void {
    this.pump();
  }

  /** Reads the results that arrived. True if one did. */
  private pump(): boolean {
    if (!this.parallel) return false;
    let progress = false;
    for (const w of this.workers) {
      for (let record = w.results.shift(); record; record = w.results.shift()) {
        const r = decodeResult(record);
        this.settleOne(r.id, r);
        progress = true;
      }
    }
    return progress;
  }

  private settleOne(id: number, r: BatchResult): void {
    const f = this.inflight.get(id);
    if (!f) return;
    this.inflight.delete(id);
    if (f.worker) f.worker.load -= f.inputs;
    // Answered batches leave the queue's front (each worker answers its batches in order).
    while (this.queue.length > 0 && !this.inflight.has(this.queue[0]!)) this.queue.shift();
    if ('error' in r) {
      this.log(`script-check worker error: ${r.error}; batch verified on the main thread`);
      f.done(runBatch(f.batch));
    } else {
      f.done(r);
    }
  }

  /**
   * Blocks until every batch in `ids` is answered. Meanwhile the calling thread verifies queued batches
   * itself (komodod's master thread joins its script-check queue the same way), and verifies locally
   * whatever the workers cannot answer.
   */
  wait(ids: Iterable<number>): void {
    const pending = this.unanswered(ids);
    let lastProgress = Date.now();
    while (pending.size > 0) {
      if (!this.parallel) {
        for (const id of pending) {
          const f = this.inflight.get(id);
          if (f) this.settleOne(id, runBatch(f.batch));
        }
        return;
      }
      const seen = Atomics.load(this.signal, 0);
      const round = this.round(pending);
      if (round === 'done') break;
      if (round === 'progress' || this.verifyOneHere()) {
        lastProgress = Date.now();
        continue;
      }
      if (Atomics.wait(this.signal, 0, seen, 250) === 'timed-out') this.checkStall(lastProgress);
    }
  }

  /** The batches of `ids` not answered yet. */
  private unanswered(ids: Iterable<number>): Set<number> {
    const pending = new Set<number>();
    for (const id of ids) if (this.inflight.has(id)) pending.add(id);
    return pending;
  }

  /** Reads the results that arrived; what that did for `pending`. */
  private round(pending: Set<number>): 'done' | 'progress' | 'none' {
    const progress = this.pump();
    for (const id of pending) if (!this.inflight.has(id)) pending.delete(id);
    if (pending.size === 0) return 'done';
    return progress ? 'progress' : 'none';
  }

  private checkStall(lastProgress: number): void {
    if (Date.now() - lastProgress > this.stallTimeoutMs) this.fail(`no script-check result for ${this.stallTimeoutMs} ms`);
  }

  /**
   * More inputs queued in batches no thread has started than the workers verify while this thread
   * serves a burst of requests (BACKLOG_INPUTS each): this thread may take one without leaving a
   * worker idle later. Measured with 16 single calls in flight: taking any batch beyond each worker's
   * next one, this thread verified ~40% of the inputs and the worker ran dry while it prepared the
   * next burst; with this margin both stay busy (0.80 of bare verify against 0.76, alternated runs).
   */
  private backlogged(): boolean {
    let n = 0;
    for (const id of this.queue) {
      if (isClaimed(this.claims, id)) continue;
      n += this.inflight.get(id)?.inputs ?? 0;
      if (n > BACKLOG_INPUTS * this.size) return true;
    }
    return false;
  }

  /**
   * Verifies on this thread the newest batch no worker has claimed (the workers take theirs from the
   * front). False when there is none left to take.
   */
  private verifyOneHere(): boolean {
    for (let id = this.queue.pop(); id !== undefined; id = this.queue.pop()) {
      const f = this.inflight.get(id);
      if (!f || !claimBatch(this.claims, id)) continue;
      this.verifyHere(id, f);
      return true;
    }
    return false;
  }

  /** A batch this thread claimed, verified here. */
  private verifyHere(id: number, f: Inflight): void {
    this.settleOne(id, runBatch(f.batch));
    this.stats.local++;
  }

  /**
   * wait() for a caller that must not block the thread (the mempool accepting a burst while the RPC
   * server keeps reading requests): it awaits the workers' signal instead of Atomics.wait, and takes a
   * queued batch itself only after letting the event loop read what has arrived (measured: a batch of
   * sendrawtransaction calls goes ~15% faster than leaving every batch to the workers). Without workers
   * it verifies the batches here, as wait() does.
   */
  async waitAsync(ids: Iterable<number>): Promise<void> {
    const pending = this.unanswered(ids);
    if (pending.size === 0) return;
    // A pending Atomics.waitAsync does not keep the event loop alive (and the workers are unref'd).
    const keepAlive = setInterval(() => {}, 1000);
    this.asyncWaiters++;
    try {
      let lastProgress = Date.now();
      while (pending.size > 0) {
        if (!this.parallel) return this.wait(pending);
        const seen = Atomics.load(this.signal, 0);
        const round = this.round(pending);
        if (round === 'done') break;
        if (round === 'progress') {
          lastProgress = Date.now();
          continue;
        }
        if (this.backlogged()) {
          // A backlog (see backlogged): once the event loop has read what arrived (new requests come
          // first), this thread claims a batch itself, as wait() does. A batch posted while this waits
          // wakes it (post): sleeping through new ones idled this thread a third of the time while
          // the worker verified (measured on a timeline of both threads).
          await new Promise((r) => setImmediate(r));
          if (this.backlogged() && this.verifyOneHere()) lastProgress = Date.now();
          continue;
        }
        const w = Atomics.waitAsync(this.signal, 0, seen, 250);
        if ((w.async ? await w.value : w.value) === 'timed-out') this.checkStall(lastProgress);
      }
    } finally {
      this.asyncWaiters--;
      clearInterval(keepAlive);
    }
  }

  /**
   * Inputs per batch for a burst of `inputs` checked together and answered once all are (the
   * mempool's burst of sendrawtransaction calls): about four batches per verifying thread, the
   * calling one included, so that every thread has its share and one left to take, and at least
   * BURST_BATCH_INPUTS. Every batch costs a ring record, a worker's wake-up, a result and its read on
   * the calling thread, and a report of the transactions settled by then; a JSON-RPC batch of 50
   * calls went in 25 batches of two. A burst of up to 16 single inputs (16 calls in flight) keeps
   * batches of two: one batch per verifying thread (two of eight) left the node's CPU per tx, all
   * threads, as it was (0.258 against 0.260 ms, six alternated benches each) and moved verification
   * onto this thread, the one that serves the requests (0.188 against 0.166 ms per tx).
   */
  burstBatchInputs(inputs: number): number {
    return Math.max(BURST_BATCH_INPUTS, Math.ceil(inputs / (4 * Math.max(1, this.threads))));
  }

  /** A set of script checks (one block): see ScriptChecks. */
  checks(opts: ScriptCheckOptions): ScriptChecks {
    return new ScriptChecks(this, opts);
  }
}

export interface ScriptCheckOptions {
  flags: number;
  branchId: number;
  ccEnabled: boolean;
  /** Looked up before anything is posted: inputs whose signatures are all cached are settled here. */
  cache?: SignatureCache;
  /** Add the signatures the workers verified to the cache (the mempool); a block does not (komodod). */
  cacheStore?: boolean;
  /** Inputs per posted batch (default: the pool's). */
  batchInputs?: number;
  /**
   * Look the signatures up in the cache before posting (default true). The mempool does not: its
   * transactions are new, and the lookup costs the calling thread every signature hash.
   */
  cacheLookup?: boolean;
  /** The CC checker, for an input that unexpectedly reached a crypto-condition in a worker. */
  ccChecker?: CryptoConditionChecker;
}

interface BatchRef {
  pos: number;
  ns: number[] | null;
}

interface DeferredTx {
  tx: Transaction;
  spent: SpentOutput[];
  /** Per input: the outcome once known; undefined while pending. */
  outcomes: (InputOutcome | undefined)[];
  /** The posted batches holding its inputs. */
  batches: number[];
}

/**
 * The script checks of one block, in block order. For each transaction the caller asks defer(): the
 * inputs are then checked in the pool (or from the cache), and settle() later throws the error the serial
 * checkInputScripts would have thrown for the first failing transaction, input by input. A transaction
 * that cannot be deferred (a coin import, a mint, an input that may reach a crypto-condition, whose eval
 * code reads the chain as it stands at that transaction) is left to the caller to check serially then.
 */
export class ScriptChecks {
  private readonly txs = new Map<number, DeferredTx>();
  /** The batch being filled: the pool's writer while this holds unposted inputs (see VerifyPool.borrowWriter). */
  private batch: BufferWriter | undefined;
  /** Per transaction of the batch being filled: its block position and the inputs written (null: all). */
  private batchRefs: BatchRef[] = [];
  private batchInputs = 0;
  private readonly posted: number[] = [];

  constructor(
    private readonly pool: VerifyPool,
    private readonly opts: ScriptCheckOptions,
  ) {}

  /**
   * Defers the script checks of the transaction at block position `pos`; false: check it serially now.
   * `raw`, when given, is the transaction's serialisation (sent to the workers as is).
   */
  defer(pos: number, tx: Transaction, view: CoinView, raw?: Uint8Array): boolean {
    if (isCoinImport(tx) || isMint(tx)) return false;
    const vin = tx.vin;
    // The coins themselves (a coin is a spent output and more), not a copy of each.
    const spent = new Array<SpentOutput>(vin.length);
    for (let n = 0; n < vin.length; n++) {
      const input = vin[n]!;
      const coin = view.coin(input.prevout.txid(), input.prevout.index);
      if (!coin) return false; // the serial path throws MissingInputsError
      if (needsMainThread(input.scriptSig, coin.script, this.opts.flags, this.opts.ccEnabled)) return false;
      spent[n] = coin;
    }
    const d: DeferredTx = { tx, spent, outcomes: new Array<InputOutcome | undefined>(vin.length), batches: [] };
    this.txs.set(pos, d);
    const cache = this.opts.cache;
    const lookup = cache !== undefined && cache.size > 0 && this.opts.cacheLookup !== false;
    let txdata: PrecomputedTxData | undefined;
    // Without a cache lookup every input is queued (null: no list made).
    const queued: number[] | null = lookup ? [] : null;
    for (let n = 0; queued && n < vin.length; n++) {
      txdata ??= new PrecomputedTxData(tx);
      const made: CacheOnlySignatureChecker[] = [];
      const outcome = checkInputOutcome(tx.vin[n]!.scriptSig, spent[n]!, this.opts.flags, this.opts.ccEnabled, () => {
        const c = new CacheOnlySignatureChecker(tx, n, spent[n]!.value, this.opts.branchId, txdata!, cache!);
        made.push(c);
        return c;
      });
      if (!made.some((c) => c.missed)) {
        d.outcomes[n] = outcome;
        continue;
      }
      queued.push(n);
    }
    const count = queued ? queued.length : vin.length;
    if (count > 0) {
      this.batch ??= this.pool.borrowWriter();
      writeBatchTxInputs(this.batch, tx, spent, queued, raw);
      this.batchRefs.push({ pos, ns: queued });
      this.batchInputs += count;
      if (this.batchInputs >= (this.opts.batchInputs ?? this.pool.batchInputs)) this.flush();
    }
    return true;
  }

  /** Posts the inputs buffered so far. */
  flush(): void {
    if (this.batchInputs === 0) return;
    const refs = this.batchRefs;
    const id = this.pool.post(
      {
        flags: this.opts.flags,
        branchId: this.opts.branchId,
        ccEnabled: this.opts.ccEnabled,
        collectKeys: !!(this.opts.cache && this.opts.cacheStore),
        data: this.batch!.finish(),
      },
      this.batchInputs,
      (r) => this.receive(refs, r),
    );
    this.posted.push(id);
    for (let t = 0; t < refs.length; t++) this.txs.get(refs[t]!.pos)!.batches.push(id);
    this.pool.returnWriter(this.batch!);
    this.batch = undefined;
    this.batchRefs = [];
    this.batchInputs = 0;
  }

  private receive(refs: BatchRef[], r: BatchResult): void {
    if ('error' in r) throw new Error(r.error); // runBatch results only reach here
    const store = this.opts.cache && this.opts.cacheStore ? this.opts.cache : undefined;
    for (let t = 0; t < r.outcomes.length; t++) {
      const txOutcomes = r.outcomes[t]!;
      const { pos, ns } = refs[t]!;
      const d = this.txs.get(pos)!;
      for (let k = 0; k < txOutcomes.length; k++) {
        const n = ns ? ns[k]! : k;
        d.outcomes[n] = txOutcomes[k] ?? this.checkHere(d, n);
      }
      const keys = store ? r.keys?.[t] : undefined;
      if (keys) for (let k = 0; k < keys.length; k++) store!.add(SignatureCache.keyOf(keys[k]!));
    }
  }

  /** Should a worker have met a crypto-condition (needsMainThread is meant to prevent it): checked here. */
  private checkHere(d: DeferredTx, n: number): InputOutcome {
    const txdata = new PrecomputedTxData(d.tx);
    const cc = this.opts.ccChecker;
    return checkInputOutcome(d.tx.vin[n]!.scriptSig, d.spent[n]!, this.opts.flags, this.opts.ccEnabled, () =>
      new TransactionSignatureChecker(d.tx, n, d.spent[n]!.value, this.opts.branchId, txdata, cc ? { ccChecker: cc } : {}),
    );
  }

  /** Whether the transaction deferred at `pos` is checked already (result() would not wait). */
  ready(pos: number): boolean {
    const d = this.txs.get(pos);
    if (!d) return false;
    this.pool.poll();
    for (let n = 0; n < d.outcomes.length; n++) if (d.outcomes[n] === undefined) return false;
    return true;
  }

  /**
   * Waits without blocking the thread until the transaction deferred at `pos` is checked: the error the
   * serial checkInputScripts would have thrown for it, or undefined.
   */
  async result(pos: number): Promise<ValidationError | undefined> {
    const d = this.txs.get(pos);
    if (!d) throw new Error(`no script checks deferred at ${pos}`);
    this.flush();
    await this.pool.waitAsync(d.batches);
    return this.errorOf(d, pos);
  }

  /**
   * result() for a transaction ready() found checked: the same answer without the promises and the
   * turn of the microtask queue (a burst's transactions are mostly checked by the time it reaches them).
   */
  resultNow(pos: number): ValidationError | undefined {
    const d = this.txs.get(pos);
    if (!d) throw new Error(`no script checks deferred at ${pos}`);
    return this.errorOf(d, pos);
  }

  private errorOf(d: DeferredTx, pos: number): ValidationError | undefined {
    for (let n = 0; n < d.outcomes.length; n++) {
      const o = d.outcomes[n];
      if (o === undefined) throw new Error(`script check of input ${n} of transaction ${pos} was lost`);
      if (!o.ok) return outcomeError(o, n);
    }
    return undefined;
  }

  /**
   * Waits for every deferred check, then throws the serial path's error for the first failing
   * deferred transaction before block position `before` (all of them by default).
   */
  settle(before = Number.POSITIVE_INFINITY): void {
    this.flush();
    this.pool.wait(this.posted);
    this.posted.length = 0;
    const positions = [...this.txs.keys()].filter((p) => p < before).sort((a, b) => a - b);
    for (const pos of positions) {
      const d = this.txs.get(pos)!;
      for (let n = 0; n < d.outcomes.length; n++) {
        const o = d.outcomes[n];
        if (o === undefined) throw new Error(`script check of input ${n} of block transaction ${pos} was lost`);
        if (!o.ok) throw outcomeError(o, n);
      }
    }
  }
}

/**
 * Walks a block's transactions with deferred script checks kept in block order: when `f` throws at
 * transaction i, a deferred script failure of an earlier transaction (or of i itself, whose scripts
 * the serial path checks before anything after them) is the error, as the serial path would have met
 * it first; at the end every deferred check is settled.
 */
export function forEachInBlockOrder<T>(items: readonly T[], checks: ScriptChecks | undefined, f: (item: T, i: number) => void): void {
  items.forEach((item, i) => {
    try {
      f(item, i);
    } catch (e) {
      checks?.settle(i + 1);
      throw e;
    }
  });
  checks?.settle();
}

/**
 * checkInputScripts (src/chain/validation/scripts.ts) for one transaction, its inputs verified in the
 * pool: the same options, the same result and the same ValidationError. For a transaction with many
 * inputs, or a burst of relayed ones; the cache is consulted first and, with cacheStore, filled.
 */
export function checkInputScriptsInPool(
  pool: VerifyPool,
  tx: Transaction,
  view: CoinView,
  flags: number,
  branchId: number,
  opts: InputScriptOptions = {},
): void {
  if (!pool.parallel) return checkInputScripts(tx, view, flags, branchId, opts);
  const checks = pool.checks({
    flags,
    branchId,
    ccEnabled: opts.ccEnabled ?? opts.ccChecker !== undefined,
    ...(opts.cache ? { cache: opts.cache, cacheStore: opts.cacheStore ?? true } : {}),
    ...(opts.ccChecker ? { ccChecker: opts.ccChecker } : {}),
  });
  if (!checks.defer(0, tx, view)) return checkInputScripts(tx, view, flags, branchId, opts);
  checks.settle();
}
