import { join } from 'node:path';
import type { Asker } from '../../actors/ask.js';
import type { ChainStoreProtocol } from '../../actors/chainstore/protocol.js';
import type { MempoolOptions } from '../../actors/mempool/logic.js';
import type { NodeParts } from './parts.js';

/** The mempool: -datacarriersize, -addressindex, the shared caches and workers, the CC eval dispatch. */
export function mempoolOptions(parts: NodeParts, chain: Asker<ChainStoreProtocol>): MempoolOptions {
  const { config } = parts;
  return {
    chain,
    dataCarrierSize: config.datacarriersize,
    addressIndex: config.addressindex,
    sigCache: parts.sigCache,
    scriptCache: parts.scriptCache,
    verifyPool: parts.verifyPool,
    // The validators read the mempool's transactions and the chain's, which the mempool fetches from
    // the chain store by message before it validates (MempoolLogic.ccContext).
    ccChecker: parts.ccChecks,
    feeEstimatesFile: join(config.datadir, 'fee_estimates.dat'),
    log: parts.log,
  };
}
