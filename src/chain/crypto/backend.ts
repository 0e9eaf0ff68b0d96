/**
 * The secp256k1 backend: the few primitives acnode needs from an elliptic-curve library, with
 * libsecp256k1's exact semantics whatever implements them. Three implementations: libsecp256k1 as a
 * native N-API addon (the secp256k1 package), libsecp256k1 compiled to WebAssembly (tiny-secp256k1),
 * and @noble/curves (pure JavaScript: the reference, and the fallback). Encodings (DER, hybrid keys, S
 * normalisation policy) are decided above this interface, in secp256k1.ts and der.ts, so every backend
 * sees the same bytes. src/chain only adapts a library it is handed: loading the native and WebAssembly
 * ones (and choosing) is the node's business (src/actors/verify/sig-backend.ts).
 */
export type Secp256k1BackendName = 'native' | 'wasm' | 'noble';

export interface Secp256k1Backend {
  readonly name: Secp256k1BackendName;
  /**
   * secp256k1_ecdsa_verify of a 64-byte r||s over a 32-byte digest, the key parsed as
   * secp256k1_ec_pubkey_parse does (33 bytes 02/03, 65 bytes 04, or hybrid 06/07 with matching y
   * parity; on the curve). r and s must be in [1, n-1]. With `normalizeS` a high S is first replaced
   * by n - S (secp256k1_ecdsa_signature_normalize, as CPubKey::Verify does); without it a high S
   * fails, as libsecp256k1's verify (and so crypto-conditions) decides. Never throws.
   */
  verify(sig64: Uint8Array, digest: Uint8Array, pub: Uint8Array, normalizeS: boolean): boolean;
  /** RFC 6979 deterministic, low-S 64-byte r||s signature of a 32-byte digest (secp256k1_ecdsa_sign). Throws on a bad key. */
  sign(digest: Uint8Array, key: Uint8Array): Uint8Array;
  /** The public key of a private key, compressed (33) or uncompressed (65). Throws on a bad key. */
  publicKey(key: Uint8Array, compressed: boolean): Uint8Array;
  /** secp256k1_ec_pubkey_parse succeeds. */
  isPoint(pub: Uint8Array): boolean;
  /**
   * The key parsed as isPoint parses it, serialised uncompressed (65 bytes, 04); null when it does not
   * parse. A compressed key costs verify a square root at each parse; its uncompressed form does not.
   */
  pointUncompressed(pub: Uint8Array): Uint8Array | null;
  /** secp256k1_ec_seckey_verify: 32 bytes, 0 < key < n. */
  isPrivate(key: Uint8Array): boolean;
}
