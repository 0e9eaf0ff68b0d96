import type { NodeServices } from '../../actors/protocol.js';
import { Amount } from '../../chain/encoding/coin-amount.js';
import { askRpc } from '../ask.js';
import { getInt, rpcTypeCheck } from '../params.js';
import { helpExampleCli, type HelpEnv, type RpcMethod } from '../table.js';

function estimateHelp(env: HelpEnv, name: string, what: string[]): string {
  return (
    `${name} nblocks\n` +
    `\nEstimates the approximate ${what[0]}\n` +
    `${what[1]}\n` +
    `within nblocks blocks.\n` +
    '\nArguments:\n' +
    '1. nblocks     (numeric)\n' +
    '\nResult:\n' +
    `n :    (numeric) estimated ${what[2]}\n` +
    '\n' +
    '-1.0 is returned if not enough transactions and\n' +
    'blocks have been observed to make an estimate.\n' +
    '\nExample:\n' +
    helpExampleCli(env, name, '6')
  );
}

/** estimatefee and estimatepriority (rpc/mining.cpp, category util): the mempool's CBlockPolicyEstimator. */
export function feeEstimateMethods(node: NodeServices): RpcMethod[] {
  const blocksOf = (params: Parameters<RpcMethod['handler']>[0]) => {
    rpcTypeCheck(params, ['number']);
    return Math.max(1, getInt(params[0]!));
  };
  return [
    {
      name: 'estimatefee',
      category: 'util',
      minArgs: 1,
      maxArgs: 1,
      help: (env) => estimateHelp(env, 'estimatefee', ['fee per kilobyte', 'needed for a transaction to begin confirmation', 'fee-per-kilobyte']),
      handler: async (params) => {
        const perK = await askRpc(node.mempool, { op: 'estimateFee', blocks: blocksOf(params) });
        // CFeeRate(0): no estimate.
        return perK === 0 ? -1 : new Amount(BigInt(perK));
      },
    },
    {
      name: 'estimatepriority',
      category: 'util',
      minArgs: 1,
      maxArgs: 1,
      help: (env) => estimateHelp(env, 'estimatepriority', ['priority', 'a zero-fee transaction needs to begin confirmation', 'priority']),
      handler: async (params) => askRpc(node.mempool, { op: 'estimatePriority', blocks: blocksOf(params) }),
    },
  ];
}
