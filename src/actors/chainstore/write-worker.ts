import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { Block } from '../../chain/block/block.js';
import { writeBlockEffects, type ChainStateParts } from './block-effects.js';
import { ChainIndexes } from './chainstate.js';
import { poolsFrom } from './pools.js';
import { OrderIndex } from './orderindex.js';
import { BlockStore } from './store.js';
import { SupplyIndex } from './supplyindex.js';
import { TokenIndex } from './tokenindex.js';
import { FAILED, READY, STATE, COMMITTED, type WriteJob, type WriterInit, type WriterMessage } from './write-thread.js';

/**
 * The reindex's write thread (write-thread.ts): takes verified blocks in order and writes each one's
 * effects and the new tip in one write transaction of the chain's environment, the chain store's
 * thread verifying the next meanwhile. It verifies nothing: what it is given was verified.
 */
const init = workerData as WriterInit;
const signal = new Int32Array(init.signal);
const port = init.port as MessagePort;
const say = (m: WriterMessage) => port.postMessage(m);

let parts: (ChainStateParts & { store: BlockStore }) | undefined;

/** Opened at the first block: the environment is being rebuilt until then. */
function open(): ChainStateParts & { store: BlockStore } {
  const store = BlockStore.open(init.dir, init.magic, false, init.cacheBytes);
  const indexes = new ChainIndexes(store.db, init.addressIndex);
  return { store, db: store.db, indexes, tokens: new TokenIndex(store.db, (msg) => say({ log: msg })), supply: new SupplyIndex(store.db), orders: new OrderIndex(store.db) };
}

/** A confirmed transaction, for the token validator: every block before this one is committed here. */
function lookup(p: ChainStateParts & { store: BlockStore }, txid: string) {
  const loc = p.indexes.txLocation(txid);
  if (!loc) return undefined;
  const pos = p.db.blockPos(loc.blockHash);
  if (!pos) return undefined;
  return loc.offset !== undefined ? p.store.readTx(loc.blockHash, pos, loc.offset, loc.length!, loc.index) : p.store.txAt(loc.blockHash, pos, loc.index);
}

function write(job: WriteJob): void {
  const p = (parts ??= open());
  const block = Block.fromRaw(job.raw);
  // The parent's value pools: given for the first block after a commit of the chain store's, else the parent's, written here.
  const parentTotal = job.parentTotal !== undefined ? job.parentTotal : job.prev ? (p.indexes.poolsOf(job.prev)?.total ?? null) : null;
  p.db.write(() => {
    for (const r of job.records) p.db.putEncodedBlock(r.hash, r.value);
    writeBlockEffects(p, { hash: job.hash, height: job.height, prev: job.prev, block, txids: job.txids, txStarts: job.txStarts }, parentTotal && poolsFrom(parentTotal), (id) => lookup(p, id));
  });
}

port.on('message', (job: WriteJob) => {
  if (Atomics.load(signal, STATE) === FAILED) return;
  try {
    write(job);
    Atomics.add(signal, COMMITTED, 1);
  } catch (e) {
    say({ error: `writing block ${job.hash} at height ${job.height}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}` });
    Atomics.store(signal, STATE, FAILED);
  }
  Atomics.notify(signal, COMMITTED);
});
Atomics.store(signal, STATE, READY);
Atomics.notify(signal, COMMITTED);
parentPort?.postMessage('ready');
