import type { NodeServices } from '../../actors/protocol.js';
import { encodeAddress, PUBKEY_ADDRESS } from '../../chain/address/address.js';
import { hash160 } from '../../chain/crypto/hash.js';
import { hexBytes, toHex } from '../../chain/encoding/hex.js';
import type { Block } from '../../chain/block/block.js';
import { solver } from '../../chain/script/standard.js';
import { BTC_MINSIGS, getEra, IGUANA_PORT, IGUANA_SEEDS, komodoNotaries, OVERRIDE_MINSIGS, STAKED_NOTARIES_TIMESTAMP } from '../../chain/notaries/seasons.js';
import { NOTARIES_STAKED } from '../../chain/notaries/tables.js';
import { cAtoll } from '../../chain/tokens/index.js';
import type { JsonOut } from '../json-value.js';
import { getInt, getStr } from '../params.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from '../table.js';
import { askRpc } from '../ask.js';

/** glibc atoi: strtol's value truncated to an int. */
const cAtoi = (s: string): number => Number(BigInt.asIntN(32, cAtoll(s)));
/** time(NULL): these methods read the wall clock, not GetTime (setmocktime does not move them). */
const wallClock = (): number => Math.floor(Date.now() / 1000);
/** bitcoin_address(coinaddr, version, pubkey33): Base58Check of the version byte and Hash160. */
const addressOf = (version: number, pubkeyHex: string): string => encodeAddress(version, hash160(hexBytes(pubkeyHex)));

/** The time of the active block at `height`, or null. */
async function blockTime(node: NodeServices, height: number): Promise<number | null> {
  if (height < 0) return null;
  const hash = await askRpc(node.chainStore, { op: 'blockHash', height });
  if (!hash) return null;
  const e = await askRpc(node.chainStore, { op: 'entry', hash });
  return e ? e.header.time : null;
}

/** komodo_minerids' window: the last 2000 blocks (the size of its minerids array). */
const MINERIDS_WIDTH = 2000;

/**
 * komodo_block2pubkey33: the key a block's coinbase pays as pay-to-pubkey (its first 33 bytes), else
 * 33 zero bytes.
 */
function blockMinerKey(block: Block): string {
  const out = block.txs[0]?.vout[0];
  if (out) {
    const s = solver(out.script, { ccEnabled: false });
    if (s.type === 'pubkey') return toHex(s.solutions[0]!.subarray(0, 33));
  }
  return '00'.repeat(33);
}

/** The notary tables by season (komodo_notary.cpp, notaries_staked.cpp) and the methods that print them. */
export function notaryMethods(node: NodeServices): RpcMethod[] {
  return [...notaryTableMethods(node), ...notaryConfigMethods(node)];
}

/** The notary tables and what the chain tells of its miners. */
function notaryTableMethods(node: NodeServices): RpcMethod[] {
  const name = node.config.chain.name;
  return [
    {
      name: 'notaries',
      category: 'blockchain',
      minArgs: 1,
      maxArgs: 2,
      help: 'notaries height timestamp\n',
      handler: async (params) => {
        let height = cAtoi(getStr(params[0]!));
        // (uint32_t)atol(...): the low 32 bits of strtol's value.
        let timestamp = params.length === 2 ? Number(BigInt.asUintN(32, cAtoll(getStr(params[1]!)))) : wallClock();
        if (height < 0) {
          const tip = await askRpc(node.chainStore, { op: 'tip' });
          height = tip.height;
          timestamp = tip.time;
        } else if (params.length < 2) {
          timestamp = (await blockTime(node, height)) ?? timestamp;
        }
        // komodo_heightstamp: a zero time is the block's at that height (0 when there is none).
        const heightTime = timestamp === 0 ? ((height > 0 ? await blockTime(node, height) : null) ?? 0) : 0;
        const pubkeys = komodoNotaries(name, timestamp, heightTime);
        const notaries: JsonOut[] = pubkeys.map((pk) => ({ pubkey: pk, BTCaddress: addressOf(0, pk), KMDaddress: addressOf(PUBKEY_ADDRESS, pk) }));
        return { notaries, numnotaries: pubkeys.length, height, timestamp };
      },
    },
    {
      name: 'minerids',
      category: 'blockchain',
      minArgs: 1,
      maxArgs: 1,
      help: 'minerids needs height\n',
      handler: async (params) => {
        let height = cAtoi(getStr(params[0]!));
        const tip = await askRpc(node.chainStore, { op: 'tip' });
        if (height <= 0) height = tip.height;
        // komodo_minerids: komodo_notaries at the height (time 0: the block's), then the blocks
        // height-width+i+1 for every i with height-i > 0 that exist (komodod's own index arithmetic).
        const notaries = komodoNotaries(name, 0, (height > 0 ? await blockTime(node, height) : null) ?? 0);
        const heights: number[] = [];
        for (let i = 0; i < MINERIDS_WIDTH; i++) {
          const h = height - MINERIDS_WIDTH + i + 1;
          if (height - i > 0 && h >= 0 && h <= tip.height) heights.push(h);
        }
        const ids: number[] = [];
        for (const h of heights) {
          const hash = await askRpc(node.chainStore, { op: 'blockHash', height: h });
          const b = hash ? await askRpc(node.chainStore, { op: 'block', hash }) : null;
          if (!b) continue;
          const key = blockMinerKey(b.block);
          const j = notaries.indexOf(key);
          ids.push(j === -1 ? notaries.length : j);
        }
        if (ids.length === 0) return { error: 'couldnt extract minerids' };
        const mined: JsonOut[] = [];
        if (notaries.length > 0) {
          const tally = new Array<number>(129).fill(0);
          for (const id of ids) tally[id >= notaries.length ? 128 : id]!++;
          // komodod prints 64 rows whatever the notary count (rows past it read unset memory there;
          // here they are the zero key).
          for (let i = 0; i < 64; i++) {
            const pk = notaries[i] ?? '00'.repeat(33);
            mined.push({ notaryid: i, KMDaddress: addressOf(PUBKEY_ADDRESS, pk), pubkey: pk, blocks: tally[i]! });
          }
          mined.push({ pubkey: 'external miners', blocks: tally[128]! });
        }
        return { mined, numnotaries: notaries.length };
      },
    },
    {
      name: 'geterablockheights',
      category: 'control',
      maxArgs: 0,
      help: 'geterablockheights\nReturns a JSON object with the first block in each era.\n',
      handler: async () => {
        const tip = await askRpc(node.chainStore, { op: 'tip' });
        // komodod walks heights 1..tip-1 and records each era (getera + 1) above the last one
        // recorded, which starts unset there (read as 0 here). A block's time exceeds the median of
        // the 11 before it, so once that median is past the last era's end no later block can start
        // an era: the walk stops there instead of reading the whole chain.
        const lastEraEnd = Math.max(...STAKED_NOTARIES_TIMESTAMP);
        const out: Record<string, JsonOut> = {};
        const recent: number[] = [(await blockTime(node, 0)) ?? 0];
        let lastEra = 0;
        for (let i = 1; i < tip.height; i++) {
          const t = (await blockTime(node, i)) ?? 0;
          const era = getEra(t) + 1;
          if (era > lastEra) {
            out[String(era)] = i;
            lastEra = era;
          }
          recent.push(t);
          if (recent.length > 11) recent.shift();
          const sorted = [...recent].sort((a, b) => a - b);
          if (sorted[Math.floor(sorted.length / 2)]! > lastEraEnd) break;
        }
        return out;
      },
    },
  ];
}

/** The iguana configuration and the notaries' payout outputs. */
function notaryConfigMethods(node: NodeServices): RpcMethod[] {
  return [
    {
      name: 'getiguanajson',
      category: 'control',
      maxArgs: 0,
      help: 'getiguanajson\nreturns json for iguana, for the current ERA.',
      handler: () => {
        const era = getEra(wallClock());
        const table = NOTARIES_STAKED[era]!;
        // komodod's rounding: iguana's minsigs is one more than komodod's count/5.
        const minsigs = Math.trunc(table.length / 5) > OVERRIDE_MINSIGS ? Math.trunc(table.length / 5) + 1 : OVERRIDE_MINSIGS;
        return {
          port: IGUANA_PORT,
          BTCminsigs: BTC_MINSIGS,
          minsigs,
          seeds: [...IGUANA_SEEDS],
          notaries: table.map(([n, pk]) => ({ [n]: pk })),
        };
      },
    },
    {
      name: 'getnotarysendmany',
      category: 'control',
      maxArgs: 1,
      help: (env) =>
        'getnotarysendmany\n' +
        'Returns a sendmany JSON array with all current notaries Raddress\'s.\n' +
        '\nExamples:\n' +
        helpExampleCli(env, 'getnotarysendmany', '10') +
        helpExampleRpc(env, 'getnotarysendmany', '10'),
      handler: (params) => {
        const amount = params.length === 1 ? getInt(params[0]!) : 0;
        const out: Record<string, JsonOut> = {};
        for (const [, pk] of NOTARIES_STAKED[getEra(wallClock())]!) out[addressOf(PUBKEY_ADDRESS, pk)] = amount;
        return out;
      },
    },
  ];
}
