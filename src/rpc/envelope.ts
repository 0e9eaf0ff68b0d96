import {
  RpcError,
  RPC_INVALID_REQUEST,
  RPC_METHOD_NOT_FOUND,
  RPC_PARSE_ERROR,
} from './errors.js';
import { JsonParseError, parseJson } from './json-read.js';
import { JsonObject, type JsonOut, type JsonValue } from './json-value.js';
import { escapeJsonString, writeJson } from './json-write.js';
import { toRpcError, type RpcTable } from './table.js';

/**
 * The JSON-RPC layer between the HTTP body and the method table (src/httprpc.cpp HTTPReq_JSONRPC,
 * src/rpc/server.cpp JSONRequest::parse / JSONRPCExecOne / JSONRPCExecBatch, src/rpc/protocol.cpp).
 */

export interface RpcReply {
  status: number;
  /** the reply text, ending in "\n" */
  body: string;
}

/** JSONRPCReplyObj written compactly: keys result, error, id in that order. */
function replyText(resultJson: string, error: RpcError | null, idJson: string): string {
  const err = error
    ? `{"code":${error.code},"message":"${escapeJsonString(error.message)}"}`
    : 'null';
  return `{"result":${error ? 'null' : resultJson},"error":${err},"id":${idJson}}`;
}

interface Parsed {
  method: string;
  params: JsonValue[];
}

/** JSONRequest::parse. `idOut` receives the id before anything else is checked, so later errors carry it. */
function parseRequest(req: JsonValue, idOut: { id: JsonValue }): Parsed {
  if (!(req instanceof JsonObject)) throw new RpcError(RPC_INVALID_REQUEST, 'Invalid Request object');
  idOut.id = req.get('id');
  const method = req.get('method');
  if (method === null) throw new RpcError(RPC_INVALID_REQUEST, 'Missing method');
  if (typeof method !== 'string') throw new RpcError(RPC_INVALID_REQUEST, 'Method must be a string');
  const params = req.get('params');
  if (params === null) return { method, params: [] };
  if (!Array.isArray(params)) throw new RpcError(RPC_INVALID_REQUEST, 'Params must be an array');
  return { method, params };
}

type Executed = [string, RpcError | null];

/** An Executed as it is (a batch element's). */
const asIs = (e: Executed): Executed => e;

/** One call to its envelope text (no newline) and the error it carried, if any, handed to `out`;
 *  synchronous when the method's handler is. Given `later`, an asynchronous call's is handed on to
 *  it in the promise job its result settles in, and nothing is returned. */
function execOne<T>(table: RpcTable, req: JsonValue, out: (e: Executed) => T): T | Promise<T>;
function execOne<T>(table: RpcTable, req: JsonValue, out: (e: Executed) => T, later: (t: T) => void): T | undefined;
function execOne<T>(table: RpcTable, req: JsonValue, out: (e: Executed) => T, later?: (t: T) => void): T | Promise<T> | undefined {
  const holder: { id: JsonValue } = { id: null };
  let result: JsonOut | Promise<JsonOut>;
  try {
    const { method, params } = parseRequest(req, holder);
    // start, not run: a rejection reaches failed(), which makes it an RpcError as run would have
    result = table.start(method, params);
  } catch (e) {
    return out(failed(e, holder.id));
  }
  if (!(result instanceof Promise)) return out(succeeded(result, holder.id));
  if (!later) return settle(result, holder.id, out);
  const id = holder.id;
  result.then(
    (r) => later(out(succeeded(r, id))),
    (e: unknown) => later(out(failed(e, id))),
  );
  return undefined;
}

/** An asynchronous call's envelope once it answers, handed to `out` (an async function, not two
 *  closures a call: a batch makes one per element; a single call's reply is made here, not in one
 *  more promise job). */
async function settle<T>(result: Promise<JsonOut>, id: JsonValue, out: (e: Executed) => T): Promise<T> {
  let r: JsonOut;
  try {
    r = await result;
  } catch (e) {
    return out(failed(e, id));
  }
  return out(succeeded(r, id));
}

function succeeded(result: JsonOut, id: JsonValue): Executed {
  try {
    // written inside the try: a value JSON cannot hold fails this call, not the server
    return [replyText(writeJson(result), null, writeJson(id)), null];
  } catch (e) {
    return failed(e, id);
  }
}

function failed(e: unknown, id: JsonValue): Executed {
  const err = toRpcError(e);
  return [replyText('null', err, writeJson(id)), err];
}

/** JSONErrorReply's status: 400 for -32600, 404 for -32601, 500 for every other code. */
export function httpStatusForCode(code: number): number {
  if (code === RPC_INVALID_REQUEST) return 400;
  if (code === RPC_METHOD_NOT_FOUND) return 404;
  return 500;
}

/**
 * A request body (bytes) to komodod's reply: -32700 "Parse error" for invalid JSON, a single call for an
 * object (status by error code), a batch for an array (always 200, one envelope per element, in order,
 * run one after the other), -32700 "Top-level object parse error" for any other top-level value.
 */
export async function handleRpcBody(table: RpcTable, body: Uint8Array): Promise<RpcReply> {
  const req = parseBody(body);
  if (!(req instanceof JsonObject || Array.isArray(req))) return req;
  if (req instanceof JsonObject) return execOne(table, req, singleReply);
  return batch(table, req);
}

/**
 * handleRpcBody for a caller that takes a later reply where it goes (the HTTP server): the reply
 * when it is ready at once, else undefined, and `later` gets it (`fail`, what a batch threw). A
 * single call's reply is made in the promise job its result settles in, and handed on there: no
 * promise of its own and no job more between the method's answer and its reply.
 */
export function handleRpcBodyTo(table: RpcTable, body: Uint8Array, later: (r: RpcReply) => void, fail: (e: unknown) => void): RpcReply | undefined {
  const req = parseBody(body);
  if (!(req instanceof JsonObject || Array.isArray(req))) return req;
  if (req instanceof JsonObject) return execOne(table, req, singleReply, later);
  batch(table, req).then(later, fail);
  return undefined;
}

/** The body as a call (an object) or a batch (an array); any other body, its error reply. */
function parseBody(body: Uint8Array): JsonObject | JsonValue[] | RpcReply {
  let req: JsonValue;
  try {
    req = parseJson(body);
  } catch (e) {
    if (!(e instanceof JsonParseError)) throw e;
    return errorReply(new RpcError(RPC_PARSE_ERROR, 'Parse error'));
  }
  if (req instanceof JsonObject || Array.isArray(req)) return req;
  return errorReply(new RpcError(RPC_PARSE_ERROR, 'Top-level object parse error'));
}

function singleReply([text, err]: Executed): RpcReply {
  return { status: err ? httpStatusForCode(err.code) : 200, body: text + '\n' };
}

/**
 * A batch: one envelope per element, in order, each call started once the one before has answered,
 * but for a run of calls that may start together (RpcMethod.startTogetherInBatch).
 */
async function batch(table: RpcTable, reqs: JsonValue[]): Promise<RpcReply> {
  const parts: string[] = [];
  for (let i = 0; i < reqs.length; ) {
    // A run of calls to a method that may start together (in order, each reaching its service before
    // the next starts) is collected in order; every other call waits for the one before, as komodod's.
    const method = methodOf(reqs[i]!);
    let end = i + 1;
    if (method !== undefined && table.get(method)?.startTogetherInBatch) {
      while (end < reqs.length && methodOf(reqs[end]!) === method) end++;
    }
    const started = reqs.slice(i, end).map((r) => execOne(table, r, asIs));
    for (const one of started) parts.push((await one)[0]);
    i = end;
  }
  return { status: 200, body: `[${parts.join(',')}]\n` };
}

/** The method a batch element names, when it is a well-formed call's. */
function methodOf(req: JsonValue): string | undefined {
  if (!(req instanceof JsonObject)) return undefined;
  const m = req.get('method');
  return typeof m === 'string' ? m : undefined;
}

/** An error envelope with id null. */
export function errorReply(err: RpcError): RpcReply {
  return { status: httpStatusForCode(err.code), body: replyText('null', err, 'null') + '\n' };
}
