import type { Transaction } from '../../chain/tx/transaction.js';
import {
  MissingInputsError,
  ValidationError,
  checkTxInputs,
  isExpiredTx,
  isFinalTx,
  type Coin,
  type CoinView,
  type ValidationContext,
} from '../../chain/validation/index.js';
import { outpointKey } from '../../chain/tx/input.js';

/**
 * The coins a block template's transaction sees (CreateNewBlock's CCoinsViewCache over the tip, which
 * UpdateCoins advances as transactions are taken): the chain's, less those spent by a transaction
 * taken before it, plus the outputs of those.
 */
export class TemplateCoinView implements CoinView {
  readonly spent = new Set<string>();
  readonly taken = new Map<string, Transaction>();

  constructor(
    private readonly chainCoins: ReadonlyMap<string, Coin>,
    private readonly height: number,
  ) {}

  coin(txid: string, n: number): Coin | undefined {
    const k = outpointKey(txid, n);
    if (this.spent.has(k)) return undefined;
    const c = this.chainCoins.get(k);
    if (c) return c;
    const out = this.taken.get(txid)?.vout[n];
    return out ? { value: out.value, script: out.script, height: this.height, coinbase: false, txVersion: this.taken.get(txid)!.version } : undefined;
  }

  take(tx: Transaction, txid: string): void {
    for (const i of tx.vin) this.spent.add(outpointKey(i.prevout.txid(), i.prevout.index));
    this.taken.set(txid, tx);
  }
}

/** The outpoints of `entries` that are not outputs of another of them: the chain coins to look up. */
export function chainOutpoints(entries: readonly { tx: Transaction; txid: string }[]): [string, number][] {
  const pool = new Set(entries.map((e) => e.txid));
  const out: [string, number][] = [];
  for (const e of entries) {
    if (e.tx.isCoinbase()) continue;
    for (const i of e.tx.vin) if (!pool.has(i.prevout.txid())) out.push([i.prevout.txid(), i.prevout.index]);
  }
  return out;
}

/**
 * The mempool transactions CreateNewBlock (miner.cpp) would put in a block at `height`, in the given
 * order (parents first): final at the tip's median time past, not expired, every input available and
 * CheckTxInputs passing (coinbase maturity, amounts). komodod skips a transaction that fails and mines
 * the rest (a child of a skipped one finds its input missing), so one mempool transaction made invalid
 * by a reorg never fails a whole `generate`. Input scripts are not run again here: the mempool checked
 * them at acceptance with the standard flags, a superset of the block's mandatory ones.
 */
export function blockCandidates<T extends { tx: Transaction; txid: string }>(
  entries: readonly T[],
  chainCoins: ReadonlyMap<string, Coin>,
  height: number,
  mtp: number,
  ctx: ValidationContext,
): T[] {
  const view = new TemplateCoinView(chainCoins, height);
  const out: T[] = [];
  for (const e of entries) {
    if (e.tx.isCoinbase() || !isFinalTx(e.tx, height, mtp) || isExpiredTx(e.tx, height)) continue;
    try {
      checkTxInputs(e.tx, view, height, ctx);
    } catch (err) {
      if (err instanceof ValidationError || err instanceof MissingInputsError) continue;
      throw err;
    }
    view.take(e.tx, e.txid);
    out.push(e);
  }
  return out;
}
