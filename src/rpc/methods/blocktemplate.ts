import type { NodeServices } from '../../actors/protocol.js';
import type { BlockTemplate } from '../../actors/miner/protocol.js';
import { Block } from '../../chain/block/block.js';
import { setCompact, uint256Hex } from '../../chain/block/compact.js';
import { toHex, toHexReversed } from '../../chain/encoding/hex.js';
import { MAX_BLOCK_SIGOPS_AC } from '../../chain/validation/context.js';
import { RpcError, RPC_CLIENT_NOT_CONNECTED, RPC_DESERIALIZATION_ERROR, RPC_INTERNAL_ERROR, RPC_INVALID_PARAMETER, RPC_TYPE_ERROR } from '../errors.js';
import type { JsonOut, JsonValue } from '../json-value.js';
import { getObj } from '../params.js';
import { helpExampleCli, helpExampleRpc, type HelpEnv, type RpcMethod } from '../table.js';
import { askRpc } from '../ask.js';
import { decodeHexBlock } from './mining-info.js';

function help(env: HelpEnv): string {
  return (
    'getblocktemplate ( "jsonrequestobject" )\n' +
    "\nIf the request parameters include a 'mode' key, that is used to explicitly select between the default 'template' request or a 'proposal'.\n" +
    'It returns data needed to construct a block to work on.\n' +
    'See https://en.bitcoin.it/wiki/BIP_0022 for full specification.\n' +
    '\nArguments:\n' +
    '1. "jsonrequestobject"       (string, optional) A json object in the following spec\n' +
    '     {\n' +
    '       "mode":"template"    (string, optional) This must be set to "template" or omitted\n' +
    '       "capabilities":[       (array, optional) A list of strings\n' +
    "           \"support\"           (string) client side supported feature, 'longpoll', 'coinbasetxn', 'coinbasevalue', 'proposal', 'serverlist', 'workid'\n" +
    '           ,...\n' +
    '         ]\n' +
    '     }\n' +
    '\n' +
    '\nResult:\n' +
    '{\n' +
    '  "version" : n,                     (numeric) The block version\n' +
    '  "previousblockhash" : "xxxx",    (string) The hash of current highest block\n' +
    '  "finalsaplingroothash" : "xxxx", (string) The hash of the final sapling root\n' +
    '  "transactions" : [                 (array) contents of non-coinbase transactions that should be included in the next block\n' +
    '      {\n' +
    '         "data" : "xxxx",          (string) transaction data encoded in hexadecimal (byte-for-byte)\n' +
    '         "hash" : "xxxx",          (string) hash/id encoded in little-endian hexadecimal\n' +
    '         "depends" : [              (array) array of numbers \n' +
    "             n                        (numeric) transactions before this one (by 1-based index in 'transactions' list) that must be present in the final block if this one is\n" +
    '             ,...\n' +
    '         ],\n' +
    '         "fee": n,                   (numeric) difference in value between transaction inputs and outputs (in Satoshis); for coinbase transactions, this is a negative Number of the total collected block fees (ie, not including the block subsidy); if key is not present, fee is unknown and clients MUST NOT assume there isn\'t one\n' +
    '         "sigops" : n,               (numeric) total number of SigOps, as counted for purposes of block limits; if key is not present, sigop count is unknown and clients MUST NOT assume there aren\'t any\n' +
    '         "required" : true|false     (boolean) if provided and true, this transaction must be in the final block\n' +
    '      }\n' +
    '      ,...\n' +
    '  ],\n' +
    '  "coinbasetxn" : { ... },           (json object) information for coinbase transaction\n' +
    '  "target" : "xxxx",               (string) The hash target\n' +
    '  "mintime" : xxx,                   (numeric) The minimum timestamp appropriate for next block time in seconds since epoch (Jan 1 1970 GMT)\n' +
    '  "mutable" : [                      (array of string) list of ways the block template may be changed \n' +
    "     \"value\"                         (string) A way the block template may be changed, e.g. 'time', 'transactions', 'prevblock'\n" +
    '     ,...\n' +
    '  ],\n' +
    '  "noncerange" : "00000000ffffffff",   (string) A range of valid nonces\n' +
    '  "sigoplimit" : n,                 (numeric) limit of sigops in blocks\n' +
    '  "sizelimit" : n,                  (numeric) limit of block size\n' +
    '  "curtime" : ttt,                  (numeric) current timestamp in seconds since epoch (Jan 1 1970 GMT)\n' +
    '  "bits" : "xxx",                 (string) compressed target of next block\n' +
    '  "height" : n                      (numeric) The height of the next block\n' +
    '}\n' +
    '\nExamples:\n' +
    helpExampleCli(env, 'getblocktemplate', '') +
    helpExampleRpc(env, 'getblocktemplate', '')
  );
}

/** The template getblocktemplate last built and what it was built on (komodod keeps the same statics). */
interface Cached {
  tpl: BlockTemplate;
  block: Block;
  /** nTransactionsUpdatedLast: the mempool's counter when it was built. */
  updated: number;
  /** nStart, in seconds. */
  start: number;
}

/** Milliseconds between looks at the tip while a long poll waits. */
const LONGPOLL_STEP_MS = 200;

/** The `mining` category's getblocktemplate (rpc/mining.cpp), for pools and external miners. */
export function blockTemplateMethods(node: NodeServices): RpcMethod[] {
  let cached: Cached | null = null;
  const nowS = () => Math.floor((node.clock?.nowMs() ?? Date.now()) / 1000);

  /** Proposal mode: BIP 22's check of a block the caller built. */
  async function proposal(dataval: JsonValue): Promise<JsonOut> {
    if (typeof dataval !== 'string') throw new RpcError(RPC_TYPE_ERROR, 'Missing data String key for proposal');
    const block = decodeHexBlock(dataval);
    if (!block) throw new RpcError(RPC_DESERIALIZATION_ERROR, 'Block decode failed');
    const [known] = await askRpc(node.chainStore, { op: 'known', hashes: [toHexReversed(block.header.hash())] });
    if (known) {
      if (known.active) return 'duplicate';
      if (known.failed) return 'duplicate-invalid';
      return 'duplicate-inconclusive';
    }
    const tip = await askRpc(node.chainStore, { op: 'tip' });
    // TestBlockValidity only supports blocks built on the current tip.
    if (toHexReversed(block.header.prevHash) !== tip.hash) return 'inconclusive-not-best-prevblk';
    // acnode's chain store has no TestBlockValidity (checks without connecting): said, never guessed.
    throw new RpcError(RPC_INTERNAL_ERROR, 'proposal checks of a block on the tip are not served by acnode');
  }

  /** The long poll: wait until the tip changes, or a minute passed and the mempool changed (then every 10 s). */
  async function longPoll(lpval: JsonValue): Promise<void> {
    let watched: string;
    let updatedLp: number;
    if (typeof lpval === 'string') {
      // <hashBestChain><nTransactionsUpdatedLast>, read as uint256 SetHex and atoi64.
      watched = lpval.slice(0, 64).toLowerCase();
      const m = /^\s*[-+]?\d+/.exec(lpval.slice(64));
      updatedLp = m ? Number.parseInt(m[0], 10) : 0;
    } else {
      // komodod: a non-string longpollid watches the current tip and the last template's counter.
      watched = (await askRpc(node.chainStore, { op: 'tip' })).hash;
      updatedLp = cached?.updated ?? 0;
    }
    let checkAt = Date.now() + 60_000;
    for (;;) {
      const tip = await askRpc(node.chainStore, { op: 'tip' });
      if (tip.hash !== watched) return;
      if (Date.now() >= checkAt) {
        const info = await askRpc(node.mempool, { op: 'info' });
        if (info.transactionsUpdated !== updatedLp) return;
        checkAt += 10_000;
      }
      await new Promise((r) => setTimeout(r, LONGPOLL_STEP_MS));
    }
  }

  return [
    {
      name: 'getblocktemplate',
      category: 'mining',
      maxArgs: 1,
      help,
      handler: async (params) => {
        let coinbasetxn = true;
        let lpval: JsonValue = null;
        if (params.length > 0) {
          const oparam = getObj(params[0]!);
          const modeval = oparam.get('mode');
          let mode: string;
          if (typeof modeval === 'string') mode = modeval;
          else if (modeval === null) mode = 'template';
          else throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid mode');
          lpval = oparam.get('longpollid');
          if (mode === 'disablecb') coinbasetxn = false;
          if (mode === 'proposal') return proposal(oparam.get('data'));
          // komodod: any other mode string is served as "template".
        }
        // MiningRequiresPeers: main networks only (regtest mines alone).
        if (!node.config.chain.regtest && (await askRpc(node.p2p, { op: 'connectioncount' })) === 0)
          throw new RpcError(RPC_CLIENT_NOT_CONNECTED, 'Komodo is not connected!');
        if (lpval !== null) await longPoll(lpval);

        // A new template when the tip moved, or the mempool changed and the last one is over 5 s old.
        const [tip, info] = await Promise.all([askRpc(node.chainStore, { op: 'tip' }), askRpc(node.mempool, { op: 'info' })]);
        if (!cached || cached.tpl.prevHash !== tip.hash || (info.transactionsUpdated !== cached.updated && nowS() - cached.start > 5)) {
          cached = null;
          const start = nowS();
          const tpl = await askRpc(node.miner, { op: 'template' });
          cached = { tpl, block: Block.fromRaw(tpl.block), updated: info.transactionsUpdated, start };
        }
        const { tpl, block } = cached;
        // UpdateTime: max(MTP+1, now) on every call.
        const curtime = Math.max(tpl.mtp + 1, nowS());

        const transactions: JsonOut[] = [];
        let coinbase: JsonOut = null;
        const index = new Map<string, number>();
        block.txs.forEach((tx, i) => {
          const txid = tx.txid();
          index.set(txid, i);
          const deps: number[] = [];
          for (const input of tx.vin) {
            const k = index.get(input.prevout.txid());
            if (k !== undefined) deps.push(k);
          }
          const entry: Record<string, JsonOut> = {
            data: toHex(tx.toRaw()),
            hash: txid,
            depends: deps,
            fee: tpl.fees[i]!,
            sigops: tpl.sigops[i]!,
          };
          if (tx.isCoinbase() && coinbasetxn) {
            // foundersreward: only when the coinbase has a second output on an ac_founders chain;
            // acnode's coinbase has one. coinbasevalue is the subsidy alone (komodod's own figure).
            entry.coinbasevalue = tpl.subsidy;
            entry.required = true;
            coinbase = entry;
          } else transactions.push(entry);
        });
        const o: Record<string, JsonOut> = {
          capabilities: ['proposal'],
          version: block.header.version,
          previousblockhash: tpl.prevHash,
          finalsaplingroothash: toHexReversed(block.header.finalSaplingRoot),
          transactions,
        };
        if (coinbasetxn) o.coinbasetxn = coinbase;
        o.longpollid = tip.hash + String(cached.updated);
        o.target = uint256Hex(setCompact(block.header.bits).target);
        o.mintime = tpl.mtp + 1;
        o.mutable = ['time', 'transactions', 'prevblock'];
        o.noncerange = '00000000ffffffff';
        o.sigoplimit = MAX_BLOCK_SIGOPS_AC;
        o.sizelimit = node.baseParams.maxBlockSize(tpl.height);
        o.curtime = curtime;
        o.bits = (block.header.bits >>> 0).toString(16).padStart(8, '0');
        o.height = tpl.height;
        return o as JsonOut;
      },
    },
  ];
}
