/**
 * The C library and komodod text parsers the token RPCs apply to their string params, reproduced
 * exactly: glibc's atof/strtod and atoll/strtoll (C locale), komodod's ParseHex and Parseuint256.
 */

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

/** C isspace in the C locale. */
function isCSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\v' || c === '\f' || c === '\r';
}

function skipSpace(s: string): number {
  let i = 0;
  while (i < s.length && isCSpace(s[i])) i++;
  return i;
}

const DECIMAL_RE = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/;
const HEX_RE = /^0[xX]((?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+))(?:[pP]([+-]?\d+))?/;
const INF_RE = /^inf(?:inity)?/i;
const NAN_RE = /^nan(?:\([0-9A-Za-z_]*\))?/i;

/** A `p` exponent: beyond a million it only matters that it is huge, so it is clamped there. */
function binaryExponent(text: string): number {
  const neg = text.startsWith('-');
  const digits = text.replace(/^[+-]/, '').replace(/^0+(?=\d)/, '');
  const v = digits.length > 7 ? 1e6 : Math.min(1e6, Number(digits));
  return neg ? -v : v;
}

/** A hex float's value, correctly rounded: the mantissa is cut to 64 bits plus a sticky bit first. */
function hexFloat(digits: string, exp: string | undefined): number {
  const dot = digits.indexOf('.');
  const intPart = dot < 0 ? digits : digits.slice(0, dot);
  const fracPart = dot < 0 ? '' : digits.slice(dot + 1);
  let m = BigInt('0x' + (intPart + fracPart || '0'));
  if (m === 0n) return 0;
  let e = exp === undefined ? 0 : binaryExponent(exp);
  e -= 4 * fracPart.length;
  const bits = m.toString(2).length;
  if (bits > 64) {
    const shift = BigInt(bits - 64);
    const sticky = m & ((1n << shift) - 1n) ? 1n : 0n;
    m = (m >> shift) | sticky;
    e += bits - 64;
  }
  // Number(bigint) rounds to nearest even; the sticky bit keeps "above the halfway point" visible.
  let x = Number(m);
  if (e > 2200) return Infinity;
  if (e < -2300) return 0;
  const half = Math.trunc(e / 2);
  x = x * 2 ** half * 2 ** (e - half);
  return x;
}

/** glibc atof (strtod in the C locale): the longest valid prefix, 0 when there is none. */
export function cAtof(text: string): number {
  let i = skipSpace(text);
  let sign = 1;
  if (text[i] === '+' || text[i] === '-') {
    if (text[i] === '-') sign = -1;
    i++;
  }
  const rest = text.slice(i);
  let m: RegExpExecArray | null;
  if ((m = HEX_RE.exec(rest))) return sign * hexFloat(m[1]!, m[2]);
  if ((m = DECIMAL_RE.exec(rest))) return sign * Number(m[0]);
  if (INF_RE.test(rest)) return sign * Infinity;
  if (NAN_RE.test(rest)) return NaN;
  return 0;
}

/**
 * The C conversion `(int64_t)x` on x86-64 (cvttsd2si): truncation toward zero, and INT64_MIN for NaN
 * or anything outside the int64 range.
 */
export function doubleToInt64(x: number): bigint {
  if (!Number.isFinite(x)) return INT64_MIN;
  const t = Math.trunc(x);
  if (t >= 9223372036854775808 || t < -9223372036854775808) return INT64_MIN;
  return BigInt(t);
}

/**
 * tokencreate's supply: `atof(s) * COIN + 0.00000000499999` stored in an int64 (rpcwallet.cpp), all in
 * C doubles: "1987.420" → 198742000000, "1.123456789" → 112345678, "abc" → 0.
 */
export function parseTokenSupply(text: string): bigint {
  return doubleToInt64(cAtof(text) * 100000000 + 0.00000000499999);
}

/** glibc atoll (strtoll base 10): whitespace, a sign, digits; saturates at the int64 limits. */
export function cAtoll(text: string): bigint {
  let i = skipSpace(text);
  let neg = false;
  if (text[i] === '+' || text[i] === '-') {
    neg = text[i] === '-';
    i++;
  }
  let j = i;
  while (j < text.length && text.charCodeAt(j) >= 48 && text.charCodeAt(j) <= 57) j++;
  if (j === i) return 0n;
  // Saturation only needs to know the value exceeds 19 digits; leading zeros do not count.
  const digits = text.slice(i, j).replace(/^0+(?=\d)/, '');
  if (digits.length > 20) return neg ? INT64_MIN : INT64_MAX;
  const v = neg ? -BigInt(digits) : BigInt(digits);
  if (v > INT64_MAX) return INT64_MAX;
  if (v < INT64_MIN) return INT64_MIN;
  return v;
}

/** tokentransfer's amount: `atoll(s)` raw units ("1.9" → 1, "10abc" → 10). */
export function parseTokenAmount(text: string): bigint {
  return cAtoll(text);
}

function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

/**
 * komodod's ParseHex (utilstrencodings.cpp): whitespace is skipped before each byte and the first
 * non-hex character (or a lone final digit) ends the result, so bad hex gives a short or empty vector.
 */
export function parseHexLenient(text: string): Uint8Array {
  const out: number[] = [];
  let i = 0;
  for (;;) {
    while (i < text.length && isCSpace(text[i])) i++;
    const hi = hexDigit(text.charCodeAt(i++));
    if (hi < 0) break;
    const lo = hexDigit(text.charCodeAt(i++));
    if (lo < 0) break;
    out.push((hi << 4) | lo);
  }
  return Uint8Array.from(out);
}

/**
 * Parseuint256 (CCutilbits.cpp): a 64-character string is read as a display-order hash into internal
 * order; any other length gives zero. With 64 characters that are not all hex komodod copies past the
 * parsed bytes (undefined behaviour); here that also gives zero. The C string ends at a NUL.
 */
export function parseUint256(text: string): Uint8Array {
  const cstr = text.includes('\0') ? text.slice(0, text.indexOf('\0')) : text;
  const out = new Uint8Array(32);
  if (cstr.length !== 64) return out;
  const bytes = parseHexLenient(cstr);
  if (bytes.length !== 32) return out;
  for (let i = 0; i < 32; i++) out[31 - i] = bytes[i]!;
  return out;
}
