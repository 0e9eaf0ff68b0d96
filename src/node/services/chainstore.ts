import { consensusRules } from '../../actors/chainstore/consensus.js';
import type { ChainStoreOptions } from '../../actors/chainstore/logic.js';
import type { NodeParts } from './parts.js';

/** The chain store: the data directory, -addressindex, -reindex, its share of -dbcache, komodod's block rules. */
export function chainStoreOptions(parts: NodeParts): ChainStoreOptions {
  const { config, params } = parts;
  return {
    dir: config.datadir,
    baseParams: config.chain,
    addressIndex: config.addressindex,
    reindex: config.reindex,
    // -reindex's blocks are written on a thread of their own while the next is verified here.
    writeThread: true,
    // -dbcache: the recent blocks get a sixteenth of it.
    cacheBytes: Math.floor((config.dbcache * 2 ** 20) / 16),
    // The rules read the parameters in force at the tip, which the store itself publishes.
    rules: consensusRules({ params: params.get, sigCache: parts.sigCache, scriptCache: parts.scriptCache, ccChecker: parts.ccChecks, verifyPool: parts.verifyPool, now: () => parts.clock.nowSeconds() }),
    now: () => parts.clock.nowSeconds(),
    publishParams: params.publish,
    log: parts.log,
  };
}
