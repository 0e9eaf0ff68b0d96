import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, removeDir, RpcCallError, type Daemon } from '../helpers/daemon.js';

async function rpcError(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof RpcCallError) return { code: e.code, message: e.message };
    throw e;
  }
  assert.fail('expected an RPC error');
}

let d: Daemon;

test('getchaintxstats: komodod\'s window over the active chain (nChainTx, median times), defaults and errors', { timeout: 180_000 }, async (t) => {
  t.after(async () => {
    await d?.stop();
    if (d) removeDir(d.datadir);
  });
  d = await startDaemon();
  const times: number[] = [];
  const counts: number[] = [];
  const hashes: string[] = [];
  for (let h = 1; h <= 6; h++) {
    if (h % 2 === 0) await d.rpc('sendtoaddress', await d.rpc<string>('getnewaddress'), 1);
    await d.rpc('generate', 1);
    // komodod's regtest blocks may share a second: the clock moves on between them here
    await new Promise((r) => setTimeout(r, h === 3 ? 1100 : 10));
  }
  for (let h = 0; h <= 6; h++) {
    const hash = await d.rpc<string>('getblockhash', h);
    const b = await d.rpc<{ time: number; tx: string[] }>('getblock', hash);
    hashes.push(hash);
    times.push(b.time);
    counts.push(b.tx.length);
  }
  const chainTx = (h: number) => counts.slice(0, h + 1).reduce((a, b) => a + b, 0);
  const mtp = (h: number) => {
    const w = times.slice(Math.max(0, h - 10), h + 1).sort((a, b) => a - b);
    return w[Math.floor(w.length / 2)]!;
  };
  const expected = (h: number, n: number) => {
    const o: Record<string, unknown> = { time: times[h], txcount: chainTx(h), window_final_block_hash: hashes[h], window_block_count: n };
    if (n > 0) {
      o.window_tx_count = chainTx(h) - chainTx(h - n);
      o.window_interval = mtp(h) - mtp(h - n);
      // komodod's UniValue prints a double with 16 significant digits (setprecision(16)).
      if ((o.window_interval as number) > 0) o.txrate = Number(((o.window_tx_count as number) / (o.window_interval as number)).toPrecision(16));
    }
    return o;
  };
  // default: a month of blocks, capped at height - 1
  const got = await d.rpc<Record<string, unknown>>('getchaintxstats');
  assert.deepEqual(got, expected(6, 5));
  assert.deepEqual(Object.keys(got).slice(0, 6), ['time', 'txcount', 'window_final_block_hash', 'window_block_count', 'window_tx_count', 'window_interval']);
  assert.ok('txrate' in got);
  assert.deepEqual(await d.rpc('getchaintxstats', 2, hashes[4]), expected(4, 2));
  assert.deepEqual(await d.rpc('getchaintxstats', 0), expected(6, 0));
  assert.deepEqual(await d.rpc('getchaintxstats', null, hashes[3]), expected(3, 2));

  const range = { code: -8, message: "Invalid block count: should be between 0 and the block's height - 1" };
  assert.deepEqual(await rpcError(d.rpc('getchaintxstats', 6)), range);
  assert.deepEqual(await rpcError(d.rpc('getchaintxstats', -1)), range);
  assert.deepEqual(await rpcError(d.rpc('getchaintxstats', 1, '11'.repeat(32))), { code: -5, message: 'Block not found' });
  await d.rpc('invalidateblock', hashes[6]);
  assert.deepEqual(await rpcError(d.rpc('getchaintxstats', 1, hashes[6])), { code: -8, message: 'Block is not in main chain' });
  assert.deepEqual(await d.rpc('getchaintxstats'), expected(5, 4));

  const e = await rpcError(d.rpc('getchaintxstats', 1, hashes[1], 3));
  assert.equal(e.code, -1);
  assert.equal(e.message, await d.rpc<string>('help', 'getchaintxstats'));
  assert.ok(e.message.startsWith('getchaintxstats\n\nCompute statistics about the total number and rate of transactions in the chain.\n'));
});
