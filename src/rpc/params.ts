import { RpcError, RPC_INVALID_PARAMETER, RPC_TYPE_ERROR } from './errors.js';
import { JsonNumber, JsonObject, jsonTypeOf, type JsonTypeName, type JsonValue } from './json-value.js';
import { fromHexReversed, hexBytes } from '../chain/encoding/hex.js';

/**
 * Parameter readers with komodod's byte-exact failures. The UniValue accessors (get_str, get_int, ...)
 * throw std::runtime_error, which execute() turns into -1: here they throw a plain Error, which the
 * method table turns into -1 the same way. The RPC helpers of src/rpc/server.cpp throw RpcError.
 */

/** UniValue::get_str */
export function getStr(v: JsonValue): string {
  if (typeof v !== 'string') throw new Error('JSON value is not a string as expected');
  return v;
}

/** UniValue::get_bool */
export function getBool(v: JsonValue): boolean {
  if (typeof v !== 'boolean') throw new Error('JSON value is not a boolean as expected');
  return v;
}

/** UniValue::get_obj */
export function getObj(v: JsonValue): JsonObject {
  if (!(v instanceof JsonObject)) throw new Error('JSON value is not an object as expected');
  return v;
}

/** UniValue::get_array */
export function getArr(v: JsonValue): JsonValue[] {
  if (!Array.isArray(v)) throw new Error('JSON value is not an array as expected');
  return v;
}

const INT32_MIN = -(2n ** 31n);
const INT32_MAX = 2n ** 31n - 1n;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** ParseInt32/ParseInt64 of univalue_get.cpp on a JSON number's text: strtol must consume all of it
 *  (so "1.0" and "1e3" fail) and the value must fit. */
function parseIntText(text: string, min: bigint, max: bigint): bigint | null {
  if (!/^[+-]?[0-9]+$/.test(text)) return null;
  const n = BigInt(text);
  return n >= min && n <= max ? n : null;
}

/** UniValue::get_int: a number whose text is an int32. */
export function getInt(v: JsonValue): number {
  if (!(v instanceof JsonNumber)) throw new Error('JSON value is not an integer as expected');
  const n = parseIntText(v.text, INT32_MIN, INT32_MAX);
  if (n === null) throw new Error('JSON integer out of range');
  return Number(n);
}

/** UniValue::get_int64: a number whose text is an int64. */
export function getInt64(v: JsonValue): bigint {
  if (!(v instanceof JsonNumber)) throw new Error('JSON value is not an integer as expected');
  const n = parseIntText(v.text, INT64_MIN, INT64_MAX);
  if (n === null) throw new Error('JSON integer out of range');
  return n;
}

/** UniValue::get_real: any number that reads as a finite double. */
export function getReal(v: JsonValue): number {
  if (!(v instanceof JsonNumber)) throw new Error('JSON value is not a number as expected');
  const x = Number(v.text);
  if (!Number.isFinite(x)) throw new Error('JSON double out of range');
  return x;
}

/** RPCTypeCheck: only the params present are checked; with allowNull a null passes. -3 on mismatch. */
export function rpcTypeCheck(params: JsonValue[], types: JsonTypeName[], allowNull = false): void {
  for (let i = 0; i < types.length && i < params.length; i++) {
    const v = params[i]!;
    const t = jsonTypeOf(v);
    if (!(t === types[i] || (allowNull && v === null))) {
      throw new RpcError(RPC_TYPE_ERROR, `Expected type ${types[i]}, got ${t}`);
    }
  }
}

/** Byte order of std::string keys, as std::map iterates them. */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** RPCTypeCheckObj: keys checked in std::map (byte-sorted) order; a missing key reads as null. */
export function rpcTypeCheckObj(
  o: JsonValue,
  types: Record<string, JsonTypeName>,
  allowNull = false,
): void {
  for (const key of Object.keys(types).sort(byteOrder)) {
    const want = types[key]!;
    const v = o instanceof JsonObject ? o.get(key) : null;
    if (!allowNull && v === null) throw new RpcError(RPC_TYPE_ERROR, `Missing ${key}`);
    const t = jsonTypeOf(v);
    if (!(t === want || (allowNull && v === null))) {
      throw new RpcError(RPC_TYPE_ERROR, `Expected type ${want} for ${key}, got ${t}`);
    }
  }
}

/** komodod's IsHex: non-empty, even length, hex digits only. */
function isHexNonEmpty(s: string): boolean {
  return s.length > 0 && s.length % 2 === 0 && /^[0-9a-fA-F]*$/.test(s);
}

function hexOrThrow(v: JsonValue, name: string): string {
  // a non-string value shows as '' in the message
  const s = typeof v === 'string' ? v : '';
  if (!isHexNonEmpty(s)) {
    throw new RpcError(RPC_INVALID_PARAMETER, `${name} must be hexadecimal string (not '${s}')`);
  }
  return s;
}

/**
 * ParseHashV: a uint256 from display hex, returned in internal byte order. The length is not checked:
 * uint256::SetHex keeps the last 64 digits and zero-pads shorter input as a big-endian number.
 */
export function parseHashV(v: JsonValue, name: string): Uint8Array {
  const s = hexOrThrow(v, name);
  const digits = s.length > 64 ? s.slice(s.length - 64) : s.padStart(64, '0');
  return fromHexReversed(digits);
}

/** ParseHashO: ParseHashV of find_value(o, key), named by the key. */
export function parseHashO(o: JsonValue, key: string): Uint8Array {
  return parseHashV(o instanceof JsonObject ? o.get(key) : null, key);
}

/** ParseHexV: the bytes of a non-empty even-length hex string. */
export function parseHexV(v: JsonValue, name: string): Uint8Array {
  return hexBytes(hexOrThrow(v, name));
}

/** ParseHexO: ParseHexV of find_value(o, key), named by the key. */
export function parseHexO(o: JsonValue, key: string): Uint8Array {
  return parseHexV(o instanceof JsonObject ? o.get(key) : null, key);
}
