import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chain, chainState, genesis, handed, openStore, submit } from '../helpers/connect-chain.js';

const root = join(import.meta.dirname, '..', '..');

test('chain store, connect thread: blocks whose index writes are made there leave the chain state key by key as on the chain store thread; a block failing its checks writes nothing; reads meanwhile see the chain before it', async () => {
  const dirs = [mkdtempSync(join(tmpdir(), 'acnode-connect-thread-')), mkdtempSync(join(tmpdir(), 'acnode-connect-thread-'))];
  const threaded = await openStore(dirs[0]!, true);
  const plain = await openStore(dirs[1]!, false);
  try {
    const blocks = chain(genesis, 0, 30);
    for (const b of blocks.slice(0, 29)) {
      assert.equal(((await submit(threaded, b)).result as { status: string }).status, 'connected');
      await submit(plain, b);
    }
    assert.deepEqual(chainState(threaded), chainState(plain));
    // Every one of them through the connect thread.
    assert.equal(handed(threaded), 29);
    const before = chainState(threaded);
    // Invalid: its effects were written on the connect thread while it was checked here, and aborted whole.
    const [bad] = chain(blocks[28]!, 29, 1, 666n);
    assert.equal(((await submit(threaded, bad!)).result as { status: string }).status, 'rejected');
    assert.deepEqual(chainState(threaded), before);
    // In flight: a read sees the chain before the block, in memory and in LMDB; after the answer, the block.
    const last = blocks[29]!;
    const cb = last.txs[0]!.txid();
    const seen = () => ({ tip: (threaded.read({ op: 'tip' }) as { hash: string }).hash, coin: (threaded.read({ op: 'coins', outpoints: [[cb, 0]] }) as (object | null)[])[0] !== null });
    // (Its checks, commit and wait for it run in the microtasks after this turn: no event comes between.)
    const pending = submit(threaded, last);
    assert.deepEqual(seen(), { tip: blocks[28]!.hashHex(), coin: false });
    assert.equal(((await pending).result as { status: string }).status, 'connected');
    assert.deepEqual(seen(), { tip: last.hashHex(), coin: true });
    assert.equal(handed(threaded), 31);
    await submit(plain, last);
    assert.deepEqual(chainState(threaded), chainState(plain));
    // And disconnecting (on the chain store's thread) undoes what the connect thread wrote.
    await threaded.write({ op: 'invalidateBlock', hash: blocks[20]!.hashHex() });
    await plain.write({ op: 'invalidateBlock', hash: blocks[20]!.hashHex() });
    assert.deepEqual(chainState(threaded), chainState(plain));
  } finally {
    await threaded.close();
    await plain.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
});

for (const mode of ['checks', 'after'] as const) {
  test(`chain store, connect thread: a process killed ${mode === 'checks' ? "while a block's effects are written there, uncommitted, restarts at the block before it and takes it up from the block files" : 'right after a connect answered restarts at that block'}, key by key as a store that connected only those`, async () => {
    const dirs = [mkdtempSync(join(tmpdir(), 'acnode-connect-kill-')), mkdtempSync(join(tmpdir(), 'acnode-connect-kill-'))];
    try {
      const child = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'test/fixtures/connect-thread-kill.ts'), dirs[0]!, '12', mode], { cwd: root, encoding: 'utf8', timeout: 120_000, env: { ...process.env, CONNECT_KILL_777: '1' } });
      assert.equal(child.signal, 'SIGKILL', child.stderr);
      const acked = child.stdout.trim().split('\n');
      const answered = mode === 'checks' ? 11 : 12;
      // Each block through the connect thread (the one killed in its checks too).
      assert.equal(acked.at(-1), `${answered} ${answered}`, child.stdout);
      // The killed block's bytes were fsynced to the block files before its checks ended: the restart takes it up.
      const blocks = chain(genesis, 0, 12, mode === 'checks' ? 777n : 1000n);
      const logs: string[] = [];
      const s = await openStore(dirs[0]!, true, logs);
      const fresh = await openStore(dirs[1]!, false);
      try {
        assert.equal(logs.some((l) => /chain loaded: height 11,/.test(l)), mode === 'checks', logs.join('\n'));
        for (const b of blocks) await submit(fresh, b);
        assert.deepEqual(chainState(s), chainState(fresh));
        // And it goes on from there, through the connect thread.
        const [next] = chain(blocks.at(-1)!, 12, 1);
        const before = handed(s);
        assert.equal(((await submit(s, next!)).result as { status: string }).status, 'connected');
        assert.equal(handed(s), before + 1);
        await submit(fresh, next!);
        assert.deepEqual(chainState(s), chainState(fresh));
      } finally {
        await s.close();
        await fresh.close();
      }
    } finally {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    }
  });
}
