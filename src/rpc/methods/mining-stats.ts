import type { NodeServices } from '../../actors/protocol.js';
import { Block } from '../../chain/block/block.js';
import { blockCommission, foundersCommission } from '../../chain/params/commission.js';
import type { ChainParams } from '../../chain/params/chain-params.js';
import { RpcError, RPC_INVALID_PARAMETER } from '../errors.js';
import type { JsonOut, JsonValue } from '../json-value.js';
import { getInt } from '../params.js';
import { valueFromAmount } from '../amount.js';
import { helpExampleCli, helpExampleRpc, type HelpEnv, type RpcMethod } from '../table.js';
import { askRpc } from '../ask.js';

/** getnetworksolps and its deprecated twin share komodod's text but for the DEPRECATED line. */
function solpsHelp(env: HelpEnv, name: string, deprecated: boolean): string {
  return (
    `${name} ( blocks height )\n` +
    (deprecated ? '\nDEPRECATED - left for backwards-compatibility. Use getnetworksolps instead.\n' : '') +
    '\nReturns the estimated network solutions per second based on the last n blocks.\n' +
    'Pass in [blocks] to override # of blocks, -1 specifies over difficulty averaging window.\n' +
    'Pass in [height] to estimate the network speed at the time when a certain block was found.\n' +
    '\nArguments:\n' +
    '1. blocks     (numeric, optional, default=120) The number of blocks, or -1 for blocks over difficulty averaging window.\n' +
    '2. height     (numeric, optional, default=-1) To estimate at the time of the given height.\n' +
    '\nResult:\n' +
    'x             (numeric) Solutions per second estimated\n' +
    '\nExamples:\n' +
    helpExampleCli(env, name, '') +
    helpExampleRpc(env, name, '')
  );
}

/** The commission a block at `height` pays the -ac_pubkey (getblocksubsidy's "ac_pubkey"). */
async function acPubkeyReward(node: NodeServices, p: ChainParams, height: number, tipHeight: number): Promise<bigint> {
  if (p.ac.founders !== 0) return foundersCommission(p.ac, p.blockSubsidy(height), height);
  if (p.ac.commission === 0n || height > tipHeight) return 0n;
  // ac_commission without founders: the commission of the block itself (it must exist).
  const hash = await askRpc(node.chainStore, { op: 'blockHash', height });
  const block = hash ? await askRpc(node.chainStore, { op: 'rawBlock', hash }) : null;
  if (!block) return 0n;
  const txs = Block.fromRaw(block.raw).txs;
  return blockCommission(p.ac, height, txs.map((tx) => tx.vout.map((o) => o.value)));
}

/** The `mining` category's rate and subsidy methods (rpc/mining.cpp). */
export function miningStatsMethods(node: NodeServices): RpcMethod[] {
  const networkSolPS = async (params: readonly JsonValue[]) => {
    const lookup = params.length > 0 ? getInt(params[0]!) : 120;
    const height = params.length > 1 ? getInt(params[1]!) : -1;
    return askRpc(node.chainStore, { op: 'networkHashPS', lookup, height });
  };
  return [
    {
      name: 'getnetworksolps',
      category: 'mining',
      maxArgs: 2,
      help: (env) => solpsHelp(env, 'getnetworksolps', false),
      handler: networkSolPS,
    },
    {
      name: 'getnetworkhashps',
      category: 'mining',
      maxArgs: 2,
      help: (env) => solpsHelp(env, 'getnetworkhashps', true),
      handler: (params) => networkSolPS(params),
    },
    {
      name: 'getblocksubsidy',
      category: 'mining',
      maxArgs: 1,
      help: (env) =>
        'getblocksubsidy height\n' +
        '\nReturns block subsidy reward, taking into account the mining slow start and the founders reward, of block at index provided.\n' +
        '\nArguments:\n' +
        '1. height         (numeric, optional) The block height.  If not provided, defaults to the current height of the chain.\n' +
        '\nResult:\n' +
        '{\n' +
        '  "miner" : x.xxx           (numeric) The mining reward amount in KMD.\n' +
        '  "ac_pubkey" : x.xxx       (numeric) The mining reward amount in KMD.\n' +
        '}\n' +
        '\nExamples:\n' +
        helpExampleCli(env, 'getblocksubsidy', '1000') +
        helpExampleRpc(env, 'getblocksubsidy', '1000'),
      handler: async (params) => {
        const [tip, current] = await Promise.all([
          askRpc(node.chainStore, { op: 'tip' }),
          askRpc(node.chainStore, { op: 'params' }),
        ]);
        const p = current ?? node.baseParams;
        const height = params.length === 1 ? getInt(params[0]!) : tip.height;
        if (height < 0) throw new RpcError(RPC_INVALID_PARAMETER, 'Block height out of range');
        const o: Record<string, JsonOut> = { miner: valueFromAmount(p.blockSubsidy(height)) };
        // ASSETCHAINS_OVERRIDE_PUBKEY (-ac_pubkey) or ASSETCHAINS_SCRIPTPUB (-ac_script) set.
        if (p.ac.pubkey !== null || p.ac.hasScript) o.ac_pubkey = valueFromAmount(await acPubkeyReward(node, p, height, tip.height));
        return o;
      },
    },
  ];
}
