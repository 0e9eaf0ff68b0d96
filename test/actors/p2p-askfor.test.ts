import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AlreadyAsked, AskQueue, FingerprintSet } from '../../src/actors/p2p/askfor.js';
import { prng } from '../helpers/prng.js';

/**
 * The typed-array forms of komodod's AskFor bookkeeping, checked against plain models of what they
 * stand for (std::set, limitedmap, std::multimap) over long random runs of inserts and removals.
 */

/** A 32-byte hash whose first 8 bytes (the key) come from a small space, so hashes repeat and collide in buckets. */
function hashOf(n: number): Uint8Array {
  const h = new Uint8Array(32);
  new DataView(h.buffer).setUint32(0, n, true);
  new DataView(h.buffer).setUint32(4, n % 7, true);
  h[31] = 0xaa;
  return h;
}

test('FingerprintSet: std::set semantics over random adds and deletes, growing and shrinking', () => {
  const rnd = prng(11);
  const set = new FingerprintSet();
  const model = new Set<number>();
  for (let round = 0; round < 3; round++) {
    // Fill well past several growth steps, then empty it again (the table shrinks as it goes).
    for (let i = 0; i < 20_000; i++) {
      const n = Math.floor(rnd() * 30_000);
      assert.equal(set.add(hashOf(n)), !model.has(n));
      model.add(n);
      if (rnd() < 0.3) {
        const d = Math.floor(rnd() * 30_000);
        assert.equal(set.delete(hashOf(d)), model.delete(d));
      }
    }
    assert.equal(set.size, model.size);
    for (let n = 0; n < 30_000; n++) assert.equal(set.has(hashOf(n)), model.has(n), `hash ${n}`);
    for (const n of [...model]) {
      assert.equal(set.delete(hashOf(n)), true);
      model.delete(n);
      if (model.size % 997 === 0) for (const m of model) assert.ok(set.has(hashOf(m)));
    }
    assert.equal(set.size, 0);
  }
  // The all-zero key is a key like any other.
  assert.equal(set.add(new Uint8Array(32)), true);
  assert.equal(set.has(new Uint8Array(32)), true);
  assert.equal(set.add(new Uint8Array(32)), false);
  set.clear();
  assert.equal(set.size, 0);
  assert.equal(set.has(new Uint8Array(32)), false);
});

test('AlreadyAsked: limitedmap semantics (updates, erases, the lowest time dropped when the limit is reached)', () => {
  const rnd = prng(12);
  const limit = 500;
  const map = new AlreadyAsked(limit);
  const model = new Map<number, number>();
  let clock = 1;
  for (let i = 0; i < 50_000; i++) {
    const n = Math.floor(rnd() * 2000);
    const r = rnd();
    if (r < 0.15) {
      map.delete(hashOf(n));
      model.delete(n);
    } else {
      // Times mostly rise (AskFor's clock) but an update may set any time, as limitedmap::update allows.
      const time = r < 0.9 ? clock++ : rnd() * clock; // never equal to another (ties may go either way)
      if (!model.has(n) && model.size + 1 === limit) {
        // limitedmap::insert: reaching the limit drops the entry with the lowest time, not the new one.
        let low = -1;
        for (const [k, v] of model) if (low < 0 || v < model.get(low)!) low = k;
        model.delete(low);
      }
      map.set(hashOf(n), time);
      model.set(n, time);
    }
    assert.equal(map.size, model.size);
    if (i % 1000 === 0) for (let m = 0; m < 2000; m++) assert.equal(map.get(hashOf(m)), model.get(m), `hash ${m} at step ${i}`);
  }
  assert.ok(model.size <= limit - 1);
  for (const n of [...model.keys()]) map.delete(hashOf(n));
  assert.equal(map.size, 0);
  map.set(hashOf(1), 5);
  assert.equal(map.get(hashOf(1)), 5);
});

test('AskQueue: a std::multimap by time, equal times in arrival order, hashes whole', () => {
  const rnd = prng(13);
  const q = new AskQueue();
  const model: { time: number; seq: number; hash: Uint8Array }[] = [];
  let seq = 0;
  const out = new Uint8Array(64);
  for (let i = 0; i < 30_000; i++) {
    if (rnd() < 0.55 || model.length === 0) {
      const time = Math.floor(rnd() * 500);
      const hash = new Uint8Array(32).map(() => Math.floor(rnd() * 256));
      q.push(time, hash);
      model.push({ time, seq: seq++, hash });
    } else {
      model.sort((a, b) => a.time - b.time || a.seq - b.seq);
      const first = model.shift()!;
      assert.equal(q.nextTime, first.time);
      q.pop(out, 32);
      assert.deepEqual(out.subarray(32), first.hash);
    }
    assert.equal(q.size, model.length);
  }
  model.sort((a, b) => a.time - b.time || a.seq - b.seq);
  for (const m of model) {
    q.pop(out, 0);
    assert.deepEqual(out.subarray(0, 32), m.hash);
  }
  assert.equal(q.size, 0);
  assert.equal(q.nextTime, Infinity);
  q.push(7, hashOf(3));
  q.clear();
  assert.equal(q.size, 0);
  assert.equal(q.nextTime, Infinity);
});
