import { DecodeError } from '../encoding/errors.js';
import { decodeFulfillment } from '../cc/fulfillment.js';
import type { CCNode } from '../cc/types.js';
import { getOp } from '../script/script.js';
import type { Transaction } from '../tx/transaction.js';
import { EVAL_TOKENS } from '../cc/eval-codes.js';

/**
 * What komodod reads from a CC input's scriptSig: GetCryptoCondition, IsCCInput, the Tokens module's
 * ismyvin (IsTokensInput) and ExtractTokensCCVinPubkeys.
 */

/**
 * GetCryptoCondition: the fulfillment tree of the scriptSig's first push (its last byte, the hash
 * type, left out), or null when it does not decode. An empty first push would make komodod decode
 * SIZE_MAX bytes (undefined behaviour that cannot succeed); it is null here.
 */
export function getCryptoCondition(scriptSig: Uint8Array): CCNode | null {
  const op = getOp(scriptSig, 0);
  if (!op || !op.data || op.data.length === 0) return null;
  try {
    return decodeFulfillment(op.data.subarray(0, op.data.length - 1));
  } catch (e) {
    if (e instanceof DecodeError) return null;
    throw e;
  }
}

/** IsCCInput: the scriptSig carries a decodable fulfillment. */
export function isCCInput(scriptSig: Uint8Array): boolean {
  return getCryptoCondition(scriptSig) !== null;
}

/** cc_visit order: the node, then its children in order (a threshold's fulfilled children first). */
function* visit(node: CCNode): Generator<CCNode> {
  yield node;
  if (node.type === 'threshold') for (const sub of node.subconditions) yield* visit(sub);
  else if (node.type === 'prefix') yield* visit(node.subcondition);
}

/**
 * IsTokensInput (CCcustom.inc with EVALCODE = EVAL_TOKENS): some eval node's code is exactly [0xf2].
 * Anon eval nodes never match (komodod would read a length from their fingerprint bytes).
 */
export function hasTokensEval(cond: CCNode): boolean {
  for (const n of visit(cond)) if (n.type === 'eval' && n.code.length === 1 && n.code[0] === EVAL_TOKENS) return true;
  return false;
}

export function isTokensInput(scriptSig: Uint8Array): boolean {
  const cond = getCryptoCondition(scriptSig);
  return cond !== null && hasTokensEval(cond);
}

/** The first secp256k1 key in visit order (an anon secp node met first would be read as garbage by komodod: skipped). */
function firstSecpKey(cond: CCNode): Uint8Array | null {
  for (const n of visit(cond)) if (n.type === 'secp256k1') return n.publicKey;
  return null;
}

/** GetCryptoCondition of every input's scriptSig, in input order. */
export function vinConditions(tx: Transaction): (CCNode | null)[] {
  return tx.vin.map((vin) => getCryptoCondition(vin.scriptSig));
}

/**
 * ExtractTokensCCVinPubkeys: for each token input, the first secp256k1 key of its fulfillment. komodod
 * keeps one CPubKey across inputs, so an input without a key repeats the previous input's key.
 */
export function tokensVinPubkeys(tx: Transaction): Uint8Array[] {
  return tokensVinPubkeysOf(vinConditions(tx));
}

/** tokensVinPubkeys over the inputs' conditions already decoded (vinConditions). */
export function tokensVinPubkeysOf(conds: readonly (CCNode | null)[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let last: Uint8Array | null = null;
  for (const cond of conds) {
    if (!cond || !hasTokensEval(cond)) continue;
    last = firstSecpKey(cond) ?? last;
    if (last) out.push(last);
  }
  return out;
}
