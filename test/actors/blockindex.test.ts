import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BlockIndex, type BlockEntry } from '../../src/actors/chainstore/blockindex.js';
import { BlockHeader } from '../../src/chain/block/header.js';
import { fromHexReversed } from '../../src/chain/encoding/hex.js';

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

/** A small deterministic generator (xorshift32), so a failure names its seed. */
function rng(seed: number): () => number {
  let x = seed || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

const BITS = [0x200f0f0f, 0x2007ffff, 0x1f07ffff];

test('betterTips equals its definition over every entry, on random trees with failures', () => {
  for (let seed = 1; seed <= 60; seed++) {
    const r = rng(seed * 7919);
    const index = new BlockIndex();
    const all: BlockEntry[] = [];
    const make = (parent: BlockEntry | undefined): BlockEntry => {
      const h = new BlockHeader();
      if (parent) h.prevHash = fromHexReversed(parent.hash);
      h.time = all.length;
      h.bits = BITS[Math.floor(r() * BITS.length)]!;
      h.nonce[0] = seed;
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
