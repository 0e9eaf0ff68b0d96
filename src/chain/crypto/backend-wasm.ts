import type { Secp256k1Backend } from './backend.js';

/** The part of tiny-secp256k1's API the backend uses. */
export interface TinySecp256k1 {
  verify(h: Uint8Array, Q: Uint8Array, signature: Uint8Array, strict?: boolean): boolean;
  sign(h: Uint8Array, d: Uint8Array): Uint8Array;
  pointFromScalar(d: Uint8Array, compressed?: boolean): Uint8Array | null;
  isPoint(p: Uint8Array): boolean;
  pointCompress(p: Uint8Array, compressed?: boolean): Uint8Array;
  isPrivate(d: Uint8Array): boolean;
}

/**
 * libsecp256k1 compiled to WebAssembly (tiny-secp256k1), over the module it is handed (loaded by the
 * node: src/actors/verify/sig-backend.ts). Its checks ahead of the WebAssembly call only look at
 * lengths and ranges (r, s < n; the key 33 or 65 bytes) and throw; the module itself parses keys with
 * secp256k1_ec_pubkey_parse (hybrid keys included) and, when not strict, normalises S before
 * secp256k1_ecdsa_verify.
 */
export function wasmBackend(tiny: TinySecp256k1): Secp256k1Backend {
  return {
    name: 'wasm',

    verify(sig64, digest, pub, normalizeS) {
      try {
        return tiny.verify(digest, pub, sig64, !normalizeS);
      } catch {
        // A key of the wrong length, a digest not 32 bytes, or r/s ≥ n: not a valid signature.
        return false;
      }
    },

    sign(digest, key) {
      return tiny.sign(digest, key);
    },

    publicKey(key, compressed) {
      const p = tiny.pointFromScalar(key, compressed);
      if (!p) throw new Error('invalid private key');
      return p;
    },

    isPoint(pub) {
      try {
        return tiny.isPoint(pub);
      } catch {
        return false;
      }
    },

    pointUncompressed(pub) {
      try {
        // pointCompress parses with secp256k1_ec_pubkey_parse and throws when that fails.
        return tiny.pointCompress(pub, false);
      } catch {
        return null;
      }
    },

    isPrivate(key) {
      return tiny.isPrivate(key);
    },
  };
}
