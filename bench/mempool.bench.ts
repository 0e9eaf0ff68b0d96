/**
 * The mempool's per-call costs against its size, each figure beside its limit in the same run:
 * getmempoolinfo over HTTP against an in-process node (startNode: the real RPC method and mempool
 * actor) holding 2·10^4 transactions, against the same on a node holding 10^2 (flat: ratio ≤ 1.5);
 * and an empty block's connect at the mempool (removeForBlock: blockConnected through its actor, as
 * the chain store's notice reaches it), main-thread CPU per block, 2·10^4 against 10^2 (≤ 1.5), with
 * the heap it allocates and the GC time per block beside it (a GC of a bigger live heap would show
 * there, not in the CPU the connect's own code takes).
 *
 * Each node runs the dev chain (a regtest chain: komodod's fRequireStandard is off there), so its
 * mempool is filled with unsigned spends of anyone-can-spend (OP_TRUE) outputs, fanned out from the
 * premine by one signed transaction: filling takes seconds, and the mempool holds exactly what it
 * holds for any other transaction (entries, spent outpoints, address index, totals).
 */
import v8 from 'node:v8';
import { PerformanceObserver } from 'node:perf_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Block } from '../src/chain/block/block.js';
import { BlockHeader } from '../src/chain/block/header.js';
import { fromHexReversed, toHex } from '../src/chain/encoding/hex.js';
import { Outpoint, TxIn } from '../src/chain/tx/input.js';
import { TxOut } from '../src/chain/tx/output.js';
import { Transaction } from '../src/chain/tx/transaction.js';
import { loadConfig } from '../src/node/config.js';
import { startNode, type NodeHandle } from '../src/node/node.js';
import { benchKey, newTx, signInput0 } from './fixtures.js';
import { alternated, httpClient, httpRate, rpcBody, type Client } from './tokens.bench.js';
import { mainThreadCpuMs } from './node.bench.js';
import type { Row } from './lib.js';

const KEY = benchKey('acnode mempool bench key');
const OP_TRUE = Uint8Array.of(0x51);
const FEE = 10_000n;
const say = (msg: string) => process.stderr.write(`  [mempool bench] ${msg}\n`);

interface Filled {
  node: NodeHandle;
  client: Client;
  dir: string;
  close(): Promise<void>;
}

/** An in-process dev-chain node whose mempool holds `count` independent transactions. */
export async function nodeWithMempool(count: number): Promise<Filled> {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-bench-mempool-'));
  const config = loadConfig([`-datadir=${dir}`, '-rpcport=0', '-port=0', '-gen=0', `-pubkey=${toHex(KEY.pub)}`]);
  const node = await startNode(config);
  const auth = `Basic ${Buffer.from(`${config.rpcuser}:${config.rpcpassword}`).toString('base64')}`;
  const client = httpClient(node.rpc.port, auth, 4);
  const call = async <T>(body: string): Promise<T> => {
    const out = JSON.parse(await client.call(body)) as { result: T; error: { code: number; message: string } | null } | { result: unknown; error: { message: string } | null }[];
    for (const o of Array.isArray(out) ? out : [out]) if (o.error) throw new Error(`mempool bench: ${o.error.message}`);
    return (out as { result: T }).result;
  };
  const close = async () => {
    client.close();
    await node.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await call(rpcBody('generate', 1));
    const hash1 = (await node.services.chainStore.ask({ op: 'blockHash', height: 1 }))!;
    const premine = (await node.services.chainStore.ask({ op: 'block', hash: hash1 }))!.block.txs[0]!;
    // The premine to a few outputs, each of those to up to 9,000 (a transaction stays under 100 kB).
    const perFan = 9000;
    const fans = Math.ceil(count / perFan);
    const root = newTx(2);
    root.vin.push(new TxIn(new Outpoint(fromHexReversed(premine.txid()), 0)));
    const laneValue = (premine.vout[0]!.value - 1_000_000n) / BigInt(fans);
    for (let i = 0; i < fans; i++) root.vout.push(new TxOut(laneValue, OP_TRUE));
    signInput0(root, premine.vout[0]!.script, premine.vout[0]!.value, 2, KEY);
    const rootId = fromHexReversed(root.txid());
    await call(rpcBody('sendrawtransaction', toHex(root.toRaw())));
    const coins: { txid: Uint8Array; n: number; value: bigint }[] = [];
    for (let f = 0; f < fans; f++) {
      const fan = newTx(2);
      fan.vin.push(new TxIn(new Outpoint(rootId, f)));
      const outs = Math.min(perFan, count - f * perFan);
      const each = (laneValue - FEE) / BigInt(outs);
      for (let i = 0; i < outs; i++) fan.vout.push(new TxOut(each, OP_TRUE));
      await call(rpcBody('sendrawtransaction', toHex(fan.toRaw())));
      const id = fromHexReversed(fan.txid());
      for (let i = 0; i < outs; i++) coins.push({ txid: id, n: i, value: each });
    }
    await call(rpcBody('generate', 1));
    // JSON-RPC batches of sendrawtransaction calls: consecutive calls reach the mempool as one burst.
    const batch = 500;
    for (let start = 0; start < count; start += batch) {
      const calls: string[] = [];
      for (let i = start; i < Math.min(count, start + batch); i++) {
        const tx = newTx(3);
        tx.vin.push(new TxIn(new Outpoint(coins[i]!.txid, coins[i]!.n)));
        tx.vout.push(new TxOut(coins[i]!.value - FEE, OP_TRUE));
        calls.push(JSON.stringify({ jsonrpc: '1.0', id: i, method: 'sendrawtransaction', params: [toHex(tx.toRaw())] }));
      }
      await call(`[${calls.join(',')}]`);
    }
    const info = await call<{ size: number }>(rpcBody('getmempoolinfo'));
    if (info.size !== count) throw new Error(`mempool bench: ${info.size} of ${count} transactions in the mempool`);
    return { node, client, dir, close };
  } catch (e) {
    await close();
    throw e;
  }
}

/** A block of one coinbase at `height`, its time now (the fee estimator counts it as current). */
function emptyBlock(height: number): { block: Block; txids: string[] } {
  const cb = new Transaction();
  cb.vin.push(new TxIn(Outpoint.null(), Uint8Array.of(0x03, height & 0xff, (height >> 8) & 0xff, height >> 16), 0xffffffff));
  cb.vout.push(new TxOut(1000n, OP_TRUE));
  const header = new BlockHeader();
  header.time = Math.floor(Date.now() / 1000);
  const block = new Block(header, [cb]);
  block.updateMerkleRoot();
  return { block, txids: [cb.txid()] };
}

interface ConnectCost {
  /** main-thread CPU, ms per block */
  cpu: number;
  /** heap allocated, bytes per block (used heap after − before + what each GC freed) */
  heap: number;
  /** GC pauses, ms per block */
  gc: number;
}

/**
 * `count` empty blocks connected at the node's mempool one after another, at heights from `height`
 * up (nothing expires: the filled entries have no expiry height), each awaited.
 */
async function emptyConnects(f: Filled, height: number, count: number): Promise<ConnectCost> {
  const blocks = Array.from({ length: count }, (_, i) => ({ ...emptyBlock(height + i), height: height + i }));
  let gc = 0;
  const obs = new PerformanceObserver((l) => {
    for (const e of l.getEntries()) gc += e.duration;
  });
  obs.observe({ entryTypes: ['gc'] });
  const profiler = new v8.GCProfiler();
  const heap0 = v8.getHeapStatistics().used_heap_size;
  profiler.start();
  const cpu0 = mainThreadCpuMs();
  for (const b of blocks) await f.node.services.mempool.ask({ op: 'blockConnected', block: b.block, txids: b.txids, height: b.height });
  const cpu = mainThreadCpuMs() - cpu0;
  const heap1 = v8.getHeapStatistics().used_heap_size;
  const stats = profiler.stop() as unknown as { statistics: { beforeGC: { heapStatistics: { usedHeapSize: number } }; afterGC: { heapStatistics: { usedHeapSize: number } } }[] };
  // The observer's entries arrive in a later turn.
  await new Promise((r) => setTimeout(r, 20));
  obs.disconnect();
  let freed = 0;
  for (const s of stats.statistics) freed += s.beforeGC.heapStatistics.usedHeapSize - s.afterGC.heapStatistics.usedHeapSize;
  return { cpu: cpu / count, heap: (heap1 - heap0 + freed) / count, gc: gc / count };
}

/** Empty-block connects on both nodes, alternated round by round: the least of each figure per node. */
async function emptyConnectRows(small: Filled, big: Filled, sizes: [number, number]): Promise<Row[]> {
  const PER_ROUND = 1000;
  const heights = [1000, 1000];
  const best: ConnectCost[] = [0, 1].map(() => ({ cpu: Infinity, heap: Infinity, gc: Infinity }));
  for (let round = -1; round < 5; round++) {
    for (const [k, f] of ([small, big] as const).entries()) {
      const c = await emptyConnects(f, heights[k]!, PER_ROUND);
      heights[k]! += PER_ROUND;
      // Round -1 warms the path up (V8 compiles it over its first calls).
      if (round < 0) continue;
      best[k] = { cpu: Math.min(best[k]!.cpu, c.cpu), heap: Math.min(best[k]!.heap, c.heap), gc: Math.min(best[k]!.gc, c.gc) };
    }
  }
  const [s, b] = best as [ConnectCost, ConnectCost];
  return [
    { name: `empty block connected at the mempool, ${sizes[1]} mempool txs: main-thread CPU`, value: b.cpu, unit: 'ms', limitName: `the same, ${sizes[0]} mempool txs`, limit: s.cpu, target: { kind: 'max', ratio: 1.5 } },
    { name: `  heap allocated per empty block, ${sizes[1]} mempool txs`, value: b.heap / 1024, unit: 'KB', limitName: `the same, ${sizes[0]} mempool txs`, limit: s.heap / 1024 },
    { name: `  GC per empty block, ${sizes[1]} mempool txs`, value: b.gc, unit: 'ms', limitName: `the same, ${sizes[0]} mempool txs`, limit: s.gc },
  ];
}

export async function mempoolBenchmarks(): Promise<Row[]> {
  const rows: Row[] = [];
  const SMALL = 100;
  const BIG = 20_000;
  const t0 = performance.now();
  const small = await nodeWithMempool(SMALL);
  let big: Filled | undefined;
  try {
    big = await nodeWithMempool(BIG);
    say(`mempools of ${SMALL} and ${BIG} transactions filled in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const body = [rpcBody('getmempoolinfo')];
    // One untimed round each: the request path is compiled by V8 over its first calls.
    await httpRate(big.client, body);
    await httpRate(small.client, body);
    const [rateBig, rateSmall] = await alternated(() => httpRate(big!.client, body), () => httpRate(small.client, body));
    rows.push({
      name: `getmempoolinfo over HTTP, ${BIG} mempool txs: ${Math.round(rateBig)} req/s`,
      value: 1e6 / rateBig,
      unit: 'µs/req',
      limitName: `the same, ${SMALL} mempool txs: ${Math.round(rateSmall)} req/s`,
      limit: 1e6 / rateSmall,
      target: { kind: 'max', ratio: 1.5 },
    });
    rows.push(...(await emptyConnectRows(small, big, [SMALL, BIG])));
  } finally {
    await small.close();
    await big?.close();
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { printRows } = await import('./lib.js');
  printRows('mempool (getmempoolinfo)', await mempoolBenchmarks());
}
