import type { Block } from '../../chain/block/block.js';
import type { BlockHeader } from '../../chain/block/header.js';
import type { PrevContext } from './protocol.js';
import type { ConnectView } from '../../chain/validation/coin.js';

export type { PrevContext } from './protocol.js';
/** The coins a connect reads and updates: a consensus-level view, declared beside Coin in src/chain. */
export type { ConnectView } from '../../chain/validation/coin.js';

/**
 * The consensus rules the chain store applies, bound to one chain's parameters. Each check throws
 * a ValidationError (reject code and komodod's reason) on failure. Kept as an interface so the store
 * does bookkeeping only and the rules stay pure functions in src/chain.
 */
export interface ChainRules {
  genesis: Block;
  /** nBits for the block after the given ancestors (newest last). */
  nextBits(ancestors: readonly { time: number; bits: number }[]): number;
  /** `known`: the block's serialised size, transaction hashes and sizes, when the caller has them already. */
  checkBlock(block: Block, height: number, known?: { size: number; txHashes: readonly Uint8Array[]; txSizes: readonly number[] }): void;
  checkHeader(header: BlockHeader, prev: PrevContext, now: number): void;
  /** ContextualCheckBlock: every transaction's rules at the block's height, finality, BIP34. */
  checkContextual(block: Block, height: number): void;
  /** Contextual block checks, every transaction's inputs and scripts, and the coinbase value. */
  connect(block: Block, height: number, view: ConnectView, txids?: readonly string[]): { fees: bigint };
}
