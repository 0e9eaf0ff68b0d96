import type { Secp256k1Backend } from './backend.js';
import { isHighS } from './der.js';

/**
 * The methods of the secp256k1 package's N-API object (`new addon.Secp256k1()`, src/secp256k1.cc)
 * the backend calls: each takes its output buffer first and returns 0 on success, a small error code
 * otherwise; the fixed-size inputs (signature 64, message 32, secret 32) throw when of another length.
 */
export interface Secp256k1Binding {
  /** secp256k1_ecdsa_signature_parse_compact, secp256k1_ec_pubkey_parse, secp256k1_ecdsa_verify: 0, or 1/2/3 where each failed. */
  ecdsaVerify(sig64: Uint8Array, msg32: Uint8Array, pub: Uint8Array): number;
  /** secp256k1_ecdsa_sign_recoverable with secp256k1_nonce_function_rfc6979 and no extra data when `data` and `noncefn` are undefined. */
  ecdsaSign(out: { signature: Uint8Array; recid: number | null }, msg32: Uint8Array, seckey: Uint8Array, data: undefined, noncefn: undefined): number;
  /** Parses the compact signature and normalises its S in place. */
  signatureNormalize(sig64: Uint8Array): number;
  /** The public key of `seckey`, compressed when `out` is 33 bytes, uncompressed when 65. */
  publicKeyCreate(out: Uint8Array, seckey: Uint8Array): number;
  /** secp256k1_ec_pubkey_parse. */
  publicKeyVerify(pub: Uint8Array): number;
  /** secp256k1_ec_pubkey_parse, serialised into `out` (33 or 65 bytes). */
  publicKeyConvert(out: Uint8Array, pub: Uint8Array): number;
  /** secp256k1_ec_seckey_verify. */
  privateKeyVerify(seckey: Uint8Array): number;
}

/**
 * libsecp256k1 as a native addon, over the binding object it is handed (loaded by the node:
 * src/actors/verify/sig-backend.ts). The raw binding is called, not the package's JavaScript wrapper,
 * whose argument checks would only repeat ours. secp256k1_ecdsa_verify accepts only low S, so a high
 * S to be normalised (CPubKey::Verify calls secp256k1_ecdsa_signature_normalize first) is normalised
 * on a copy before verifying, as tiny-secp256k1 does inside its WebAssembly; r or s ≥ n fails in
 * secp256k1_ecdsa_signature_parse_compact.
 */
export function nativeBackend(binding: Secp256k1Binding): Secp256k1Backend {
  return {
    name: 'native',

    verify(sig64, digest, pub, normalizeS) {
      if (sig64.length !== 64 || digest.length !== 32) return false;
      try {
        let sig = sig64;
        if (normalizeS && isHighS(sig64)) {
          sig = sig64.slice();
          if (binding.signatureNormalize(sig) !== 0) return false;
        }
        return binding.ecdsaVerify(sig, digest, pub) === 0;
      } catch {
        return false;
      }
    },

    sign(digest, key) {
      if (digest.length !== 32) throw new Error('digest must be 32 bytes');
      if (key.length !== 32) throw new Error('invalid private key');
      const out = { signature: new Uint8Array(64), recid: null };
      // libsecp256k1 signs with low S: what every backend returns.
      if (binding.ecdsaSign(out, digest, key, undefined, undefined) !== 0) throw new Error('invalid private key');
      return out.signature;
    },

    publicKey(key, compressed) {
      if (key.length !== 32) throw new Error('invalid private key');
      const out = new Uint8Array(compressed ? 33 : 65);
      if (binding.publicKeyCreate(out, key) !== 0) throw new Error('invalid private key');
      return out;
    },

    isPoint(pub) {
      try {
        return binding.publicKeyVerify(pub) === 0;
      } catch {
        return false;
      }
    },

    pointUncompressed(pub) {
      try {
        const out = new Uint8Array(65);
        return binding.publicKeyConvert(out, pub) === 0 ? out : null;
      } catch {
        return null;
      }
    },

    isPrivate(key) {
      return key.length === 32 && binding.privateKeyVerify(key) === 0;
    },
  };
}
