import type { NodeServices } from '../../actors/protocol.js';
import type { Transaction } from '../../chain/tx/transaction.js';
import { addressToScript, decodeAddress, encodeAddress } from '../../chain/address/index.js';
import { isHex, hexBytes } from '../../chain/encoding/hex.js';
import { RpcError, RPC_INVALID_ADDRESS_OR_KEY, RPC_MISC_ERROR } from '../errors.js';
import type { JsonOut, JsonValue } from '../json-value.js';
import { getBool, getStr } from '../params.js';
import { helpExampleCli, helpExampleRpc, type HelpEnv, type RpcMethod } from '../table.js';
import { askRpc as ask } from '../ask.js';
import { multisigRedeemScript } from './util.js';
import { uint256Hex } from './wallet-history.js';

/** RPC_WALLET_INVALID_ACCOUNT_NAME (rpcprotocol.h): AccountFromValue's "*". */
const RPC_WALLET_INVALID_ACCOUNT_NAME = -11;

/** AccountFromValue (rpcwallet.cpp): any string but "*". */
function accountFromValue(v: JsonValue): string {
  const account = getStr(v);
  if (account === '*') throw new RpcError(RPC_WALLET_INVALID_ACCOUNT_NAME, 'Invalid account name');
  return account;
}

/** komodod's IsHex: a non-empty, even number of hex digits. */
const isHexText = (s: string): boolean => s.length > 0 && isHex(s);

const importaddressHelp = (env: HelpEnv): string =>
  'importaddress "address" ( "label" rescan )\n' +
  '\nAdds an address or script (in hex) that can be watched as if it were in your wallet but cannot be used to spend.\n' +
  '\nArguments:\n' +
  '1. "address"          (string, required) The address\n' +
  '2. "label"            (string, optional, default="") An optional label\n' +
  '3. rescan               (boolean, optional, default=true) Rescan the wallet for transactions\n' +
  '\nNote: This call can take minutes to complete if rescan is true.\n' +
  '\nExamples:\n' +
  '\nImport an address with rescan\n' +
  helpExampleCli(env, 'importaddress', '"myaddress"') +
  '\nImport using a label without rescan\n' +
  helpExampleCli(env, 'importaddress', '"myaddress" "testing" false') +
  '\nAs a JSON-RPC call\n' +
  helpExampleRpc(env, 'importaddress', '"myaddress", "testing", false');

const addmultisigaddressHelp = (env: HelpEnv): string =>
  'addmultisigaddress nrequired ["key",...] ( "account" )\n' +
  '\nAdd a nrequired-to-sign multisignature address to the wallet.\n' +
  `Each key is a ${env.chainName} address or hex-encoded public key.\n` +
  "If 'account' is specified (DEPRECATED), assign address to that account.\n" +
  '\nArguments:\n' +
  '1. nrequired        (numeric, required) The number of required signatures out of the n keys or addresses.\n' +
  `2. "keysobject"   (string, required) A json array of ${env.chainName} addresses or hex-encoded public keys\n` +
  '     [\n' +
  `       "address"  (string) ${env.chainName} address or hex-encoded public key\n` +
  '       ...,\n' +
  '     ]\n' +
  '3. "account"      (string, optional) DEPRECATED. If provided, MUST be set to the empty string "" to represent the default account. Passing any other string will result in an error.\n' +
  '\nResult:\n' +
  `"${env.chainName}_address"  (string) A ${env.chainName} address associated with the keys.\n` +
  '\nExamples:\n' +
  '\nAdd a multisig address from 2 addresses\n' +
  helpExampleCli(env, 'addmultisigaddress', '2 "[\\"RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPV\\",\\"RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPV\\"]"') +
  '\nAs json rpc call\n' +
  helpExampleRpc(env, 'addmultisigaddress', '2, "[\\"RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPV\\",\\"RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPV\\"]"');

const cleanwallettransactionsHelp = (env: HelpEnv): string =>
  'cleanwallettransactions "txid"\n' +
  '\nRemove all txs that are spent. You can clear all txs bar one, by specifiying a txid.\n' +
  '\nPlease backup your wallet.dat before running this command.\n' +
  '\nArguments:\n' +
  '1. "txid"    (string, optional) The transaction id to keep.\n' +
  '\nResult:\n' +
  '{\n' +
  `  "total_transactions" : n,         (numeric) Transactions in wallet of ${env.chainName}\n` +
  '  "remaining_transactions" : n,     (numeric) Transactions in wallet after clean.\n' +
  '  "removed_transactions" : n,       (numeric) The number of transactions removed.\n' +
  '}\n' +
  '\nExamples:\n' +
  helpExampleCli(env, 'cleanwallettransactions', '') +
  helpExampleCli(env, 'cleanwallettransactions', '"1075db55d416d3ca199f55b6084e2115b9345e16c5cf302fc80e9d5fbf5d48d"') +
  helpExampleRpc(env, 'cleanwallettransactions', '') +
  helpExampleRpc(env, 'cleanwallettransactions', '"1075db55d416d3ca199f55b6084e2115b9345e16c5cf302fc80e9d5fbf5d48d"');

/** Watch-only addresses, multisig addresses the wallet holds, and the history cleaner (rpcdump.cpp, rpcwallet.cpp). */
export function walletWatchMethods(node: NodeServices): RpcMethod[] {
  return [
    {
      name: 'importaddress',
      category: 'wallet',
      minArgs: 1,
      maxArgs: 3,
      help: importaddressHelp,
      handler: (params) => importaddress(node, params),
    },
    {
      name: 'addmultisigaddress',
      category: 'wallet',
      minArgs: 2,
      maxArgs: 3,
      help: addmultisigaddressHelp,
      handler: (params) => addmultisigaddress(node, params),
    },
    {
      name: 'cleanwallettransactions',
      category: 'wallet',
      maxArgs: 1,
      help: cleanwallettransactionsHelp,
      handler: (params) => cleanwallettransactions(node, params),
    },
  ];
}

/** importaddress (rpcdump.cpp): an address, else a hex script; answers null. */
async function importaddress(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const text = getStr(params[0]!);
  const dest = decodeAddress(text);
  let script: Uint8Array;
  let address: string | undefined;
  if (dest) {
    address = encodeAddress(dest.version, dest.hash);
    script = addressToScript(address)!;
  } else if (isHexText(text)) {
    script = hexBytes(text);
  } else {
    throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Invalid Komodo address or script');
  }
  const label = params.length > 1 ? getStr(params[1]!) : '';
  const rescan = params.length > 2 ? getBool(params[2]!) : true;
  await ask(node.wallet, { op: 'importAddress', script, ...(address !== undefined ? { address } : {}), label, rescan });
  return null;
}

/** addmultisigaddress (rpcwallet.cpp): the account first, then the redeem script (keys as createmultisig takes them). */
async function addmultisigaddress(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const account = params.length > 2 ? accountFromValue(params[2]!) : '';
  const redeemScript = await multisigRedeemScript(node, params);
  return ask(node.wallet, { op: 'addMultisig', redeemScript, account });
}

/**
 * cleanwallettransactions (rpcwallet.cpp): the transaction to keep is looked up as GetTransaction
 * does (the mempool, then the chain's transaction index); komodod's runtime_errors carry newlines.
 * The field names are komodod's.
 */
async function cleanwallettransactions(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  let keep: { txid: string; tx: Transaction } | undefined;
  if (params.length === 1) {
    const txid = uint256Hex(getStr(params[0]!));
    const entry = await ask(node.mempool, { op: 'get', txid });
    const tx = entry?.tx ?? (await ask(node.chainStore, { op: 'tx', txid }))?.tx;
    if (!tx) throw new RpcError(RPC_MISC_ERROR, '\nThe transaction could not be found!\n');
    keep = { txid, tx };
  }
  const r = await ask(node.wallet, { op: 'cleanTxs', ...(keep ? { keep } : {}) });
  return { total_transactions: r.total, remaining_transactions: r.remaining, removed_transactions: r.total - r.remaining };
}
