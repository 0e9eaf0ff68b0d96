import type { Transaction } from '../../chain/tx/transaction.js';
import type { Coin, CoinView } from '../../chain/validation/index.js';
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
