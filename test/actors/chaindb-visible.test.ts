import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChainDb } from '../../src/actors/chainstore/chaindb.js';

const root = join(import.meta.dirname, '..', '..');

test('chain db: writeVisible settles once its commit is visible, its sync still running; a throw in it aborts all of it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-chaindb-visible-'));
  const db = ChainDb.open(dir);
  try {
    db.write(() => db.putMeta('a', 1));
    const pending = db.writeVisible(
      () => {
        db.putMeta('a', 2);
        db.putMeta('b', 2);
        return 'done';
      },
      () => db.getMeta('a') === 2,
    );
    // Its transaction runs in a later turn: until then readers see the state before it, and nothing else writes.
    assert.equal(db.getMeta('a'), 1);
    assert.equal(db.getMeta('b'), undefined);
    assert.throws(() => db.write(() => db.putMeta('c', 1)), /while a commit of it is in flight/);
    assert.equal(await pending, 'done');
    assert.deepEqual([db.getMeta('a'), db.getMeta('b')], [2, 2]);
    // Answered before lmdb-js reported its sync (which it does in a later event, once data.mdb is synced).
    assert.equal(db.unsynced, 1);
    await db.synced();
    assert.equal(db.unsynced, 0);
    // A throw in it, or in beforeCommit (a block file not fsynced), aborts the whole transaction and is rethrown.
    await assert.rejects(
      db.writeVisible(
        () => {
          db.putMeta('a', 3);
          throw new Error('no');
        },
        () => db.getMeta('a') === 3,
      ),
      /^Error: no$/,
    );
    db.beforeCommit = () => {
      throw new Error('fsync of a block file failed');
    };
    await assert.rejects(
      db.writeVisible(
        () => db.putMeta('a', 4),
        () => db.getMeta('a') === 4,
      ),
      /fsync of a block file failed/,
    );
    db.beforeCommit = undefined;
    assert.equal(db.getMeta('a'), 2);
    // Writing goes on: a synchronous write after a visible one (it waits for that one's sync first).
    await db.writeVisible(
      () => db.putMeta('a', 5),
      () => db.getMeta('a') === 5,
    );
    assert.equal(db.unsynced, 1);
    db.write(() => db.putMeta('a', 6));
    assert.equal(db.getMeta('a'), 6);
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('chain db: a process killed right after writeVisible settled, its sync still running, restarts at that commit and goes on', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-chaindb-kill-'));
  try {
    const run = () => spawnSync(process.execPath, ['--import', 'tsx', join(root, 'test/fixtures/visible-then-kill.ts'), dir, '20'], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    const child = run();
    assert.equal(child.signal, 'SIGKILL', child.stderr);
    const acked = child.stdout.trim().split('\n');
    assert.equal(acked.length, 20, child.stdout);
    // The last one was answered before its sync was reported (the kill came before lmdb-js could).
    assert.equal(acked.at(-1), '20 1');
    const db = ChainDb.open(dir);
    assert.equal(db.getMeta('n'), 20);
    // And the environment goes on after the restart.
    await db.writeVisible(
      () => db.putMeta('n', 21),
      () => db.getMeta('n') === 21,
    );
    assert.equal(db.getMeta('n'), 21);
    await db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('chain db: a read snapshot held across turns (heldRead) is let go when a writeVisible commit becomes visible', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-chaindb-held-'));
  const db = ChainDb.open(dir);
  try {
    db.write(() => db.putMeta('tip', 'a'));
    const before = db.heldRead();
    assert.equal(db.getMeta('tip', before), 'a');
    // A later turn still reads the held snapshot (no new read transaction while nothing was committed).
    await new Promise((r) => setImmediate(r));
    assert.equal(db.heldRead(), before);
    await db.writeVisible(
      () => db.putMeta('tip', 'b'),
      () => db.getMeta('tip') === 'b',
    );
    // The chain reader's next read finds the commit the chain store has just answered for.
    const after = db.heldRead();
    assert.notEqual(after, before);
    assert.equal(db.getMeta('tip', after), 'b');
    await db.synced();
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
