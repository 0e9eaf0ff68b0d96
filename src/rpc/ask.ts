import type { Asker } from '../actors/ask.js';
import { ServiceFailure, type Op } from '../actors/protocol.js';
import { RpcError } from './errors.js';

/** An actor request from an RPC method: a ServiceFailure keeps its komodod code as an RPC error. */
export async function askRpc<T>(asker: Asker, body: Op): Promise<T> {
  try {
    return await asker.ask<T>(body);
  } catch (e) {
    if (e instanceof ServiceFailure) throw new RpcError(e.code, e.message);
    throw e;
  }
}
