import { outpointKey } from '../../chain/tx/input.js';
import type { Transaction } from '../../chain/tx/transaction.js';
import type { Coin } from './protocol.js';
import type { ConnectView } from './rules.js';

/** A block verified and handed to the write thread, not committed yet: what it changed, as a view needs it. */
export interface PendingBlock {
  hash: string;
  /** Coins it created (outpointKey), the spent ones included: a later spend in it is in `spent`. */
  created: Map<string, Coin>;
  spent: Set<string>;
  txs: Map<string, Transaction>;
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
      const c = b.created.get(key);
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
  view(hash: string, committed: CommittedState): { view: ConnectView; changes: PendingBlock } {
    return blockView(hash, { coin: (txid, n, key) => this.coinBelow(committed, key, txid, n), tx: (txid) => this.txBelow(committed, txid) });
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
export function blockView(hash: string, below: BelowBlock): { view: ConnectView; changes: PendingBlock; keyOf: (txid: string, n: number) => string } {
  const changes: PendingBlock = { hash, created: new Map(), spent: new Set(), txs: new Map() };
  const { created, spent, txs } = changes;
  const read = new Map<string, Coin | null>();
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
      const c = created.get(key);
      if (c) return c;
      let stored = read.get(key);
      if (stored === undefined) read.set(key, (stored = below.coin(txid, n, key) ?? null));
      return stored ?? undefined;
    },
    tx: (txid) => txs.get(txid) ?? below.tx(txid),
    apply: (tx, txid, height) => {
      if (!tx.isCoinbase()) for (const i of tx.vin) spent.add(keyOf(i.prevout.txid(), i.prevout.index));
      const coinbase = tx.isCoinbase();
      for (let n = 0; n < tx.vout.length; n++) {
        const out = tx.vout[n]!;
        created.set(keyOf(txid, n), { value: out.value, script: out.script, height, coinbase, txVersion: tx.version });
      }
      txs.set(txid, tx);
    },
  };
  return { view, changes, keyOf };
}
