/**
 * Plain Base58 as komodod's base58.cpp: leading '1's are zero bytes, and decoding skips leading and
 * trailing whitespace (C isspace) and stops at a NUL, as DecodeBase58 reading a C string does.
 */

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const INDEX = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) INDEX[ALPHABET.charCodeAt(i)] = i;

/** C isspace in the "C" locale: space, \t, \n, \v, \f, \r. */
function isSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}

export function encodeBase58(data: Uint8Array): string {
  let zeroes = 0;
  while (zeroes < data.length && data[zeroes] === 0) zeroes++;
  // Big-endian base-58 digits, log(256)/log(58) rounded up.
  const b58 = new Uint8Array((((data.length - zeroes) * 138) / 100 + 1) | 0);
  let len = 0;
  for (let i = zeroes; i < data.length; i++) {
    let carry = data[i]!;
    let j = 0;
    for (let k = b58.length - 1; (carry !== 0 || j < len) && k >= 0; k--, j++) {
      carry += 256 * b58[k]!;
      b58[k] = carry % 58;
      carry = (carry / 58) | 0;
    }
    len = j;
  }
  let it = b58.length - len;
  while (it < b58.length && b58[it] === 0) it++;
  let out = '1'.repeat(zeroes);
  for (; it < b58.length; it++) out += ALPHABET[b58[it]!];
  return out;
}

/** The bytes of a Base58 string, or null for a character outside the alphabet or inner whitespace. */
export function decodeBase58(s: string): Uint8Array | null {
  const nul = s.indexOf('\0');
  if (nul >= 0) s = s.slice(0, nul); // komodod reads the string as a C string
  let p = 0;
  while (p < s.length && isSpace(s.charCodeAt(p))) p++;
  let zeroes = 0;
  while (s[p] === '1') {
    zeroes++;
    p++;
  }
  let end = p;
  while (end < s.length && !isSpace(s.charCodeAt(end))) end++;
  for (let q = end; q < s.length; q++) if (!isSpace(s.charCodeAt(q))) return null;

  // Big-endian base-256 bytes, log(58)/log(256) rounded up.
  const b256 = new Uint8Array((((end - p) * 733) / 1000 + 1) | 0);
  let len = 0;
  for (let i = p; i < end; i++) {
    const c = s.charCodeAt(i);
    let carry = c < 128 ? INDEX[c]! : -1;
    if (carry < 0) return null;
    let j = 0;
    for (let k = b256.length - 1; (carry !== 0 || j < len) && k >= 0; k--, j++) {
      carry += 58 * b256[k]!;
      b256[k] = carry % 256;
      carry = (carry / 256) | 0;
    }
    len = j;
  }
  let it = b256.length - len;
  while (it < b256.length && b256[it] === 0) it++;
  const out = new Uint8Array(zeroes + b256.length - it);
  out.set(b256.subarray(it), zeroes);
  return out;
}
