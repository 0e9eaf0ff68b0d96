/**
 * CScriptNum (src/script/script.h): little-endian sign-magnitude integers on the script stack.
 * Operands are limited to `maxSize` bytes (4 by default, 5 for CHECKLOCKTIMEVERIFY); results may be
 * wider and are only checked when next read as a number.
 */

export const DEFAULT_MAX_NUM_SIZE = 4;

/** Thrown by decodeScriptNum; the interpreter turns it into SCRIPT_ERR_UNKNOWN_ERROR as komodod's catch(...) does. */
export class ScriptNumError extends Error {
  override readonly name = 'ScriptNumError';
}

/** CScriptNum(vch, fRequireMinimal, nMaxNumSize). */
export function decodeScriptNum(vch: Uint8Array, requireMinimal: boolean, maxSize = DEFAULT_MAX_NUM_SIZE): bigint {
  if (vch.length > maxSize) throw new ScriptNumError('script number overflow');
  if (requireMinimal && !isMinimallyEncoded(vch)) throw new ScriptNumError('non-minimally encoded script number');
  return scriptNumValue(vch);
}

/** The minimal-encoding rule (also rejects negative zero 0x80). */
export function isMinimallyEncoded(vch: Uint8Array): boolean {
  const n = vch.length;
  if (n === 0) return true;
  if ((vch[n - 1]! & 0x7f) === 0) {
    // 0xff00 / 0xff80 style: the extra byte is needed when the next one has its top bit set.
    if (n <= 1 || (vch[n - 2]! & 0x80) === 0) return false;
  }
  return true;
}

/** set_vch: the value of any byte string, with no size or minimality check. */
export function scriptNumValue(vch: Uint8Array): bigint {
  const n = vch.length;
  if (n === 0) return 0n;
  let result = 0n;
  for (let i = 0; i < n; i++) result |= BigInt(vch[i]!) << BigInt(8 * i);
  if (vch[n - 1]! & 0x80) return -(result & ~(0x80n << BigInt(8 * (n - 1))));
  return result;
}

/** CScriptNum::serialize. */
export function encodeScriptNum(value: bigint | number): Uint8Array {
  let v = BigInt(value);
  if (v === 0n) return new Uint8Array(0);
  const neg = v < 0n;
  if (neg) v = -v;
  const out: number[] = [];
  while (v > 0n) {
    out.push(Number(v & 0xffn));
    v >>= 8n;
  }
  if (out[out.length - 1]! & 0x80) out.push(neg ? 0x80 : 0);
  else if (neg) out[out.length - 1]! |= 0x80;
  return Uint8Array.from(out);
}

const INT_MAX = 2147483647n;
const INT_MIN = -2147483648n;

/** CScriptNum::getint(): the value clamped to a C int. */
export function scriptNumToInt(v: bigint): number {
  if (v > INT_MAX) return Number(INT_MAX);
  if (v < INT_MIN) return Number(INT_MIN);
  return Number(v);
}
