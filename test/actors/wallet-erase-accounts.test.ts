import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hash160, sha256 } from '../../src/chain/crypto/hash.js';
import { encodeAddress, PUBKEY_ADDRESS } from '../../src/chain/address/address.js';
import { p2pkhScript } from '../../src/chain/script/script.js';
import type { MoveEntry, ReceivedRow, TxDetail } from '../../src/actors/wallet/protocol.js';
import { assertListTxsAgainstBrute } from '../helpers/accounts.js';
import { accountsModel, saplingTx } from '../helpers/wallet-model.js';
import { KeyStore } from '../../src/actors/wallet/keystore.js';
import { WalletLogic } from '../../src/actors/wallet/logic.js';
import { Block } from '../../src/chain/block/block.js';
import type { Transaction } from '../../src/chain/tx/transaction.js';
import { BlockHeader } from '../../src/chain/block/header.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { fromHexReversed, toHex } from '../../src/chain/encoding/hex.js';
import { devChainParams } from '../../src/chain/params/chain-params.js';

/**
 * Transactions erased from the wallet (cleanwallettransactions' EraseFromWallet) leave the accounts'
 * figures and indexes: after each erase, getbalance "account", getreceivedbyaccount,
 * listreceivedbyaddress (its txids) and listtransactions "account" agree with komodod's walk over the
 * transactions the wallet still holds (mapWallet), through random blocks, reorgs, mempool changes and
 * relabels; and a spend whose spent transaction was erased no longer debits (GetDebit reads mapWallet).
 */

const other = p2pkhScript(hash160(sha256(Uint8Array.of(8))));

test('erased wallet transactions leave the accounts: balances, receipts and listtransactions by account agree with a walk of what the wallet holds', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-wallet-erase-'));
  try {
    const { keys, held, r, m, keyOfScript } = await accountsModel({ dir, seed: 41_03, other, salt: 11, spendOneIn: 2 });
    const names = ['', 'alice', 'bob'];
    const { known, mempool } = m;
    const wallet = await m.open();
    const depthOf = (txid: string) => (m.heightOf(txid) > 0 ? m.height - m.heightOf(txid) + 1 : mempool.has(txid) ? 0 : -1);
    /** The transactions the wallet holds (mapWallet), from its own listing of every one. */
    const holding = (): Set<string> => {
      const all = wallet.read({ op: 'listTxs', count: Number.MAX_SAFE_INTEGER, from: 0, account: '*' }) as (TxDetail | MoveEntry)[];
      return new Set(all.filter((x): x is TxDetail => !('kind' in x)).map((x) => x.txid));
    };
    let erased = 0;
    const check = (step: string) => {
      for (const a of [...names, 'nobody']) for (const [count, from] of [[1, 0], [3, 2], [1000, 0]] as const) assertListTxsAgainstBrute(wallet, a, count, from, false, step);
      const have = holding();
      const txs = known.filter((t) => have.has(t.txid()));
      for (const minConf of [-1, 0, 1, 3]) {
        const balance = new Map<string, bigint>();
        const add = (a: string, v: bigint) => balance.set(a, (balance.get(a) ?? 0n) + v);
        const tally = new Map<string, { amount: bigint; txids: string[] }>();
        for (const t of txs) {
          const txid = t.txid();
          const depth = depthOf(txid);
          const k = keyOfScript(t.vout[0]!.script);
          if (k) {
            if (depth >= 0 && depth >= minConf) add(k.account ?? '', t.vout[0]!.value);
            if (depth >= minConf) {
              const e = tally.get(k.idHex) ?? { amount: 0n, txids: [] };
              e.amount += t.vout[0]!.value;
              e.txids.push(txid);
              tally.set(k.idHex, e);
            }
          } else if (depth >= 0) {
            // A spend debits "" only while the transaction it spends is held (GetDebit reads mapWallet).
            const prev = txs.find((p) => p.txid() === t.vin[0]!.prevout.txid());
            if (prev) add('', -prev.vout[0]!.value);
          }
        }
        for (const a of names) assert.equal(wallet.read({ op: 'accountBalance', account: a, minConf }), balance.get(a) ?? 0n, `${step}: getbalance "${a}" ${minConf}`);
        for (const a of names) {
          const want = held.filter((k) => k.account === a).reduce((v, k) => v + (tally.get(k.idHex)?.amount ?? 0n), 0n);
          assert.equal(wallet.read({ op: 'receivedByAccount', account: a, minConf }), want, `${step}: getreceivedbyaccount "${a}" ${minConf}`);
        }
        const rows = wallet.read({ op: 'listReceived', minConf, includeEmpty: false, watchOnly: false, byAccount: false }) as ReceivedRow[];
        const got = new Map(rows.map((row) => [row.address!, row]));
        for (const k of held) {
          const row = got.get(encodeAddress(PUBKEY_ADDRESS, hash160(k.pubkey)));
          const e = k.account === undefined ? undefined : tally.get(k.idHex);
          assert.deepEqual(row && { amount: row.amount, txids: [...row.txids!].sort() }, e && { amount: e.amount, txids: [...e.txids].sort() }, `${step}: listreceivedbyaddress ${k.idHex} ${minConf}`);
        }
      }
    };
    for (let step = 0; step < 300; step++) {
      const op = r(14);
      if (op < 4) await m.connectBlock();
      else if (op < 6 && m.height > 0) await m.disconnectTip();
      else if (op < 9) await m.acceptNew();
      else if (op < 10) await keys.setAccount(held[r(held.length)]!.hex, names[r(names.length)]!);
      else if (op < 11) await m.removeFromMempool();
      else if (op < 12 && step % 3 === 0) {
        // cleanwallettransactions "txid": every held transaction but one paying the wallet is erased.
        const have = holding();
        const payers = m.paying.filter((t) => have.has(t.txid()));
        if (payers.length === 0) continue;
        const keep = payers[r(payers.length)]!;
        const { total, remaining } = (await wallet.write({ op: 'cleanTxs', keep: { txid: keep.txid(), tx: keep } })).result as { total: number; remaining: number };
        assert.equal(remaining, 1, `step ${step}: cleanwallettransactions keeps one`);
        erased += total - remaining;
        check(`step ${step}, after an erase`);
      } else if (op < 12) {
        // cleanwallettransactions: the transactions deeper than the deepest unspent output and one more block.
        const { total, remaining } = (await wallet.write({ op: 'cleanTxs' })).result as { total: number; remaining: number };
        erased += total - remaining;
        check(`step ${step}, after a clean by depth`);
      }
      if (step % 10 === 0) check(`step ${step}`);
    }
    check('the end');
    assert.ok(erased > 30 && m.disconnects > 10, `the walk erased transactions (${erased}) and reorganised (${m.disconnects})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an erased transaction recorded again after its spender: the spender is figured again (IsFromMe, GetDebit, fee, IsTrusted) as a wallet loaded afresh figures it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-wallet-rerecord-'));
  try {
    const keys = await KeyStore.open(dir);
    const mine = p2pkhScript(hash160((await keys.nodeKey()).pubkey));
    const outside = toHex(sha256(Uint8Array.of(9)));
    const make = (vin: [string, number], vout: [Uint8Array, bigint][]) => {
      const t = saplingTx();
      t.vin.push(new TxIn(new Outpoint(fromHexReversed(vin[0]), vin[1])));
      for (const [script, value] of vout) t.vout.push(new TxOut(value, script));
      return t;
    };
    const a = make([outside, 0], [[mine, 1000n], [mine, 500n]]);
    // b spends a's first output: 600 to someone else, 300 change, 100 fee.
    const b = make([a.txid(), 0], [[other, 600n], [mine, 300n]]);
    /** What the chain store and the mempool answer: a is in block 11, then back in the mempool. */
    const state = { height: 11, aHeight: 11, mempool: [] as Transaction[], utxos: [] as { txid: string; n: number; coin: unknown }[] };
    const chain = {
      ask: async (q: { op: string; txids?: string[] }) => {
        if (q.op === 'coinsByScript') return { height: state.height, hash: '00'.repeat(32), mtp: 0, coins: state.utxos };
        if (q.op === 'tx') return (q as { txid?: string }).txid === a.txid() ? { tx: a, height: state.aHeight, time: 1 } : null;
        if (q.op === 'tip') return { height: state.height, time: 1 };
        if (q.op === 'txHeights') return q.txids!.map((t) => (t === a.txid() && state.aHeight > 0 ? state.aHeight : null));
        if (q.op === 'inChain') return q.txids!.map((t) => t === a.txid() && state.aHeight > 0);
        return null;
      },
    } as never;
    const mempool = { ask: async (q: { op: string }) => (q.op === 'entries' ? state.mempool.map((tx) => ({ txid: tx.txid(), tx })) : null) } as never;
    const open = async (k: KeyStore) => {
      const w = new WalletLogic({ chain, mempool, keys: k, dir, params: () => devChainParams() });
      await w.load();
      return w;
    };
    const wallet = await open(keys);
    await wallet.write({ op: 'blockConnected', block: new Block(new BlockHeader(), [a]), txids: [a.txid()], height: 11 });
    state.mempool = [b];
    await wallet.write({ op: 'txsAccepted', items: [{ txid: b.txid(), tx: b }] });
    const detailB = () => wallet.read({ op: 'txDetail', txid: b.txid() }) as TxDetail;
    assert.equal(detailB().debit, 1000n, 'b spends a wallet output');
    // cleanwallettransactions "b": a leaves mapWallet, and b's debit with it (GetDebit reads mapWallet).
    await wallet.write({ op: 'cleanTxs', keep: { txid: b.txid(), tx: b } });
    assert.equal(detailB().debit, 0n, 'a erased: b debits nothing');
    // A reorg takes block 11 away: a goes back to the mempool, ahead of b, and the wallet records it again.
    state.height = 10;
    state.aHeight = 0;
    state.mempool = [a, b];
    await wallet.write({ op: 'blockDisconnected', txids: [a.txid()] } as never);
    const d = detailB();
    assert.equal(d.debit, 1000n, 'b spends a wallet output again (IsFromMe, GetDebit)');
    assert.equal(d.fee, 100n, "b's fee");
    assert.deepEqual(d.sent.map((e) => [e.amount, e.vout]), [[600n, 0], [300n, 1]], "b's sends (the change to the node's listed key included)");
    // IsTrusted: every input of b spends a spendable wallet output, so its change counts at depth 0.
    assert.equal(wallet.read({ op: 'balance', minConf: 0 }), 300n, "getbalance '*' 0 counts b's change");
    assert.equal(wallet.read({ op: 'unconfirmedBalance' }), 500n, "a's other output is unconfirmed (a spends a coin from outside)");
    assert.equal(wallet.coinViews().find((c) => c.txid === a.txid() && c.n === 0), undefined, "a's first output stays spent by b");
    // The oracle: the same wallet loaded afresh (komodod's figures after a restart, every cache empty).
    const fresh = await open(await KeyStore.open(dir));
    for (const q of [
      { op: 'txDetail', txid: b.txid() },
      { op: 'txDetail', txid: a.txid() },
      { op: 'balance', minConf: 0 },
      { op: 'unconfirmedBalance' },
      { op: 'accountBalance', account: '', minConf: 0 },
      { op: 'balanceAll', minConf: 0 },
      { op: 'listTxs', count: 10, from: 0, account: '*' },
    ] as const) {
      const strip = (x: unknown) => JSON.parse(JSON.stringify(x, (k, v) => (typeof v === 'bigint' ? v.toString() : k === 'timeReceived' ? 0 : v)));
      assert.deepEqual(strip(wallet.read(q as never)), strip(fresh.read(q as never)), `${q.op}: as a wallet loaded afresh answers`);
    }
    assert.deepEqual(strip2(wallet.coinViews()), strip2(fresh.coinViews()), 'the coins, as a wallet loaded afresh lists them');
    // The rescan's order: a mined again and erased again, then found by a rescan through its unspent output.
    state.height = 11;
    state.aHeight = 11;
    state.mempool = [b];
    await wallet.write({ op: 'blockConnected', block: new Block(new BlockHeader(), [a]), txids: [a.txid()], height: 11 });
    await wallet.write({ op: 'cleanTxs', keep: { txid: b.txid(), tx: b } });
    assert.equal(detailB().debit, 0n, 'a erased again');
    state.utxos = [{ txid: a.txid(), n: 1, coin: { value: 500n, script: mine, height: 11, coinbase: false } }];
    await wallet.write({ op: 'rescan' });
    assert.equal(detailB().debit, 1000n, 'a recorded by the rescan: b debits it');
    assert.equal(wallet.read({ op: 'balance', minConf: 0 }), 800n, "a's unspent output and b's change (trusted)");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function strip2(x: unknown): unknown {
  return JSON.parse(JSON.stringify(x, (_k, v) => (typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? toHex(v) : v)));
}
