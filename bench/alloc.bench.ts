/**
 * Bytes of JS heap the node's main thread allocates per accepted transaction (issue 31: GC was one of
 * the largest items of the accept path's profile), each figure beside its limit in the same run:
 * independent signed single-input P2PKH spends, 16 in flight, through the mempool actor (asks, as
 * sendrawtransaction's submitter sends them) and through sendrawtransaction over HTTP (the load
 * generator in a process of its own, so its allocations are not counted).
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
import { fanOutPremine, runNode } from './node.bench.js';
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
    for (let i = 0; i < lanes; i++) {
      const tx: Transaction = newTx(height);
      tx.vin.push(new TxIn(new Outpoint(fanId, i)));
      tx.vout.push(new TxOut(each - 10_000n, KEY.p2pkh));
      signInput0(tx, KEY.p2pkh, each, height, KEY);
      spends.push({ raw: tx.toRaw(), txid: tx.txid() });
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
    const viaHttp = async (round: typeof spends) => {
      await gen.load(round.map((s, i) => ({ body: JSON.stringify({ jsonrpc: '1.0', id: i, method: 'sendrawtransaction', params: [toHex(s.raw)] }), expect: `{"result":"${s.txid}","error":null,"id":${i}}\n` })));
      return () => gen.run(inFlight);
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
