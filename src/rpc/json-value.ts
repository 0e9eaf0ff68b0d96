import { Amount } from '../chain/encoding/coin-amount.js';

/**
 * JSON values as komodod's UniValue holds them: a parsed number keeps its exact decimal text, an object
 * keeps its keys in order with duplicates (find_value returns the first match), and results may carry
 * coin amounts that print with exactly 8 decimals.
 */

/** A JSON number kept as the exact text the client sent (UniValue VNUM keeps its text too). */
export class JsonNumber {
  constructor(readonly text: string) {}

  /** Nearest double; only for values where a float is what komodod reads (get_real). */
  toNumber(): number {
    return Number(this.text);
  }

  toString(): string {
    return this.text;
  }
}

/** A parsed JSON object: keys in document order, duplicates kept, as UniValue::read stores them. */
export class JsonObject {
  readonly entries: [string, JsonValue][];

  constructor(entries: [string, JsonValue][] = []) {
    this.entries = entries;
  }

  /** find_value(): the first value under `key`, or null when the key is absent (NullUniValue). */
  get(key: string): JsonValue {
    // Indexed, not for-of with destructuring: the envelope reads id, method and params of every call,
    // and the iterator and its results were the request path's largest allocation in the RPC layer.
    const entries = this.entries;
    for (let i = 0; i < entries.length; i++) if (entries[i]![0] === key) return entries[i]![1];
    return null;
  }

  has(key: string): boolean {
    const entries = this.entries;
    for (let i = 0; i < entries.length; i++) if (entries[i]![0] === key) return true;
    return false;
  }

  keys(): string[] {
    return this.entries.map(([k]) => k);
  }

  get size(): number {
    return this.entries.length;
  }
}

/** A value as the request parser produces it. */
export type JsonValue = null | boolean | string | JsonNumber | JsonObject | JsonValue[];

/** Coin amounts are the chain's Amount type, so results built in src/chain print with 8 decimals. */
export { Amount };

/** Objects a result may hold: plain objects (key order = Object.keys order, so integer-like keys
 *  come first, as in any JS object; use a Map or JsonObject when that matters), Maps, JsonObjects. */
export interface JsonOutObject {
  [key: string]: JsonOut | undefined;
}

/**
 * What a method may return. `number` prints as UniValue(double) does (%.16g, which prints every safe
 * integer exactly), `bigint` as an integer (int64 values), `Amount` with 8 decimals, `JsonNumber` as
 * its text. An `undefined` object member is left out; `undefined` elsewhere prints as null.
 */
export type JsonOut =
  | undefined
  | null
  | boolean
  | string
  | number
  | bigint
  | JsonNumber
  | Amount
  | JsonObject
  | JsonOut[]
  | Map<string, JsonOut>
  | JsonOutObject;

/** UniValue type names, as uvTypeName() prints them in RPCTypeCheck messages. */
export type JsonTypeName = 'null' | 'bool' | 'object' | 'array' | 'string' | 'number';

export function jsonTypeOf(v: JsonValue): JsonTypeName {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  if (v instanceof JsonNumber) return 'number';
  if (Array.isArray(v)) return 'array';
  return 'object';
}
