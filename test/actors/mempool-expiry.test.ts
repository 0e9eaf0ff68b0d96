import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExpiryIndex } from '../../src/actors/mempool/expiry.js';
import { prng } from '../helpers/prng.js';

/**
 * The mempool's expiry index (a connected block's removeExpired without a pass over the pool),
 * against its definition over every entry: at each block, the entries with a nonzero expiry height
 * below the block's height (IsExpiredTx) leave, lowest height first, and nothing else; its heap stays
 * bounded by the live heights however many entries leave otherwise (mined, conflicted).
 */
test('expiry index: takeExpired equals IsExpiredTx over every entry, on random adds, removals and blocks', () => {
  for (let seed = 1; seed <= 40; seed++) {
    const r = prng(seed * 7727);
    const index = new ExpiryIndex();
    const live = new Map<string, number>();
    let height = 100;
    let n = 0;
    for (let step = 0; step < 600; step++) {
      const x = r();
      if (x < 0.55) {
        // Mostly near the tip, some never expiring, some far ahead (up to the u32 range komodod allows).
        const y = r();
        const expiry = y < 0.15 ? 0 : y < 0.9 ? height + 1 + Math.floor(r() * 25) : Math.floor(r() * 2 ** 32);
        const txid = `t${n++}`;
        live.set(txid, expiry);
        index.add(txid, expiry);
      } else if (x < 0.85 && live.size > 0) {
        const keys = [...live.keys()];
        const txid = keys[Math.floor(r() * keys.length)]!;
        index.delete(txid, live.get(txid)!);
        live.delete(txid);
      } else {
        height += 1 + Math.floor(r() * 3);
        const expected = [...live].filter(([, e]) => e !== 0 && height >>> 0 > e >>> 0);
        expected.sort((a, b) => a[1] - b[1]);
        const got = index.takeExpired(height);
        assert.deepEqual(new Set(got), new Set(expected.map(([t]) => t)), `seed ${seed}, step ${step}`);
        // Lowest expiry height first.
        assert.deepEqual(got.map((t) => live.get(t)), expected.map(([, e]) => e), `seed ${seed}, step ${step}: order`);
        for (const t of got) live.delete(t);
      }
      const heights = new Set([...live.values()].filter((e) => e !== 0)).size;
      assert.ok(index.heapSize <= 2 * heights + 65, `seed ${seed}, step ${step}: heap ${index.heapSize} for ${heights} live heights`);
    }
  }
});

test('expiry index: entries far ahead that leave otherwise (mined) do not pile up in its heap', () => {
  const index = new ExpiryIndex();
  index.add('near', 105);
  for (let i = 0; i < 5000; i++) index.add(`far${i}`, 1_000_000 + i);
  for (let i = 0; i < 5000; i++) index.delete(`far${i}`, 1_000_000 + i);
  assert.ok(index.heapSize <= 2 + 65, `heap ${index.heapSize} for 1 live height`);
  assert.deepEqual(index.takeExpired(106), ['near']);
  assert.ok(index.heapSize <= 65, `heap ${index.heapSize} for no live height`);
});
