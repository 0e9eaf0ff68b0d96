import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { TxIn, Outpoint } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { fromHex, toHex, toHexReversed } from '../../src/chain/encoding/hex.js';
import {
  NOT_AN_INPUT,
  PrecomputedTxData,
  SIGHASH_ALL,
  SIGHASH_ANYONECANPAY,
  SIGHASH_NONE,
  SIGHASH_SINGLE,
  SighashError,
  signatureHash,
} from '../../src/chain/script/sighash.js';
import { needVectors, loadVector } from '../helpers/vectors.js';

type SighashRow = [string, string, number, number, number, string];

test('sighash.json: all 500 rows (legacy, ZIP-143, ZIP-243), display order', needVectors, () => {
  const rows = loadVector<unknown[]>('komodo-src-test-data/sighash.json').slice(1) as SighashRow[];
  assert.equal(rows.length, 500);
  const counts = { legacy: 0, overwinter: 0, sapling: 0 };
  for (const [i, [txHex, scriptHex, nIn, hashType, branchId, expected]] of rows.entries()) {
    const tx = Transaction.fromHex(txHex);
    const script = fromHex(scriptHex);
    // The generator always passes amount 0 (vectors README).
    const digest = signatureHash(script, tx, nIn, hashType, 0n, branchId);
    assert.equal(toHexReversed(digest), expected, `row ${i + 1}`);
    // The same digest through the per-transaction cache.
    assert.equal(toHexReversed(signatureHash(script, tx, nIn, hashType, 0n, branchId, new PrecomputedTxData(tx))), expected);
    if (!tx.overwintered) counts.legacy++;
    else if (tx.isSaplingV4) counts.sapling++;
    else counts.overwinter++;
  }
  // Coverage as the vectors README counts it.
  assert.deepEqual(counts, { legacy: 231, overwinter: 139, sapling: 130 });
});

type ZipRow = [string, string, number, number, number, number, string];

for (const file of ['zcash/zip_0143.json', 'zcash/zip_0243.json']) {
  test(`${file}: all 10 rows, natural order`, needVectors, () => {
    const rows = loadVector<unknown[]>(file).slice(2) as ZipRow[];
    assert.equal(rows.length, 10);
    for (const [i, [txHex, scriptHex, input, hashType, amount, branchId, expected]] of rows.entries()) {
      assert.ok(Number.isSafeInteger(amount), `row ${i}: amount survives JSON.parse`);
      const tx = Transaction.fromHex(txHex);
      const nIn = input === -1 ? NOT_AN_INPUT : input;
      const cache = new PrecomputedTxData(tx);
      assert.equal(toHex(signatureHash(fromHex(scriptHex), tx, nIn, hashType, BigInt(amount), branchId)), expected, `row ${i}`);
      assert.equal(toHex(signatureHash(fromHex(scriptHex), tx, nIn, hashType, BigInt(amount), branchId, cache)), expected);
    }
  });
}

function simpleTx(nIn: number, nOut: number, overwinter?: 'v3' | 'v4'): Transaction {
  const tx = new Transaction();
  if (overwinter) {
    tx.overwintered = true;
    tx.version = overwinter === 'v3' ? 3 : 4;
    tx.versionGroupId = overwinter === 'v3' ? 0x03c48270 : 0x892f2085;
  }
  for (let i = 0; i < nIn; i++) tx.vin.push(new TxIn(new Outpoint(new Uint8Array(32).fill(i + 1), i)));
  for (let i = 0; i < nOut; i++) tx.vout.push(new TxOut(BigInt(1000 * (i + 1)), Uint8Array.of(0x51)));
  return tx;
}

test('legacy SIGHASH_SINGLE without a matching output throws (komodod, not Bitcoin\'s "1")', () => {
  const tx = simpleTx(2, 1);
  assert.throws(() => signatureHash(Uint8Array.of(0x51), tx, 1, SIGHASH_SINGLE, 0n, 0), SighashError);
  assert.throws(() => signatureHash(Uint8Array.of(0x51), tx, 1, SIGHASH_SINGLE | SIGHASH_ANYONECANPAY, 0n, 0), SighashError);
  // Inputs with a matching output, and the other base types, hash normally.
  assert.equal(signatureHash(Uint8Array.of(0x51), tx, 0, SIGHASH_SINGLE, 0n, 0).length, 32);
  assert.equal(signatureHash(Uint8Array.of(0x51), tx, 1, SIGHASH_NONE, 0n, 0).length, 32);
  // ZIP-143/243 hash zeros for hashOutputs instead of throwing (interpreter.cpp).
  assert.equal(signatureHash(Uint8Array.of(0x51), simpleTx(2, 1, 'v4'), 1, SIGHASH_SINGLE, 0n, 0x76b809bb).length, 32);
});

test('an input index out of range throws', () => {
  const tx = simpleTx(1, 1);
  assert.throws(() => signatureHash(Uint8Array.of(0x51), tx, 1, SIGHASH_ALL, 0n, 0), /input index is out of range/);
  assert.throws(() => signatureHash(Uint8Array.of(0x51), simpleTx(1, 1, 'v3'), 5, SIGHASH_ALL, 0n, 0), SighashError);
});

test('the cache gives the same digests for every input and hash type', () => {
  for (const kind of [undefined, 'v3', 'v4'] as const) {
    const tx = simpleTx(3, 3, kind);
    const cache = new PrecomputedTxData(tx);
    for (let nIn = 0; nIn < 3; nIn++) {
      for (const ht of [1, 2, 3, 0x81, 0x82, 0x83]) {
        const a = signatureHash(Uint8Array.of(0x51, 0x52), tx, nIn, ht, 5n, 0x76b809bb);
        const b = signatureHash(Uint8Array.of(0x51, 0x52), tx, nIn, ht, 5n, 0x76b809bb, cache);
        assert.deepEqual(a, b);
      }
    }
  }
});
