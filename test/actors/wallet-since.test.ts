import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { Block } from '../../src/chain/block/block.js';
import { BlockHeader } from '../../src/chain/block/header.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { hash160, sha256 } from '../../src/chain/crypto/hash.js';
import { p2pkhScript } from '../../src/chain/script/script.js';
import { devChainParams } from '../../src/chain/params/chain-params.js';
import { KeyStore } from '../../src/actors/wallet/keystore.js';
import { WalletLogic, type TxDetail } from '../../src/actors/wallet/logic.js';
import { compareTxids } from '../../src/actors/wallet/rebroadcast.js';
import { prng } from '../helpers/prng.js';

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
      const t = new Transaction();
      t.overwintered = true;
      t.version = 4;
      t.versionGroupId = 0x892f2085;
      const prev = spend ? spend.hash() : sha256(Uint8Array.of(serial & 0xff, (serial >> 8) & 0xff, 42));
      serial++;
      t.vin.push(new TxIn(new Outpoint(prev, 0)));
      t.vout.push(new TxOut(1000n + BigInt(serial), spend ? other : mine));
      return t;
    };
    // The model: the active chain's blocks (index = height - 1) and the mempool.
    const chainBlocks: Transaction[][] = [];
    const mempool = new Map<string, Transaction>();
    /** txid → the height of its active-chain block (absent: in none). */
    const placed = new Map<string, number>();
    const heightOf = (txid: string): number => placed.get(txid) ?? 0;
    const chain = {
      ask: async (b: { op: string; txids?: string[] }) => {
        if (b.op === 'coinsByScript') return { height: chainBlocks.length, hash: '00'.repeat(32), mtp: 0, coins: [] };
        // A stale tip: the load re-accepts nothing (initial download).
        if (b.op === 'tip') return { height: chainBlocks.length, time: 1 };
        if (b.op === 'txHeights') return b.txids!.map((t) => heightOf(t) || null);
        if (b.op === 'inChain') return b.txids!.map((t) => heightOf(t) > 0);
        return null;
      },
    } as never;
    const mempoolAsker = { ask: async (b: { op: string }) => (b.op === 'entries' ? [] : null) } as never;
    const open = () => new WalletLogic({ chain, mempool: mempoolAsker, keys, dir, params: () => devChainParams(), now: () => 1_700_000_000 });
    let wallet = open();
    await wallet.load();
    const known: Transaction[] = [];
    /** The wallet transactions whose output 0 pays the wallet (a spend of one is a wallet transaction too). */
    const paying: Transaction[] = [];
    const block = (txs: Transaction[]) => new Block(new BlockHeader(), txs);

    const check = (step: string) => {
      const knownIds = known.map((t) => t.txid());
      const tip = chainBlocks.length;
      for (let s = 0; s <= tip + 1; s++) {
        const got = (wallet.read({ op: 'sinceHeight', height: s }) as TxDetail[]).map((d) => d.txid);
        // The brute force: every wallet transaction, kept when its block is above s or it is in none.
        const want = knownIds
          .filter((txid) => {
            const h = heightOf(txid);
            return h === 0 || h > s;
          })
          .sort(compareTxids);
        assert.deepEqual(got, want, `${step}: since height ${s} (tip ${tip})`);
      }
    };

    let disconnects = 0;
    for (let step = 0; step < 300; step++) {
      const op = r(10);
      if (op < 4) {
        // A block: a few mempool transactions and a few new ones.
        const txs = [...mempool.values()].filter(() => r(2) === 0);
        for (let i = r(3); i > 0; i--) {
          const t = make(paying.length > 0 && r(4) === 0 ? paying[r(paying.length)] : undefined);
          txs.push(t);
          known.push(t);
          if (t.vout[0]!.script === mine) paying.push(t);
        }
        for (const t of txs) mempool.delete(t.txid());
        chainBlocks.push(txs);
        for (const t of txs) placed.set(t.txid(), chainBlocks.length);
        await wallet.write({ op: 'blockConnected', block: block(txs), txids: txs.map((t) => t.txid()), height: chainBlocks.length });
      } else if (op < 6 && chainBlocks.length > 0) {
        // The tip disconnected: some of its transactions return to the mempool, the others are left in no block.
        const txs = chainBlocks.pop()!;
        for (const t of txs) placed.delete(t.txid());
        disconnects++;
        await wallet.write({ op: 'blockDisconnected', txids: txs.map((t) => t.txid()) });
        const back = txs.filter(() => r(2) === 0);
        for (const t of back) mempool.set(t.txid(), t);
        if (back.length > 0) await wallet.write({ op: 'txsAccepted', items: back.map((t) => ({ txid: t.txid(), tx: t })) });
      } else if (op < 9) {
        const t = make();
        known.push(t);
        paying.push(t);
        mempool.set(t.txid(), t);
        await wallet.write({ op: 'txsAccepted', items: [{ txid: t.txid(), tx: t }] });
      } else if (mempool.size > 0) {
        const txid = [...mempool.keys()][r(mempool.size)]!;
        mempool.delete(txid);
        await wallet.write({ op: 'txsRemoved', txids: [txid] });
      }
      if (step % 10 === 0) check(`step ${step}`);
    }
    check('the end');
    assert.ok(disconnects > 20 && chainBlocks.length > 10 && known.length > 100, 'the walk covered reorgs and a chain');

    // A reload: the stored transactions are filed by the heights the chain's tx index gives.
    wallet = open();
    await wallet.load();
    check('after a reload');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
