import type { NodeServices } from '../../actors/protocol.js';
import { RpcError, RPC_INVALID_PARAMETER, RPC_WALLET_ERROR } from '../errors.js';
import type { JsonOut, JsonValue } from '../json-value.js';
import { getInt } from '../params.js';
import { helpExampleCli, helpExampleRpc, helpRequiringPassphrase, type HelpEnv, type RpcMethod } from '../table.js';
import { askRpc as ask } from '../ask.js';

/** keypoolrefill and resendwallettransactions (rpcwallet.cpp). */
export function walletPoolMethods(node: NodeServices): RpcMethod[] {
  return [
    { name: 'keypoolrefill', category: 'wallet', maxArgs: 1, help: keypoolrefillHelp, handler: (params) => keypoolrefill(node, params) },
    {
      name: 'resendwallettransactions',
      category: 'wallet',
      maxArgs: 0,
      help:
        'resendwallettransactions\n' +
        'Immediately re-broadcast unconfirmed wallet transactions to all peers.\n' +
        'Intended only for testing; the wallet code periodically re-broadcasts\n' +
        'automatically.\n' +
        'Returns array of transaction ids that were re-broadcast.\n',
      handler: () => ask(node.wallet, { op: 'resendNow' }),
    },
  ];
}

async function keypoolrefill(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  // 0 is read by TopUpKeyPool as -keypool's size.
  let size = 0;
  if (params.length > 0) {
    size = getInt(params[0]!);
    if (size < 0) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter, expected valid size.');
  }
  const after = await ask(node.wallet, { op: 'keypoolRefill', size });
  if (after < size) throw new RpcError(RPC_WALLET_ERROR, 'Error refreshing keypool.');
  return null;
}

export const keypoolrefillHelp = (env: HelpEnv): string =>
  'keypoolrefill ( newsize )\n' +
  '\nFills the keypool.' +
  helpRequiringPassphrase(env) +
  '\n' +
  '\nArguments\n' +
  '1. newsize     (numeric, optional, default=100) The new keypool size\n' +
  '\nExamples:\n' +
  helpExampleCli(env, 'keypoolrefill', '') +
  helpExampleRpc(env, 'keypoolrefill', '');
