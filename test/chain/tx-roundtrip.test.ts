import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { Outpoint } from '../../src/chain/tx/input.js';
import { toHex } from '../../src/chain/encoding/hex.js';
import { needVectors, loadVector, listVectors } from '../helpers/vectors.js';

function roundTrip(hex: string): Transaction {
  const tx = Transaction.fromHex(hex);
  assert.equal(tx.toHex(), hex.toLowerCase());
  return tx;
}

test('sighash.json: every transaction round-trips byte for byte', needVectors, () => {
  const rows = loadVector<unknown[][]>('komodo-src-test-data/sighash.json').slice(1);
  assert.equal(rows.length, 500);
  for (const row of rows) roundTrip(row[0] as string);
});

test('zcash transaction_legacy: structure and txid of all 30 vectors', needVectors, () => {
  const rows = loadVector<unknown[][]>('zcash/transaction_legacy.zcashd-order.json').slice(2);
  assert.equal(rows.length, 30);
  for (const row of rows) {
    const [hex, txid, overwintered, version, groupId, nIn, nOut, lockTime, expiry, valueBalance, nSpends, nOutputs, nJs] = row as [
      string, string, boolean, number, number | null, number, number, number, number | null, number | null, number | null, number | null, number,
    ];
    const tx = roundTrip(hex);
    assert.equal(tx.txid(), txid);
    assert.equal(tx.overwintered, overwintered);
    assert.equal(tx.version, version);
    if (groupId !== null) assert.equal(tx.versionGroupId, groupId);
    assert.equal(tx.vin.length, nIn);
    assert.equal(tx.vout.length, nOut);
    assert.equal(tx.lockTime, lockTime);
    if (expiry !== null) assert.equal(tx.expiryHeight, expiry);
    if (valueBalance !== null) assert.equal(tx.valueBalance, BigInt(valueBalance));
    if (nSpends !== null) assert.equal(tx.shieldedSpends.length, nSpends);
    if (nOutputs !== null) assert.equal(tx.shieldedOutputs.length, nOutputs);
    assert.equal(tx.joinSplits.length, nJs);
  }
});

test('komodo-examples: every transaction round-trips and its txid matches', needVectors, () => {
  const files = [
    ...listVectors('komodo-examples/developer-docs', '.json'),
    ...listVectors('komodo-examples/atomicdex-docs', '.json'),
    ...listVectors('komodo-examples/komodo-source-tests', '.json'),
    'zcash/zcash-mainnet-v2-sprout-joinsplit-tx.json',
  ];
  assert.ok(files.length >= 40);
  for (const f of files) {
    const v = loadVector<{ txid: string; hex: string }>(f);
    const tx = roundTrip(v.hex);
    assert.equal(tx.txid(), v.txid, f);
  }
});

test('ZIP-143/243 vectors: every transaction round-trips', needVectors, () => {
  for (const f of ['zcash/zip_0143.json', 'zcash/zip_0243.json']) {
    const rows = loadVector<unknown[][]>(f).slice(2);
    assert.equal(rows.length, 10);
    for (const row of rows) roundTrip(row[0] as string);
  }
});

test('a transaction built from fields serialises as komodod would (rawtx.md §2.1 worked example)', () => {
  const hex =
    '0400008085202f890122111111111111111111111111111111111111111111111111111111111111110000000000ffffffff0100e1f505000000001976a914f1dce4182fce875748c4986b240ff7d7bc3fffb088ac000000002c0100000000000000000000000000';
  const tx = roundTrip(hex);
  assert.equal(tx.isSaplingV4, true);
  assert.equal(tx.expiryHeight, 300);
  assert.equal(tx.vout[0]!.value, 100000000n);
  assert.equal(toHex(tx.vout[0]!.script), '76a914f1dce4182fce875748c4986b240ff7d7bc3fffb088ac');
});

test('Outpoint.txid: the display txid, made once and made again when the hash is replaced', () => {
  const a = Uint8Array.from({ length: 32 }, (_, i) => i);
  const o = new Outpoint(a, 3);
  assert.equal(o.txid(), Buffer.from(a).reverse().toString('hex'));
  assert.equal(o.txid(), o.txid());
  assert.equal(o.key(), `${Buffer.from(a).reverse().toString('hex')}:3`);
  const b = Uint8Array.from({ length: 32 }, (_, i) => 255 - i);
  o.hash = b;
  assert.equal(o.txid(), Buffer.from(b).reverse().toString('hex'));
  // The memo is no part of the object's value: a copy compares equal before and after it is made.
  assert.deepEqual(new Outpoint(b.slice(), 3), o);
});

test('Transaction.read with views: prevout hashes and scripts are views into the bytes read, never written through; without, copies', () => {
  // Two inputs and two outputs (rawtx.md §2.1's shape), so every view's offset is checked.
  const hex =
    '0400008085202f8902' +
    '2211111111111111111111111111111111111111111111111111111111111111' + '00000000' + '03aabbcc' + 'ffffffff' +
    '3322222222222222222222222222222222222222222222222222222222222222' + '01000000' + '02ddee' + 'feffffff' +
    '02' + '00e1f50500000000' + '1976a914f1dce4182fce875748c4986b240ff7d7bc3fffb088ac' + '0100000000000000' + '0151' +
    '00000000' + '2c010000' + '0000000000000000' + '000000';
  const raw = Uint8Array.from(Buffer.from(hex, 'hex'));
  const before = raw.slice();
  const viewed = Transaction.fromRaw(raw, true);
  const copied = Transaction.fromRaw(raw);
  const arrays = (tx: Transaction) => [...tx.vin.flatMap((i) => [i.prevout.hash, i.scriptSig]), ...tx.vout.map((o) => o.script)];
  for (const a of arrays(viewed)) assert.equal(a.buffer, raw.buffer, 'a view into the bytes read');
  for (const a of arrays(copied)) assert.notEqual(a.buffer, raw.buffer, 'a copy of its own');
  // The same transaction either way, and exactly as long as the bytes (vin and vout of their length).
  assert.equal(viewed.vin.length, 2);
  assert.equal(viewed.vout.length, 2);
  assert.equal(toHex(viewed.toRaw()), hex);
  assert.equal(viewed.txid(), copied.txid());
  assert.equal(toHex(viewed.vin[1]!.scriptSig), 'ddee');
  assert.equal(viewed.vin[1]!.prevout.index, 1);
  assert.equal(toHex(viewed.vout[1]!.script), '51');
  // Signing and building assign new arrays: the bytes read are left as they were.
  viewed.vin[0]!.scriptSig = Uint8Array.of(0x51);
  viewed.vout[0]!.script = Uint8Array.of(0x52);
  viewed.vin[1]!.prevout.hash = new Uint8Array(32);
  assert.deepEqual(raw, before, 'the bytes read are unchanged');
  assert.equal(copied.toHex(), hex);
  // A copy does not follow the bytes it was read from.
  raw.fill(0);
  assert.equal(copied.toHex(), hex);
});
