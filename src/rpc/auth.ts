import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * HTTP basic auth as komodod checks it (src/httprpc.cpp RPCAuthorized): the header must start with exactly
 * "Basic " (case-sensitive), the rest is trimmed and base64-decoded with komodod's lenient DecodeBase64,
 * and the result must equal "user:password" byte for byte, compared in constant time.
 */

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_INDEX = new Map([...B64].map((c, i) => [c, i]));

/**
 * komodod's DecodeBase64 (src/utilstrencodings.cpp) as RPCAuthorized uses it: decoding stops at the
 * first character outside the alphabet, and the bytes completed so far are the result, whatever
 * follows (padding, garbage).
 */
export function decodeBase64Lenient(s: string): Buffer {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const c of s) {
    const v = B64_INDEX.get(c);
    if (v === undefined) break;
    acc = ((acc << 6) | v) & 0x1fff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push((acc >> bits) & 0xff);
    }
  }
  return Buffer.from(out);
}

/** boost::trim: the C locale's isspace set. */
function trimSpace(s: string): string {
  return s.replace(/^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g, '');
}

function digest(b: Buffer): Buffer {
  return createHash('sha256').update(b).digest();
}

/** How many distinct accepted header values are remembered (a client sends the same one every time). */
const ACCEPTED_CACHE_SIZE = 8;

export class BasicAuth {
  private readonly expected: Buffer;
  /**
   * header values already found correct (their bytes): the same exact text is correct again, without
   * decoding and hashing. Compared with timingSafeEqual, not looked up in a Set: a hash lookup and
   * string comparison would take longer the more of a guess matches a remembered header.
   */
  private readonly accepted: Buffer[] = [];

  /** `user:password` as komodod builds strRPCUserColonPass. An empty password is never accepted. */
  constructor(user: string, password: string) {
    if (password === '') throw new Error('an RPC password is required');
    this.expected = digest(Buffer.from(`${user}:${password}`, 'utf8'));
  }

  /** RPCAuthorized on the value of the Authorization header. */
  check(header: string): boolean {
    // A header already proven correct, compared in constant time: the check is a pure function of
    // the header text, and only correct values are kept, so a wrong one always takes the full path below.
    const bytes = Buffer.from(header, 'latin1');
    for (const a of this.accepted) if (a.length === bytes.length && timingSafeEqual(a, bytes)) return true;
    if (!header.startsWith('Basic ')) return false;
    const given = decodeBase64Lenient(trimSpace(header.slice(6)));
    // equal digests mean equal strings; timingSafeEqual keeps the comparison constant-time
    const ok = timingSafeEqual(digest(given), this.expected);
    if (ok && this.accepted.length < ACCEPTED_CACHE_SIZE) this.accepted.push(bytes);
    return ok;
  }
}
