import type { Transaction } from '../../chain/tx/transaction.js';
import {
  MissingInputsError,
  ValidationError,
  checkTxInputs,
  isExpiredTx,
  isFinalTx,
  type Coin,
  type ValidationContext,
} from '../../chain/validation/index.js';
import { outpointKey } from '../../chain/tx/input.js';
import { legacySigOpCount, p2shInputsSigOpCount } from '../../chain/validation/sigops.js';
import { COIN } from '../../chain/consensus/amount.js';
import { DEFAULT_MIN_RELAY_TX_FEE } from '../../chain/validation/policy.js';
import type { PriorityDelta } from '../mempool/protocol.js';
import { TemplateCoinView } from './select.js';

/** AllowFreeThreshold (txmempool.h): COIN * 144 / 250, in int64. */
const ALLOW_FREE_THRESHOLD = Number((COIN * 144n) / 250n);
/** DEFAULT_BLOCK_PRIORITY_SIZE (main.h): DEFAULT_BLOCK_MAX_SIZE / 2. */
const DEFAULT_BLOCK_PRIORITY_SIZE = 1_000_000;

interface Item<T> {
  entry: T;
  priority: number;
  /** CFeeRate's satoshis per 1000 bytes. */
  feeRate: bigint;
  /** Mempool order: breaks ties (std::make_heap leaves their order unspecified). */
  seq: number;
}

/** A max-heap under a comparator that can change (TxPriorityCompare by priority, then by fee). */
class Heap<T> {
  readonly items: Item<T>[] = [];
  constructor(private less: (a: Item<T>, b: Item<T>) => boolean) {}

  reorder(less: (a: Item<T>, b: Item<T>) => boolean): void {
    this.less = less;
    const all = this.items.splice(0);
    for (const x of all) this.push(x);
  }

  push(x: Item<T>): void {
    const a = this.items;
    a.push(x);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(a[p]!, a[i]!)) break;
      [a[p], a[i]] = [a[i]!, a[p]!];
      i = p;
    }
  }

  pop(): Item<T> | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && this.less(a[m]!, a[l]!)) m = l;
        if (r < a.length && this.less(a[m]!, a[r]!)) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i]!, a[m]!];
        i = m;
      }
    }
    return top;
  }
}

/** TxPriorityCompare: byFee orders by fee rate then priority, else by priority then fee rate. */
function comparer<T>(byFee: boolean): (a: Item<T>, b: Item<T>) => boolean {
  const tie = (a: Item<T>, b: Item<T>) => a.seq > b.seq;
  if (byFee) return (a, b) => (a.feeRate === b.feeRate ? (a.priority === b.priority ? tie(a, b) : a.priority < b.priority) : a.feeRate < b.feeRate);
  return (a, b) => (a.priority === b.priority ? (a.feeRate === b.feeRate ? tie(a, b) : a.feeRate < b.feeRate) : a.priority < b.priority);
}

/** CTransaction::CalculateModifiedSize: less each input's 41 bytes and up to 110 of its scriptSig. */
function modifiedSize(tx: Transaction, size: number): number {
  for (const i of tx.vin) {
    const offset = 41 + Math.min(110, i.scriptSig.length);
    if (size > offset) size -= offset;
  }
  return size;
}

/**
 * CreateNewBlock's choice and order of mempool transactions (miner.cpp): each gets a priority (the
 * value of its chain inputs times their confirmations, over its modified size) and a fee rate, both
 * with prioritisetransaction's deltas added (ApplyDeltas); a transaction waits for its mempool parents.
 * The heap serves by priority until the priority area (1,000,000 bytes) is full or the next one is not
 * free-worthy (AllowFree), then by fee rate; once by fee rate, a transaction paying under the relay
 * fee rate is skipped unless a delta raised it. Each taken one must fit (size and sigops, leaving komodod's
 * margins) and pass CheckTxInputs on the coins as the block so far leaves them. Returns the taken
 * transactions in block order with their sigops (legacy plus P2SH, vTxSigOps).
 */
export function selectForBlock<T extends { tx: Transaction; txid: string; size: number }>(
  entries: readonly T[],
  chainCoins: ReadonlyMap<string, Coin>,
  height: number,
  mtp: number,
  ctx: ValidationContext,
  deltas: ReadonlyMap<string, PriorityDelta>,
  maxBlockSize: number,
): { entry: T; sigops: number }[] {
  const pool = new Map<string, T>();
  for (const e of entries) pool.set(e.txid, e);
  const heap = new Heap<T>(comparer(false));
  /** An orphan's mempool parents not yet taken, and the orphans waiting on each parent. */
  const waitingOn = new Map<string, Set<string>>();
  const dependers = new Map<string, Item<T>[]>();
  entries.forEach((e, seq) => {
    const tx = e.tx;
    if (tx.isCoinbase() || !isFinalTx(tx, height, mtp) || isExpiredTx(tx, height)) return;
    let priority = 0;
    let totalIn = 0n;
    const parents = new Set<string>();
    for (const input of tx.vin) {
      const ptxid = input.prevout.txid();
      const coin = chainCoins.get(outpointKey(ptxid, input.prevout.index));
      if (!coin) {
        const parent = pool.get(ptxid);
        // "mempool transaction missing input": left out.
        if (!parent) return;
        parents.add(ptxid);
        totalIn += parent.tx.vout[input.prevout.index]?.value ?? 0n;
        continue;
      }
      totalIn += coin.value;
      priority += Number(coin.value) * (height - coin.height);
    }
    const mod = modifiedSize(tx, e.size);
    priority = mod === 0 ? 0 : priority / mod;
    const d = deltas.get(e.txid);
    if (d) {
      priority += d.priority;
      totalIn += d.fee;
    }
    const valueOut = tx.vout.reduce((s, o) => s + o.value, 0n);
    const feeRate = e.size > 0 ? ((totalIn - valueOut) * 1000n) / BigInt(e.size) : 0n;
    const item: Item<T> = { entry: e, priority, feeRate, seq };
    if (parents.size === 0) {
      heap.push(item);
      return;
    }
    waitingOn.set(e.txid, parents);
    for (const p of parents) {
      let list = dependers.get(p);
      if (!list) dependers.set(p, (list = []));
      list.push(item);
    }
  });

  const view = new TemplateCoinView(chainCoins, height);
  const prioritySize = Math.min(maxBlockSize, DEFAULT_BLOCK_PRIORITY_SIZE);
  const out: { entry: T; sigops: number }[] = [];
  let blockSize = 1000;
  let blockSigOps = 100;
  let byFee = prioritySize <= 0;
  for (let item = heap.pop(); item; item = heap.pop()) {
    const { entry: e, priority, feeRate } = item;
    const size = e.size;
    // Room for an extra transaction komodod adds itself (its "autotx" margin).
    if (blockSize + size >= maxBlockSize - 512) continue;
    let sigops = legacySigOpCount(e.tx);
    if (blockSigOps + sigops >= ctx.maxBlockSigops - 1) continue;
    const d = deltas.get(e.txid);
    // Past the minimum block size (0), by fee rate: a transaction under the relay fee rate waits,
    // unless prioritisetransaction raised it.
    if (byFee && !(d && (d.priority > 0 || d.fee > 0)) && feeRate < DEFAULT_MIN_RELAY_TX_FEE) continue;
    if (!byFee && (blockSize + size >= prioritySize || !(priority > ALLOW_FREE_THRESHOLD))) {
      byFee = true;
      heap.reorder(comparer(true));
    }
    try {
      checkTxInputs(e.tx, view, height, ctx);
    } catch (err) {
      if (err instanceof ValidationError || err instanceof MissingInputsError) continue;
      throw err;
    }
    sigops += p2shInputsSigOpCount(e.tx, view);
    if (blockSigOps + sigops >= ctx.maxBlockSigops - 1) continue;
    view.take(e.tx, e.txid);
    out.push({ entry: e, sigops });
    blockSize += size;
    blockSigOps += sigops;
    for (const orphan of dependers.get(e.txid) ?? []) {
      const left = waitingOn.get(orphan.entry.txid);
      if (!left || left.size === 0) continue;
      left.delete(e.txid);
      if (left.size === 0) heap.push(orphan);
    }
  }
  return out;
}
