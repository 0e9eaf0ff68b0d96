import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { DecodeError } from '../../src/chain/encoding/errors.js';
import { fromHex } from '../../src/chain/encoding/hex.js';
import { BufferReader } from '../../src/chain/encoding/reader.js';
import { needVectors, loadVector, listVectors } from '../helpers/vectors.js';
import { prng, mutate } from '../helpers/prng.js';
import { cpuMs } from '../helpers/cpu-time.js';

function corpus(): Uint8Array[] {
  const rows = loadVector<unknown[][]>('komodo-src-test-data/sighash.json').slice(1, 60);
  const files = listVectors('komodo-examples/developer-docs', '.json');
  return [
    ...rows.map((r) => fromHex(r[0] as string)),
    ...files.map((f) => fromHex(loadVector<{ hex: string }>(f).hex)),
  ];
}

test('random mutations of vector transactions: only DecodeError escapes, never a hang', needVectors, () => {
  const seed = 20261122;
  const rnd = prng(seed);
  const txs = corpus();
  let rejected = 0;
  let accepted = 0;
  const started = cpuMs();
  for (let i = 0; i < 6000; i++) {
    const base = txs[i % txs.length]!;
    let data = mutate(base, rnd);
    if (rnd() < 0.3) data = mutate(data, rnd);
    try {
      const tx = Transaction.fromRaw(data);
      // Whatever parses must re-serialise to the very same bytes: no silent normalisation.
      assert.deepEqual(tx.toRaw(), data, `seed ${seed} case ${i}`);
      accepted++;
    } catch (e) {
      if (!(e instanceof DecodeError)) throw new Error(`seed ${seed} case ${i}: ${String(e)}`);
      rejected++;
    }
  }
  assert.ok(rejected > 1000 && accepted > 100, `rejected ${rejected}, accepted ${accepted}`);
  assert.ok(cpuMs() - started < 60_000);
});

test('hostile and malformed encodings are rejected with clear messages', () => {
  const bad: [string, RegExp][] = [
    ['', /unexpected end of data/],
    ['01000000', /unexpected end of data/],
    // 0xfe count of 2^25+1 inputs: above MAX_SIZE.
    ['01000000fe01000002', /size too large/],
    // A count of 1000 inputs with nothing after it.
    ['01000000fde803', /count 1000 exceeds/],
    // Non-canonical CompactSize (0xfd encoding of 1).
    ['01000000fd0100', /non-canonical/],
    // Overwintered with an unknown group id.
    ['030000800000000000', /Unknown transaction format/],
    // A valid empty v1 transaction followed by a stray byte.
    ['0100000000000000000000', /trailing bytes/],
  ];
  for (const [hex, re] of bad) {
    assert.throws(() => Transaction.fromRaw(fromHex(hex)), (e: unknown) => e instanceof DecodeError && re.test(e.message), hex);
  }
  assert.equal(Transaction.fromRaw(fromHex('01000000000000000000')).vin.length, 0);
});

test('CompactSize: canonical forms round-trip at every boundary', () => {
  const cases: [string, number][] = [
    ['fc', 0xfc],
    ['fdfd00', 0xfd],
    ['fdffff', 0xffff],
    ['fe00000100', 0x10000],
    ['fe00000002', 0x02000000],
  ];
  for (const [hex, n] of cases) assert.equal(new BufferReader(fromHex(hex)).compactSize(), n);
  assert.throws(() => new BufferReader(fromHex('fe01000002')).compactSize(), /size too large/);
  assert.throws(() => new BufferReader(fromHex('ff0000000001000000')).compactSize(), /size too large/);
  assert.throws(() => new BufferReader(fromHex('ffffffffff00000000')).compactSize(), /non-canonical/);
});
