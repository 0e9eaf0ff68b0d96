import type { TokenRegistryOptions } from '../../actors/tokenregistry/logic.js';
import type { Asks, NodeParts } from './parts.js';

/** The token registry answers from the chain store's token index (kept with each block's write transaction). */
export function tokenRegistryOptions(parts: NodeParts, asks: Asks): TokenRegistryOptions {
  return { chain: asks.chain, log: parts.log };
}
