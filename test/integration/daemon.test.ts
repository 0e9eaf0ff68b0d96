import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, removeDir, type Daemon } from '../helpers/daemon.js';

test('acnoded: the dev chain starts, mines on demand, survives a restart and a kill -9', async (t) => {
  let d: Daemon | undefined;
  t.after(async () => {
    await d?.stop();
    if (d) removeDir(d.datadir);
  });
  d = await startDaemon();
  const hashes = await d.rpc<string[]>('generate', 5);
  assert.equal(hashes.length, 5);
  assert.deepEqual(await d.rpc('getgenerate'), { staking: false, generate: false, numthreads: -1 });
  assert.equal(await d.rpc('stop'), 'ACDEV server stopping');
  await d.stop();

  await d.start();
  const more = await d.rpc<string[]>('generate', 2);
  assert.equal(more.length, 2);
  await d.crash();
  await d.start();
  const after = await d.rpc<string[]>('generate', 1);
  assert.equal(after.length, 1);
  // Wrong argument count: the usage text, code -1, HTTP 500.
  const bad = await d.rpcRaw('generate', []);
  assert.equal(bad.status, 500);
  assert.equal(bad.error?.code, -1);
  assert.match(bad.error!.message, /^generate numblocks\n/);
});
