import { ServiceFailure, type AnyProtocol, type Asker, type ReplyOf, type RequestOf } from '../actors/protocol.js';
import { RpcError } from './errors.js';

/** An actor request from an RPC method: a ServiceFailure keeps its komodod code as an RPC error. */
export async function askRpc<P extends AnyProtocol, K extends P['request']['op']>(asker: Asker<P>, body: RequestOf<P, K> & { op: K }): Promise<ReplyOf<P, K>> {
  try {
    return await asker.ask(body);
  } catch (e) {
    if (e instanceof ServiceFailure) throw new RpcError(e.code, e.message);
    throw e;
  }
}
