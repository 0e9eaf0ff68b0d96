import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hash160, sha256 } from '../../src/chain/crypto/hash.js';
import { encodeAddress, PUBKEY_ADDRESS } from '../../src/chain/address/address.js';
import { p2pkhScript } from '../../src/chain/script/script.js';
import type { ReceivedRow } from '../../src/actors/wallet/protocol.js';
import { assertListTxsAgainstBrute } from '../helpers/accounts.js';
import { accountsModel } from '../helpers/wallet-model.js';

/**
 * The accounts' running figures (GetAccountBalance by account and minconf, ListReceived by address)
 * against the same figures computed from a model of the chain over every wallet transaction, after
 * each of a few hundred random steps: blocks connected and disconnected, transactions entering and
 * leaving the mempool, spends of wallet outputs, keys moved between accounts; and after a reload.
 */

const other = p2pkhScript(hash160(sha256(Uint8Array.of(7))));

test('wallet accounts: balances by account and receipts by address against a brute force, across reorgs, the mempool, relabels and a reload', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-wallet-accounts-'));
  try {
    const { keys, held, r, m, keyOfScript } = await accountsModel({ dir, seed: 30_35, other, salt: 9, spendOneIn: 3 });
    const names = ['', 'alice', 'bob', 'carol'];
    const { known, mempool } = m;
    let wallet = await m.open();

    const depthOf = (txid: string) => (m.heightOf(txid) > 0 ? m.height - m.heightOf(txid) + 1 : mempool.has(txid) ? 0 : -1);
    const moved = new Map<string, bigint>();
    const check = (step: string) => {
      // listtransactions by account through the account's own transactions, against komodod's walk over all.
      for (const a of [...names, 'nobody']) for (const [count, from] of [[1, 0], [3, 2], [10, 0], [1000, 0]] as const) assertListTxsAgainstBrute(wallet, a, count, from, false, step);
      for (const minConf of [-1, 0, 1, 2, 4]) {
        const want = new Map<string, bigint>();
        const add = (a: string, v: bigint) => want.set(a, (want.get(a) ?? 0n) + v);
        const tally = new Map<string, { amount: bigint; conf: number; txids: string[] }>();
        for (const t of known) {
          const txid = t.txid();
          const depth = depthOf(txid);
          const k = keyOfScript(t.vout[0]!.script);
          if (k) {
            // GetAccountBalance: receipts at least minconf deep (never below 0).
            if (depth >= 0 && depth >= minConf) add(k.account ?? '', t.vout[0]!.value);
            // ListReceived: depth at least minconf, even -1.
            if (depth >= minConf) {
              const e = tally.get(k.idHex) ?? { amount: 0n, conf: Number.MAX_SAFE_INTEGER, txids: [] };
              e.amount += t.vout[0]!.value;
              e.conf = Math.min(e.conf, depth);
              e.txids.push(txid);
              tally.set(k.idHex, e);
            }
          } else if (depth >= 0) {
            // A spend of a wallet output: the debit (every output and the fee) is sent from "".
            const prev = known.find((p) => p.txid() === t.vin[0]!.prevout.txid())!;
            add('', -prev.vout[0]!.value);
          }
        }
        // The accounting entries (move) count at every minconf.
        for (const [a, v] of moved) add(a, v);
        for (const a of names) assert.equal(wallet.read({ op: 'accountBalance', account: a, minConf }), want.get(a) ?? 0n, `${step}: "${a}" at ${minConf}`);
        const rows = wallet.read({ op: 'listReceived', minConf, includeEmpty: false, watchOnly: false, byAccount: false }) as ReceivedRow[];
        const got = new Map(rows.map((row) => [row.address!, row]));
        for (const k of held) {
          const row = got.get(encodeAddress(PUBKEY_ADDRESS, hash160(k.pubkey)));
          const e = tally.get(k.idHex);
          // Only address-book keys are listed.
          if (k.account === undefined || !e) {
            assert.equal(row, undefined, `${step}: no row for ${k.idHex} at ${minConf}`);
            continue;
          }
          assert.ok(row, `${step}: a row for ${k.idHex} at ${minConf}`);
          assert.equal(row.account, k.account);
          assert.equal(row.amount, e.amount);
          assert.equal(row.confirmations, e.conf);
          assert.deepEqual([...row.txids!].sort(), [...e.txids].sort());
        }
        assert.equal(rows.length, held.filter((k) => k.account !== undefined && tally.has(k.idHex)).length);
        // By account: the address-book addresses' tallies summed, the smallest depth of any.
        const byAccount = wallet.read({ op: 'listReceived', minConf, includeEmpty: false, watchOnly: false, byAccount: true }) as ReceivedRow[];
        for (const a of names) {
          const ks = held.filter((k) => k.account === a && tally.has(k.idHex));
          const amount = ks.reduce((v, k) => v + tally.get(k.idHex)!.amount, 0n);
          assert.equal(wallet.read({ op: 'receivedByAccount', account: a, minConf }), amount, `${step}: getreceivedbyaccount "${a}" ${minConf}`);
          const row = byAccount.find((x) => x.account === a);
          if (ks.length === 0) assert.equal(row, undefined);
          else assert.deepEqual(row, { account: a, amount, confirmations: Math.min(...ks.map((k) => tally.get(k.idHex)!.conf)), watchOnly: false }, `${step}: listreceivedbyaccount "${a}" ${minConf}`);
        }
      }
    };
    let relabels = 0;
    for (let step = 0; step < 250; step++) {
      const op = r(12);
      if (op < 4) await m.connectBlock();
      else if (op < 6 && m.height > 0) await m.disconnectTip();
      else if (op < 9) await m.acceptNew();
      else if (op < 10) {
        // A key moves to another account (importprivkey's label, setaccount).
        const k = held[r(held.length)]!;
        relabels++;
        await keys.setAccount(k.hex, names[r(names.length)]!);
      } else await m.removeFromMempool();
      if (step % 17 === 5) {
        // An accounting entry (move) takes two order positions among the transactions' (no draw from r: the walk above stays as it was).
        const [from, to] = [names[step % names.length]!, names[(step + 1) % names.length]!];
        await wallet.write({ op: 'move', from, to, amount: 7n, comment: `m${step}` });
        moved.set(from, (moved.get(from) ?? 0n) - 7n);
        moved.set(to, (moved.get(to) ?? 0n) + 7n);
      }
      if (step % 10 === 0) check(`step ${step}`);
    }
    check('the end');
    assert.ok(m.disconnects > 10 && relabels > 10 && m.height > 10 && known.length > 80, 'the walk covered reorgs, relabels and a chain');

    wallet = await m.open();
    check('after a reload');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
