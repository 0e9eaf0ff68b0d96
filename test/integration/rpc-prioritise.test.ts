import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, removeDir, RpcCallError, type Daemon } from '../helpers/daemon.js';

/**
 * prioritisetransaction over HTTP, and its effect on the miner's selection (CreateNewBlock's priority
 * heap): two free children of an unconfirmed parent have no priority and no fee; komodod takes the
 * first that ends the priority area and skips the next one (under the relay fee rate), unless a fee
 * delta lifted it.
 */

async function rpcError(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof RpcCallError) return { code: e.code, message: e.message };
    throw e;
  }
  assert.fail('expected an RPC error');
}

type Vout = { n: number; value: number; scriptPubKey: { addresses?: string[] } };

test('prioritisetransaction: the fee delta decides which free transaction the block template and the miner take', { timeout: 180_000 }, async (t) => {
  let d: Daemon | undefined;
  t.after(async () => {
    await d?.stop();
    if (d) removeDir(d.datadir);
  });
  d = await startDaemon();
  await d.rpc('generate', 2);

  // The parent: chain coins with confirmations (high priority); its two 1-coin outputs feed two
  // children paying no fee.
  const [a1, a2, dest] = [await d.rpc<string>('getnewaddress'), await d.rpc<string>('getnewaddress'), await d.rpc<string>('getnewaddress')];
  const parent = await d.rpc<string>('sendmany', '', { [a1]: 1, [a2]: 1 });
  const vout = (await d.rpc<{ vout: Vout[] }>('getrawtransaction', parent, 1)).vout;
  const child = async (addr: string) => {
    const n = vout.find((o) => o.scriptPubKey.addresses?.[0] === addr)!.n;
    const raw = await d!.rpc<string>('createrawtransaction', [{ txid: parent, vout: n }], { [dest]: 1 });
    const signed = await d!.rpc<{ hex: string }>('signrawtransaction', raw);
    return d!.rpc<string>('sendrawtransaction', signed.hex);
  };
  const first = await child(a1);
  const second = await child(a2);

  // The later one gets a fee delta: it is taken, the other (free, no delta) waits.
  assert.equal(await d.rpc('prioritisetransaction', second, 0.0, 10000), true);
  const tpl = await d.rpc<{ transactions: { hash: string; fee: number }[] }>('getblocktemplate');
  assert.deepEqual(tpl.transactions.map((x) => x.hash), [parent, second]);
  // The fee shown is the one paid, not the delta.
  assert.equal(tpl.transactions[1]!.fee, 0);

  const [hash] = await d.rpc<string[]>('generate', 1);
  const block = await d.rpc<{ tx: string[] }>('getblock', hash);
  assert.deepEqual(block.tx.slice(1), [parent, second]);
  assert.deepEqual(await d.rpc('getrawmempool'), [first]);

  // A txid the mempool has never seen is accepted (komodod keeps its delta for when it comes).
  assert.equal(await d.rpc('prioritisetransaction', '68ee9d23ba51e40112be3957dd15bc5c8fa9a751a411db63ad0c8205bec5e8a1', 0.0, 10000), true);

  // Errors as komodod's: the hash, then the fee delta (read first), then the priority delta.
  assert.deepEqual(await rpcError(d.rpc('prioritisetransaction', 'xyz', 0, 1)), { code: -1, message: "txid must be hexadecimal string (not 'xyz')" });
  assert.deepEqual(await rpcError(d.rpc('prioritisetransaction', 5, 0, 1)), { code: -1, message: 'JSON value is not a string as expected' });
  assert.deepEqual(await rpcError(d.rpc('prioritisetransaction', first, 'x', '1')), { code: -1, message: 'JSON value is not an integer as expected' });
  assert.deepEqual(await rpcError(d.rpc('prioritisetransaction', first, 'x', 1.5)), { code: -1, message: 'JSON integer out of range' });
  assert.deepEqual(await rpcError(d.rpc('prioritisetransaction', first, 'x', 1)), { code: -1, message: 'JSON value is not a number as expected' });
  const usage = await rpcError(d.rpc('prioritisetransaction', first, 0));
  assert.equal(usage.code, -1);
  assert.equal(usage.message.split('\n')[0], 'prioritisetransaction <txid> <priority delta> <fee delta>');
  assert.equal(await d.rpc('help', 'prioritisetransaction'), usage.message);
});
