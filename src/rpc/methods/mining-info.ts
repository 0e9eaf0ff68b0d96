import type { NodeServices } from '../../actors/protocol.js';
import { Block } from '../../chain/block/block.js';
import { BufferReader } from '../../chain/encoding/reader.js';
import { hexBytes, isHex } from '../../chain/encoding/hex.js';
import { RpcError, RPC_DESERIALIZATION_ERROR } from '../errors.js';
import type { JsonOut } from '../json-value.js';
import { getStr } from '../params.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from '../table.js';
import { chainTip, networkDifficulty } from './blockchain.js';
import { HELP_getmininginfo, HELP_submitblock } from './help-texts.js';
import { askRpc } from '../ask.js';

/** DecodeHexBlk: IsHex, then one block read from the front (trailing bytes are not rejected). */
export function decodeHexBlock(hex: string): Block | null {
  if (hex === '' || !isHex(hex)) return null;
  try {
    return Block.read(new BufferReader(hexBytes(hex)));
  } catch {
    return null;
  }
}

/** The `mining` category's getmininginfo and submitblock (rpc/mining.cpp). */
export function miningInfoMethods(node: NodeServices): RpcMethod[] {
  const regtest = node.config.chain.regtest;
  return [
    {
      name: 'getmininginfo',
      category: 'mining',
      minArgs: 0,
      maxArgs: 0,
      help: HELP_getmininginfo,
      handler: async () => {
        const [tip, difficulty, status, info, solps] = await Promise.all([
          chainTip(node),
          networkDifficulty(node),
          askRpc(node.miner, { op: 'status' }),
          askRpc(node.mempool, { op: 'info' }),
          // getnetworksolps with its defaults: 120 blocks, the tip.
          askRpc(node.chainStore, { op: 'networkHashPS', lookup: 120, height: -1 }),
        ]);
        return {
          blocks: tip.height,
          // nLastBlockSize / nLastBlockTx: the last block this node assembled and mined.
          currentblocksize: status.lastBlock.size,
          currentblocktx: status.lastBlock.txs,
          difficulty,
          errors: '',
          genproclimit: status.genProcLimit,
          // GetLocalSolPS: the miner's solution-rate meter.
          localsolps: status.localSolPS,
          networksolps: solps,
          networkhashps: solps,
          pooledtx: info.size,
          testnet: false,
          chain: regtest ? 'regtest' : 'main',
          // staking needs -ac_staked; generate is -gen with a non-zero genproclimit.
          staking: node.baseParams.ac.staked !== 0 && status.generating && status.genProcLimit === 0,
          generate: status.generating && status.genProcLimit !== 0,
          numthreads: status.genProcLimit,
        } as JsonOut;
      },
    },
    {
      name: 'getlocalsolps',
      category: 'mining',
      // komodod checks only fHelp: extra params are ignored.
      help: (env) =>
        'getlocalsolps\n' +
        '\nReturns the average local solutions per second since this node was started.\n' +
        'This is the same information shown on the metrics screen (if enabled).\n' +
        '\nResult:\n' +
        'xxx.xxxxx     (numeric) Solutions per second average\n' +
        '\nExamples:\n' +
        helpExampleCli(env, 'getlocalsolps', '') +
        helpExampleRpc(env, 'getlocalsolps', ''),
      handler: async () => (await askRpc(node.miner, { op: 'status' })).localSolPS,
    },
    {
      name: 'submitblock',
      category: 'mining',
      minArgs: 1,
      maxArgs: 2,
      help: HELP_submitblock,
      handler: async (params) => {
        const block = decodeHexBlock(getStr(params[0]!));
        if (!block) throw new RpcError(RPC_DESERIALIZATION_ERROR, 'Block decode failed');
        const r = await askRpc(node.chainStore, { op: 'submitBlock', raw: block.toRaw() });
        switch (r.status) {
          case 'connected':
            return null;
          // Valid but not connected (a side branch): no BlockChecked for it, "inconclusive".
          case 'stored':
            return 'inconclusive';
          case 'duplicate':
          case 'duplicate-invalid':
            return r.status;
          // An unknown parent: AcceptBlockHeader fails without a reject state, so ProcessNewBlock
          // returns false with a valid state and BIP22ValidationResult gives null.
          case 'inconclusive':
            return null;
          case 'rejected':
            return r.reason === '' ? 'rejected' : r.reason;
        }
      },
    },
  ];
}
