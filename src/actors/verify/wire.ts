import { BufferReader } from '../../chain/encoding/reader.js';
import { BufferWriter } from '../../chain/encoding/writer.js';
import type { ScriptError } from '../../chain/script/script-error.js';
import type { BatchResult, InputOutcome, ScriptBatch } from './jobs.js';

/**
 * The bytes script-check batches and their results travel as between the calling thread and a worker
 * (records of a SharedRing, ring.ts).
 *
 * A batch: a 16-byte header (id, flags, branchId as u32; ccEnabled, collectKeys as u8; 2 spare), then
 * its data as is.
 * A result: the batch id (u32), then 1 and the error text, or 0 and per transaction its inputs' codes
 * (OK, CC: left to the calling thread, FAILED or FAILED_POLICY_ONLY followed by the script error's
 * name), then 1 and per transaction its verified signatures' cache keys (Latin-1), or 0 when none were asked for.
 */

const BATCH_HEADER = 16;
const OK = 0;
const CC = 1;
const FAILED = 2;
const FAILED_POLICY_ONLY = 3;

/** The header batchHeader writes into: one for the thread, as a ring's push copies it at once. */
const HEADER = new Uint8Array(BATCH_HEADER);
const HEADER_VIEW = new DataView(HEADER.buffer);

/**
 * A batch's header (its record is the header, then the batch's data): a view valid until the next
 * call (SharedRing.push copies it into the ring), so no buffer and DataView are made per batch.
 */
export function batchHeader(b: Omit<ScriptBatch, 'data'>): Uint8Array {
  const out = HEADER;
  const v = HEADER_VIEW;
  out.fill(0);
  v.setUint32(0, b.id, true);
  v.setUint32(4, b.flags >>> 0, true);
  v.setUint32(8, b.branchId >>> 0, true);
  v.setUint8(12, b.ccEnabled ? 1 : 0);
  v.setUint8(13, b.collectKeys ? 1 : 0);
  return out;
}

/** A batch from its record: the data is a view into `record`. */
export function decodeBatch(record: Uint8Array): ScriptBatch {
  const v = new DataView(record.buffer, record.byteOffset, record.byteLength);
  return {
    id: v.getUint32(0, true),
    flags: v.getUint32(4, true) | 0,
    branchId: v.getUint32(8, true),
    ccEnabled: v.getUint8(12) === 1,
    collectKeys: v.getUint8(13) === 1,
    data: record.subarray(BATCH_HEADER),
  };
}

/** Texts are UTF-8; cache keys travel as their bytes (SignatureCache.keyBytes). */
function writeText(w: BufferWriter, text: string): void {
  w.varBytes(Buffer.from(text, 'utf8'));
}

function readText(r: BufferReader): string {
  const b = r.varBytes();
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');
}

/** A result as its record's bytes, written with `w` (reset first; a view valid until its next use). */
export function encodeResult(res: BatchResult, w: BufferWriter): Uint8Array {
  w.reset();
  w.u32(res.id);
  if ('error' in res) {
    w.u8(1);
    writeText(w, res.error);
    return w.written();
  }
  w.u8(0);
  w.compactSize(res.outcomes.length);
  for (const tx of res.outcomes) {
    w.compactSize(tx.length);
    for (const o of tx) {
      if (o === null) w.u8(CC);
      else if (o.ok) w.u8(OK);
      else {
        w.u8(o.policyOnly ? FAILED_POLICY_ONLY : FAILED);
        writeText(w, o.error);
      }
    }
  }
  if (!res.keys) {
    w.u8(0);
    return w.written();
  }
  w.u8(1);
  for (const keys of res.keys) {
    w.compactSize(keys.length);
    for (const k of keys) w.varBytes(k);
  }
  return w.written();
}

const OK_OUTCOME: InputOutcome = Object.freeze({ ok: true });

export function decodeResult(record: Uint8Array): BatchResult {
  const r = new BufferReader(record);
  const id = r.u32();
  if (r.u8() === 1) return { id, error: readText(r) };
  // Arrays of their exact length (each count is checked against the bytes left): grown by push,
  // each small one had room for 17.
  const txs = r.count(1);
  const outcomes = new Array<(InputOutcome | null)[]>(txs);
  for (let t = 0; t < txs; t++) {
    const inputs = r.count(1);
    const tx = new Array<InputOutcome | null>(inputs);
    for (let i = 0; i < inputs; i++) {
      const code = r.u8();
      if (code === OK) tx[i] = OK_OUTCOME;
      else if (code === CC) tx[i] = null;
      else if (code === FAILED || code === FAILED_POLICY_ONLY) tx[i] = { ok: false, error: readText(r) as ScriptError, policyOnly: code === FAILED_POLICY_ONLY };
      else throw new Error(`script-check result: unknown input code ${code}`);
    }
    outcomes[t] = tx;
  }
  if (r.u8() === 0) return { id, outcomes, keys: null };
  // Buffers over the record (shift's own copy), as runBatch's are; made keys by the batch's receiver.
  const keys = new Array<Uint8Array[]>(txs);
  for (let t = 0; t < txs; t++) {
    const n = r.count(1);
    const txKeys = new Array<Uint8Array>(n);
    for (let k = 0; k < n; k++) {
      const b = r.varBytes();
      txKeys[k] = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    }
    keys[t] = txKeys;
  }
  return { id, outcomes, keys };
}
