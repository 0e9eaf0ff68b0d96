import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { SharedRing } from '../../src/actors/verify/ring.js';
import { batchHeader, decodeBatch, decodeResult, encodeResult } from '../../src/actors/verify/wire.js';
import { VerifyPool } from '../../src/actors/verify/pool.js';
import { isClaimed } from '../../src/actors/verify/claims.js';
import { waitUntil } from '../helpers/wait.js';
import { runBatch, writeBatchTx, type BatchResult } from '../../src/actors/verify/jobs.js';
import { BufferWriter } from '../../src/chain/encoding/writer.js';
import { sampleBlock } from '../../src/actors/verify/sample-block.js';
import { devChainParams } from '../../src/chain/params/chain-params.js';
import { STANDARD_SCRIPT_VERIFY_FLAGS } from '../../src/chain/script/flags.js';
import { prng } from '../helpers/prng.js';

function record(r: () => number, maxLength: number): Uint8Array {
  const b = new Uint8Array(Math.floor(r() * (maxLength + 1)));
  for (let i = 0; i < b.length; i++) b[i] = Math.floor(r() * 256);
  return b;
}

test('ring: records come out in order and intact across thousands of wrap-arounds, a full ring refuses without writing', () => {
  const ring = SharedRing.create(256);
  const r = prng(7);
  const queue: Uint8Array[] = [];
  let refused = 0;
  let bytes = 0;
  for (let step = 0; step < 20_000; step++) {
    if (r() < 0.55) {
      const rec = record(r, 90);
      if (ring.push(rec)) queue.push(rec);
      else {
        refused++;
        // Nothing was written: what is queued comes out unchanged below.
        assert.ok(queue.length > 0, 'only a ring holding records refuses one that fits its capacity');
      }
    } else {
      const got = ring.shift();
      const want = queue.shift();
      assert.deepEqual(got, want, `step ${step}`);
      bytes += want?.length ?? 0;
    }
  }
  for (let want = queue.shift(); want; want = queue.shift()) assert.deepEqual(ring.shift(), want);
  assert.equal(ring.shift(), undefined);
  assert.ok(refused > 100, `the ring filled up (${refused} refusals)`);
  assert.ok(bytes > 100 * 256, `${bytes} bytes went round the 256-byte ring`);
});

test('ring: whatever fits() accepts, an empty ring takes wherever it stands', () => {
  for (let offset = 0; offset < 256; offset += 4) {
    const ring = SharedRing.create(256);
    // Move the (empty) ring's position by `offset` bytes.
    if (offset >= 4) {
      assert.ok(ring.push(new Uint8Array(offset - 4)));
      assert.equal(ring.shift()?.length, offset - 4);
    }
    let largest = 0;
    for (let length = 0; ring.fits(length); length++) {
      assert.ok(ring.push(new Uint8Array(length).fill(7)), `length ${length} at offset ${offset}`);
      assert.deepEqual(ring.shift(), new Uint8Array(length).fill(7));
      largest = length;
    }
    assert.ok(largest >= 120, `records up to ${largest} bytes fit a 256-byte ring`);
  }
});

test('ring: a record too big for the ring never fits; push of parts writes them concatenated; empty records pass', () => {
  const ring = SharedRing.create(64);
  assert.equal(ring.fits(60), false);
  assert.equal(ring.push(new Uint8Array(60)), false);
  assert.equal(ring.fits(28), true);
  assert.equal(ring.push(Uint8Array.of(1, 2), Uint8Array.of(), Uint8Array.of(3)), true);
  assert.equal(ring.push(new Uint8Array(0)), true);
  assert.deepEqual(ring.shift(), Uint8Array.of(1, 2, 3));
  assert.deepEqual(ring.shift(), new Uint8Array(0));
  assert.equal(ring.shift(), undefined);
});

/** A worker that echoes every record of `jobs` into `results` until `jobs` is closed, then says so. */
function echoWorker(jobs: SharedRing, results: SharedRing): Worker {
  const api = import.meta.resolve('tsx/esm/api');
  const ringUrl = new URL('../../src/actors/verify/ring.ts', import.meta.url).href;
  const code = `
    const { parentPort, workerData } = await import('node:worker_threads');
    (await import(${JSON.stringify(api)})).register();
    const { SharedRing } = await import(${JSON.stringify(ringUrl)});
    const jobs = new SharedRing(workerData.jobs);
    const results = new SharedRing(workerData.results);
    let n = 0;
    while (jobs.waitForRecord(60_000)) {
      for (let r = jobs.shift(); r; r = jobs.shift()) {
        results.pushWaiting(r);
        n++;
      }
    }
    parentPort.postMessage({ closed: n });
  `;
  return new Worker(code, { eval: true, type: 'module', workerData: { jobs: jobs.buffer, results: results.buffer } } as never);
}

// The worker sleeps up to 60 s for a job and the ring's producer up to 1 s at a time for space: a lost
// wake-up fails the test at its timeout or slows it past it.
test('ring across threads: a worker asleep on an empty ring wakes for each push, echoes 5,000 records in order through small rings, and returns when closed', { timeout: 30_000 }, async () => {
  const jobs = SharedRing.create(512);
  const results = SharedRing.create(300);
  const w = echoWorker(jobs, results);
  const closed = new Promise<number>((resolve, reject) => {
    w.once('message', (m: { closed: number }) => resolve(m.closed));
    w.once('error', reject);
  });
  try {
    const r = prng(11);
    const sent: Uint8Array[] = [];
    let received = 0;
    const take = () => {
      for (let got = results.shift(); got; got = results.shift()) assert.deepEqual(got, sent[received++]);
    };
    for (let i = 0; i < 5_000; i++) {
      const rec = record(r, 120);
      sent.push(rec);
      while (!jobs.push(rec)) {
        take();
        await new Promise((res) => setImmediate(res));
      }
      // Now and then wait for the echo: the worker goes back to sleep on its empty ring.
      if (i % 500 === 0) {
        while (received < sent.length) {
          take();
          await new Promise((res) => setTimeout(res, 1));
        }
      }
    }
    while (received < sent.length) {
      take();
      await new Promise((res) => setImmediate(res));
    }
    const t = Date.now();
    jobs.close();
    assert.equal(await closed, 5_000);
    // Woken by the close, not by its 60 s timeout.
    assert.ok(Date.now() - t < 10_000);
  } finally {
    await w.terminate();
  }
});

test('wire: a batch header round-trips (flags and branch ids with the top bit set); results round-trip, every kind of outcome and cache keys', () => {
  const data = Uint8Array.of(9, 8, 7);
  const b = { id: 0x7ffffff0, flags: 0x7fffffff, branchId: 0xf5b9230b, ccEnabled: true, collectKeys: false };
  const rec = new Uint8Array([...batchHeader(b), ...data]);
  assert.deepEqual(decodeBatch(rec), { ...b, data });
  assert.deepEqual(decodeBatch(new Uint8Array([...batchHeader({ ...b, ccEnabled: false, collectKeys: true })])).collectKeys, true);

  const w = new BufferWriter(8);
  const results: BatchResult[] = [
    { id: 1, error: 'worker said: ünïcode' },
    {
      id: 2,
      outcomes: [
        [{ ok: true }, null, { ok: false, error: 'SCRIPT_ERR_SIG_DER', policyOnly: false }],
        [],
        [{ ok: false, error: 'SCRIPT_ERR_SIG_HIGH_S', policyOnly: true }],
      ],
      keys: [[Buffer.from(Uint8Array.from({ length: 137 }, (_, i) => (i * 7) & 0xff)), Buffer.alloc(140, 0xcd)], [], []],
    },
    { id: 3, outcomes: [[{ ok: true }]], keys: null },
  ];
  for (const r of results) assert.deepEqual(decodeResult(encodeResult(r, w).slice()), r);
});

test('a pool whose rings are too small for its batches verifies those on the calling thread: every answer as runBatch gives it', async () => {
  const params = devChainParams();
  const height = 100;
  const branchId = params.currentEpochBranchId(height);
  // 600 bytes a ring: one ~250-byte batch fits, a 4-transaction one never does.
  const small = await VerifyPool.start({ threads: 2, ringBytes: 600 });
  try {
    assert.equal(small.parallel, true);
    const sb = sampleBlock({ params, height, txCount: 80, inputs: () => 1, seed: 5 });
    sb.breakSignature(33, 0);
    const view = sb.view();
    const txs = sb.block.txs.slice(1);
    const batches: { flags: number; branchId: number; ccEnabled: boolean; collectKeys: boolean; data: Uint8Array; inputs: number }[] = [];
    for (let i = 0; i < txs.length; ) {
      const size = i % 3 === 0 ? 4 : 1;
      const w = new BufferWriter();
      for (const tx of txs.slice(i, i + size)) {
        const coin = view.coin(tx.vin[0]!.prevout.txid(), tx.vin[0]!.prevout.index)!;
        writeBatchTx(w, tx, [{ n: 0, value: coin.value, script: coin.script }]);
      }
      batches.push({ flags: STANDARD_SCRIPT_VERIFY_FLAGS, branchId, ccEnabled: false, collectKeys: true, data: w.finish(), inputs: Math.min(size, txs.length - i) });
      i += size;
    }
    const local = small.stats.local;
    const answers: BatchResult[][] = batches.map(() => []);
    const ids = batches.map(({ inputs, ...b }, i) => small.post(b, inputs, (r) => answers[i]!.push(r)));
    // The worker takes the first batch that fits its ring before this thread helps: otherwise a slow
    // machine may let this thread claim everything, and the sharing is what is tested.
    const claims = (small as unknown as { claims: Int32Array }).claims;
    const firstFit = ids[batches.findIndex((b) => b.inputs === 1)]!;
    await waitUntil('the worker took the first batch that fits', () => isClaimed(claims, firstFit), 30_000, 1);
    await small.waitAsync(ids);
    batches.forEach(({ inputs: _, ...b }, i) => {
      assert.equal(answers[i]!.length, 1, `batch ${i} answered once`);
      assert.deepEqual(answers[i]![0], runBatch({ ...b, id: ids[i]! }), `batch ${i}`);
    });
    assert.ok(small.stats.local - local >= batches.filter((b) => b.inputs === 4).length, 'the batches that cannot fit were verified here');
    assert.ok(small.stats.local - local < batches.length, 'the worker answered some');
  } finally {
    await small.stop();
  }
});

test('wire: the batch header is one scratch buffer a ring push copies: records pushed with headers made one after another keep their own', () => {
  const ring = SharedRing.create(1024);
  const batches = [
    { id: 1, flags: 0x7fffffff, branchId: 0xf5b9230b, ccEnabled: true, collectKeys: true, data: Uint8Array.of(1, 2) },
    { id: 2, flags: 5, branchId: 0x76b809bb, ccEnabled: false, collectKeys: false, data: Uint8Array.of(3) },
  ];
  for (const { data, ...b } of batches) assert.ok(ring.push(batchHeader(b), data));
  // A header made after the pushes changes neither record in the ring.
  batchHeader({ id: 3, flags: 0, branchId: 0, ccEnabled: false, collectKeys: false });
  for (const want of batches) assert.deepEqual(decodeBatch(ring.shift()!.slice()), want);
  // Every header byte is written each time: nothing of the previous batch's header is left in it.
  const again = batchHeader({ id: 0, flags: 0, branchId: 0, ccEnabled: false, collectKeys: false });
  assert.deepEqual([...again], new Array(16).fill(0));
});
