import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Unspent, sats } from '../helpers/wallet-rpc.js';
import { foreignKey } from '../helpers/foreign-key.js';
import { removeDir, startDaemon } from '../helpers/daemon.js';

/**
 * CWalletTx::IsTrusted for an unconfirmed transaction: every input spends a spendable output of a
 * wallet transaction. A mempool transaction with one wallet input and one foreign input pays the
 * wallet an untrusted output: counted by getunconfirmedbalance, left out of getbalance's trusted sum,
 * and never taken by coin selection (AvailableCoins with fOnlyConfirmed), as komodod does.
 */

const coins = (s: bigint) => Number(s) / 1e8;

test('a mempool transaction with a foreign input is untrusted: unconfirmed balance, not spendable', async (t) => {
  const d = await startDaemon();
  t.after(async () => {
    await d.stop();
    removeDir(d.datadir);
  });
  await d.rpc('generate', 3);
  const f = foreignKey();
  const toForeign = await d.rpc<string>('sendtoaddress', f.address, 2);
  await d.rpc('generate', 1);
  const fOut = (await d.rpc<{ vout: { n: number; value: number }[] }>('getrawtransaction', toForeign, 1)).vout.find((o) => o.value === 2)!;

  // A trusted unconfirmed output first: change of a send from wallet coins only.
  await d.rpc('sendtoaddress', foreignKey().address, 1);
  assert.equal(await d.rpc('getunconfirmedbalance'), 0, 'the change of a send spending wallet coins only is trusted');
  await d.rpc('generate', 1);

  const ours = (await d.rpc<Unspent[]>('listunspent', 1)).find((u) => u.amount > 1)!;
  const to = await d.rpc<string>('getnewaddress');
  const paid = sats(ours.amount) + sats(2) - 100_000n;
  const raw = await d.rpc<string>('createrawtransaction', [{ txid: ours.txid, vout: ours.vout }, { txid: toForeign, vout: fOut.n }], { [to]: coins(paid) });
  const half = await d.rpc<{ hex: string; complete: boolean }>('signrawtransaction', raw);
  assert.equal(half.complete, false, 'the wallet signs only its own input');
  const full = await d.rpc<{ hex: string; complete: boolean }>('signrawtransaction', half.hex, [{ txid: toForeign, vout: fOut.n, scriptPubKey: f.script, amount: 2 }], [f.wif]);
  assert.equal(full.complete, true, 'the foreign key signs the other');
  const mixed = await d.rpc<string>('sendrawtransaction', full.hex);

  assert.equal(sats(await d.rpc<number>('getunconfirmedbalance')), paid, 'GetUnconfirmedBalance counts the untrusted output');
  assert.equal(sats((await d.rpc<{ unconfirmed_balance: number }>('getwalletinfo')).unconfirmed_balance), paid);
  const listed = (await d.rpc<Unspent[]>('listunspent', 0)).filter((u) => u.txid === mixed);
  assert.deepEqual(listed.map((u) => [u.confirmations, sats(u.amount)]), [[0, paid]], 'listunspent 0 lists it');

  // Coin selection never takes it: a send of everything trusted and spendable plus a little fails.
  const trusted = sats(await d.rpc<number>('getbalance', '*', 0)) - paid;
  const err = await d.rpcRaw('sendtoaddress', [foreignKey().address, coins(trusted + 1_000_000n)]);
  assert.equal(err.error?.code, -6, `the untrusted coin is not selected: ${JSON.stringify(err.error)}`);

  await d.rpc('generate', 1);
  assert.equal(await d.rpc('getunconfirmedbalance'), 0, 'confirmed, it is trusted');
});
