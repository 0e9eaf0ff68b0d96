import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, removeDir, type Daemon } from '../helpers/daemon.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { toHex } from '../../src/chain/encoding/hex.js';
import { ccAddressOf } from '../../src/chain/cc/index.js';
import { EVAL_ASSETS, EVAL_TOKENS } from '../../src/chain/tokens/index.js';
import { fromHex } from '../../src/chain/encoding/hex.js';

/**
 * Issue 10: the token DEX over HTTP against a real daemon on the dev chain (the node key as -pubkey):
 * ask → partial fill → remainder listed → fill the rest → no orders; bid → partial and full fills;
 * cancels by the owner; komodod's result-object errors; a hand-tampered fill refused by
 * sendrawtransaction; orders after a restart.
 */

type R = Record<string, unknown>;

const ok = (r: R) => {
  assert.equal(r.result, 'success', JSON.stringify(r));
  return r;
};

test('assets over JSON-RPC: asks, bids, fills, cancels, errors, a tampered fill, restart', async (t) => {
  let d: Daemon | undefined;
  t.after(async () => {
    await d?.stop();
    if (d) removeDir(d.datadir);
  });
  d = await startDaemon();
  const node = d;
  const call = <T = R>(m: string, ...p: unknown[]) => node.rpc<T>(m, ...p);
  const mine = async () => (await call<string[]>('generate', 1))[0]!;
  const send = (hex: string) => call<string>('sendrawtransaction', hex);
  const mypk = await node.nodePubkey();
  const err = (error: string) => ({ result: 'error', error });

  await mine(); // the premine
  const duke = await send(ok(await call('tokencreate', 'DUKE', '1987.420', 'd')).hex as string);
  await mine();

  await t.test('assetsaddress and usage errors', async () => {
    const a = ok(await call('assetsaddress'));
    assert.deepEqual(Object.keys(a), ['result', 'AssetsCCAddress', 'AssetsCCBalance', 'AssetsNormalAddress', 'AssetsNormalBalance', 'AssetsCCTokensAddress', 'myCCAddress(Assets)', 'myCCbalance(Assets)', 'myaddress', 'mybalance']);
    assert.equal(a.AssetsCCAddress, 'RGKRjeTBw4LYFotSDLT6RWzMHbhXri6BG6');
    assert.equal(a.AssetsCCTokensAddress, 'RTWtxY7GTBZ3zL8jfzyWWz1fveF3KXKBF8');
    assert.equal(a['myCCAddress(Assets)'], ccAddressOf(EVAL_ASSETS, fromHex(mypk)));
    const withPk = ok(await call('assetsaddress', mypk));
    assert.ok('PubkeyCCaddress(Assets)' in withPk);
    assert.deepEqual((await node.rpcRaw('tokenask', ['1'])).error, { code: -1, message: 'tokenask numtokens tokenid price\n' });
    assert.deepEqual((await node.rpcRaw('tokenorders', ['deadbeef'])).error, { code: -1, message: 'incorrect tokenid\n' });
    assert.deepEqual(await call('tokenorders', duke), []);
    assert.deepEqual(await call('tokenorders'), []);
  });

  await t.test('invalid numtokens, price and fill values', async () => {
    for (const [n, p] of [['-1', '1'], ['0', '1'], ['1', '-1'], ['1', '0']]) {
      assert.deepEqual(await call('tokenask', n, duke, p), err('invalid parameter'), `ask ${n} ${p}`);
    }
    assert.deepEqual(await call('tokenask', '100', 'deadbeef', '7.77'), err('invalid parameter'));
    assert.deepEqual(await call('tokenbid', '1', duke, '-1'), err('price must be positive'));
    assert.deepEqual(await call('tokenbid', '1', 'deadbeef', '1'), err('invalid tokenid'));
    assert.deepEqual(await call('tokenbid', '0', duke, '1'), err('bid amount must be positive'));
    assert.deepEqual(await call('tokenbid', '-1', duke, '1'), err('bid amount must be positive'));
    assert.deepEqual(await call('tokenfillask', duke, duke, '0'), err('fillunits must be positive'));
    assert.deepEqual(await call('tokenfillask', duke, duke, '-777'), err('fillunits must be positive'));
    // komodod quirk: these have no "result" key
    assert.deepEqual(await call('tokenfillask', duke, 'deadbeef', '1'), { error: 'invalid parameter' });
    assert.deepEqual(await call('tokencancelask', duke, 'deadbeef'), { error: 'invalid parameter' });
    assert.deepEqual(await call('tokencancelbid', 'deadbeef', duke), { error: 'invalid parameter' });
    assert.deepEqual(await call('tokenfillbid', duke, duke, '0'), err('fillamount must be positive'));
    assert.deepEqual(await call('tokenfillbid', duke, 'deadbeef', '1'), err('must provide tokenid and bidtxid'));
    assert.deepEqual(await call('tokenconvert', '1', 'deadbeef', mypk, '1'), err('invalid tokenid'));
    assert.deepEqual(await call('tokenconvert', '1', duke, mypk, '0'), err('amount must be positive'));
    assert.deepEqual(await call('tokenconvert', '1', duke, mypk, '1'), err('deprecated'));
    assert.deepEqual((await node.rpcRaw('tokenconvert', ['1', duke, mypk])).error, { code: -1, message: 'tokenconvert evalcode tokenid pubkey amount\n' });
  });

  let ask = '';
  await t.test('ask: listed, partially filled, remainder listed with its price, filled, gone', async () => {
    ask = await send(ok(await call('tokenask', '100', duke, '7.77')).hex as string);
    await mine();
    const orders = await call<R[]>('tokenorders', duke);
    assert.deepEqual(orders, [
      {
        funcid: 's', txid: ask, vout: 0, amount: '100', askamount: '100',
        origaddress: ccAddressOf(EVAL_ASSETS, fromHex(mypk)), origtokenaddress: ccAddressOf(EVAL_TOKENS, fromHex(mypk)),
        tokenid: duke, totalrequired: '777.00000000', price: '7.77000000',
      },
    ]);
    assert.deepEqual(await call('mytokenorders'), orders);
    assert.deepEqual(await call('mytokenorders', '0xEE'), orders); // strtol(s, 0, 0): the (empty) {e3, f2, ee} address is added
    const fill1 = await send(ok(await call('tokenfillask', duke, ask, '40')).hex as string);
    await mine();
    const after = await call<R[]>('tokenorders', duke);
    assert.equal(after.length, 1);
    assert.deepEqual(after[0], { ...orders[0], funcid: 'S', txid: fill1, amount: '60', askamount: '60', totalrequired: '466.20000000', price: '7.77000000' });
    // 777 units asked: clamped to the 60 left
    await send(ok(await call('tokenfillask', duke, fill1, '777')).hex as string);
    await mine();
    assert.deepEqual(await call('tokenorders', duke), []);
  });

  await t.test('bid: partial and full fills', async () => {
    const bid = await send(ok(await call('tokenbid', '100', duke, '10')).hex as string);
    await mine();
    const orders = await call<R[]>('tokenorders', duke);
    assert.equal(orders.length, 1);
    assert.deepEqual(orders[0], {
      funcid: 'b', txid: bid, vout: 0, amount: '1000.00000000', bidamount: '1000.00000000',
      origaddress: ccAddressOf(EVAL_ASSETS, fromHex(mypk)), origtokenaddress: ccAddressOf(EVAL_TOKENS, fromHex(mypk)),
      tokenid: duke, totalrequired: 100, price: '10.00000000',
    });
    assert.deepEqual(await call('mytokenorders'), []); // bids are never listed there
    const fill1 = await send(ok(await call('tokenfillbid', duke, bid, '30')).hex as string);
    await mine();
    const after = await call<R[]>('tokenorders', duke);
    assert.deepEqual(after.map((o) => [o.funcid, o.txid, o.amount, o.totalrequired]), [['B', fill1, '700.00000000', 70]]);
    await send(ok(await call('tokenfillbid', duke, fill1, '1000')).hex as string);
    await mine();
    assert.deepEqual(await call('tokenorders', duke), []);
  });

  await t.test('cancels by the owner; a tampered fill is refused by sendrawtransaction', async () => {
    const a = await send(ok(await call('tokenask', '10', duke, '1')).hex as string);
    const b = await send(ok(await call('tokenbid', '10', duke, '1')).hex as string);
    await mine();
    assert.equal((await call<R[]>('tokenorders', duke)).length, 2);
    // a fill that pays the owner one satoshi less (outputs changed after signing: the signatures break
    // too, so the refusal comes from the script check either way) is refused
    const fillHex = ok(await call('tokenfillask', duke, a, '5')).hex as string;
    const tx = Transaction.fromHex(fillHex);
    tx.vout[2] = new TxOut(tx.vout[2]!.value - 1n, tx.vout[2]!.script);
    const refused = await node.rpcRaw('sendrawtransaction', [toHex(tx.toRaw())]);
    assert.ok(refused.error, 'tampered fill accepted');
    assert.equal(refused.error!.code, -26);
    await send(ok(await call('tokencancelask', duke, a)).hex as string);
    await send(ok(await call('tokencancelbid', duke, b)).hex as string);
    await mine();
    assert.deepEqual(await call('tokenorders', duke), []);
  });

  await t.test('orders survive a restart', async () => {
    const a = await send(ok(await call('tokenask', '10', duke, '2')).hex as string);
    await mine();
    await node.stop();
    await node.start();
    const orders = await call<R[]>('tokenorders');
    assert.deepEqual(orders.map((o) => [o.funcid, o.txid, o.totalrequired]), [['s', a, '20.00000000']]);
  });
});
