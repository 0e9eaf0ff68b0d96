import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, removeDir, type Daemon } from '../helpers/daemon.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { fromHex, toHex, fromHexReversed } from '../../src/chain/encoding/hex.js';
import { decodeWIF } from '../../src/chain/address/wif.js';
import { assembleFillAsk, assetsMarkerScript, signAssetsTx } from '../../src/chain/assets/index.js';
import { p2pPort, until } from './p2p-testpeer.js';

/**
 * Issue 10, two nodes over P2P: node X (its key owns the token) asks and bids; node Y (another key)
 * fills both; Y cannot cancel X's ask ("couldnt cancel ask") and its cancel of X's bid is refused by
 * validation; a correctly signed fill that keeps the owner's marker is refused by sendrawtransaction;
 * a reorg puts a filled ask back in the order book.
 */

type R = Record<string, unknown>;
const ACT = { overwinter: 1, sapling: 1 };
/** What AcceptToMemoryPool answers when a CC eval fails (the eval's reason only reaches the log). */
const REFUSED = '16: mandatory-script-verify-flag-failed (Script evaluated without error but finished with a false/empty top stack element)';

const ok = (r: R) => {
  assert.equal(r.result, 'success', JSON.stringify(r));
  return r;
};

test('assets over two nodes: one asks and bids, the other fills; foreign cancels refused; reorg', async (t) => {
  const daemons: Daemon[] = [];
  t.after(async () => {
    for (const d of daemons) {
      await d.stop();
      removeDir(d.datadir);
    }
  });
  const x = await startDaemon();
  daemons.push(x);
  const y = await startDaemon(['-gen=0']);
  daemons.push(y);
  const mineX = async () => (await x.rpc<string[]>('generate', 1))[0]!;

  await mineX();
  const duke = await x.rpc<string>('sendrawtransaction', ok(await x.rpc<R>('tokencreate', 'DUKE', '1987.420', 'd')).hex);
  await mineX();
  // orders first: sendtoaddress sends its change to a new wallet address, away from the -pubkey's coins
  const ask = await x.rpc<string>('sendrawtransaction', ok(await x.rpc<R>('tokenask', '100', duke, '7.77')).hex);
  await mineX(); // the ask spends the only confirmed coin of the -pubkey; the bid needs its change
  const bid = await x.rpc<string>('sendrawtransaction', ok(await x.rpc<R>('tokenbid', '100', duke, '10')).hex);
  await mineX();
  const yAddr = (await y.rpc<R>('assetsaddress')) as R;
  const yPub = await y.nodePubkey();
  await x.rpc<string>('sendrawtransaction', ok(await x.rpc<R>('tokentransfer', duke, yPub, '500')).hex);
  await mineX();
  await x.rpc('sendtoaddress', yAddr.myaddress, 5000);
  await x.rpc('sendtoaddress', yAddr.myaddress, 100); // a second coin: one fill per confirmed coin
  await mineX();

  assert.equal(await y.rpc('addnode', `127.0.0.1:${p2pPort(x.log)}`, 'onetry'), null);
  const height = await x.rpc<number>('getblockcount');
  await until('Y synced', async () => (await y.rpc<number>('getblockcount')) === height);
  await until('Y indexed the orders', async () => (await y.rpc<R[]>('tokenorders', duke)).length === 2);

  await t.test("Y cannot cancel X's ask; its cancel of X's bid builds but is refused", async () => {
    assert.deepEqual(await y.rpc('tokencancelask', duke, ask), { result: 'error', error: 'couldnt cancel ask' });
    const cb = ok(await y.rpc<R>('tokencancelbid', duke, bid));
    const r = await y.rpcRaw('sendrawtransaction', [cb.hex]);
    assert.ok(r.error, 'a foreign cancel-bid was accepted');
    assert.deepEqual(r.error, { code: -26, message: REFUSED });
  });

  await t.test('a signed fill that keeps the marker for the filler is refused', async () => {
    const wif = await y.rpc<string>('dumpprivkey', yAddr.myaddress);
    const key = decodeWIF(wif)!.key;
    const askTx = Transaction.fromHex(await y.rpc<string>('getrawtransaction', ask));
    const unspent = await y.rpc<{ txid: string; vout: number; amount: number; scriptPubKey: string }[]>('listunspent');
    const coins = unspent.map((u) => ({ txid: fromHexReversed(u.txid), vout: u.vout, value: BigInt(Math.round(u.amount * 1e8)), script: fromHex(u.scriptPubKey) }));
    const nextHeight = (await y.rpc<number>('getblockcount')) + 1;
    const a = assembleFillAsk({ nextHeight, activation: ACT, pubkey: fromHex(yPub), tokenid: fromHexReversed(duke), askTx, fillunits: 10n, coins });
    assert.ok(a.ok, a.ok ? '' : a.error);
    a.value.tx.vout[3] = new TxOut(10000n, assetsMarkerScript(fromHex(yPub)));
    const s = signAssetsTx(a.value, { nextHeight, activation: ACT, privateKey: key });
    assert.ok(s.ok);
    const r = await y.rpcRaw('sendrawtransaction', [toHex(s.tx.toRaw())]);
    assert.ok(r.error, 'a fill keeping the marker was accepted');
    assert.deepEqual(r.error, { code: -26, message: REFUSED });
  });

  await t.test('Y fills the ask and the bid; X sees the book empty; a reorg brings the ask back', async () => {
    const f1 = await y.rpc<string>('sendrawtransaction', ok(await y.rpc<R>('tokenfillask', duke, ask, '100')).hex);
    const f2 = await y.rpc<string>('sendrawtransaction', ok(await y.rpc<R>('tokenfillbid', duke, bid, '100')).hex);
    await until('X has both fills', async () => (await x.rpc<string[]>('getrawmempool')).length === 2);
    assert.deepEqual((await x.rpc<string[]>('getrawmempool')).sort(), [f1, f2].sort());
    const blk = await mineX();
    await until('Y has the block', async () => (await y.rpc<string>('getbestblockhash')) === blk);
    assert.deepEqual(await x.rpc('tokenorders', duke), []);
    await until('Y book empty', async () => (await y.rpc<R[]>('tokenorders', duke)).length === 0);
    // the block with the fills disconnected: the confirmed book has both orders again
    await x.rpc('invalidateblock', blk);
    const back = await x.rpc<R[]>('tokenorders', duke);
    assert.deepEqual(back.map((o) => [o.funcid, o.txid]).sort(), [['b', bid], ['s', ask]].sort());
    await x.rpc('reconsiderblock', blk);
    assert.deepEqual(await x.rpc('tokenorders', duke), []);
  });
});
