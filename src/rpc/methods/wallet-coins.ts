import type { NodeServices } from '../../actors/protocol.js';
import type { OutpointRef } from '../../actors/wallet/protocol.js';
import { RpcError, RPC_INVALID_PARAMETER } from '../errors.js';
import { JsonObject, type JsonOut, type JsonValue } from '../json-value.js';
import { getArr, getBool, getInt, getStr, rpcTypeCheck, rpcTypeCheckObj } from '../params.js';
import { amountFromValue } from '../amount.js';
import { helpExampleCli, helpExampleRpc, type HelpEnv, type RpcMethod } from '../table.js';
import { askRpc as ask } from '../ask.js';

/**
 * The wallet's coin-control methods of rpcwallet.cpp: lockunspent and listlockunspent (setLockedCoins,
 * in the wallet actor's memory as komodod keeps it) and settxfee (payTxFee, used by the wallet's fee
 * selection from then on).
 */
export function walletCoinMethods(node: NodeServices): RpcMethod[] {
  return [
    { name: 'lockunspent', category: 'wallet', minArgs: 1, maxArgs: 2, help: lockunspentHelp, handler: (params) => lockunspent(node, params) },
    { name: 'listlockunspent', category: 'wallet', maxArgs: 0, help: listlockunspentHelp, handler: () => listlockunspent(node) },
    { name: 'settxfee', category: 'wallet', minArgs: 1, maxArgs: 1, help: settxfeeHelp, handler: (params) => settxfee(node, params) },
  ];
}

/** komodod's IsHex. */
const isHex = (s: string): boolean => s.length > 0 && s.length % 2 === 0 && /^[0-9a-fA-F]+$/.test(s);

/** uint256S(...).GetHex(): the last 64 digits, zero-padded on the left, lower case. */
const canonicalTxid = (s: string): string => (s.length > 64 ? s.slice(s.length - 64) : s.padStart(64, '0')).toLowerCase();

async function lockunspent(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  rpcTypeCheck(params, params.length === 1 ? ['bool'] : ['bool', 'array']);
  const unlock = getBool(params[0]!);
  if (params.length === 1) {
    await ask(node.wallet, { op: 'lockCoins', unlock });
    return true;
  }
  // komodod locks each output as it reads it: a bad entry fails the call after the ones before it.
  const outpoints: OutpointRef[] = [];
  try {
    for (const output of getArr(params[1]!)) {
      if (!(output instanceof JsonObject)) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter, expected object');
      rpcTypeCheckObj(output, { txid: 'string', vout: 'number' });
      const txid = getStr(output.get('txid'));
      if (!isHex(txid)) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter, expected hex txid');
      const n = getInt(output.get('vout'));
      if (n < 0) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter, vout must be positive');
      outpoints.push({ txid: canonicalTxid(txid), n });
    }
  } finally {
    if (outpoints.length > 0) await ask(node.wallet, { op: 'lockCoins', unlock, outpoints });
  }
  return true;
}

async function listlockunspent(node: NodeServices): Promise<JsonOut> {
  const locked = await ask(node.wallet, { op: 'lockedCoins' });
  return locked.map((o) => ({ txid: o.txid, vout: o.n }));
}

async function settxfee(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  // AmountFromValue: 0 sets payTxFee back to unset (DEFAULT_TRANSACTION_FEE is 0).
  const perK = amountFromValue(params[0]!, node.baseParams.maxMoney);
  await ask(node.wallet, { op: 'setTxFee', perK });
  return true;
}

// ---- help texts (rpcwallet.cpp at 0adeeab, byte for byte) ------------------------------------

const EXAMPLE_TX = 'a08e6907dbbd3d809776dbfc5d82e371b764ed838b5655e72f463568df1aadf0';

function lockExamples(env: HelpEnv, last: (env: HelpEnv) => string): string {
  return (
    '\nExamples:\n\nList the unspent transactions\n' +
    helpExampleCli(env, 'listunspent', '') +
    '\nLock an unspent transaction\n' +
    helpExampleCli(env, 'lockunspent', `false "[{\\"txid\\":\\"${EXAMPLE_TX}\\",\\"vout\\":1}]"`) +
    '\nList the locked transactions\n' +
    helpExampleCli(env, 'listlockunspent', '') +
    '\nUnlock the transaction again\n' +
    helpExampleCli(env, 'lockunspent', `true "[{\\"txid\\":\\"${EXAMPLE_TX}\\",\\"vout\\":1}]"`) +
    '\nAs a json rpc call\n' +
    last(env)
  );
}

export const lockunspentHelp = (env: HelpEnv): string =>
  'lockunspent unlock [{"txid":"txid","vout":n},...]\n' +
  '\nUpdates list of temporarily unspendable outputs.\n' +
  'Temporarily lock (unlock=false) or unlock (unlock=true) specified transaction outputs.\n' +
  'A locked transaction output will not be chosen by automatic coin selection, when spending ' +
  env.chainName +
  '.\n' +
  'Locks are stored in memory only. Nodes start with zero locked outputs, and the locked output list\n' +
  'is always cleared (by virtue of process exit) when a node stops or fails.\n' +
  'Also see the listunspent call\n' +
  '\nArguments:\n' +
  '1. unlock            (boolean, required) Whether to unlock (true) or lock (false) the specified transactions\n' +
  '2. "transactions"  (string, required) A json array of objects. Each object the txid (string) vout (numeric)\n' +
  '     [           (json array of json objects)\n' +
  '       {\n' +
  '         "txid":"id",    (string) The transaction id\n' +
  '         "vout": n         (numeric) The output number\n' +
  '       }\n' +
  '       ,...\n' +
  '     ]\n' +
  '\nResult:\n' +
  'true|false    (boolean) Whether the command was successful or not\n' +
  lockExamples(env, (e) => helpExampleRpc(e, 'lockunspent', `false, "[{\\"txid\\":\\"${EXAMPLE_TX}\\",\\"vout\\":1}]"`));

export const listlockunspentHelp = (env: HelpEnv): string =>
  'listlockunspent\n' +
  '\nReturns list of temporarily unspendable outputs.\n' +
  'See the lockunspent call to lock and unlock transactions for spending.\n' +
  '\nResult:\n' +
  '[\n' +
  '  {\n' +
  '    "txid" : "transactionid",     (string) The transaction id locked\n' +
  '    "vout" : n                      (numeric) The vout value\n' +
  '  }\n' +
  '  ,...\n' +
  ']\n' +
  lockExamples(env, (e) => helpExampleRpc(e, 'listlockunspent', ''));

export const settxfeeHelp = (env: HelpEnv): string =>
  'settxfee amount\n' +
  '\nSet the transaction fee per kB.\n' +
  '\nArguments:\n' +
  '1. amount         (numeric, required) The transaction fee in ' +
  env.chainName +
  '/kB rounded to the nearest 0.00000001\n' +
  '\nResult\n' +
  'true|false        (boolean) Returns true if successful\n' +
  '\nExamples:\n' +
  helpExampleCli(env, 'settxfee', '0.00001') +
  helpExampleRpc(env, 'settxfee', '0.00001');
