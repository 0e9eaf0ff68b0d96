import type { MinerOptions } from '../../actors/miner/logic.js';
import type { ChainReader } from '../../actors/chainstore/protocol.js';
import type { Asks, NodeParts } from './parts.js';

/** The miner: coinbases pay -pubkey (or the node's key); a block's coins read through the chain reader. */
export function minerOptions(parts: NodeParts, asks: Asks, reader?: ChainReader): MinerOptions {
  return { chain: asks.chain, mempool: asks.mempool, ...(reader ? { reader } : {}), payTo: parts.minerPubkey, log: parts.log, clockMs: () => parts.clock.nowMs() };
}

/** The -gen pacer's interval: ac_blocktime (at least a second). */
export function pacerIntervalMs(parts: NodeParts): number {
  return Math.max(1, parts.config.chain.ac.blocktime) * 1000;
}
