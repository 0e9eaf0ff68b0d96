import { secp256k1 } from '@noble/curves/secp256k1.js';
import { BufferWriter } from '../encoding/writer.js';
import { sha256d } from './hash.js';

/** komodod's strMessageMagic (main.cpp), prefixed to every signed message. */
export const MESSAGE_MAGIC = 'Komodo Signed Message:\n';

/** CHashWriter << strMessageMagic << strMessage: both as serialized strings, double SHA-256. */
export function messageHash(message: string): Uint8Array {
  const w = new BufferWriter();
  w.varBytes(new TextEncoder().encode(MESSAGE_MAGIC));
  w.varBytes(new TextEncoder().encode(message));
  return sha256d(w.finish());
}

/**
 * CPubKey::RecoverCompact: a 65-byte signature (header 27 + recid, +4 for a compressed key, then r||s)
 * gives the public key that made it, in the form the header names; null where libsecp256k1 fails
 * (wrong length, r or s zero or not below the order, no point).
 */
export function recoverCompact(digest: Uint8Array, sig: Uint8Array): Uint8Array | null {
  if (sig.length !== 65) return null;
  const recid = (sig[0]! - 27) & 3;
  const compressed = ((sig[0]! - 27) & 4) !== 0;
  try {
    const s = secp256k1.Signature.fromBytes(sig.slice(1), 'compact').addRecoveryBit(recid);
    return s.recoverPublicKey(digest).toBytes(compressed);
  } catch {
    return null;
  }
}

/**
 * CKey::SignCompact over messageHash(message): a deterministic (RFC 6979) low-S signature as 65
 * bytes, header 27 + recid (+4 when the key's public form is compressed), then r||s — what
 * recoverCompact reads back.
 */
export function signMessage(message: string, key: Uint8Array, compressed: boolean): Uint8Array {
  const rec = secp256k1.sign(messageHash(message), key, { prehash: false, lowS: true, format: 'recovered' });
  const out = new Uint8Array(65);
  out[0] = 27 + rec[0]! + (compressed ? 4 : 0);
  out.set(rec.subarray(1), 1);
  return out;
}
