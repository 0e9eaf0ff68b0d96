import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { DecodeError } from '../../src/chain/encoding/errors.js';
import { fromHex } from '../../src/chain/encoding/hex.js';
import {
  decodeTokenCreateOpRet,
  decodeTokenOpRet,
  encodeTokenCreateOpRet,
  encodeTokenTransferOpRet,
} from '../../src/chain/tokens/opret.js';
import { needVectors, listVectors, loadVector } from '../helpers/vectors.js';
import { cpuMs } from '../helpers/cpu-time.js';

/** xorshift32: a seeded generator so every run mutates the same way. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
}

function mutate(src: Uint8Array, next: () => number): Uint8Array {
  let b = Uint8Array.from(src);
  const n = 1 + (next() % 4);
  for (let k = 0; k < n; k++) {
    const kind = next() % 6;
    const at = b.length ? next() % b.length : 0;
    if (kind === 0 && b.length) b[at] = next() & 0xff; // byte
    else if (kind === 1 && b.length) b[at] = b[at]! ^ (1 << (next() % 8)); // bit
    else if (kind === 2) b = b.slice(0, at); // truncate
    else if (kind === 3) b = Uint8Array.from([...b.slice(0, at), ...Array.from({ length: 1 + (next() % 8) }, () => next() & 0xff), ...b.slice(at)]); // insert
    else if (kind === 4 && b.length) b = Uint8Array.from([...b.slice(0, at), ...b.slice(at + 1 + (next() % 4))]); // delete
    else if (b.length) b[at] = [0x00, 0xfd, 0xfe, 0xff, 0x4c, 0x4d, 0x4e, 0x21, 0x41][next() % 9]!; // length-ish bytes
  }
  return b;
}

const PK = fromHex('02676d00110c2cd14ae24f95969e8598f7ccfaa675498b82654a5b5bd57fc1d8cf');

test('mutated token OP_RETURNs: only DecodeError escapes, nothing hangs', needVectors, () => {
  const seeds: Uint8Array[] = [];
  for (const rel of listVectors('komodo-examples/developer-docs', '.json').filter((f) => /\/tokens_/.test(f))) {
    const tx = Transaction.fromHex(loadVector<{ hex: string }>(rel).hex);
    seeds.push(tx.vout[tx.vout.length - 1]!.script);
  }
  assert.equal(seeds.length, 3);
  const tid = new Uint8Array(32).fill(7);
  seeds.push(encodeTokenCreateOpRet({ origPubkey: PK, name: 'NFT', description: 'd', nftData: fromHex('f70102') }));
  seeds.push(encodeTokenTransferOpRet({ tokenid: tid, pubkeys: [PK, PK], blobs: [{ id: 0x12, data: fromHex('e37300e40b5402000000') }] }));
  seeds.push(fromHex('6a' + '25' + 'f274' + '07'.repeat(32) + '00' + '02' + 'e378')); // old-style layout

  const next = rng(0x70c3e5);
  const started = cpuMs();
  let decoded = 0;
  let rejected = 0;
  const CASES = 6000;
  for (let i = 0; i < CASES; i++) {
    const m = mutate(seeds[i % seeds.length]!, next);
    for (const decode of [decodeTokenOpRet, decodeTokenCreateOpRet]) {
      try {
        decode(m);
        decoded++;
      } catch (e) {
        if (!(e instanceof DecodeError)) throw new Error(`non-DecodeError on ${Buffer.from(m).toString('hex')}: ${String(e)}`);
        rejected++;
      }
    }
  }
  assert.equal(decoded + rejected, 2 * CASES);
  assert.ok(decoded > 0 && rejected > 0, `both outcomes occur (decoded ${decoded}, rejected ${rejected})`);
  assert.ok(cpuMs() - started < 5000, 'bounded time');
});

test('hostile lengths: huge compact sizes fail fast without allocating', () => {
  const big = [
    'f263' + 'fe00000002', // 32 MiB vector announced: above what is left
    'f263' + 'ff0000000001000000', // > MAX_SIZE
    'f274' + '00'.repeat(32) + '01' + 'fe00000002', // pubkey field of 32 MiB
    'f274' + '00'.repeat(32) + '00' + '12' + 'fdffff',
  ];
  for (const h of big) {
    const script = Uint8Array.from([0x6a, h.length / 2, ...fromHex(h)]);
    assert.throws(() => decodeTokenOpRet(script), DecodeError, h);
  }
});
