import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { Secp256k1Backend } from './backend.js';

const N = secp256k1.Point.Fn.ORDER;
const HALF_N = N >> 1n;

type Point = ReturnType<typeof secp256k1.Point.fromBytes>;

/** The key as noble reads it: compressed or uncompressed; a hybrid key (parity checked) as 04 || x || y. */
function plainKey(pub: Uint8Array): Uint8Array {
  if (pub.length === 65 && (pub[0] === 0x06 || pub[0] === 0x07)) {
    if ((pub[64]! & 1) !== (pub[0] & 1)) throw new Error('hybrid parity mismatch');
    const plain = pub.slice();
    plain[0] = 0x04;
    return plain;
  }
  if (pub.length === 33 ? pub[0] !== 0x02 && pub[0] !== 0x03 : pub.length !== 65 || pub[0] !== 0x04) {
    throw new Error('bad public key encoding');
  }
  return pub;
}

/** secp256k1_ec_pubkey_parse with @noble/curves: compressed, uncompressed, and hybrid (06/07) keys. */
function parsePoint(pub: Uint8Array): Point {
  return secp256k1.Point.fromBytes(plainKey(pub));
}

function bytesToBigInt(b: Uint8Array, off: number): bigint {
  let x = 0n;
  for (let i = off; i < off + 32; i++) x = (x << 8n) | BigInt(b[i]!);
  return x;
}

/** The reference backend: pure JavaScript @noble/curves. */
export const nobleBackend: Secp256k1Backend = {
  name: 'noble',

  verify(sig64, digest, pub, normalizeS) {
    try {
      if (sig64.length !== 64 || digest.length !== 32) return false;
      const r = bytesToBigInt(sig64, 0);
      let s = bytesToBigInt(sig64, 32);
      if (r <= 0n || r >= N || s <= 0n || s >= N) return false;
      if (s > HALF_N) {
        if (!normalizeS) return false;
        s = N - s;
      }
      const sig = new secp256k1.Signature(r, s).toBytes('compact');
      // noble parses (and curve-checks) the key itself; a hybrid key goes in as its uncompressed twin.
      return secp256k1.verify(sig, digest, plainKey(pub), { prehash: false, lowS: true, format: 'compact' });
    } catch {
      return false;
    }
  },

  sign(digest, key) {
    if (digest.length !== 32) throw new Error('digest must be 32 bytes');
    return secp256k1.sign(digest, key, { prehash: false, format: 'compact', lowS: true });
  },

  publicKey(key, compressed) {
    return secp256k1.getPublicKey(key, compressed);
  },

  isPoint(pub) {
    try {
      parsePoint(pub);
      return true;
    } catch {
      return false;
    }
  },

  pointUncompressed(pub) {
    try {
      return parsePoint(pub).toBytes(false);
    } catch {
      return null;
    }
  },

  isPrivate(key) {
    return key.length === 32 && secp256k1.utils.isValidSecretKey(key);
  },
};
