import { concatBytes } from '../encoding/hex.js';
import { OP_CHECKCRYPTOCONDITION, OP_DROP } from '../script/opcodes.js';
import { pushData } from '../script/script.js';
import { SIGHASH_ALL, SighashError, signatureHash, type PrecomputedTxData } from '../script/sighash.js';
import { parsePayToCryptoCondition } from '../script/standard.js';
import type { Transaction } from '../tx/transaction.js';
import { conditionBinary, decodeConditionLenient, toConditionBinary } from './condition.js';
import { decodeFulfillment, fulfillmentBinary } from './fulfillment.js';
import { cloneTree, signTreeSecp256k1 } from './sign.js';
import { type CCNode, CCError } from './types.js';
import { type EvalCheck, ACCEPT_EVALS, isSignedCondition, isSupportedCondition, verifyTree } from './verify.js';
import { makeCCcond1, makeCCcond1of2 } from './builders.js';

/**
 * CCPubKey (script/cc.cpp): push(condition binary) OP_CHECKCRYPTOCONDITION, then, when `data` is
 * given, `push(data) OP_DROP` as MakeCC1vout appends its COptCCParams blob.
 */
export function ccScriptPubKey(condition: CCNode | Uint8Array, data?: Uint8Array): Uint8Array {
  const base = concatBytes(pushData(toConditionBinary(condition)), Uint8Array.of(OP_CHECKCRYPTOCONDITION));
  return data ? concatBytes(base, pushData(data), Uint8Array.of(OP_DROP)) : base;
}

/** COptCCParams::VERSION. */
export const CC_OPT_PARAMS_VERSION = 1;

/**
 * COptCCParams::AsVector: a script of push([version, evalCode, n, m]), one push per pubkey, one per
 * data item. MakeCC1vout passes n=1,m=1, MakeCC1of2vout n=1,m=2, both with no pubkeys.
 */
export function ccOptParams(evalCode: number, n: number, m: number, pubkeys: Uint8Array[], data: Uint8Array[]): Uint8Array {
  return concatBytes(
    pushData(Uint8Array.of(CC_OPT_PARAMS_VERSION, evalCode & 0xff, n & 0xff, m & 0xff)),
    ...pubkeys.map(pushData),
    ...data.map(pushData),
  );
}

/** MakeCC1vout's scriptPubKey: MakeCCcond1, with `<params> OP_DROP` only when vData is given. */
export function makeCC1voutScript(evalCode: number, pk: Uint8Array, vData?: Uint8Array[]): Uint8Array {
  const cond = makeCCcond1(evalCode, pk);
  return ccScriptPubKey(cond, vData ? ccOptParams(evalCode, 1, 1, [], vData) : undefined);
}

/** MakeCC1of2vout's scriptPubKey. */
export function makeCC1of2voutScript(evalCode: number, pk1: Uint8Array, pk2: Uint8Array, vData?: Uint8Array[]): Uint8Array {
  const cond = makeCCcond1of2(evalCode, pk1, pk2);
  return ccScriptPubKey(cond, vData ? ccOptParams(evalCode, 1, 2, [], vData) : undefined);
}

/** CCSigVec: the fulfillment followed by the hash-type byte. */
export function ccSigVec(fulfillment: CCNode | Uint8Array, hashType = SIGHASH_ALL): Uint8Array {
  const ffill = fulfillment instanceof Uint8Array ? fulfillment : fulfillmentBinary(fulfillment);
  return concatBytes(ffill, Uint8Array.of(hashType & 0xff));
}

/** CCSig: one minimal push of fulfillment || hashType (komodod always appends SIGHASH_ALL). */
export function ccScriptSig(fulfillment: CCNode | Uint8Array, hashType = SIGHASH_ALL): Uint8Array {
  return pushData(ccSigVec(fulfillment, hashType));
}

/**
 * MayAcceptCryptoCondition (script.cpp): the lenient condition read komodod's policy and Solver
 * use, then IsSupportedCryptoCondition. For standard.ts's `isSupportedCondition` hook.
 */
export function mayAcceptCryptoCondition(condition: Uint8Array): boolean {
  try {
    return isSupportedCondition(decodeConditionLenient(condition));
  } catch {
    return false;
  }
}

/** What checkCryptoCondition needs from the signature checker (script/checker.ts has it). */
export interface CCSighashSource {
  sighash(scriptCode: Uint8Array, hashType: number): Uint8Array;
}

/**
 * TransactionSignatureChecker::CheckCryptoCondition. `fulfillmentWithHashType` is the scriptSig
 * payload, `condition` the bytes the scriptPubKey pushed; `scriptCode` is ignored as komodod
 * ignores it: the sighash is over CCPubKey(tree), push(condition of the fulfillment) OP_CC.
 * Returns -1 when the fulfillment does not decode (SCRIPT_ERR_CRYPTOCONDITION_INVALID_FULFILLMENT),
 * else true or false. Evals go to `evalCheck` (komodod's base checker accepts them all).
 */
export function checkCryptoCondition(
  fulfillmentWithHashType: Uint8Array,
  condition: Uint8Array,
  _scriptCode: Uint8Array,
  checker: CCSighashSource,
  evalCheck: EvalCheck = ACCEPT_EVALS,
): boolean | -1 {
  if (fulfillmentWithHashType.length === 0) return false;
  let tree: CCNode;
  try {
    tree = decodeFulfillment(fulfillmentWithHashType.subarray(0, fulfillmentWithHashType.length - 1));
  } catch {
    return -1;
  }
  if (!isSupportedCondition(tree)) return false;
  if (!isSignedCondition(tree)) return false;
  const hashType = fulfillmentWithHashType[fulfillmentWithHashType.length - 1]!;
  let sighash: Uint8Array;
  try {
    sighash = checker.sighash(ccScriptPubKey(conditionBinary(tree)), hashType);
  } catch (e) {
    if (e instanceof SighashError) return false;
    throw e;
  }
  return verifyTree(tree, condition, sighash, evalCheck).valid;
}

/**
 * A `ccChecker` for script/checker.ts's TransactionSignatureChecker: `evalsFor` gives the eval
 * check for that input (e.g. dispatchEval(registry, context)). Omitted, evals pass, as komodod's
 * non-server checker does.
 */
export function makeCCChecker<K extends CCSighashSource>(
  evalsFor?: (checker: K) => EvalCheck,
): (fulfillmentWithHashType: Uint8Array, condition: Uint8Array, scriptCode: Uint8Array, checker: K) => boolean | -1 {
  return (ffill, condition, scriptCode, checker) =>
    checkCryptoCondition(ffill, condition, scriptCode, checker, evalsFor ? evalsFor(checker) : ACCEPT_EVALS);
}

/** The parts of a P2CC scriptPubKey (IsPayToCryptoCondition), or null. */
export function parseCCScript(script: Uint8Array): { condition: Uint8Array; ccSubScript: Uint8Array; params: Uint8Array[] } | null {
  const r = parsePayToCryptoCondition(script);
  return r ? { condition: r.condition, ccSubScript: r.ccSubScript, params: r.params } : null;
}

export interface SignCCInputParams {
  readonly tx: Transaction;
  readonly nIn: number;
  /** Value of the output being spent. */
  readonly amount: bigint;
  readonly branchId: number;
  /** The condition the output was locked with (e.g. makeCCcond1(ev, pk)). */
  readonly condition: CCNode;
  /** Keys to sign with, each applied to every matching secp256k1 node. */
  readonly privateKeys: readonly Uint8Array[];
  readonly hashType?: number;
  readonly cache?: PrecomputedTxData;
}

export interface SignedCCInput {
  readonly scriptSig: Uint8Array;
  readonly fulfillment: Uint8Array;
  /** The signed tree. */
  readonly tree: CCNode;
  readonly sighash: Uint8Array;
  /** Signatures made, per key. */
  readonly signedPerKey: number[];
}

/**
 * FinalizeCCTx for one CC input: sighash = SignatureHash(CCPubKey(cond), tx, nIn, SIGHASH_ALL,
 * amount, branchId), cc_signTreeSecp256k1Msg32 with each key, scriptSig = CCSig(cond). Throws
 * CCError when no key signed anything or the tree is still not fulfilled (komodod's signing error).
 */
export function signCCInput(p: SignCCInputParams): SignedCCInput {
  const hashType = p.hashType ?? SIGHASH_ALL;
  const sighash = signatureHash(ccScriptPubKey(p.condition), p.tx, p.nIn, hashType, p.amount, p.branchId, p.cache);
  const tree = cloneTree(p.condition);
  const signedPerKey = p.privateKeys.map((k) => signTreeSecp256k1(tree, k, sighash));
  if (!signedPerKey.some((n) => n > 0)) throw new CCError('CC signing error: no key matches the condition');
  const fulfillment = fulfillmentBinary(tree);
  return { scriptSig: ccScriptSig(fulfillment, hashType), fulfillment, tree, sighash, signedPerKey };
}
