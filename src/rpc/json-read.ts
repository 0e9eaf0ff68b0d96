import { JsonNumber, JsonObject, type JsonValue } from './json-value.js';

/**
 * A lossless JSON reader that accepts exactly what komodod's UniValue::read accepts
 * (src/univalue/lib/univalue_read.cpp at 0adeeab):
 * - any value at the top level (object, array, string, number, true, false, null), whitespace around it
 *   (space, tab, LF, CR only) and nothing after it;
 * - nesting deeper than 512 containers fails (MAX_JSON_DEPTH);
 * - numbers follow the JSON grammar and keep their exact text; UniValue's tokenizer also takes a lone
 *   `-` at the very end of the input as a number, so the body `-` is read as a bare number;
 * - strings: no raw byte below 0x20, only the JSON escapes, and the UTF-8 filter of
 *   univalue_utffilter.h: overlong sequences are accepted, surrogate halves (escaped or UTF-8 encoded)
 *   must pair up, and a broken sequence fails the whole read.
 * One departure: a 4-byte sequence above U+10FFFF (UniValue passes it through) cannot live in a JS
 * string and fails the read.
 * The input is bytes, as UniValue reads them; a non-ASCII byte outside a string fails.
 */
export class JsonParseError extends Error {
  override readonly name = 'JsonParseError';
}

const MAX_JSON_DEPTH = 512;

/** A character the fast path of a string leaves to slowString: a control byte, an escape, or a byte of a multi-byte sequence (read as latin1). */
const NOT_PLAIN = /[\x00-\x1f\\\x80-\xff]/;

function fail(): never {
  throw new JsonParseError('Parse error');
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function hexVal(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

class Reader {
  pos = 0;
  constructor(private readonly b: Uint8Array) {}

  skipSpace(): void {
    const b = this.b;
    while (this.pos < b.length && isSpace(b[this.pos]!)) this.pos++;
  }

  value(depth: number): JsonValue {
    this.skipSpace();
    const b = this.b;
    if (this.pos >= b.length) fail();
    const c = b[this.pos]!;
    switch (c) {
      case 0x7b: // {
        return this.object(depth + 1);
      case 0x5b: // [
        return this.array(depth + 1);
      case 0x22: // "
        return this.string();
      case 0x6e: // n
        this.keyword('null');
        return null;
      case 0x74: // t
        this.keyword('true');
        return true;
      case 0x66: // f
        this.keyword('false');
        return false;
      default:
        if (c === 0x2d || isDigit(c)) return this.number();
        return fail();
    }
  }

  keyword(word: string): void {
    const b = this.b;
    if (this.pos + word.length > b.length) fail();
    for (let i = 0; i < word.length; i++) if (b[this.pos + i] !== word.charCodeAt(i)) fail();
    this.pos += word.length;
  }

  number(): JsonNumber {
    const b = this.b;
    const start = this.pos;
    let p = this.pos;
    const first = b[p]!;
    const firstDigit = first === 0x2d ? p + 1 : p;
    // a leading zero followed by a digit
    if (b[firstDigit] === 0x30 && firstDigit + 1 < b.length && isDigit(b[firstDigit + 1]!)) fail();
    p++;
    // UniValue: '-' must be followed by a digit unless it is the last byte of the input
    if (first === 0x2d && p < b.length && !isDigit(b[p]!)) fail();
    while (p < b.length && isDigit(b[p]!)) p++;
    if (p < b.length && b[p] === 0x2e) {
      p++;
      if (p >= b.length || !isDigit(b[p]!)) fail();
      while (p < b.length && isDigit(b[p]!)) p++;
    }
    if (p < b.length && (b[p] === 0x65 || b[p] === 0x45)) {
      p++;
      if (p < b.length && (b[p] === 0x2d || b[p] === 0x2b)) p++;
      if (p >= b.length || !isDigit(b[p]!)) fail();
      while (p < b.length && isDigit(b[p]!)) p++;
    }
    this.pos = p;
    return new JsonNumber(latin1(b, start, p));
  }

  string(): string {
    const b = this.b;
    // fast path: plain printable ASCII up to the closing quote, with no escape or multi-byte sequence
    // (no closures made: under tsx each nested function costs a __name call per string). The quote is
    // found by the typed array's own search; a long text is then checked whole by one regular
    // expression, not byte by byte here (a transaction's hex: ~4 ns a byte in the loop).
    const start = this.pos + 1;
    const q = b.indexOf(0x22, start);
    if (q === -1) return this.slowString();
    if (q - start > 16) {
      const text = latin1(b, start, q);
      if (NOT_PLAIN.test(text)) return this.slowString();
      this.pos = q + 1;
      return text;
    }
    for (let i = start; i < q; i++) {
      const c = b[i]!;
      if (c < 0x20 || c >= 0x80 || c === 0x5c) return this.slowString();
    }
    const text = latin1(b, start, q);
    this.pos = q + 1;
    return text;
  }

  slowString(): string {
    const b = this.b;
    let p = this.pos + 1; // skip the opening quote
    let out = '';
    // JSONUTF8StringFilter state
    let state = 0;
    let codepoint = 0;
    let surpair = 0;
    let valid = true;
    const pushU = (cp: number): void => {
      if (state) valid = false;
      if (cp >= 0xd800 && cp < 0xdc00) {
        if (surpair) valid = false;
        else surpair = cp;
      } else if (cp >= 0xdc00 && cp < 0xe000) {
        if (surpair) {
          out += String.fromCodePoint(0x10000 | ((surpair - 0xd800) << 10) | (cp - 0xdc00));
          surpair = 0;
        } else valid = false;
      } else if (surpair) valid = false;
      else if (cp > 0x10ffff) valid = false; // departure: not representable in a JS string
      else out += String.fromCodePoint(cp);
    };
    for (;;) {
      // fast path: a run of plain printable ASCII outside any open sequence
      if (state === 0 && surpair === 0) {
        const runStart = p;
        while (p < b.length) {
          const c = b[p]!;
          if (c < 0x20 || c >= 0x80 || c === 0x22 || c === 0x5c) break;
          p++;
        }
        if (p > runStart) out += latin1(b, runStart, p);
      }
      if (p >= b.length) fail();
      const c = b[p]!;
      if (c < 0x20) fail();
      if (c === 0x5c) {
        p++;
        if (p >= b.length) fail();
        const e = b[p]!;
        switch (e) {
          case 0x22: pushByte(0x22); break;
          case 0x5c: pushByte(0x5c); break;
          case 0x2f: pushByte(0x2f); break;
          case 0x62: pushByte(0x08); break;
          case 0x66: pushByte(0x0c); break;
          case 0x6e: pushByte(0x0a); break;
          case 0x72: pushByte(0x0d); break;
          case 0x74: pushByte(0x09); break;
          case 0x75: {
            // four hex digits, and the input must go on after them
            if (p + 1 + 4 >= b.length) fail();
            let cp = 0;
            for (let i = 1; i <= 4; i++) {
              const h = hexVal(b[p + i]!);
              if (h < 0) fail();
              cp = cp * 16 + h;
            }
            pushU(cp);
            p += 4;
            break;
          }
          default:
            fail();
        }
        p++;
      } else if (c === 0x22) {
        p++;
        break;
      } else {
        pushByte(c);
        p++;
      }
    }
    if (state || surpair) valid = false;
    if (!valid) fail();
    this.pos = p;
    return out;

    function pushByte(ch: number): void {
      if (state === 0) {
        if (ch < 0x80) out += String.fromCharCode(ch);
        else if (ch < 0xc0) valid = false;
        else if (ch < 0xe0) {
          codepoint = (ch & 0x1f) << 6;
          state = 6;
        } else if (ch < 0xf0) {
          codepoint = (ch & 0x0f) << 12;
          state = 12;
        } else if (ch < 0xf8) {
          codepoint = (ch & 0x07) << 18;
          state = 18;
        } else valid = false;
      } else {
        if ((ch & 0xc0) !== 0x80) valid = false;
        state -= 6;
        codepoint |= (ch & 0x3f) << state;
        if (state === 0) pushU(codepoint);
      }
    }
  }

  array(depth: number): JsonValue[] {
    if (depth > MAX_JSON_DEPTH) fail();
    const b = this.b;
    this.pos++; // [
    const out: JsonValue[] = [];
    this.skipSpace();
    if (this.pos < b.length && b[this.pos] === 0x5d) {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value(depth));
      this.skipSpace();
      if (this.pos >= b.length) fail();
      const c = b[this.pos++];
      if (c === 0x2c) continue;
      if (c === 0x5d) return out;
      fail();
    }
  }

  object(depth: number): JsonObject {
    if (depth > MAX_JSON_DEPTH) fail();
    const b = this.b;
    this.pos++; // {
    const entries: [string, JsonValue][] = [];
    this.skipSpace();
    if (this.pos < b.length && b[this.pos] === 0x7d) {
      this.pos++;
      return new JsonObject(entries);
    }
    for (;;) {
      this.skipSpace();
      if (this.pos >= b.length || b[this.pos] !== 0x22) fail();
      const key = this.string();
      this.skipSpace();
      if (this.pos >= b.length || b[this.pos] !== 0x3a) fail();
      this.pos++;
      entries.push([key, this.value(depth)]);
      this.skipSpace();
      if (this.pos >= b.length) fail();
      const c = b[this.pos++];
      if (c === 0x2c) continue;
      if (c === 0x7d) return new JsonObject(entries);
      fail();
    }
  }
}

/** Buffer's latin1 decoder, called on the bytes as they are (it takes any Uint8Array): no Buffer view made first. */
const latin1Slice = (Buffer.prototype as unknown as { latin1Slice(this: Uint8Array, start: number, end: number): string }).latin1Slice;

/**
 * The short texts read lately (keys, method names, "1.0"), by a hash of their bytes: every request
 * names the same few keys, and building each again char by char cost a string per character
 * (~500 bytes of garbage per sendrawtransaction call). A slot holds the last text that hashed there;
 * a hit is checked byte by byte, so a collision only costs the build.
 */
const shortTexts = new Array<string>(256).fill('');

function latin1(b: Uint8Array, start: number, end: number): string {
  // short texts (keys, ids, numbers): a char-code loop is cheaper than a call into the decoder
  if (end - start <= 16) {
    let h = end - start;
    for (let i = start; i < end; i++) h = (h * 31 + b[i]!) & 0xff;
    const known = shortTexts[h]!;
    if (known.length === end - start) {
      let same = true;
      for (let i = start; i < end && same; i++) same = known.charCodeAt(i - start) === b[i];
      if (same) return known;
    }
    let s = '';
    for (let i = start; i < end; i++) s += String.fromCharCode(b[i]!);
    shortTexts[h] = s;
    return s;
  }
  return latin1Slice.call(b, start, end);
}

/** UniValue::read over the bytes of a request body (or a string, taken as UTF-8). Throws JsonParseError. */
export function parseJson(input: Uint8Array | string): JsonValue {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  const r = new Reader(bytes);
  const v = r.value(0);
  r.skipSpace();
  if (r.pos !== bytes.length) fail();
  return v;
}
