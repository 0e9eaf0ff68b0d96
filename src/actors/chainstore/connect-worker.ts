import { workerData, type MessagePort } from 'node:worker_threads';
import { Block } from '../../chain/block/block.js';
import { writeBlockEffects, type ChainStateParts } from './block-effects.js';
import { ChainDb } from './chaindb.js';
import { ChainIndexes } from './chainstate.js';
import { poolsFrom } from './pools.js';
import { SupplyIndex } from './supplyindex.js';
import { TokenIndex } from './tokenindex.js';
import { ABORT, COMMIT, ENDED, FAILED, READY, STATE, VERDICT, type ConnectJob, type ConnectMessage, type ConnectThreadInit } from './connect-thread.js';

/**
 * The connect thread (connect-thread.ts): writes a block's effects in one write transaction, then
 * waits inside it for the chain store's verdict on the block's checks, committing or aborting it
 * whole. It verifies nothing, and reads no block file: a block whose token transactions need a
 * confirmed transaction is connected on the chain store's thread (the lookup here throws, which
 * aborts the transaction: that never happens to a block the chain store hands over).
 */
const init = workerData as ConnectThreadInit;
const signal = new Int32Array(init.signal);
const port = init.port as MessagePort;
const say = (m: ConnectMessage) => port.postMessage(m);

const db = ChainDb.open(init.path);
const parts: ChainStateParts = { db, indexes: new ChainIndexes(db, init.addressIndex), tokens: new TokenIndex(db, (msg) => say({ log: msg })), supply: new SupplyIndex(db) };

class Aborted extends Error {}

function write(job: ConnectJob): void {
  const block = Block.fromRaw(job.raw);
  db.write(() => {
    for (const r of job.records) db.putEncodedBlock(r.hash, r.value);
    writeBlockEffects(parts, { hash: job.hash, height: job.height, prev: job.prev, block, txids: job.txids, txStarts: job.txStarts }, job.parentTotal && poolsFrom(job.parentTotal), () => {
      throw new Error('a confirmed transaction was asked for on the connect thread');
    });
    // Open until the block's checks end on the chain store's thread.
    while (Atomics.load(signal, VERDICT) === 0) Atomics.wait(signal, VERDICT, 0, 1000);
    if (Atomics.load(signal, VERDICT) !== COMMIT) throw new Aborted();
  });
}

port.on('message', ({ seq, job }: { seq: number; job: ConnectJob }) => {
  let msg: ConnectMessage = { done: seq };
  try {
    write(job);
  } catch (e) {
    msg = e instanceof Aborted ? { done: seq, error: 'aborted', aborted: true } : { done: seq, error: `connecting block ${job.hash} at height ${job.height}: ${e instanceof Error ? e.message : String(e)}` };
    // A throw before the verdict: the chain store's thread may be checking still; it aborts on its own.
  }
  Atomics.add(signal, ENDED, 1);
  Atomics.notify(signal, ENDED);
  say(msg);
});
void ABORT;
void FAILED;
Atomics.store(signal, STATE, READY);
Atomics.notify(signal, ENDED);
