import type { NodeServices } from '../../actors/protocol.js';
import { askRpc } from '../ask.js';
import { RpcError, RPC_INVALID_PARAMETER } from '../errors.js';
import type { JsonOut } from '../json-value.js';
import { getStr } from '../params.js';
import { helpExampleCli, helpExampleRpc, type HelpEnv, type RpcMethod } from '../table.js';
import { segid32 } from './chain-json.js';
import { cAtoi } from './cclib.js';

const help = (env: HelpEnv) =>
  'getsnapshot\n' +
  '\nReturns a snapshot of (address,amount) pairs at current height (requires addressindex to be enabled).\n' +
  '\nArguments:\n' +
  '  "top" (number, optional) Only return this many addresses, i.e. top N richlist\n' +
  '\nResult:\n' +
  '{\n' +
  '   "addresses": [\n' +
  '    {\n' +
  '      "addr": "RMEBhzvATA8mrfVK82E5TgPzzjtaggRGN3",\n' +
  '      "amount": "100.0"\n' +
  '    },\n' +
  '    {\n' +
  '      "addr": "RqEBhzvATAJmrfVL82E57gPzzjtaggR777",\n' +
  '      "amount": "23.45"\n' +
  '    }\n' +
  '  ],\n' +
  '  "total": 123.45,          (numeric) Total amount in snapshot\n' +
  '  "average": 61.7,          (numeric) Average amount in each address \n' +
  '  "utxos": 14,              (number) Total number of UTXOs in snapshot\n' +
  '  "total_addresses": 2,     (number) Total number of addresses in snapshot\n' +
  '  "start_height": 91,       (number) Block height snapshot began\n' +
  '  "ending_height": 91,      (number) Block height snapshot finished\n' +
  '  "start_time": 1531982752, (number) Unix epoch time snapshot started\n' +
  '  "end_time": 1531982752    (number) Unix epoch time snapshot finished\n' +
  '}\n' +
  '\nExamples:\n' +
  helpExampleCli(env, 'getsnapshot', '') +
  helpExampleRpc(env, 'getsnapshot', '1000');

const COIN = 100000000;
/** A double printed by the writer; a non-finite one (komodod's x/0 with no address) has no JSON form. */
const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);

/** getsnapshot (rpc/misc.cpp, CBlockTreeDB::Snapshot): the richlist from the chain store's running figures. */
export function snapshotMethods(node: NodeServices): RpcMethod[] {
  return [
    {
      name: 'getsnapshot',
      category: 'addressindex',
      help,
      handler: async (params, ctx) => {
        let top = 0;
        // komodod reads `top` before it looks at the argument count.
        if (params.length > 0 && params[0] !== null) {
          top = cAtoi(getStr(params[0]!));
          // KOMODO_SNAPSHOT_INTERVAL (-ac_snapshot) 0: a negative top is refused.
          if (top < 0) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter, top must be a positive integer');
        }
        if (params.length > 1) throw new Error(help(ctx.env));
        const startTime = Math.floor(Date.now() / 1000);
        const s = await askRpc(node.chainStore, { op: 'snapshot', top });
        if (!s) return { error: 'no addressindex' };
        const out: Record<string, JsonOut> = {
          start_time: startTime,
          total: Number(s.total) / COIN,
          // (double)(total/COIN) / totalAddresses: whole coins, then a double division.
          average: finite(Number(s.total / BigInt(COIN)) / Number(s.addresses)),
          utxos: s.utxos,
          total_addresses: s.addresses,
          ignored_addresses: s.ignored,
          skipped_cc_utxos: s.ccUtxos,
          cc_utxo_value: Number(s.ccTotal) / COIN,
          total_includeCCvouts: Number(s.total + s.ccTotal) / COIN,
          ending_height: s.height,
          addresses: s.top.map((a) => ({ addr: a.addr, amount: (Number(a.amount) / COIN).toFixed(8), segid: segid32(a.addr) & 0x3f })),
          end_time: Math.floor(Date.now() / 1000),
        };
        return out;
      },
    },
  ];
}
