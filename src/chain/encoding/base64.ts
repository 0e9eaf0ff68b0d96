const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const TABLE = new Int8Array(256).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) TABLE[ALPHABET.charCodeAt(i)] = i;

/**
 * komodod's DecodeBase64(p, &fInvalid) (utilstrencodings.cpp): the leading run of base64 digits is
 * decoded (the text ends at a NUL, as its C string does); it is valid when its leftover bits are fewer
 * than 6 and all zero, only '=' follows, the digits and padding fill whole groups of 4, and there are at
 * most 3 '='. The bytes are returned either way, as komodod returns them.
 */
export function decodeBase64Komodo(text: string): { bytes: Uint8Array; invalid: boolean } {
  const nul = text.indexOf('\0');
  const s = Buffer.from(nul === -1 ? text : text.slice(0, nul), 'utf8');
  let p = 0;
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  while (p < s.length && TABLE[s[p]!]! !== -1) {
    acc = ((acc << 6) | TABLE[s[p]!]!) & 0xfff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push((acc >> bits) & 0xff);
    }
    p++;
  }
  // ConvertBits<6, 8, false>: fewer than 6 bits left over, and those zero.
  let valid = bits < 6 && ((acc << (8 - bits)) & 0xff) === 0;
  const q = p;
  while (valid && p < s.length) {
    if (s[p] !== 0x3d) {
      valid = false;
      break;
    }
    p++;
  }
  valid = valid && p % 4 === 0 && p - q < 4;
  return { bytes: Uint8Array.from(out), invalid: !valid };
}
