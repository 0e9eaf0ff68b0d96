import type { InspectHub } from '../inspect.js';
import type { NodeServices } from '../../actors/services.js';
import { nodeMethods } from '../../rpc/methods/index.js';
import { explorerTable } from './data.js';
import { explorerRoutes } from './routes.js';

/**
 * Puts the local explorer page on the inspection endpoint once the node's methods exist: with
 * -inspect beside the actor stream, with -explorer alone (the hub then streams nothing).
 */
export function attachExplorer(hub: InspectHub, services: NodeServices, stream: boolean): void {
  const config = services.config;
  const table = explorerTable({ chainName: config.chain.name, rpcPort: config.rpcport || config.chain.rpcPort, walletCrypted: () => services.keys.crypted }, nodeMethods(services));
  hub.setPage(explorerRoutes({ table, stream }));
}
