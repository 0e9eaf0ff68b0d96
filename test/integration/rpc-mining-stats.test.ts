import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, removeDir, type Daemon, rpcError } from '../helpers/daemon.js';

/** getblocksubsidy, getnetworksolps and getnetworkhashps over HTTP. */

type Header = { time: number; chainwork: string };

/** GetNetworkHashPS worked out here from the headers: work over the time span of the last `lookup` blocks. */
async function expectedSolPS(d: Daemon, lookup: number, height: number): Promise<number> {
  const at = async (h: number) => d.rpc<Header>('getblockheader', await d.rpc<string>('getblockhash', h));
  const top = await at(height);
  let min = top.time;
  let max = top.time;
  for (let h = height - 1; h >= height - lookup; h--) {
    const t = (await at(h)).time;
    min = Math.min(min, t);
    max = Math.max(max, t);
  }
  if (min === max) return 0;
  const work = BigInt('0x' + top.chainwork) - BigInt('0x' + (await at(height - lookup)).chainwork);
  return Math.trunc(Number(work) / (max - min));
}

test('getblocksubsidy and the network solution rate on the dev chain', { timeout: 180_000 }, async (t) => {
  let d: Daemon | undefined;
  t.after(async () => {
    await d?.stop();
    if (d) removeDir(d.datadir);
  });
  d = await startDaemon();
  assert.deepEqual(await d.rpc('getnetworksolps'), 0);
  // getlocalsolps: nothing solved yet, no rate.
  assert.equal(await d.rpc('getlocalsolps'), 0);
  await d.rpc('generate', 12);
  // Twelve blocks solved: at least one solution each was checked, in a measured time; the meter
  // stands still while nothing is mined, and getmininginfo reads the same meter. komodod ignores params.
  const solps = await d.rpc<number>('getlocalsolps');
  assert.ok(typeof solps === 'number' && solps > 0, `getlocalsolps ${solps}`);
  assert.equal((await d.rpc<{ localsolps: number }>('getmininginfo')).localsolps, solps);
  assert.equal(await d.rpc('getlocalsolps', 'ignored'), solps);
  const solpsHelp = await d.rpc<string>('help', 'getlocalsolps');
  assert.equal(solpsHelp.split('\n')[0], 'getlocalsolps');
  assert.match(solpsHelp, /\nxxx\.xxxxx     \(numeric\) Solutions per second average\n/);

  // The subsidy is what the coinbase of the block at that height pays (no fees in these blocks).
  const coinbaseValue = async (h: number) => {
    const block = await d!.rpc<{ tx: string[] }>('getblock', await d!.rpc<string>('getblockhash', h));
    const tx = await d!.rpc<{ vout: { value: number }[] }>('getrawtransaction', block.tx[0], 1);
    return tx.vout.reduce((s, o) => s + o.value, 0);
  };
  const tip = await d.rpc<Record<string, unknown>>('getblocksubsidy');
  assert.deepEqual(Object.keys(tip), ['miner']);
  assert.deepEqual(tip, { miner: await coinbaseValue(12) });
  assert.deepEqual(await d.rpc('getblocksubsidy', 1), { miner: await coinbaseValue(1) });
  assert.deepEqual(await d.rpc('getblocksubsidy', 5000), { miner: 1 });
  assert.deepEqual(await rpcError(d.rpc('getblocksubsidy', -1)), { code: -8, message: 'Block height out of range' });
  assert.deepEqual(await rpcError(d.rpc('getblocksubsidy', '1')), { code: -1, message: 'JSON value is not an integer as expected' });
  assert.equal((await rpcError(d.rpc('getblocksubsidy', 1, 2))).message.split('\n')[0], 'getblocksubsidy height');

  for (const [lookup, height] of [[120, 12], [5, 12], [3, 7]] as const) {
    const args = lookup === 120 ? [] : [lookup, height];
    const want = await expectedSolPS(d, Math.min(lookup, height), height);
    assert.equal(await d.rpc('getnetworksolps', ...args), want, `getnetworksolps ${args}`);
    assert.equal(await d.rpc('getnetworkhashps', ...args), want, `getnetworkhashps ${args}`);
  }
  assert.equal(await d.rpc('getnetworksolps'), (await d.rpc<{ networksolps: number }>('getmininginfo')).networksolps);
  assert.equal(await d.rpc('getnetworksolps', 5, 0), 0);
  assert.ok((await rpcError(d.rpc('getnetworkhashps', 1, 2, 3))).message.startsWith('getnetworkhashps ( blocks height )\n\nDEPRECATED'));
  assert.deepEqual(await rpcError(d.rpc('getnetworksolps', 'x')), { code: -1, message: 'JSON value is not an integer as expected' });
});

test('getblocksubsidy on an -ac_founders chain: the ac_pubkey commission every ac_founders blocks', { timeout: 120_000 }, async (t) => {
  let m: Daemon | undefined;
  t.after(async () => {
    await m?.stop();
    if (m) removeDir(m.datadir);
  });
  const pubkey = '02' + '79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
  m = await startDaemon(['-ac_name=UTILFND', '-ac_supply=1000', '-ac_reward=100000000', '-ac_founders=2', '-ac_perc=10000000', `-ac_pubkey=${pubkey}`, '-gen=0']);
  const even = await m.rpc<Record<string, unknown>>('getblocksubsidy', 4);
  assert.deepEqual(Object.keys(even), ['miner', 'ac_pubkey']);
  // 10% of 1 coin, times ac_founders (2) on the heights it divides, none on the others.
  assert.deepEqual(even, { miner: 1, ac_pubkey: 0.2 });
  assert.deepEqual(await m.rpc('getblocksubsidy', 5), { miner: 1, ac_pubkey: 0 });
  // No height: the tip's (genesis, height 0, which ac_founders divides).
  assert.deepEqual(await m.rpc('getblocksubsidy'), { miner: 1, ac_pubkey: 0.2 });
});
