const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const CHARSET_REV = new Int8Array(128).fill(-1);
for (let i = 0; i < CHARSET.length; i++) {
  CHARSET_REV[CHARSET.charCodeAt(i)] = i;
  CHARSET_REV[CHARSET.toUpperCase().charCodeAt(i)] = i;
}
const GEN = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

function polymod(values: readonly number[]): number {
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = (((chk & 0x1ffffff) << 5) ^ v) >>> 0;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk = (chk ^ GEN[i]!) >>> 0;
  }
  return chk;
}

function expandHrp(hrp: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < hrp.length; i++) out.push(hrp.charCodeAt(i) >> 5);
  out.push(0);
  for (let i = 0; i < hrp.length; i++) out.push(hrp.charCodeAt(i) & 31);
  return out;
}

/**
 * komodod's bech32::Decode (bech32.cpp, BIP 173 checksum): printable ASCII, not mixed case, up to 1023
 * characters (zcash lifted BIP 173's 90 so Sapling keys fit), a '1' separator with a non-empty prefix and
 * 6 checksum characters after it. Returns the lower-cased prefix and the 5-bit values without the
 * checksum, or null.
 */
export function bech32Decode(str: string): { hrp: string; data: number[] } | null {
  let lower = false;
  let upper = false;
  for (let i = 0; i < str.length; i++) {
    const c = str.charCodeAt(i);
    if (c < 33 || c > 126) return null;
    if (c >= 97 && c <= 122) lower = true;
    if (c >= 65 && c <= 90) upper = true;
  }
  if (lower && upper) return null;
  const pos = str.lastIndexOf('1');
  if (str.length > 1023 || pos < 1 || pos + 7 > str.length) return null;
  const values: number[] = [];
  for (let i = pos + 1; i < str.length; i++) {
    const rev = CHARSET_REV[str.charCodeAt(i)]!;
    if (rev === -1) return null;
    values.push(rev);
  }
  const hrp = str.slice(0, pos).toLowerCase();
  if (polymod([...expandHrp(hrp), ...values]) !== 1) return null;
  return { hrp, data: values.slice(0, -6) };
}

/** ConvertBits<5, 8, false>: null when the leftover bits are 5 or more, or not zero. */
export function fiveToEight(values: readonly number[]): Uint8Array | null {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const v of values) {
    acc = ((acc << 5) | v) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push((acc >> bits) & 0xff);
    }
  }
  if (bits >= 5 || ((acc << (8 - bits)) & 0xff) !== 0) return null;
  return Uint8Array.from(out);
}
