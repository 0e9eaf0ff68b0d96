import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { TxIn, Outpoint } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { fromHex } from '../../src/chain/encoding/hex.js';
import { hash160 } from '../../src/chain/crypto/hash.js';
import { p2pkhScript, p2pkScript } from '../../src/chain/script/script.js';
import { addressKey } from '../../src/chain/address/index-key.js';
import { OrderedOutputs, type OrderedOutput, type OutputRef } from '../../src/actors/chainstore/ordered-outputs.js';
import { fakeHash, tempIndexes } from '../helpers/chainstate.js';
import { prng } from '../helpers/prng.js';

/**
 * The LMDB address unspent index read in pages: its key layout (type | hash160 | txid internal |
 * index LE) makes LMDB's byte order komodod's CAddressUnspentKey order, the order the in-memory
 * OrderedOutputs keeps; a page from any cursor, with any limit and minimum value, is the page
 * OrderedOutputs gives for the same set; the balance is a running total kept through connect and
 * disconnect.
 */

const PK_A = fromHex('02676d00110c2cd14ae24f95969e8598f7ccfaa675498b82654a5b5bd57fc1d8cf');
const PK_B = fromHex('03e6191c70c9c9a28f9fd87089b9488d0e6c02fb629df64979c9cdb6b2b4a68d95');

/** The bytes of CAddressUnspentKey after the address: txid in internal order, index little-endian. */
const keyBytes = (o: OutputRef) => {
  const b = Buffer.alloc(36);
  Buffer.from(o.txid, 'hex').reverse().copy(b);
  b.writeUInt32LE(o.index >>> 0, 32);
  return b;
};

const brief = (o: OrderedOutput) => [o.txid, o.index, o.value] as const;
const briefPage = (p: { outputs: OrderedOutput[]; next: OutputRef | null }) => ({ outputs: p.outputs.map(brief), next: p.next });

test('LMDB address unspent pages: komodod key order, OrderedOutputs pages from any cursor, running balances through connect and disconnect', async () => {
  const t0 = tempIndexes();
  const ix = t0.ix;
  const rnd = prng(11);
  const addrA = addressKey(1, hash160(PK_A));
  const addrB = addressKey(1, hash160(PK_B));
  const model = new Map<string, OrderedOutput>();
  const blocks: { txs: Transaction[]; txids: string[] }[] = [];

  // Three blocks of several coinbase-form transactions, each paying A 300 outputs (indexes past 255:
  // the little-endian index bytes order them) and B one.
  for (let h = 1; h <= 3; h++) {
    const txs: Transaction[] = [];
    for (let k = 0; k < 3; k++) {
      const tx = new Transaction();
      tx.vin.push(new TxIn(Outpoint.null(), Uint8Array.of(0x02, h, k), 0xffffffff));
      for (let n = 0; n < 300; n++) tx.vout.push(new TxOut(BigInt(1 + Math.floor(rnd() * 1000)), n % 2 ? p2pkScript(PK_A) : p2pkhScript(hash160(PK_A))));
      tx.vout.push(new TxOut(5n, p2pkScript(PK_B)));
      txs.push(tx);
    }
    const txids = txs.map((t) => t.txid());
    t0.connect(txs, txids, fakeHash(h), h);
    blocks.push({ txs, txids });
    txs.forEach((tx, i) => tx.vout.forEach((o, n) => n < 300 && model.set(`${txids[i]}:${n}`, { txid: txids[i]!, index: n, value: o.value })));
  }
  // Block 4 spends a random fifth of A's outputs to B.
  const spentRefs = [...model.values()].filter(() => rnd() < 0.2);
  const spend = new Transaction();
  spend.vin = spentRefs.map((o) => new TxIn(new Outpoint(Buffer.from(o.txid, 'hex').reverse(), o.index), new Uint8Array(0), 0xffffffff));
  spend.vout.push(new TxOut(1n, p2pkScript(PK_B)));
  const beforeSpend = { rows: [...ix.allAddressRows()], a: ix.balanceAt(addrA), b: ix.balanceAt(addrB) };
  t0.connect([spend], [spend.txid()], fakeHash(4), 4);
  for (const o of spentRefs) model.delete(`${o.txid}:${o.index}`);

  const sorted = [...model.values()].sort((a, b) => Buffer.compare(keyBytes(a), keyBytes(b)));
  assert.deepEqual(ix.unspentAt(addrA).map(brief), sorted.map(brief), 'key order');
  assert.equal(ix.balanceAt(addrA), sorted.reduce((s, o) => s + o.value, 0n));
  assert.equal(ix.balanceAt(addrB), 9n * 5n + 1n);

  const mem = new OrderedOutputs<OrderedOutput>();
  for (const o of model.values()) mem.add(o);
  for (const limit of [1, 7, 256, 5000]) {
    for (const minValue of [0n, 500n, 2000n]) {
      let after: OutputRef | undefined;
      let pages = 0;
      for (;;) {
        const got = briefPage(ix.unspentPageAt(addrA, after, limit, minValue));
        const want = briefPage(mem.page(after, limit, minValue));
        assert.deepEqual(got, want, `limit ${limit}, minValue ${minValue}, page ${pages}`);
        pages++;
        if (want.next === null) break;
        after = want.next;
      }
      if (limit === 7 && minValue === 0n) assert.ok(pages > 100);
    }
  }
  // A cursor at an outpoint spent since, and one past the last.
  for (const gone of spentRefs.slice(0, 20)) assert.deepEqual(briefPage(ix.unspentPageAt(addrA, gone, 5)), briefPage(mem.page(gone, 5)));
  assert.deepEqual(ix.unspentPageAt(addrA, sorted[sorted.length - 1], 5), { outputs: [], next: null });
  assert.deepEqual(ix.unspentPageAt(addressKey(2, hash160(PK_A)), undefined, 5), { outputs: [], next: null });

  t0.disconnect([spend], [spend.txid()], fakeHash(4), 4);
  assert.deepEqual({ rows: [...ix.allAddressRows()], a: ix.balanceAt(addrA), b: ix.balanceAt(addrB) }, beforeSpend);
  for (let h = 3; h >= 1; h--) t0.disconnect(blocks[h - 1]!.txs, blocks[h - 1]!.txids, fakeHash(h), h);
  assert.equal(ix.balanceAt(addrA), 0n);
  assert.deepEqual([...ix.allAddressRows()], [], 'no balance row is left behind');
  await t0.close();
});

test('chain state amounts: coins below, at and past 2^53 read back exactly, their spend files them as undo data and takes them off the balances', async () => {
  const t = tempIndexes();
  try {
    const values = [0n, 1n, 0xffffffffn, 1n << 32n, (1n << 53n) - 1n, 1n << 53n, (1n << 53n) + 1n, (1n << 60n) + 12345n, (1n << 61n) + 3n];
    // One address per amount; their sum (getsnapshot's total) stays an i64.
    const scripts = values.map((_, i) => p2pkhScript(hash160(Uint8Array.of(7, i))));
    const fund = new Transaction();
    fund.vin.push(new TxIn(Outpoint.null(), Uint8Array.of(0x01, 0x01), 0xffffffff));
    values.forEach((v, i) => fund.vout.push(new TxOut(v, scripts[i]!)));
    const fundId = fund.txid();
    t.connect([fund], [fundId], fakeHash(1), 1);
    values.forEach((v, n) => {
      // The stored row: the amount u64 LE at 9, as Buffer's writeBigUInt64LE lays it out.
      const amount = Buffer.alloc(8);
      amount.writeBigUInt64LE(v);
      assert.deepEqual(t.ix.coinEntry(fundId, n)?.raw.subarray(9, 17), amount, `stored amount ${n}`);
      assert.equal(t.ix.coin(fundId, n)?.value, v, `coin ${n}`);
      assert.equal(t.ix.coinEntry(fundId, n)?.coin.value, v, `coinEntry ${n}`);
      assert.equal(t.ix.balanceAt(addressKey(1, hash160(Uint8Array.of(7, n)))), v, `balance ${n}`);
    });
    const spend = new Transaction();
    values.forEach((_, n) => spend.vin.push(new TxIn(new Outpoint(fromHex(fundId).reverse(), n), new Uint8Array(0), 0xffffffff)));
    spend.vout.push(new TxOut(1n, scripts[0]!));
    const undo = t.connect([spend], [spend.txid()], fakeHash(2), 2);
    assert.deepEqual(undo.spent.map((s) => s.coin.value), values);
    assert.deepEqual(t.ix.undoOf(fakeHash(2))?.spent.map((s) => s.coin.value), values);
    values.forEach((v, n) => {
      const address = addressKey(1, hash160(Uint8Array.of(7, n)));
      assert.equal(t.ix.balanceAt(address), n === 0 ? 1n : 0n, `balance ${n} after the spend`);
      // The history's rows in key order: the credit, then the spend's (for address 0 its output first), the debit an i64 LE.
      assert.deepEqual(t.ix.historyAt(address).map((d) => d.satoshis), n === 0 ? [v, 1n, -v] : [v, -v], `history ${n}`);
    });
  } finally {
    await t.close();
  }
});
