/**
 * The Assets module's benchmarks (issue 10, Benchmarks): tokenorders latency with 10 against 10,000
 * open asks on the chain, as the cost per order returned (flat: ratio ≤ 1.5); and tokenorders
 * <tokenid> / mytokenorders answering the same 10 asks among 10^3 against 10^5 open orders of other
 * tokens and another owner (the order index: the cost of the answer, ratio ≤ 1.5). Measured over HTTP
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
import { EVAL_TOKENS, tokensCC1Script } from '../src/chain/tokens/index.js';
import { sha256 } from '../src/chain/crypto/hash.js';
import { publicKeyFromPrivate } from '../src/chain/crypto/secp256k1.js';
import { p2pkScript } from '../src/chain/script/script.js';
import { newContextualTransaction } from '../src/chain/tokens/build.js';
import { Outpoint, TxIn } from '../src/chain/tx/input.js';
import { TxOut } from '../src/chain/tx/output.js';
import { assembleAsk, signAssetsTx } from '../src/chain/assets/index.js';
import type { Row } from './lib.js';
import { KEY, MY_P2PK, MY_TOKENS, PUB, cacheDir, chainBuilder, outputOf, params, runNodeOn, withFulfillments, type Running } from './tokens.bench.js';
import { cacheIsCurrent } from './storage.bench.js';

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
  // A cache in an older layout is built again in the current one (else every run would upgrade a copy).
  if (existsSync(metaFile) && (await cacheIsCurrent(dir))) return { dir, meta: JSON.parse(readFileSync(metaFile, 'utf8')) as OrdersChainMeta };
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

/** The other owner of the bench's other orders (not the node's -pubkey). */
const OTHER_KEY = sha256(new TextEncoder().encode('acnode assets bench other key'));
const OTHER_PUB = publicKeyFromPrivate(OTHER_KEY, true);
const OTHER_P2PK = p2pkScript(OTHER_PUB);
const OTHER_TOKENS = tokensCC1Script(EVAL_TOKENS, 0, OTHER_PUB);
/** The asks every answer holds (the bench key's, on its own token). */
const MINE = 10;
/** The tokens the other orders are spread over. */
const OTHER_TOKEN_COUNT = 10;

interface OthersChainMeta {
  others: number;
  txs: number;
  /** display hex of the bench key's token, with MINE asks */
  tokenid: string;
}

/**
 * A dev-chain data directory with MINE asks of the bench key (the node's -pubkey) on its token, and
 * `others` open asks of another key on OTHER_TOKEN_COUNT other tokens (up to 1,000 per block), in
 * komodod's tokenask layout as ordersChain builds them. Cached in bench/.cache/orders-<others>/.
 */
async function othersChain(others: number): Promise<{ dir: string; meta: OthersChainMeta }> {
  const dir = join(cacheDir, `orders-${others}`);
  const metaFile = join(dir, 'meta.json');
  // A cache in an older layout is built again in the current one (else every run would upgrade a copy).
  if (existsSync(metaFile) && (await cacheIsCurrent(dir))) return { dir, meta: JSON.parse(readFileSync(metaFile, 'utf8')) as OthersChainMeta };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const t0 = performance.now();
  say(`building a chain of ${MINE} asks among ${others} other open orders in ${dir} (cached for later runs)`);
  const b = await chainBuilder(dir);
  const [mineCoin, otherCoin] = await b.lanes(2);
  const fulfillments = new Map<string, Uint8Array>();
  let txs = 0;
  // The creates: the bench key's token, and the other key's (its coin lane spent from the bench key's lane: nothing checks signatures).
  let nextHeight = b.height() + 1;
  const mineCreate = assembleTokenCreate({ nextHeight, activation: params.activation, pubkey: PUB, name: 'MINE', description: 'bench', supply: 10n ** 6n, coins: [mineCoin!] });
  if (!mineCreate.ok) throw new Error(`tokencreate: ${mineCreate.error}`);
  const block: Transaction[] = [mineCreate.value.tx];
  let coin = outputOf(mineCreate.value.tx, MY_P2PK);
  let tokens = outputOf(mineCreate.value.tx, MY_TOKENS);
  // The other key's coins: the bench key's second lane paid to it (unsigned: nothing checks signatures).
  const fund = newContextualTransaction({ nextHeight, activation: params.activation });
  fund.vin.push(new TxIn(new Outpoint(otherCoin!.txid, otherCoin!.vout)));
  fund.vout.push(new TxOut(otherCoin!.value, OTHER_P2PK));
  block.push(fund);
  let otherLane: SpendableCoin = outputOf(fund, OTHER_P2PK);
  const otherIds: Uint8Array[] = [];
  const otherTokens: SpendableCoin[] = [];
  for (let t = 0; t < OTHER_TOKEN_COUNT; t++) {
    const r = assembleTokenCreate({ nextHeight, activation: params.activation, pubkey: OTHER_PUB, name: `OTHER${t}`, description: 'bench', supply: 10n ** 12n, coins: [otherLane] });
    if (!r.ok) throw new Error(`tokencreate: ${r.error}`);
    block.push(r.value.tx);
    otherLane = outputOf(r.value.tx, OTHER_P2PK);
    otherIds.push(fromHexReversed(r.value.tx.txid()));
    otherTokens.push(outputOf(r.value.tx, OTHER_TOKENS));
  }
  await b.mine(block);
  txs += block.length;
  const tokenid = fromHexReversed(mineCreate.value.tx.txid());
  // The bench key's asks, spread over the others (one every others/MINE).
  const mineEvery = Math.max(1, Math.floor(others / MINE));
  let mineMade = 0;
  for (let made = 0; made < others || mineMade < MINE; ) {
    nextHeight = b.height() + 1;
    const block: Transaction[] = [];
    while ((made < others || mineMade < MINE) && block.length < 1000) {
      if (mineMade < MINE && (made >= others || made >= mineMade * mineEvery)) {
        const r = assembleAsk({ nextHeight, activation: params.activation, pubkey: PUB, tokenid, coins: [coin], tokenCoins: [tokens], numtokens: 10n, askamount: 1_000_000n + BigInt(mineMade) });
        if (!r.ok) throw new Error(`tokenask: ${r.error}`);
        const tx = withFulfillments(r.value, () => signAssetsTx(r.value, { nextHeight, activation: params.activation, privateKey: KEY }), fulfillments);
        block.push(tx);
        coin = outputOf(tx, MY_P2PK);
        tokens = outputOf(tx, MY_TOKENS);
        mineMade++;
        continue;
      }
      const t = made % OTHER_TOKEN_COUNT;
      const r = assembleAsk({ nextHeight, activation: params.activation, pubkey: OTHER_PUB, tokenid: otherIds[t]!, coins: [otherLane], tokenCoins: [otherTokens[t]!], numtokens: 10n, askamount: 1_000_000n + BigInt(made) });
      if (!r.ok) throw new Error(`tokenask: ${r.error}`);
      const tx = withFulfillments(r.value, () => signAssetsTx(r.value, { nextHeight, activation: params.activation, privateKey: OTHER_KEY }), fulfillments);
      block.push(tx);
      otherLane = outputOf(tx, OTHER_P2PK);
      otherTokens[t] = outputOf(tx, OTHER_TOKENS);
      made++;
    }
    await b.mine(block);
    txs += block.length;
    if (b.height() % 20 === 0) say(`  height ${b.height()}, ${made} other orders`);
  }
  await b.logic.close();
  const meta: OthersChainMeta = { others, txs, tokenid: toHex(Uint8Array.from(tokenid).reverse()) };
  writeFileSync(metaFile, JSON.stringify(meta));
  say(`  built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return { dir, meta };
}

/** CPU time (µs, this process: the in-process node and its client) per call of `method`, over at least `minCalls` calls and about `ms` milliseconds. */
async function cpuPerCall(n: Running, method: string, params: unknown[], expect: number, ms: number, minCalls: number): Promise<number> {
  let calls = 0;
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  while (calls < minCalls || performance.now() - t0 < ms) {
    const orders = await n.rpc<unknown[]>(method, ...params);
    if (orders.length !== expect) throw new Error(`${method} returned ${orders.length} orders, expected ${expect}`);
    calls++;
  }
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / calls;
}

/** tokenorders <tokenid> and mytokenorders, the same MINE asks among 10^3 against 10^5 other open orders. */
export async function othersBenchmarks(): Promise<Row[]> {
  const small = await othersChain(1000);
  const big = await othersChain(100_000);
  const nSmall = await runNodeOn(small.dir, ['tokenorders', small.meta.tokenid]);
  let nBig: Running | undefined;
  try {
    nBig = await runNodeOn(big.dir, ['tokenorders', big.meta.tokenid]);
    const rows: Row[] = [];
    for (const [method, params] of [
      ['tokenorders', (m: OthersChainMeta) => [m.tokenid]],
      ['mytokenorders', () => []],
    ] as const) {
      // Alternated, best of five each.
      let small1 = Infinity;
      let big1 = Infinity;
      for (let i = 0; i < 5; i++) {
        small1 = Math.min(small1, await cpuPerCall(nSmall, method, params(small.meta), MINE, 300, 20));
        big1 = Math.min(big1, await cpuPerCall(nBig, method, params(big.meta), MINE, 300, 20));
      }
      rows.push({
        name: `${method}${method === 'tokenorders' ? ' <tokenid>' : ''} CPU per call, ${MINE} asks among ${big.meta.others} other open orders`,
        value: big1,
        unit: 'µs',
        limitName: `the same among ${small.meta.others}`,
        limit: small1,
        target: { kind: 'max', ratio: 1.5 },
      });
    }
    return rows;
  } finally {
    await nSmall.close();
    await nBig?.close();
  }
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
  const others = await othersBenchmarks();
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
      ...others,
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
