import type { NodeServices } from '../../actors/protocol.js';
import { decodeAddress, PUBKEY_ADDRESS } from '../../chain/address/address.js';
import { toHex } from '../../chain/encoding/hex.js';
import { RpcError, RPC_TYPE_ERROR, RPC_WALLET_ERROR } from '../errors.js';
import type { JsonOut, JsonValue } from '../json-value.js';
import { getStr } from '../params.js';
import { valueFromAmount } from '../amount.js';
import { helpExampleCli, helpExampleRpc, helpRequiringPassphrase, type HelpEnv, type RpcMethod } from '../table.js';
import { askRpc as ask } from '../ask.js';
import { ensureWalletIsUnlocked } from './wallet-crypt.js';

/**
 * signmessage, getrawchangeaddress and getunconfirmedbalance (rpcwallet.cpp). signmessage asks the
 * wallet for the signature: the key never leaves the wallet actor.
 */
export function walletSignMethods(node: NodeServices): RpcMethod[] {
  return [
    { name: 'signmessage', category: 'wallet', minArgs: 2, maxArgs: 2, help: signmessageHelp, handler: (params) => signmessage(node, params) },
    { name: 'getrawchangeaddress', category: 'wallet', maxArgs: 1, help: getrawchangeaddressHelp, handler: () => ask(node.wallet, { op: 'rawChangeAddress' }) },
    {
      name: 'getunconfirmedbalance',
      category: 'wallet',
      maxArgs: 0,
      help: 'getunconfirmedbalance\nReturns the server\'s total unconfirmed balance\n',
      handler: async () => valueFromAmount(await ask(node.wallet, { op: 'unconfirmedBalance' })),
    },
  ];
}

async function signmessage(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  await ensureWalletIsUnlocked(node);
  const address = getStr(params[0]!);
  const message = getStr(params[1]!);
  const dest = decodeAddress(address);
  if (!dest) throw new RpcError(RPC_TYPE_ERROR, 'Invalid address');
  if (dest.version !== PUBKEY_ADDRESS) throw new RpcError(RPC_TYPE_ERROR, 'Address does not refer to key');
  const sig = await ask(node.wallet, { op: 'signMessage', keyId: toHex(dest.hash), message });
  if (!sig) throw new RpcError(RPC_WALLET_ERROR, 'Private key not available');
  return Buffer.from(sig).toString('base64');
}

export const signmessageHelp = (env: HelpEnv): string =>
  'signmessage "t-addr" "message"\n' +
  '\nSign a message with the private key of a t-addr' +
  helpRequiringPassphrase(env) +
  '\n' +
  '\nArguments:\n' +
  '1. "t-addr"  (string, required) The transparent address to use for the private key.\n' +
  '2. "message"         (string, required) The message to create a signature of.\n' +
  '\nResult:\n' +
  '"signature"          (string) The signature of the message encoded in base 64\n' +
  '\nExamples:\n' +
  '\nUnlock the wallet for 30 seconds\n' +
  helpExampleCli(env, 'walletpassphrase', '"mypassphrase" 30') +
  '\nCreate the signature\n' +
  helpExampleCli(env, 'signmessage', '"RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPV" "my message"') +
  '\nVerify the signature\n' +
  helpExampleCli(env, 'verifymessage', '"RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPV" "signature" "my message"') +
  '\nAs json rpc\n' +
  helpExampleRpc(env, 'signmessage', '"RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPV", "my message"');

export const getrawchangeaddressHelp = (env: HelpEnv): string =>
  'getrawchangeaddress\n' +
  '\nReturns a new ' +
  env.chainName +
  ' address, for receiving change.\n' +
  'This is for use with raw transactions, NOT normal use.\n' +
  '\nResult:\n' +
  '"address"    (string) The address\n' +
  '\nExamples:\n' +
  helpExampleCli(env, 'getrawchangeaddress', '') +
  helpExampleRpc(env, 'getrawchangeaddress', '');
