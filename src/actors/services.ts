import type { NodeConfig } from './config.js';
import type { Asker } from './ask.js';
import type { ChainParams } from '../chain/params/chain-params.js';
import type { KeyStore } from './wallet/keystore.js';

/**
 * What the RPC methods see of the node: its configuration and an asker per service actor. Methods
 * talk to actors only through their message protocols (design.md).
 */
export interface NodeServices {
  readonly config: NodeConfig;
  /** The chain's parameters before automatic activations (ask the chain store for the ones in force). */
  readonly baseParams: ChainParams;
  readonly chain: Asker;
  readonly mempool: Asker;
  readonly miner: Asker;
  readonly keys: KeyStore;
  /** The pubkey coinbases and the premine pay (-pubkey, or the node's own key). */
  readonly minerPubkey: Uint8Array;
  /** Starts an orderly shutdown (the `stop` RPC). */
  requestStop(): void;
  log(msg: string): void;
}
