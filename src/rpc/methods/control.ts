import type { NodeServices } from '../../actors/protocol.js';
import type { RpcMethod } from '../table.js';

/** The `control` category: stop (getinfo lives with the blockchain methods it summarises). */
export function controlMethods(node: NodeServices): RpcMethod[] {
  return [
    {
      name: 'stop',
      category: 'control',
      // komodod accepts (and ignores) the deprecated 'detach' argument.
      maxArgs: 1,
      help: 'stop\n\nStop Komodo server.',
      handler: () => {
        // Answer first, then shut down: the reply must reach the client (komodod's StartShutdown).
        setImmediate(() => node.requestStop());
        return `${node.config.chain.name} server stopping`;
      },
    },
  ];
}
