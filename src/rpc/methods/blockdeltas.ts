import type { NodeServices } from '../../actors/protocol.js';
import { getDifficulty } from '../../chain/block/pow.js';
import { PUBKEY_ADDRESS, SCRIPT_ADDRESS, encodeAddress } from '../../chain/address/address.js';
import { toHexReversed } from '../../chain/encoding/hex.js';
import { isP2PKH, isP2SH } from '../../chain/script/script.js';
import { parsePayToCryptoCondition } from '../../chain/script/standard.js';
import { askRpc } from '../ask.js';
import { RpcError, RPC_INTERNAL_ERROR, RPC_INVALID_ADDRESS_OR_KEY } from '../errors.js';
import type { JsonOut } from '../json-value.js';
import { getStr } from '../params.js';
import type { RpcMethod } from '../table.js';
import { segidAt } from './blockchain.js';
import { extractAddress, hexInt, uint256HexOf, uint256S } from './chain-json.js';
import { getSpentIndex, scriptOpts } from './rawtransactions.js';

/** CScript::IsPayToPublicKey: exactly a 33-byte push and OP_CHECKSIG. */
const isPayToPublicKey = (s: Uint8Array) => s.length === 35 && s[0] === 33 && s[34] === 0xac;

/**
 * getblockdeltas (rpc/blockchain.cpp, blockToDeltasJSON): a block of the active chain with, per
 * transaction, its inputs' spent-index entries and its outputs' addresses as deltas in satoshis.
 * komodod's help text for it is empty (runtime_error("")), so `help` lists it as a blank line.
 */
export function blockDeltasMethods(node: NodeServices): RpcMethod[] {
  return [
    {
      name: 'getblockdeltas',
      category: 'blockchain',
      minArgs: 1,
      maxArgs: 1,
      help: '',
      handler: async (params) => {
        // get_str then uint256S: no hex check, as komodod.
        const hash = uint256S(getStr(params[0]!));
        const info = await askRpc(node.chainStore, { op: 'block', hash });
        if (!info) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Block not found');
        if (!info.active) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Block is an orphan');
        const opts = scriptOpts(node);
        const h = info.header;
        const block = info.block;
        // Every input's spent-index entry in one request (GetSpentIndex: the mempool's, then the chain's).
        const outpoints: [string, number][] = [];
        for (const tx of block.txs) if (!tx.isCoinbase()) for (const i of tx.vin) outpoints.push([i.prevout.txid(), i.prevout.index]);
        const spent = node.config.spentindex ? await getSpentIndex(node, outpoints, []) : outpoints.map(() => null);
        let k = 0;
        const deltas = block.txs.map((tx, index) => {
          const inputs: Record<string, JsonOut>[] = [];
          if (!tx.isCoinbase()) {
            tx.vin.forEach((input, j) => {
              const s = spent[k++];
              if (!s) throw new RpcError(RPC_INTERNAL_ERROR, 'Spent information not available');
              // An entry whose address type is neither key nor script is left out.
              if (s.address === null) return;
              inputs.push({ address: s.address, satoshis: -(s.satoshis ?? 0n), index: j, prevtxid: input.prevout.txid(), prevout: input.prevout.index });
            });
          }
          const outputs: Record<string, JsonOut>[] = [];
          tx.vout.forEach((out, n) => {
            const d: Record<string, JsonOut> = {};
            const s = out.script;
            if (isP2SH(s)) d.address = encodeAddress(SCRIPT_ADDRESS, s.subarray(2, 22));
            else if (isP2PKH(s)) d.address = encodeAddress(PUBKEY_ADDRESS, s.subarray(3, 23));
            else if (isPayToPublicKey(s) || parsePayToCryptoCondition(s)) {
              const a = extractAddress(s, opts);
              if (a !== null) d.address = a;
            } else return;
            d.satoshis = out.value;
            d.index = n;
            outputs.push(d);
          });
          return { txid: info.txids[index]!, index, inputs, outputs };
        });
        const o: Record<string, JsonOut> = {
          hash: info.hash,
          // komodo_dpowconfs: the raw count on a chain never notarised.
          confirmations: info.confirmations,
          rawconfirmations: info.confirmations,
          size: info.raw.length,
          height: info.height,
          version: h.version,
          merkleroot: toHexReversed(h.merkleRoot),
          segid: await segidAt(node, info.height, info),
          deltas,
          time: h.time,
          mediantime: info.mtp,
          nonce: toHexReversed(h.nonce),
          bits: hexInt(h.bits),
          difficulty: getDifficulty(h.bits),
          chainwork: uint256HexOf(info.chainWork),
        };
        if (info.prev) o.previousblockhash = info.prev;
        if (info.next) o.nextblockhash = info.next;
        return o;
      },
    },
  ];
}
