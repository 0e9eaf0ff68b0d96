import type { NodeServices } from '../../actors/protocol.js';
import { Amount } from '../../chain/encoding/coin-amount.js';
import { askRpc } from '../ask.js';
import type { JsonOut } from '../json-value.js';
import type { RpcMethod } from '../table.js';
import { HELP_gettxoutsetinfo } from './blocktree-help.js';

/** The UTXO set's statistics (rpc/blockchain.cpp): gettxoutsetinfo. */
export function txOutSetMethods(node: NodeServices): RpcMethod[] {
  return [
    {
      name: 'gettxoutsetinfo',
      category: 'blockchain',
      minArgs: 0,
      maxArgs: 0,
      help: HELP_gettxoutsetinfo,
      handler: async () => {
        const s = await askRpc(node.chainStore, { op: 'utxoStats' });
        return {
          height: s.height,
          bestblock: s.bestblock,
          transactions: s.transactions,
          txouts: s.txouts,
          bytes_serialized: s.bytesSerialized,
          hash_serialized: s.hashSerialized,
          total_amount: new Amount(s.totalAmount),
        } as JsonOut;
      },
    },
  ];
}
