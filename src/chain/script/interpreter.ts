import { hash160, ripemd160, sha256, sha256d } from '../crypto/hash.js';
import { sha1 } from '@noble/hashes/legacy.js';
import { equalBytes } from '../encoding/hex.js';
import type { SignatureChecker } from './checker.js';
import {
  SCRIPT_VERIFY_CHECKLOCKTIMEVERIFY,
  SCRIPT_VERIFY_CLEANSTACK,
  SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_NOPS,
  SCRIPT_VERIFY_MINIMALDATA,
  SCRIPT_VERIFY_NULLDUMMY,
  SCRIPT_VERIFY_P2SH,
  SCRIPT_VERIFY_SIGPUSHONLY,
} from './flags.js';
import { decodeScriptNum, encodeScriptNum, scriptNumToInt } from './num.js';
import * as op from './opcodes.js';
import { getOp, isP2SH, isPushOnly, skipOp } from './script.js';
import { MAX_OPS_PER_SCRIPT, MAX_PUBKEYS_PER_MULTISIG, MAX_SCRIPT_CRYPTOCONDITION_FULFILLMENT_SIZE, MAX_SCRIPT_ELEMENT_SIZE, MAX_SCRIPT_SIZE, MAX_STACK_SIZE } from '../consensus/script.js';
import type { ScriptError } from './script-error.js';
import { checkPubKeyEncoding, checkSignatureEncoding } from './sigencoding.js';
import { isPayToCryptoCondition } from './standard.js';

/** komodod's script interpreter (src/script/interpreter.cpp EvalScript / VerifyScript). */

export type ScriptResult = { ok: true } | { ok: false; error: ScriptError };

export interface InterpreterOptions {
  /**
   * komodod's IsCryptoConditionsEnabled() (-ac_cc ≠ 0). When off, OP_CHECKCRYPTOCONDITION(VERIFY) is a
   * bad opcode and a CC scriptPubKey is spent through the ordinary scriptSig evaluation. Default off,
   * as komodod's default -ac_cc=0.
   */
  ccEnabled?: boolean;
}

const VCH_FALSE = new Uint8Array(0);
const VCH_TRUE = Uint8Array.of(1);

/** Disabled whether executed or not; OP_CODESEPARATOR is disabled in komodod (as in Zcash). */
const DISABLED = new Set([
  op.OP_CAT,
  op.OP_SUBSTR,
  op.OP_LEFT,
  op.OP_RIGHT,
  op.OP_INVERT,
  op.OP_AND,
  op.OP_OR,
  op.OP_XOR,
  op.OP_2MUL,
  op.OP_2DIV,
  op.OP_MUL,
  op.OP_DIV,
  op.OP_MOD,
  op.OP_LSHIFT,
  op.OP_RSHIFT,
  op.OP_CODESEPARATOR,
]);

export function castToBool(v: Uint8Array): boolean {
  for (let i = 0; i < v.length; i++) {
    if (v[i] !== 0) return !(i === v.length - 1 && v[i] === 0x80); // negative zero
  }
  return false;
}

/** CheckMinimalPush: the push opcode is the shortest one for the data. */
function checkMinimalPush(data: Uint8Array, opcode: number): boolean {
  const n = data.length;
  if (n === 0) return opcode === op.OP_0;
  if (n === 1 && data[0]! >= 1 && data[0]! <= 16) return opcode === op.OP_1 + (data[0]! - 1);
  if (n === 1 && data[0] === 0x81) return opcode === op.OP_1NEGATE;
  if (n <= 75) return opcode === n;
  if (n <= 255) return opcode === op.OP_PUSHDATA1;
  if (n <= 65535) return opcode === op.OP_PUSHDATA2;
  return true;
}

/** The data length of the well-formed push at `pc` (skipOp found its end). */
function pushSize(script: Uint8Array, pc: number): number {
  const opcode = script[pc]!;
  if (opcode < op.OP_PUSHDATA1) return opcode;
  if (opcode === op.OP_PUSHDATA1) return script[pc + 1]!;
  if (opcode === op.OP_PUSHDATA2) return script[pc + 1]! | (script[pc + 2]! << 8);
  return (script[pc + 1]! | (script[pc + 2]! << 8) | (script[pc + 3]! << 16) | (script[pc + 4]! << 24)) >>> 0;
}

class Fail {
  constructor(readonly error: ScriptError) {}
}

const fail = (error: ScriptError): ScriptResult => ({ ok: false, error });

/** The one success result (callers only read it): none made per script run. */
const OK: ScriptResult = { ok: true };

/**
 * EvalScript: runs `script` on `stack` (modified in place). Any exception inside evaluation (a number
 * too long or not minimal, a checker throwing) ends with SCRIPT_ERR_UNKNOWN_ERROR, as komodod's catch(...).
 */
export function evalScript(
  stack: Uint8Array[],
  script: Uint8Array,
  flags: number,
  checker: SignatureChecker,
  opts: InterpreterOptions = {},
): ScriptResult {
  if (script.length > MAX_SCRIPT_SIZE) return fail('SCRIPT_ERR_SCRIPT_SIZE');
  try {
    return run(stack, script, flags, checker, opts.ccEnabled ?? false);
  } catch (e) {
    if (e instanceof Fail) return fail(e.error);
    return fail('SCRIPT_ERR_UNKNOWN_ERROR');
  }
}

/** stacktop(i) is stack.at(size + i): out of range throws, caught as UNKNOWN_ERROR. */
function top(stack: Uint8Array[], i: number): Uint8Array {
  const v = stack[stack.length + i];
  if (v === undefined) throw new RangeError('stack index out of range');
  return v;
}

function need(stack: Uint8Array[], n: number): void {
  if (stack.length < n) throw new Fail('SCRIPT_ERR_INVALID_STACK_OPERATION');
}

function pushNum(stack: Uint8Array[], n: bigint): void {
  stack.push(encodeScriptNum(n));
}

function pushBool(stack: Uint8Array[], b: boolean): void {
  stack.push(b ? VCH_TRUE : VCH_FALSE);
}

function bool01(x: boolean): bigint {
  return x ? 1n : 0n;
}

// The helpers are module functions, not closures in run(): tsx (esbuild keepNames) names every
// closure it creates, a defineProperty per closure per script run.
function run(stack: Uint8Array[], script: Uint8Array, flags: number, checker: SignatureChecker, ccEnabled: boolean): ScriptResult {
  const vfExec: boolean[] = [];
  const altstack: Uint8Array[] = [];
  const requireMinimal = (flags & SCRIPT_VERIFY_MINIMALDATA) !== 0;
  let nOpCount = 0;
  let pc = 0;

  while (pc < script.length) {
    const fExec = !vfExec.includes(false);

    // GetOp read in place (getOp's result object per instruction was most of what a run allocated):
    // a push's data is a view of the script, as getOp's.
    const opcode = script[pc]!;
    let data: Uint8Array | undefined;
    if (opcode <= op.OP_PUSHDATA4) {
      const end = skipOp(script, pc);
      if (end < 0) return fail('SCRIPT_ERR_BAD_OPCODE');
      data = script.subarray(end - pushSize(script, pc), end);
      pc = end;
      if (data.length > MAX_SCRIPT_ELEMENT_SIZE) return fail('SCRIPT_ERR_PUSH_SIZE');
    } else pc++;

    // OP_RESERVED (0x50) and the pushes do not count towards the opcode limit.
    if (opcode > op.OP_16 && ++nOpCount > MAX_OPS_PER_SCRIPT) return fail('SCRIPT_ERR_OP_COUNT');

    if (DISABLED.has(opcode)) return fail('SCRIPT_ERR_DISABLED_OPCODE');

    if (fExec && opcode <= op.OP_PUSHDATA4) {
      if (requireMinimal && !checkMinimalPush(data!, opcode)) return fail('SCRIPT_ERR_MINIMALDATA');
      stack.push(data!);
    } else if (fExec || (op.OP_IF <= opcode && opcode <= op.OP_ENDIF)) {
      // One non-push opcode, inline: a nested function here was a closure (and, under tsx, a
      // defineProperty naming it) made at every script run.
      sw: switch (opcode) {
        case op.OP_1NEGATE:
        case op.OP_1:
        case op.OP_2:
        case op.OP_3:
        case op.OP_4:
        case op.OP_5:
        case op.OP_6:
        case op.OP_7:
        case op.OP_8:
        case op.OP_9:
        case op.OP_10:
        case op.OP_11:
        case op.OP_12:
        case op.OP_13:
        case op.OP_14:
        case op.OP_15:
        case op.OP_16:
          pushNum(stack, BigInt(opcode - (op.OP_1 - 1)));
          break sw;

        case op.OP_NOP:
          break sw;

        case op.OP_CHECKLOCKTIMEVERIFY: {
          if (!(flags & SCRIPT_VERIFY_CHECKLOCKTIMEVERIFY)) {
            // Not enabled: a NOP2.
            if (flags & SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_NOPS) return fail('SCRIPT_ERR_DISCOURAGE_UPGRADABLE_NOPS');
            break sw;
          }
          if (stack.length < 1) return fail('SCRIPT_ERR_INVALID_STACK_OPERATION');
          // 5-byte numbers, so times past 2038 fit.
          const lockTime = decodeScriptNum(top(stack, -1), requireMinimal, 5);
          if (lockTime < 0n) return fail('SCRIPT_ERR_NEGATIVE_LOCKTIME');
          if (!checker.checkLockTime(lockTime)) return fail('SCRIPT_ERR_UNSATISFIED_LOCKTIME');
          break sw;
        }

        case op.OP_NOP1:
        case op.OP_NOP3:
        case op.OP_NOP4:
        case op.OP_NOP5:
        case op.OP_NOP6:
        case op.OP_NOP7:
        case op.OP_NOP8:
        case op.OP_NOP9:
        case op.OP_NOP10:
          if (flags & SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_NOPS) return fail('SCRIPT_ERR_DISCOURAGE_UPGRADABLE_NOPS');
          break sw;

        case op.OP_IF:
        case op.OP_NOTIF: {
          let value = false;
          if (fExec) {
            if (stack.length < 1) return fail('SCRIPT_ERR_UNBALANCED_CONDITIONAL');
            value = castToBool(top(stack, -1));
            if (opcode === op.OP_NOTIF) value = !value;
            stack.pop();
          }
          vfExec.push(value);
          break sw;
        }

        case op.OP_ELSE:
          if (vfExec.length === 0) return fail('SCRIPT_ERR_UNBALANCED_CONDITIONAL');
          vfExec[vfExec.length - 1] = !vfExec[vfExec.length - 1];
          break sw;

        case op.OP_ENDIF:
          if (vfExec.length === 0) return fail('SCRIPT_ERR_UNBALANCED_CONDITIONAL');
          vfExec.pop();
          break sw;

        case op.OP_VERIFY:
          need(stack, 1);
          if (!castToBool(top(stack, -1))) return fail('SCRIPT_ERR_VERIFY');
          stack.pop();
          break sw;

        case op.OP_RETURN:
          return fail('SCRIPT_ERR_OP_RETURN');

        case op.OP_TOALTSTACK:
          need(stack, 1);
          altstack.push(stack.pop()!);
          break sw;

        case op.OP_FROMALTSTACK:
          if (altstack.length < 1) return fail('SCRIPT_ERR_INVALID_ALTSTACK_OPERATION');
          stack.push(altstack.pop()!);
          break sw;

        case op.OP_2DROP:
          need(stack, 2);
          stack.length -= 2;
          break sw;

        case op.OP_2DUP: {
          need(stack, 2);
          const a = top(stack, -2);
          const b = top(stack, -1);
          stack.push(a, b);
          break sw;
        }

        case op.OP_3DUP: {
          need(stack, 3);
          const a = top(stack, -3);
          const b = top(stack, -2);
          const c = top(stack, -1);
          stack.push(a, b, c);
          break sw;
        }

        case op.OP_2OVER: {
          need(stack, 4);
          const a = top(stack, -4);
          const b = top(stack, -3);
          stack.push(a, b);
          break sw;
        }

        case op.OP_2ROT: {
          need(stack, 6);
          const [a, b] = stack.splice(stack.length - 6, 2);
          stack.push(a!, b!);
          break sw;
        }

        case op.OP_2SWAP: {
          need(stack, 4);
          const n = stack.length;
          [stack[n - 4], stack[n - 2]] = [stack[n - 2]!, stack[n - 4]!];
          [stack[n - 3], stack[n - 1]] = [stack[n - 1]!, stack[n - 3]!];
          break sw;
        }

        case op.OP_IFDUP: {
          need(stack, 1);
          const v = top(stack, -1);
          if (castToBool(v)) stack.push(v);
          break sw;
        }

        case op.OP_DEPTH:
          pushNum(stack, BigInt(stack.length));
          break sw;

        case op.OP_DROP:
          need(stack, 1);
          stack.pop();
          break sw;

        case op.OP_DUP:
          need(stack, 1);
          stack.push(top(stack, -1));
          break sw;

        case op.OP_NIP:
          need(stack, 2);
          stack.splice(stack.length - 2, 1);
          break sw;

        case op.OP_OVER:
          need(stack, 2);
          stack.push(top(stack, -2));
          break sw;

        case op.OP_PICK:
        case op.OP_ROLL: {
          need(stack, 2);
          const n = scriptNumToInt(decodeScriptNum(top(stack, -1), requireMinimal));
          stack.pop();
          if (n < 0 || n >= stack.length) return fail('SCRIPT_ERR_INVALID_STACK_OPERATION');
          const v = top(stack, -n - 1);
          if (opcode === op.OP_ROLL) stack.splice(stack.length - n - 1, 1);
          stack.push(v);
          break sw;
        }

        case op.OP_ROT: {
          need(stack, 3);
          const [a] = stack.splice(stack.length - 3, 1);
          stack.push(a!);
          break sw;
        }

        case op.OP_SWAP: {
          need(stack, 2);
          const n = stack.length;
          [stack[n - 2], stack[n - 1]] = [stack[n - 1]!, stack[n - 2]!];
          break sw;
        }

        case op.OP_TUCK: {
          need(stack, 2);
          stack.splice(stack.length - 2, 0, top(stack, -1));
          break sw;
        }

        case op.OP_SIZE:
          need(stack, 1);
          pushNum(stack, BigInt(top(stack, -1).length));
          break sw;

        case op.OP_EQUAL:
        case op.OP_EQUALVERIFY: {
          need(stack, 2);
          const equal = equalBytes(top(stack, -2), top(stack, -1));
          stack.length -= 2;
          pushBool(stack, equal);
          if (opcode === op.OP_EQUALVERIFY) {
            if (!equal) return fail('SCRIPT_ERR_EQUALVERIFY');
            stack.pop();
          }
          break sw;
        }

        case op.OP_1ADD:
        case op.OP_1SUB:
        case op.OP_NEGATE:
        case op.OP_ABS:
        case op.OP_NOT:
        case op.OP_0NOTEQUAL: {
          need(stack, 1);
          let bn = decodeScriptNum(top(stack, -1), requireMinimal);
          switch (opcode) {
            case op.OP_1ADD:
              bn += 1n;
              break;
            case op.OP_1SUB:
              bn -= 1n;
              break;
            case op.OP_NEGATE:
              bn = -bn;
              break;
            case op.OP_ABS:
              if (bn < 0n) bn = -bn;
              break;
            case op.OP_NOT:
              bn = bn === 0n ? 1n : 0n;
              break;
            default:
              bn = bn !== 0n ? 1n : 0n;
          }
          stack.pop();
          pushNum(stack, bn);
          break sw;
        }

        case op.OP_ADD:
        case op.OP_SUB:
        case op.OP_BOOLAND:
        case op.OP_BOOLOR:
        case op.OP_NUMEQUAL:
        case op.OP_NUMEQUALVERIFY:
        case op.OP_NUMNOTEQUAL:
        case op.OP_LESSTHAN:
        case op.OP_GREATERTHAN:
        case op.OP_LESSTHANOREQUAL:
        case op.OP_GREATERTHANOREQUAL:
        case op.OP_MIN:
        case op.OP_MAX: {
          need(stack, 2);
          const a = decodeScriptNum(top(stack, -2), requireMinimal);
          const b = decodeScriptNum(top(stack, -1), requireMinimal);
          let bn: bigint;
          switch (opcode) {
            case op.OP_ADD:
              bn = a + b;
              break;
            case op.OP_SUB:
              bn = a - b;
              break;
            case op.OP_BOOLAND:
              bn = bool01(a !== 0n && b !== 0n);
              break;
            case op.OP_BOOLOR:
              bn = bool01(a !== 0n || b !== 0n);
              break;
            case op.OP_NUMEQUAL:
            case op.OP_NUMEQUALVERIFY:
              bn = bool01(a === b);
              break;
            case op.OP_NUMNOTEQUAL:
              bn = bool01(a !== b);
              break;
            case op.OP_LESSTHAN:
              bn = bool01(a < b);
              break;
            case op.OP_GREATERTHAN:
              bn = bool01(a > b);
              break;
            case op.OP_LESSTHANOREQUAL:
              bn = bool01(a <= b);
              break;
            case op.OP_GREATERTHANOREQUAL:
              bn = bool01(a >= b);
              break;
            case op.OP_MIN:
              bn = a < b ? a : b;
              break;
            default:
              bn = a > b ? a : b;
          }
          stack.length -= 2;
          pushNum(stack, bn);
          if (opcode === op.OP_NUMEQUALVERIFY) {
            if (!castToBool(top(stack, -1))) return fail('SCRIPT_ERR_NUMEQUALVERIFY');
            stack.pop();
          }
          break sw;
        }

        case op.OP_WITHIN: {
          need(stack, 3);
          const x = decodeScriptNum(top(stack, -3), requireMinimal);
          const min = decodeScriptNum(top(stack, -2), requireMinimal);
          const max = decodeScriptNum(top(stack, -1), requireMinimal);
          stack.length -= 3;
          pushBool(stack, min <= x && x < max);
          break sw;
        }

        case op.OP_RIPEMD160:
        case op.OP_SHA1:
        case op.OP_SHA256:
        case op.OP_HASH160:
        case op.OP_HASH256: {
          need(stack, 1);
          const v = stack.pop()!;
          const h =
            opcode === op.OP_RIPEMD160
              ? ripemd160(v)
              : opcode === op.OP_SHA1
                ? sha1(v)
                : opcode === op.OP_SHA256
                  ? sha256(v)
                  : opcode === op.OP_HASH160
                    ? hash160(v)
                    : sha256d(v);
          stack.push(h);
          break sw;
        }

        case op.OP_CHECKSIG:
        case op.OP_CHECKSIGVERIFY: {
          need(stack, 2);
          const sig = top(stack, -2);
          const pubkey = top(stack, -1);
          const encErr = checkSignatureEncoding(sig, flags) ?? checkPubKeyEncoding(pubkey, flags);
          if (encErr) return fail(encErr);
          // scriptCode is the whole script: no OP_CODESEPARATOR (disabled), no FindAndDelete.
          const ok = checker.checkSig(sig, pubkey, script);
          stack.length -= 2;
          pushBool(stack, ok);
          if (opcode === op.OP_CHECKSIGVERIFY) {
            if (!ok) return fail('SCRIPT_ERR_CHECKSIGVERIFY');
            stack.pop();
          }
          break sw;
        }

        case op.OP_CHECKMULTISIG:
        case op.OP_CHECKMULTISIGVERIFY: {
          let i = 1;
          need(stack, i);
          let nKeys = scriptNumToInt(decodeScriptNum(top(stack, -i), requireMinimal));
          if (nKeys < 0 || nKeys > MAX_PUBKEYS_PER_MULTISIG) return fail('SCRIPT_ERR_PUBKEY_COUNT');
          nOpCount += nKeys;
          if (nOpCount > MAX_OPS_PER_SCRIPT) return fail('SCRIPT_ERR_OP_COUNT');
          let ikey = ++i;
          i += nKeys;
          need(stack, i);
          let nSigs = scriptNumToInt(decodeScriptNum(top(stack, -i), requireMinimal));
          if (nSigs < 0 || nSigs > nKeys) return fail('SCRIPT_ERR_SIG_COUNT');
          let isig = ++i;
          i += nSigs;
          need(stack, i);

          let success = true;
          while (success && nSigs > 0) {
            const sig = top(stack, -isig);
            const pubkey = top(stack, -ikey);
            // The order of encoding checks makes signature/key order observable under STRICTENC, as komodod.
            const encErr = checkSignatureEncoding(sig, flags) ?? checkPubKeyEncoding(pubkey, flags);
            if (encErr) return fail(encErr);
            if (checker.checkSig(sig, pubkey, script)) {
              isig++;
              nSigs--;
            }
            ikey++;
            nKeys--;
            // More signatures left than keys: fail early.
            if (nSigs > nKeys) success = false;
          }

          while (i-- > 1) stack.pop();
          // The extra argument CHECKMULTISIG consumes; NULLDUMMY requires it empty.
          if (stack.length < 1) return fail('SCRIPT_ERR_INVALID_STACK_OPERATION');
          if (flags & SCRIPT_VERIFY_NULLDUMMY && top(stack, -1).length) return fail('SCRIPT_ERR_SIG_NULLDUMMY');
          stack.pop();
          pushBool(stack, success);
          if (opcode === op.OP_CHECKMULTISIGVERIFY) {
            if (!success) return fail('SCRIPT_ERR_CHECKMULTISIGVERIFY');
            stack.pop();
          }
          break sw;
        }

        case op.OP_CHECKCRYPTOCONDITION:
        case op.OP_CHECKCRYPTOCONDITIONVERIFY: {
          if (!ccEnabled) return fail('SCRIPT_ERR_BAD_OPCODE');
          need(stack, 2);
          const result = checker.checkCryptoCondition(top(stack, -2), top(stack, -1), script);
          if (result === -1) return fail('SCRIPT_ERR_CRYPTOCONDITION_INVALID_FULFILLMENT');
          stack.length -= 2;
          pushBool(stack, result === true);
          if (opcode === op.OP_CHECKCRYPTOCONDITIONVERIFY) {
            if (result !== true) return fail('SCRIPT_ERR_CRYPTOCONDITION_VERIFY');
            stack.pop();
          }
          break sw;
        }

        default:
          return fail('SCRIPT_ERR_BAD_OPCODE');
      }
    }

    if (stack.length + altstack.length > MAX_STACK_SIZE) return fail('SCRIPT_ERR_STACK_SIZE');
  }

  if (vfExec.length > 0) return fail('SCRIPT_ERR_UNBALANCED_CONDITIONAL');
  return OK;
}

/**
 * EvalCryptoConditionSig: the scriptSig spending a CC output is exactly one push (OP_PUSHDATA4 at most,
 * not OP_0) of at most 2048 bytes, and is not evaluated as a script.
 */
function evalCryptoConditionSig(stack: Uint8Array[], scriptSig: Uint8Array): ScriptResult {
  const r = getOp(scriptSig, 0);
  if (!r) return fail('SCRIPT_ERR_BAD_OPCODE');
  if (r.op === 0 || r.op > op.OP_PUSHDATA4) return fail('SCRIPT_ERR_INVALID_STACK_OPERATION');
  if (r.next !== scriptSig.length) return fail('SCRIPT_ERR_INVALID_STACK_OPERATION');
  if (r.data!.length > MAX_SCRIPT_CRYPTOCONDITION_FULFILLMENT_SIZE) return fail('SCRIPT_ERR_PUSH_SIZE');
  stack.push(r.data!);
  return OK;
}

/** VerifyScript: scriptSig then scriptPubKey, then the P2SH redeem script, then CLEANSTACK. */
export function verifyScript(
  scriptSig: Uint8Array,
  scriptPubKey: Uint8Array,
  flags: number,
  checker: SignatureChecker,
  opts: InterpreterOptions = {},
): ScriptResult {
  if (flags & SCRIPT_VERIFY_SIGPUSHONLY && !isPushOnly(scriptSig)) return fail('SCRIPT_ERR_SIG_PUSHONLY');

  let stack: Uint8Array[] = [];
  let r: ScriptResult;
  if (opts.ccEnabled && isPayToCryptoCondition(scriptPubKey)) r = evalCryptoConditionSig(stack, scriptSig);
  else r = evalScript(stack, scriptSig, flags, checker, opts);
  if (!r.ok) return r;

  const stackCopy = flags & SCRIPT_VERIFY_P2SH ? stack.slice() : [];
  r = evalScript(stack, scriptPubKey, flags, checker, opts);
  if (!r.ok) return r;
  if (stack.length === 0 || !castToBool(stack[stack.length - 1]!)) return fail('SCRIPT_ERR_EVAL_FALSE');

  if (flags & SCRIPT_VERIFY_P2SH && isP2SH(scriptPubKey)) {
    if (!isPushOnly(scriptSig)) return fail('SCRIPT_ERR_SIG_PUSHONLY');
    stack = stackCopy;
    // Cannot be empty: HASH160 <h> EQUAL on an empty stack failed above.
    const redeemScript = stack.pop()!;
    r = evalScript(stack, redeemScript, flags, checker, opts);
    if (!r.ok) return r;
    if (stack.length === 0 || !castToBool(stack[stack.length - 1]!)) return fail('SCRIPT_ERR_EVAL_FALSE');
  }

  if (flags & SCRIPT_VERIFY_CLEANSTACK) {
    // komodod asserts P2SH is set with CLEANSTACK.
    if (!(flags & SCRIPT_VERIFY_P2SH)) throw new RangeError('SCRIPT_VERIFY_CLEANSTACK requires SCRIPT_VERIFY_P2SH');
    if (stack.length !== 1) return fail('SCRIPT_ERR_CLEANSTACK');
  }
  return OK;
}
