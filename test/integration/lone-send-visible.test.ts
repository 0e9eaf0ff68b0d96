import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Unspent, walletDaemon } from '../helpers/wallet-rpc.js';

/**
 * What komodod's AcceptToMemoryPool has done before sendrawtransaction answers (the mempool holds the
 * transaction, the wallet has synced it) must hold for the very next call on the connection, and for
 * the next call of the same JSON-RPC batch, however the mempool, wallet and p2p services order their
 * steps after the reply.
 */

interface WalletTx {
  txid: string;
  confirmations: number;
  amount: number;
}

test('the next call after a sendrawtransaction sees the transaction: mempool, wallet, coins', async (t) => {
  const d = await walletDaemon(t);
  await d.rpc('generate', 2);

  /** A signed, funded payment to a new wallet address: its hex, a coin it spends, the address. */
  const spend = async (amount: number) => {
    const to = await d.rpc<string>('getnewaddress');
    const raw = await d.rpc<string>('createrawtransaction', [], { [to]: amount });
    const funded = await d.rpc<{ hex: string }>('fundrawtransaction', raw);
    const signed = await d.rpc<{ hex: string; complete: boolean }>('signrawtransaction', funded.hex);
    assert.equal(signed.complete, true);
    const coin = (await d.rpc<{ vin: { txid: string; vout: number }[] }>('decoderawtransaction', signed.hex)).vin[0]!;
    return { hex: signed.hex, coin, to };
  };

  await t.test('call after call on one connection', async () => {
    // The first accept after a block asks the chain store for the new tip's view; the ones after it do not.
    for (const amount of [1.25, 1.5, 1.75]) {
      const { hex, coin, to } = await spend(amount);
      const txid = await d.rpc<string>('sendrawtransaction', hex);
      const wtx = await d.rpc<WalletTx>('gettransaction', txid);
      assert.equal(wtx.txid, txid);
      assert.equal(wtx.confirmations, 0);
      // (An earlier payment's change may sit at the same address: fundrawtransaction returns its change key to the pool, as komodod's.)
      const mine = await d.rpc<Unspent[]>('listunspent', 0, 9999999, [to]);
      assert.deepEqual(mine.filter((u) => u.txid === txid).map((u) => [u.amount, u.confirmations]), [[amount, 0]]);
      // The coin it spends is no longer the wallet's to spend.
      assert.ok(!(await d.rpc<Unspent[]>('listunspent', 0)).some((u) => u.txid === coin.txid && u.vout === coin.vout));
      assert.equal((await d.rpc<{ txid: string }>('getrawtransaction', txid, 1)).txid, txid);
      assert.ok((await d.rpc<string[]>('getrawmempool')).includes(txid));
    }
  });

  await t.test('the next call of the same batch', async () => {
    const { hex, to } = await spend(2.5);
    const [sent, wtx, mine] = await d.rpcBatch([
      ['sendrawtransaction', [hex]],
      ['gettransaction', []],
      ['listunspent', [0, 9999999, [to]]],
    ]);
    // gettransaction's txid is not known before the reply: asked with none, it fails with the usage
    // error; asked again below. The batch's listunspent, run after the send, already sees the output.
    assert.equal(sent!.error, null);
    const txid = sent!.result as string;
    assert.notEqual(wtx!.error, null);
    assert.deepEqual((mine!.result as Unspent[]).filter((u) => u.txid === txid).map((u) => u.amount), [2.5]);
    const [again] = await d.rpcBatch([['gettransaction', [txid]]]);
    assert.equal((again!.result as WalletTx).confirmations, 0);
  });
});
