import type { Asker } from './ask.js';
import type { ChainStoreProtocol } from './chainstore/protocol.js';
import type { MempoolProtocol } from './mempool/protocol.js';
import type { MinerProtocol } from './miner/protocol.js';
import type { TokenRegistryProtocol } from './tokenregistry/protocol.js';
import type { P2PProtocol } from './p2p/protocol.js';
import type { WalletProtocol } from './wallet/protocol.js';
import type { ChainParams } from '../chain/params/chain-params.js';
import type { AnyActorRef } from 'xstate';
import type { NodeClock } from './clock.js';

/**
 * What the RPC methods see of the node: its configuration and an asker per service actor. Methods
 * talk to actors only through their message protocols (design.md).
 */
export interface NodeServices {
  readonly config: NodeSettings;
  /** The chain's parameters before automatic activations (ask the chain store for the ones in force). */
  readonly baseParams: ChainParams;
  readonly chainStore: Asker<ChainStoreProtocol>;
  readonly mempool: Asker<MempoolProtocol>;
  readonly miner: Asker<MinerProtocol>;
  /** The wallet: keys, owned outputs, building and signing (src/actors/wallet). */
  readonly wallet: Asker<WalletProtocol>;
  /** The token registry: token creation records and unspent token outputs (src/actors/tokenregistry). */
  readonly tokenRegistry: Asker<TokenRegistryProtocol>;
  /** The p2p broadcaster: peers, relay, bans (src/actors/p2p). */
  readonly p2p: Asker<P2PProtocol>;
  /** The pubkey coinbases and the premine pay (-pubkey, or the node's own key). */
  readonly minerPubkey: Uint8Array;
  /** Every actor of the node by its systemId (getactorstates reads their snapshots). */
  readonly actors?: ReadonlyMap<string, AnyActorRef>;
  /** Each actor's state and context summary, redacted for inspection (getactorstates), by systemId. */
  readonly actorStates?: () => ReadonlyMap<string, ActorStateView>;
  /** The inspection endpoint (`ws://127.0.0.1:<port>/`) under -inspect, else null. */
  readonly inspectorUrl?: () => string | null;
  /** GetTime: the clock the time rules and the miner read (setmocktime sets it on regtest). */
  readonly clock?: NodeClock;
  /** Starts an orderly shutdown (the `stop` RPC). */
  requestStop(): void;
  log(msg: string): void;
}

/**
 * The node's settings the RPC layer reads: the part of NodeConfig (src/node/config.ts, which extends
 * this) declared here, so that the services' type imports nothing from the composition root.
 */
export interface NodeSettings {
  readonly chain: ChainParams;
  /** True when no -ac_name was given and the dev chain (design.md) runs. */
  readonly devChain: boolean;
  /** RPC port to bind (0: OS-chosen). */
  readonly rpcport: number;
  /** -pubkey (66 hex characters) or null. */
  readonly pubkey: string | null;
  readonly genproclimit: number;
  readonly txexpirydelta: number;
  /** -experimentalfeatures (komodod's fExperimentalMode, on by default). */
  readonly experimentalfeatures: boolean;
  /** -developerencryptwallet as given, null when not (encryptwallet's default then follows the chain: ac_public). */
  readonly developerencryptwallet: boolean | null;
  readonly addressindex: boolean;
  readonly spentindex: boolean;
  /** Every flag by name, for anything these settings do not model (NodeConfig's Flags). */
  readonly flags: { get(name: string): string | undefined };
}

/** An actor's state as getactorstates shows it: JSON-safe, secrets already redacted. */
export interface ActorStateView {
  status: string;
  state: string;
  value: unknown;
  context: unknown;
}
