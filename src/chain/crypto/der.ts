/**
 * ECDSA signature encodings exactly as komodod's bundled libsecp256k1 reads and writes them
 * (src/secp256k1/src/ecdsa_impl.h): secp256k1_ecdsa_sig_parse behind secp256k1_ecdsa_signature_parse_der,
 * and secp256k1_ecdsa_sig_serialize. Pure byte handling, shared by every backend, so the backends only
 * ever see 64-byte r||s signatures.
 */

/** Where secp256k1_der_read_len leaves its result: module scratch (single-threaded, no allocation per call). */
let lenOut = 0;

/** secp256k1_der_read_len at `pos`: the position after the length (its value in lenOut), or -1. */
function readLen(sig: Uint8Array, pos: number, end: number): number {
  if (pos >= end) return -1;
  const b1 = sig[pos++]!;
  if (b1 === 0xff) return -1; // X.690-0207 8.1.3.5.c
  if ((b1 & 0x80) === 0) {
    lenOut = b1; // short form
    return pos;
  }
  if (b1 === 0x80) return -1; // indefinite length
  let lenleft = b1 & 0x7f;
  if (lenleft > end - pos) return -1;
  if (sig[pos] === 0) return -1; // not the shortest encoding
  if (lenleft > 8) return -1; // beyond size_t: certainly longer than the array
  let ret = 0;
  while (lenleft > 0) {
    ret = ret * 256 + sig[pos]!;
    if (ret + lenleft > end - pos) return -1;
    pos++;
    lenleft--;
  }
  if (ret < 128) return -1; // not the shortest encoding
  lenOut = ret;
  return pos;
}

const N_BYTES = Uint8Array.from([
  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
  0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36, 0x41, 0x41,
]);
const HALF_N_BYTES = Uint8Array.from([
  0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
  0x5d, 0x57, 0x6e, 0x73, 0x57, 0xa4, 0x50, 0x1d, 0xdf, 0xe9, 0x2f, 0x46, 0x68, 0x1b, 0x20, 0xa0,
]);

/** Compares 32 big-endian bytes of `a` at `off` with `b`: -1, 0 or 1. */
function cmp32(a: Uint8Array, off: number, b: Uint8Array): number {
  for (let i = 0; i < 32; i++) {
    const x = a[off + i]!;
    const y = b[i]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** The scalar at `off` (32 bytes) is ≥ the curve order. */
export function scalarOverflows(buf: Uint8Array, off = 0): boolean {
  return cmp32(buf, off, N_BYTES) >= 0;
}

/** The S half of a 64-byte r||s is above n/2 (secp256k1_ecdsa_signature_normalize would change it). */
export function isHighS(sig64: Uint8Array): boolean {
  return cmp32(sig64, 32, HALF_N_BYTES) > 0;
}

/** secp256k1_der_parse_integer at `pos` into out[off..off+32]: the position after it, or -1; overflow leaves zero. */
function parseInteger(sig: Uint8Array, pos: number, end: number, out: Uint8Array, off: number): number {
  if (pos === end || sig[pos] !== 0x02) return -1;
  pos = readLen(sig, pos + 1, end);
  if (pos < 0) return -1;
  let rlen = lenOut;
  if (rlen <= 0 || pos + rlen > end) return -1;
  if (sig[pos] === 0x00 && rlen > 1 && (sig[pos + 1]! & 0x80) === 0) return -1; // excessive 0x00 padding
  if (sig[pos] === 0xff && rlen > 1 && (sig[pos + 1]! & 0x80) === 0x80) return -1; // excessive 0xff padding
  let overflow = (sig[pos]! & 0x80) === 0x80; // negative
  while (rlen > 0 && sig[pos] === 0) {
    rlen--;
    pos++;
  }
  if (rlen > 32) overflow = true;
  if (!overflow) {
    for (let i = 0, at = off + 32 - rlen; i < rlen; i++) out[at + i] = sig[pos + i]!;
    // secp256k1_scalar_set_b32 reports overflow for values ≥ n; the scalar is then set to 0.
    if (scalarOverflows(out, off)) overflow = true;
  }
  if (overflow) out.fill(0, off, off + 32);
  return pos + rlen;
}

/**
 * secp256k1_ecdsa_signature_parse_der: the 64-byte r||s of a DER signature (no hash-type byte), or
 * null when libsecp256k1 refuses the encoding. An r or s that is negative, longer than 32 bytes or
 * not below the curve order parses, as zero (which then never verifies).
 */
export function parseDERSignature(sig: Uint8Array): Uint8Array | null {
  const out = new Uint8Array(64);
  return parseDERSignatureInto(sig, out) ? out : null;
}

/**
 * parseDERSignature of sig[0..end) into `out` (64 bytes, every byte written when it parses): false
 * where it answers null. For the checks that only look at the result and let go of it (the low-S
 * test, a verify), without a new array or a view of the signature.
 */
export function parseDERSignatureInto(sig: Uint8Array, out: Uint8Array, end = sig.length): boolean {
  if (end === 0 || sig[0] !== 0x30) return false;
  let pos = readLen(sig, 1, end);
  if (pos < 0) return false;
  const rlen = lenOut;
  if (pos + rlen > end) return false;
  if (pos + rlen !== end) return false; // garbage after the tuple
  out.fill(0);
  pos = parseInteger(sig, pos, end, out, 0);
  if (pos < 0) return false;
  pos = parseInteger(sig, pos, end, out, 32);
  if (pos < 0) return false;
  return pos === end; // else trailing garbage inside the tuple
}

/** secp256k1_ecdsa_sig_serialize: minimal DER of a 64-byte r||s. */
export function encodeDERSignature(sig64: Uint8Array): Uint8Array {
  const part = (off: number): Uint8Array => {
    let i = off;
    const stop = off + 31;
    while (i < stop && sig64[i] === 0) i++;
    const bytes = sig64.subarray(i, off + 32);
    if (bytes[0]! & 0x80) {
      const padded = new Uint8Array(bytes.length + 1);
      padded.set(bytes, 1);
      return padded;
    }
    return bytes;
  };
  const r = part(0);
  const s = part(32);
  const out = new Uint8Array(6 + r.length + s.length);
  out[0] = 0x30;
  out[1] = 4 + r.length + s.length;
  out[2] = 0x02;
  out[3] = r.length;
  out.set(r, 4);
  out[4 + r.length] = 0x02;
  out[5 + r.length] = s.length;
  out.set(s, 6 + r.length);
  return out;
}
