/**
 * Bytes of JS heap the node's main thread allocates per accepted transaction (issue 31: GC was one of
 * the largest items of the accept path's profile), each figure beside its limit in the same run:
 * independent signed single-input P2PKH spends, 16 in flight, through the mempool actor (asks, as
 * sendrawtransaction's submitter sends them) and through sendrawtransaction over HTTP (the load
 * generator in a process of its own, so its allocations are not counted).
 *
 * One call at a time on one connection (a simple wallet's way) is counted too, beside a bare Polka +
 * body-parser server answering the same bodies the same way in this process.
 *
 * Allocation is counted with V8's GC profiler: the used heap at the end minus at the start, plus what
 * every GC in between freed. Every allocation of the thread in the window counts, the notice fan-out
 * to the wallet, token registry and p2p included; the script-check workers' heaps are their own
 * (they are not counted here: their CPU is in the running-node group's rows).
 *
 * `BENCH_ALLOC_PROFILE=1` also prints where the bytes go (V8's sampling heap profiler, objects
 * collected by GC included), by stage and by function.
 */
import v8 from 'node:v8';
import { Session } from 'node:inspector/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromHexReversed, toHex } from '../src/chain/encoding/hex.js';
import { Outpoint, TxIn } from '../src/chain/tx/input.js';
import { TxOut } from '../src/chain/tx/output.js';
import type { Transaction } from '../src/chain/tx/transaction.js';
import { benchKey, newTx, signInput0 } from './fixtures.js';
import { bareServer, fanOutPremine, loadGenerator, runNode } from './node.bench.js';
import type { Row } from './lib.js';

const KEY = benchKey('acnode alloc bench key');
const say = (msg: string) => process.stderr.write(`  [alloc bench] ${msg}\n`);

/** Bytes the thread allocated while `f` ran (used heap after − before + what every GC in between freed). */
export async function allocatedBy(f: () => Promise<void>): Promise<number> {
  const profiler = new v8.GCProfiler();
  const before = v8.getHeapStatistics().used_heap_size;
  profiler.start();
  await f();
  const after = v8.getHeapStatistics().used_heap_size;
  const stats = profiler.stop() as unknown as { statistics: { beforeGC: { heapStatistics: { usedHeapSize: number } }; afterGC: { heapStatistics: { usedHeapSize: number } } }[] };
  let freed = 0;
  for (const s of stats.statistics) freed += s.beforeGC.heapStatistics.usedHeapSize - s.afterGC.heapStatistics.usedHeapSize;
  return after - before + freed;
}

interface SampleNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SampleNode[];
}

/** Which stage of an accept a stack belongs to: the innermost frame of ours that names one. */
const STAGES: [string, RegExp][] = [
  ['notices: wallet', /actors\/wallet\//],
  ['notices: tokens', /actors\/tokens\//],
  ['notices: p2p', /actors\/p2p\//],
  ['notice routing', /node\/routes|node\/inspect/],
  ['verify pool (batches, results)', /actors\/verify\//],
  ['coin view (chain reader, LMDB)', /chainstore\/chain-reader|node_modules\/lmdb/],
  ['tx parse / hex', /chain\/tx\/transaction|chain\/tx\/input|chain\/tx\/output|chain\/encoding\//],
  ['txid / sighash hashing', /chain\/crypto\/|chain\/script\/sighash/],
  ['validation (src/chain/validation, script)', /chain\/validation\/|chain\/script\/|chain\/address\//],
  ['fee estimator', /mempool\/fee-/],
  ['mempool logic (entry, indexes, burst)', /actors\/mempool\/logic/],
  ['actor machine (xstate, service, ask)', /machines\/|node_modules\/xstate|actors\/ask/],
  ['RPC (HTTP, envelope, JSON)', /\/rpc\/|node_modules\/(polka|body-parser|@polka|raw-body|trouter)/],
];

function stageOf(stack: string[]): string {
  for (let i = stack.length - 1; i >= 0; i--) {
    for (const [name, re] of STAGES) if (re.test(stack[i]!)) return name;
  }
  return 'other (node internals, timers, GC-free runtime)';
}

/** Bytes per stage and per function (self), from a sampling heap profile. */
function attribute(root: SampleNode): { stages: Map<string, number>; fns: Map<string, number> } {
  const stages = new Map<string, number>();
  const fns = new Map<string, number>();
  const walk = (n: SampleNode, stack: string[]) => {
    const f = n.callFrame;
    const here = `${f.functionName || '(anon)'} ${f.url.replace(/^.*\/(src|bench|node_modules)\//, '$1/')}:${f.lineNumber + 1}:${(f as { columnNumber?: number }).columnNumber ?? 0}`;
    const s = [...stack, here];
    if (n.selfSize > 0) {
      const st = stageOf(s);
      stages.set(st, (stages.get(st) ?? 0) + n.selfSize);
      // A builtin (no script) is named with its caller, and the caller's caller.
      const named = f.url ? here : `${here} <- ${stack[stack.length - 1] ?? ''} <- ${stack[stack.length - 2] ?? ''}`;
      const key = `[${st.slice(0, 14)}] ${named}`;
      fns.set(key, (fns.get(key) ?? 0) + n.selfSize);
    }
    for (const c of n.children) walk(c, s);
  };
  walk(root, []);
  return { stages, fns };
}

async function profiled(f: () => Promise<void>): Promise<SampleNode> {
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.startSampling', { samplingInterval: 512, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } as never);
    await f();
    const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: SampleNode } };
    return profile.head;
  } finally {
    session.disconnect();
  }
}

function printProfile(label: string, head: SampleNode, txs: number): void {
  const { stages, fns } = attribute(head);
  const total = [...stages.values()].reduce((a, b) => a + b, 0);
  say(`${label}: sampled ${(total / txs).toFixed(0)} B/tx`);
  for (const [k, v] of [...stages].sort((a, b) => b[1] - a[1])) say(`  ${(v / txs).toFixed(0).padStart(7)} B/tx  ${k}`);
  say('  top functions (self):');
  for (const [k, v] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.BENCH_ALLOC_TOP ?? 40))) say(`  ${(v / txs).toFixed(0).padStart(7)} B/tx  ${k}`);
}

export async function allocBenchmarks(): Promise<Row[]> {
  const rows: Row[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'acnode-bench-alloc-'));
  const n = await runNode(dir, [`-pubkey=${toHex(KEY.pub)}`]);
  try {
    // The premine to 2,900 P2PKH lanes (a standard transaction), each lane to one spend per round.
    const lanes = 2900;
    const { fan, each } = await fanOutPremine(n, KEY, lanes);
    const fanId = fromHexReversed(fan.txid());
    const height = 3;
    const spends: { raw: Uint8Array; txid: string }[] = [];
    // Two generations: each lane spent, then that spend's output spent (taken after every first
    // spend was taken and mined), so the lone rounds have coins of their own.
    for (const [gen, value] of [[0, each], [1, each - 10_000n]] as const) {
      for (let i = 0; i < lanes; i++) {
        const tx: Transaction = newTx(height);
        tx.vin.push(new TxIn(gen === 0 ? new Outpoint(fanId, i) : new Outpoint(fromHexReversed(spends[i]!.txid), 0)));
        tx.vout.push(new TxOut(value - 10_000n, KEY.p2pkh));
        signInput0(tx, KEY.p2pkh, value, height, KEY);
        spends.push({ raw: tx.toRaw(), txid: tx.txid() });
      }
    }
    const rawSize = spends[0]!.raw.length;
    let taken = 0;
    const take = (k: number) => spends.slice(taken, (taken += k));
    const inFlight = 16;
    const mempool = n.node.services.mempool;
    // Through the actor: each call an accept marked gathered, as sendrawtransaction's submitter sends
    // a call alone (decoded once, the bytes and transaction handed over).
    const viaActor = async (round: typeof spends) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: inFlight }, async () => {
          while (next < round.length) {
            const s = round[next++]!;
            const got = await mempool.ask({ op: 'accept', raw: s.raw, allowHighFees: false, gathered: true });
            if (got !== s.txid) throw new Error(`alloc bench: accept answered ${String(got)}`);
          }
        }),
      );
    };
    const gen = n.load;
    const calls = (round: typeof spends) => round.map((s, i) => ({ body: JSON.stringify({ jsonrpc: '1.0', id: i, method: 'sendrawtransaction', params: [toHex(s.raw)] }), expect: `{"result":"${s.txid}","error":null,"id":${i}}\n` }));
    const viaHttp = async (round: typeof spends, calling = inFlight) => {
      await gen.load(calls(round));
      return () => gen.run(calling);
    };
    const perRound = 300;
    {
      // Warm both paths (V8 tiers the accept path up over its first thousands of calls), then mine.
      await viaActor(take(500));
      await (await viaHttp(take(600)))();
      await n.rpc('generate', 1);
      const profile = process.env.BENCH_ALLOC_PROFILE === '1';
      let actorBest = Infinity;
      let httpBest = Infinity;
      // Alternated rounds, least of each: a round's figure also holds whatever else the thread did
      // meanwhile (timers, the block template), so the least disturbed round is the accept's own.
      for (let r = 0; r < 2; r++) {
        const a = take(perRound);
        actorBest = Math.min(actorBest, (await allocatedBy(() => viaActor(a))) / a.length);
        await n.rpc('generate', 1);
        const h = take(perRound);
        const run = await viaHttp(h);
        httpBest = Math.min(httpBest, (await allocatedBy(async () => void (await run()))) / h.length);
        await n.rpc('generate', 1);
      }
      if (profile) {
        const a = take(perRound);
        printProfile('through the actor', await profiled(() => viaActor(a)), a.length);
        await n.rpc('generate', 1);
        const h = take(perRound);
        const run = await viaHttp(h);
        printProfile('sendrawtransaction over HTTP', await profiled(async () => void (await run())), h.length);
        await n.rpc('generate', 1);
      }
      // The limit: 33 KB a transaction, the figure the last stop's profile gave (issue 31's "about 33 KB
      // per accepted transaction", the largest single item being GC). This bench read 42-46 KB on main
      // (4403665) through either path: the profile counted fewer of the request's own bytes.
      // The raw transaction is ~210 bytes, so even the limit is ~160x it: most of what remains is the
      // machinery around one accept (the HTTP request and reply, the actor's steps, promises).
      // No issue sets a target on bytes (issue 31's are CPU time): the limit is printed, not enforced.
      const LIMIT = 33 * 1024;
      rows.push({ name: `heap allocated per accepted tx, mempool actor, ${inFlight} in flight (main thread)`, value: actorBest, unit: 'B', limitName: `33 KB, last stop's profile (${rawSize}-byte tx)`, limit: LIMIT });
      rows.push({ name: `heap allocated per accepted tx, sendrawtransaction over HTTP, ${inFlight} in flight`, value: httpBest, unit: 'B', limitName: '33 KB', limit: LIMIT });
    }
    {
      // One call at a time on one connection, the way a simple wallet submits (issue 31 item 3),
      // beside a bare Polka + body-parser server answering a real reply's bytes to the same bodies the
      // same way, in this process (so its bytes are counted alike). A lone call pays alone for what a
      // burst shares (the actor's steps, the verify pool's batch, the notice fan-out).
      const [sample] = calls(take(1)) as [{ body: string; expect: string }];
      await gen.load([sample]);
      await gen.run(1);
      const bare = await bareServer(Buffer.from(sample.expect));
      const bareGen = loadGenerator(bare.port, undefined, 1);
      try {
        const viaBare = async (round: typeof spends) => {
          await bareGen.load(calls(round).map((c) => ({ body: c.body, expect: sample.expect })));
          return () => bareGen.run(1);
        };
        await (await viaHttp(take(600), 1))();
        await n.rpc('generate', 1);
        const bareWarm = take(300);
        for (let r = 0; r < 5; r++) await (await viaBare(bareWarm))();
        let loneBest = Infinity;
        let bareBest = Infinity;
        // Alternated, least of each (as above).
        for (let r = 0; r < 4; r++) {
          const h = take(perRound);
          const run = await viaHttp(h, 1);
          loneBest = Math.min(loneBest, (await allocatedBy(async () => void (await run()))) / h.length);
          await n.rpc('generate', 1);
          const runBare = await viaBare(h);
          bareBest = Math.min(bareBest, (await allocatedBy(async () => void (await runBare()))) / h.length);
        }
        if (process.env.BENCH_ALLOC_PROFILE === '1') {
          const h = take(perRound);
          const run = await viaHttp(h, 1);
          printProfile('sendrawtransaction over HTTP, one at a time', await profiled(async () => void (await run())), h.length);
          await n.rpc('generate', 1);
          const runBare = await viaBare(h);
          printProfile('bare Polka + body-parser, one at a time', await profiled(async () => void (await runBare())), h.length);
        }
        // The target, at most 4x the bare server's bytes: what a lone call cannot avoid on top of them
        // is about 4.5 KB per XState machine step (measured on a one-state machine whose one transition
        // runs one plain action: the engine's own snapshots, sets and arrays), one step of the mempool
        // for the call's own request and reply, the wallet's and p2p's steps for its notice (shared by the
        // calls of one routing window), and the transaction's own work (decode, coin view, scripts,
        // entry, indexes: ~14 KB in the profile). Main (c823679) read 4.8-4.9x here, 49 KB a call.
        // The node's requests carry an Authorization header, the bare server's none (it checks nothing).
        rows.push({ name: 'heap allocated per lone sendrawtransaction (one at a time, one connection)', value: loneBest, unit: 'B', limitName: 'bare Polka + body-parser per request, same bytes', limit: bareBest, target: { kind: 'max', ratio: 4 } });
      } finally {
        await bareGen.close();
        await bare.close();
      }
    }
  } finally {
    await n.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { printRows } = await import('./lib.js');
  printRows('heap per accepted transaction (issue 31)', await allocBenchmarks());
}
