import { concatBytes } from '../encoding/hex.js';
import { encodeScriptNum } from './num.js';
import { MAX_SCRIPT_SIZE } from '../consensus/script.js';
import {
  OP_0,
  OP_1,
  OP_16,
  OP_CHECKSIG,
  OP_DUP,
  OP_EQUAL,
  OP_EQUALVERIFY,
  OP_HASH160,
  OP_PUSHDATA1,
  OP_PUSHDATA2,
  OP_PUSHDATA4,
  OP_RETURN,
} from './opcodes.js';

/** Scripts are plain byte arrays; these helpers read and build them as komodod's CScript does. */

/** One instruction: `data` is set for push opcodes (0x00..OP_PUSHDATA4), empty for OP_0. */
export interface ScriptOp {
  op: number;
  data?: Uint8Array;
}

export interface GetOpResult {
  op: number;
  data?: Uint8Array;
  /** offset just past this instruction */
  next: number;
}

/**
 * CScript::GetOp2 at `pc`: null when the script ends there or a push runs past the end (komodod then
 * reports OP_INVALIDOPCODE and false). Sizes are checked against the remaining bytes before any copy.
 */
export function getOp(script: Uint8Array, pc: number): GetOpResult | null {
  if (pc >= script.length) return null;
  const op = script[pc++]!;
  if (op > OP_PUSHDATA4) return { op, next: pc };
  let size: number;
  if (op < OP_PUSHDATA1) {
    size = op;
  } else if (op === OP_PUSHDATA1) {
    if (script.length - pc < 1) return null;
    size = script[pc]!;
    pc += 1;
  } else if (op === OP_PUSHDATA2) {
    if (script.length - pc < 2) return null;
    size = script[pc]! | (script[pc + 1]! << 8);
    pc += 2;
  } else {
    if (script.length - pc < 4) return null;
    size = (script[pc]! | (script[pc + 1]! << 8) | (script[pc + 2]! << 16) | (script[pc + 3]! << 24)) >>> 0;
    pc += 4;
  }
  if (script.length - pc < size) return null;
  return { op, data: script.subarray(pc, pc + size), next: pc + size };
}

/**
 * Where the instruction at `pc` ends, as getOp's `next`, or -1 where getOp answers null (the script
 * ends there, or a push runs past the end); nothing is allocated, for walks that need only opcodes.
 */
export function skipOp(script: Uint8Array, pc: number): number {
  if (pc >= script.length) return -1;
  const op = script[pc++]!;
  if (op > OP_PUSHDATA4) return pc;
  let size: number;
  if (op < OP_PUSHDATA1) {
    size = op;
  } else if (op === OP_PUSHDATA1) {
    if (script.length - pc < 1) return -1;
    size = script[pc]!;
    pc += 1;
  } else if (op === OP_PUSHDATA2) {
    if (script.length - pc < 2) return -1;
    size = script[pc]! | (script[pc + 1]! << 8);
    pc += 2;
  } else {
    if (script.length - pc < 4) return -1;
    size = (script[pc]! | (script[pc + 1]! << 8) | (script[pc + 2]! << 16) | (script[pc + 3]! << 24)) >>> 0;
    pc += 4;
  }
  return script.length - pc < size ? -1 : pc + size;
}

/** Every instruction up to the first malformed push (then ok=false), as a GetOp loop does. */
export function parseScript(script: Uint8Array): { ops: ScriptOp[]; ok: boolean } {
  const ops: ScriptOp[] = [];
  let pc = 0;
  while (pc < script.length) {
    const r = getOp(script, pc);
    if (!r) return { ops, ok: false };
    ops.push(r.data ? { op: r.op, data: r.data } : { op: r.op });
    pc = r.next;
  }
  return { ops, ok: true };
}

/** CScript << vector: the shortest push opcode for the length (never OP_0/OP_1..16 for data). */
export function pushData(data: Uint8Array): Uint8Array {
  const n = data.length;
  let head: Uint8Array;
  if (n < OP_PUSHDATA1) head = Uint8Array.of(n);
  else if (n <= 0xff) head = Uint8Array.of(OP_PUSHDATA1, n);
  else if (n <= 0xffff) head = Uint8Array.of(OP_PUSHDATA2, n & 0xff, n >> 8);
  else head = Uint8Array.of(OP_PUSHDATA4, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, (n >>> 24) & 0xff);
  return concatBytes(head, data);
}

/** CScript << int64: OP_0, OP_1NEGATE, OP_1..OP_16, or a CScriptNum push. */
export function pushNumber(n: bigint | number): Uint8Array {
  const v = BigInt(n);
  if (v === -1n || (v >= 1n && v <= 16n)) return Uint8Array.of(Number(v) + (OP_1 - 1));
  if (v === 0n) return Uint8Array.of(OP_0);
  return pushData(encodeScriptNum(v));
}

/** OP_0..OP_16 as a number (CScript::DecodeOP_N), or -1 for any other opcode. */
export function decodeOpN(op: number): number {
  if (op === OP_0) return 0;
  if (op >= OP_1 && op <= OP_16) return op - (OP_1 - 1);
  return -1;
}

/** CScript::EncodeOP_N for 0..16. */
export function encodeOpN(n: number): number {
  if (!Number.isInteger(n) || n < 0 || n > 16) throw new RangeError('encodeOpN: n must be 0..16');
  return n === 0 ? OP_0 : OP_1 + n - 1;
}

/** CScript operator+: scripts and single opcodes concatenated. */
export function concatScript(...parts: (Uint8Array | number)[]): Uint8Array {
  return concatBytes(...parts.map((p) => (typeof p === 'number' ? Uint8Array.of(p) : p)));
}

/** CScript::IsPushOnly from `start`: every opcode ≤ OP_16 (OP_RESERVED included) and every push well formed. */
export function isPushOnly(script: Uint8Array, start = 0): boolean {
  let pc = start;
  while (pc < script.length) {
    const r = getOp(script, pc);
    if (!r || r.op > OP_16) return false;
    pc = r.next;
  }
  return true;
}

/** CScript::IsUnspendable: starts with OP_RETURN or is longer than MAX_SCRIPT_SIZE. */
export function isUnspendable(script: Uint8Array): boolean {
  return (script.length > 0 && script[0] === OP_RETURN) || script.length > MAX_SCRIPT_SIZE;
}

export function isP2PKH(script: Uint8Array): boolean {
  return (
    script.length === 25 &&
    script[0] === OP_DUP &&
    script[1] === OP_HASH160 &&
    script[2] === 0x14 &&
    script[23] === OP_EQUALVERIFY &&
    script[24] === OP_CHECKSIG
  );
}

export function isP2SH(script: Uint8Array): boolean {
  return script.length === 23 && script[0] === OP_HASH160 && script[1] === 0x14 && script[22] === OP_EQUAL;
}

/** CScript::IsPayToPublicKey: a 33-byte push then OP_CHECKSIG (compressed keys only, as komodod). */
export function isP2PK(script: Uint8Array): boolean {
  return script.length === 35 && script[0] === 33 && script[34] === OP_CHECKSIG;
}

function need20(hash: Uint8Array): void {
  if (hash.length !== 20) throw new RangeError('expected a 20-byte hash');
}

/** OP_DUP OP_HASH160 <20> OP_EQUALVERIFY OP_CHECKSIG */
export function p2pkhScript(hash20: Uint8Array): Uint8Array {
  need20(hash20);
  return concatScript(OP_DUP, OP_HASH160, pushData(hash20), OP_EQUALVERIFY, OP_CHECKSIG);
}

/** OP_HASH160 <20> OP_EQUAL */
export function p2shScript(hash20: Uint8Array): Uint8Array {
  need20(hash20);
  return concatScript(OP_HASH160, pushData(hash20), OP_EQUAL);
}

/** <pubkey> OP_CHECKSIG */
export function p2pkScript(pubkey: Uint8Array): Uint8Array {
  return concatScript(pushData(pubkey), OP_CHECKSIG);
}

/** OP_RETURN <data> (one minimal push, as `CScript() << OP_RETURN << data`). */
export function opReturnScript(data: Uint8Array): Uint8Array {
  return concatScript(OP_RETURN, pushData(data));
}
