import { ServiceFailure, type AnyProtocol, type Asker, type Op, type ReplyOf, type Request, type RequestOf } from '../actors/protocol.js';
import { RpcError } from './errors.js';

/** An actor request from an RPC method: a ServiceFailure keeps its komodod code as an RPC error. */
export async function askRpc<P extends AnyProtocol, K extends P['request']['op']>(asker: Asker<P>, body: RequestOf<P, K> & { op: K }): Promise<ReplyOf<P, K>>;
/** Transitional: an ask whose reply type the caller asserts (removed once every actor has its protocol). */
export async function askRpc<T>(asker: Asker, body: Op): Promise<T>;
export async function askRpc(asker: Asker, body: Request): Promise<unknown> {
  try {
    return await asker.ask(body);
  } catch (e) {
    if (e instanceof ServiceFailure) throw new RpcError(e.code, e.message);
    throw e;
  }
}
