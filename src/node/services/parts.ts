import type { ChainParams } from '../../chain/params/chain-params.js';
import type { ScriptExecutionCache, SignatureCache } from '../../chain/validation/index.js';
import type { ccEvalChecker } from '../../chain/consensus/cc-eval.js';
import type { Asker } from '../../actors/ask.js';
import type { ChainStoreProtocol } from '../../actors/chainstore/protocol.js';
import type { MempoolProtocol } from '../../actors/mempool/protocol.js';
import type { VerifyPool } from '../../actors/verify/pool.js';
import type { KeyStore } from '../../actors/wallet/keystore.js';
import type { NodeConfig } from '../config.js';
import type { NodeClock } from '../../actors/clock.js';

/**
 * The chain parameters in force, as the chain store publishes them (komodod activates Sapling
 * automatically at a height the tip decides). Each value is immutable; a new tip that changes them
 * publishes a new one. Those who build or check for the next height (the wallet, the block rules,
 * the CC checker) read the latest here instead of reaching into the chain store.
 */
export class PublishedParams {
  private current: ChainParams;
  constructor(base: ChainParams) {
    this.current = base;
  }
  readonly get = (): ChainParams => this.current;
  readonly publish = (params: ChainParams): void => {
    this.current = params;
  };
}

/** What the services share, made once by the node before they start. */
export interface NodeParts {
  readonly config: NodeConfig;
  readonly log: (msg: string) => void;
  /** The wallet's key store: opened first, it holds the key the premine and coinbases pay. */
  readonly keys: KeyStore;
  /** The pubkey coinbases pay (-pubkey, or the node's own key). */
  readonly minerPubkey: Uint8Array;
  readonly sigCache: SignatureCache;
  readonly scriptCache: ScriptExecutionCache;
  /** -par: the script-check workers. */
  readonly verifyPool: VerifyPool;
  readonly params: PublishedParams;
  /** The CC eval dispatch (Tokens, Assets) for blocks and the mempool. */
  readonly ccChecks: ReturnType<typeof ccEvalChecker>;
  /** GetTime for the time rules and the miner (setmocktime moves it on regtest). */
  readonly clock: NodeClock;
}

/** The services a service asks (found by systemId when it is spawned). */
export interface Asks {
  readonly chain: Asker<ChainStoreProtocol>;
  readonly mempool: Asker<MempoolProtocol>;
}
