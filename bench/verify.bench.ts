import { createRequire } from 'node:module';
import { secp256k1 as nobleCurve } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { publicKeyFromPrivate, signDER, verifyDER, secp256k1Backend, useSecp256k1Backend } from '../src/chain/crypto/secp256k1.js';
import { parseDERSignature } from '../src/chain/crypto/der.js';
import { secp256k1BackendOf } from '../src/actors/verify/sig-backend.js';
import { devChainParams } from '../src/chain/params/chain-params.js';
import { SignatureCache, checkInputScripts } from '../src/chain/validation/index.js';
import { STANDARD_SCRIPT_VERIFY_FLAGS } from '../src/chain/script/flags.js';
import { consensusRules } from '../src/actors/chainstore/consensus.js';
import { VerifyPool, scriptCheckThreads } from '../src/actors/verify/pool.js';
import { sampleBlock } from '../src/actors/verify/sample-block.js';
import { bestOfInterleaved, roundsUntilSteady, type Row } from './lib.js';

interface Tiny {
  verify(h: Uint8Array, Q: Uint8Array, sig: Uint8Array, strict?: boolean): boolean;
}

interface Secp256k1Package {
  ecdsaVerify(sig: Uint8Array, msg32: Uint8Array, pub: Uint8Array): boolean;
}

/**
 * Signature verification at the machine's limit (issue 9): each backend against its own package called
 * bare on the same signatures, and a 1,000-transaction block connected with the worker pool against the
 * serial path, in one run.
 */
export async function verifyBenchmarks(): Promise<Row[]> {
  const rows: Row[] = [];
  const require = createRequire(import.meta.url);
  const tiny = require('tiny-secp256k1') as Tiny;

  // 64 signatures over distinct keys and digests, verified round-robin by each.
  const sigs = Array.from({ length: 64 }, (_, i) => {
    const key = sha256(Uint8Array.of(0xb0, i));
    const digest = sha256(Uint8Array.of(0xb1, i));
    const der = signDER(digest, key);
    return { der, compact: parseDERSignature(der)!, digest, pub: publicKeyFromPrivate(key, true) };
  });
  let k = 0;
  const ours = () => {
    const s = sigs[k++ & 63]!;
    if (!verifyDER(s.der, s.digest, s.pub)) throw new Error('verifyDER failed');
  };
  const bareCall = (verify: (sig: Uint8Array, digest: Uint8Array, pub: Uint8Array) => boolean) => () => {
    const s = sigs[k++ & 63]!;
    if (!verify(s.compact, s.digest, s.pub)) throw new Error('bare verify failed');
  };
  // The secp256k1 package's own API over its native addon (what its index.js exports when the addon
  // loads); its bindings.js never falls back to the pure-JavaScript elliptic build.
  let nativePackage: Secp256k1Package | undefined;
  try {
    nativePackage = require('secp256k1/bindings.js') as Secp256k1Package;
  } catch {
    nativePackage = undefined;
  }
  const cases = [
    { backend: 'native', what: 'libsecp256k1 N-API', bareName: 'bare secp256k1 (N-API) ecdsaVerify', bare: nativePackage && bareCall((sig, d, pub) => nativePackage!.ecdsaVerify(sig, d, pub)) },
    { backend: 'wasm', what: 'libsecp256k1 WebAssembly', bareName: 'bare tiny-secp256k1 verify', bare: bareCall((sig, d, pub) => tiny.verify(d, pub, sig)) },
    { backend: 'noble', what: 'reference', bareName: 'bare @noble/curves verify', bare: bareCall((sig, d, pub) => nobleCurve.verify(sig, d, pub, { prehash: false, format: 'compact' })) },
  ] as const;
  const prev = secp256k1Backend();
  try {
    for (const c of cases) {
      const b = secp256k1BackendOf(c.backend);
      if (!b || !c.bare) {
        console.log(`(no ${c.backend} row: the ${c.backend} backend does not load here)`);
        continue;
      }
      useSecp256k1Backend(b);
      // Interleaved, the best of each, six rounds at least and on until both bests hold: the machine is
      // shared, and a slow spell must not fall on one side only. noble is ~10x slower: longer spells.
      const [oursBest, bareBest] = bestOfInterleaved([ours, c.bare], 6, c.backend === 'noble' ? 700 : 300) as [number, number];
      rows.push({
        name: `verifyDER, ${c.backend} backend (${c.what})`,
        value: oursBest,
        unit: 'verify/s',
        limitName: `${c.bareName}, same sigs`,
        limit: bareBest,
        target: { kind: 'min', ratio: 0.9 },
      });
    }
  } finally {
    useSecp256k1Backend(prev);
  }

  // A 1,000-transaction block never seen before (empty signature cache), serial vs the worker pool.
  const params = devChainParams();
  const height = 100;
  const sb = sampleBlock({ params, height, txCount: 1000, seed: 9 });
  const threads = scriptCheckThreads(0);
  const pool = await VerifyPool.start({ threads });
  try {
    const serial = consensusRules({ params: () => params, sigCache: new SignatureCache() });
    const parallel = consensusRules({ params: () => params, sigCache: new SignatureCache(), verifyPool: pool });
    const time = (f: () => void) => {
      const t = performance.now();
      f();
      return performance.now() - t;
    };
    // Warm both paths first: a running node has long compiled them. Measured: the worker's path tiers
    // up over its first few blocks (parallel 262, 188, 190, 157, 149 ms, then 127–143 steady, against
    // serial 250–260 from its third), so best of six after one warm-up round caught it half compiled
    // (1.66 of serial where the steady rate is 1.96).
    for (let r = 0; r < 5; r++) {
      serial.connect(sb.block, height, sb.view());
      parallel.connect(sb.block, height, sb.view());
    }
    // Interleaved runs, the best of each: on a shared machine the best run is the one least disturbed.
    const ts: number[] = [];
    const tp: number[] = [];
    // CPU time of the whole process (workers included): what the pool costs beyond the serial work.
    let cpuSerial = 0;
    let cpuParallel = 0;
    const cpu = (f: () => void) => {
      const c = process.cpuUsage();
      f();
      const u = process.cpuUsage(c);
      return (u.user + u.system) / 1000;
    };
    // Sixteen rounds at least, then on until both bests hold for six (roundsUntilSteady): this VM's
    // single-thread speed moves by up to ±40% in spells of seconds (bare verify measured 2,500–4,400/s
    // in consecutive quarter-seconds), and the parallel side needs both cores undisturbed at once: full
    // benches read 1.58 of serial where the machine's own two-thread capacity read 1.72, and 1.598
    // with the pool's CPU time 1.45x serial's (1.02–1.07 otherwise), each after ten rounds (~4 s) that
    // all fell in one such spell.
    const best = (xs: number[]) => Math.min(...xs);
    const rounds = await roundsUntilSteady(
      () => {
        cpuSerial += cpu(() => ts.push(time(() => serial.connect(sb.block, height, sb.view()))));
        cpuParallel += cpu(() => tp.push(time(() => parallel.connect(sb.block, height, sb.view()))));
        return [1 / best(ts), 1 / best(tp)];
      },
      { min: 16, max: 40, patience: 6 },
    );
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
    rows.push({
      name: `connect 1,000-tx new block, -par=${pool.parallel ? threads : 1} threads (${rounds} rounds)`,
      value: (1000 / best(tp)) * 1000,
      unit: 'tx/s',
      limitName: 'the same block, serial',
      limit: (1000 / best(ts)) * 1000,
      target: { kind: 'min', ratio: 1.6 },
    });

    rows.push({ name: 'its CPU time (all threads), pool', value: cpuParallel / rounds, unit: 'ms', limitName: 'CPU time, serial', limit: cpuSerial / rounds });

    // The same block with every signature cached (as after mempool acceptance) against the script
    // checks of acceptance that filled the cache: what the cache saves.
    const cache = new SignatureCache();
    const fill = time(() => {
      const view = sb.view();
      const branchId = params.currentEpochBranchId(height);
      for (const tx of sb.block.txs.slice(1)) checkInputScripts(tx, view, STANDARD_SCRIPT_VERIFY_FLAGS, branchId, { cache, cacheStore: true });
    });
    const cached = consensusRules({ params: () => params, sigCache: cache, verifyPool: pool });
    const tc = median([0, 1, 2].map(() => time(() => cached.connect(sb.block, height, sb.view()))));
    rows.push({ name: 'connect it with every signature cached', value: tc, unit: 'ms', limitName: 'script checks of accepting its txs', limit: fill });
  } finally {
    await pool.stop();
  }
  return rows;
}
