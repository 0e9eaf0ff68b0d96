import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { selectSecp256k1Backend, type Secp256k1BackendChoice } from '../../chain/crypto/secp256k1.js';
import { runBatch, type BatchResult, type ScriptBatch } from './jobs.js';
import { claimBatch } from './claims.js';

/**
 * A script-check worker: receives batches of inputs on its parent port, verifies them, and posts the
 * results on its own result port, then bumps the shared counter and wakes the main thread, which may be
 * waiting synchronously (Atomics.wait) inside a block connection. A batch the main thread claimed first
 * (it verifies batches itself while it waits) is skipped.
 */
interface WorkerInit {
  results: MessagePort;
  signal: SharedArrayBuffer;
  claims: SharedArrayBuffer;
  backend: Secp256k1BackendChoice;
}

const init = workerData as WorkerInit;
const signal = new Int32Array(init.signal);
const claims = new Int32Array(init.claims);
selectSecp256k1Backend(init.backend);

function reply(r: BatchResult): void {
  init.results.postMessage(r);
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
}

parentPort!.on('message', (batch: ScriptBatch) => {
  if (!claimBatch(claims, batch.id)) return;
  try {
    reply(runBatch(batch));
  } catch (e) {
    reply({ id: batch.id, error: e instanceof Error ? e.message : String(e) });
  }
});
parentPort!.postMessage({ ready: true });
