import type { NodeServices } from '../../actors/protocol.js';
import type { MempoolEntry } from '../../actors/mempool/protocol.js';
import type { BlockInfo, Coin, PoolValues, TipInfo } from '../../actors/chainstore/protocol.js';
import { getDifficulty } from '../../chain/block/pow.js';
import { Amount } from '../../chain/encoding/coin-amount.js';
import { toHex, toHexReversed } from '../../chain/encoding/hex.js';
import { isUnspendable } from '../../chain/script/script.js';
import { SAPLING_BRANCH_ID, OVERWINTER_BRANCH_ID } from '../../chain/consensus/upgrades.js';
import { scriptPubKeyToJSON, txToJSON, type JsonObj } from '../../chain/tx/json.js';
import { RpcError, RPC_DATABASE_ERROR, RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER } from '../errors.js';
import { JsonNumber, type JsonOut, type JsonValue } from '../json-value.js';
import { getBool, getInt, getStr } from '../params.js';
import type { RpcMethod } from '../table.js';
import { hexInt, komodoSegid, uint256HexOf, uint256S } from './chain-json.js';
import { STAKED_DECEMBER_HARDFORK_TIMESTAMP } from '../../chain/consensus/upgrades.js';
import {
  HELP_getbestblockhash,
  HELP_getblock,
  HELP_getblockchaininfo,
  HELP_getblockcount,
  HELP_getblockhash,
  HELP_getblockheader,
  HELP_getdifficulty,
  HELP_getmempoolinfo,
  HELP_getrawmempool,
  HELP_gettxout,
  HELP_invalidateblock,
  HELP_reconsiderblock,
} from './help-texts.js';
import { askRpc } from '../ask.js';
import { scriptOpts } from './rawtransactions.js';

/** SproutMerkleTree::empty_root(): the anchor of every block after genesis on a chain without joinsplits. */
export const EMPTY_SPROUT_ROOT = '59d2cde5e65c1414c32ba54f0fe4bdb3d67618125286e6a191317917c812c6d7';
/** MAX_PRIORITY (txmempool.h): the priority komodod gives shielded transactions. */
const MAX_PRIORITY = 1e16;

/** GetNetworkDifficulty: the difficulty of the nBits the next block needs. */
export async function networkDifficulty(node: NodeServices): Promise<number> {
  const t = await askRpc(node.chainStore, { op: 'template' });
  return getDifficulty(t.nextBits);
}

/**
 * KOMODO_LONGESTCHAIN (komodo_longestchain): the best height the peers report, 0 without peers; and
 * KOMODO_INSYNC: set when the connected tip reaches it (or one past it).
 */
export async function longestChain(node: NodeServices, height: number): Promise<{ longest: number; synced: boolean; peers: number }> {
  const peers = await askRpc(node.p2p, { op: 'peerinfo' });
  // Each peer's height is the most of its starting, header-sync and common heights (peers not yet
  // syncing are skipped); the maximum counts only when more than half the peers are within 1% of it.
  let maxheight = 0;
  let num = 0;
  let best = 0;
  for (const p of peers) {
    const sync = p.synced_headers ?? -1;
    if (sync < 0) continue;
    const ht = Math.max(0, p.startingheight ?? 0, sync, p.synced_blocks ?? 0);
    if (maxheight === 0 || ht > maxheight * 1.01) {
      maxheight = ht;
      num = 1;
    } else if (ht > maxheight * 0.99) num++;
    if (ht > best) best = ht;
  }
  const longest = num > peers.length >> 1 ? best : 0;
  return { longest, synced: longest !== 0 && (height === longest || height === longest + 1), peers: peers.length };
}

export async function chainTip(node: NodeServices): Promise<TipInfo> {
  return askRpc(node.chainStore, { op: 'tip' });
}

/** ValuePoolDesc: [id], monitored, [chainValue, chainValueZat], [valueDelta, valueDeltaZat]. */
function valuePoolDesc(id: string | null, chainValue: bigint | null, delta: bigint | null | undefined): JsonObj {
  const o: JsonObj = {};
  if (id !== null) o.id = id;
  o.monitored = chainValue !== null;
  if (chainValue !== null) {
    o.chainValue = new Amount(chainValue);
    o.chainValueZat = chainValue;
  }
  if (delta !== null && delta !== undefined) {
    o.valueDelta = new Amount(delta);
    o.valueDeltaZat = delta;
  }
  return o;
}

type Pools = { delta: PoolValues | null; total: PoolValues | null } | null;

/** chainSupply and valuePools; `withDelta` false leaves the deltas out (getblockchaininfo). */
function poolsJSON(p: Pools, withDelta: boolean): { chainSupply: JsonObj; valuePools: JsonObj[] } {
  const t = p?.total ?? null;
  const d = withDelta ? (p?.delta ?? null) : undefined;
  const pick = (k: keyof PoolValues) => [t ? t[k] : null, d === undefined ? undefined : d ? d[k] : null] as const;
  return {
    chainSupply: valuePoolDesc(null, ...pick('supply')),
    valuePools: [
      valuePoolDesc('transparent', ...pick('transparent')),
      valuePoolDesc('sprout', ...pick('sprout')),
      valuePoolDesc('sapling', ...pick('sapling')),
      valuePoolDesc('burned', ...pick('burned')),
    ],
  };
}

/** komodo_segid(0, height): judged on the active chain's block at that height. */
export async function segidAt(node: NodeServices, height: number, info: BlockInfo): Promise<number> {
  if (height <= 0) return -1;
  let b: BlockInfo | null = info;
  if (!info.active) {
    const hash = await askRpc(node.chainStore, { op: 'blockHash', height });
    b = hash ? await askRpc(node.chainStore, { op: 'block', hash }) : null;
  }
  if (!b) return -1;
  const block = b.block;
  const last = block.txs[block.txs.length - 1];
  let prev: { value: bigint; script: Uint8Array } | null = null;
  if (block.header.time <= STAKED_DECEMBER_HARDFORK_TIMESTAMP && last && last.vin.length === 1 && block.txs.length > 1) {
    const p = last.vin[0]!.prevout;
    prev = (await askRpc(node.chainStore, { op: 'outputsOf', outpoints: [[toHexReversed(p.hash), p.index]] }))[0] ?? null;
  }
  return komodoSegid(block, height, scriptOpts(node), () => prev);
}

/** blockheaderToJSON (rpc/blockchain.cpp). */
async function blockheaderToJSON(node: NodeServices, info: BlockInfo): Promise<JsonObj> {
  const h = info.header;
  const o: JsonObj = {
    last_notarized_height: 0,
    hash: info.hash,
    // komodo_dpowconfs: the raw count on a chain never notarised (and -1 passes through).
    confirmations: info.confirmations,
    rawconfirmations: info.confirmations,
    height: info.height,
    version: h.version,
    merkleroot: toHexReversed(h.merkleRoot),
    finalsaplingroot: toHexReversed(h.finalSaplingRoot),
    time: h.time,
    nonce: toHexReversed(h.nonce),
    solution: toHex(h.solution),
    bits: hexInt(h.bits),
    difficulty: getDifficulty(h.bits),
    chainwork: uint256HexOf(info.chainWork),
    segid: await segidAt(node, info.height, info),
  };
  if (info.prev) o.previousblockhash = info.prev;
  if (info.next) o.nextblockhash = info.next;
  return o;
}

/** blockToJSON (rpc/blockchain.cpp): verbosity 1 (txids) or 2 (TxToJSON per transaction). */
async function blockToJSON(node: NodeServices, info: BlockInfo, txDetails: boolean): Promise<JsonObj> {
  const h = info.header;
  const opts = scriptOpts(node);
  const pools = await askRpc(node.chainStore, { op: 'valuePools', hash: info.hash });
  const o: JsonObj = {
    last_notarized_height: 0,
    hash: info.hash,
    confirmations: info.confirmations,
    rawconfirmations: info.confirmations,
    size: info.raw.length,
    height: info.height,
    version: h.version,
    merkleroot: toHexReversed(h.merkleRoot),
    segid: await segidAt(node, info.height, info),
    finalsaplingroot: toHexReversed(h.finalSaplingRoot),
    tx: txDetails ? info.block.txs.map((tx, i) => txToJSON(tx, opts, info.txids[i])) : [...info.txids],
    time: h.time,
    nonce: toHexReversed(h.nonce),
    solution: toHex(h.solution),
    bits: hexInt(h.bits),
    difficulty: getDifficulty(h.bits),
    chainwork: uint256HexOf(info.chainWork),
    // hashFinalSproutRoot: acnode's chains carry no joinsplits, so every connected block (the genesis
    // block too: "The genesis block contained no JoinSplits") has the empty Sprout tree's root.
    anchor: EMPTY_SPROUT_ROOT,
    ...poolsJSON(pools, true),
  };
  if (info.prev) o.previousblockhash = info.prev;
  if (info.next) o.nextblockhash = info.next;
  return o;
}

/** uint256 ordering (memcmp of the internal bytes): display hex compared from its last byte. */
function compareTxids(a: string, b: string): number {
  for (let i = 62; i >= 0; i -= 2) {
    const x = a.slice(i, i + 2);
    const y = b.slice(i, i + 2);
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** CTransaction::CalculateModifiedSize. */
function modifiedSize(e: MempoolEntry): number {
  let size = e.size;
  for (const i of e.tx.vin) {
    const offset = 41 + Math.min(110, i.scriptSig.length);
    if (size > offset) size -= offset;
  }
  return size;
}

/** `getblock`'s first argument: a height (fewer than 64 characters, digits only) or a hash. */
async function blockHashArg(node: NodeServices, s: string): Promise<string> {
  if (s.length < 64) {
    if (!/^[0-9]+$/.test(s)) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid block height parameter');
    // std::stoi: out of int range throws, which komodod reports as an invalid height.
    const n = Number(s);
    if (n > 2147483647) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid block height parameter');
    const tip = await chainTip(node);
    if (n < 0 || n > tip.height) throw new RpcError(RPC_INVALID_PARAMETER, 'Block height out of range');
    const hash = await askRpc(node.chainStore, { op: 'blockHash', height: n });
    if (!hash) throw new RpcError(RPC_INVALID_PARAMETER, 'Block height out of range');
    return hash;
  }
  return uint256S(s);
}

/** The `blockchain` category (and the hidden invalidateblock/reconsiderblock). */
export function blockchainMethods(node: NodeServices): RpcMethod[] {
  return [...chainMethods(node), ...mempoolMethods(node)];
}

/** The active chain and its blocks (rpc/blockchain.cpp): tip, hashes, headers, blocks, chain info, invalidate/reconsider. */
function chainMethods(node: NodeServices): RpcMethod[] {
  return [
    {
      name: 'getblockcount',
      category: 'blockchain',
      minArgs: 0,
      maxArgs: 0,
      help: HELP_getblockcount,
      handler: async () => (await chainTip(node)).height,
    },
    {
      name: 'getbestblockhash',
      category: 'blockchain',
      minArgs: 0,
      maxArgs: 0,
      help: HELP_getbestblockhash,
      handler: async () => (await chainTip(node)).hash,
    },
    {
      name: 'getdifficulty',
      category: 'blockchain',
      minArgs: 0,
      maxArgs: 0,
      help: HELP_getdifficulty,
      handler: () => networkDifficulty(node),
    },
    {
      name: 'getblockhash',
      category: 'blockchain',
      minArgs: 1,
      maxArgs: 1,
      help: HELP_getblockhash,
      handler: (params) => getblockhash(node, params),
    },
    {
      name: 'getblockheader',
      category: 'blockchain',
      minArgs: 1,
      maxArgs: 2,
      help: HELP_getblockheader,
      handler: (params) => getblockheader(node, params),
    },
    {
      name: 'getblock',
      category: 'blockchain',
      minArgs: 1,
      maxArgs: 2,
      help: HELP_getblock,
      handler: (params) => getblock(node, params),
    },
    {
      name: 'getblockchaininfo',
      category: 'blockchain',
      minArgs: 0,
      maxArgs: 0,
      help: HELP_getblockchaininfo,
      handler: () => getblockchaininfo(node),
    },
    {
      name: 'invalidateblock',
      // komodod's table puts it under "util" (rpc/server.cpp), so help lists it.
      category: 'util',
      minArgs: 1,
      maxArgs: 1,
      help: HELP_invalidateblock,
      handler: (params) => invalidateblock(node, params),
    },
    {
      name: 'reconsiderblock',
      // komodod's table puts it under "util" (rpc/server.cpp), so help lists it.
      category: 'util',
      minArgs: 1,
      maxArgs: 1,
      help: HELP_reconsiderblock,
      handler: (params) => reconsiderblock(node, params),
    },
  ];
}

/** The mempool and the UTXO set (rpc/blockchain.cpp): getmempoolinfo, getrawmempool, gettxout. */
function mempoolMethods(node: NodeServices): RpcMethod[] {
  return [
    {
      name: 'getmempoolinfo',
      category: 'blockchain',
      minArgs: 0,
      maxArgs: 0,
      help: HELP_getmempoolinfo,
      handler: () => getmempoolinfo(node),
    },
    {
      name: 'getrawmempool',
      category: 'blockchain',
      minArgs: 0,
      maxArgs: 1,
      help: HELP_getrawmempool,
      handler: (params) => getrawmempool(node, params),
    },
    {
      name: 'gettxout',
      category: 'blockchain',
      minArgs: 2,
      maxArgs: 3,
      help: HELP_gettxout,
      handler: (params) => gettxout(node, params),
    },
  ];
}

async function getblockhash(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const n = getInt(params[0]!);
  const tip = await chainTip(node);
  if (n < 0 || n > tip.height) throw new RpcError(RPC_INVALID_PARAMETER, 'Block height out of range');
  const hash = await askRpc(node.chainStore, { op: 'blockHash', height: n });
  if (!hash) throw new RpcError(RPC_INVALID_PARAMETER, 'Block height out of range');
  return hash;
}

async function getblockheader(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  // get_str then uint256S: no hex check, as komodod.
  const hash = uint256S(getStr(params[0]!));
  const verbose = params.length > 1 ? getBool(params[1]!) : true;
  const info = await askRpc(node.chainStore, { op: 'block', hash });
  if (!info) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Block not found');
  if (!verbose) return toHex(info.header.toRaw());
  return (await blockheaderToJSON(node, info)) as JsonOut;
}

async function getblock(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const hash = await blockHashArg(node, getStr(params[0]!));
  let verbosity = 1;
  if (params.length > 1) {
    // a number goes through get_int, anything else through get_bool
    verbosity = params[1] instanceof JsonNumber ? getInt(params[1]) : getBool(params[1]!) ? 1 : 0;
  }
  if (verbosity < 0 || verbosity > 2) throw new RpcError(RPC_INVALID_PARAMETER, 'Verbosity must be in range from 0 to 2');
  const info = await askRpc(node.chainStore, { op: 'block', hash });
  if (!info) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Block not found');
  if (verbosity === 0) return toHex(info.raw);
  return (await blockToJSON(node, info, verbosity >= 2)) as JsonOut;
}

async function getmempoolinfo(node: NodeServices): Promise<JsonOut> {
  const regtest = node.config.chain.regtest;
  // Running totals the mempool keeps: the call costs the same whatever the mempool holds.
  const info = await askRpc(node.mempool, { op: 'info' });
  const o: JsonObj = { size: info.size, bytes: info.bytes, usage: info.usage };
  // Every admission and removal is announced as it happens: the wallet is always caught up.
  if (regtest) o.fullyNotified = true;
  return o as JsonOut;
}

async function getrawmempool(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const verbose = params.length > 0 ? getBool(params[0]!) : false;
  // mapTx is ordered by txid (uint256 order).
  const entries = (await askRpc(node.mempool, { op: 'entries' })).sort((a, b) => compareTxids(a.txid, b.txid));
  if (!verbose) return entries.map((e) => e.txid);
  const tip = await chainTip(node);
  const inMempool = new Set(entries.map((e) => e.txid));
  const outpoints: [string, number][] = [];
  for (const e of entries) for (const i of e.tx.vin) outpoints.push([i.prevout.txid(), i.prevout.index]);
  const coins = outpoints.length ? await askRpc(node.chainStore, { op: 'coins', outpoints }) : [];
  let k = 0;
  const out = new Map<string, JsonOut>();
  for (const e of entries) {
    const modSize = modifiedSize(e);
    // dPriority at admission: chain coins older than the tip then (parents in the mempool count 0).
    let inputs = 0;
    for (let i = 0; i < e.tx.vin.length; i++) {
      const c = coins[k++];
      if (c && c.height < e.height) inputs += Number(c.value * BigInt(e.height - c.height)); // int64 product, then double
    }
    const shielded = e.tx.joinSplits.length > 0 || e.tx.shieldedSpends.length > 0 || e.tx.shieldedOutputs.length > 0;
    const starting = e.tx.isCoinbase() ? 0 : shielded ? MAX_PRIORITY : modSize === 0 ? 0 : inputs / modSize;
    // CTxMemPoolEntry::GetPriority: unsigned height difference times the value in, over the modified size.
    const valueIn = e.tx.vout.reduce((s, o) => s + o.value, 0n) + e.fee;
    const delta = modSize === 0 ? 0 : (((tip.height - e.height) >>> 0) * Number(valueIn)) / modSize;
    const depends = [...new Set(e.tx.vin.map((i) => i.prevout.txid()).filter((t) => inMempool.has(t)))].sort();
    out.set(e.txid, {
      size: e.size,
      fee: new Amount(e.fee),
      time: e.time,
      height: e.height,
      startingpriority: starting,
      currentpriority: starting + delta,
      depends,
    });
  }
  return out;
}

async function gettxout(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const txid = uint256S(getStr(params[0]!));
  const n = getInt(params[1]!);
  const includeMempool = params.length > 2 ? getBool(params[2]!) : true;
  let coin: Coin | null = null;
  let mempoolCoin = false;
  if (includeMempool) {
    const e = await askRpc(node.mempool, { op: 'get', txid });
    if (e) {
      const o = e.tx.vout[n];
      // CCoins(tx): unspendable outputs are cleared
      if (n >= 0 && o && !isUnspendable(o.script)) {
        coin = { value: o.value, script: o.script, height: 0x7fffffff, coinbase: false, txVersion: e.tx.version };
        mempoolCoin = true;
      }
    }
  }
  if (!mempoolCoin && n >= 0) {
    coin = (await askRpc(node.chainStore, { op: 'coins', outpoints: [[txid, n]] }))[0] ?? null;
  }
  if (!coin) return null;
  if (includeMempool) {
    // pruneSpent: outputs a mempool transaction spends are gone.
    const by = await askRpc(node.mempool, { op: 'spentBy', txid, n });
    if (by) return null;
  }
  const tip = await chainTip(node);
  const confs = mempoolCoin ? 0 : tip.height - coin.height + 1;
  return {
    bestblock: tip.hash,
    confirmations: confs,
    rawconfirmations: confs,
    value: new Amount(coin.value),
    scriptPubKey: scriptPubKeyToJSON(coin.script, true, scriptOpts(node)),
    version: coin.txVersion,
    coinbase: coin.coinbase,
  } as JsonOut;
}

async function getblockchaininfo(node: NodeServices): Promise<JsonOut> {
  const regtest = node.config.chain.regtest;
  const tip = await chainTip(node);
  const [header, difficulty, pools, params, sync] = await Promise.all([
    askRpc(node.chainStore, { op: 'bestHeader' }),
    networkDifficulty(node),
    askRpc(node.chainStore, { op: 'valuePools', hash: tip.hash }),
    askRpc(node.chainStore, { op: 'params' }),
    longestChain(node, tip.height),
  ]);
  const p = params ?? node.baseParams;
  // nMajorityWindow (1000 on regtest, 4000 on main) and the thresholds, 750 and 950 on both.
  const window = regtest ? 1000 : 4000;
  const enforce = 750;
  const reject = 950;
  const versions = await askRpc(node.chainStore, { op: 'recentVersions', count: window });
  const softfork = (id: string, version: number) => {
    const found = versions ? versions.filter((v) => v >= version).length : 0;
    const desc = (required: number) => ({ status: found >= required, found, required, window });
    return { id, version, enforce: desc(enforce), reject: desc(reject) };
  };
  const upgrades = new Map<string, JsonOut>();
  const upgrade = (branch: number, name: string, info: string, at: number) => {
    if (at === -1) return;
    upgrades.set(hexInt(branch), { name, activationheight: at, status: tip.height >= at ? 'active' : 'pending', info });
  };
  upgrade(OVERWINTER_BRANCH_ID, 'Overwinter', 'See https://z.cash/upgrade/overwinter.html for details.', p.activation.overwinter);
  upgrade(SAPLING_BRANCH_ID, 'Sapling', 'See https://z.cash/upgrade/sapling.html for details.', p.activation.sapling);
  const { chainSupply, valuePools } = poolsJSON(pools, false);
  return {
    chain: regtest ? 'regtest' : 'main',
    blocks: tip.height,
    // KOMODO_INSYNC: set only when peers report the longest chain; a node without peers is not "synced".
    synced: sync.synced,
    headers: header.height,
    bestblockhash: tip.hash,
    difficulty,
    // height / KOMODO_LONGESTCHAIN, or 1.0 while that is 0 (no peers)
    verificationprogress: sync.longest > 0 ? tip.height / sync.longest : 1.0,
    chainwork: uint256HexOf(tip.chainWork),
    pruned: false,
    commitments: 0,
    chainSupply,
    valuePools,
    softforks: [softfork('bip34', 2), softfork('bip66', 3), softfork('bip65', 4)],
    upgrades,
    consensus: { chaintip: hexInt(p.currentEpochBranchId(tip.height)), nextblock: hexInt(p.currentEpochBranchId(tip.height + 1)) },
  } as JsonOut;
}

async function invalidateblock(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const hash = uint256S(getStr(params[0]!));
  await chainWrite(node, { op: 'invalidateBlock', hash });
  return null;
}

async function reconsiderblock(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const hash = uint256S(getStr(params[0]!));
  await chainWrite(node, { op: 'reconsiderBlock', hash });
  return null;
}

/** invalidateblock/reconsiderblock: -5 for an unknown block; any other failure is the state's -20. */
async function chainWrite(node: NodeServices, body: { op: 'invalidateBlock' | 'reconsiderBlock'; hash: string }): Promise<void> {
  try {
    await askRpc(node.chainStore, body);
  } catch (e) {
    if (e instanceof RpcError && e.code !== RPC_INVALID_ADDRESS_OR_KEY) throw new RpcError(RPC_DATABASE_ERROR, e.message);
    throw e;
  } finally {
    // komodod answers once the mempool follows the new tip (DisconnectTip's resurrection and
    // removeForReorg run under cs_main): the chain's notices were queued at the mempool before this
    // reply came, so a write sent now applies after them.
    await askRpc(node.mempool, { op: 'sync' });
  }
}
