import type { NodeServices } from '../../actors/protocol.js';
import { toHexReversed } from '../../chain/encoding/hex.js';
import { askRpc } from '../ask.js';
import { RpcError, RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER } from '../errors.js';
import type { JsonOut, JsonValue } from '../json-value.js';
import { getInt, parseHashV } from '../params.js';
import type { RpcMethod } from '../table.js';
import { HELP_getchaintxstats } from './blocktree-help.js';

/** Transaction counts and rates over a window of the active chain (rpc/blockchain.cpp): getchaintxstats. */
export function chainTxStatsMethods(node: NodeServices): RpcMethod[] {
  return [{ name: 'getchaintxstats', category: 'blockchain', minArgs: 0, maxArgs: 2, help: HELP_getchaintxstats, handler: (p) => getchaintxstats(node, p) }];
}

async function getchaintxstats(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const chain = await askRpc(node.chainStore, { op: 'params' });
  // By default one month of blocks at the chain's target spacing.
  let blockcount = Math.trunc((30 * 24 * 60 * 60) / (chain ?? node.baseParams).powTargetSpacing);
  let hash: string;
  if (params[1] === undefined || params[1] === null) {
    hash = (await askRpc(node.chainStore, { op: 'tip' })).hash;
  } else {
    hash = toHexReversed(parseHashV(params[1], 'blockhash'));
  }
  const entry = await askRpc(node.chainStore, { op: 'entry', hash });
  if (!entry) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Block not found');
  if (!entry.active) throw new RpcError(RPC_INVALID_PARAMETER, 'Block is not in main chain');
  if (params[0] === undefined || params[0] === null) {
    blockcount = Math.max(0, Math.min(blockcount, entry.height - 1));
  } else {
    blockcount = getInt(params[0]);
    if (blockcount < 0 || (blockcount > 0 && blockcount >= entry.height)) {
      throw new RpcError(RPC_INVALID_PARAMETER, "Invalid block count: should be between 0 and the block's height - 1");
    }
  }
  const pastHash = (await askRpc(node.chainStore, { op: 'blockHash', height: entry.height - blockcount }))!;
  const past = (await askRpc(node.chainStore, { op: 'entry', hash: pastHash }))!;
  const timeDiff = entry.mtp - past.mtp;
  const txDiff = entry.chainTx - past.chainTx;
  const o: Record<string, JsonOut> = {
    time: entry.header.time,
    txcount: entry.chainTx,
    window_final_block_hash: entry.hash,
    window_block_count: blockcount,
  };
  if (blockcount > 0) {
    o.window_tx_count = txDiff;
    o.window_interval = timeDiff;
    if (timeDiff > 0) o.txrate = txDiff / timeDiff;
  }
  return o as JsonOut;
}
