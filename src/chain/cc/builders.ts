import { type CCNode, type EvalNode, type Secp256k1Node, type ThresholdNode, CCError } from './types.js';
import { EVAL_TOKENS } from './eval-codes.js';

/** Eval node with komodod's one-byte code (E_MARSHAL(ss << uint8_t)). */
export function evalNode(evalCode: number): EvalNode {
  if (!Number.isInteger(evalCode) || evalCode < 0 || evalCode > 0xff) throw new CCError('eval code must be a byte');
  return { type: 'eval', code: Uint8Array.of(evalCode) };
}

/** CCNewSecp256k1: the 33-byte key is copied as is (komodod does not check it here). */
export function secp256k1Node(publicKey: Uint8Array): Secp256k1Node {
  if (publicKey.length !== 33) throw new CCError('secp256k1 node needs a 33-byte compressed public key');
  return { type: 'secp256k1', publicKey: publicKey.slice() };
}

export function thresholdNode(threshold: number, subconditions: CCNode[]): ThresholdNode {
  if (!Number.isInteger(threshold) || threshold < 0 || threshold > subconditions.length) {
    throw new CCError('threshold must be between 0 and the number of subconditions');
  }
  return { type: 'threshold', threshold, subconditions };
}

/** MakeCCcond1 (CCutils.cpp): 2 of { eval(ev), 1 of { secp256k1(pk) } }. */
export function makeCCcond1(evalCode: number, pk: Uint8Array): ThresholdNode {
  return thresholdNode(2, [evalNode(evalCode), thresholdNode(1, [secp256k1Node(pk)])]);
}

/** MakeCCcond1of2 (CCutils.cpp): 2 of { eval(ev), 1 of { secp256k1(pk1), secp256k1(pk2) } }. */
export function makeCCcond1of2(evalCode: number, pk1: Uint8Array, pk2: Uint8Array): ThresholdNode {
  return thresholdNode(2, [evalNode(evalCode), thresholdNode(1, [secp256k1Node(pk1), secp256k1Node(pk2)])]);
}

/**
 * The children MakeTokensCCcond1/1of2 (CCtokenutils.cpp) put before the signature threshold:
 * eval(ev), then eval(EVAL_TOKENS) unless ev is tokens, then eval(ev2) when ev2 != 0.
 */
function tokensEvals(evalCode: number, evalCode2: number): CCNode[] {
  const evals: CCNode[] = [evalNode(evalCode)];
  if (evalCode !== EVAL_TOKENS) evals.push(evalNode(EVAL_TOKENS));
  if (evalCode2 !== 0) evals.push(evalNode(evalCode2));
  return evals;
}

/**
 * MakeTokensCCcond1(ev, [ev2,] pk): n of { evals..., 1 of { secp256k1(pk) } }, n = every child
 * (komodod's two overloads: without ev2 it is 0).
 */
export function makeTokensCCcond1(evalCode: number, pk: Uint8Array): ThresholdNode;
export function makeTokensCCcond1(evalCode: number, evalCode2: number, pk: Uint8Array): ThresholdNode;
export function makeTokensCCcond1(evalCode: number, a: number | Uint8Array, b?: Uint8Array): ThresholdNode {
  const [evalCode2, pk] = typeof a === 'number' ? [a, b!] : [0, a];
  const subs = [...tokensEvals(evalCode, evalCode2), thresholdNode(1, [secp256k1Node(pk)])];
  return thresholdNode(subs.length, subs);
}

/** MakeTokensCCcond1of2(ev, [ev2,] pk1, pk2): n of { evals..., 1 of { secp256k1(pk1), secp256k1(pk2) } }. */
export function makeTokensCCcond1of2(evalCode: number, pk1: Uint8Array, pk2: Uint8Array): ThresholdNode;
export function makeTokensCCcond1of2(evalCode: number, evalCode2: number, pk1: Uint8Array, pk2: Uint8Array): ThresholdNode;
export function makeTokensCCcond1of2(evalCode: number, a: number | Uint8Array, b: Uint8Array, c?: Uint8Array): ThresholdNode {
  const [evalCode2, pk1, pk2] = typeof a === 'number' ? [a, b, c!] : [0, a, b];
  const subs = [...tokensEvals(evalCode, evalCode2), thresholdNode(1, [secp256k1Node(pk1), secp256k1Node(pk2)])];
  return thresholdNode(subs.length, subs);
}
