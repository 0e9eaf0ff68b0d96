/**
 * Crypto-condition node types as komodod's libcryptoconditions models them (src/cryptoconditions).
 * A tree of CCNode is what komodod calls a `CC`: built by the condition builders, decoded from a
 * fulfillment, or (anon) decoded from a bare condition.
 */

export const CC_PREIMAGE = 0;
export const CC_PREFIX = 1;
export const CC_THRESHOLD = 2;
export const CC_RSA = 3;
export const CC_ED25519 = 4;
export const CC_SECP256K1 = 5;
export const CC_EVAL = 15;

/** URI / JSON names by type id (cryptoconditions.c CCTypeRegistry; 6-14 unused). */
export const CC_TYPE_NAMES: Readonly<Record<number, string>> = {
  [CC_PREIMAGE]: 'preimage-sha-256',
  [CC_PREFIX]: 'prefix-sha-256',
  [CC_THRESHOLD]: 'threshold-sha-256',
  [CC_RSA]: 'rsa-sha-256',
  [CC_ED25519]: 'ed25519-sha-256',
  [CC_SECP256K1]: 'secp256k1-sha-256',
  [CC_EVAL]: 'eval-sha-256',
};

/** Type ids the C library implements (RSA is NULL in its registry, so it is never accepted). */
export function isRegisteredType(typeId: number): boolean {
  return typeId === CC_PREIMAGE || typeId === CC_PREFIX || typeId === CC_THRESHOLD ||
    typeId === CC_ED25519 || typeId === CC_SECP256K1 || typeId === CC_EVAL;
}

/** Compound conditions carry a subtypes BIT STRING (CompoundSha256Condition). */
export function isCompoundType(typeId: number): boolean {
  return typeId === CC_PREFIX || typeId === CC_THRESHOLD;
}

/** script/cc.h CCEnabledTypes: prefix and RSA are refused by komodod's script check. */
export const CC_ENABLED_TYPES =
  (1 << CC_SECP256K1) | (1 << CC_THRESHOLD) | (1 << CC_EVAL) | (1 << CC_PREIMAGE) | (1 << CC_ED25519);
/** script/cc.h CCSigningNodes. */
export const CC_SIGNING_NODES = (1 << CC_ED25519) | (1 << CC_SECP256K1);

/** Fixed costs (secp256k1.c, ed25519.c, eval.c). */
export const SECP256K1_COST = 131072n;
export const ED25519_COST = 131072n;
export const EVAL_COST = 1048576n;

export interface PreimageNode {
  readonly type: 'preimage';
  readonly preimage: Uint8Array;
}

export interface PrefixNode {
  readonly type: 'prefix';
  readonly prefix: Uint8Array;
  /** unsigned long in C: kept as a u64. */
  readonly maxMessageLength: bigint;
  readonly subcondition: CCNode;
}

export interface ThresholdNode {
  readonly type: 'threshold';
  readonly threshold: number;
  readonly subconditions: readonly CCNode[];
}

export interface Ed25519Node {
  readonly type: 'ed25519';
  readonly publicKey: Uint8Array;
  signature?: Uint8Array;
}

export interface Secp256k1Node {
  readonly type: 'secp256k1';
  /** 33-byte compressed public key. */
  readonly publicKey: Uint8Array;
  /** 64-byte compact r||s, once signed. */
  signature?: Uint8Array;
}

export interface EvalNode {
  readonly type: 'eval';
  /** Komodo puts the one-byte eval code here; anything after it is "params". */
  readonly code: Uint8Array;
}

/** A condition without its fulfillment (anon.c): an unsigned or surplus branch, or a bare condition. */
export interface AnonNode {
  readonly type: 'anon';
  /** The real type the condition names. */
  readonly typeId: number;
  readonly fingerprint: Uint8Array;
  /** unsigned long in C: kept as a u64. */
  readonly cost: bigint;
  /** The decoded 32-bit subtypes mask (0 for simple types). */
  readonly subtypes: number;
}

export type CCNode = PreimageNode | PrefixNode | ThresholdNode | Ed25519Node | Secp256k1Node | EvalNode | AnonNode;

/** Building a fulfillment or condition from a tree that cannot give one (not decoding: that is DecodeError). */
export class CCError extends Error {
  override readonly name = 'CCError';
  constructor(message: string) {
    super(message);
  }
}
