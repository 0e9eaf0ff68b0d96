import { hash160 } from '../crypto/hash.js';
import {
  OP_0,
  OP_1,
  OP_16,
  OP_CHECKCRYPTOCONDITION,
  OP_CHECKLOCKTIMEVERIFY,
  OP_CHECKMULTISIG,
  OP_CHECKSIG,
  OP_DROP,
  OP_PUSHDATA1,
  OP_PUSHDATA4,
  OP_RETURN,
} from './opcodes.js';
import { decodeOpN, getOp, isP2PKH, isP2SH, isPushOnly } from './script.js';

/** Output templates as komodod's Solver and ExtractDestinations (src/script/standard.cpp) see them. */

export type TxoutType = 'nonstandard' | 'pubkey' | 'pubkeyhash' | 'scripthash' | 'multisig' | 'nulldata' | 'cryptocondition';

/** A key destination (R-address) or a script destination (P2SH address), by its 20-byte hash. */
export type Destination = { kind: 'key'; hash: Uint8Array } | { kind: 'script'; hash: Uint8Array };

export interface SolverOptions {
  /** komodod's IsCryptoConditionsEnabled(): -ac_cc ≠ 0. Without it a CC script is nonstandard. */
  ccEnabled: boolean;
  /**
   * MayAcceptCryptoCondition for the condition bytes a CC script pushes: komodod parses them
   * (cc_readConditionBinary) and requires IsSupportedCryptoCondition; a CC script failing that is
   * nonstandard. The crypto-conditions module supplies this; when absent every condition is accepted.
   */
  isSupportedCondition?: (condition: Uint8Array) => boolean;
}

export interface Solution {
  type: TxoutType;
  solutions: Uint8Array[];
}

/** CPubKey::ValidSize: the header byte's length (02/03 → 33, 04/06/07 → 65) equals the size. */
export function isValidPubKeySize(pub: Uint8Array): boolean {
  if (pub.length === 0) return false;
  const h = pub[0]!;
  if (h === 2 || h === 3) return pub.length === 33;
  if (h === 4 || h === 6 || h === 7) return pub.length === 65;
  return false;
}

/**
 * CScript::GetBalancedData from `pc`: the rest is pushes each later removed by OP_DROP (never more drops
 * than pushes, none left over). Returns the pushed items, or null.
 */
function balancedData(script: Uint8Array, pc: number): Uint8Array[] | null {
  let net = 0;
  const out: Uint8Array[] = [];
  while (pc < script.length) {
    const r = getOp(script, pc);
    if (!r) return null;
    pc = r.next;
    if (r.op === OP_DROP) {
      if (--net < 0) return null;
      continue;
    }
    net++;
    if (r.op === OP_0) out.push(Uint8Array.of(0));
    else if (r.op >= OP_1 && r.op <= OP_16) out.push(Uint8Array.of(r.op - OP_1 + 1));
    else if (r.op > 0 && r.op <= OP_PUSHDATA4 && r.data!.length > 0) out.push(r.data!);
    else return null;
  }
  return net === 0 ? out : null;
}

export interface PayToCryptoCondition {
  /** the condition bytes pushed by the first opcode */
  condition: Uint8Array;
  /** `<push condition> OP_CHECKCRYPTOCONDITION`, the part before any `<data> OP_DROP` params */
  ccSubScript: Uint8Array;
  /** the balanced data after OP_CHECKCRYPTOCONDITION (COptCCParams blobs) */
  params: Uint8Array[];
}

/**
 * CScript::IsPayToCryptoCondition: a direct push of 1..75 bytes (not OP_PUSHDATA1..4), then
 * OP_CHECKCRYPTOCONDITION, then only balanced `<push> OP_DROP` data.
 */
export function parsePayToCryptoCondition(script: Uint8Array): PayToCryptoCondition | null {
  const first = getOp(script, 0);
  if (!first || !(first.op > OP_0 && first.op < OP_PUSHDATA1)) return null;
  const second = getOp(script, first.next);
  if (!second || second.op !== OP_CHECKCRYPTOCONDITION) return null;
  const params = balancedData(script, second.next);
  if (!params) return null;
  return { condition: first.data!, ccSubScript: script.subarray(0, second.next), params };
}

export function isPayToCryptoCondition(script: Uint8Array): boolean {
  return parsePayToCryptoCondition(script) !== null;
}

function matchMultisig(script: Uint8Array): { required: number; keys: Uint8Array[] } | null {
  if (script.length < 1 || script[script.length - 1] !== OP_CHECKMULTISIG) return null;
  let r = getOp(script, 0);
  if (!r || !(r.op >= OP_1 && r.op <= OP_16)) return null;
  const required = decodeOpN(r.op);
  const keys: Uint8Array[] = [];
  let pc = r.next;
  // komodod loops while GetOp succeeds and the pushed data is a valid-size key; the op that stops it must be OP_n.
  for (;;) {
    r = getOp(script, pc);
    if (!r) return null;
    pc = r.next;
    if (!(r.data && isValidPubKeySize(r.data))) break;
    keys.push(r.data);
  }
  if (!(r.op >= OP_1 && r.op <= OP_16)) return null;
  const n = decodeOpN(r.op);
  if (keys.length !== n || n < required) return null;
  return pc + 1 === script.length ? { required, keys } : null;
}

/**
 * komodod's Solver. CC outputs are solved (when ccEnabled) by Hash160 of the CC sub-script only,
 * as with komodo_is_vSolutionsFixActive() true (every chain past the S5 timestamp).
 */
export function solver(script: Uint8Array, opts: SolverOptions): Solution {
  if (isP2SH(script)) return { type: 'scripthash', solutions: [script.slice(2, 22)] };

  if (script.length >= 1 && script[0] === OP_RETURN && isPushOnly(script, 1)) return { type: 'nulldata', solutions: [] };

  if (opts.ccEnabled) {
    const cc = parsePayToCryptoCondition(script);
    if (cc) {
      const accept = opts.isSupportedCondition ? opts.isSupportedCondition(cc.condition) : true;
      if (!accept) return { type: 'nonstandard', solutions: [] };
      return { type: 'cryptocondition', solutions: [hash160(cc.ccSubScript)] };
    }
  }

  // MatchPayToPubkey: 65- or 33-byte push then OP_CHECKSIG, with a header matching the size.
  if ((script.length === 67 && script[0] === 65) || (script.length === 35 && script[0] === 33)) {
    if (script[script.length - 1] === OP_CHECKSIG) {
      const pub = script.slice(1, script.length - 1);
      if (isValidPubKeySize(pub)) return { type: 'pubkey', solutions: [pub] };
    }
  }

  if (isP2PKH(script)) return { type: 'pubkeyhash', solutions: [script.slice(3, 23)] };

  const ms = matchMultisig(script);
  if (ms) {
    return {
      type: 'multisig',
      solutions: [Uint8Array.of(ms.required), ...ms.keys.map((k) => k.slice()), Uint8Array.of(ms.keys.length)],
    };
  }
  return { type: 'nonstandard', solutions: [] };
}

/**
 * CScript::IsCheckLockTimeVerify: the first instruction parses, pushes fewer than 6 bytes, and the byte at
 * index (push size + 1) is OP_CHECKLOCKTIMEVERIFY. komodod reads that byte by position whatever the first
 * opcode is (a non-push opcode counts as an empty push); a position past the end is taken as no match
 * (komodod reads out of bounds there). Returns the little-endian unlock time, or null.
 */
export function checkLockTimePrefix(script: Uint8Array): bigint | null {
  const r = getOp(script, 0);
  if (!r) return null;
  const param = r.data ?? new Uint8Array(0);
  if (param.length >= 6) return null;
  const at = param.length + 1;
  if (at >= script.length || script[at] !== OP_CHECKLOCKTIMEVERIFY) return null;
  let t = 0n;
  for (let i = param.length - 1; i >= 0; i--) t = (t << 8n) | BigInt(param[i]!);
  return t;
}

/**
 * The script after a CLTV prefix: komodod skips `script[0] + 3` bytes (the push opcode taken as the
 * push length, plus the push byte, OP_CHECKLOCKTIMEVERIFY and OP_DROP), or takes nothing if that is
 * past the end.
 */
function afterCheckLockTime(script: Uint8Array): Uint8Array {
  const start = script[0]! + 3;
  return script.length > start ? script.subarray(start) : new Uint8Array(0);
}

export interface ExtractedDestinations {
  type: TxoutType;
  reqSigs: number;
  destinations: Destination[];
}

/** The type komodod prints for an output (ExtractDestinations' typeRet, CLTV prefix skipped). */
export function outputType(script: Uint8Array, opts: SolverOptions): TxoutType {
  while (checkLockTimePrefix(script) !== null) script = afterCheckLockTime(script);
  return solver(script, opts).type;
}

/**
 * komodod's ExtractDestinations: null for nulldata, nonstandard, and multisig without a valid key (then
 * only `outputType` is printed). A script with a CLTV prefix is judged by the script after it.
 * pubkey → the key's Hash160; cryptocondition → Hash160 of the CC sub-script (an R-address).
 */
export function extractDestinations(script: Uint8Array, opts: SolverOptions): ExtractedDestinations | null {
  while (checkLockTimePrefix(script) !== null) script = afterCheckLockTime(script);
  const { type, solutions } = solver(script, opts);
  switch (type) {
    case 'nonstandard':
    case 'nulldata':
      return null;
    case 'multisig': {
      const keys = solutions.slice(1, -1).filter(isValidPubKeySize);
      if (keys.length === 0) return null;
      return { type, reqSigs: solutions[0]![0]!, destinations: keys.map((k) => ({ kind: 'key', hash: hash160(k) })) };
    }
    case 'pubkey':
      return { type, reqSigs: 1, destinations: [{ kind: 'key', hash: hash160(solutions[0]!) }] };
    case 'pubkeyhash':
    case 'cryptocondition':
      return { type, reqSigs: 1, destinations: [{ kind: 'key', hash: solutions[0]! }] };
    case 'scripthash':
      return { type, reqSigs: 1, destinations: [{ kind: 'script', hash: solutions[0]! }] };
  }
}
