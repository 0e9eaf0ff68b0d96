import type { NodeServices } from '../../actors/protocol.js';
import { askRpc } from '../ask.js';
import { getInt } from '../params.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from '../table.js';

/** -checklevel and -checkblocks' defaults (DEFAULT_CHECKLEVEL, DEFAULT_CHECKBLOCKS). */
const DEFAULT_CHECKLEVEL = 3;
const DEFAULT_CHECKBLOCKS = 288;

/** verifychain (rpc/blockchain.cpp): CVerifyDB over the chain store's block files, undo data and coins. */
export function verifyChainMethods(node: NodeServices): RpcMethod[] {
  return [
    {
      name: 'verifychain',
      category: 'blockchain',
      maxArgs: 2,
      help: (env) =>
        'verifychain ( checklevel numblocks )\n' +
        '\nVerifies blockchain database.\n' +
        '\nArguments:\n' +
        '1. checklevel   (numeric, optional, 0-4, default=3) How thorough the block verification is.\n' +
        '2. numblocks    (numeric, optional, default=288, 0=all) The number of blocks to check.\n' +
        '\nResult:\n' +
        'true|false       (boolean) Verified or not\n' +
        '\nExamples:\n' +
        helpExampleCli(env, 'verifychain', '') +
        helpExampleRpc(env, 'verifychain', ''),
      handler: async (params) => {
        const level = params.length > 0 ? getInt(params[0]!) : DEFAULT_CHECKLEVEL;
        const depth = params.length > 1 ? getInt(params[1]!) : DEFAULT_CHECKBLOCKS;
        return askRpc(node.chainStore, { op: 'verifyChain', level, depth });
      },
    },
  ];
}
