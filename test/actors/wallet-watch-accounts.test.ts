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
import { toHex } from '../../src/chain/encoding/hex.js';
import { encodeAddress, PUBKEY_ADDRESS } from '../../src/chain/address/address.js';
import { p2pkhScript } from '../../src/chain/script/script.js';
import { devChainParams } from '../../src/chain/params/chain-params.js';
import { KeyStore, type HeldKey } from '../../src/actors/wallet/keystore.js';
import { WalletLogic } from '../../src/actors/wallet/logic.js';
import type { AccountTotal } from '../../src/actors/wallet/protocol.js';
import { outsideTxid, saplingTx } from '../helpers/wallet-model.js';
import { assertListTxsAgainstBrute } from '../helpers/accounts.js';
import { prng } from '../helpers/prng.js';

/**
 * The accounts' figures under both isminefilters — GetAccountBalance by account, listaccounts and
 * getbalance "*", without and with includeWatchonly — against komodod's loops computed from a model
 * of the chain over every wallet transaction (GetAmounts with GetDebit(filter), the change quirk,
 * strFromAccount ""), after random steps: blocks connected and disconnected, the mempool coming and
 * going, spends of spendable and watch-only outputs with up to three change outputs, and scripts
 * already paid by wallet transactions imported later without a rescan (a labelled address and an
 * unlabelled script), a watched script with no destination among them; and after a reload. (A model beside test/actors/wallet-accounts.test.ts, which
 * covers keys and relabels: this one covers watch-only.)
 */

const other = p2pkhScript(hash160(sha256(Uint8Array.of(7))));
const foreign = (n: number) => p2pkhScript(hash160(sha256(Uint8Array.of(8, n))));

test('wallet accounts under includeWatchonly: watch-only debits, the change quirk and later imports against komodod\'s loops', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-wallet-watch-accounts-'));
  try {
    const rand = prng(36_01);
    const r = (n: number) => Math.floor(rand() * n);
    const keys = await KeyStore.open(dir, { keypool: 5 });
    await keys.nodeKey();
    const held: HeldKey[] = [];
    for (const account of ['alice', 'bob', undefined]) held.push((await keys.takePoolKey(account)) as HeldKey);
    // Watched from the start: a labelled address, an unlabelled script. Imported later: the same two kinds.
    const watched = { script: foreign(1), label: 'watched' as string | undefined };
    const bare = { script: foreign(2), label: undefined as string | undefined };
    const later = { script: foreign(3), label: 'later' as string | undefined };
    const laterBare = { script: foreign(4), label: undefined as string | undefined };
    // A watched script with no destination (non-standard): received by "", change, in no address book.
    const nonstandard = Uint8Array.of(0x51, 0x52, 0x93);
    const imported = new Set<string>([toHex(watched.script), toHex(bare.script), toHex(nonstandard)]);
    const names = ['', 'alice', 'bob', 'watched', 'later'];

    let serial = 0;
    const chainBlocks: Transaction[][] = [];
    const mempool = new Map<string, Transaction>();
    const placed = new Map<string, number>();
    const known: Transaction[] = [];
    const byTxid = new Map<string, Transaction>();
    const heightOf = (txid: string): number => placed.get(txid) ?? 0;
    const spentInChain = (txid: string, n: number) => known.some((t) => heightOf(t.txid()) > 0 && t.vin.some((i) => i.prevout.txid() === txid && i.prevout.index === n));
    const chain = {
      ask: async (b: { op: string; txids?: string[]; outpoints?: [string, number][] }) => {
        if (b.op === 'coinsByScript') return { height: chainBlocks.length, hash: '00'.repeat(32), mtp: 0, coins: [] };
        if (b.op === 'tip') return { height: chainBlocks.length, time: 1 };
        if (b.op === 'txHeights') return b.txids!.map((t) => heightOf(t) || null);
        if (b.op === 'inChain') return b.txids!.map((t) => heightOf(t) > 0);
        if (b.op === 'coins') {
          return b.outpoints!.map(([txid, n]) => {
            const t = byTxid.get(txid);
            return t && heightOf(txid) > 0 && !spentInChain(txid, n) ? { value: t.vout[n]!.value, script: t.vout[n]!.script, height: heightOf(txid), coinbase: false } : null;
          });
        }
        return null;
      },
    } as never;
    const mempoolAsker = { ask: async (b: { op: string }) => (b.op === 'entries' ? [...mempool].map(([txid, tx]) => ({ txid, tx })) : null) } as never;
    const open = () => new WalletLogic({ chain, mempool: mempoolAsker, keys, dir, params: () => devChainParams(), now: () => 1_700_000_000 });
    let wallet = open();
    await wallet.load();
    await wallet.write({ op: 'importAddress', script: watched.script, address: encodeAddress(PUBKEY_ADDRESS, watched.script.subarray(3, 23)), label: 'watched', rescan: false });
    await wallet.write({ op: 'importAddress', script: bare.script, label: '', rescan: false });
    await wallet.write({ op: 'importAddress', script: nonstandard, label: '', rescan: false });

    const heldOf = (s: Uint8Array) => held.find((k) => toHex(p2pkhScript(hash160(k.pubkey))) === toHex(s));
    /** IsMine's level: 2 spendable, 1 watch-only, 0 not the wallet's. */
    const level = (s: Uint8Array) => (heldOf(s) ? 2 : imported.has(toHex(s)) ? 1 : 0);
    /** The address-book name of an output's destination, undefined when it has none. */
    const bookName = (s: Uint8Array): string | undefined => {
      const k = heldOf(s);
      if (k) return k.account;
      for (const x of [watched, bare, later, laterBare]) if (toHex(x.script) === toHex(s) && imported.has(toHex(s))) return x.label;
      return undefined;
    };
    const depthOf = (txid: string) => (heightOf(txid) > 0 ? chainBlocks.length - heightOf(txid) + 1 : mempool.has(txid) ? 0 : -1);
    const mineScripts = () => [...held.map((k) => p2pkhScript(hash160(k.pubkey))), watched.script, bare.script, nonstandard];

    /** komodod's GetAccountBalance for every account and getbalance "*" under the filter (2: spendable, 3: with watch-only). */
    const brute = (minConf: number, filter: number) => {
      const acc = new Map<string, bigint>();
      const add = (a: string, v: bigint) => acc.set(a, (acc.get(a) ?? 0n) + v);
      let all = 0n;
      for (const t of known) {
        const depth = depthOf(t.txid());
        if (depth < 0) continue;
        let debit = 0n;
        for (const i of t.vin) {
          const prev = byTxid.get(i.prevout.txid())?.vout[i.prevout.index];
          if (prev && level(prev.script) & filter) debit += prev.value;
        }
        let valueOut = 0n;
        for (const o of t.vout) valueOut += o.value;
        let sent = 0n;
        let oneshot = 0;
        for (const o of t.vout) {
          const lv = level(o.script);
          const mine = (lv & filter) !== 0;
          if (debit > 0n) {
            const change = lv !== 0 && bookName(o.script) === undefined;
            if (change && oneshot++ > 1) continue;
          } else if (!mine) continue;
          if (debit > 0n) sent += o.value;
          if (mine && depth >= minConf) {
            add(bookName(o.script) ?? '', o.value);
            all += o.value;
          }
        }
        const fee = debit > 0n ? debit - valueOut : 0n;
        add('', -(sent + fee));
        all -= sent + fee;
      }
      return { acc, all };
    };
    const check = (step: string) => {
      // listtransactions by account (watched addresses' labels, imports and the change quirk included) against komodod's walk.
      for (const a of [...names, 'nobody']) for (const watchOnly of [false, true]) for (const [count, from] of [[1, 0], [4, 3], [1000, 0]] as const) assertListTxsAgainstBrute(wallet, a, count, from, watchOnly, step);
      for (const minConf of [0, 1, 3]) {
        for (const watchOnly of [false, true]) {
          const want = brute(minConf, watchOnly ? 3 : 2);
          for (const a of names) assert.equal(wallet.read({ op: 'accountBalance', account: a, minConf, watchOnly }), want.acc.get(a) ?? 0n, `${step}: "${a}" at ${minConf} ${watchOnly}`);
          assert.equal(wallet.read({ op: 'balanceAll', minConf, watchOnly }), want.all, `${step}: "*" at ${minConf} ${watchOnly}`);
          const listed = wallet.read({ op: 'listAccounts', minConf, watchOnly }) as AccountTotal[];
          for (const { account, amount } of listed) assert.equal(amount, want.acc.get(account) ?? 0n, `${step}: listaccounts "${account}" ${minConf} ${watchOnly}`);
        }
      }
    };

    /** The outputs of the known transactions nobody known spends, paying a script of the wallet's now. */
    const spendable = () => {
      const out: { t: Transaction; n: number }[] = [];
      for (const t of known) {
        t.vout.forEach((o, n) => {
          if (level(o.script) === 0) return;
          if (known.some((s) => s.vin.some((i) => i.prevout.txid() === t.txid() && i.prevout.index === n))) return;
          out.push({ t, n });
        });
      }
      return out;
    };
    /** A payment to the wallet (a key or a watched script), sometimes paying a script imported later too; or a spend of a wallet output with up to three change outputs. */
    const make = (): Transaction => {
      const t = saplingTx();
      serial++;
      const coins = spendable();
      if (coins.length > 0 && r(3) === 0) {
        const { t: prev, n } = coins[r(coins.length)]!;
        t.vin.push(new TxIn(new Outpoint(prev.hash(), n)));
        const value = prev.vout[n]!.value;
        t.vout.push(new TxOut(value / 4n, r(2) === 0 ? other : later.script));
        const changes = r(4);
        for (let c = 0; c < changes; c++) {
          const to = [bare.script, laterBare.script, p2pkhScript(hash160(held[2]!.pubkey)), p2pkhScript(hash160(held[0]!.pubkey)), nonstandard][r(5)]!;
          t.vout.push(new TxOut(value / 8n, to));
        }
      } else {
        t.vin.push(new TxIn(new Outpoint(outsideTxid(serial, 9), 0)));
        t.vout.push(new TxOut(1000n + BigInt(serial), mineScripts()[r(mineScripts().length)]!));
        if (r(2) === 0) t.vout.push(new TxOut(500n + BigInt(serial), [later.script, laterBare.script, other][r(3)]!));
      }
      known.push(t);
      byTxid.set(t.txid(), t);
      return t;
    };
    const block = (txs: Transaction[]) => new Block(new BlockHeader(), txs);

    let disconnects = 0;
    let imports = 0;
    for (let step = 0; step < 200; step++) {
      const op = r(12);
      if (op < 4) {
        const txs = [...mempool.values()].filter(() => r(2) === 0);
        for (let i = r(3); i > 0; i--) txs.push(make());
        for (const t of txs) mempool.delete(t.txid());
        chainBlocks.push(txs);
        for (const t of txs) placed.set(t.txid(), chainBlocks.length);
        await wallet.write({ op: 'blockConnected', block: block(txs), txids: txs.map((t) => t.txid()), height: chainBlocks.length });
      } else if (op < 6 && chainBlocks.length > 0) {
        const txs = chainBlocks.pop()!;
        for (const t of txs) placed.delete(t.txid());
        disconnects++;
        await wallet.write({ op: 'blockDisconnected', txids: txs.map((t) => t.txid()) });
        const back = txs.filter(() => r(2) === 0);
        for (const t of back) mempool.set(t.txid(), t);
        if (back.length > 0) await wallet.write({ op: 'txsAccepted', items: back.map((t) => ({ txid: t.txid(), tx: t })) });
      } else if (op < 9) {
        const t = make();
        mempool.set(t.txid(), t);
        await wallet.write({ op: 'txsAccepted', items: [{ txid: t.txid(), tx: t }] });
      } else if (op < 10 && step > 60) {
        // importaddress without a rescan, of a script wallet transactions already pay.
        const x = !imported.has(toHex(later.script)) ? later : !imported.has(toHex(laterBare.script)) ? laterBare : undefined;
        if (x) {
          imports++;
          imported.add(toHex(x.script));
          await wallet.write({ op: 'importAddress', script: x.script, ...(x.label ? { address: encodeAddress(PUBKEY_ADDRESS, x.script.subarray(3, 23)) } : {}), label: x.label ?? '', rescan: false });
          check(`step ${step}, just imported`);
        }
      } else if (mempool.size > 0) {
        const txid = [...mempool.keys()][r(mempool.size)]!;
        mempool.delete(txid);
        await wallet.write({ op: 'txsRemoved', txids: [txid] });
      }
      if (step % 10 === 0) check(`step ${step}`);
    }
    check('the end');
    const spentWatched = known.filter((t) => t.vin.some((i) => level(byTxid.get(i.prevout.txid())?.vout[i.prevout.index]?.script ?? other) === 1));
    assert.ok(disconnects > 10 && imports === 2 && chainBlocks.length > 10 && spentWatched.length > 5, 'the walk covered reorgs, both imports, a chain and spends of watch-only outputs');

    wallet = open();
    await wallet.load();
    check('after a reload');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
