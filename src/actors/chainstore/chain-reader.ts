import type { GetOptions } from 'lmdb';
import type { ChainDb } from './chaindb.js';
import type { ChainIndexes } from './chainstate.js';
import type { ChainCoins, ChainReader, Coin, Outpoint } from './protocol.js';

/** The chain store's environment and indexes, while they can be read (ChainStoreLogic.readSource). */
export type ReadSource = () => { db: ChainDb; indexes: ChainIndexes } | undefined;

/**
 * A ChainReader over the chain store's own LMDB environment: the same environment object, reading
 * through its held snapshot (ChainDb.heldRead: kept across event-loop turns, released at each of the
 * store's commits), so a run of reads is one consistent committed state whose tip is read with it,
 * and the next turn's reads need no new read transaction while no block was committed. It never
 * writes; mempoolView's answer (logic.ts) is the reference it reproduces.
 */
export class LmdbChainReader implements ChainReader {
  constructor(private readonly source: ReadSource) {}

  /** The snapshot last read through and its tip: the tip read once a snapshot, not once a call. */
  private last: { read: GetOptions; tip: string | undefined } | undefined;

  /** The held snapshot of `db` and its tip. */
  private snapshot(db: ChainDb): { read: GetOptions; tip: string | undefined } {
    const read = db.heldRead();
    if (this.last?.read !== read) this.last = { read, tip: db.getMeta<string>('tip', read) };
    return this.last;
  }

  tip(): string | undefined {
    try {
      const src = this.source();
      return src && this.snapshot(src.db).tip;
    } catch {
      // The environment closed under us (a stop): the caller asks the chain store, which answers or refuses.
      return undefined;
    }
  }

  coins(expectTip: string, items: readonly { txid: string; outpoints: readonly Outpoint[]; outputs: number }[]): ChainCoins[] | undefined {
    const src = this.source();
    if (!src) return undefined;
    try {
      // The tip of the same snapshot as the reads below, so these coins are the tip's.
      let { read, tip } = this.snapshot(src.db);
      if (tip !== expectTip) {
        // Not the tip asked for: a snapshot from before a commit this environment did not make (the
        // reindex's writer thread, until the store's refresh()) is let go, and the last commit read.
        src.db.releaseHeld();
        ({ read, tip } = this.snapshot(src.db));
        if (tip === undefined || tip !== expectTip) return undefined;
      }
      const ix = src.indexes;
      return items.map(({ txid, outpoints, outputs }) => {
        // Filled by push, not preallocated: packed arrays, as the chain store's own views (map) make,
        // so the mempool's coin lookups see one array shape whichever way the view came.
        const coins: (Coin | null)[] = [];
        const confirmed: boolean[] = [];
        for (let i = 0; i < outpoints.length; i++) {
          const [t, n] = outpoints[i]!;
          const c = ix.coin(t, n, read) ?? null;
          coins.push(c);
          confirmed.push(c !== null || ix.hasTx(t, read));
        }
        // As mempoolView: the transaction's own record (one read for a new one), then its coins (its
        // output count is the caller's: the same txid, the same transaction).
        let hasUnspentOutputs = false;
        if (ix.hasTx(txid, read)) for (let n = 0; n < outputs && !hasUnspentOutputs; n++) hasUnspentOutputs = ix.hasCoin(txid, n, read);
        return { tip, coins, confirmed, hasUnspentOutputs };
      });
    } catch {
      return undefined;
    }
  }
}
