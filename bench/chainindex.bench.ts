/**
 * The chain store's queries that once walked the whole block index (scale leftovers): getblockchaininfo's
 * "headers" (pindexBestHeader) and getrawtransaction of a transaction off the active chain (the
 * txindex rows a disconnect keeps), each per call on a block index of 10^5 blocks against one of
 * 10^3 (ratio ≤ 1.5: no call may cost more because the chain is bigger). The chains are built once
 * with stand-in rules (the bookkeeping, not consensus, is measured) and cached in bench/.cache (the
 * 10^5 one takes minutes to build, once: a block-file append and an LMDB commit per block).
 * `npm run bench -- "chain index"`.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Block } from '../src/chain/block/block.js';
import { BlockHeader } from '../src/chain/block/header.js';
import { Transaction } from '../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../src/chain/tx/input.js';
import { TxOut } from '../src/chain/tx/output.js';
import { fromHexReversed } from '../src/chain/encoding/hex.js';
import { ChainStoreLogic } from '../src/actors/chainstore/logic.js';
import { permissiveRules } from '../test/helpers/stub-rules.js';
import { bestOfInterleaved, type Row } from './lib.js';

const BITS = 0x200f0f0f;
const cacheDir = join(import.meta.dirname, '.cache');

function coinbase(height: number, tag: number): Transaction {
  const tx = new Transaction();
  tx.vin.push(new TxIn(Outpoint.null(), Uint8Array.of(0x04, height & 0xff, (height >> 8) & 0xff, (height >> 16) & 0xff, tag), 0xffffffff));
  tx.vout.push(new TxOut(1000n, Uint8Array.of(0x51)));
  return tx;
}

function makeBlock(prev: string, height: number, tag: number): Block {
  const h = new BlockHeader();
  h.prevHash = fromHexReversed(prev);
  h.time = 1_600_000_000 + height;
  h.bits = BITS;
  const b = new Block(h, [coinbase(height, tag)]);
  b.updateMerkleRoot();
  return b;
}

const genesis = makeBlock('00'.repeat(32), 0, 0);
const rules = permissiveRules(genesis, BITS);

interface Meta {
  blocks: number;
  /** The coinbase of the block a two-block branch took the tip from (off the active chain now). */
  staleTxid: string;
  staleBlock: string;
}

const open = async (dir: string) => {
  const s = new ChainStoreLogic({ dir, rules, now: () => 1_700_000_000, addressIndex: false, log: () => {} });
  await s.load();
  return s;
};

/** `blocks` blocks of one coinbase each, then a two-block branch from the tip's parent (the tip goes stale). */
async function cachedIndex(blocks: number): Promise<{ dir: string; meta: Meta }> {
  const dir = join(cacheDir, `index-${blocks}`);
  const metaFile = join(dir, 'meta.json');
  if (existsSync(metaFile)) return { dir, meta: JSON.parse(readFileSync(metaFile, 'utf8')) as Meta };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  console.log(`  building a block index of ${blocks} blocks in ${dir} (cached for later runs)`);
  const s = await open(dir);
  let prev = genesis.hashHex();
  const made: Block[] = [];
  for (let h = 1; h <= blocks; h++) {
    const b = makeBlock(prev, h, 1);
    await s.write({ op: 'submitBlock', raw: b.toRaw() });
    made.push(b);
    prev = b.hashHex();
    if (made.length > 2) made.shift();
  }
  const stale = made[1]!;
  let fork = made[0]!.hashHex();
  for (let h = blocks; h <= blocks + 1; h++) {
    const b = makeBlock(fork, h, 2);
    await s.write({ op: 'submitBlock', raw: b.toRaw() });
    fork = b.hashHex();
  }
  if (s.index.tip.hash !== fork || s.index.size !== blocks + 3) throw new Error('bench setup: the branch did not take the tip');
  await s.close();
  const meta: Meta = { blocks, staleTxid: stale.txs[0]!.txid(), staleBlock: stale.hashHex() };
  writeFileSync(metaFile, JSON.stringify(meta));
  return { dir, meta };
}

export async function chainIndexBenchmarks(): Promise<Row[]> {
  const small = await cachedIndex(1_000);
  const big = await cachedIndex(100_000);
  const stores = [await open(small.dir), await open(big.dir)] as const;
  const metas = [small.meta, big.meta] as const;
  const rows: Row[] = [];
  try {
    for (const [i, s] of stores.entries()) {
      const found = s.read({ op: 'staleTx', txid: metas[i].staleTxid }) as { blockHash: string } | null;
      if (found?.blockHash !== metas[i].staleBlock) throw new Error('bench setup: the stale transaction is not found');
    }
    const unknown = 'ab'.repeat(32);
    const cases: [string, (s: ChainStoreLogic, m: Meta) => unknown][] = [
      ['bestHeader (getblockchaininfo "headers")', (s) => s.read({ op: 'bestHeader' })],
      ['staleTx of a reorged-out tx (getrawtransaction)', (s, m) => s.read({ op: 'staleTx', txid: m.staleTxid })],
      ['staleTx of an unknown txid (getrawtransaction -5)', (s) => s.read({ op: 'staleTx', txid: unknown })],
    ];
    for (const [name, call] of cases) {
      // Calls per second, small and big interleaved (best of three rounds each): µs per call.
      const [opsSmall, opsBig] = bestOfInterleaved([() => void call(stores[0], metas[0]), () => void call(stores[1], metas[1])]);
      const usSmall = 1e6 / opsSmall!;
      const usBig = 1e6 / opsBig!;
      rows.push({ name: `${name}, ${big.meta.blocks} blocks`, value: usBig, unit: 'µs', limitName: `the same with ${small.meta.blocks} blocks (${usSmall.toFixed(2)} µs)`, limit: usSmall, target: { kind: 'max', ratio: 1.5 } });
    }
  } finally {
    for (const s of stores) await s.close();
  }
  return rows;
}
