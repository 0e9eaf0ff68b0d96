import { isValidPrivateKey } from '../crypto/secp256k1.js';
import { base58CoreLength, decodeBase58Check, encodeBase58Check } from './base58check.js';
import { SECRET_KEY } from './address.js';

/**
 * Wallet Import Format (key_io.cpp EncodeSecret/DecodeSecret): version ‖ key32, plus a 0x01 byte
 * when the public key is compressed. The version defaults to the chain's SECRET_KEY (188).
 */

/** 38 decoded bytes take at most 52 Base58 digits. */
const MAX_WIF_DIGITS = 80;

export function encodeWIF(key32: Uint8Array, compressed: boolean, version = SECRET_KEY): string {
  if (key32.length !== 32) throw new RangeError('private key must be 32 bytes');
  const payload = new Uint8Array(compressed ? 34 : 33);
  payload[0] = version;
  payload.set(key32, 1);
  if (compressed) payload[33] = 1;
  return encodeBase58Check(payload);
}

/** The key and compression flag, or null when the string is not a valid key (CKey::IsValid false). */
export function decodeWIF(s: string, version = SECRET_KEY): { key: Uint8Array; compressed: boolean } | null {
  if (base58CoreLength(s) > MAX_WIF_DIGITS) return null;
  const data = decodeBase58Check(s);
  if (!data || data[0] !== version) return null;
  const compressed = data.length === 34 && data[33] === 1;
  if (data.length !== 33 && !compressed) return null;
  const key = data.slice(1, 33);
  // CKey::Set keeps the key only when it is in [1, n-1].
  return isValidPrivateKey(key) ? { key, compressed } : null;
}
