import { Asker } from '../actors/ask.js';
import { serviceRef, type NodeSystem, type ServiceId } from './root.js';

/** How long a caller waits for a service: mining, wallet scans and token scans can take minutes. */
const TIMEOUT_MS: Partial<Record<ServiceId, number>> = {
  miner: 10 * 60_000,
  wallet: 10 * 60_000,
  tokenRegistry: 10 * 60_000,
};

/** One Asker per service (one reply listener each), made when first needed; its actor found by systemId. */
export class Askers {
  private readonly made = new Map<ServiceId, Asker>();

  of(system: NodeSystem, id: ServiceId): Asker {
    let asker = this.made.get(id);
    if (!asker) {
      asker = new Asker(id, serviceRef(system, id), TIMEOUT_MS[id]);
      this.made.set(id, asker);
    }
    return asker;
  }
}
