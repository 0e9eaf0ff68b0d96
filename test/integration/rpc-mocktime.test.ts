import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, removeDir, type Daemon, rpcError } from '../helpers/daemon.js';

/** setmocktime over HTTP: regtest only, and the miner's block times and the chain's time rules follow it. */

test('setmocktime moves the clock blocks are stamped and checked with; 0 goes back to the system time', { timeout: 120_000 }, async (t) => {
  const ds: Daemon[] = [];
  t.after(async () => {
    for (const d of ds) await d.stop();
    for (const d of ds) removeDir(d.datadir);
  });
  const d = await startDaemon();
  ds.push(d);
  const blockTime = async () => (await d.rpc<{ time: number }>('getblock', await d.rpc<string>('getbestblockhash'))).time;
  // Two hours ahead: past what the chain would accept from the system clock (at most 60 s ahead).
  const future = Math.floor(Date.now() / 1000) + 7200;
  // Set, then back to the system clock (0): the block is stamped with the system time.
  assert.equal(await d.rpc('setmocktime', future), null);
  assert.equal(await d.rpc('setmocktime', 0), null);
  await d.rpc('generate', 1);
  assert.ok((await blockTime()) < future - 3600);
  // The miner stamps the mock time and the chain store accepts it.
  await d.rpc('setmocktime', future);
  await d.rpc('generate', 1);
  assert.equal(await blockTime(), future);
  await d.rpc('setmocktime', future + 100);
  await d.rpc('generate', 1);
  assert.equal(await blockTime(), future + 100);
  assert.deepEqual(await rpcError(d.rpc('setmocktime', '5')), { code: -3, message: 'Expected type number, got string' });
  assert.equal((await rpcError(d.rpc('setmocktime'))).message.split('\n')[0], 'setmocktime timestamp');
  // Hidden from the list, as in komodod.
  assert.ok(!(await d.rpc<string>('help')).includes('setmocktime'));

  const m = await startDaemon(['-ac_name=UTILMOCK', '-ac_supply=1000', '-gen=0']);
  ds.push(m);
  assert.deepEqual(await rpcError(m.rpc('setmocktime', 5)), { code: -1, message: 'setmocktime for regression testing (-regtest mode) only' });
});
