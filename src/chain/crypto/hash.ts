import { hash as nodeHash } from 'node:crypto';
import { blake2b } from './blake2b.js';
import { ripemd160 as ownRipemd160 } from './ripemd160.js';
import { sha256 as ownSha256, sha256d as ownSha256d } from './sha256.js';

/**
 * From this many bytes on, SHA-256 runs in node:crypto (OpenSSL, with the CPU's SHA instructions
 * where it has them): its cost per call is nearly fixed (1.2-1.9 µs for sha256d up to 250 bytes on
 * this machine), while sha256.ts' grows by ~0.4 µs per 64-byte block (sha256d of 184 bytes is five
 * compressions, 2.0 µs; of 64 bytes three, 1.2 µs). So transactions (txids) go there, and short inputs
 * (merkle pairs, 80-byte headers, hash160's 33-byte keys) stay in sha256.ts.
 */
export const NATIVE_SHA256_FROM = 184;

/** node:crypto's Buffer as a plain Uint8Array (its own 32-byte ArrayBuffer): slice() copies, as callers expect of a Uint8Array. */
function plain(b: Buffer): Uint8Array {
  return new Uint8Array(b.buffer, b.byteOffset, b.length);
}

/** SHA-256 (sha256.ts: why not @noble/hashes', which the tests compare it with; long inputs in node:crypto). */
export function sha256(data: Uint8Array): Uint8Array {
  return data.length >= NATIVE_SHA256_FROM ? plain(nodeHash('sha256', data, 'buffer')) : ownSha256(data);
}

/** Double SHA-256: txids, block hashes, Base58Check and P2P checksums. */
export function sha256d(data: Uint8Array): Uint8Array {
  return data.length >= NATIVE_SHA256_FROM ? plain(nodeHash('sha256', nodeHash('sha256', data, 'buffer'), 'buffer')) : ownSha256d(data);
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

/** BLAKE2b-256 of data[0..end) with a 16-byte personalisation (ZIP-243 sighash parts). */
export function blake2b256(data: Uint8Array, pers: Uint8Array, end = data.length): Uint8Array {
  return blake2b(data, 32, pers, end);
}
