import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FifoMap, FifoSet } from '../../src/chain/fifo.js';
import { prng } from '../helpers/prng.js';

test('FifoMap: the oldest insertion leaves first; setting a key already there keeps its place', () => {
  const m = new FifoMap<string, number>(3);
  m.set('a', 1).set('b', 2).set('c', 3);
  m.set('a', 10); // no new entry: nothing leaves, 'a' stays the oldest
  assert.deepEqual(['a', 'b', 'c'].map((k) => m.get(k)), [10, 2, 3]);
  m.set('d', 4);
  assert.equal(m.size, 3);
  assert.deepEqual(['a', 'b', 'c', 'd'].map((k) => m.has(k)), [false, true, true, true]);
  m.clear();
  assert.equal(m.size, 0);
  m.set('a', 1);
  assert.equal(m.get('a'), 1);
  assert.throws(() => new FifoMap(0), RangeError);
});

test('FifoMap and FifoSet hold exactly what a Map evicting its first key holds, through long random runs (order array compacted many times)', () => {
  for (const seed of [1, 2, 3]) {
    const rnd = prng(seed);
    const max = 1 + Math.floor(rnd() * 50);
    const m = new FifoMap<number, number>(max);
    const s = new FifoSet<number>(max);
    const model = new Map<number, number>();
    for (let step = 0; step < 20_000; step++) {
      // Keys from a range about twice the bound: many repeats, many evictions.
      const k = Math.floor(rnd() * max * 2);
      m.set(k, step);
      s.add(k);
      if (model.has(k)) model.set(k, step);
      else {
        model.set(k, step);
        if (model.size > max) model.delete(model.keys().next().value!);
      }
      assert.equal(m.size, model.size, `seed ${seed} step ${step}`);
      assert.equal(s.size, model.size, `seed ${seed} step ${step}`);
      if (step % 97 === 0) {
        for (let q = 0; q < max * 2; q++) {
          assert.equal(m.get(q), model.get(q), `seed ${seed} step ${step} key ${q}`);
          assert.equal(s.has(q), model.has(q), `seed ${seed} step ${step} key ${q}`);
        }
      }
    }
  }
});
