import { ParamsError } from './errors.js';

/**
 * Already-split command-line flags: name without the dash -> every value given, in order. A flag
 * given without `=value` has the value "" (as komodod's ParseParameters stores it). komodod's
 * GetArg reads the last value given on the command line.
 */
export type ArgValues =
  | ReadonlyMap<string, readonly string[]>
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/** The values of one flag, [] when absent. */
export function argValues(args: ArgValues, name: string): readonly string[] {
  const v = args instanceof Map ? args.get(name) : (args as Record<string, string | readonly string[] | undefined>)[name];
  if (v === undefined) return [];
  return typeof v === 'string' ? [v] : (v as readonly string[]);
}

/** GetArg's view: the last value, or undefined when the flag is absent. */
export function argValue(args: ArgValues, name: string): string | undefined {
  const v = argValues(args, name);
  return v.length ? v[v.length - 1] : undefined;
}

const INT_RE = /^[+-]?\d+$/;

/**
 * A whole number within [min, max]. komodod reads numbers with atoi64, which turns "abc" into 0 and
 * "10x" into 10; acnode refuses such values instead of guessing.
 */
export function parseIntArg(flag: string, text: string, min: bigint, max: bigint): bigint {
  const t = text.trim();
  if (t === '') throw new ParamsError(flag, `-${flag} needs a value`);
  if (!INT_RE.test(t)) throw new ParamsError(flag, `-${flag}=${text} is not a whole number`);
  const v = BigInt(t);
  if (v < min || v > max) throw new ParamsError(flag, `-${flag}=${text} is out of range (${min}..${max})`);
  return v;
}

/** parseIntArg for a flag that may be absent. */
export function intArg(args: ArgValues, flag: string, dflt: bigint, min: bigint, max: bigint): bigint {
  const v = argValue(args, flag);
  return v === undefined ? dflt : parseIntArg(flag, v, min, max);
}

/**
 * komodod's Split (util.cpp:417-447): numbers separated by commas and/or spaces, stored into `size`
 * slots; the slots after the last given value repeat it (or hold `dflt` when none was given).
 * Unlike komodod (which stops at the first bad token), a bad token is an error here.
 */
export function splitList(flag: string, text: string | undefined, size: number, max: bigint, dflt = 0n): bigint[] {
  const out: bigint[] = [];
  const trimmed = (text ?? '').trim();
  const tokens = trimmed === '' ? [] : trimmed.split(/\s*,\s*|\s+/);
  // A trailing comma is harmless to komodod's stream parser; an empty slot in the middle is a typo.
  if (tokens.length > 1 && tokens[tokens.length - 1] === '') tokens.pop();
  if (tokens.length > size) throw new ParamsError(flag, `-${flag} takes at most ${size} values`);
  for (const t of tokens) {
    if (t === '') throw new ParamsError(flag, `-${flag}=${text} has an empty value between commas`);
    if (!/^\d+$/.test(t)) throw new ParamsError(flag, `-${flag}: '${t}' is not a non-negative whole number`);
    const v = BigInt(t);
    if (v > max) throw new ParamsError(flag, `-${flag}: ${t} is out of range (0..${max})`);
    out.push(v);
  }
  const last = out.length ? out[out.length - 1]! : dflt;
  while (out.length < size) out.push(last);
  return out;
}
