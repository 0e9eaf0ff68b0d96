import { JsonParseError, parseJson } from '../rpc/json-read.js';
import type { JsonValue } from '../rpc/json-value.js';

/**
 * komodo-cli's positional-parameter conversion (src/rpc/client.cpp at 0adeeab): a param listed in
 * vRPCConvertParams as (method, index) is parsed as a JSON value (number, boolean, null, array,
 * object, or a quoted string); every other param is sent as the string typed. The server never
 * converts types, so this table decides what a method receives from the command line.
 */

/** vRPCConvertParams, complete and in komodod's order (methods acnode does not serve included;
 *  komodod lists getlastsegidstakes 0 twice, kept as in the source). */
export const RPC_CONVERT_PARAMS: readonly (readonly [string, number])[] = [
  ['stop', 0], ['setmocktime', 0], ['getaddednodeinfo', 0], ['setgenerate', 0], ['setgenerate', 1],
  ['generate', 0], ['getnetworkhashps', 0], ['getnetworkhashps', 1], ['getnetworksolps', 0],
  ['getnetworksolps', 1], ['sendtoaddress', 1], ['sendtoaddress', 4], ['settxfee', 0],
  ['getnotarysendmany', 0], ['getnotarysendmany', 1], ['getreceivedbyaddress', 1], ['getreceivedbyaccount', 1],
  ['listreceivedbyaddress', 0], ['listreceivedbyaddress', 1], ['listreceivedbyaddress', 2],
  ['listreceivedbyaccount', 0], ['listreceivedbyaccount', 1], ['listreceivedbyaccount', 2], ['getbalance', 1],
  ['getbalance', 2], ['getblockhash', 0], ['move', 2], ['move', 3], ['sendfrom', 2], ['sendfrom', 3],
  ['listtransactions', 1], ['listtransactions', 2], ['listtransactions', 3], ['listaccounts', 0],
  ['listaccounts', 1], ['walletpassphrase', 1], ['getblocktemplate', 0], ['listsinceblock', 1],
  ['listsinceblock', 2], ['sendmany', 1], ['sendmany', 2], ['sendmany', 4], ['addmultisigaddress', 0],
  ['addmultisigaddress', 1], ['createmultisig', 0], ['createmultisig', 1], ['listunspent', 0],
  ['listunspent', 1], ['listunspent', 2], ['getblock', 1], ['getblockheader', 1], ['getchaintxstats', 0],
  ['getlastsegidstakes', 0], ['gettransaction', 1], ['getrawtransaction', 1], ['getlastsegidstakes', 0],
  ['createrawtransaction', 0], ['createrawtransaction', 1], ['createrawtransaction', 2],
  ['createrawtransaction', 3], ['signrawtransaction', 1], ['signrawtransaction', 2], ['sendrawtransaction', 1],
  ['fundrawtransaction', 1], ['gettxout', 1], ['gettxout', 2], ['gettxoutproof', 0], ['lockunspent', 0],
  ['lockunspent', 1], ['importprivkey', 2], ['importprivkey', 3], ['importprivkey', 4], ['importaddress', 2],
  ['verifychain', 0], ['verifychain', 1], ['keypoolrefill', 0], ['getrawmempool', 0], ['estimatefee', 0],
  ['estimatepriority', 0], ['prioritisetransaction', 1], ['prioritisetransaction', 2], ['setban', 2],
  ['setban', 3], ['setstakingsplit', 0], ['getblockhashes', 0], ['getblockhashes', 1], ['getblockhashes', 2],
  ['getspentinfo', 0], ['getaddresstxids', 0], ['getaddressbalance', 0], ['getaddressdeltas', 0],
  ['getaddressutxos', 0], ['getaddressmempool', 0], ['zcrawjoinsplit', 1], ['zcrawjoinsplit', 2],
  ['zcrawjoinsplit', 3], ['zcrawjoinsplit', 4], ['zcbenchmark', 1], ['zcbenchmark', 2], ['getblocksubsidy', 0],
  ['z_listaddresses', 0], ['z_listreceivedbyaddress', 1], ['z_listunspent', 0], ['z_listunspent', 1],
  ['z_listunspent', 2], ['z_listunspent', 3], ['z_getbalance', 1], ['z_gettotalbalance', 0],
  ['z_gettotalbalance', 1], ['z_gettotalbalance', 2], ['z_mergetoaddress', 0], ['z_mergetoaddress', 2],
  ['z_mergetoaddress', 3], ['z_mergetoaddress', 4], ['z_viewtransaction', 1], ['z_sendmany', 1],
  ['z_sendmany', 2], ['z_sendmany', 3], ['z_shieldcoinbase', 2], ['z_shieldcoinbase', 3],
  ['z_getoperationstatus', 0], ['z_getoperationresult', 0], ['notaries', 2], ['minerids', 1], ['kvsearch', 1],
  ['kvupdate', 4], ['z_importkey', 2], ['z_importviewingkey', 2], ['z_getpaymentdisclosure', 1],
  ['z_getpaymentdisclosure', 2],
  // crosschain
  ['assetchainproof', 1], ['crosschainproof', 1], ['getproofroot', 2],
  ['getNotarisationsForBlock', 0], ['height_MoM', 1], ['calc_MoM', 2],
  ['migrate_completeimporttransaction', 1],
];

const TABLE = new Set(RPC_CONVERT_PARAMS.map(([m, i]) => `${m}\u0000${i}`));

/** CRPCConvertTable::convert: is param `idx` (0-based) of `method` JSON-parsed? Case-sensitive. */
export function isConverted(method: string, idx: number): boolean {
  return TABLE.has(`${method}\u0000${idx}`);
}

/** A conversion failure; komodo-cli prints it as `error: Error JSON:<text>` and exits with 1. */
export class ConvertError extends Error {
  override readonly name = 'ConvertError';
}

/**
 * ParseNonRFCJSONValue: reads `[` + text + `]` and wants exactly one element, so a bare number, `true`,
 * `null`, a quoted string, an array or an object pass; `1,2`, `abc` or an empty string fail.
 */
export function parseNonRfcJsonValue(text: string): JsonValue {
  let v: JsonValue;
  try {
    v = parseJson(`[${text}]`);
  } catch (e) {
    if (e instanceof JsonParseError) throw new ConvertError(`Error JSON:${text}`);
    throw e;
  }
  if (!Array.isArray(v) || v.length !== 1) throw new ConvertError(`Error JSON:${text}`);
  return v[0]!;
}

/** RPCConvertValues: the params array komodo-cli sends for `method` and the typed strings. */
export function rpcConvertValues(method: string, params: readonly string[]): JsonValue[] {
  return params.map((p, idx) => (isConverted(method, idx) ? parseNonRfcJsonValue(p) : p));
}
