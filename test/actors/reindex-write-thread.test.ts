import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { Block } from '../../src/chain/block/block.js';
import { ChainStoreLogic } from '../../src/actors/chainstore/logic.js';
import { WriteThread } from '../../src/actors/chainstore/write-thread.js';
import { readBlockFiles, writeBlockFiles } from '../helpers/blockfiles.js';
import { removeDir } from '../helpers/daemon.js';
import { LANES, blockOn, dump, newRules, params, signedChain, stepTx } from '../helpers/signed-chain.js';

/**
 * -reindex with its write thread (write-thread.ts): the chain store's thread verifies each block while
 * the thread writes the one before. The chain state it leaves must be the one the serial reindex
 * leaves, key by key, and a block that fails (a bad signature, a coin spent by a block still being
 * written) must stop the chain before it, with nothing of it written.
 */
async function reindex(dir: string, writeThread: boolean, logs: string[] = []): Promise<ChainStoreLogic> {
  const s = new ChainStoreLogic({ dir, rules: newRules(), baseParams: params, reindex: true, writeThread, log: (m) => logs.push(m) });
  await s.load();
  return s;
}

const copyOf = (dir: string) => {
  const to = mkdtempSync(join(tmpdir(), 'acnode-rx-'));
  cpSync(dir, to, { recursive: true });
  return to;
};

test('-reindex with the write thread leaves the chain state the serial reindex leaves, key by key', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-rx-'));
  const { tip, height } = await signedChain(dir);
  const serialDir = copyOf(dir);
  const threadDir = copyOf(dir);
  const serial = await reindex(serialDir, false);
  assert.equal(serial.index.tip.hash, tip);
  await serial.close();
  const logs: string[] = [];
  const threaded = await reindex(threadDir, true, logs);
  assert.equal(threaded.index.tip.hash, tip);
  assert.equal(threaded.index.height, height);
  assert.ok(!logs.some((l) => /write thread did not load/.test(l)), logs.join('\n'));
  await threaded.close();
  const want = dump(serialDir);
  const got = dump(threadDir);
  assert.ok((want.get('coins')?.length ?? 0) > LANES && (want.get('tokenOutputs')?.length ?? 0) > 0, 'the chain has coins and token outputs');
  for (const [name, rows] of want) assert.deepEqual(got.get(name), rows, `database ${name}`);
  for (const d of [dir, serialDir, threadDir]) removeDir(d);
});

test('-reindex connects blocks as it reads the block files, those read while the write thread loaded once it has: the serial reindex\'s chain state, key by key', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-rx-'));
  const { tip, height } = await signedChain(dir);
  const serialDir = copyOf(dir);
  const threadDir = copyOf(dir);
  const serial = await reindex(serialDir, false);
  await serial.close();
  // The thread seen loading for the first five blocks read (whatever its real pace), then waited for.
  const loading = Object.getOwnPropertyDescriptor(WriteThread.prototype, 'loading')!;
  let asked = 0;
  Object.defineProperty(WriteThread.prototype, 'loading', {
    configurable: true,
    get(this: WriteThread) {
      if (++asked <= 5) return true;
      assert.ok(this.ready(), 'the write thread loads');
      return false;
    },
  });
  const logs: string[] = [];
  try {
    const threaded = await reindex(threadDir, true, logs);
    assert.equal(threaded.index.tip.hash, tip);
    await threaded.close();
  } finally {
    Object.defineProperty(WriteThread.prototype, 'loading', loading);
  }
  assert.ok(asked > 5, `asked ${asked} times`);
  assert.ok(!logs.some((l) => /write thread did not load/.test(l)), logs.join('\n'));
  // Every block connected before the scan ended (the five deferred ones caught up with the sixth), none after it.
  const ended = logs.findIndex((l) => l === `reindex: ${height + 1} blocks indexed, ${height} connected`);
  assert.ok(ended > 0, logs.join('\n'));
  assert.ok(logs.slice(0, ended).some((l) => l.startsWith(`connected block ${height} `)), logs.join('\n'));
  assert.ok(!logs.slice(ended).some((l) => l.startsWith('connected block')), logs.join('\n'));
  const want = dump(serialDir);
  const got = dump(threadDir);
  for (const [name, rows] of want) assert.deepEqual(got.get(name), rows, `database ${name}`);
  for (const d of [dir, serialDir, threadDir]) removeDir(d);
});

test('-reindex with the write thread stops before a block with a bad signature, or spending a coin the block before spent, and writes nothing of it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-rx-'));
  const { tip, height, lanes } = await signedChain(dir);
  const before = dump(dir);
  const s = new ChainStoreLogic({ dir, rules: newRules(), baseParams: params });
  await s.load();
  const time = s.index.tip.header.time;
  // Blocks after the tip, each with every lane stepped: `bad` is the block that fails (its first
  // transaction's signature no longer matches what it signs, or it spends again what the block before spent).
  const after = (bad: 'signature' | 'double spend'): Block[] => {
    let prev = tip;
    let ls = lanes;
    const out: Block[] = [];
    for (let k = 1; k <= 4; k++) {
      const h = height + k;
      const txs = ls.map((l) => stepTx(l, h));
      if (k === 2 && bad === 'signature') txs[0]!.vout[0]!.value -= 1n;
      if (k === 2 && bad === 'double spend') txs[0] = stepTx(lanes[0]!, h, 777n);
      const b = blockOn(s, txs, { prev, height: h, time: time + 5 * k });
      out.push(b);
      prev = b.hashHex();
      ls = txs.map((tx) => ({ tx, n: 0 }));
    }
    return out;
  };
  const cases = [
    { bad: 'signature' as const, reason: /mandatory-script-verify-flag-failed/ },
    { bad: 'double spend' as const, reason: /bad-txns-inputs-missingorspent/ },
  ];
  const built = cases.map((c) => ({ ...c, blocks: after(c.bad) }));
  await s.close();
  for (const { bad, reason, blocks } of built) {
    const d = copyOf(dir);
    // The blocks are in the block files, as received before the reindex.
    const files = readBlockFiles(d, params.messageStart).map((r) => r.raw);
    writeBlockFiles(d, params.messageStart, [...files, ...blocks.map((b) => b.toRaw())]);
    const logs: string[] = [];
    const r = await reindex(d, true, logs);
    // The block before the bad one connects; the bad one is marked failed, and nothing after it connects.
    assert.equal(r.index.tip.hash, blocks[0]!.hashHex(), `${bad}: ${logs.join('\n')}`);
    assert.equal(r.index.get(blocks[1]!.hashHex())!.failed, true, bad);
    assert.ok(logs.some((l) => l.includes(`block ${blocks[1]!.hashHex()} at height ${height + 2} is invalid`) && reason.test(l)), `${bad}: ${logs.join('\n')}`);
    await r.close();
    // Nothing of the bad block is written: what the chain state holds is the good block's effects over the chain before.
    const got = dump(d);
    assert.deepEqual(got.get('txs')!.length, before.get('txs')!.length + blocks[0]!.txs.length, bad);
    for (const tx of blocks[1]!.txs.slice(1)) assert.ok(!got.get('txs')!.some((row) => row.startsWith(Buffer.from(tx.hash()).toString('hex'))), `${bad}: a transaction of the bad block is indexed`);
    removeDir(d);
  }
  removeDir(dir);
});
