import type { NodeServices } from '../../actors/protocol.js';
import { decodeAddress, PUBKEY_ADDRESS } from '../../chain/address/address.js';
import { toHex } from '../../chain/encoding/hex.js';
import { RpcError, RPC_INVALID_ADDRESS_OR_KEY } from '../errors.js';
import type { JsonOut, JsonValue } from '../json-value.js';
import { getInt, getStr } from '../params.js';
import { valueFromAmount } from '../amount.js';
import { helpExampleCli, helpExampleRpc, type HelpEnv, type RpcMethod } from '../table.js';
import { askRpc as ask } from '../ask.js';

/** getreceivedbyaddress (rpcwallet.cpp), P2PKH and P2SH addresses, tallied by the wallet from its index by address. */
export function walletReceivedMethods(node: NodeServices): RpcMethod[] {
  return [{ name: 'getreceivedbyaddress', category: 'wallet', minArgs: 1, maxArgs: 2, help: getreceivedbyaddressHelp, handler: (params) => getreceivedbyaddress(node, params) }];
}

async function getreceivedbyaddress(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const dest = decodeAddress(getStr(params[0]!));
  if (!dest) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Invalid Komodo address');
  // minconf is read after the IsMine test: a bad one fails only for the wallet's own addresses
  // (a P2SH one too: spendable, or its address watched).
  let minConf = 1;
  let bad: unknown;
  try {
    if (params.length > 1) minConf = getInt(params[1]!);
  } catch (e) {
    bad = e;
  }
  const id = toHex(dest.hash);
  const sum = await ask(node.wallet, dest.version === PUBKEY_ADDRESS ? { op: 'receivedByKey', keyId: id, minConf } : { op: 'receivedByScriptId', scriptId: id, minConf });
  if (sum === null) return valueFromAmount(0n);
  if (bad !== undefined) throw bad;
  return valueFromAmount(sum);
}

const EXAMPLE = 'RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPV';

export const getreceivedbyaddressHelp = (env: HelpEnv): string =>
  `getreceivedbyaddress "${env.chainName}_address" ( minconf )\n` +
  `\nReturns the total amount received by the given ${env.chainName} address in transactions with at least minconf confirmations.\n` +
  '\nArguments:\n' +
  `1. "${env.chainName}_address"  (string, required) The ${env.chainName} address for transactions.\n` +
  '2. minconf             (numeric, optional, default=1) Only include transactions confirmed at least this many times.\n' +
  '\nResult:\n' +
  `amount   (numeric) The total amount in ${env.chainName} received at this address.\n` +
  '\nExamples:\n' +
  '\nThe amount from transactions with at least 1 confirmation\n' +
  helpExampleCli(env, 'getreceivedbyaddress', `"${EXAMPLE}"`) +
  '\nThe amount including unconfirmed transactions, zero confirmations\n' +
  helpExampleCli(env, 'getreceivedbyaddress', `"${EXAMPLE}" 0`) +
  '\nThe amount with at least 6 confirmations, very safe\n' +
  helpExampleCli(env, 'getreceivedbyaddress', `"${EXAMPLE}" 6`) +
  '\nAs a json rpc call\n' +
  helpExampleRpc(env, 'getreceivedbyaddress', `"${EXAMPLE}", 6`);
