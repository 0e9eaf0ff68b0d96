import { DecodeError } from './errors.js';

const HEX_RE = /^(?:[0-9a-fA-F]{2})*$/;

/** True for an even-length string of hex digits (the empty string included), as komodod's IsHex plus empty. */
export function isHex(s: string): boolean {
  return HEX_RE.test(s);
}

export function fromHex(s: string): Uint8Array {
  if (!isHex(s)) throw new DecodeError('invalid hex string');
  return hexBytes(s);
}

/**
 * The bytes of a string already checked to be hex, decoded straight into memory of their own (one
 * allocation, no view into Buffer's shared pool: callers keep them, e.g. the mempool).
 */
export function hexBytes(s: string): Uint8Array {
  const bytes = new Uint8Array(s.length >>> 1);
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).write(s, 'hex');
  return bytes;
}

/**
 * isHex and hexBytes in one pass, without the regex (sendrawtransaction's hex): the bytes, or null when
 * `s` is not an even-length string of hex digits. Buffer's hex decoder stops at the first pair that is
 * not hex, but reads only the low byte of each character (U+0130 decodes as '0'): the string is first
 * checked to be ASCII (its UTF-8 length is its length), a native count far cheaper than the regex.
 */
export function hexBytesChecked(s: string): Uint8Array | null {
  if ((s.length & 1) !== 0 || Buffer.byteLength(s, 'utf8') !== s.length) return null;
  const bytes = new Uint8Array(s.length >>> 1);
  const written = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).write(s, 'hex');
  return written === bytes.length ? bytes : null;
}

export function toHex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

/** uint256's null value as GetHex() shows it: the null txid of a coins view, an absent block hash. */
export const NULL_HASH_HEX = '0'.repeat(64);

/** Scratch space for toHexReversed: one flat string from Buffer's native hex encoder. */
const REVERSED = Buffer.alloc(64);

/** uint256::GetHex(): internal byte order shown reversed (every txid and block hash shown goes through here). */
export function toHexReversed(b: Uint8Array): string {
  const n = b.length;
  // A hash (32 bytes) is reversed into the scratch buffer; anything longer gets its own.
  const out = n <= REVERSED.length ? REVERSED : Buffer.alloc(n);
  for (let i = 0; i < n; i++) out[i] = b[n - 1 - i]!;
  return out.toString('hex', 0, n);
}

export function fromHexReversed(s: string): Uint8Array {
  return fromHex(s).reverse();
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
