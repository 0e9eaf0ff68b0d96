/**
 * The Assets module's benchmark (issue 10, Benchmarks): tokenorders latency with 10 against 10,000
 * open asks on the chain, as the cost per order returned (flat: ratio ≤ 1.5). Measured over HTTP
 * against an in-process node (startNode: the real RPC method, chain store and its address index).
 * The asks are komodod's tokenask layout (assembleAsk), each spending the previous one's token and
 * coin change, built and connected in process as the tokens bench does (consensus checks skipped,
 * one real CC fulfillment reused: see bench/tokens.bench.ts) and cached in bench/.cache/.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromHexReversed, toHex } from '../src/chain/encoding/hex.js';
import type { Transaction } from '../src/chain/tx/transaction.js';
import { assembleTokenCreate, type SpendableCoin } from '../src/chain/tokens/index.js';
import { assembleAsk, signAssetsTx } from '../src/chain/assets/index.js';
import type { Row } from './lib.js';
import { KEY, MY_P2PK, MY_TOKENS, PUB, cacheDir, chainBuilder, outputOf, params, runNodeOn, withFulfillments, type Running } from './tokens.bench.js';

const say = (msg: string) => process.stderr.write(`  [assets bench] ${msg}\n`);

interface OrdersChainMeta {
  asks: number;
  txs: number;
  /** display hex */
  tokenid: string;
}

/** A dev-chain data directory with one token and `asks` open asks on it (up to 1,000 per block). Cached in bench/.cache/asks-<n>/. */
async function ordersChain(asks: number): Promise<{ dir: string; meta: OrdersChainMeta }> {
  const dir = join(cacheDir, `asks-${asks}`);
  const metaFile = join(dir, 'meta.json');
  if (existsSync(metaFile)) return { dir, meta: JSON.parse(readFileSync(metaFile, 'utf8')) as OrdersChainMeta };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const t0 = performance.now();
  say(`building a chain of ${asks} open asks in ${dir} (cached for later runs)`);
  const b = await chainBuilder(dir);
  let [coin] = await b.lanes(1);
  const create = assembleTokenCreate({ nextHeight: b.height() + 1, activation: params.activation, pubkey: PUB, name: 'ASKS', description: 'bench asks', supply: 10n ** 12n, coins: [coin!] });
  if (!create.ok) throw new Error(`tokencreate: ${create.error}`);
  await b.mine([create.value.tx]);
  const tokenid = fromHexReversed(create.value.tx.txid());
  coin = outputOf(create.value.tx, MY_P2PK);
  let tokens: SpendableCoin = outputOf(create.value.tx, MY_TOKENS);
  const fulfillments = new Map<string, Uint8Array>();
  let txs = 1;
  for (let made = 0; made < asks; ) {
    const nextHeight = b.height() + 1;
    const block: Transaction[] = [];
    for (; made < asks && block.length < 1000; made++) {
      const r = assembleAsk({ nextHeight, activation: params.activation, pubkey: PUB, tokenid, coins: [coin!], tokenCoins: [tokens], numtokens: 10n, askamount: 1_000_000n + BigInt(made) });
      if (!r.ok) throw new Error(`tokenask: ${r.error}`);
      const tx = withFulfillments(r.value, () => signAssetsTx(r.value, { nextHeight, activation: params.activation, privateKey: KEY }), fulfillments);
      block.push(tx);
      coin = outputOf(tx, MY_P2PK);
      tokens = outputOf(tx, MY_TOKENS);
    }
    await b.mine(block);
    txs += block.length;
  }
  await b.logic.close();
  const meta: OrdersChainMeta = { asks, txs, tokenid: toHex(Uint8Array.from(tokenid).reverse()) };
  writeFileSync(metaFile, JSON.stringify(meta));
  say(`  built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return { dir, meta };
}

/** Mean tokenorders latency (ms) over at least `minCalls` calls and about `ms` milliseconds. */
async function ordersLatency(n: Running, tokenid: string, expect: number, ms: number, minCalls: number): Promise<number> {
  let calls = 0;
  const t0 = performance.now();
  while (calls < minCalls || performance.now() - t0 < ms) {
    const orders = await n.rpc<unknown[]>('tokenorders', tokenid);
    if (orders.length !== expect) throw new Error(`tokenorders returned ${orders.length} orders, expected ${expect}`);
    calls++;
  }
  return (performance.now() - t0) / calls;
}

export async function assetsBenchmarks(): Promise<Row[]> {
  const small = await ordersChain(10);
  const big = await ordersChain(10_000);
  const nSmall = await runNodeOn(small.dir, ['tokenorders', small.meta.tokenid]);
  let nBig: Running | undefined;
  try {
    nBig = await runNodeOn(big.dir, ['tokenorders', big.meta.tokenid]);
    // Alternated, best of three each.
    let msSmall = Infinity;
    let msBig = Infinity;
    for (let i = 0; i < 3; i++) {
      msSmall = Math.min(msSmall, await ordersLatency(nSmall, small.meta.tokenid, small.meta.asks, 500, 5));
      msBig = Math.min(msBig, await ordersLatency(nBig, big.meta.tokenid, big.meta.asks, 0, 1));
    }
    return [
      {
        name: `tokenorders over HTTP per order, ${big.meta.asks} asks (${msBig.toFixed(0)} ms/call)`,
        value: (msBig * 1000) / big.meta.asks,
        unit: 'µs',
        limitName: `the same, ${small.meta.asks} asks (${msSmall.toFixed(2)} ms/call)`,
        limit: (msSmall * 1000) / small.meta.asks,
        target: { kind: 'max', ratio: 1.5 },
      },
    ];
  } finally {
    await nSmall.close();
    await nBig?.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { printRows } = await import('./lib.js');
  printRows('assets (issue 10)', await assetsBenchmarks());
}
