import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { hash160, sha256 } from '../../src/chain/crypto/hash.js';
import { p2pkhScript } from '../../src/chain/script/script.js';
import { KeyStore } from '../../src/actors/wallet/keystore.js';
import type { TxDetail } from '../../src/actors/wallet/logic.js';
import { compareTxids } from '../../src/actors/wallet/rebroadcast.js';
import { prng } from '../helpers/prng.js';
import { WalletModel, outsideTxid, saplingTx } from '../helpers/wallet-model.js';

/**
 * listsinceblock's candidates (the wallet's index of its transactions by block height, and the set in
 * no block) against the same set computed over every wallet transaction from a model of the chain,
 * after each of a few hundred random blocks connected, blocks disconnected (reorgs), transactions
 * entering and leaving the mempool, and again after a reload (the heights read from the chain). The
 * candidates must be exactly that set: a transaction missing is a wrong answer, one too many a cost
 * that grows with the wallet.
 */

const other = p2pkhScript(hash160(sha256(Uint8Array.of(1))));

test('wallet: the transactions after a height and the unconfirmed ones, across reorgs, the mempool and a reload', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-wallet-since-'));
  try {
    const rand = prng(28_5);
    const r = (n: number) => Math.floor(rand() * n);
    const keys = await KeyStore.open(dir);
    const mine = p2pkhScript(hash160((await keys.nodeKey()).pubkey));
    let serial = 0;
    /** A transaction paying the wallet (or, now and then, spending a wallet transaction's output to someone else). */
    const make = (spend?: Transaction): Transaction => {
      const t = saplingTx();
      const prev = spend ? spend.hash() : outsideTxid(serial, 42);
      serial++;
      t.vin.push(new TxIn(new Outpoint(prev, 0)));
      t.vout.push(new TxOut(1000n + BigInt(serial), spend ? other : mine));
      return t;
    };
    const m = new WalletModel({
      dir,
      keys,
      r,
      make,
      pays: (t) => t.vout[0]!.script === mine,
      // Any paying transaction (spent already or not), one new block transaction in four.
      spendFor: (paying) => (paying.length > 0 && r(4) === 0 ? paying[r(paying.length)] : undefined),
      mempoolOnLoad: 'none',
    });
    const { known } = m;
    let wallet = await m.open();

    const check = (step: string) => {
      const knownIds = known.map((t) => t.txid());
      const tip = m.height;
      for (let s = 0; s <= tip + 1; s++) {
        const got = (wallet.read({ op: 'sinceHeight', height: s }) as TxDetail[]).map((d) => d.txid);
        // The brute force: every wallet transaction, kept when its block is above s or it is in none.
        const want = knownIds
          .filter((txid) => {
            const h = m.heightOf(txid);
            return h === 0 || h > s;
          })
          .sort(compareTxids);
        assert.deepEqual(got, want, `${step}: since height ${s} (tip ${tip})`);
      }
    };

    for (let step = 0; step < 300; step++) {
      const op = r(10);
      if (op < 4) await m.connectBlock();
      else if (op < 6 && m.height > 0) await m.disconnectTip();
      else if (op < 9) await m.acceptNew();
      else await m.removeFromMempool();
      if (step % 10 === 0) check(`step ${step}`);
    }
    check('the end');
    assert.ok(m.disconnects > 20 && m.height > 10 && known.length > 100, 'the walk covered reorgs and a chain');

    // A reload: the stored transactions are filed by the heights the chain's tx index gives.
    wallet = await m.open();
    check('after a reload');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
