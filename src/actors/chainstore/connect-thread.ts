import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { workerEntry } from '../worker-entry.js';

/** What the connect thread is given for one block, before the chain store's thread checks it. */
export interface ConnectJob {
  hash: string;
  height: number;
  prev: string | null;
  raw: Uint8Array;
  txStarts: Uint32Array;
  txids: string[];
  /** Block-index records to write in the same transaction (encodeRecord's bytes). */
  records: { hash: string; value: Uint8Array }[];
  /** The parent's value pools up to it (five amounts), null where unknown. */
  parentTotal: bigint[] | null;
}

export interface ConnectThreadInit {
  /** the chain state's LMDB directory (BlockStore.dbPath) */
  path: string;
  addressIndex: boolean;
  signal: SharedArrayBuffer;
  port: MessagePort;
}

/** What the thread says of a job: committed (visible and synced), or not, and why. */
export type ConnectMessage = { log: string } | { done: number; error?: string; aborted?: boolean };

// The shared words: the thread's state; the verdict on the job in flight; how many jobs have ended.
export const STATE = 0;
export const VERDICT = 1;
export const ENDED = 2;
export const READY = 1;
export const FAILED = 2;
export const COMMIT = 1;
export const ABORT = 2;

const LOAD_FAILED = `(e) => { const s = new Int32Array(require('node:worker_threads').workerData.signal); Atomics.store(s, ${STATE}, ${FAILED}); Atomics.notify(s, ${ENDED}); throw e; }`;

/** One block in flight on the connect thread: its write transaction is open there until commit() or abort(). */
export interface InFlight {
  /** The checks passed: the thread commits (the block becomes visible, then synced). */
  commit(): void;
  /** The checks failed: the thread aborts the transaction; nothing of the block is written. */
  abort(): void;
  /** Whether the thread has ended the job (committed and synced, or not): a commit not visible by then failed. */
  ended(): boolean;
  /** Settles once the thread has ended the job: committed and synced, or rejected with why not. */
  readonly done: Promise<void>;
}

/**
 * The running node's connect thread: a block's effects on every index (writeBlockEffects: about
 * 4,000 LMDB operations for 500 transactions, half the chain store's CPU per connect) are written
 * here, in one write transaction of the chain's environment, while the chain store's thread checks
 * the block. The transaction stays open until the checks end: it commits on commit(), and a block
 * that fails them, or a throw here, aborts it whole. So a block is still one write transaction, and
 * a kill at any point leaves the chain at the last commit. One job at a time; the chain store's
 * ChainDb.writeVisibleOn guards that nothing else writes meanwhile.
 */
export class ConnectThread {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly signal = new Int32Array(new SharedArrayBuffer(12));
  private posted = 0;
  private readonly waiting = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  private failure: string | undefined;

  private constructor(init: Omit<ConnectThreadInit, 'signal' | 'port'>, private readonly log: (msg: string) => void) {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    const { entry, eval: isEval } = workerEntry(import.meta.url, 'connect-worker', LOAD_FAILED);
    this.worker = new Worker(entry, { eval: isEval, workerData: { ...init, signal: this.signal.buffer, port: port2 } satisfies ConnectThreadInit, transferList: [port2] });
    this.worker.unref();
    this.port.unref();
    this.port.on('message', (m: ConnectMessage) => this.take(m));
    this.worker.on('error', (e) => {
      this.failure ??= `the connect thread stopped: ${e instanceof Error ? e.message : String(e)}`;
      Atomics.store(this.signal, STATE, FAILED);
      this.failAll();
    });
  }

  static start(init: Omit<ConnectThreadInit, 'signal' | 'port'>, log: (msg: string) => void): ConnectThread {
    return new ConnectThread(init, log);
  }

  /**
   * Loaded and not failed: a block may go to it (never waits for it to load). One block at a time:
   * ChainDb.writeVisibleOn begins the next once the last has ended here (committed and synced).
   */
  get usable(): boolean {
    return Atomics.load(this.signal, STATE) === READY;
  }

  /** How many blocks were handed over. */
  get handed(): number {
    return this.posted;
  }

  /** Hands a block over: the thread opens its write transaction and writes its effects, then waits for commit() or abort(). */
  begin(job: ConnectJob): InFlight {
    const seq = ++this.posted;
    Atomics.store(this.signal, VERDICT, 0);
    const done = new Promise<void>((resolve, reject) => this.waiting.set(seq, { resolve, reject }));
    this.port.postMessage({ seq, job });
    const verdict = (v: number) => {
      Atomics.store(this.signal, VERDICT, v);
      Atomics.notify(this.signal, VERDICT);
    };
    // Read as the thread ends it (the chain store's thread may be blocked waiting, not listening).
    return {
      commit: () => verdict(COMMIT),
      abort: () => verdict(ABORT),
      ended: () => {
        if (Atomics.load(this.signal, ENDED) < seq && Atomics.load(this.signal, STATE) !== FAILED) return false;
        this.drain();
        return true;
      },
      done,
    };
  }

  /** Reads the thread's messages now (the chain store's thread may be blocked waiting on a commit). */
  private drain(): void {
    for (let m = receiveMessageOnPort(this.port); m; m = receiveMessageOnPort(this.port)) this.take(m.message as ConnectMessage);
  }

  private take(m: ConnectMessage): void {
    if ('log' in m) {
      this.log(m.log);
      return;
    }
    const w = this.waiting.get(m.done);
    if (!w) return;
    this.waiting.delete(m.done);
    if (m.error === undefined) w.resolve();
    else w.reject(new Error(m.error));
  }

  private failAll(): void {
    for (const w of this.waiting.values()) w.reject(new Error(this.failure ?? 'the connect thread stopped'));
    this.waiting.clear();
  }

  async stop(): Promise<void> {
    this.port.close();
    await this.worker.terminate();
    this.failAll();
  }
}
