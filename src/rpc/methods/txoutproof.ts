import type { NodeServices } from '../../actors/protocol.js';
import { buildMerkleBlock, extractMatches, merkleBlockFromRaw, merkleBlockToRaw } from '../../chain/block/merkleblock.js';
import { DecodeError } from '../../chain/encoding/errors.js';
import { fromHexReversed, toHex, toHexReversed } from '../../chain/encoding/hex.js';
import { askRpc } from '../ask.js';
import { RpcError, RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER, RPC_PARSE_ERROR } from '../errors.js';
import type { JsonOut, JsonValue } from '../json-value.js';
import { getArr, getStr, parseHexV } from '../params.js';
import type { RpcMethod } from '../table.js';
import { uint256S } from './chain-json.js';
import { HELP_gettxoutproof, HELP_verifytxoutproof } from './blocktree-help.js';

/** Merkle proofs of inclusion (rpc/rawtransaction.cpp, "blockchain" in komodod's table): gettxoutproof, verifytxoutproof. */
export function txOutProofMethods(node: NodeServices): RpcMethod[] {
  return [
    { name: 'gettxoutproof', category: 'blockchain', minArgs: 1, maxArgs: 2, help: HELP_gettxoutproof, handler: (p) => gettxoutproof(node, p) },
    { name: 'verifytxoutproof', category: 'blockchain', minArgs: 1, maxArgs: 1, help: HELP_verifytxoutproof, handler: (p) => verifytxoutproof(node, p) },
  ];
}

async function gettxoutproof(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const wanted = new Set<string>();
  let oneTxid = '';
  for (const v of getArr(params[0]!)) {
    const s = getStr(v);
    if (s.length !== 64 || !/^[0-9a-fA-F]*$/.test(s)) throw new RpcError(RPC_INVALID_PARAMETER, `Invalid txid ${s}`);
    const txid = s.toLowerCase();
    if (wanted.has(txid)) throw new RpcError(RPC_INVALID_PARAMETER, `Invalid parameter, duplicated txid: ${s}`);
    wanted.add(txid);
    oneTxid = txid;
  }
  let blockHash: string;
  if (params.length > 1) {
    blockHash = uint256S(getStr(params[1]!));
    if (!(await askRpc(node.chainStore, { op: 'entry', hash: blockHash }))) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Block not found');
  } else {
    // komodod looks in the UTXO set, then (with -txindex, always on in acnode) the tx index: either
    // names the active-chain block that holds the last txid given; a mempool transaction is in none.
    const found = oneTxid ? await askRpc(node.chainStore, { op: 'tx', txid: oneTxid }) : null;
    if (!found) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Transaction not yet in block');
    blockHash = found.blockHash;
  }
  const info = await askRpc(node.chainStore, { op: 'block', hash: blockHash });
  if (!info) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Can't read block from disk");
  const match = info.txids.map((t) => wanted.has(t));
  if (match.filter(Boolean).length !== wanted.size) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, '(Not all) transactions not found in specified block');
  const mb = buildMerkleBlock(info.header, info.txids.map(fromHexReversed), match);
  return toHex(merkleBlockToRaw(mb));
}

async function verifytxoutproof(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const raw = parseHexV(params[0]!, 'proof');
  let mb;
  try {
    mb = merkleBlockFromRaw(raw);
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
    // komodod's CDataStream throws std::ios_base::failure, which the server answers as a parse error.
    const what = e.message.startsWith('non-canonical') ? 'non-canonical ReadCompactSize()' : e.message.includes('too large') ? 'ReadCompactSize(): size too large' : 'CBaseDataStream::read(): end of data';
    throw new RpcError(RPC_PARSE_ERROR, `${what}: iostream error`);
  }
  const params0 = node.baseParams;
  // MAX_BLOCK_SIZE(10000000) / 60: the most transactions a block could hold.
  const { root, matches } = extractMatches(mb, Math.floor(params0.maxBlockSize(10_000_000) / 60));
  if (toHex(root) !== toHex(mb.header.merkleRoot)) return [];
  const entry = await askRpc(node.chainStore, { op: 'entry', hash: mb.header.hashHex() });
  if (!entry || !entry.active) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Block not found in chain');
  return matches.map((h) => toHexReversed(h));
}
