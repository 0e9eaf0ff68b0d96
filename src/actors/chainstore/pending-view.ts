import type { Transaction } from '../../chain/tx/transaction.js';
import type { Coin } from './protocol.js';
import type { ConnectView } from './rules.js';

/** A block verified and handed to the write thread, not committed yet: what it changed, as a view needs it. */
export interface PendingBlock {
  hash: string;
  /** Its height (the height of the coins it created). */
  height: number;
  /** The outpoints it spent: by txid, whether each output n was (isSpent). */
  spent: Map<string, boolean[]>;
  /**
   * Its transactions by txid: the coins it created (the spent ones included: a later spend in it is
   * in `spent`) are their outputs, made into coins when asked for (createdCoin), not as each
   * transaction applies (a Coin, its outpoint key and a map entry per output, nearly all never asked for).
   */
  txs: Map<string, Transaction>;
}

/** Whether the block spent output `n` of `txid`. */
export function isSpent(b: PendingBlock, txid: string, n: number): boolean {
  return b.spent.get(txid)?.[n] === true;
}

/** Output `n` of the block's transaction `txid`, as a coin, if the block created it (spent or not). */
export function createdCoin(b: PendingBlock, txid: string, n: number): Coin | undefined {
  const tx = b.txs.get(txid);
  const out = tx?.vout[n];
  return out && { value: out.value, script: out.script, height: b.height, coinbase: tx!.isCoinbase(), txVersion: tx!.version };
}

/** What is committed: the chain state's own coins and transactions. */
export interface CommittedState {
  coin(txid: string, n: number): Coin | undefined;
  tx(txid: string): Transaction | undefined;
}

/**
 * The blocks verified ahead of the chain state (at most a few, oldest first) and the view a block is
 * verified against: the committed UTXO set overlaid with those blocks' changes, newest first, then the
 * block's own earlier transactions, exactly what the committed state will be when its turn comes.
 */
export class PendingBlocks {
  private readonly blocks: PendingBlock[] = [];

  get size(): number {
    return this.blocks.length;
  }

  /** The oldest one leaves once committed (the committed state shows it from then on). */
  shift(): PendingBlock | undefined {
    return this.blocks.shift();
  }

  push(block: PendingBlock): void {
    this.blocks.push(block);
  }

  clear(): void {
    this.blocks.length = 0;
  }

  /** A coin as it will be once every pending block commits: spent, created by one, or the committed state's. */
  private coinBelow(committed: CommittedState, txid: string, n: number): Coin | undefined {
    for (let i = this.blocks.length - 1; i >= 0; i--) {
      const b = this.blocks[i]!;
      if (isSpent(b, txid, n)) return undefined;
      const c = createdCoin(b, txid, n);
      if (c) return c;
    }
    return committed.coin(txid, n);
  }

  private txBelow(committed: CommittedState, txid: string): Transaction | undefined {
    for (let i = this.blocks.length - 1; i >= 0; i--) {
      const tx = this.blocks[i]!.txs.get(txid);
      if (tx) return tx;
    }
    return committed.tx(txid);
  }

  /**
   * The view block `hash` is verified against, and what it changes (pushed once the block passed):
   * blockView over the pending blocks between it and the committed state.
   */
  view(hash: string, height: number, committed: CommittedState): { view: ConnectView; changes: PendingBlock } {
    return blockView(hash, height, { coin: (txid, n) => this.coinBelow(committed, txid, n), tx: (txid) => this.txBelow(committed, txid) });
  }
}

/** What lies below a block's own transactions: the coins and transactions. */
export interface BelowBlock {
  coin(txid: string, n: number): Coin | undefined;
  tx(txid: string): Transaction | undefined;
}

/**
 * A connecting block's view: what lies below it overlaid with the effects of its own earlier
 * transactions, in order; and those effects. Each coin below is read once (the input checks, the
 * sigop count and the scripts each ask for an input's coin, and nothing below changes meanwhile).
 * The chain store's live connect and the reindex's write-ahead both verify against it.
 */
export function blockView(hash: string, height: number, below: BelowBlock): { view: ConnectView; changes: PendingBlock } {
  const changes: PendingBlock = { hash, height, spent: new Map(), txs: new Map() };
  const { spent, txs } = changes;
  // Every outpoint is found by its txid string, then n: an input's coin is asked for by the input
  // checks, the sigop count, apply and the index writes, and an outpoint key string ("txid:n") was a
  // string to build and hash for each (V8 keeps a string's hash in it: the txid strings are kept by
  // their Outpoints, and an output's is the block's txids entry). The coins read from below, each
  // once, and the block's own coins that were asked for, each made once (createdCoin).
  const read = new Map<string, (Coin | null)[]>();
  const made = new Map<string, Coin[]>();
  const view: ConnectView = {
    coin: (txid, n) => {
      if (spent.get(txid)?.[n] === true) return undefined;
      const tx = txs.get(txid);
      if (tx !== undefined && n < tx.vout.length) {
        let mine = made.get(txid);
        if (mine === undefined) made.set(txid, (mine = []));
        return (mine[n] ??= createdCoin(changes, txid, n)!);
      }
      let stored = read.get(txid);
      if (stored === undefined) read.set(txid, (stored = []));
      let c = stored[n];
      if (c === undefined) stored[n] = c = below.coin(txid, n) ?? null;
      return c ?? undefined;
    },
    tx: (txid) => txs.get(txid) ?? below.tx(txid),
    apply: (tx, txid, at) => {
      if (at !== height) throw new Error(`block ${hash} at height ${height} applied at ${at}`);
      if (!tx.isCoinbase()) {
        for (let k = 0; k < tx.vin.length; k++) {
          const prevout = tx.vin[k]!.prevout;
          const id = prevout.txid();
          let outs = spent.get(id);
          if (outs === undefined) spent.set(id, (outs = []));
          outs[prevout.index] = true;
        }
      }
      txs.set(txid, tx);
    },
  };
  return { view, changes };
}
