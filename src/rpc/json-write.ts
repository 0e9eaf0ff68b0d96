import { Amount, JsonNumber, JsonObject, type JsonOut } from './json-value.js';

/**
 * Compact JSON as UniValue::write(0) prints it (src/univalue/lib/univalue_write.cpp): no spaces, keys in
 * insertion order, strings escaped with univalue_escapes.h. Never goes through JSON.stringify, so a
 * bigint or an amount cannot be mangled.
 */

const HEX = '0123456789abcdef';

/** json_escape(): control bytes as \uXXXX (lower-case hex) except \b \t \n \f \r, then \" \\ and
 *  DEL (0x7f) as \u007f; '/' and every byte >= 0x80 pass through unchanged (as UTF-8). */
export function escapeJsonString(s: string): string {
  // eslint-disable-next-line no-control-regex
  if (!/[\u0000-\u001f"\\\u007f]/.test(s)) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c && c !== 0x7f) {
      out += s[i];
      continue;
    }
    switch (c) {
      case 0x08: out += '\\b'; break;
      case 0x09: out += '\\t'; break;
      case 0x0a: out += '\\n'; break;
      case 0x0c: out += '\\f'; break;
      case 0x0d: out += '\\r'; break;
      case 0x22: out += '\\"'; break;
      case 0x5c: out += '\\\\'; break;
      default: out += '\\u00' + HEX[c >> 4] + HEX[c & 15];
    }
  }
  return out;
}

const TEN = 10n;

/** 2^k as a bigint. */
function pow2(k: number): bigint {
  return 1n << BigInt(k);
}

/** x = mantissa * 2^exp exactly, for a finite positive double. */
function decompose(x: number): [bigint, number] {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  if (biased === 0) return [mant, -1074];
  mant |= 1n << 52n;
  return [mant, biased - 1075];
}

/** The 16 significant digits of x (rounded half to even on the exact binary value, as glibc's printf
 *  does) and the decimal exponent of the first one. */
function digits16(x: number): [string, number] {
  const [mant, e2] = decompose(x);
  let e10 = Math.floor(Math.log10(x));
  for (;;) {
    const shift = 15 - e10;
    let num = mant * (e2 > 0 ? pow2(e2) : 1n);
    let den = e2 < 0 ? pow2(-e2) : 1n;
    if (shift >= 0) num *= TEN ** BigInt(shift);
    else den *= TEN ** BigInt(-shift);
    let q = num / den;
    // first make sure the exponent is right before rounding (Math.log10 can be off by one)
    if (q >= 10n ** 16n) {
      e10++;
      continue;
    }
    if (q < 10n ** 15n) {
      e10--;
      continue;
    }
    const r2 = (num % den) * 2n;
    if (r2 > den || (r2 === den && (q & 1n) === 1n)) q++;
    // rounding up from 9999999999999999.5 carries into the next decade
    if (q === 10n ** 16n) return ['1000000000000000', e10 + 1];
    return [q.toString(), e10];
  }
}

/** printf("%.16g"), which is how UniValue(double) (setprecision(16)) prints a double. */
export function formatDouble(x: number): string {
  if (!Number.isFinite(x)) throw new Error('cannot write a non-finite number as JSON');
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const sign = x < 0 ? '-' : '';
  const [d, exp] = digits16(Math.abs(x));
  if (exp < -4 || exp >= 16) {
    const frac = d.slice(1).replace(/0+$/, '');
    const ae = Math.abs(exp);
    return `${sign}${d[0]}${frac ? '.' + frac : ''}e${exp < 0 ? '-' : '+'}${ae < 10 ? '0' : ''}${ae}`;
  }
  let s: string;
  if (exp >= 0) {
    const frac = d.slice(exp + 1).replace(/0+$/, '');
    s = d.slice(0, exp + 1) + (frac ? '.' + frac : '');
  } else {
    s = ('0.' + '0'.repeat(-exp - 1) + d).replace(/0+$/, '');
  }
  return sign + s;
}

function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** A double as UniValue prints it; a safe integer (|x| < 2^53 < 10^16, so %.16g prints all its digits
 *  with no exponent) takes the fast path: String(x) prints the same digits. -0 keeps "-0". */
function writeNumber(x: number): string {
  return Number.isSafeInteger(x) && !Object.is(x, -0) ? String(x) : formatDouble(x);
}

function write(v: JsonOut): string {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'string':
      return '"' + escapeJsonString(v) + '"';
    case 'number':
      return writeNumber(v);
    case 'bigint':
      return v.toString();
  }
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    let s = '[' + write(v[0]);
    for (let i = 1; i < v.length; i++) s += ',' + write(v[i]);
    return s + ']';
  }
  if (v instanceof JsonNumber || v instanceof Amount) return v.toString();
  let s = '{';
  if (typeof v === 'object' && isPlainObject(v)) {
    // Object.keys order, as Object.entries gives it, without the pair arrays
    const o = v as Record<string, JsonOut>;
    const keys = Object.keys(o);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      const val = o[k];
      if (val === undefined) continue;
      if (s.length > 1) s += ',';
      s += '"' + escapeJsonString(k) + '":' + write(val);
    }
    return s + '}';
  }
  let entries: Iterable<[string, JsonOut]>;
  if (v instanceof JsonObject) entries = v.entries;
  else if (v instanceof Map) entries = v.entries();
  else throw new Error('cannot write this value as JSON');
  for (const [k, val] of entries) {
    if (val === undefined) continue;
    if (s.length > 1) s += ',';
    s += '"' + escapeJsonString(k) + '":' + write(val);
  }
  return s + '}';
}

/** UniValue::write() with no indentation. Throws a plain Error on a value JSON cannot hold. */
export function writeJson(v: JsonOut): string {
  return write(v);
}
