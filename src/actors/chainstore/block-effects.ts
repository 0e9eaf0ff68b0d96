import type { Block } from '../../chain/block/block.js';
import type { Outpoint } from '../../chain/tx/input.js';
import type { Transaction } from '../../chain/tx/transaction.js';
import type { ChainDb } from './chaindb.js';
import type { ChainIndexes, StoredCoin } from './chainstate.js';
import { addPools, poolDeltaOf, poolsArray, undoValues } from './pools.js';
import type { PoolValues } from './protocol.js';
import type { OrderIndex } from './orderindex.js';
import type { SupplyIndex } from './supplyindex.js';
import type { TokenIndex } from './tokenindex.js';

/** The chain state a block's effects are written to (one environment: one write transaction). */
export interface ChainStateParts {
  db: ChainDb;
  indexes: ChainIndexes;
  tokens: TokenIndex;
  supply: SupplyIndex;
  orders: OrderIndex;
}

/** A verified block being connected: its hash, height and parent, parsed, with its txids and where each transaction starts in its bytes. */
export interface ConnectingBlock {
  hash: string;
  height: number;
  /** null for the genesis block */
  prev: string | null;
  block: Block;
  txids: readonly string[];
  txStarts: ArrayLike<number>;
}

/**
 * Inside the block's write transaction: its effects on every index (tokens, UTXO set and undo data,
 * tx/spent/address indexes, value pools, coin supply) and the new tip, written by whichever thread
 * connects it (the chain store's, or the reindex's write thread). `parentTotal`: the value pools up
 * to the parent (null where unknown); `lookup`: confirmed transactions (the token validator's);
 * `readBefore`: the chain coins the checks read (stored bytes and decoding), filed as undo data unread again.
 */
export function writeBlockEffects(
  parts: ChainStateParts,
  b: ConnectingBlock,
  parentTotal: PoolValues | null,
  lookup: (txid: string) => Transaction | undefined,
  readBefore?: (prevout: Outpoint) => StoredCoin | undefined,
): void {
  const { block, txids } = b;
  // The token index first: its validator sees the chain before this block, and the block's own earlier transactions.
  parts.tokens.connect(block.txs, txids, b.hash, b.height, lookup, readBefore && ((prevout) => readBefore(prevout)?.coin.script));
  parts.orders.connect(block.txs, txids, b.hash, readBefore && ((prevout) => readBefore(prevout)?.coin.script));
  const undo = parts.indexes.connect(block.txs, txids, b.hash, b.height, b.txStarts, readBefore);
  // Stored with the block (komodod keeps them in CBlockIndex), so that no later call walks the chain for them.
  const delta = poolDeltaOf(block, txids, b.prev === null, undoValues(undo.spent));
  const total = parentTotal && delta ? addPools(parentTotal, delta) : null;
  parts.indexes.putPools(b.hash, delta && poolsArray(delta), total && poolsArray(total));
  parts.supply.connect(block, b.hash, b.height > 1 ? b.prev : null, undo.spent);
  parts.db.putMeta('tip', b.hash);
}
