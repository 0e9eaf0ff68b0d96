import { fsyncSync } from 'node:fs';
import { getSystemErrorName } from 'node:util';
import { Worker } from 'node:worker_threads';

/**
 * fsync on a helper thread, waited for synchronously when it must be done: a received block's bytes
 * are fsynced while the block is checked and its index writes are made, and the write transaction
 * that indexes it waits (Atomics.wait) for the fsync before it commits. The order on disk is the
 * one a synchronous fsync gave (block bytes durable before the record that points at them commits);
 * what changes is only that the main thread does not sit in fsync while it has work to do.
 *
 * A failed fsync is sticky: on Linux the kernel may drop the pages a failed fsync could not write
 * and report the next fsync as a success, so once one has failed no later wait succeeds (no commit
 * indexes bytes that may be gone).
 */

/** Int32 slots of the shared state: the last request, the last one done, and the errno of a failure (0: none). */
const REQUESTED = 0;
const DONE = 1;
const FAILED = 2;
/** A wait longer than this is a failure: a disk stalled for minutes is not one to go on writing to. */
const MAX_WAIT_MS = 10 * 60_000;

// The helper's code, evaluated as a CommonJS script (no loader: it runs as is under tsx and node).
const HELPER = `
const { parentPort, workerData } = require('node:worker_threads');
const { fsyncSync } = require('node:fs');
const state = new Int32Array(workerData.state);
parentPort.on('message', (m) => {
  try {
    for (const fd of m.fds) fsyncSync(fd);
  } catch (e) {
    Atomics.store(state, ${FAILED}, Math.abs((e && e.errno) || 0) || 1);
  }
  Atomics.store(state, ${DONE}, m.seq);
  Atomics.notify(state, ${DONE});
});
`;

export class BackgroundFsync {
  private readonly state = new Int32Array(new SharedArrayBuffer(12));
  private worker: Worker | undefined;
  private seq = 0;

  constructor() {
    try {
      this.worker = new Worker(HELPER, { eval: true, workerData: { state: this.state.buffer } });
      this.worker.unref();
      // A helper that dies (it should not) fails what it had not done rather than leave it waited for.
      this.worker.on('error', () => this.helperGone());
      this.worker.on('exit', () => this.helperGone());
    } catch {
      this.worker = undefined;
    }
  }

  /** Starts fsyncing `fds` (on the helper; here and now when there is none). */
  start(fds: readonly number[]): void {
    if (fds.length === 0) return;
    if (!this.worker) {
      for (const fd of fds) fsyncSync(fd);
      return;
    }
    this.seq++;
    Atomics.store(this.state, REQUESTED, this.seq);
    this.worker.postMessage({ fds, seq: this.seq });
  }

  /** Waits until every fsync started so far is done; throws if one failed (then always). */
  wait(): void {
    const want = Atomics.load(this.state, REQUESTED);
    const since = Date.now();
    for (;;) {
      const done = Atomics.load(this.state, DONE);
      if (done >= want || Atomics.load(this.state, FAILED) !== 0) break;
      // A helper gone mid-request cannot report (its exit event needs this thread): a stalled wait
      // is given up on after MAX_WAIT_MS, as a failure.
      if (Date.now() - since > MAX_WAIT_MS) Atomics.store(this.state, FAILED, -1);
      else Atomics.wait(this.state, DONE, done, 1000);
    }
    const code = Atomics.load(this.state, FAILED);
    if (code !== 0) {
      const why = code > 0 ? safeErrorName(code) : code === -1 ? `no answer in ${MAX_WAIT_MS / 1000} s` : 'the fsync helper thread stopped';
      throw new Error(`fsync of a block file failed (${why}): the block files cannot be trusted until the node restarts`);
    }
  }

  private helperGone(): void {
    if (!this.worker) return;
    this.worker = undefined;
    if (Atomics.load(this.state, DONE) < Atomics.load(this.state, REQUESTED)) Atomics.compareExchange(this.state, FAILED, 0, -2);
  }

  /** Waits for what is pending, then stops the helper. */
  close(): void {
    try {
      this.wait();
    } finally {
      const w = this.worker;
      this.worker = undefined;
      if (w) void w.terminate();
    }
  }
}

function safeErrorName(errno: number): string {
  try {
    return getSystemErrorName(-errno);
  } catch {
    return `errno ${errno}`;
  }
}
