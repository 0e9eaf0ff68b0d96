import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RankedSet } from '../../src/actors/wallet/rankedset.js';
import { SeqIndex } from '../../src/actors/wallet/seqindex.js';
import { KeyStore, type HeldKey } from '../../src/actors/wallet/keystore.js';
import { prng } from '../helpers/prng.js';

/**
 * The key pool and the per-account unused keys are ranked sets (no Set front walk): these check the
 * order they give against a brute force — komodod's setKeyPool (std::set<int64_t>, begin() the lowest
 * index) and GetAccountAddress's first unused key in key order.
 */

test('RankedSet against a sorted-array model: the lowest rank first, equal ranks in insertion order, across deletes, re-adds and rebuilds', () => {
  const rand = prng(41_01);
  const r = (n: number) => Math.floor(rand() * n);
  const set = new RankedSet<number>();
  /** [item, rank, insertion] of the members. */
  let model: [number, number, number][] = [];
  let ins = 0;
  for (let step = 0; step < 20_000; step++) {
    const op = r(10);
    if (op < 5) {
      const item = r(400);
      const rank = r(50);
      const had = model.some((m) => m[0] === item);
      set.add(item, rank);
      if (!had) model.push([item, rank, ins++]);
    } else if (op < 8) {
      // Delete the front (a take) or any member (a pool key given an account).
      const sorted = [...model].sort((a, b) => a[1] - b[1] || a[2] - b[2]);
      const victim = op < 7 ? sorted[0]?.[0] : model[r(Math.max(model.length, 1))]?.[0];
      const item = victim ?? r(400);
      assert.equal(set.delete(item), model.some((m) => m[0] === item), `step ${step}: delete ${item}`);
      model = model.filter((m) => m[0] !== item);
    } else if (op < 9) {
      const item = r(400);
      assert.equal(set.has(item), model.some((m) => m[0] === item), `step ${step}: has ${item}`);
    } else if (r(50) === 0) {
      set.clear();
      model = [];
    }
    const want = [...model].sort((a, b) => a[1] - b[1] || a[2] - b[2])[0]?.[0];
    assert.equal(set.first(), want, `step ${step}: first`);
    assert.equal(set.size, model.length, `step ${step}: size`);
  }
});

test("the key pool hands out the lowest index and GetAccountAddress's key is the account's first unused one, across takes, pool keys given accounts, relabels and a reload", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-keypool-order-'));
  try {
    const rand = prng(41_02);
    const r = (n: number) => Math.floor(rand() * n);
    let ks = await KeyStore.open(dir, { keypool: 40 });
    await ks.nodeKey();
    const accounts = ['', 'a', 'b'];
    const check = async (step: string) => {
      const all = ks.all();
      const pool = all.filter((k) => k.origin === 'pool').sort((a, b) => a.pool! - b.pool!);
      const info = await ks.poolInfo();
      assert.equal(info.size, 41, `${step}: the pool topped up to -keypool + 1`);
      // poolInfo topped the pool up: the brute reads the keys again.
      const lowest = ks.all().filter((k) => k.origin === 'pool').sort((a, b) => a.pool! - b.pool!)[0]!;
      assert.ok(pool.length === 0 || pool[0]!.pool! >= lowest.pool!);
      assert.equal((await ks.poolKey()).pubkey, lowest.pubkey, `${step}: the pool's lowest index`);
      for (const a of accounts) {
        const want = ks.all().filter((k) => k.account === a && !k.used).sort((x, y) => x.ord - y.ord)[0];
        assert.equal(ks.unusedAccountKey(a), want, `${step}: account "${a}"'s first unused key`);
      }
    };
    for (let step = 0; step < 600; step++) {
      const op = r(10);
      if (op < 4) await ks.takePoolKey(r(2) === 0 ? accounts[r(accounts.length)] : undefined);
      else if (op < 6) {
        // setaccount on an address still in the pool: it leaves the pool from the middle.
        const pool = ks.all().filter((k) => k.origin === 'pool');
        await ks.setAccount(pool[r(pool.length)]!.hex, accounts[r(accounts.length)]!);
      } else if (op < 8) {
        // A key of an account paid by a wallet transaction (or relabelled back into one, out of key order).
        const labelled = ks.all().filter((k) => k.account !== undefined);
        const k = labelled[r(labelled.length)] as HeldKey | undefined;
        if (k && op === 6) ks.markUsed(k);
        else if (k) await ks.setAccount(k.hex, accounts[r(accounts.length)]!);
      } else if (op === 8 && step % 50 === 8) ks = await KeyStore.open(dir, { keypool: 40 });
      if (step % 7 === 0) await check(`step ${step}`);
    }
    await check('the end');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('SeqIndex against a set model: live positions newest first, across out-of-order adds, members leaving and coming back, early stops and compactions', () => {
  const rand = prng(41_04);
  const r = (n: number) => Math.floor(rand() * n);
  const index = new SeqIndex();
  const live = new Set<number>();
  const isLive = (seq: number) => live.has(seq);
  let next = 0;
  for (let step = 0; step < 6_000; step++) {
    const op = r(10);
    if (op < 4) {
      // A new transaction: the next position.
      live.add(next);
      index.add(next++);
    } else if (op < 6 && next > 0) {
      // An older one comes (back) into the set.
      const seq = r(next);
      if (!live.has(seq)) (live.add(seq), index.add(seq));
    } else if (op < 9 && live.size > 0) {
      // A member leaves (the newest ones more often, as a relabel of recent receipts).
      const members = [...live];
      const seq = r(2) === 0 ? Math.max(...members) : members[r(members.length)]!;
      live.delete(seq);
      index.dropped(isLive);
    } else {
      const want = [...live].sort((a, b) => b - a);
      const stop = r(want.length + 2);
      const got: number[] = [];
      for (const seq of index.newestFirst(isLive)) {
        if (got.length >= stop) break;
        got.push(seq);
      }
      assert.deepEqual(got, want.slice(0, stop), `step ${step}: the first ${stop}`);
    }
    if (step % 97 === 0) assert.deepEqual([...index.newestFirst(isLive)], [...live].sort((a, b) => b - a), `step ${step}: all`);
    assert.ok(index.entries <= 2 * live.size + 200, `step ${step}: dead entries dropped (${index.entries} for ${live.size})`);
  }
});
