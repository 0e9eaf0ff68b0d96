import { Asker } from '../actors/ask.js';
import type { ChainStoreProtocol } from '../actors/chainstore/protocol.js';
import type { MempoolProtocol } from '../actors/mempool/protocol.js';
import type { MinerProtocol } from '../actors/miner/protocol.js';
import type { WalletProtocol } from '../actors/wallet/protocol.js';
import type { TokenRegistryProtocol } from '../actors/tokenregistry/protocol.js';
import type { P2PProtocol } from '../actors/p2p/protocol.js';
import { serviceRef, type NodeSystem, type ServiceId } from './root.js';

/** The message protocol each service speaks, by its systemId. */
export interface ServiceProtocols {
  chainStore: ChainStoreProtocol;
  mempool: MempoolProtocol;
  miner: MinerProtocol;
  wallet: WalletProtocol;
  tokenRegistry: TokenRegistryProtocol;
  p2p: P2PProtocol;
}

/** How long a caller waits for a service: mining, wallet scans and token scans can take minutes. */
const TIMEOUT_MS: Partial<Record<ServiceId, number>> = {
  miner: 10 * 60_000,
  wallet: 10 * 60_000,
  tokenRegistry: 10 * 60_000,
};

/** One Asker per service (one reply listener each), made when first needed; its actor found by systemId. */
export class Askers {
  private readonly made = new Map<ServiceId, unknown>();

  of<K extends ServiceId>(system: NodeSystem, id: K): Asker<ServiceProtocols[K]> {
    // The map holds each id's asker as made below, for that id's protocol.
    let asker = this.made.get(id) as Asker<ServiceProtocols[K]> | undefined;
    if (!asker) {
      asker = new Asker<ServiceProtocols[K]>(id, serviceRef(system, id), TIMEOUT_MS[id]);
      this.made.set(id, asker);
    }
    return asker;
  }
}
