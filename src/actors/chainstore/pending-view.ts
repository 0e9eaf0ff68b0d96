import { outpointKey } from '../../chain/tx/input.js';
import type { Transaction } from '../../chain/tx/transaction.js';
import type { Coin } from './protocol.js';
import type { ConnectView } from './rules.js';

/** A block verified and handed to the write thread, not committed yet: what it changed, as a view needs it. */
export interface PendingBlock {
  hash: string;
  /** Its height (the height of the coins it created). */
  height: number;
  spent: Set<string>;
  /**
   * Its transactions by txid: the coins it created (the spent ones included: a later spend in it is
   * in `spent`) are their outputs, made into coins when asked for (createdCoin), not as each
   * transaction applies (a Coin, its outpoint key and a map entry per output, nearly all never asked for).
   */
  txs: Map<string, Transaction>;
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
  private coinBelow(committed: CommittedState, key: string, txid: string, n: number): Coin | undefined {
    for (let i = this.blocks.length - 1; i >= 0; i--) {
      const b = this.blocks[i]!;
      if (b.spent.has(key)) return undefined;
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
    return blockView(hash, height, { coin: (txid, n, key) => this.coinBelow(committed, key, txid, n), tx: (txid) => this.txBelow(committed, txid) });
  }
}

/** What lies below a block's own transactions: the coins (by outpoint and its outpointKey) and transactions. */
export interface BelowBlock {
  coin(txid: string, n: number, key: string): Coin | undefined;
  tx(txid: string): Transaction | undefined;
}

/**
 * A connecting block's view: what lies below it overlaid with the effects of its own earlier
 * transactions, in order; and those effects. Each coin below is read once (the input checks, the
 * sigop count and the scripts each ask for an input's coin, and nothing below changes meanwhile).
 * The chain store's live connect and the reindex's write-ahead both verify against it.
 */
export function blockView(hash: string, height: number, below: BelowBlock): { view: ConnectView; changes: PendingBlock; keyOf: (txid: string, n: number) => string } {
  const changes: PendingBlock = { hash, height, spent: new Set(), txs: new Map() };
  const { spent, txs } = changes;
  const read = new Map<string, Coin | null>();
  // The block's own coins that were asked for, each made once (createdCoin).
  const made = new Map<string, Coin>();
  // Each outpoint's key made once for the block: an input's coin is asked by the input checks, the
  // sigop count, apply and the index writes (readBefore), and each key made anew was a string to
  // build and hash (V8 keeps a string's hash in it). Found by the txid string, whose hash is kept
  // (an input's txid string is kept by its Outpoint, an output's is the block's txids entry).
  const keys = new Map<string, string[]>();
  const keyOf = (txid: string, n: number): string => {
    let ks = keys.get(txid);
    if (ks === undefined) keys.set(txid, (ks = []));
    return (ks[n] ??= outpointKey(txid, n));
  };
  const view: ConnectView = {
    coin: (txid, n) => {
      const key = keyOf(txid, n);
      if (spent.has(key)) return undefined;
      let c = made.get(key);
      if (c === undefined && (c = createdCoin(changes, txid, n))) made.set(key, c);
      if (c) return c;
      let stored = read.get(key);
      if (stored === undefined) read.set(key, (stored = below.coin(txid, n, key) ?? null));
      return stored ?? undefined;
    },
    tx: (txid) => txs.get(txid) ?? below.tx(txid),
    apply: (tx, txid, at) => {
      if (at !== height) throw new Error(`block ${hash} at height ${height} applied at ${at}`);
      if (!tx.isCoinbase()) {
        for (let k = 0; k < tx.vin.length; k++) {
          const prevout = tx.vin[k]!.prevout;
          spent.add(keyOf(prevout.txid(), prevout.index));
        }
      }
      txs.set(txid, tx);
    },
  };
  return { view, changes, keyOf };
}
