import { request } from 'node:http';
import { JsonParseError, parseJson } from '../rpc/json-read.js';
import { JsonObject, type JsonValue } from '../rpc/json-value.js';
import { writeJson } from '../rpc/json-write.js';

/**
 * komodo-cli's CallRPC (src/bitcoin-cli.cpp at 0adeeab): one POST to `/` with `Host`,
 * `Connection: close` and basic auth, the body `{"method":..,"params":[..],"id":1}` plus a newline,
 * and its reading of the answer: no answer is a connection failure (retried under -rpcwait), 401 is
 * "incorrect rpcuser or rpcpassword", other HTTP errors but 400/404/500 are "server returned HTTP
 * error N", and the body must be a JSON object.
 */

/** A failure to reach the server (CConnectionFailed): -rpcwait retries these. */
export class ConnectionFailed extends Error {
  override readonly name = 'ConnectionFailed';
}

/** Any other failure of the call (std::runtime_error): printed as `error: <message>`, exit 1. */
export class CallFailed extends Error {
  override readonly name = 'CallFailed';
}

export interface CallTarget {
  readonly host: string;
  readonly port: number;
  /** `user:password` */
  readonly credentials: string;
  /** seconds; 0 means no timeout */
  readonly timeoutSec: number;
}

/** JSONRPCRequest(method, params, 1): UniValue::write() of {method, params, id} and a newline. */
export function jsonRpcRequest(method: string, params: JsonValue[]): string {
  return writeJson(new JsonObject([['method', method], ['params', params], ['id', 1]] as [string, JsonValue][])) + '\n';
}

interface HttpReply {
  status: number;
  body: Buffer;
}

function post(t: CallTarget, body: string): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: t.host,
        port: t.port,
        method: 'POST',
        path: '/',
        headers: {
          Host: t.host,
          Connection: 'close',
          Authorization: `Basic ${Buffer.from(t.credentials, 'utf8').toString('base64')}`,
          'Content-Length': Buffer.byteLength(body),
        },
        ...(t.timeoutSec > 0 ? { timeout: t.timeoutSec * 1000 } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', (e) => reject(connectionFailed(e)));
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT_ACNODE' })));
    req.on('error', (e) => reject(connectionFailed(e)));
    req.end(body);
  });
}

/**
 * libevent's error for a request that got no reply, as komodo-cli prints it: a refused or unreachable
 * connection reports no error code ("unknown", -1), a timeout EVREQ_HTTP_TIMEOUT (0), a connection
 * closed before the reply EVREQ_HTTP_EOF (1).
 */
function connectionFailed(e: Error & { code?: string }): ConnectionFailed {
  let what = 'unknown (code -1)';
  if (e.code === 'ETIMEDOUT_ACNODE') what = 'timeout reached (code 0)';
  else if (e.code === 'ECONNRESET' || e.message === 'socket hang up') what = 'EOF reached (code 1)';
  return new ConnectionFailed(
    `couldn't connect to server: ${what}\n(make sure server is running and you are connecting to the correct RPC port)`,
  );
}

/** CallRPC: the reply object ({result, error, id}) as the server sent it, numbers kept as text. */
export async function callRpc(t: CallTarget, method: string, params: JsonValue[]): Promise<JsonObject> {
  const res = await post(t, jsonRpcRequest(method, params));
  if (res.status === 401) throw new CallFailed('incorrect rpcuser or rpcpassword (authorization failed)');
  if (res.status >= 400 && res.status !== 400 && res.status !== 404 && res.status !== 500)
    throw new CallFailed(`server returned HTTP error ${res.status}`);
  if (res.body.length === 0) throw new CallFailed('no response from server');
  let reply: JsonValue;
  try {
    reply = parseJson(new Uint8Array(res.body));
  } catch (e) {
    if (e instanceof JsonParseError) throw new CallFailed("couldn't parse reply from server");
    throw e;
  }
  if (!(reply instanceof JsonObject)) throw new CallFailed('JSON value is not an object as expected');
  if (reply.size === 0) throw new CallFailed('expected reply to have result, error and id properties');
  return reply;
}
