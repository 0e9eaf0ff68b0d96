import { ed25519 } from '@noble/curves/ed25519.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { concatBytes } from '../encoding/hex.js';

const Point = ed25519.Point;
const L = Point.Fn.ORDER;

function leToBigint(b: Uint8Array): bigint {
  let v = 0n;
  for (let i = b.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]!);
  return v;
}

/**
 * ed25519_verify of the orlp/ref10 code komodod's library bundles (include/ed25519/src/verify.c):
 * only the top three bits of S are checked (not S < L), A is decoded as ref10 does (non-canonical y
 * allowed), and [S]B - [h]A must encode to exactly the R bytes. Never throws.
 */
export function verifyEd25519(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  if (signature.length !== 64 || publicKey.length !== 32) return false;
  if (signature[63]! & 224) return false;
  try {
    const A = Point.fromBytes(publicKey, true);
    const h = leToBigint(sha512(concatBytes(signature.subarray(0, 32), publicKey, message))) % L;
    const s = leToBigint(signature.subarray(32, 64)) % L;
    const R = Point.BASE.multiplyUnsafe(s).subtract(A.multiplyUnsafe(h));
    const enc = R.toBytes();
    for (let i = 0; i < 32; i++) if (enc[i] !== signature[i]) return false;
    return true;
  } catch {
    return false;
  }
}
