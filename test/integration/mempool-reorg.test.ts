import { test } from 'node:test';
import assert from 'node:assert/strict';
import { removeDir, startDaemon, type Daemon } from '../helpers/daemon.js';

/**
 * The mempool across invalidateblock (komodod's DisconnectTip and removeForReorg): a disconnected
 * block's coinbase takes the mempool transactions spending it along (mempool.remove(coinbase, true)),
 * its other transactions come back when still valid or take their descendants along, and a
 * transaction whose coinbase input became immature stays (removeForReorg drops it only on a
 * time-locked chain) while the miner leaves it out (CreateNewBlock's ContextualCheckInputs). After
 * each reorg `generate` mines, and getrawmempool never lists a transaction whose input is gone.
 */

interface RawTx {
  txid: string;
  locktime: number;
  vin: { txid?: string; vout?: number; sequence: number }[];
  vout: { n: number; value: number }[];
}

/**
 * Whether a wallet send is final again at the tip `height` after a reorg (removeForReorg's CheckFinalTx).
 * komodod's CreateTransaction locks it to the tip's median time past with sequence 0xfffffffe, final
 * (after its hardfork) while that lock time is not after the new tip's median time past: the blocks'
 * timestamps decide, and `generate` crossing a second boundary moves the median.
 */
async function sendFinalAt(d: Daemon, tx: RawTx, height: number): Promise<boolean> {
  assert.ok(tx.locktime >= 500_000_000 && tx.vin.every((i) => i.sequence === 0xfffffffe), `a wallet send is time-locked with sequence 0xfffffffe: ${JSON.stringify(tx)}`);
  const times: number[] = [];
  for (let h = Math.max(0, height - 10); h <= height; h++) times.push((await d.rpc<{ time: number }>('getblock', await d.rpc<string>('getblockhash', h))).time);
  times.sort((x, y) => x - y);
  return tx.locktime <= times[Math.floor(times.length / 2)]!;
}

/** The coinbase txid of the block at `height`. */
async function coinbaseAt(d: Daemon, height: number): Promise<string> {
  const hash = await d.rpc<string>('getblockhash', height);
  return (await d.rpc<{ tx: string[] }>('getblock', hash)).tx[0]!;
}

/**
 * A spend of `txid:vout` (a wallet coin) to a new wallet address, signed and sent; its txid. With
 * `lockTime`, its input has sequence 0: final only at heights above the lock time.
 */
async function spend(d: Daemon, txid: string, vout: number, lockTime?: number): Promise<string> {
  const out = await d.rpc<{ value: number } | null>('gettxout', txid, vout, true);
  assert.ok(out, `${txid}:${vout} is unspent`);
  const to = await d.rpc<string>('getnewaddress');
  const input = lockTime === undefined ? { txid, vout } : { txid, vout, sequence: 0 };
  const raw = await d.rpc<string>('createrawtransaction', [input], { [to]: Number((out.value - 0.0001).toFixed(8)) }, ...(lockTime === undefined ? [] : [lockTime]));
  const signed = await d.rpc<{ hex: string; complete: boolean }>('signrawtransaction', raw);
  assert.ok(signed.complete);
  return d.rpc<string>('sendrawtransaction', signed.hex);
}

const sorted = (xs: string[]) => [...xs].sort();

/** Every input of every mempool transaction is an unspent chain output or an output of another one. */
async function assertInputsExist(d: Daemon): Promise<void> {
  const pool = new Set(await d.rpc<string[]>('getrawmempool'));
  for (const txid of pool) {
    const tx = await d.rpc<RawTx>('getrawtransaction', txid, 1);
    for (const i of tx.vin) {
      if (pool.has(i.txid!)) continue;
      const coin = await d.rpc<unknown>('gettxout', i.txid, i.vout, false);
      assert.ok(coin, `mempool transaction ${txid} spends ${i.txid}:${i.vout}, which does not exist`);
    }
  }
}

/** generate 1 succeeds; the block's transactions (coinbase left out). */
async function mineOne(d: Daemon): Promise<string[]> {
  const [hash] = await d.rpc<string[]>('generate', 1);
  return (await d.rpc<{ tx: string[] }>('getblock', hash)).tx.slice(1);
}

test('invalidateblock of two blocks: disconnected coinbases and failed transactions take their spenders along', { timeout: 180_000 }, async (t) => {
  const d = await startDaemon(['-gen=0']);
  t.after(async () => {
    await d.stop();
    removeDir(d.datadir);
  });
  // The dev chain (-regtest): coinbase maturity 1.
  await d.rpc('generate', 5);
  // Block 6 holds `a` (spends coinbase 4, valid again after the reorg) and `a2` (spends coinbase 5,
  // which the reorg disconnects).
  const a = await spend(d, await coinbaseAt(d, 4), 0);
  const a2 = await spend(d, await coinbaseAt(d, 5), 0);
  assert.deepEqual(sorted(await mineOne(d)), sorted([a, a2]));
  const block5 = await d.rpc<string>('getblockhash', 5);
  // In the mempool: children of both, a spend of coinbase 6 and its child, a spend of coinbase 3,
  // and a wallet send.
  const c = await spend(d, a, 0);
  const c2 = await spend(d, a2, 0);
  const b = await spend(d, await coinbaseAt(d, 6), 0);
  const e = await spend(d, b, 0);
  const keep = await spend(d, await coinbaseAt(d, 3), 0);
  const send = await d.rpc<string>('sendtoaddress', await d.rpc<string>('getnewaddress'), 1.5);
  const sendTx = await d.rpc<RawTx>('getrawtransaction', send, 1);
  const gone = new Set([await coinbaseAt(d, 5), await coinbaseAt(d, 6), a2, c2, b, e]);
  const inputsStay = sendTx.vin.every((i) => !gone.has(i.txid!));

  await d.rpc('invalidateblock', block5);
  assert.equal(await d.rpc<number>('getblockcount'), 4);
  const sendStays = inputsStay && (await sendFinalAt(d, sendTx, 4));
  // komodod: a comes back (coinbase 4 is still there), so c stays; a2 fails (coinbase 5 is gone) and
  // c2 goes with it; coinbase 6's removal takes b and then e.
  const expected = sorted([a, c, keep, ...(sendStays ? [send] : [])]);
  assert.deepEqual(sorted(await d.rpc<string[]>('getrawmempool')), expected);
  await assertInputsExist(d);

  assert.deepEqual(sorted(await mineOne(d)), expected);
  assert.deepEqual(await d.rpc<string[]>('getrawmempool'), []);
  await d.rpc('generate', 1);
  assert.equal(await d.rpc<number>('getblockcount'), 6);
});

test('invalidateblock of one block with a spend of its coinbase waiting: the spend leaves', { timeout: 120_000 }, async (t) => {
  const d = await startDaemon(['-gen=0']);
  t.after(async () => {
    await d.stop();
    removeDir(d.datadir);
  });
  await d.rpc('generate', 3);
  const tip = await d.rpc<string>('getbestblockhash');
  const b = await spend(d, await coinbaseAt(d, 3), 0);
  const e = await spend(d, b, 0);
  const keep = await spend(d, await coinbaseAt(d, 2), 0);
  // Final for block 4 (lock time 3 < 4), not for block 3: removeForReorg's CheckFinalTx takes it and its child.
  const locked = await spend(d, await coinbaseAt(d, 1), 0, 3);
  const lockedChild = await spend(d, locked, 0);
  const send = await d.rpc<string>('sendtoaddress', await d.rpc<string>('getnewaddress'), 2);
  const sendTx = await d.rpc<RawTx>('getrawtransaction', send, 1);
  const gone = new Set([await coinbaseAt(d, 3), b, e, locked, lockedChild]);
  const inputsStay = sendTx.vin.every((i) => !gone.has(i.txid!));
  const before = await d.rpc<string[]>('getrawmempool');
  assert.ok(before.includes(e) && before.includes(lockedChild), 'the spend and the locked child wait in the mempool');

  await d.rpc('invalidateblock', tip);
  const sendStays = inputsStay && (await sendFinalAt(d, sendTx, 2));
  const expected = sorted([keep, ...(sendStays ? [send] : [])]);
  assert.deepEqual(sorted(await d.rpc<string[]>('getrawmempool')), expected);
  await assertInputsExist(d);
  assert.deepEqual(sorted(await mineOne(d)), expected);
  assert.deepEqual(await d.rpc<string[]>('getrawmempool'), []);
});

test('-ac_cbmaturity=2: a spend whose coinbase became immature stays in the mempool and is mined once mature', { timeout: 120_000 }, async (t) => {
  const d = await startDaemon(['-regtest', '-ac_name=REORGMAT', '-ac_supply=1000', '-ac_reward=100000000', '-ac_cbmaturity=2', '-gen=0']);
  t.after(async () => {
    await d.stop();
    removeDir(d.datadir);
  });
  await d.rpc('generate', 4);
  // Coinbase 3 is mature for block 5 (depth 2) but not for block 4 (depth 1).
  const b = await spend(d, await coinbaseAt(d, 3), 0);
  const e = await spend(d, b, 0);
  const keep = await spend(d, await coinbaseAt(d, 1), 0);
  await d.rpc('invalidateblock', await d.rpc<string>('getblockhash', 4));
  assert.equal(await d.rpc<number>('getblockcount'), 3);
  // removeForReorg drops an immature coinbase spend only when the coinbase is time-locked
  // (-ac_timelockgte), so komodod keeps b and its child.
  assert.deepEqual(sorted(await d.rpc<string[]>('getrawmempool')), sorted([b, e, keep]));
  await assertInputsExist(d);
  // The miner leaves out b (immature input) and e (its parent is not in the block).
  assert.deepEqual(await mineOne(d), [keep]);
  assert.deepEqual(sorted(await d.rpc<string[]>('getrawmempool')), sorted([b, e]));
  assert.deepEqual(sorted(await mineOne(d)), sorted([b, e]));
  assert.deepEqual(await d.rpc<string[]>('getrawmempool'), []);
});
