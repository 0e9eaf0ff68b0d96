import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, removeDir, type Daemon, rpcError } from '../helpers/daemon.js';

/** checknotarization and getnotarypayinfo over HTTP: the burn address against the notary pay. */

const BURN = 'REDVp3ox1pbcWYCzySadfHhk8UU3HM4k5x';

test('checknotarization and getnotarypayinfo: komodod\'s refusal without ac_notarypay, its estimates with it', { timeout: 180_000 }, async (t) => {
  const ds: Daemon[] = [];
  t.after(async () => {
    for (const d of ds) await d.stop();
    for (const d of ds) removeDir(d.datadir);
  });
  const dev = await startDaemon();
  ds.push(dev);
  for (const m of ['checknotarization', 'getnotarypayinfo']) {
    assert.deepEqual(await rpcError(dev.rpc(m)), { code: -1, message: 'only works for ac_notarypay chains' }, m);
    assert.equal((await rpcError(dev.rpc(m, 1))).message.split('\n')[0], m);
  }

  // 0.064 coins of notary pay per notarisation: 0.001 for each of the season's 64 notaries.
  const d = await startDaemon(['-regtest', '-ac_name=UTILNP', '-ac_supply=1000', '-ac_reward=100000000', '-ac_notarypay=6400000', '-ac_sapling=1', '-addressindex=1', '-gen=0']);
  ds.push(d);
  await d.rpc('generate', 1);
  const empty = await d.rpc<Record<string, unknown>>('getnotarypayinfo');
  assert.deepEqual(Object.keys(empty), ['height', 'balance', 'spent', 'Total_NotaryPay', 'Estimated_Notarizations_Left', 'Estimated_Days_Left', 'Estimated_Height']);
  assert.deepEqual(empty, { height: 1, balance: 0, spent: false, Total_NotaryPay: 0, Estimated_Notarizations_Left: 0, Estimated_Days_Left: 0, Estimated_Height: 1 });
  // An empty burn address: the (zero) notary pay is not below its balance.
  assert.equal(await d.rpc('checknotarization'), false);

  await d.rpc('sendtoaddress', BURN, 100);
  await d.rpc('generate', 1);
  assert.equal(await d.rpc('checknotarization'), true);
  // 100 / 0.064 = 1562 notarisations, one per 5 blocks of 60 s: 5 days, up to height 2 + 1562 * 5.
  assert.deepEqual(await d.rpc('getnotarypayinfo'), {
    height: 2,
    balance: 100,
    spent: false,
    Total_NotaryPay: 0,
    Estimated_Notarizations_Left: 1562,
    Estimated_Days_Left: 5,
    Estimated_Height: 2 + 1562 * 5,
  });
});
