import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { workerEntry } from '../worker-entry.js';

/** What the write thread is given for one verified block. */
export interface WriteJob {
  hash: string;
  height: number;
  prev: string | null;
  raw: Uint8Array;
  txStarts: Uint32Array;
  txids: string[];
  /** Block-index records to write in the same transaction (blocks the chain store's thread indexed since the last job; encodeRecord's bytes). */
  records: { hash: string; value: Uint8Array }[];
  /** The parent's value pools up to it (five amounts, null where unknown); absent: the thread reads them (it wrote the parent). */
  parentTotal?: bigint[] | null;
}

export interface WriterInit {
  dir: string;
  magic: Uint8Array;
  addressIndex: boolean;
  cacheBytes?: number;
  signal: SharedArrayBuffer;
  port: MessagePort;
}

/** What the write thread says: a line for the log, or why it stopped. */
export type WriterMessage = { log: string } | { error: string };

// The shared words: the thread's state and how many blocks it has committed.
export const STATE = 0;
export const COMMITTED = 1;
export const READY = 1;
export const FAILED = 2;

/** How long the first block waits for the thread to load before the chain store writes on its own thread. */
const READY_TIMEOUT_MS = 60_000;

/** A module that fails to load marks the thread failed at once (the chain store's thread may be waiting for it, not listening). */
const LOAD_FAILED = `(e) => { const s = new Int32Array(require('node:worker_threads').workerData.signal); Atomics.store(s, ${STATE}, ${FAILED}); Atomics.notify(s, ${COMMITTED}); throw e; }`;

/**
 * -reindex's write thread: an I/O thread for the chain state while a reindex connects its blocks. The
 * chain store's thread reads each block and verifies it (every script, on that one thread, as -par=1
 * asks), hands it here, and verifies the next one while this thread writes the block's index rows, undo
 * data, value pools and tip in one LMDB write transaction. Blocks are handed over only once verified,
 * in order, and at most `depth` are waiting or being written (the chain store's view of their coins
 * covers them until they commit). Waits are synchronous (Atomics.wait), so connecting stays a
 * synchronous walk.
 */
export class WriteThread {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly signal = new Int32Array(new SharedArrayBuffer(8));
  private posted = 0;
  private failure: string | undefined;

  private constructor(
    init: Omit<WriterInit, 'signal' | 'port'>,
    private readonly log: (msg: string) => void,
  ) {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    const { entry, eval: isEval } = workerEntry(import.meta.url, 'write-worker', LOAD_FAILED);
    this.worker = new Worker(entry, { eval: isEval, workerData: { ...init, signal: this.signal.buffer, port: port2 } satisfies WriterInit, transferList: [port2] });
    this.worker.unref();
    // A thread that fails to load says so here (later, when the chain store's thread is free), and is never used.
    this.worker.on('error', (e) => {
      this.failure ??= `the write thread stopped: ${e instanceof Error ? e.message : String(e)}`;
      Atomics.store(this.signal, STATE, FAILED);
    });
  }

  /** Starts loading the thread (it opens the chain state at its first block). */
  static start(init: Omit<WriterInit, 'signal' | 'port'>, log: (msg: string) => void): WriteThread {
    return new WriteThread(init, log);
  }

  /** Whether the thread has loaded and not failed, waiting for it to load if need be. */
  ready(timeoutMs = READY_TIMEOUT_MS): boolean {
    const until = Date.now() + timeoutMs;
    while (Atomics.load(this.signal, STATE) === 0 && Date.now() < until) Atomics.wait(this.signal, COMMITTED, 0, 50);
    this.drain();
    return Atomics.load(this.signal, STATE) === READY;
  }

  /** Whether the thread is still loading (neither ready nor failed): nothing waits for it. */
  get loading(): boolean {
    return Atomics.load(this.signal, STATE) === 0;
  }

  /** Blocks handed over and not committed yet. */
  get inFlight(): number {
    return this.posted - Atomics.load(this.signal, COMMITTED);
  }

  /** How many blocks the thread has committed. */
  get committed(): number {
    return Atomics.load(this.signal, COMMITTED);
  }

  /** Hands a verified block over (its bytes are copied). */
  post(job: WriteJob): void {
    this.port.postMessage(job);
    this.posted++;
  }

  /** Waits until at most `n` blocks are in flight; throws why the thread stopped, if it did. */
  waitUntil(n: number): void {
    for (;;) {
      this.drain();
      if (Atomics.load(this.signal, STATE) === FAILED) {
        // The message says why; a thread that died without one is reported as such.
        for (let i = 0; i < 20 && !this.failure; i++) {
          Atomics.wait(this.signal, COMMITTED, Atomics.load(this.signal, COMMITTED), 5);
          this.drain();
        }
        throw new Error(this.failure ?? 'the write thread stopped');
      }
      const done = Atomics.load(this.signal, COMMITTED);
      if (this.posted - done <= n) return;
      Atomics.wait(this.signal, COMMITTED, done, 100);
    }
  }

  /** The thread's log lines and failure, as they came. */
  private drain(): void {
    for (let m = receiveMessageOnPort(this.port); m; m = receiveMessageOnPort(this.port)) {
      const msg = m.message as WriterMessage;
      if ('log' in msg) this.log(msg.log);
      else this.failure ??= msg.error;
    }
  }

  async stop(): Promise<void> {
    this.port.close();
    await this.worker.terminate();
  }
}
