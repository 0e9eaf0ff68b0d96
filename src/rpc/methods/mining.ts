import type { NodeServices } from '../../actors/protocol.js';
import { RpcError, RPC_METHOD_NOT_FOUND } from '../errors.js';
import { getBool, getInt } from '../params.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from '../table.js';

/** The `mining` and `generating` categories: generate, setgenerate, getgenerate. */
export function miningMethods(node: NodeServices): RpcMethod[] {
  const regtest = node.config.chain.regtest;
  return [
    {
      name: 'generate',
      category: 'generating',
      minArgs: 1,
      maxArgs: 1,
      help: (env) =>
        'generate numblocks\n' +
        '\nMine blocks immediately (before the RPC call returns)\n' +
        '\nNote: this function can only be used on the regtest network\n' +
        '\nArguments:\n' +
        '1. numblocks    (numeric) How many blocks are generated immediately.\n' +
        '\nResult\n' +
        '[ blockhashes ]     (array) hashes of blocks generated\n' +
        '\nExamples:\n' +
        '\nGenerate 11 blocks\n' +
        helpExampleCli(env, 'generate', '11'),
      handler: async (params) => {
        const n = getInt(params[0]!);
        if (!regtest) {
          // komodod's quirk: off regtest, generate toggles a "disablemining" flag and always fails.
          throw new RpcError(RPC_METHOD_NOT_FOUND, n === 1 ? 'Mining Disabled' : 'Mining Enabled');
        }
        return await node.miner.ask({ op: 'generate', n: Math.max(0, n) });
      },
    },
    {
      name: 'setgenerate',
      category: 'generating',
      minArgs: 1,
      maxArgs: 2,
      help: (env) =>
        'setgenerate generate ( genproclimit )\n' +
        "\nSet 'generate' true to turn either mining/generation or minting/staking on and false to turn both off.\n" +
        "Mining is limited to 'genproclimit' processors, -1 is unlimited, setgenerate true with 0 genproclimit turns on staking\n" +
        'See the getgenerate call for the current setting.\n' +
        '\nArguments:\n' +
        '1. generate         (boolean, required) Set to true to turn on generation, off to turn off.\n' +
        '2. genproclimit     (numeric, optional) Set processor limit when generation is on. Can be -1 for unlimited, 0 to turn on staking.\n' +
        '\nExamples:\n' +
        '\nSet the generation on with a limit of one processor\n' +
        helpExampleCli(env, 'setgenerate', 'true 1') +
        '\nTurn minting/staking on\n' +
        helpExampleCli(env, 'setgenerate', 'true 0') +
        '\nCheck the setting\n' +
        helpExampleCli(env, 'getgenerate', '') +
        '\nTurn off generation and minting\n' +
        helpExampleCli(env, 'setgenerate', 'false') +
        '\nUsing json rpc\n' +
        helpExampleRpc(env, 'setgenerate', 'true, 1'),
      handler: async (params) => {
        // Deliberate departure (README): komodod refuses setgenerate on regtest; acnode's dev chain
        // uses it to pace blocks at ac_blocktime.
        const on = getBool(params[0]!);
        const procs = params.length > 1 ? getInt(params[1]!) : node.config.genproclimit;
        await node.miner.ask({ op: 'setGenerate', on, procs });
        return null;
      },
    },
    {
      name: 'getgenerate',
      category: 'generating',
      minArgs: 0,
      maxArgs: 0,
      help: (env) =>
        'getgenerate\n' +
        '\nReturn if the server is set to mine and/or mint coins or not. The default is false.\n' +
        'It is set with the command line argument -gen (or komodo.conf setting gen) and -mint\n' +
        'It can also be set with the setgenerate call.\n' +
        '\nResult\n' +
        '{\n' +
        '  "staking": true|false      (boolean) If staking is on or off (see setgenerate)\n' +
        '  "generate": true|false     (boolean) If mining is on or off (see setgenerate)\n' +
        '  "numthreads": n            (numeric) The processor limit for mining. (see setgenerate)\n' +
        '}\n' +
        '\nExamples:\n' +
        helpExampleCli(env, 'getgenerate', '') +
        helpExampleRpc(env, 'getgenerate', ''),
      handler: async () => {
        const s = await node.miner.ask({ op: 'status' });
        // komodod: generate = -gen && genproclimit != 0; staking only on ac_staked chains.
        return { staking: false, generate: s.generating && s.genProcLimit !== 0, numthreads: s.genProcLimit };
      },
    },
  ];
}
