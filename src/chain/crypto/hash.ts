import { blake2b } from './blake2b.js';
import { ripemd160 as ownRipemd160 } from './ripemd160.js';
import { sha256 as ownSha256, sha256d as ownSha256d } from './sha256.js';

/** SHA-256 (sha256.ts: why not @noble/hashes', which the tests compare it with). */
export function sha256(data: Uint8Array): Uint8Array {
  return ownSha256(data);
}

/** Double SHA-256: txids, block hashes, Base58Check and P2P checksums. */
export function sha256d(data: Uint8Array): Uint8Array {
  return ownSha256d(data);
}

/** RIPEMD-160 (ripemd160.ts: why not @noble/hashes', which the tests compare it with). */
export function ripemd160(data: Uint8Array): Uint8Array {
  return ownRipemd160(data);
}

/** RIPEMD160(SHA256(x)): the key and script hashes behind addresses. */
export function hash160(data: Uint8Array): Uint8Array {
  return ownRipemd160(ownSha256(data));
}

const encoder = new TextEncoder();

/** A 16-byte BLAKE2b personalisation from an ASCII tag padded or completed by extra bytes. */
export function personalization(tag: string, extra?: Uint8Array): Uint8Array {
  const p = new Uint8Array(16);
  p.set(encoder.encode(tag));
  if (extra) p.set(extra, tag.length);
  return p;
}

/** BLAKE2b-256 with a 16-byte personalisation (ZIP-243 sighash parts). */
export function blake2b256(data: Uint8Array, pers: Uint8Array): Uint8Array {
  return blake2b(data, 32, pers);
}
