import { sha256 } from '../crypto/hash.js';
import { verifyCompact } from '../crypto/secp256k1.js';
import { conditionBinary, toConditionBinary, typeId, typeMask } from './condition.js';
import { decodeFulfillment, verifyingKey } from './fulfillment.js';
import { verifyEd25519 } from './ed25519.js';
import { EVAL_FIRSTUSER, EVAL_IMPORTCOIN, EVAL_IMPORTPAYOUT, EVAL_LASTUSER } from './eval-codes.js';
import {
  type CCNode, type EvalNode, CC_ENABLED_TYPES, CC_PREFIX, CC_SECP256K1, CC_SIGNING_NODES,
} from './types.js';

/** What an eval validator answers. */
export type EvalResult = { readonly valid: true } | { readonly valid: false; readonly reason: string };

/** Called once per eval node, depth first in decoded order, until one fails (cc_verifyEval). */
export type EvalCheck = (node: EvalNode) => EvalResult;

/**
 * A module validator: `evalCode` is code[0], `params` the rest of the eval node's code, `context`
 * whatever the caller supplies (the spending transaction, the input index, a chain lookup...).
 */
export type EvalValidator<C = unknown> = (evalCode: number, params: Uint8Array, context: C) => EvalResult;

/** Eval code -> module validator. An eval code with no entry is invalid. */
export type EvalRegistry<C = unknown> = Map<number, EvalValidator<C>>;

export const VALID: EvalResult = Object.freeze({ valid: true });
export function invalid(reason: string): EvalResult {
  return { valid: false, reason };
}

// eval.h: EVAL_IMPORTPAYOUT, EVAL_IMPORTCOIN take params; cclib codes 0x10..0x7f too.

/**
 * Eval::Dispatch / ProcessCC through a registry: an empty code is invalid, the first byte selects
 * the validator, and outside import and cclib codes any params are refused.
 */
export function dispatchEval<C>(registry: EvalRegistry<C>, context: C): EvalCheck {
  return (node) => {
    if (node.code.length === 0) return invalid('empty-eval');
    const evalCode = node.code[0]!;
    const params = node.code.subarray(1);
    const validator = registry.get(evalCode);
    const takesParams = evalCode === EVAL_IMPORTPAYOUT || evalCode === EVAL_IMPORTCOIN ||
      (evalCode >= EVAL_FIRSTUSER && evalCode <= EVAL_LASTUSER);
    if (!validator) return invalid(`validation not supported for eval code 0x${evalCode.toString(16).padStart(2, '0')}`);
    if (!takesParams && params.length !== 0) return invalid('Cannot have params');
    return validator(evalCode, params, context);
  };
}

/** No validator registered: every eval node is invalid. */
export const REJECT_EVALS: EvalCheck = (node) =>
  invalid(`no validator for eval code ${node.code.length ? '0x' + node.code[0]!.toString(16).padStart(2, '0') : '(empty)'}`);

/** komodod's base TransactionSignatureChecker::CheckEvalCondition: every eval passes (pre-check mode). */
export const ACCEPT_EVALS: EvalCheck = () => VALID;

/** IsSupportedCryptoCondition (script/cc.cpp): only enabled types, at least one signing node type. */
export function isSupportedCondition(node: CCNode): boolean {
  const mask = typeMask(node);
  if (mask & ~CC_ENABLED_TYPES) return false;
  return (mask & CC_SIGNING_NODES) !== 0;
}

/** cc_isFulfilled, including threshold.c's loop (a threshold of 0 counts once a child is seen). */
export function isFulfilled(node: CCNode): boolean {
  switch (node.type) {
    case 'preimage':
    case 'eval':
      return true;
    case 'secp256k1':
    case 'ed25519':
      return node.signature !== undefined;
    case 'prefix':
      return isFulfilled(node.subcondition);
    case 'anon':
      return false;
    case 'threshold': {
      let n = 0;
      for (const sub of node.subconditions) {
        if (isFulfilled(sub)) n++;
        if (n === node.threshold) return true;
      }
      return false;
    }
  }
}

/** IsSignedCryptoCondition: fulfilled, and a signing node at the root or under signed thresholds. */
export function isSignedCondition(node: CCNode): boolean {
  if (!isFulfilled(node)) return false;
  if ((1 << typeId(node)) & CC_SIGNING_NODES) return true;
  if (node.type === 'threshold') return node.subconditions.some(isSignedCondition);
  return false;
}

export type VerifyResult = { readonly valid: true } | { readonly valid: false; readonly reason: string };

export interface VerifyOptions {
  /** SHA-256 the message before secp256k1 verification (the library's JSON API does; komodod does not). */
  readonly hashMessage?: boolean;
}

/** Depth-first visit in decoded order, stopping at the first false (cc_visit). */
function visit(node: CCNode, msg: Uint8Array, fn: (n: CCNode, msg: Uint8Array) => boolean): boolean {
  if (!fn(node, msg)) return false;
  if (node.type === 'threshold') {
    for (const sub of node.subconditions) if (!visit(sub, msg, fn)) return false;
  } else if (node.type === 'prefix') {
    // prefixVisitChildren: the subcondition sees prefix || message.
    const prefixed = new Uint8Array(node.prefix.length + msg.length);
    prefixed.set(node.prefix);
    prefixed.set(msg, node.prefix.length);
    return visit(node.subcondition, prefixed, fn);
  }
  return true;
}

/**
 * cc_verify: the tree's condition must match `condition` (compared over the rebuilt condition's
 * length: trailing bytes after it are tolerated, as komodod's memcmp does), every ed25519 and
 * secp256k1 signature must verify over `message`, then every eval node passes `evalCheck`.
 * secp256k1 signs the first 32 bytes of the message (msg32), low-S only, as libsecp256k1 verifies.
 */
export function verifyTree(
  tree: CCNode,
  condition: CCNode | Uint8Array,
  message: Uint8Array,
  evalCheck: EvalCheck = REJECT_EVALS,
  opts: VerifyOptions = {},
): VerifyResult {
  const target = conditionBinary(tree);
  const expected = toConditionBinary(condition);
  if (expected.length < target.length) return invalid('condition does not match the fulfillment');
  for (let i = 0; i < target.length; i++) {
    if (expected[i] !== target[i]) return invalid('condition does not match the fulfillment');
  }
  const edOk = visit(tree, message, (n, msg) =>
    n.type !== 'ed25519' || (n.signature !== undefined && verifyEd25519(n.signature, msg, n.publicKey)));
  if (!edOk) return invalid('ed25519 signature does not verify');

  const msg32 = opts.hashMessage ? sha256(message) : message.subarray(0, 32);
  const mask = typeMask(tree);
  if ((mask & (1 << CC_PREFIX)) && (mask & (1 << CC_SECP256K1))) {
    return invalid('secp256k1 under a prefix condition is not supported');
  }
  if (msg32.length !== 32) return invalid('secp256k1 needs a 32-byte message');
  const secpOk = visit(tree, msg32, (n, msg) =>
    n.type !== 'secp256k1' || (n.signature !== undefined && verifyCompact(n.signature, msg, verifyingKey(n), true)));
  if (!secpOk) return invalid('secp256k1 signature does not verify');

  let evalFailure: EvalResult | undefined;
  visit(tree, message, (n) => {
    if (n.type !== 'eval') return true;
    const r = evalCheck(n);
    if (!r.valid) evalFailure = r;
    return r.valid;
  });
  if (evalFailure && !evalFailure.valid) return invalid(`eval failed: ${evalFailure.reason}`);
  return VALID;
}

/**
 * Verifies a fulfillment (DER bytes or a decoded tree) against a condition (binary or tree) for a
 * message (komodod: the 32-byte sighash). DER input that does not decode is simply not valid.
 */
export function verifyFulfillment(
  fulfillment: Uint8Array | CCNode,
  condition: Uint8Array | CCNode,
  message: Uint8Array,
  evalCheck: EvalCheck = REJECT_EVALS,
  opts: VerifyOptions = {},
): boolean {
  let tree: CCNode;
  if (fulfillment instanceof Uint8Array) {
    try {
      tree = decodeFulfillment(fulfillment);
    } catch {
      return false;
    }
  } else {
    tree = fulfillment;
  }
  return verifyTree(tree, condition, message, evalCheck, opts).valid;
}

