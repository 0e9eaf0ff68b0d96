import { isLowS } from '../crypto/secp256k1.js';
import { SCRIPT_VERIFY_LOW_S, SCRIPT_VERIFY_STRICTENC } from './flags.js';
import { SIGHASH_ALL, SIGHASH_ANYONECANPAY, SIGHASH_SINGLE } from './sighash.js';
import type { ScriptError } from './script-error.js';

/**
 * Signature and public-key encoding rules of komodod's interpreter (src/script/interpreter.cpp).
 * `sig` always carries its trailing hash-type byte here.
 */

/** IsValidSignatureEncoding: strict DER plus one hash-type byte, 9..73 bytes. Consensus in komodod. */
export function isValidSignatureEncoding(sig: Uint8Array): boolean {
  const n = sig.length;
  if (n < 9 || n > 73) return false;
  if (sig[0] !== 0x30) return false;
  if (sig[1] !== n - 3) return false;
  const lenR = sig[3]!;
  if (5 + lenR >= n) return false;
  const lenS = sig[5 + lenR]!;
  if (lenR + lenS + 7 !== n) return false;
  if (sig[2] !== 0x02) return false;
  if (lenR === 0) return false;
  if (sig[4]! & 0x80) return false;
  if (lenR > 1 && sig[4] === 0x00 && !(sig[5]! & 0x80)) return false;
  if (sig[lenR + 4] !== 0x02) return false;
  if (lenS === 0) return false;
  if (sig[lenR + 6]! & 0x80) return false;
  if (lenS > 1 && sig[lenR + 6] === 0x00 && !(sig[lenR + 7]! & 0x80)) return false;
  return true;
}

/**
 * CPubKey::CheckLowS on an already strictly encoded signature (the hash-type byte last): libsecp256k1's
 * DER parser turns an S at or above the curve order into 0, which counts as low. Compared as bytes
 * (isLowS): building S as a BigInt cost more than the rest of the encoding checks.
 */
function hasLowS(sig: Uint8Array): boolean {
  return isLowS(sig, sig.length - 1);
}

/** IsDefinedHashtypeSignature: the hash type without ANYONECANPAY is ALL, NONE or SINGLE. */
export function isDefinedHashtypeSignature(sig: Uint8Array): boolean {
  if (sig.length === 0) return false;
  const t = sig[sig.length - 1]! & ~SIGHASH_ANYONECANPAY & 0xff;
  return t >= SIGHASH_ALL && t <= SIGHASH_SINGLE;
}

/**
 * CheckSignatureEncoding: null when acceptable, else the error komodod sets. An empty signature is
 * allowed (a compact invalid signature). Strict DER is checked whatever the flags.
 * With LOW_S, a high S fails with SCRIPT_ERR_UNKNOWN_ERROR: komodod's IsLowDERSignature returns
 * CPubKey::CheckLowS without setting an error, so EvalScript's initial UNKNOWN_ERROR stays.
 */
export function checkSignatureEncoding(sig: Uint8Array, flags: number): ScriptError | null {
  if (sig.length === 0) return null;
  if (!isValidSignatureEncoding(sig)) return 'SCRIPT_ERR_SIG_DER';
  if (flags & SCRIPT_VERIFY_LOW_S && !hasLowS(sig)) return 'SCRIPT_ERR_UNKNOWN_ERROR';
  if (flags & SCRIPT_VERIFY_STRICTENC && !isDefinedHashtypeSignature(sig)) return 'SCRIPT_ERR_SIG_HASHTYPE';
  return null;
}

/** IsCompressedOrUncompressedPubKey: 33 bytes starting 02/03 or 65 bytes starting 04 (no curve check). */
export function isCompressedOrUncompressedPubKey(pub: Uint8Array): boolean {
  if (pub.length < 33) return false;
  if (pub[0] === 0x04) return pub.length === 65;
  if (pub[0] === 0x02 || pub[0] === 0x03) return pub.length === 33;
  return false;
}

/** CheckPubKeyEncoding: only STRICTENC restricts the key format. */
export function checkPubKeyEncoding(pub: Uint8Array, flags: number): ScriptError | null {
  if (flags & SCRIPT_VERIFY_STRICTENC && !isCompressedOrUncompressedPubKey(pub)) return 'SCRIPT_ERR_PUBKEYTYPE';
  return null;
}
