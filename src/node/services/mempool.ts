import { join } from 'node:path';
import type { Asker } from '../../actors/ask.js';
import type { ChainReader, ChainStoreProtocol } from '../../actors/chainstore/protocol.js';
import type { ChainStoreLogic } from '../../actors/chainstore/logic.js';
import { LmdbChainReader } from '../../actors/chainstore/chain-reader.js';
import type { MempoolOptions } from '../../actors/mempool/logic.js';
import type { NodeParts } from './parts.js';

/** The mempool: -datacarriersize, -addressindex, the shared caches and workers, the CC eval dispatch. */
export function mempoolOptions(parts: NodeParts, chain: Asker<ChainStoreProtocol>, reader?: ChainReader): MempoolOptions {
  const { config } = parts;
  return {
    chain,
    ...(reader ? { reader } : {}),
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

/**
 * The mempool's reader of the chain's coins: a read transaction on the chain store's own LMDB
 * environment (design.md, Storage: one writer, the others read snapshots), so an accept reads its
 * coins without a message to the chain store. Opened here, where both actors are made, because the
 * mempool may import only the chain store's protocol (the ChainReader type) and the chain store
 * opens its environment in its load, after this: the reader finds it through readSource() at each read.
 */
export function chainReader(store: () => ChainStoreLogic | undefined): ChainReader {
  return new LmdbChainReader(() => store()?.readSource());
}
