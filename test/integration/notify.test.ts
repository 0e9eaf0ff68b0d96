import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { startDaemon, removeDir, type Daemon } from '../helpers/daemon.js';
import { waitUntil } from '../helpers/wait.js';

const until = (cond: () => boolean, ms = 30_000): Promise<void> => waitUntil('the condition', cond, ms, 50);

test('-blocknotify: a script sees every new tip hash once, in order; a failing one does not stall the node', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-notify-'));
  const out = join(dir, 'tips.txt');
  let d: Daemon | undefined;
  t.after(async () => {
    await d?.stop();
    if (d) removeDir(d.datadir);
    removeDir(dir);
  });
  d = await startDaemon(['-gen=0', `-blocknotify=echo %s >> ${out}`]);
  const hashes = await d.rpc<string[]>('generate', 3);
  await until(() => existsSync(out) && readFileSync(out, 'utf8').trim().split('\n').length >= 3);
  assert.deepEqual(readFileSync(out, 'utf8').trim().split('\n'), hashes);
  await d.stop();

  // A command that fails (and one that would hang) never blocks mining or RPC.
  await d.start();
  const d2 = await startDaemon(['-gen=0', '-blocknotify=sleep 30; false %s']);
  t.after(async () => {
    await d2.stop();
    removeDir(d2.datadir);
  });
  const more = await d2.rpc<string[]>('generate', 2);
  assert.equal(more.length, 2);
  assert.equal((await d2.rpc<string[]>('generate', 1)).length, 1);
});
