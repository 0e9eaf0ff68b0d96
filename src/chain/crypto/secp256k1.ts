import { secp256k1 } from '@noble/curves/secp256k1.js';

/**
 * ECDSA over secp256k1 as komodod uses it: 32-byte digests signed as they are (no prehash),
 * deterministic RFC 6979 nonces, low-S signatures, DER encoding. Verification never throws:
 * a malformed key or signature is simply not valid.
 */

const N = secp256k1.Point.Fn.ORDER;
const HALF_N = N >> 1n;

export function isValidPrivateKey(key: Uint8Array): boolean {
  return key.length === 32 && secp256k1.utils.isValidSecretKey(key);
}

export function publicKeyFromPrivate(key: Uint8Array, compressed = true): Uint8Array {
  return secp256k1.getPublicKey(key, compressed);
}

/**
 * A public key komodod's CPubKey would parse: 33-byte compressed (02/03), 65-byte uncompressed (04)
 * or hybrid (06/07, which libsecp256k1 accepts), on the curve.
 */
export function isValidPublicKey(pub: Uint8Array): boolean {
  try {
    pointFromPublicKey(pub);
    return true;
  } catch {
    return false;
  }
}

function pointFromPublicKey(pub: Uint8Array) {
  if (pub.length === 65 && (pub[0] === 0x06 || pub[0] === 0x07)) {
    // Hybrid encoding: the prefix's low bit must match y's parity.
    const p = secp256k1.Point.fromBytes(Uint8Array.of(0x04, ...pub.subarray(1)));
    if ((p.toAffine().y & 1n) !== BigInt(pub[0]! & 1)) throw new Error('hybrid parity mismatch');
    return p;
  }
  return secp256k1.Point.fromBytes(pub);
}

/** A low-S DER signature of a 32-byte digest (no hash-type byte). */
export function signDER(digest: Uint8Array, key: Uint8Array): Uint8Array {
  return secp256k1.sign(digest, key, { prehash: false, format: 'der', lowS: true });
}

/** A 64-byte compact r||s low-S signature (crypto-conditions' secp256k1 fulfillments use this form). */
export function signCompact(digest: Uint8Array, key: Uint8Array): Uint8Array {
  return secp256k1.sign(digest, key, { prehash: false, format: 'compact', lowS: true });
}

/**
 * Verifies a DER signature (no hash-type byte). `lowS` rejects high-S signatures (policy);
 * consensus accepts them. Strict-DER encoding rules are the interpreter's job, before this.
 */
export function verifyDER(sig: Uint8Array, digest: Uint8Array, pub: Uint8Array, lowS = false): boolean {
  try {
    const s = secp256k1.Signature.fromBytes(sig, 'der');
    if (lowS && s.s > HALF_N) return false;
    return verifyRS(s.r, s.s, digest, pub);
  } catch {
    return false;
  }
}

/** Verifies a 64-byte compact r||s signature; `lowS` as for verifyDER. */
export function verifyCompact(sig: Uint8Array, digest: Uint8Array, pub: Uint8Array, lowS = false): boolean {
  try {
    if (sig.length !== 64) return false;
    const s = secp256k1.Signature.fromBytes(sig, 'compact');
    if (lowS && s.s > HALF_N) return false;
    return verifyRS(s.r, s.s, digest, pub);
  } catch {
    return false;
  }
}

function verifyRS(r: bigint, s: bigint, digest: Uint8Array, pub: Uint8Array): boolean {
  if (r <= 0n || r >= N || s <= 0n || s >= N) return false;
  const point = pointFromPublicKey(pub);
  // libsecp256k1 verifies high-S signatures too (komodod normalises before verifying); so do we.
  const sig = new secp256k1.Signature(r, s > HALF_N ? N - s : s);
  return secp256k1.verify(sig.toBytes('compact'), digest, point.toBytes(true), { prehash: false, lowS: true, format: 'compact' });
}

export function isLowS(sigDER: Uint8Array): boolean {
  try {
    return secp256k1.Signature.fromBytes(sigDER, 'der').s <= HALF_N;
  } catch {
    return false;
  }
}

export const CURVE_ORDER = N;
