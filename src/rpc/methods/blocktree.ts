import type { NodeServices } from '../../actors/protocol.js';
import { askRpc } from '../ask.js';
import type { JsonOut } from '../json-value.js';
import type { RpcMethod } from '../table.js';
import { HELP_getchaintips } from './blocktree-help.js';

/** The block tree's heads (rpc/blockchain.cpp): getchaintips. */
export function blockTreeMethods(node: NodeServices): RpcMethod[] {
  return [
    {
      name: 'getchaintips',
      category: 'blockchain',
      minArgs: 0,
      maxArgs: 0,
      help: HELP_getchaintips,
      // The chain store keeps the heads as blocks arrive: the call costs the number of heads and their branches.
      handler: async () => (await askRpc(node.chainStore, { op: 'chainTips' })).map((t) => ({ height: t.height, hash: t.hash, branchlen: t.branchlen, status: t.status })) as JsonOut,
    },
  ];
}
