import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Daemon, startDaemon, removeDir } from '../helpers/daemon.js';

/**
 * Damaged data files: a kill -9 can only tear the last line nedb appended, which is dropped with a
 * log line; damage anywhere before it (not a crash's doing) makes the node refuse to start with a
 * message naming the file and line, never run on a misread chain. A newer schema is refused too.
 */

const loadedAt = (d: Daemon) => {
  const line = d.log.find((l) => / loaded at height \d+ \(/.test(l));
  const m = / loaded at height (\d+) \(([0-9a-f]{64})\)/.exec(line ?? '');
  return m ? { height: Number(m[1]), hash: m[2]! } : undefined;
};

test('data files: a torn last record is dropped, damage before it is refused, a newer schema is refused', async (t) => {
  const dirs: string[] = [];
  const daemons: Daemon[] = [];
  t.after(async () => {
    for (const d of daemons) await d.stop().catch(() => {});
    for (const dir of dirs) removeDir(dir);
  });
  const d = await startDaemon();
  daemons.push(d);
  dirs.push(d.datadir);
  const hashes = await d.rpc<string[]>('generate', 5);
  await d.stop();
  const tip = { height: 5, hash: hashes[4]! };

  /** A copy of the stopped node's data directory, damaged by `damage`, and the daemon's fate on it. */
  const variant = async (damage: (dir: string) => void): Promise<{ daemon?: Daemon; error?: string }> => {
    const dir = mkdtempSync(join(tmpdir(), 'acnode-damaged-'));
    dirs.push(dir);
    cpSync(d.datadir, dir, { recursive: true });
    damage(dir);
    const v = new Daemon(dir, ['-gen=0']);
    try {
      await v.start(30_000);
      daemons.push(v);
      return { daemon: v };
    } catch (e) {
      return { error: (e as Error).message };
    }
  };
  const lines = (dir: string, f: string) => readFileSync(join(dir, f), 'utf8').split('\n').filter((l) => l !== '');

  await t.test('a torn last line of blocks.db (killed mid-append) is dropped and logged; the chain is intact', async () => {
    const r = await variant((dir) => {
      const l = lines(dir, 'blocks.db')[0]!;
      appendFileSync(join(dir, 'blocks.db'), l.replace(/"_id":"[0-9a-f]{4}/, '"_id":"ffff').slice(0, l.length >> 1));
    });
    assert.ok(r.daemon, r.error);
    assert.deepEqual(loadedAt(r.daemon!), tip);
    assert.ok(r.daemon!.log.some((l) => /blocks\.db: dropped a torn last record/.test(l)), r.daemon!.log.join('\n'));
    assert.equal((await r.daemon!.rpc<string[]>('generate', 1)).length, 1);
    await r.daemon!.stop();
    // The torn line is gone for good: a second start is clean.
    await r.daemon!.start();
    assert.deepEqual(loadedAt(r.daemon!)?.height, 6);
    assert.ok(!r.daemon!.log.some((l) => /dropped a torn last record/.test(l)), r.daemon!.log.join('\n'));
    await r.daemon!.stop();
  });

  await t.test('a torn last line of chainstate.db (the newest tip record) falls back and takes the stored blocks up again', async () => {
    const r = await variant((dir) => {
      appendFileSync(join(dir, 'chainstate.db'), `{"_id":"tip","value":"${'ab'.repeat(20)}`);
    });
    assert.ok(r.daemon, r.error);
    assert.deepEqual(loadedAt(r.daemon!), tip);
    await r.daemon!.stop();
  });

  for (const [file, line] of [['blocks.db', 2], ['chainstate.db', 1], ['wallet.db', 1]] as const) {
    await t.test(`a record cut short inside ${file} (line ${line}) is refused with a message naming the file and line`, async () => {
      const r = await variant((dir) => {
        const ls = lines(dir, file);
        // wallet.db holds one key: a record after it makes line 1 an inner line.
        if (file === 'wallet.db') ls.push(ls[0]!.replace(/"_id":"[0-9a-f]{4}/, '"_id":"ffff'));
        ls[line - 1] = ls[line - 1]!.slice(0, ls[line - 1]!.length >> 1);
        writeFileSync(join(dir, file), ls.join('\n') + '\n');
      });
      assert.equal(r.daemon, undefined, 'the node must not start');
      assert.match(r.error!, new RegExp(`${file.replace('.', '\\.')} is damaged: record on line ${line} of \\d+ cannot be read`));
      assert.match(r.error!, /refusing to start rather than misread it/);
      assert.match(r.error!, /exited with 1/);
    });
  }

  await t.test('a block record whose bytes were altered is never taken for its block: refused, naming the damage', async () => {
    const r = await variant((dir) => {
      const ls = lines(dir, 'blocks.db');
      // Change one base64 character in the middle of the tip block's header bytes (still valid JSON and base64).
      const i = ls.findIndex((l) => l.includes(tip.hash));
      const at = ls[i]!.indexOf('"raw":"') + 7 + 40;
      const c = ls[i]![at] === 'A' ? 'B' : 'A';
      ls[i] = ls[i]!.slice(0, at) + c + ls[i]!.slice(at + 1);
      writeFileSync(join(dir, 'blocks.db'), ls.join('\n') + '\n');
    });
    assert.equal(r.daemon, undefined, 'the node must not start');
    assert.match(r.error!, new RegExp(`skipping damaged stored block ${tip.hash}`));
    assert.match(r.error!, new RegExp(`chain tip ${tip.hash} is not among the stored blocks: the data directory is damaged`));
  });

  await t.test('a data directory written by a newer schema is refused', async () => {
    const r = await variant((dir) => {
      appendFileSync(join(dir, 'chainstate.db'), '{"_id":"schema","version":2}\n');
    });
    assert.equal(r.daemon, undefined, 'the node must not start');
    assert.match(r.error!, /chain data schema 2 is newer than this acnode understands \(1\): upgrade acnode/);
    assert.match(r.error!, /exited with 1/);
  });
});
