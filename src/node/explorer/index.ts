import type { InspectHub } from '../inspect.js';
import type { NodeServices } from '../../actors/services.js';
import { nodeMethods } from '../../rpc/methods/index.js';
import type { HelpEnv } from '../../rpc/index.js';
import { explorerTable } from './data.js';
import { explorerRoutes } from './routes.js';

/**
 * Puts the local explorer page on the inspection endpoint once the node's methods exist: with
 * -inspect beside the actor stream, with -explorer alone (the hub then streams nothing).
 */
export function attachExplorer(hub: InspectHub, services: NodeServices, env: HelpEnv, stream: boolean): void {
  const table = explorerTable(env, nodeMethods(services));
  hub.setPage(explorerRoutes({ table, stream }));
}
