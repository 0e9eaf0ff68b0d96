import type { NodeServices } from '../../actors/protocol.js';
import { Amount } from '../../chain/encoding/coin-amount.js';
import { askRpc } from '../ask.js';
import type { JsonOut } from '../json-value.js';
import { getStr } from '../params.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from '../table.js';
import { cAtoi } from './cclib.js';

/** coinsupply (rpc/misc.cpp) over the chain store's running totals (komodo_coinsupply). */
export function coinSupplyMethods(node: NodeServices): RpcMethod[] {
  /** komodo_coinsupply: transparent supply, zfunds and sprout funds up to `height` (0 where unknown). */
  const supplyAt = async (height: number) => (await askRpc(node.chainStore, { op: 'coinSupply', height })) ?? { supply: 0n, zfunds: 0n, sprout: 0n };
  return [
    {
      name: 'coinsupply',
      category: 'blockchain',
      maxArgs: 1,
      help: (env) =>
        'coinsupply <height>\n' +
        '\nReturn coin supply information at a given block height. If no height is given, the current height is used.\n' +
        '\nArguments:\n' +
        '1. "height"     (integer, optional) Block height\n' +
        '\nResult:\n' +
        '{\n' +
        '  "result" : "success",         (string) If the request was successful.\n' +
        '  "coin" : "KMD",               (string) The currency symbol of the coin for asset chains, otherwise KMD.\n' +
        '  "height" : 420,               (integer) The height of this coin supply data\n' +
        '  "supply" : "777.0",           (float) The transparent coin supply\n' +
        '  "zfunds" : "0.777",           (float) The shielded coin supply (in zaddrs)\n' +
        '  "sprout" : "0.077",           (float) The sprout coin supply (in zcaddrs)\n' +
        '  "total" :  "777.777",         (float) The total coin supply, i.e. sum of supply + zfunds\n' +
        '}\n' +
        '\nExamples:\n' +
        helpExampleCli(env, 'coinsupply', '420') +
        helpExampleRpc(env, 'coinsupply', '420'),
      handler: async (params, ctx) => {
        const tip = await askRpc(node.chainStore, { op: 'tip' });
        // komodod reads the height with atoi(get_str()): "aaa" is height 0, a JSON number is refused.
        const height = params.length === 0 ? tip.height : cAtoi(getStr(params[0]!));
        const out: Record<string, JsonOut> = {};
        if (height < 0 || height > tip.height) {
          out.error = 'invalid height';
          return out;
        }
        const s = await supplyAt(height);
        if (s.supply <= 0n) {
          out.error = 'couldnt calculate supply';
          return out;
        }
        Object.assign(out, {
          result: 'success',
          coin: ctx.env.chainName,
          height,
          supply: new Amount(s.supply),
          zfunds: new Amount(s.zfunds),
          sprout: new Amount(s.sprout),
          total: new Amount(s.zfunds + s.supply),
        });
        const blocksPerYear = Math.trunc((24 * 3600 * 365) / node.baseParams.ac.blocktime);
        if (height > blocksPerYear) {
          const [m, q, y] = await Promise.all([supplyAt(height - Math.trunc(blocksPerYear / 12)), supplyAt(height - Math.trunc(blocksPerYear / 4)), supplyAt(height - blocksPerYear)]);
          if (m.supply !== 0n && q.supply !== 0n && y.supply !== 0n) {
            const now = s.zfunds + s.supply;
            Object.assign(out, {
              lastmonth: new Amount(m.supply + m.zfunds),
              monthcoins: new Amount(now - m.supply - m.zfunds),
              lastquarter: new Amount(q.supply + q.zfunds),
              quartercoins: new Amount(now - q.supply - q.zfunds),
              lastyear: new Amount(y.supply + y.zfunds),
              yearcoins: new Amount(now - y.supply - y.zfunds),
              inflation: 100 * (Number(now) / Number(y.supply + y.zfunds) - 1),
              blocksperyear: blocksPerYear,
            });
          }
        }
        return out;
      },
    },
  ];
}
