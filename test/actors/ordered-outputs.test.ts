import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareOutpoints } from '../../src/chain/address/unspent-order.js';
import { OrderedOutputs, type OrderedOutput, type OutputRef } from '../../src/actors/chainstore/ordered-outputs.js';
import { prng } from '../helpers/prng.js';

/**
 * OrderedOutputs keeps an address's unspent outputs in komodod's address-index key order as they come
 * and go: whatever the adds and removals, its order, size, total and pages equal a sort of the same
 * set by that order, which is leveldb's byte order of the key's txid (internal order) and index (LE).
 */

/** The bytes of CAddressUnspentKey that follow the address: txid in internal order, index little-endian. */
const keyBytes = (o: OutputRef) => {
  const b = Buffer.alloc(36);
  Buffer.from(o.txid, 'hex').reverse().copy(b);
  b.writeUInt32LE(o.index >>> 0, 32);
  return b;
};

const hex = (rnd: () => number, bytes: number) => Array.from({ length: bytes }, () => Math.floor(rnd() * 256).toString(16).padStart(2, '0')).join('');

test('compareOutpoints (src/chain/address/unspent-order.ts) is the byte order of the key: txid in internal order, then the index little-endian', () => {
  const rnd = prng(7);
  const txids = Array.from({ length: 6 }, () => hex(rnd, 32));
  // txids differing only in their first or last display byte, and indexes differing in either byte.
  txids.push(`00${txids[0]!.slice(2)}`, `ff${txids[0]!.slice(2)}`, `${txids[0]!.slice(0, 62)}00`, `${txids[0]!.slice(0, 62)}ff`);
  const outs = txids.flatMap((txid) => [0, 1, 255, 256, 257, 65536, 0x7fffffff].map((index) => ({ txid, index })));
  const byKey = [...outs].sort((a, b) => Buffer.compare(keyBytes(a), keyBytes(b)));
  assert.deepEqual([...outs].sort(compareOutpoints), byKey);
  for (const a of outs.slice(0, 20)) for (const b of outs) assert.equal(Math.sign(compareOutpoints(a, b)), Buffer.compare(keyBytes(a), keyBytes(b)));
});

test('adds and removals in any order keep key order, size and total; pages walk it from a cursor', () => {
  for (let seed = 1; seed <= 6; seed++) {
    const rnd = prng(seed);
    const list = new OrderedOutputs<OrderedOutput>();
    const model = new Map<string, OrderedOutput>();
    // Few txids, many indexes: neighbours in key order share a txid, as a fan-out's outputs do.
    const txids = Array.from({ length: 40 }, () => hex(rnd, 32));
    for (let step = 0; step < 4000; step++) {
      const txid = txids[Math.floor(rnd() * txids.length)]!;
      const index = Math.floor(rnd() * 300);
      const k = `${txid}:${index}`;
      if (rnd() < 0.6) {
        const out = { txid, index, value: BigInt(1 + Math.floor(rnd() * 1000)) };
        list.add(out);
        model.set(k, out);
      } else {
        const removed = list.delete(txid, index);
        assert.equal(removed, model.get(k), `seed ${seed} step ${step}: the removed output`);
        model.delete(k);
      }
    }
    const sorted = [...model.values()].sort((a, b) => Buffer.compare(keyBytes(a), keyBytes(b)));
    assert.deepEqual(list.toArray(), sorted, `seed ${seed}: key order`);
    assert.equal(list.size, sorted.length);
    assert.ok(sorted.length > 1024, `seed ${seed}: ${sorted.length} outputs, several chunks`);
    assert.equal(list.total, sorted.reduce((s, o) => s + o.value, 0n));
    // Pages of 1-97 outputs worth at least minValue, each from the previous page's cursor.
    for (const minValue of [0n, 300n, 990n]) {
      const limit = 1 + Math.floor(rnd() * 97);
      const walked: OrderedOutput[] = [];
      let after: OutputRef | undefined;
      for (let pages = 0; ; pages++) {
        assert.ok(pages <= sorted.length, 'the walk ends');
        const page = list.page(after, limit, minValue);
        assert.ok(page.outputs.length <= limit);
        walked.push(...page.outputs);
        if (page.next === null) break;
        assert.equal(page.outputs.length, limit, 'only the last page is short');
        after = page.next;
      }
      assert.deepEqual(walked, sorted.filter((o) => o.value >= minValue), `seed ${seed}: pages with minValue ${minValue}`);
    }
  }
});

test('a cursor stays a position when its own output leaves between pages', () => {
  const list = new OrderedOutputs<OrderedOutput>();
  const txid = 'ab'.repeat(32);
  for (let i = 0; i < 10; i++) list.add({ txid, index: i, value: 1n });
  const first = list.page(undefined, 4);
  assert.deepEqual(first.outputs.map((o) => o.index), [0, 1, 2, 3]);
  list.delete(txid, 3);
  list.delete(txid, 4);
  assert.deepEqual(list.page(first.next!, 100).outputs.map((o) => o.index), [5, 6, 7, 8, 9]);
  // Replacing an outpoint keeps one entry and corrects the total.
  list.add({ txid, index: 5, value: 10n });
  assert.equal(list.size, 8);
  assert.equal(list.total, 17n);
  assert.deepEqual(new OrderedOutputs().page(undefined, 5), { outputs: [], next: null });
});
