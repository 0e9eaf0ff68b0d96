import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Unspent, walletDaemon } from '../helpers/wallet-rpc.js';
import { rpcError } from '../helpers/daemon.js';

/**
 * lockunspent / listlockunspent / settxfee over HTTP: komodod's results, key order, errors and help;
 * locked coins left out of listunspent, fundrawtransaction, sendtoaddress and the token builders'
 * normal inputs; the locks gone after a restart; payTxFee used by the wallet's fee from then on.
 */

type R = Record<string, unknown>;

test('lockunspent, listlockunspent and settxfee as komodod answers them', async (t) => {
  const node = await walletDaemon(t);
  const err = (m: string, ...p: unknown[]) => rpcError(node.rpc(m, ...p));
  const outs = (list: { txid: string; vout: number }[]) => list.map((u) => ({ txid: u.txid, vout: u.vout }));

  await node.rpc('generate', 3);
  const coins = await node.rpc<Unspent[]>('listunspent');
  assert.ok(coins.length >= 2, 'the wallet has coins to lock');

  await t.test('usage, type and parameter errors', async () => {
    const usage = await err('lockunspent');
    assert.equal(usage.code, -1);
    assert.ok(usage.message.startsWith('lockunspent unlock [{"txid":"txid","vout":n},...]\n\nUpdates list of temporarily unspendable outputs.\n'));
    assert.ok(usage.message.includes('when spending ACDEV.\nLocks are stored in memory only.'));
    assert.equal((await err('lockunspent', true, [], 1)).code, -1);
    const list = await err('listlockunspent', 1);
    assert.equal(list.code, -1);
    assert.ok(list.message.startsWith('listlockunspent\n\nReturns list of temporarily unspendable outputs.\n'));
    assert.ok(list.message.endsWith('"method": "listlockunspent", "params": [] }\' -H \'content-type: text/plain;\' http://127.0.0.1:' + list.message.split('http://127.0.0.1:')[1]));
    assert.deepEqual(await err('lockunspent', 'x'), { code: -3, message: 'Expected type bool, got string' });
    assert.deepEqual(await err('lockunspent', false, null), { code: -3, message: 'Expected type array, got null' });
    assert.deepEqual(await err('lockunspent', false, {}), { code: -3, message: 'Expected type array, got object' });
    assert.deepEqual(await err('lockunspent', false, [1]), { code: -8, message: 'Invalid parameter, expected object' });
    assert.deepEqual(await err('lockunspent', false, [{}]), { code: -3, message: 'Missing txid' });
    assert.deepEqual(await err('lockunspent', false, [{ txid: 'ab' }]), { code: -3, message: 'Missing vout' });
    assert.deepEqual(await err('lockunspent', false, [{ txid: 1, vout: 0 }]), { code: -3, message: 'Expected type string for txid, got number' });
    assert.deepEqual(await err('lockunspent', false, [{ txid: 'ab', vout: '0' }]), { code: -3, message: 'Expected type number for vout, got string' });
    assert.deepEqual(await err('lockunspent', false, [{ txid: 'zz', vout: 0 }]), { code: -8, message: 'Invalid parameter, expected hex txid' });
    assert.deepEqual(await err('lockunspent', false, [{ txid: 'abc', vout: 0 }]), { code: -8, message: 'Invalid parameter, expected hex txid' });
    assert.deepEqual(await err('lockunspent', false, [{ txid: 'ab', vout: -1 }]), { code: -8, message: 'Invalid parameter, vout must be positive' });
    assert.deepEqual(await err('lockunspent', false, [{ txid: 'ab', vout: 1.5 }]), { code: -1, message: 'JSON integer out of range' });
    assert.deepEqual(await node.rpc('listlockunspent'), [], 'nothing locked by the failed calls');
    // komodod locks each entry as it reads it: the ones before a bad entry stay locked.
    assert.deepEqual(await err('lockunspent', false, [{ txid: 'ab', vout: 3 }, 7]), { code: -8, message: 'Invalid parameter, expected object' });
    assert.deepEqual(await node.rpc('listlockunspent'), [{ txid: '0'.repeat(62) + 'ab', vout: 3 }]);
    assert.equal(await node.rpc('lockunspent', true), true);
    assert.deepEqual(await node.rpc('listlockunspent'), []);
  });

  await t.test('listlockunspent in std::set<COutPoint> order, txids as uint256S reads them', async () => {
    const a = 'ff' + '00'.repeat(30) + '01'; // internal bytes start 01
    const b = '00'.repeat(31) + '02'; // internal bytes start 02
    assert.equal(await node.rpc('lockunspent', false, [{ txid: b, vout: 0 }, { txid: a, vout: 2 }, { txid: a.toUpperCase(), vout: 1 }, { txid: '01' + b, vout: 5 }]), true);
    const got = await node.rpc<R[]>('listlockunspent');
    assert.deepEqual(got, [{ txid: a, vout: 1 }, { txid: a, vout: 2 }, { txid: b, vout: 0 }, { txid: b, vout: 5 }]);
    assert.deepEqual(Object.keys(got[0]!), ['txid', 'vout']);
    // Unlocking one, then lockunspent false alone changes nothing, true alone unlocks everything.
    assert.equal(await node.rpc('lockunspent', true, [{ txid: a, vout: 2 }]), true);
    assert.equal(await node.rpc('lockunspent', false), true);
    assert.equal((await node.rpc<R[]>('listlockunspent')).length, 3);
    assert.equal(await node.rpc('lockunspent', true), true);
    assert.deepEqual(await node.rpc('listlockunspent'), []);
  });

  await t.test('locked coins are left out of listunspent, fundrawtransaction, sendtoaddress and the token builders', async () => {
    const balance = await node.rpc<number>('getbalance');
    assert.equal(await node.rpc('lockunspent', false, outs(coins)), true);
    assert.deepEqual(await node.rpc('listunspent'), []);
    // GetBalance does not look at locks.
    assert.equal(await node.rpc<number>('getbalance'), balance);
    const addr = await node.rpc<string>('getnewaddress');
    const raw = await node.rpc<string>('createrawtransaction', [], { [addr]: 1 });
    assert.deepEqual(await err('fundrawtransaction', raw), { code: -32603, message: 'Insufficient funds' });
    assert.deepEqual(await err('sendtoaddress', addr, 1), { code: -4, message: 'Insufficient funds' });
    const created = await node.rpc<R>('tokencreate', 'LOCKED', '1');
    assert.equal(created.result, 'error', JSON.stringify(created));

    // One coin unlocked: everything spends that one.
    const free = coins.reduce((a, b) => (b.amount > a.amount ? b : a));
    assert.equal(await node.rpc('lockunspent', true, [{ txid: free.txid, vout: free.vout }]), true);
    assert.deepEqual(outs(await node.rpc<Unspent[]>('listunspent')), [{ txid: free.txid, vout: free.vout }]);
    const funded = await node.rpc<{ hex: string }>('fundrawtransaction', raw);
    const vin = (await node.rpc<{ vin: { txid: string; vout: number }[] }>('decoderawtransaction', funded.hex)).vin;
    assert.deepEqual(outs(vin), [{ txid: free.txid, vout: free.vout }]);
    const token = await node.rpc<R>('tokencreate', 'FREE', '1');
    assert.equal(token.result, 'success', JSON.stringify(token));
    const tokenVin = (await node.rpc<{ vin: { txid: string; vout: number }[] }>('decoderawtransaction', token.hex)).vin;
    assert.deepEqual(outs(tokenVin), [{ txid: free.txid, vout: free.vout }]);
    const txid = await node.rpc<string>('sendtoaddress', addr, 1);
    const sent = await node.rpc<{ vin: { txid: string; vout: number }[] }>('getrawtransaction', txid, 1);
    assert.deepEqual(outs(sent.vin), [{ txid: free.txid, vout: free.vout }]);
    // The locked ones still are.
    assert.equal((await node.rpc<R[]>('listlockunspent')).length, coins.length - 1);
  });

  await t.test('settxfee: payTxFee in getwalletinfo, getinfo and the fee of the next send', async () => {
    assert.equal(await node.rpc('lockunspent', true), true);
    const usage = await err('settxfee');
    assert.equal(usage.code, -1);
    assert.ok(usage.message.startsWith('settxfee amount\n\nSet the transaction fee per kB.\n\nArguments:\n1. amount         (numeric, required) The transaction fee in ACDEV/kB rounded to the nearest 0.00000001\n'));
    assert.deepEqual(await err('settxfee', -1), { code: -3, message: 'Amount out of range' });
    assert.deepEqual(await err('settxfee', 'abc'), { code: -3, message: 'Invalid amount' });
    assert.deepEqual(await err('settxfee', true), { code: -3, message: 'Amount is not a number or string' });
    const feeOf = async (txid: string) => (await node.rpc<{ fee: number }>('gettransaction', txid)).fee;
    const addr = await node.rpc<string>('getnewaddress');
    assert.equal(await feeOf(await node.rpc<string>('sendtoaddress', addr, 1)), -0.00005);
    assert.equal(await node.rpc('settxfee', 0.001), true);
    assert.equal((await node.rpc<R>('getwalletinfo')).paytxfee, 0.001);
    assert.equal((await node.rpc<R>('getinfo')).paytxfee, 0.001);
    // Under 1 kB: fPayAtLeastCustomFee raises the fee to the whole per-kB rate.
    assert.equal(await feeOf(await node.rpc<string>('sendtoaddress', addr, 1)), -0.001);
    // maxTxFee (0.1) still caps it; such a fee is absurd to the mempool (over 10000 × the relay fee),
    // so komodod's CommitTransaction (fRejectAbsurdFee) refuses the send.
    assert.equal(await node.rpc('settxfee', '5'), true);
    const raw = await node.rpc<string>('createrawtransaction', [], { [addr]: 1 });
    assert.equal((await node.rpc<{ fee: number }>('fundrawtransaction', raw)).fee, 0.1);
    assert.deepEqual(await err('sendtoaddress', addr, 1), {
      code: -4,
      message: 'Error: The transaction was rejected! This might happen if some of the coins in your wallet were already spent, such as if you used a copy of wallet.dat and coins were spent in the copy but not marked as spent here.',
    });
    assert.equal(await node.rpc('settxfee', 0), true);
    assert.equal((await node.rpc<R>('getwalletinfo')).paytxfee, 0);
    assert.equal(await feeOf(await node.rpc<string>('sendtoaddress', addr, 1)), -0.00005);
  });

  await t.test('locks and payTxFee are in memory only: gone after a restart', async () => {
    await node.rpc('generate', 1);
    const left = await node.rpc<Unspent[]>('listunspent');
    assert.equal(await node.rpc('lockunspent', false, outs(left)), true);
    assert.equal(await node.rpc('settxfee', 0.002), true);
    await node.stop();
    await node.start();
    assert.deepEqual(await node.rpc('listlockunspent'), []);
    const key = (u: { txid: string; vout: number }) => `${u.txid}:${u.vout}`;
    assert.deepEqual((await node.rpc<Unspent[]>('listunspent')).map(key).sort(), left.map(key).sort());
    assert.equal((await node.rpc<R>('getwalletinfo')).paytxfee, 0);
  });
});
