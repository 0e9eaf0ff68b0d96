import type { ChainDb } from './chaindb.js';
import type { ChainIndexes } from './chainstate.js';
import type { ChainCoins, ChainReader, Coin, Outpoint } from './protocol.js';

/** The chain store's environment and indexes, while they can be read (ChainStoreLogic.readSource). */
export type ReadSource = () => { db: ChainDb; indexes: ChainIndexes } | undefined;

/**
 * A ChainReader over the chain store's own LMDB environment: the same environment object, so its
 * reads share lmdb-js's read transaction, which stays one snapshot for a synchronous run of reads
 * (renewed after the store's commits and on the next turn), and so a run of reads is one consistent
 * committed state whose tip is read with it. It never writes; mempoolView's answer (logic.ts) is the
 * reference it reproduces.
 */
export class LmdbChainReader implements ChainReader {
  constructor(private readonly source: ReadSource) {}

  tip(): string | undefined {
    try {
      return this.source()?.db.getMeta<string>('tip');
    } catch {
      // The environment closed under us (a stop): the caller asks the chain store, which answers or refuses.
      return undefined;
    }
  }

  coins(expectTip: string, items: readonly { txid: string; outpoints: readonly Outpoint[]; outputs: number }[]): ChainCoins[] | undefined {
    const src = this.source();
    if (!src) return undefined;
    try {
      // In the same synchronous run as the reads below: one read transaction, so these coins are the tip's.
      const tip = src.db.getMeta<string>('tip');
      if (tip === undefined || tip !== expectTip) return undefined;
      const ix = src.indexes;
      return items.map(({ txid, outpoints, outputs }) => {
        // Filled by push, not preallocated: packed arrays, as the chain store's own views (map) make,
        // so the mempool's coin lookups see one array shape whichever way the view came.
        const coins: (Coin | null)[] = [];
        const confirmed: boolean[] = [];
        for (let i = 0; i < outpoints.length; i++) {
          const [t, n] = outpoints[i]!;
          const c = ix.coin(t, n) ?? null;
          coins.push(c);
          confirmed.push(c !== null || ix.hasTx(t));
        }
        // As mempoolView: the transaction's own record (one read for a new one), then its coins (its
        // output count is the caller's: the same txid, the same transaction).
        let hasUnspentOutputs = false;
        if (ix.hasTx(txid)) for (let n = 0; n < outputs && !hasUnspentOutputs; n++) hasUnspentOutputs = ix.hasCoin(txid, n);
        return { tip, coins, confirmed, hasUnspentOutputs };
      });
    } catch {
      return undefined;
    }
  }
}
