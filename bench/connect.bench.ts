/**
 * The running node's connect row alone (issue 31): a block of 500 transactions the mempool accepted
 * one sendrawtransaction at a time, connected by the chain store's submitBlock, against accepting
 * them. The running-node group measures the same row among its others (node.bench.ts); this group
 * runs only it, in more rounds, and prints the chain store's CPU time per block beside the wall time
 * (on a loaded machine the wall time of one 20 ms block moves with the neighbours, its CPU time much
 * less), and after the timed rounds what a submitBlock allocates on the JS heap (which the load does
 * not move at all). `BENCH_CONNECT_PROFILE=<dir>` writes a V8 CPU profile of each measured submitBlock there.
 */
import { mkdirSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromHexReversed, toHex } from '../src/chain/encoding/hex.js';
import { Outpoint, TxIn } from '../src/chain/tx/input.js';
import { TxOut } from '../src/chain/tx/output.js';
import type { Row } from './lib.js';
import { benchKey, newTx, signInput0 } from './fixtures.js';
import { blockOfEntries, fanOutPremine, runNode } from './node.bench.js';
import { allocatedBy } from './alloc.bench.js';

const KEY = benchKey('acnode connect bench key');
const PER_BLOCK = 500;
const WARM_BLOCKS = 2;
const ROUNDS = Number(process.env.BENCH_CONNECT_ROUNDS ?? 6);
/** Rounds after the timed ones whose submitBlock's JS heap allocation is counted (alloc.bench.ts's allocatedBy: a count the machine's load does not move). */
const ALLOC_ROUNDS = 2;

/**
 * `BENCH_CONNECT_PERF=<ctl fifo>,<ack fifo>`: perf record's control fifos (`perf record -D -1
 * --control=fifo:<ctl>,<ack>`), so that perf samples only the measured submitBlocks (the setup's
 * signing and the rounds' accepts would swamp them). Each command waits for perf's ack.
 */
function perfControl(): ((cmd: 'enable' | 'disable') => void) | undefined {
  const spec = process.env.BENCH_CONNECT_PERF;
  if (!spec) return undefined;
  const [ctlPath, ackPath] = spec.split(',');
  const ctl = openSync(ctlPath!, 'w');
  const ack = openSync(ackPath!, 'r');
  const buf = Buffer.alloc(16);
  return (cmd) => {
    writeSync(ctl, `${cmd}\n`);
    readSync(ack, buf, 0, 16, null);
  };
}

/**
 * The main thread's scheduler times so far (ms; Linux's per-thread schedstat, its task id the process
 * id): on a CPU, and runnable but waiting for one. NaN where there are none.
 */
function mainThreadSched(): { onCpu: number; waiting: number } {
  try {
    const [onCpu, waiting] = readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ').map(Number);
    return { onCpu: onCpu! / 1e6, waiting: waiting! / 1e6 };
  } catch {
    return { onCpu: NaN, waiting: NaN };
  }
}

export async function connectBenchmarks(): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-bench-connect-'));
  const n = await runNode(dir, [`-pubkey=${toHex(KEY.pub)}`]);
  const profileDir = process.env.BENCH_CONNECT_PROFILE;
  const session = profileDir ? new Session() : undefined;
  let perf: ReturnType<typeof perfControl>;
  try {
    const services = n.node.services;
    const send = async (raw: Uint8Array) => {
      if ((await n.rpc('sendrawtransaction', toHex(raw))) === undefined) throw new Error('sendrawtransaction not served');
    };
    // Coins enough for every block: one fan-out of the premine, then fan-outs of its last lanes.
    const lanes = 2900;
    const { fan, each } = await fanOutPremine(n, KEY, lanes);
    const fanId = fan.txid();
    const coins: { txid: string; n: number; value: bigint }[] = [];
    const needed = (WARM_BLOCKS + ROUNDS + ALLOC_ROUNDS) * PER_BLOCK;
    const fans = Math.max(0, Math.ceil((needed - lanes) / (lanes - 1)));
    const each2 = (each - 1_000_000n) / BigInt(lanes);
    for (let k = 1; k <= fans; k++) {
      const f = newTx(2 + k);
      f.vin.push(new TxIn(new Outpoint(fromHexReversed(fanId), lanes - k)));
      for (let i = 0; i < lanes; i++) f.vout.push(new TxOut(each2, KEY.p2pkh));
      signInput0(f, KEY.p2pkh, each, 2 + k, KEY);
      await send(f.toRaw());
      await n.rpc('generate', 1);
      const id = f.txid();
      for (let i = 0; i < lanes; i++) coins.push({ txid: id, n: i, value: each2 });
    }
    for (let i = 0; i < lanes - fans; i++) coins.push({ txid: fanId, n: i, value: each });
    const height = 3 + fans;
    const spends = coins.slice(0, needed).map((c) => {
      const tx = newTx(height);
      tx.vin.push(new TxIn(new Outpoint(fromHexReversed(c.txid), c.n)));
      tx.vout.push(new TxOut(c.value - 10_000n, KEY.p2pkh));
      signInput0(tx, KEY.p2pkh, c.value, height, KEY);
      return tx.toRaw();
    });
    let taken = 0;
    let blockBytes = 0;

    /** One block's round: its transactions accepted one call at a time, then the block connected. */
    const round = async (measured: boolean, profile?: string, alloc?: { bytes: number }) => {
      const txs = spends.slice(taken, (taken += PER_BLOCK));
      let t = performance.now();
      for (const raw of txs) await send(raw);
      const acceptMs = performance.now() - t;
      const entries = await services.mempool.ask({ op: 'entries' });
      if (entries.length !== txs.length) throw new Error(`bench: ${entries.length} of ${txs.length} transactions in the mempool`);
      const block = await blockOfEntries(services, entries, KEY.pub);
      const raw = block.toRaw();
      blockBytes = raw.length;
      if (profile) await session!.post('Profiler.start');
      if (measured) perf?.('enable');
      const cpu = process.cpuUsage();
      const sched = mainThreadSched();
      t = performance.now();
      let submitted!: Awaited<ReturnType<typeof services.chainStore.ask<'submitBlock'>>>;
      const submit = async () => {
        submitted = await services.chainStore.ask({ op: 'submitBlock', raw });
      };
      if (alloc) alloc.bytes = await allocatedBy(submit);
      else await submit();
      const connectMs = performance.now() - t;
      const used = process.cpuUsage(cpu);
      const schedAfter = mainThreadSched();
      if (measured) perf?.('disable');
      if (profile) writeFileSync(profile, JSON.stringify((await session!.post('Profiler.stop')).profile));
      if (submitted.status !== 'connected') throw new Error(`bench block not connected: ${submitted.status}`);
      // The block's notices are delivered after the reply: the mempool lets go of its transactions then.
      for (let i = 0; (await services.mempool.ask({ op: 'info' })).size !== 0; i++) {
        if (i === 100) throw new Error('bench: the block\'s transactions are still in the mempool');
        await new Promise((r) => setTimeout(r, 10));
      }
      const mainCpuMs = schedAfter.onCpu - sched.onCpu;
      // Wall time less the main thread's wait for a CPU (the loaded machine's share of it); of the
      // rest, what it spent neither on a CPU nor waiting for one: blocked (a sync, a lock, a wait).
      const runnableMs = connectMs - (schedAfter.waiting - sched.waiting);
      return { acceptMs, connectMs, cpuMs: (used.user + used.system) / 1000, mainCpuMs, runnableMs, blockedMs: runnableMs - mainCpuMs };
    };

    for (let r = 0; r < WARM_BLOCKS; r++) await round(false);
    perf = perfControl();
    if (session && profileDir) {
      mkdirSync(profileDir, { recursive: true });
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 50 });
    }
    const results: Awaited<ReturnType<typeof round>>[] = [];
    for (let r = 0; r < ROUNDS; r++) results.push(await round(true, profileDir ? join(profileDir, `connect-${r}.cpuprofile`) : undefined));
    const allocs: number[] = [];
    for (let r = 0; r < ALLOC_ROUNDS; r++) {
      const alloc = { bytes: 0 };
      await round(false, undefined, alloc);
      allocs.push(alloc.bytes);
    }
    // Each round's figures, in order (the per-block code paths warm up over the first blocks).
    process.stderr.write(`  [connect bench] wall/CPU ms per block: ${results.map((x) => `${x.connectMs.toFixed(1)}/${x.cpuMs.toFixed(1)}`).join(' ')}\n`);
    // What a connect allocates on the main thread's JS heap (the notices' fan-out in the same turns included), per transaction of the block.
    process.stderr.write(`  [connect bench] JS heap allocated by submitBlock, per tx of the block (${blockBytes} bytes): ${allocs.map((b) => (b / PER_BLOCK).toFixed(0)).join(' ')} B\n`);
    process.stderr.write(`  [connect bench] main thread on CPU/blocked ms per block: ${results.map((x) => `${x.mainCpuMs.toFixed(1)}/${x.blockedMs.toFixed(1)}`).join(' ')}\n`);
    type Figure = 'acceptMs' | 'connectMs' | 'cpuMs' | 'mainCpuMs' | 'runnableMs' | 'blockedMs';
    const best = (k: Figure) => Math.min(...results.map((x) => x[k]));
    const median = (k: Figure) => [...results.map((x) => x[k])].sort((a, b) => a - b)[results.length >> 1]!;
    return [
      { name: `connect a block of ${PER_BLOCK} accepted txs (submitBlock, best of ${ROUNDS})`, value: best('connectMs'), unit: 'ms', limitName: 'accepting them (sendrawtransaction, one at a time)', limit: best('acceptMs'), target: { kind: 'max', ratio: 0.1 } },
      { name: '  its CPU time, every thread (least)', value: best('cpuMs'), unit: 'ms', limitName: 'accepting them (wall)', limit: best('acceptMs') },
      { name: '  wall time, median', value: median('connectMs'), unit: 'ms', limitName: 'accepting them (wall)', limit: best('acceptMs') },
      { name: '  CPU time, median', value: median('cpuMs'), unit: 'ms', limitName: 'accepting them (wall)', limit: best('acceptMs') },
      { name: '  wall time less the wait for a CPU, median', value: median('runnableMs'), unit: 'ms', limitName: 'accepting them (wall)', limit: best('acceptMs') },
      { name: '  main thread on a CPU, median', value: median('mainCpuMs'), unit: 'ms', limitName: 'accepting them (wall)', limit: best('acceptMs') },
      { name: '  main thread blocked (neither on nor waiting for a CPU), median', value: median('blockedMs'), unit: 'ms', limitName: 'accepting them (wall)', limit: best('acceptMs') },
    ];
  } finally {
    session?.disconnect();
    await n.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
