import { ServiceFailure, type AnyProtocol, type Asker, type ReplyOf, type RequestOf } from '../actors/protocol.js';
import { RpcError } from './errors.js';

/**
 * An actor request from an RPC method: a ServiceFailure keeps its komodod code as an RPC error. The
 * ask's own promise with a rejection handler, not an async wrapper around it: one promise and two
 * promise jobs less on every call.
 */
export function askRpc<P extends AnyProtocol, K extends P['request']['op']>(asker: Asker<P>, body: RequestOf<P, K> & { op: K }): Promise<ReplyOf<P, K>> {
  try {
    return asker.ask<K>(body).then(undefined, rpcFailure);
  } catch (e) {
    return Promise.reject(e);
  }
}

function rpcFailure(e: unknown): never {
  throw asRpcFailure(e);
}

/** An actor's failure as an RPC method reports it: a ServiceFailure as an RpcError with its code. */
export function asRpcFailure(e: unknown): unknown {
  return e instanceof ServiceFailure ? new RpcError(e.code, e.message) : e;
}
