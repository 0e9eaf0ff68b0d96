import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { Secp256k1Backend, Secp256k1BackendName } from './backend.js';
import { nobleBackend } from './backend-noble.js';
import { loadWasmBackend } from './backend-wasm.js';
import { encodeDERSignature, isHighS, parseDERSignature } from './der.js';
import { toHex } from '../encoding/hex.js';

/**
 * ECDSA over secp256k1 as komodod uses it: 32-byte digests signed as they are (no prehash),
 * deterministic RFC 6979 nonces, low-S signatures, DER encoding. Verification never throws:
 * a malformed key or signature is simply not valid.
 *
 * The curve arithmetic is done by a backend (backend.ts), chosen once at start: libsecp256k1 in
 * WebAssembly by default, @noble/curves where WebAssembly is unavailable or when asked for
 * (-sigbackend=noble). Encodings are decided here, identically for both.
 */

export type { Secp256k1Backend, Secp256k1BackendName } from './backend.js';
export type Secp256k1BackendChoice = 'auto' | Secp256k1BackendName;

let wasm: Secp256k1Backend | null | undefined;
function wasmBackend(): Secp256k1Backend | undefined {
  if (wasm === undefined) wasm = loadWasmBackend() ?? null;
  return wasm ?? undefined;
}

let active: Secp256k1Backend | undefined;
function backend(): Secp256k1Backend {
  return (active ??= wasmBackend() ?? nobleBackend);
}

/** The backend in use (the default is chosen on first use: wasm when it loads, else noble). */
export function secp256k1Backend(): Secp256k1Backend {
  return backend();
}

/** Whether the WebAssembly backend can be loaded here. */
export function wasmBackendAvailable(): boolean {
  return wasmBackend() !== undefined;
}

/** The backend of a name, or undefined when it cannot be loaded here ('auto': wasm, else noble). */
export function secp256k1BackendOf(choice: Secp256k1BackendChoice): Secp256k1Backend | undefined {
  if (choice === 'noble') return nobleBackend;
  if (choice === 'wasm') return wasmBackend();
  return wasmBackend() ?? nobleBackend;
}

/**
 * Chooses the backend (at start: acnoded's -sigbackend). 'auto' is wasm, falling back to noble when
 * WebAssembly is unavailable; an explicit 'wasm' that cannot be loaded throws.
 */
export function selectSecp256k1Backend(choice: Secp256k1BackendChoice = 'auto'): Secp256k1Backend {
  const b = secp256k1BackendOf(choice);
  if (!b) throw new Error(`secp256k1 backend '${choice}' is unavailable (WebAssembly libsecp256k1 could not be loaded)`);
  active = b;
  return b;
}

/** Installs a backend object (tests: a recording or comparing backend). Returns the previous one. */
export function useSecp256k1Backend(b: Secp256k1Backend): Secp256k1Backend {
  const prev = backend();
  active = b;
  return prev;
}

const N = secp256k1.Point.Fn.ORDER;

export function isValidPrivateKey(key: Uint8Array): boolean {
  return key.length === 32 && backend().isPrivate(key);
}

export function publicKeyFromPrivate(key: Uint8Array, compressed = true): Uint8Array {
  return backend().publicKey(key, compressed);
}

/**
 * A public key komodod's CPubKey would parse: 33-byte compressed (02/03), 65-byte uncompressed (04)
 * or hybrid (06/07, which libsecp256k1 accepts), on the curve.
 */
export function isValidPublicKey(pub: Uint8Array): boolean {
  return backend().isPoint(pub);
}

/** Keys parsed lately (hex → uncompressed form or null), oldest first: keys recur (token owners, CC globals). */
const parsedKeys = new Map<string, Uint8Array | null>();
const PARSED_KEYS = 4096;

/**
 * The key as secp256k1_ec_pubkey_parse reads it, serialised uncompressed; null when it does not parse.
 * Verifying with it skips the square root a compressed key costs at every parse. The answer depends on
 * the bytes alone (both backends agree on it), so recent ones are remembered.
 */
export function publicKeyUncompressed(pub: Uint8Array): Uint8Array | null {
  const k = toHex(pub);
  const known = parsedKeys.get(k);
  if (known !== undefined) return known;
  const point = backend().pointUncompressed(pub);
  parsedKeys.set(k, point);
  if (parsedKeys.size > PARSED_KEYS) parsedKeys.delete(parsedKeys.keys().next().value!);
  return point;
}

/** A low-S DER signature of a 32-byte digest (no hash-type byte). */
export function signDER(digest: Uint8Array, key: Uint8Array): Uint8Array {
  return encodeDERSignature(backend().sign(digest, key));
}

/** A 64-byte compact r||s low-S signature (crypto-conditions' secp256k1 fulfillments use this form). */
export function signCompact(digest: Uint8Array, key: Uint8Array): Uint8Array {
  return backend().sign(digest, key);
}

/**
 * CPubKey::Verify: a DER signature (no hash-type byte) parsed by libsecp256k1's DER parser, S
 * normalised (consensus accepts high S), then verified. `lowS` rejects high-S signatures instead
 * (policy). The strict-DER rules of the interpreter are checked before this, by the interpreter.
 */
export function verifyDER(sig: Uint8Array, digest: Uint8Array, pub: Uint8Array, lowS = false): boolean {
  const sig64 = parseDERSignature(sig);
  if (!sig64) return false;
  if (lowS && isHighS(sig64)) return false;
  return backend().verify(sig64, digest, pub, true);
}

/**
 * Verifies a 64-byte compact r||s signature. With `lowS` (crypto-conditions: libsecp256k1's verify
 * without normalisation) a high S fails; without it S is normalised first. r or s ≥ n never verifies
 * (secp256k1_ecdsa_signature_parse_compact refuses them).
 */
export function verifyCompact(sig: Uint8Array, digest: Uint8Array, pub: Uint8Array, lowS = false): boolean {
  if (sig.length !== 64) return false;
  return backend().verify(sig, digest, pub, !lowS);
}

/**
 * CPubKey::CheckLowS: the DER signature parses (libsecp256k1's parser) and normalising would not change
 * it (an r or s the parser turned into 0 counts as low).
 */
export function isLowS(sigDER: Uint8Array): boolean {
  const sig64 = parseDERSignature(sigDER);
  return sig64 !== null && !isHighS(sig64);
}

export const CURVE_ORDER = N;
