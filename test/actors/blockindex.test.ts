import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BlockIndex, type BlockEntry } from '../../src/actors/chainstore/blockindex.js';
import { BlockHeader } from '../../src/chain/block/header.js';
import { fromHexReversed } from '../../src/chain/encoding/hex.js';
import { prng } from '../helpers/prng.js';

/**
 * betterTips (asked twice per block submitted) is found from the leaves rather than by a pass over
 * every entry; here it is compared with its definition, checked over every entry, on random block
 * trees with failed branches, reconsidered ones and tips moved by hand.
 */

/** The definition: valid entries no valid entry builds on, with more work than the active tip, best first (ties: arrival). */
function reference(index: BlockIndex, all: BlockEntry[]): string[] {
  const tip = index.tip;
  const hasValidChild = new Set(all.filter((e) => e.prev && !e.failed).map((e) => e.prev!));
  return all
    .filter((e) => !e.failed && !hasValidChild.has(e.hash) && e.chainWork > tip.chainWork)
    .sort((a, b) => (a.chainWork === b.chainWork ? index.orderOf(a.hash) - index.orderOf(b.hash) : a.chainWork > b.chainWork ? -1 : 1))
    .map((e) => e.hash);
}

const BITS = [0x200f0f0f, 0x2007ffff, 0x1f07ffff];

/** The `n`th header of a random tree on `parent` (random work, unique by `n`), for the property tests below. */
function randomHeader(parent: BlockEntry | undefined, n: number, seed: number, r: () => number): BlockHeader {
  const h = new BlockHeader();
  if (parent) h.prevHash = fromHexReversed(parent.hash);
  h.time = n;
  h.bits = BITS[Math.floor(r() * BITS.length)]!;
  h.nonce[0] = seed;
  h.nonce[1] = n & 0xff;
  h.nonce[2] = n >> 8;
  return h;
}

test('betterTips equals its definition over every entry, on random trees with failures', () => {
  for (let seed = 1; seed <= 60; seed++) {
    const r = prng(seed * 7919);
    const index = new BlockIndex();
    const all: BlockEntry[] = [];
    const make = (parent: BlockEntry | undefined): BlockEntry => {
      const h = randomHeader(parent, all.length, seed, r);
      const e = index.add(h, { file: 0, pos: all.length, size: 1 }, 1);
      all.push(e);
      return e;
    };
    index.setActiveTip(make(undefined));
    for (let step = 0; step < 120; step++) {
      const x = r();
      if (x < 0.6) {
        // Mostly on the active tip, sometimes on any block (a fork).
        const parent = r() < 0.7 ? index.tip : all[Math.floor(r() * all.length)]!;
        make(parent);
      } else if (x < 0.7) {
        const e = all[1 + Math.floor(r() * (all.length - 1))];
        if (e && !index.isActive(e)) index.markFailed(e);
      } else if (x < 0.75) {
        const e = all[Math.floor(r() * all.length)]!;
        index.clearFailed(e);
      } else if (x < 0.85) {
        // The tip moves as activation would: to the best valid tip, or back down (invalidateblock).
        const best = index.betterTips()[0];
        if (best) index.setActiveTip(best);
      } else if (index.tip.height > 0 && r() < 0.3) {
        index.setActiveTip(index.parent(index.tip)!);
      }
      assert.deepEqual(
        index.betterTips().map((e) => e.hash),
        reference(index, all),
        `seed ${seed}, step ${step}`,
      );
    }
  }
});

/**
 * markFailed and clearFailed walk the affected subtree (a children index kept as blocks arrive)
 * rather than every entry; here they are compared with komodod's definitions, applied by a pass over
 * every entry as InvalidateBlock and ReconsiderBlock (main.cpp) do: a failed block's descendants are
 * failed, and a reconsidered block, every descendant and every ancestor lose the flag.
 */
test('markFailed and clearFailed equal their definitions over every entry, on random trees', () => {
  for (let seed = 1; seed <= 60; seed++) {
    const r = prng(seed * 104729);
    const index = new BlockIndex();
    const all: BlockEntry[] = [];
    const failed = new Map<string, boolean>();
    const parentOf = new Map<string, BlockEntry | undefined>();
    const descends = (e: BlockEntry, from: BlockEntry): boolean => {
      let p: BlockEntry | undefined = e;
      while (p && p.height > from.height) p = parentOf.get(p.hash);
      return p === from;
    };
    const make = (parent: BlockEntry | undefined): BlockEntry => {
      const h = new BlockHeader();
      if (parent) h.prevHash = fromHexReversed(parent.hash);
      h.time = all.length;
      h.bits = BITS[0]!;
      h.nonce[0] = seed;
      const e = index.add(h, { file: 0, pos: all.length, size: 1 }, 1);
      all.push(e);
      parentOf.set(e.hash, parent);
      failed.set(e.hash, parent ? failed.get(parent.hash)! : false);
      return e;
    };
    make(undefined);
    for (let step = 0; step < 150; step++) {
      const x = r();
      const any = () => all[Math.floor(r() * all.length)]!;
      if (x < 0.55) {
        // Long runs, forks and bushes: a child of the newest block or of any.
        make(r() < 0.6 ? all[all.length - 1] : any());
      } else if (x < 0.8) {
        const e = any();
        index.markFailed(e);
        for (const d of all) if (descends(d, e)) failed.set(d.hash, true);
      } else {
        const e = any();
        index.clearFailed(e);
        for (const d of all) if (descends(d, e)) failed.set(d.hash, false);
        for (let a = parentOf.get(e.hash); a; a = parentOf.get(a.hash)) failed.set(a.hash, false);
      }
      const where = `seed ${seed}, step ${step}`;
      assert.deepEqual(all.filter((e) => e.failed).map((e) => e.hash), all.filter((e) => failed.get(e.hash)).map((e) => e.hash), where);
      assert.deepEqual(new Set([...index.failedEntries()].map((e) => e.hash)), new Set(all.filter((e) => e.failed).map((e) => e.hash)), where);
    }
  }
});

/**
 * bestHeader is komodod's pindexBestHeader, kept as entries are added instead of by a pass per call:
 * AddToBlockIndex raises it to an entry with strictly more work; InvalidateBlock and ReconsiderBlock
 * never touch it; LoadBlockIndexDB sets it to the valid entry with most work (earliest received on
 * ties). Checked here against that definition, with a restart (the index rebuilt from its entries
 * in arrival order, with their flags) now and then.
 */
test('bestHeader follows pindexBestHeader over adds, failures, reconsiders and restarts, on random trees', () => {
  for (let seed = 1; seed <= 60; seed++) {
    const r = prng(seed * 15485863);
    let index = new BlockIndex();
    let all: BlockEntry[] = [];
    let reference: BlockEntry | undefined;
    const headers = new Map<string, BlockHeader>();
    const make = (parent: BlockEntry | undefined): BlockEntry => {
      const h = randomHeader(parent, all.length, seed, r);
      // At run time komodod indexes no header on a failed parent (bad-prevblk); the chain store neither.
      const e = index.add(h, { file: 0, pos: all.length, size: 1 }, 1);
      headers.set(e.hash, h);
      all.push(e);
      if (reference === undefined || e.chainWork > reference.chainWork) reference = e;
      return e;
    };
    index.setActiveTip(make(undefined));
    for (let step = 0; step < 150; step++) {
      const x = r();
      const any = () => all[Math.floor(r() * all.length)]!;
      if (x < 0.55) {
        const valid = all.filter((e) => !e.failed);
        make(r() < 0.6 ? valid[valid.length - 1] : valid[Math.floor(r() * valid.length)]);
      } else if (x < 0.75) {
        const e = any();
        if (e.height > 0) index.markFailed(e);
      } else if (x < 0.9) {
        index.clearFailed(any());
      } else {
        // A restart: the records in arrival order, each with its failed flag.
        const before = all;
        index = new BlockIndex();
        all = before.map((e) => index.add(headers.get(e.hash)!, e.pos, 1, e.failed, before.indexOf(e)));
        index.setActiveTip(all[0]!);
        reference = undefined;
        for (const e of all) if (!e.failed && (reference === undefined || e.chainWork > reference.chainWork)) reference = e;
      }
      assert.equal(index.bestHeader.hash, reference!.hash, `seed ${seed}, step ${step}`);
    }
  }
});
