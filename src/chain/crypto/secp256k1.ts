import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { Secp256k1Backend } from './backend.js';
import { nobleBackend } from './backend-noble.js';
import { encodeDERSignature, isHighS, parseDERSignatureInto } from './der.js';
import { toHex } from '../encoding/hex.js';
import { FifoMap } from '../fifo.js';

/**
 * ECDSA over secp256k1 as komodod uses it: 32-byte digests signed as they are (no prehash),
 * deterministic RFC 6979 nonces, low-S signatures, DER encoding. Verification never throws:
 * a malformed key or signature is simply not valid.
 *
 * The curve arithmetic is done by a backend (backend.ts) installed once at start by the node
 * (src/actors/verify/sig-backend.ts: -sigbackend, native libsecp256k1 when it loads, else WebAssembly,
 * else noble), and by each script-check worker the same way. Until one is installed it is @noble/curves,
 * the pure-JavaScript reference, which needs nothing loaded. Encodings are decided here, identically for
 * every backend.
 */

export type { Secp256k1Backend, Secp256k1BackendName } from './backend.js';

let active: Secp256k1Backend = nobleBackend;

/** The backend in use. */
export function secp256k1Backend(): Secp256k1Backend {
  return active;
}

/** Installs a backend (the node's choice at start; tests: a recording or comparing backend). Returns the previous one. */
export function useSecp256k1Backend(b: Secp256k1Backend): Secp256k1Backend {
  const prev = active;
  active = b;
  return prev;
}

const N = secp256k1.Point.Fn.ORDER;

export function isValidPrivateKey(key: Uint8Array): boolean {
  return key.length === 32 && active.isPrivate(key);
}

export function publicKeyFromPrivate(key: Uint8Array, compressed = true): Uint8Array {
  return active.publicKey(key, compressed);
}

/**
 * A public key komodod's CPubKey would parse: 33-byte compressed (02/03), 65-byte uncompressed (04)
 * or hybrid (06/07, which libsecp256k1 accepts), on the curve.
 */
export function isValidPublicKey(pub: Uint8Array): boolean {
  return active.isPoint(pub);
}

/** Keys parsed lately (hex → uncompressed form or null), oldest first: keys recur (token owners, CC globals). */
const PARSED_KEYS = 4096;
const parsedKeys = new FifoMap<string, Uint8Array | null>(PARSED_KEYS);

/**
 * The key as secp256k1_ec_pubkey_parse reads it, serialised uncompressed; null when it does not parse.
 * Verifying with it skips the square root a compressed key costs at every parse. The answer depends on
 * the bytes alone (every backend agrees on it), so recent ones are remembered.
 */
export function publicKeyUncompressed(pub: Uint8Array): Uint8Array | null {
  const k = toHex(pub);
  const known = parsedKeys.get(k);
  if (known !== undefined) return known;
  const point = active.pointUncompressed(pub);
  parsedKeys.set(k, point);
  return point;
}

/** A low-S DER signature of a 32-byte digest (no hash-type byte). */
export function signDER(digest: Uint8Array, key: Uint8Array): Uint8Array {
  return encodeDERSignature(active.sign(digest, key));
}

/** A 64-byte compact r||s low-S signature (crypto-conditions' secp256k1 fulfillments use this form). */
export function signCompact(digest: Uint8Array, key: Uint8Array): Uint8Array {
  return active.sign(digest, key);
}

/**
 * CPubKey::Verify: a DER signature (no hash-type byte) parsed by libsecp256k1's DER parser, S
 * normalised (consensus accepts high S), then verified. `lowS` rejects high-S signatures instead
 * (policy). The strict-DER rules of the interpreter are checked before this, by the interpreter.
 */
export function verifyDER(sig: Uint8Array, digest: Uint8Array, pub: Uint8Array, lowS = false): boolean {
  // Parsed into scratch: every backend reads the 64 bytes during the call and keeps nothing of them.
  const sig64 = SIG64;
  if (!parseDERSignatureInto(sig, sig64)) return false;
  if (lowS && isHighS(sig64)) return false;
  return active.verify(sig64, digest, pub, true);
}

/** verifyDER's and isLowS's parsed signature: nothing here yields, so one suffices (none made per input). */
const SIG64 = new Uint8Array(64);

/**
 * Verifies a 64-byte compact r||s signature. With `lowS` (crypto-conditions: libsecp256k1's verify
 * without normalisation) a high S fails; without it S is normalised first. r or s ≥ n never verifies
 * (secp256k1_ecdsa_signature_parse_compact refuses them).
 */
export function verifyCompact(sig: Uint8Array, digest: Uint8Array, pub: Uint8Array, lowS = false): boolean {
  if (sig.length !== 64) return false;
  return active.verify(sig, digest, pub, !lowS);
}

/**
 * CPubKey::CheckLowS: the DER signature (its bytes up to `end`) parses (libsecp256k1's parser) and
 * normalising would not change it (an r or s the parser turned into 0 counts as low).
 */
export function isLowS(sigDER: Uint8Array, end = sigDER.length): boolean {
  return parseDERSignatureInto(sigDER, SIG64, end) && !isHighS(SIG64);
}

export const CURVE_ORDER = N;
