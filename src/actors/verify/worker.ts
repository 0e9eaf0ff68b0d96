import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { BufferWriter } from '../../chain/encoding/writer.js';
import { runBatch, type BatchResult } from './jobs.js';
import { claimBatch } from './claims.js';
import { SharedRing } from './ring.js';
import { selectSecp256k1Backend, type Secp256k1BackendChoice } from './sig-backend.js';
import { decodeBatch, encodeResult } from './wire.js';

/**
 * A script-check worker: takes batches of inputs from its jobs ring, verifies them, and puts the
 * results in its results ring, then bumps the shared counter and wakes the main thread, which may be
 * waiting (Atomics.wait inside a block connection, Atomics.waitAsync in the mempool). A batch the main
 * thread claimed first (it verifies batches itself while it waits) is skipped. The worker sleeps in
 * Atomics.wait while its ring is empty and returns to its event loop when the ring is closed.
 */
interface WorkerInit {
  jobs: SharedArrayBuffer;
  results: SharedArrayBuffer;
  signal: SharedArrayBuffer;
  claims: SharedArrayBuffer;
  backend: Secp256k1BackendChoice;
}

const init = workerData as WorkerInit;
const signal = new Int32Array(init.signal);
const claims = new Int32Array(init.claims);
const jobs = new SharedRing(init.jobs);
const results = new SharedRing(init.results);
const writer = new BufferWriter(4096);
// The node's backend, by name: one that does not load here throws, and the pool verifies on its own thread.
const backend = selectSecp256k1Backend(init.backend).backend.name;

/** How much lower than the node's main thread a worker runs (nice steps, Linux). */
const WORKER_NICE_STEPS = 10;

/**
 * A worker is woken for every batch posted. On a machine with no idle core the woken worker would
 * preempt the main thread that posted it, the one that reads the sockets and answers the callers:
 * on 2 cores shared with a sending peer, a relaying node's main thread spent a tenth of its time
 * inside the ring push that wakes a worker, and relayed 0.73-0.82 of the sender's rate (0.92-0.97
 * with its workers niced). Where a core is idle the worker runs at once all the same. Linux sets a
 * thread's own nice value by its id (/proc/thread-self); elsewhere the worker keeps its priority.
 */
function yieldToMainThread(): void {
  if (process.platform !== 'linux') return;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (tid > 0) setPriority(tid, Math.min(19, getPriority(tid) + WORKER_NICE_STEPS));
  } catch {
    // No /proc: the worker keeps the main thread's priority (it only verifies; nothing depends on it).
  }
}
yieldToMainThread();

function reply(r: BatchResult): void {
  let bytes = encodeResult(r, writer);
  // A result too big for the ring (thousands of signatures in one batch): the calling thread verifies
  // that batch itself, as for any worker error.
  if (!results.fits(bytes.length)) bytes = encodeResult({ id: r.id, error: `result of ${bytes.length} bytes does not fit its ring` }, writer);
  // A full ring waits for the calling thread to read (it does whenever it waits for results).
  results.pushWaiting(bytes);
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
}

function serve(): void {
  // Woken by a push or the close; the timeout only bounds a sleep should a wake-up be missed.
  while (jobs.waitForRecord(1000)) {
    for (let record = jobs.shift(); record; record = jobs.shift()) {
      const batch = decodeBatch(record);
      if (!claimBatch(claims, batch.id)) continue;
      let r: BatchResult;
      try {
        r = runBatch(batch);
      } catch (e) {
        r = { id: batch.id, error: e instanceof Error ? e.message : String(e) };
      }
      reply(r);
    }
  }
}

parentPort!.postMessage({ ready: true, backend });
// After the ready message is on its way: from here the thread blocks between batches.
setImmediate(serve);
