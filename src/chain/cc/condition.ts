import { DecodeError } from '../encoding/errors.js';
import { sha256 } from '../crypto/hash.js';

import { type AsnCondition, encodeAsnCondition, readAsnCondition, readAsnConditionLenient } from './asn.js';
import { MASK64, bitStringToMask, encodeUint, glibcMergeSort, maskToBitString, setOf, tlv, toCInt } from './der.js';
import {
  type AnonNode, type CCNode, CC_ED25519, CC_EVAL, CC_PREFIX, CC_PREIMAGE, CC_SECP256K1, CC_THRESHOLD, CC_TYPE_NAMES,
  ED25519_COST, EVAL_COST, SECP256K1_COST, isCompoundType, isRegisteredType,
} from './types.js';

/** cc_typeId: an anon node reports the type it stands for. */
export function typeId(node: CCNode): number {
  switch (node.type) {
    case 'preimage': return CC_PREIMAGE;
    case 'prefix': return CC_PREFIX;
    case 'threshold': return CC_THRESHOLD;
    case 'ed25519': return CC_ED25519;
    case 'secp256k1': return CC_SECP256K1;
    case 'eval': return CC_EVAL;
    case 'anon': return node.typeId;
  }
}

export function typeName(node: CCNode): string {
  return CC_TYPE_NAMES[typeId(node)] ?? `unknown-${typeId(node)}`;
}

/** getSubtypes: 32-bit mask of the types below this node. */
export function subtypes(node: CCNode): number {
  switch (node.type) {
    case 'threshold': {
      let mask = 0;
      for (const sub of node.subconditions) mask |= typeMask(sub);
      // threshold.c clears the threshold bit even when a child is a threshold.
      return (mask & ~(1 << CC_THRESHOLD)) >>> 0;
    }
    case 'prefix':
      return (typeMask(node.subcondition) & ~(1 << CC_PREFIX)) >>> 0;
    case 'anon':
      return node.subtypes >>> 0;
    default:
      return 0;
  }
}

/** cc_typeMask: this node's type bit and its subtypes. */
export function typeMask(node: CCNode): number {
  return ((1 << typeId(node)) | subtypes(node)) >>> 0;
}

/** getCost, with C's unsigned long arithmetic (u64, wrapping). */
export function cost(node: CCNode): bigint {
  switch (node.type) {
    case 'preimage': return BigInt(node.preimage.length);
    case 'prefix':
      return (1024n + BigInt(node.prefix.length) + node.maxMessageLength + cost(node.subcondition)) & MASK64;
    case 'threshold': return thresholdCost(node.threshold, node.subconditions);
    case 'ed25519': return ED25519_COST;
    case 'secp256k1': return SECP256K1_COST;
    case 'eval': return EVAL_COST;
    case 'anon': return node.cost;
  }
}

/**
 * thresholdCost: the `threshold` largest child costs plus 1024 per child. The costs are sorted with
 * komodod's comparator `(int)(b - a)` under glibc's merge sort, so huge anon costs sort as komodod
 * sorts them (wrongly), and the sum wraps at 2^64.
 */
function thresholdCost(threshold: number, subs: readonly CCNode[]): bigint {
  const costs = glibcMergeSort(subs.map(cost), (a, b) => toCInt(b - a));
  let sum = 0n;
  for (let i = 0; i < threshold && i < costs.length; i++) sum += costs[i]!;
  return (sum + 1024n * BigInt(subs.length)) & MASK64;
}

/** The DER contents hashed into the fingerprint (empty for preimage and eval, which hash raw bytes). */
export function fingerprintContents(node: CCNode): Uint8Array {
  switch (node.type) {
    case 'preimage': return node.preimage;
    case 'eval': return node.code;
    case 'ed25519': return tlv(0x30, tlv(0x80, node.publicKey));
    case 'secp256k1': return tlv(0x30, tlv(0x80, node.publicKey));
    case 'prefix':
      return tlv(0x30, tlv(0x80, node.prefix), tlv(0x81, encodeUint(node.maxMessageLength)), tlv(0xa2, conditionBinary(node.subcondition)));
    case 'threshold':
      return tlv(0x30, tlv(0x80, encodeUint(BigInt(node.threshold))), setOf(0xa1, node.subconditions.map(conditionBinary)));
    case 'anon':
      throw new DecodeError('crypto-condition: an anonymous condition has no fingerprint contents');
  }
}

export function fingerprint(node: CCNode): Uint8Array {
  if (node.type === 'anon') return node.fingerprint;
  return sha256(fingerprintContents(node));
}

/** The ASN.1 Condition value of a node (asnCondition). */
export function asnCondition(node: CCNode): AsnCondition {
  const id = typeId(node);
  const base = { typeId: id, fingerprint: fingerprint(node), cost: cost(node) };
  return isCompoundType(id) ? { ...base, subtypes: maskToBitString(subtypes(node)) } : base;
}

/** cc_conditionBinary: the DER condition (what a CC scriptPubKey pushes). */
export function conditionBinary(node: CCNode): Uint8Array {
  return encodeAsnCondition(asnCondition(node));
}

function base64url(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64url');
}

/** cc_conditionUri: `ni:///sha-256;<fp>?fpt=<type>&cost=<n>[&subtypes=<names by id>]`. */
export function conditionUri(node: CCNode): string {
  let uri = `ni:///sha-256;${base64url(fingerprint(node))}?fpt=${typeName(node)}&cost=${cost(node)}`;
  const mask = subtypes(node);
  const names: string[] = [];
  for (let i = 0; i < 32; i++) if ((mask >>> i) & 1) names.push(CC_TYPE_NAMES[i] ?? `unknown-${i}`);
  if (names.length) uri += `&subtypes=${names.join(',')}`;
  return uri;
}

/** mkAnon: an anon node from a decoded Condition; RSA and unknown types are refused as komodod does. */
export function anonFromAsn(c: AsnCondition): AnonNode {
  if (!isRegisteredType(c.typeId)) {
    throw new DecodeError(`crypto-condition: ${CC_TYPE_NAMES[c.typeId] ?? 'unknown'} conditions are not supported by komodod`);
  }
  // anon.c copies exactly 32 bytes; a longer fingerprint is accepted and cut (a shorter one is UB in C).
  if (c.fingerprint.length < 32) throw new DecodeError('crypto-condition: fingerprint shorter than 32 bytes');
  return {
    type: 'anon',
    typeId: c.typeId,
    fingerprint: c.fingerprint.slice(0, 32),
    cost: c.cost,
    subtypes: c.subtypes ? bitStringToMask(c.subtypes) : 0,
  };
}

/**
 * Decodes a condition binary into an anon node under komodod's fulfillment rules for embedded
 * conditions (parse, re-encode, compare). Throws DecodeError.
 */
export function decodeCondition(bytes: Uint8Array): AnonNode {
  return anonFromAsn(readAsnCondition(bytes));
}

/**
 * cc_readConditionBinary as komodod's policy code uses it: BER, first value only, trailing bytes
 * ignored, no canonical-form check. Throws DecodeError.
 */
export function decodeConditionLenient(bytes: Uint8Array): AnonNode {
  return anonFromAsn(readAsnConditionLenient(bytes));
}

/** The condition binary of a node or of an already-encoded condition. */
export function toConditionBinary(c: CCNode | Uint8Array): Uint8Array {
  return c instanceof Uint8Array ? c : conditionBinary(c);
}

