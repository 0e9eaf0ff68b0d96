import type { Database } from 'lmdb';
import type { OutputPage, OutputRef } from './ordered-outputs.js';
import { toHexReversed } from '../../chain/encoding/hex.js';

/**
 * Paged reads of an LMDB index of outputs keyed `prefix | txid (internal) | n u32 LE`
 * (CAddressUnspentKey's layout, so LMDB's byte order is komodod's address-index order, the order
 * ordered-outputs.ts keeps in memory). A page costs what it walks: a cursor from the page's start.
 */

/** The first key after the outpoint `ref` under `prefix`: its key with one 0 byte more (keys under a prefix all have one length, so nothing sorts between). */
function keyAfter(prefix: Buffer, ref: OutputRef): Buffer {
  const k = Buffer.alloc(prefix.length + 37);
  prefix.copy(k, 0);
  Buffer.from(ref.txid, 'hex').reverse().copy(k, prefix.length);
  k.writeUInt32LE(ref.index >>> 0, prefix.length + 32);
  return k;
}

/**
 * Up to `limit` outputs under `prefix` worth at least `minValue` (`valueOf` reads a row's amount
 * without decoding the rest), in key order after the outpoint `after` (from the start without it;
 * the outpoint need not be held any more); `next` is where the following page starts, null when the
 * walk reached the end — OrderedOutputs.page's contract.
 */
export function pageOf<T>(
  db: Database<Buffer, Buffer>,
  prefix: Buffer,
  after: OutputRef | undefined,
  limit: number,
  minValue: bigint,
  valueOf: (value: Buffer) => bigint,
  decode: (key: Buffer, value: Buffer) => T,
): OutputPage<T> {
  const start = after === undefined ? prefix : keyAfter(prefix, after);
  const end = Buffer.concat([prefix, Buffer.alloc(37, 0xff)]);
  const outputs: T[] = [];
  // The key of the row that filled the page (copied: a cursor's key buffer may be reused), the next page's cursor if a row follows.
  let full: Buffer | undefined;
  for (const { key, value } of db.getRange({ start, end })) {
    if (full) return { outputs, next: { txid: toHexReversed(full.subarray(prefix.length, prefix.length + 32)), index: full.readUInt32LE(prefix.length + 32) } };
    if (valueOf(value) >= minValue) outputs.push(decode(key, value));
    if (outputs.length >= limit) full = Buffer.from(key);
  }
  return { outputs, next: null };
}
