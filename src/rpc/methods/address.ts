import type { NodeServices } from '../../actors/protocol.js';
import type { AddressDelta } from '../../actors/chainstore/protocol.js';
import type { AddressType } from '../../chain/address/index-key.js';
import { addressKey } from '../../chain/address/index-key.js';
import { decodeAddress, encodeAddress, PUBKEY_ADDRESS, SCRIPT_ADDRESS } from '../../chain/address/index.js';
import { fromHex, toHex, toHexReversed } from '../../chain/encoding/hex.js';
import { RpcError, RPC_INVALID_ADDRESS_OR_KEY } from '../errors.js';
import { JsonNumber, JsonObject, type JsonOut, type JsonValue } from '../json-value.js';
import { getBool, getInt, getObj, getStr, parseHashV } from '../params.js';
import { helpExampleCli, helpExampleRpc, type HelpEnv, type RpcMethod } from '../table.js';
import { askRpc } from '../ask.js';
import { getSpentIndex } from './rawtransactions.js';

/**
 * komodod's address-index RPCs (rpc/misc.cpp, -addressindex / -spentindex, on for every ac_cc chain):
 * getaddressutxos, getaddressbalance, getaddresstxids, getaddressdeltas, getaddressmempool,
 * getspentinfo, and getblockhashes (rpc/blockchain.cpp; the timestamp index is off by default).
 * Every answer is read from the chain store's and the mempool's indexes, never by scanning blocks.
 */

const EXAMPLE = '\'{"addresses": ["RY5LccmGiX9bUHYGtSWQouNy1yFhc5rM87"]}\' (ccvout)';
const EXAMPLE_RPC = '{"addresses": ["RY5LccmGiX9bUHYGtSWQouNy1yFhc5rM87"]} (ccvout)';

interface IndexAddress {
  type: AddressType;
  hash: Uint8Array;
  /** addressKey(type, hash): the chain store's map key */
  key: string;
}

/** CBitcoinAddress::GetIndexKey: R-addresses are type 1 (3 with the ccvout flag), P2SH type 2. */
function indexKeyOf(s: string, ccVout: boolean): IndexAddress | null {
  const d = decodeAddress(s);
  if (!d) return null;
  const type: AddressType = d.version === SCRIPT_ADDRESS ? 2 : ccVout ? 3 : 1;
  return { type, hash: d.hash, key: addressKey(type, d.hash) };
}

/** getAddressesFromParams: a second param (any value) asks for CC outputs (ccVout). */
export function addressesFromParams(params: JsonValue[]): IndexAddress[] {
  const ccVout = params.length === 2;
  const p = params[0] ?? null;
  if (typeof p === 'string') {
    const a = indexKeyOf(p, ccVout);
    if (!a) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Invalid address');
    return [a];
  }
  if (p instanceof JsonObject) {
    const values = p.get('addresses');
    if (!Array.isArray(values)) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Addresses is expected to be an array');
    return values.map((v) => {
      const a = indexKeyOf(getStr(v), ccVout);
      if (!a) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Invalid addresses');
      return a;
    });
  }
  // komodod's own spelling.
  throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Invalid addresse');
}

/** getAddressFromIndex: types 1 and 3 print as R-addresses, 2 as a P2SH address (one encoding per key and call). */
function addressNamer(): (key: string) => string {
  const cache = new Map<string, string>();
  return (key) => {
    let s = cache.get(key);
    if (s === undefined) cache.set(key, (s = addressFromKey(key)));
    return s;
  };
}

function addressFromKey(key: string): string {
  const sep = key.indexOf(':');
  const type = Number(key.slice(0, sep));
  const hash = fromHex(key.slice(sep + 1));
  if (type === 2) return encodeAddress(SCRIPT_ADDRESS, hash);
  if (type === 1 || type === 3) return encodeAddress(PUBKEY_ADDRESS, hash);
  throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Unknown address type');
}

const isNum = (v: JsonValue): v is JsonNumber => v instanceof JsonNumber;
const noInfo = (): RpcError => new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'No information available for address');

type History = { deltas: (AddressDelta & { address: string })[]; tip: { hash: string; height: number }; startHash: string | null; endHash: string | null } | null;

async function history(node: NodeServices, addrs: IndexAddress[], start = 0, end = 0): Promise<NonNullable<History>> {
  const h = await askRpc(node.chainStore, { op: 'addressHistory', addresses: addrs.map((a) => a.key), start, end });
  // GetAddressIndex fails when -addressindex is off.
  if (!h) throw noInfo();
  return h;
}

const help = (name: string, body: string) => (env: HelpEnv): string => `${name}\n${body}\nExamples:\n` + helpExampleCli(env, name.split(' ')[0]!, EXAMPLE) + helpExampleRpc(env, name.split(' ')[0]!, EXAMPLE_RPC);

const ADDRESSES_ARG = '{\n  "addresses"\n    [\n      "address"  (string) The base58check encoded address\n      ,...\n    ]\n';

export const listsinceblockHelp = (env: HelpEnv): string =>
  'listsinceblock ( "blockhash" target-confirmations includeWatchonly)\n' +
  '\nGet all transactions in blocks since block [blockhash], or all transactions if omitted\n' +
  '\nArguments:\n' +
  '1. "blockhash"   (string, optional) The block hash to list transactions since\n' +
  '2. target-confirmations:    (numeric, optional) The confirmations required, must be 1 or more\n' +
  // komodod's text runs straight on into "\nResult:".
  "3. includeWatchonly:        (bool, optional, default=false) Include transactions to watchonly addresses (see 'importaddress')" +
  '\nResult:\n' +
  '{\n' +
  '  "transactions": [\n' +
  '    "account":"accountname",       (string) DEPRECATED. The account name associated with the transaction. Will be "" for the default account.\n' +
  `    "address":"${env.chainName}_address",    (string) The ${env.chainName} address of the transaction. Not present for move transactions (category = move).\n` +
  '    "category":"send|receive",     (string) The transaction category. \'send\' has negative amounts, \'receive\' has positive amounts.\n' +
  `    "amount": x.xxx,          (numeric) The amount in ${env.chainName}. This is negative for the 'send' category, and for the 'move' category for moves \n` +
  "                                          outbound. It is positive for the 'receive' category, and for the 'move' category for inbound funds.\n" +
  '    "vout" : n,               (numeric) the vout value\n' +
  `    "fee": x.xxx,             (numeric) The amount of the fee in ${env.chainName}. This is negative and only available for the 'send' category of transactions.\n` +
  "    \"confirmations\": n,       (numeric) The number of confirmations for the transaction. Available for 'send' and 'receive' category of transactions.\n" +
  "    \"blockhash\": \"hashvalue\",     (string) The block hash containing the transaction. Available for 'send' and 'receive' category of transactions.\n" +
  "    \"blockindex\": n,          (numeric) The block index containing the transaction. Available for 'send' and 'receive' category of transactions.\n" +
  '    "blocktime": xxx,         (numeric) The block time in seconds since epoch (1 Jan 1970 GMT).\n' +
  "    \"txid\": \"transactionid\",  (string) The transaction id. Available for 'send' and 'receive' category of transactions.\n" +
  '    "time": xxx,              (numeric) The transaction time in seconds since epoch (Jan 1 1970 GMT).\n' +
  "    \"timereceived\": xxx,      (numeric) The time received in seconds since epoch (Jan 1 1970 GMT). Available for 'send' and 'receive' category of transactions.\n" +
  '    "comment": "...",       (string) If a comment is associated with the transaction.\n' +
  '    "to": "...",            (string) If a comment to is associated with the transaction.\n' +
  '  ],\n' +
  '  "lastblock": "lastblockhash"     (string) The hash of the last block\n' +
  '}\n' +
  '\nExamples:\n' +
  helpExampleCli(env, 'listsinceblock', '') +
  helpExampleCli(env, 'listsinceblock', '"000000000000000bacf66f7497b7dc45ef753ee9a7d38571037cdb1a57f663ad" 6') +
  helpExampleRpc(env, 'listsinceblock', '"000000000000000bacf66f7497b7dc45ef753ee9a7d38571037cdb1a57f663ad", 6');

export function addressMethods(node: NodeServices): RpcMethod[] {
  return [
    {
      name: 'getaddressmempool',
      category: 'addressindex',
      minArgs: 1,
      maxArgs: 2,
      help: help(
        'getaddressmempool',
        '\nReturns all mempool deltas for an address (requires addressindex to be enabled).\n\nArguments:\n' +
          ADDRESSES_ARG +
          '}\n\nCCvout (optional) Return CCvouts instead of normal vouts\n\nResult:\n[\n  {\n    "address"  (string) The base58check encoded address\n    "txid"  (string) The related txid\n    "index"  (number) The related input or output index\n    "satoshis"  (number) The difference of satoshis\n    "timestamp"  (number) The time the transaction entered the mempool (seconds)\n    "prevtxid"  (string) The previous txid (if spending)\n    "prevout"  (string) The previous transaction output index (if spending)\n  }\n]\n',
      ),
      handler: (params) => getaddressmempool(node, params),
    },
    {
      name: 'getaddressutxos',
      category: 'addressindex',
      minArgs: 1,
      maxArgs: 2,
      help: help(
        'getaddressutxos',
        '\nReturns all unspent outputs for an address (requires addressindex to be enabled).\n\nArguments:\n' +
          ADDRESSES_ARG.replace('    ]\n', '    ],\n') +
          '  "chainInfo"  (boolean) Include chain info with results\n}\n\nCCvout (optional) Return CCvouts instead of normal vouts\n\nResult\n[\n  {\n    "address"  (string) The address base58check encoded\n    "txid"  (string) The output txid\n    "height"  (number) The block height\n    "outputIndex"  (number) The output index\n    "script"  (strin) The script hex encoded\n    "satoshis"  (number) The number of satoshis of the output\n  }\n]\n',
      ),
      handler: (params) => getaddressutxos(node, params),
    },
    {
      name: 'getaddressdeltas',
      category: 'addressindex',
      checkArgs: (params) => params.length >= 1 && params.length <= 2 && params[0] instanceof JsonObject,
      help: help(
        'getaddressdeltas',
        '\nReturns all changes for an address (requires addressindex to be enabled).\n\nArguments:\n' +
          ADDRESSES_ARG +
          '  "start" (number) The start block height\n  "end" (number) The end block height\n  "chainInfo" (boolean) Include chain info in results, only applies if start and end specified\n}\n\nCCvout (optional) Return CCvouts instead of normal vouts\n\nResult:\n[\n  {\n    "satoshis"  (number) The difference of satoshis\n    "txid"  (string) The related txid\n    "index"  (number) The related input or output index\n    "height"  (number) The block height\n    "address"  (string) The base58check encoded address\n  }\n]\n',
      ),
      handler: (params) => getaddressdeltas(node, params),
    },
    {
      name: 'getaddressbalance',
      category: 'addressindex',
      minArgs: 1,
      maxArgs: 2,
      help: help(
        'getaddressbalance',
        '\nReturns the balance for an address(es) (requires addressindex to be enabled).\n\nArguments:\n' +
          ADDRESSES_ARG +
          '}\n\nCCvout (optional) Return CCvouts instead of normal vouts\n\nResult:\n{\n  "balance"  (string) The current balance in satoshis\n  "received"  (string) The total number of satoshis received (including change)\n}\n',
      ),
      handler: (params) => getaddressbalance(node, params),
    },
    {
      name: 'getaddresstxids',
      category: 'addressindex',
      minArgs: 1,
      maxArgs: 2,
      help: help(
        'getaddresstxids (ccvout)',
        '\nReturns the txids for an address(es) (requires addressindex to be enabled).\n\nArguments:\n' +
          ADDRESSES_ARG +
          '  "start" (number) The start block height\n  "end" (number) The end block height\n}\n\nCCvout (optional) Return CCvouts instead of normal vouts\n\nResult:\n[\n  "transactionid"  (string) The transaction id\n  ,...\n]\n',
      ),
      handler: (params) => getaddresstxids(node, params),
    },
    {
      name: 'getspentinfo',
      category: 'blockchain',
      checkArgs: (params) => params.length === 1 && params[0] instanceof JsonObject,
      help: (env) =>
        'getspentinfo\n\nReturns the txid and index where an output is spent.\n\nArguments:\n{\n  "txid" (string) The hex string of the txid\n  "index" (number) The start block height\n}\n\nResult:\n{\n  "txid"  (string) The transaction id\n  "index"  (number) The spending input index\n  ,...\n}\n\nExamples:\n' +
        helpExampleCli(env, 'getspentinfo', '\'{"txid": "0437cd7f8525ceed2324359c2d0ba26006d92d856a9c20fa0241106ee5a597c9", "index": 0}\'') +
        helpExampleRpc(env, 'getspentinfo', '{"txid": "0437cd7f8525ceed2324359c2d0ba26006d92d856a9c20fa0241106ee5a597c9", "index": 0}'),
      handler: (params) => getspentinfo(node, params),
    },
    {
      name: 'getblockhashes',
      category: 'blockchain',
      minArgs: 2,
      help: (env) =>
        'getblockhashes timestamp\n\nReturns array of hashes of blocks within the timestamp range provided.\n\nArguments:\n1. high         (numeric, required) The newer block timestamp\n2. low          (numeric, required) The older block timestamp\n3. options      (string, required) A json object\n    {\n      "noOrphans":true   (boolean) will only include blocks on the main chain\n      "logicalTimes":true   (boolean) will include logical timestamps with hashes\n    }\n\nResult:\n[\n  "hash"         (string) The block hash\n]\n[\n  {\n    "blockhash": (string) The block hash\n    "logicalts": (numeric) The logical timestamp\n  }\n]\n\nExamples:\n' +
        helpExampleCli(env, 'getblockhashes', '1231614698 1231024505') +
        helpExampleRpc(env, 'getblockhashes', '1231614698, 1231024505') +
        helpExampleCli(env, 'getblockhashes', '1231614698 1231024505 \'{"noOrphans":false, "logicalTimes":true}\''),
      handler: (params) => getblockhashes(params),
    },
  ];
}

async function getaddressmempool(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const addrs = addressesFromParams(params);
  // Without -addressindex komodod's mempool keeps no address index: getAddressIndex succeeds, empty.
  const deltas = node.config.addressindex ? await askRpc(node.mempool, { op: 'addressDeltas', addresses: addrs.map((a) => a.key) }) : [];
  // std::sort by time (timestampSort); a stable sort keeps mapAddress order among equal times.
  deltas.sort((a, b) => a.time - b.time);
  const name = addressNamer();
  return deltas.map((d) => {
    const o: Record<string, JsonOut> = { address: name(d.address), txid: d.txid, index: d.index, satoshis: d.satoshis, timestamp: BigInt(d.time) };
    if (d.satoshis < 0n) {
      o.prevtxid = d.prevtxid!;
      o.prevout = d.prevout!;
    }
    return o;
  });
}

async function getaddressutxos(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  let includeChainInfo = false;
  const p0 = params[0];
  if (p0 instanceof JsonObject) {
    const ci = p0.get('chainInfo');
    if (typeof ci === 'boolean') includeChainInfo = ci;
  }
  const addrs = addressesFromParams(params);
  const r = await askRpc(node.chainStore, {
    op: 'addressUtxos',
    addresses: addrs.map((a) => a.key),
  });
  if (!r) throw noInfo();
  // heightSort (std::sort; stable here).
  const sorted = r.utxos.slice().sort((a, b) => a.height - b.height);
  const name = addressNamer();
  const utxos = sorted.map((u) => ({ address: name(u.address), txid: u.txid, outputIndex: u.index, script: toHex(u.script), satoshis: u.value, height: u.height }));
  if (includeChainInfo) return { utxos, hash: r.tip.hash, height: r.tip.height };
  return utxos;
}

async function getaddressdeltas(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const o = getObj(params[0]!);
  const startValue = o.get('start');
  const endValue = o.get('end');
  const chainInfo = o.get('chainInfo');
  const includeChainInfo = typeof chainInfo === 'boolean' ? getBool(chainInfo) : false;
  let start = 0;
  let end = 0;
  if (isNum(startValue) && isNum(endValue)) {
    start = getInt(startValue);
    end = getInt(endValue);
    if (start <= 0 || end <= 0) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Start and end is expected to be greater than zero');
    if (end < start) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'End value is expected to be greater than start');
  }
  const addrs = addressesFromParams(params);
  const h = await history(node, addrs, start, end);
  const name = addressNamer();
  const deltas = h.deltas.map((d) => ({ satoshis: d.satoshis, txid: d.txid, index: d.index, blockindex: d.blockindex, height: d.height, address: name(d.address) }));
  if (includeChainInfo && start > 0 && end > 0) {
    if (start > h.tip.height || end > h.tip.height) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Start or end is outside chain range');
    return { deltas, start: { hash: h.startHash!, height: start }, end: { hash: h.endHash!, height: end } };
  }
  return deltas;
}

async function getaddressbalance(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const addrs = addressesFromParams(params);
  // Σ deltas and Σ positive deltas of GetAddressIndex per listed address, from running totals.
  const t = await askRpc(node.chainStore, { op: 'addressTotals', addresses: addrs.map((a) => a.key) });
  // GetAddressIndex fails when -addressindex is off.
  if (!t) throw noInfo();
  return { balance: t.balance, received: t.received };
}

async function getaddresstxids(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const addrs = addressesFromParams(params);
  let start = 0;
  let end = 0;
  const p0 = params[0];
  if (p0 instanceof JsonObject) {
    const s = p0.get('start');
    const e = p0.get('end');
    if (isNum(s) && isNum(e)) {
      start = getInt(s);
      end = getInt(e);
    }
  }
  // komodod does not check start > end here: the range is simply empty.
  const h = await history(node, addrs, start, end);
  const seen = new Set<string>();
  const pairs: [number, string][] = [];
  for (const d of h.deltas) {
    const k = `${d.height}:${d.txid}`;
    if (seen.has(k)) continue;
    seen.add(k);
    pairs.push([d.height, d.txid]);
  }
  // Several addresses: std::set<pair<int, string>> order (height, then txid text).
  if (addrs.length > 1) pairs.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  return pairs.map(([, t]) => t);
}

async function getspentinfo(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const o = getObj(params[0]!);
  const txidValue = o.get('txid');
  const indexValue = o.get('index');
  if (typeof txidValue !== 'string' || !isNum(indexValue)) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Invalid txid or index');
  const txid = toHexReversed(parseHashV(txidValue, 'txid'));
  const outputIndex = getInt(indexValue);
  // GetSpentIndex: the mempool's spent index first, then the block's (txindex gives the output's script).
  const [v] = await getSpentIndex(node, [[txid, outputIndex]], []);
  if (!v) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Unable to get spent info');
  return { txid: v.txid, index: v.inputIndex, height: v.blockHeight };
}

function getblockhashes(params: JsonValue[]): JsonOut {
  getInt(params[0]!);
  getInt(params[1]!);
  const opts = params[2];
  if (opts instanceof JsonObject) {
    const a = opts.get('noOrphans');
    const b = opts.get('logicalTimes');
    if (typeof a === 'boolean') getBool(a);
    if (typeof b === 'boolean') getBool(b);
  }
  // komodod's timestamp index (-timestampindex) is off by default, also on ac_cc chains
  // (DEFAULT_TIMESTAMPINDEX = false), so GetTimestampIndex fails and this is its answer.
  throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'No information available for block hashes');
}
