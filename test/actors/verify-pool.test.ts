import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { devChainParams } from '../../src/chain/params/chain-params.js';
import { consensusRules } from '../../src/actors/chainstore/consensus.js';
import type { ChainRules } from '../../src/actors/chainstore/rules.js';
import { VerifyPool, checkInputScriptsInPool, scriptCheckThreads } from '../../src/actors/verify/pool.js';
import { needsMainThread, runBatch, writeBatchTx, type BatchResult } from '../../src/actors/verify/jobs.js';
import { CLAIM_SLOTS, claimBatch, isClaimed, newClaims } from '../../src/actors/verify/claims.js';
import { BufferWriter } from '../../src/chain/encoding/writer.js';
import { sampleBlock, type SampleBlock } from '../../src/actors/verify/sample-block.js';
import { SignatureCache, ValidationError, checkInputScripts } from '../../src/chain/validation/index.js';
import { Outpoint } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { hash160 } from '../../src/chain/crypto/hash.js';
import { concatScript, getOp, p2shScript, pushData } from '../../src/chain/script/script.js';
import { signatureHash } from '../../src/chain/script/sighash.js';
import { OP_CHECKCRYPTOCONDITION, OP_CHECKCRYPTOCONDITIONVERIFY, OP_DROP, OP_TRUE } from '../../src/chain/script/opcodes.js';
import { SCRIPT_VERIFY_P2SH, STANDARD_SCRIPT_VERIFY_FLAGS } from '../../src/chain/script/flags.js';
import { BLOCK_SCRIPT_FLAGS } from '../../src/chain/consensus/block.js';
import { highSTwin } from '../helpers/signatures.js';
import { waitUntil } from '../helpers/wait.js';
import { secp256k1Backend, useSecp256k1Backend, type Secp256k1Backend } from '../../src/chain/crypto/secp256k1.js';
import { secp256k1BackendOf, selectSecp256k1Backend } from '../../src/actors/verify/sig-backend.js';

const params = devChainParams();
const HEIGHT = 100;
const BRANCH = params.currentEpochBranchId(HEIGHT);

/** The outcome of connecting: the fees, or the error's every field the chain store reports. */
function outcome(rules: ChainRules, sb: SampleBlock): unknown {
  try {
    return { fees: rules.connect(sb.block, sb.height, sb.view()).fees };
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e;
    return { rejectCode: e.rejectCode, reason: e.reason, dos: e.dos, debug: e.debug };
  }
}

let pool: VerifyPool;
let previousBackend: Secp256k1Backend | undefined;
test.before(async () => {
  // As the node runs: its -sigbackend default chosen on this thread, the workers loading the same.
  previousBackend = secp256k1Backend();
  selectSecp256k1Backend('auto');
  pool = await VerifyPool.start({ threads: 3, batchInputs: 8 });
});
test.after(async () => {
  await pool?.stop();
  if (previousBackend) useSecp256k1Backend(previousBackend);
});

test('-par: komodod semantics (0 = one per core, negative leaves cores free, ≤ 1 none, at most 16)', () => {
  assert.equal(scriptCheckThreads(0, 2), 2);
  assert.equal(scriptCheckThreads(0, 1), 0);
  assert.equal(scriptCheckThreads(1, 8), 0);
  assert.equal(scriptCheckThreads(-1, 8), 7);
  assert.equal(scriptCheckThreads(-7, 8), 0);
  assert.equal(scriptCheckThreads(3, 2), 3);
  assert.equal(scriptCheckThreads(64, 2), 16);
});

test('the pool starts its workers (with the node) and they answer', () => {
  // komodod's count: the calling thread is one of the three.
  assert.equal(pool.threads, 3);
  assert.equal(pool.size, 2);
  assert.equal(pool.parallel, true);
  // The calling thread's backend (the node's default picks native where its addon loads).
  assert.equal(pool.workerBackend, secp256k1Backend().name);
  assert.equal(pool.workerBackend, secp256k1BackendOf('native') ? 'native' : 'wasm');
});

test('the workers load the backend they are given, by default the calling thread\'s; a block gets the same answer on each', async () => {
  const sb = sampleBlock({ params, height: HEIGHT, txCount: 12, seed: 21 });
  sb.breakSignature(7, 0);
  const want = outcome(consensusRules({ params: () => params }), sb);
  const prev = secp256k1Backend();
  try {
    // Each that loads here: all three wherever the package ships a prebuilt addon.
    for (const name of (['native', 'wasm', 'noble'] as const).filter((n) => secp256k1BackendOf(n))) {
      // Named: the node passes the backend it picked.
      const named = await VerifyPool.start({ threads: 2, batchInputs: 2, backend: name });
      // Unnamed: whatever this thread verifies with.
      useSecp256k1Backend(secp256k1BackendOf(name)!);
      const inherited = await VerifyPool.start({ threads: 2, batchInputs: 2 });
      useSecp256k1Backend(prev);
      try {
        for (const p of [named, inherited]) {
          assert.equal(p.parallel, true, name);
          assert.equal(p.workerBackend, name);
          assert.deepEqual(outcome(consensusRules({ params: () => params, verifyPool: p }), sb), want, name);
          assert.ok(p.stats.batches > 0, name);
        }
      } finally {
        await named.stop();
        await inherited.stop();
      }
    }
  } finally {
    useSecp256k1Backend(prev);
  }
});

test('a worker that cannot load the node\'s backend is not used: the calling thread verifies, and the log says why', async () => {
  // node-gyp-build looks for the addon in $SECP256K1_PREBUILD when set (a worker copies process.env
  // as it starts): an empty directory is a platform without a prebuild.
  const empty = mkdtempSync(join(tmpdir(), 'acnode-noprebuild-'));
  const saved = process.env.SECP256K1_PREBUILD;
  const logs: string[] = [];
  process.env.SECP256K1_PREBUILD = empty;
  const p = VerifyPool.create({ threads: 2, backend: 'native', log: (m) => logs.push(m) });
  if (saved === undefined) delete process.env.SECP256K1_PREBUILD;
  else process.env.SECP256K1_PREBUILD = saved;
  try {
    await p.ready;
    assert.equal(p.parallel, false);
    assert.equal(p.workerBackend, undefined);
    assert.ok(
      logs.some((l) => l.includes('-sigbackend=native: the native libsecp256k1 addon could not be loaded (No native build was found') && l.includes('verifying scripts on the main thread')),
      logs.join('\n'),
    );
    const sb = sampleBlock({ params, height: HEIGHT, txCount: 6, seed: 22 });
    sb.breakSignature(3, 0);
    assert.deepEqual(outcome(consensusRules({ params: () => params, verifyPool: p }), sb), outcome(consensusRules({ params: () => params }), sb));
  } finally {
    await p.stop();
    rmSync(empty, { recursive: true, force: true });
  }
});

/** The nice value of each of this process's threads (Linux: field 19 of /proc/self/task/<tid>/stat). */
function threadNiceValues(): number[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at field 3, the state.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19 - 3]);
  });
}

test('workers run 10 nice steps below the main thread (Linux): their wake-ups do not preempt it', { skip: process.platform !== 'linux' }, () => {
  const main = getPriority();
  const lowered = threadNiceValues().filter((n) => n === Math.min(19, main + 10));
  assert.ok(lowered.length >= pool.size, `${lowered.length} threads at nice ${main + 10}, ${pool.size} workers`);
  // The main thread itself keeps its priority.
  assert.equal(getPriority(), main);
});

test('serial and parallel block connection agree: valid blocks, one bad signature at every position', () => {
  const sb = sampleBlock({ params, height: HEIGHT, txCount: 30, inputs: (i) => 1 + (i % 3), chainEvery: 6, seed: 3 });
  const serial = consensusRules({ params: () => params, sigCache: new SignatureCache() });
  const parallel = consensusRules({ params: () => params, sigCache: new SignatureCache(), verifyPool: pool });
  const good = outcome(serial, sb);
  assert.deepEqual(good, { fees: 30n * 10_000n });
  const before = pool.stats.inputs;
  assert.deepEqual(outcome(parallel, sb), good);
  assert.ok(pool.stats.inputs - before >= 60, 'the inputs went to the workers');

  let cases = 0;
  for (let i = 1; i < sb.block.txs.length; i++) {
    for (let n = 0; n < sb.block.txs[i]!.vin.length; n++) {
      // The chained input (spending the previous transaction) is signed too; every input is broken in turn.
      const restore = sb.breakSignature(i, n);
      const want = outcome(serial, sb) as { reason: string; debug: string };
      assert.match(want.reason, /^mandatory-script-verify-flag-failed/, `tx ${i} input ${n}`);
      assert.deepEqual(outcome(parallel, sb), want, `tx ${i} input ${n}`);
      restore();
      cases++;
    }
  }
  assert.ok(cases >= 60);
  assert.deepEqual(outcome(parallel, sb), good);
});

test('the first failure in block order wins: a bad signature before or after another error', () => {
  const sb = sampleBlock({ params, height: HEIGHT, txCount: 24, seed: 4 });
  const serial = consensusRules({ params: () => params });
  const parallel = consensusRules({ params: () => params, verifyPool: pool });
  const missing = (i: number) => {
    const tx = sb.block.txs[i]!;
    const prev = tx.vin[0]!.prevout;
    tx.vin[0]!.prevout = new Outpoint(new Uint8Array(32).fill(0xee), 0);
    return () => void (tx.vin[0]!.prevout = prev);
  };
  const overspend = (i: number) => {
    const out = sb.block.txs[i]!.vout[0]!;
    const value = out.value;
    sb.block.txs[i]!.vout[0] = new TxOut(value * 2n, out.script);
    return () => void (sb.block.txs[i]!.vout[0] = new TxOut(value, out.script));
  };
  for (const [a, b] of [[5, 17], [17, 5], [1, 2], [2, 1], [23, 22]] as const) {
    for (const other of [missing, overspend]) {
      const r1 = sb.breakSignature(a, 0);
      const r2 = other(b);
      const want = outcome(serial, sb) as { reason: string };
      assert.deepEqual(outcome(parallel, sb), want, `bad sig at ${a}, ${other.name} at ${b}`);
      assert.equal(want.reason.startsWith('mandatory-script-verify-flag-failed'), a < b || (other === overspend && a === b));
      r2();
      r1();
    }
  }
  // Two bad signatures: the earlier one is reported (its input index in the debug text).
  const r1 = sb.breakSignature(20, 0);
  const r2 = sb.breakSignature(9, 0);
  const want = outcome(serial, sb);
  assert.deepEqual(outcome(parallel, sb), want);
  r2();
  r1();
});

test('the signature cache: a block of cached transactions connects without the workers; cached results never validate another message', () => {
  const sb = sampleBlock({ params, height: HEIGHT, txCount: 20, inputs: (i) => 1 + (i % 2), seed: 5 });
  const cache = new SignatureCache();
  // The mempool's acceptance fills the cache.
  const view = sb.view();
  for (const tx of sb.block.txs.slice(1)) checkInputScripts(tx, view, STANDARD_SCRIPT_VERIFY_FLAGS, BRANCH, { cache, cacheStore: true });
  assert.equal(cache.size, 30);
  const parallel = consensusRules({ params: () => params, sigCache: cache, verifyPool: pool });
  const before = { ...pool.stats };
  assert.deepEqual(outcome(parallel, sb), { fees: 20n * 10_000n });
  assert.deepEqual(pool.stats, before, 'every input settled from the cache');
  assert.equal(cache.size, 30, 'a block does not store into the cache');

  // Same signatures and keys, other messages (each transaction's output changed): every cached entry is
  // for another sighash, so each input is verified again and fails, as on the serial path.
  const serial = consensusRules({ params: () => params, sigCache: cache });
  for (const i of [1, 7, 20]) {
    const tx = sb.block.txs[i]!;
    const out = tx.vout[0]!;
    tx.vout[0] = new TxOut(out.value - 1n, out.script);
    const want = outcome(serial, sb) as { reason: string; debug: string };
    assert.match(want.reason, /^mandatory-script-verify-flag-failed/);
    assert.equal(want.debug, 'input 0');
    const posted = pool.stats.inputs;
    assert.deepEqual(outcome(parallel, sb), want, `tx ${i}`);
    assert.ok(pool.stats.inputs > posted, 'the changed transaction went to a worker');
    tx.vout[0] = out;
  }
});

test('one transaction in the pool (mempool-style): same errors as checkInputScripts, policy and consensus; the cache is filled', () => {
  const sb = sampleBlock({ params, height: HEIGHT, txCount: 3, inputs: () => 4, seed: 6 });
  const tx = sb.block.txs[2]!;
  const cache = new SignatureCache();
  checkInputScriptsInPool(pool, tx, sb.view(), STANDARD_SCRIPT_VERIFY_FLAGS, BRANCH, { cache });
  assert.equal(cache.size, 4);
  // The workers' keys (sent as bytes) are the keys the serial checker would look up: each input's.
  tx.vin.forEach((input, n) => {
    const coin = sb.view().coin(input.prevout.txid(), input.prevout.index)!;
    const sig = getOp(input.scriptSig, 0)!;
    // P2PKH (the key follows the signature) or P2PK (the key is the spent script's push).
    const pub = (getOp(input.scriptSig, sig.next) ?? getOp(coin.script, 0)!).data!;
    const digest = signatureHash(coin.script, tx, n, sig.data![sig.data!.length - 1]!, coin.value, BRANCH);
    assert.ok(cache.has(SignatureCache.key(digest, sig.data!.subarray(0, -1), pub)), `input ${n}'s key`);
  });
  const errorOf = (f: () => void) => {
    try {
      f();
      return 'ok';
    } catch (e) {
      assert.ok(e instanceof ValidationError, String(e));
      return `${e.rejectCode} ${e.reason} ${e.dos} ${e.debug}`;
    }
  };
  // A high-S twin of input 1's signature: policy (64, non-mandatory) with standard flags, valid in a block.
  const [sigPush, pubPush] = [tx.vin[1]!.scriptSig.subarray(1, 1 + tx.vin[1]!.scriptSig[0]!), tx.vin[1]!.scriptSig.subarray(1 + tx.vin[1]!.scriptSig[0]!)];
  const goodSig1 = tx.vin[1]!.scriptSig;
  tx.vin[1]!.scriptSig = concatScript(pushData(highSTwin(sigPush)), pubPush);
  const policy = errorOf(() => checkInputScripts(tx, sb.view(), STANDARD_SCRIPT_VERIFY_FLAGS, BRANCH, {}));
  assert.match(policy, /^64 non-mandatory-script-verify-flag/);
  assert.equal(errorOf(() => checkInputScriptsInPool(pool, tx, sb.view(), STANDARD_SCRIPT_VERIFY_FLAGS, BRANCH, {})), policy);
  assert.equal(errorOf(() => checkInputScriptsInPool(pool, tx, sb.view(), BLOCK_SCRIPT_FLAGS, BRANCH, {})), 'ok');
  tx.vin[1]!.scriptSig = goodSig1;

  sb.breakSignature(2, 3);
  for (const flags of [STANDARD_SCRIPT_VERIFY_FLAGS, BLOCK_SCRIPT_FLAGS]) {
    const want = errorOf(() => checkInputScripts(tx, sb.view(), flags, BRANCH, {}));
    assert.match(want, /input 3$/);
    assert.equal(errorOf(() => checkInputScriptsInPool(pool, tx, sb.view(), flags, BRANCH, {})), want);
  }
  // Missing inputs: the serial path's MissingInputsError, untouched.
  assert.throws(() => checkInputScriptsInPool(pool, tx, { coin: () => undefined }, BLOCK_SCRIPT_FLAGS, BRANCH, {}), /missing/i);
});

test('claims: the first thread to claim a batch takes it; a slot is reused by the id CLAIM_SLOTS later', () => {
  const claims = newClaims();
  assert.equal(claimBatch(claims, 7), true);
  assert.equal(claimBatch(claims, 7), false, 'claimed once only');
  assert.equal(claimBatch(claims, 8), true);
  assert.equal(claimBatch(claims, 7 + CLAIM_SLOTS), true, 'the same slot, a later batch');
  assert.equal(claimBatch(claims, 7 + CLAIM_SLOTS), false);
});

test('every batch posted is answered exactly once, by a worker or by the waiting thread, as runBatch answers it', async () => {
  const sb = sampleBlock({ params, height: HEIGHT, txCount: 120, inputs: () => 1, seed: 11 });
  for (const [tx, n] of [[7, 0], [64, 0], [119, 0]] as const) sb.breakSignature(tx, n);
  const view = sb.view();
  const batches = sb.block.txs.slice(1).map((tx) => {
    const w = new BufferWriter();
    const coin = view.coin(tx.vin[0]!.prevout.txid(), tx.vin[0]!.prevout.index)!;
    writeBatchTx(w, tx, [{ n: 0, value: coin.value, script: coin.script }]);
    return { flags: BLOCK_SCRIPT_FLAGS, branchId: BRANCH, ccEnabled: false, collectKeys: false, data: w.finish().slice() };
  });
  const local = pool.stats.local;
  const answers = new Map<number, BatchResult[]>();
  // Posted all at once: the workers take them from the front while this thread claims from the back.
  const ids = batches.map((b, i) => pool.post(b, 1, (r) => answers.set(i, [...(answers.get(i) ?? []), r])));
  // Let a worker take the first one before this thread starts claiming: on a slow machine the workers
  // may otherwise not wake before this thread has claimed everything, and the sharing is what is tested.
  const claims = (pool as unknown as { claims: Int32Array }).claims;
  await waitUntil('a worker took the first batch', () => isClaimed(claims, ids[0]!), 30_000, 1);
  pool.wait(ids);
  assert.equal(answers.size, batches.length);
  batches.forEach((b, i) => {
    const got = answers.get(i)!;
    assert.equal(got.length, 1, `batch ${i} answered once`);
    const want = runBatch({ ...b, id: ids[i]! });
    assert.deepEqual(got[0], want, `batch ${i}`);
  });
  assert.deepEqual(
    batches.flatMap((_, i) => ((answers.get(i)![0] as { outcomes: { ok: boolean }[][] }).outcomes[0]![0]!.ok ? [] : [i + 1])),
    [7, 64, 119],
  );
  assert.ok(pool.stats.local - local < batches.length, 'the workers answered some');
});

test('two sets of checks filled at once keep their own batches (the pool lends its writer to one at a time)', () => {
  const sb = sampleBlock({ params, height: HEIGHT, txCount: 9, seed: 13 });
  const view = sb.view();
  const txs = sb.block.txs.slice(1);
  sb.breakSignature(2, 0);
  const opts = { flags: STANDARD_SCRIPT_VERIFY_FLAGS, branchId: BRANCH, ccEnabled: false, batchInputs: 100 };
  const first = pool.checks(opts);
  const second = pool.checks(opts);
  // Interleaved, nothing posted until the flushes: each set's bytes must stay its own.
  txs.forEach((tx, i) => assert.ok((i % 2 === 0 ? second : first).defer(i, tx, view)));
  second.flush();
  first.flush();
  // Block transaction 2 (txs[1], an odd one) has the bad signature: only `first` holds it.
  assert.throws(() => first.settle(), (e: unknown) => e instanceof ValidationError && /mandatory-script-verify-flag-failed/.test(e.reason));
  second.settle();
});

test('waitAsync: a backlog posted while it waits wakes the waiting thread, which helps with it', async () => {
  const one = await VerifyPool.start({ threads: 2 });
  try {
    const small = 10;
    const sb = sampleBlock({ params, height: HEIGHT, txCount: 201 + small, inputs: () => 1, seed: 12 });
    const view = sb.view();
    const batchOf = (txs: typeof sb.block.txs) => {
      const w = new BufferWriter();
      for (const tx of txs) {
        const coin = view.coin(tx.vin[0]!.prevout.txid(), tx.vin[0]!.prevout.index)!;
        writeBatchTx(w, tx, [{ n: 0, value: coin.value, script: coin.script }]);
      }
      return { flags: BLOCK_SCRIPT_FLAGS, branchId: BRANCH, ccEnabled: false, collectKeys: false, data: w.finish().slice() };
    };
    const txs = sb.block.txs.slice(1);
    // A long batch keeps the one worker busy (its first 200 inputs three times over: 150-200 ms, long
    // enough for this thread to post the rest and wake on a loaded machine, and still shorter than the
    // waiter's 250 ms stall check, which would otherwise wake it without post()); the waiter sleeps
    // until something changes.
    const longTxs = Array.from({ length: 3 }, () => txs.slice(0, 200)).flat();
    const batches = [batchOf(longTxs), ...Array.from({ length: small }, (_, k) => batchOf(txs.slice(200 + k, 201 + k)))];
    const answers = new Map<number, BatchResult>();
    const post = (i: number) => one.post(batches[i]!, i === 0 ? longTxs.length : 1, (r) => answers.set(i, r));
    const long = post(0);
    // The worker has started it: otherwise the waiter may take the long batch itself, which it does
    // with or without being woken.
    const claims = (one as unknown as { claims: Int32Array }).claims;
    await waitUntil('the worker took the long batch', () => isClaimed(claims, long), 30_000, 1);
    const waiting = one.waitAsync([long]);
    // Posted while it waits: more than the worker is left (a few inputs), a backlog the waiting thread
    // wakes for and helps with.
    const ids = [long, ...Array.from({ length: small }, (_, k) => post(k + 1))];
    await waiting;
    const byHere = one.stats.local;
    assert.ok(byHere >= 1, 'the waiting thread verified some of the backlog itself');
    assert.ok(byHere < small, 'and left the workers their share');
    await one.waitAsync(ids);
    assert.equal(answers.size, batches.length);
    batches.forEach((b, i) => assert.deepEqual(answers.get(i), runBatch({ ...b, id: ids[i]! }), `batch ${i}`));
  } finally {
    await one.stop();
  }
});

test('inputs that may reach a crypto-condition stay on the main thread', () => {
  const cc = concatScript(pushData(new Uint8Array(40).fill(1)), OP_CHECKCRYPTOCONDITION);
  const sig = pushData(new Uint8Array(71).fill(0xcc)); // 0xcc bytes inside a push are data, not the opcode
  const redeemCC = concatScript(OP_TRUE, OP_CHECKCRYPTOCONDITION);
  assert.equal(needsMainThread(sig, cc, SCRIPT_VERIFY_P2SH, true), true);
  assert.equal(needsMainThread(sig, cc, SCRIPT_VERIFY_P2SH, false), false);
  assert.equal(needsMainThread(sig, concatScript(OP_DROP, OP_TRUE), SCRIPT_VERIFY_P2SH, true), false);
  assert.equal(needsMainThread(concatScript(OP_TRUE, OP_CHECKCRYPTOCONDITION), concatScript(OP_TRUE), SCRIPT_VERIFY_P2SH, true), true);
  const p2sh = p2shScript(hash160(redeemCC));
  assert.equal(needsMainThread(pushData(redeemCC), p2sh, SCRIPT_VERIFY_P2SH, true), true);
  assert.equal(needsMainThread(pushData(redeemCC), p2sh, 0, true), false);
  // Outside P2SH a push is data, and a push running past the end ends the walk (as the interpreter fails there).
  assert.equal(needsMainThread(pushData(Uint8Array.of(OP_CHECKCRYPTOCONDITION)), concatScript(OP_TRUE), SCRIPT_VERIFY_P2SH, true), false);
  assert.equal(needsMainThread(Uint8Array.of(0x05, 0x01, OP_CHECKCRYPTOCONDITION), concatScript(OP_TRUE), SCRIPT_VERIFY_P2SH, true), false);
  assert.equal(needsMainThread(Uint8Array.of(0x01, 0x01, OP_CHECKCRYPTOCONDITIONVERIFY), concatScript(OP_TRUE), SCRIPT_VERIFY_P2SH, true), true);
  // Should one get to a worker all the same, it is handed back rather than decided there.
  const sb = sampleBlock({ params, height: HEIGHT, txCount: 1, seed: 7 });
  const w = new BufferWriter();
  writeBatchTx(w, sb.block.txs[1]!, [{ n: 0, value: 1n, script: concatScript(OP_TRUE, OP_TRUE, OP_CHECKCRYPTOCONDITION) }]);
  const r = runBatch({ id: 1, flags: BLOCK_SCRIPT_FLAGS, branchId: BRANCH, ccEnabled: true, collectKeys: false, data: w.finish() });
  assert.ok(!('error' in r));
  assert.deepEqual(r.outcomes, [[null]]);
});

test('a pool whose workers are not up verifies on the calling thread, with the same answers', async () => {
  const slow = await VerifyPool.start({ threads: 2, startTimeoutMs: 1 });
  try {
    assert.equal(slow.parallel, false);
    const none = await VerifyPool.start({ threads: 1 });
    assert.equal(none.size, 0);
    assert.equal(none.parallel, false);
    const sb = sampleBlock({ params, height: HEIGHT, txCount: 6, seed: 8 });
    sb.breakSignature(4, 0);
    const want = outcome(consensusRules({ params: () => params }), sb);
    assert.deepEqual(outcome(consensusRules({ params: () => params, verifyPool: slow }), sb), want);
    const checks = slow.checks({ flags: BLOCK_SCRIPT_FLAGS, branchId: BRANCH, ccEnabled: false });
    const view = sb.view();
    sb.block.txs.slice(1).forEach((tx, i) => {
      assert.ok(checks.defer(i + 1, tx, view));
      view.apply(tx, tx.txid(), HEIGHT);
    });
    assert.throws(() => checks.settle(), (e: unknown) => e instanceof ValidationError && e.debug === 'input 0');
  } finally {
    await slow.stop();
  }
});

test('workers that loaded while the main thread was blocked past the start timeout are used (a long chain load at start)', async () => {
  const pool = VerifyPool.create({ threads: 2, startTimeoutMs: 300 });
  try {
    // Blocks this thread (without spinning) well past the timeout while the workers load.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 4000);
    await pool.ready;
    assert.equal(pool.parallel, true);
  } finally {
    await pool.stop();
  }
});
