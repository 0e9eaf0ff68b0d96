import type { NodeServices } from '../../actors/protocol.js';
import { isHex } from '../../chain/encoding/hex.js';
import { formatAmount } from '../../chain/encoding/amount.js';
import { getInt64, getReal, getStr } from '../params.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from '../table.js';
import { askRpc } from '../ask.js';
import { uint256S } from './chain-json.js';

/** FormatMoney: the amount with trailing zeros trimmed to at least two decimals. */
function formatMoney(sat: bigint): string {
  return formatAmount(sat).replace(/0{1,6}$/, '');
}

/** The `mining` category's prioritisetransaction (rpc/mining.cpp): deltas the miner's selection applies. */
export function prioritiseMethods(node: NodeServices): RpcMethod[] {
  return [
    {
      name: 'prioritisetransaction',
      category: 'mining',
      minArgs: 3,
      maxArgs: 3,
      help: (env) =>
        'prioritisetransaction <txid> <priority delta> <fee delta>\n' +
        'Accepts the transaction into mined blocks at a higher (or lower) priority\n' +
        '\nArguments:\n' +
        '1. "txid"       (string, required) The transaction id.\n' +
        '2. priority delta (numeric, required) The priority to add or subtract.\n' +
        '                  The transaction selection algorithm considers the tx as it would have a higher priority.\n' +
        '                  (priority of a transaction is calculated: coinage * value_in_satoshis / txsize) \n' +
        '3. fee delta      (numeric, required) The fee value (in satoshis) to add (or subtract, if negative).\n' +
        '                  The fee is not actually paid, only the algorithm for selecting transactions into a block\n' +
        '                  considers the transaction as it would have paid a higher (or lower) fee.\n' +
        '\nResult\n' +
        'true              (boolean) Returns true\n' +
        '\nExamples:\n' +
        helpExampleCli(env, 'prioritisetransaction', '"txid" 0.0 10000') +
        helpExampleRpc(env, 'prioritisetransaction', '"txid", 0.0, 10000'),
      handler: async (params) => {
        const s = getStr(params[0]!);
        // ParseHashStr: IsHex, then uint256::SetHex.
        if (!isHex(s)) throw new Error(`txid must be hexadecimal string (not '${s}')`);
        const txid = uint256S(s);
        // komodod reads the fee delta (get_int64) before the priority delta (get_real).
        const fee = getInt64(params[2]!);
        const priority = getReal(params[1]!);
        await askRpc(node.mempool, { op: 'prioritise', txid, priority, fee });
        node.log(`PrioritiseTransaction: ${txid} priority += ${priority.toFixed(6)}, fee += ${formatMoney(fee)}`);
        return true;
      },
    },
  ];
}
