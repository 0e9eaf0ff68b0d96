import bs58check from 'bs58check';
import { sha256d } from '../crypto/hash.js';
import { decodeBase58 } from './base58.js';

/** Base58Check: payload then the first 4 bytes of its double SHA-256. */

export function encodeBase58Check(payload: Uint8Array): string {
  return bs58check.encode(payload);
}

/**
 * The payload of a Base58Check string, or null. Decoding is komodod's DecodeBase58Check (whitespace
 * around the string is skipped, which bs58check would refuse), so it is done here.
 */
export function decodeBase58Check(s: string): Uint8Array | null {
  const data = decodeBase58(s);
  if (!data || data.length < 4) return null;
  const payload = data.subarray(0, data.length - 4);
  const check = sha256d(payload);
  for (let i = 0; i < 4; i++) if (check[i] !== data[payload.length + i]) return null;
  return payload.slice();
}

/**
 * The length of a string's Base58 digits once surrounding whitespace is dropped: callers that know the
 * largest payload they accept reject longer strings before the quadratic decode.
 */
export function base58CoreLength(s: string): number {
  const nul = s.indexOf('\0');
  return (nul >= 0 ? s.slice(0, nul) : s).replace(/^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g, '').length;
}
