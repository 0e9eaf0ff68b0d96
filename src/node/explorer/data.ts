import { RpcTable, type HelpEnv, type RpcMethod } from '../../rpc/table.js';
import { parseJson } from '../../rpc/json-read.js';
import { writeJson } from '../../rpc/json-write.js';
import { JsonObject, type JsonOut, type JsonValue } from '../../rpc/json-value.js';
import { RpcError, RPC_INVALID_REQUEST, RPC_METHOD_NOT_FOUND, RPC_PARSE_ERROR } from '../../rpc/errors.js';

/**
 * The explorer page's data: the node's own JSON-RPC methods, the read-only ones only. The page posts
 * `{"method": …, "params": […]}` and gets exactly what the JSON-RPC answers (the same handler, the same
 * cost), as `{"result": …}` or `{"error": {"code", "message"}}`. The table holds nothing else, so a
 * wallet method or anything that writes or holds a secret is not reachable from the page at all.
 */
export const EXPLORER_METHODS: readonly string[] = [
  'getblockchaininfo', 'getblockcount', 'getbestblockhash', 'getblockhash', 'getblockheader', 'getblock',
  'getdifficulty', 'getmininginfo', 'getrawtransaction', 'decoderawtransaction', 'decodescript', 'gettxout',
  'getspentinfo', 'getaddressbalance', 'getaddressutxos', 'getaddresstxids', 'getaddressdeltas',
  'getaddressmempool', 'getrawmempool', 'getmempoolinfo', 'tokenlist', 'tokeninfo', 'tokenorders',
  'assetsaddress', 'tokenaddress', 'getactorstates',
];

/** A table of the read-only methods among the node's (the very same method objects). */
export function explorerTable(env: HelpEnv, methods: Iterable<RpcMethod>): RpcTable {
  const allowed = new Set(EXPLORER_METHODS);
  return new RpcTable(env, [...methods].filter((m) => allowed.has(m.name)));
}

/** Answers one page request body (JSON text); always a JSON text, never a throw. */
export async function answer(table: RpcTable, body: Uint8Array): Promise<string> {
  try {
    let req: JsonValue;
    try {
      req = parseJson(body);
    } catch {
      throw new RpcError(RPC_PARSE_ERROR, 'Parse error');
    }
    if (!(req instanceof JsonObject)) throw new RpcError(RPC_INVALID_REQUEST, 'Invalid Request object');
    const method = req.get('method');
    const params = req.get('params');
    if (typeof method !== 'string') throw new RpcError(RPC_INVALID_REQUEST, 'Method must be a string');
    if (params !== null && !Array.isArray(params)) throw new RpcError(RPC_INVALID_REQUEST, 'Params must be an array');
    if (!table.get(method)) throw new RpcError(RPC_METHOD_NOT_FOUND, 'Method not found (the explorer page reaches read-only methods only)');
    const result = await table.run(method, params ?? []);
    return writeJson(new Map<string, JsonOut>([['result', result], ['error', null]]));
  } catch (e) {
    const code = e instanceof RpcError ? e.code : -1;
    const message = e instanceof Error ? e.message : String(e);
    const error = new Map<string, JsonOut>([['code', code], ['message', message]]);
    return writeJson(new Map<string, JsonOut>([['result', null], ['error', error]]));
  }
}
