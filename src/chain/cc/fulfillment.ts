import { DecodeError } from '../encoding/errors.js';
import { publicKeyUncompressed } from '../crypto/secp256k1.js';
import { type AsnFulfillment, encodeAsnFulfillment, readAsnFulfillment } from './asn.js';
import { anonFromAsn, asnCondition, conditionBinary, cost } from './condition.js';
import { glibcMergeSort, toCInt } from './der.js';
import {
  type CCNode, CCError, CC_ED25519, CC_EVAL, CC_PREFIX, CC_PREIMAGE, CC_SECP256K1, CC_THRESHOLD,
} from './types.js';

/**
 * The key to verify a secp256k1 node's signature with: its parsed (uncompressed) form, which decoding
 * has just computed and publicKeyUncompressed remembers, so verify needs no second square root.
 */
export function verifyingKey(node: CCNode & { type: 'secp256k1' }): Uint8Array {
  return publicKeyUncompressed(node.publicKey) ?? node.publicKey;
}

/**
 * asnFulfillmentNew / thresholdToFulfillment: the ASN.1 fulfillment of a tree, or null when the
 * tree is not fulfilled enough to give one.
 */
export function asnFulfillment(node: CCNode): AsnFulfillment | null {
  switch (node.type) {
    case 'preimage': return { typeId: CC_PREIMAGE, preimage: node.preimage };
    case 'eval': return { typeId: CC_EVAL, code: node.code };
    case 'secp256k1':
      return node.signature ? { typeId: CC_SECP256K1, publicKey: node.publicKey, signature: node.signature } : null;
    case 'ed25519':
      return node.signature ? { typeId: CC_ED25519, publicKey: node.publicKey, signature: node.signature } : null;
    case 'prefix': {
      const sub = asnFulfillment(node.subcondition);
      return sub ? { typeId: CC_PREFIX, prefix: node.prefix, maxMessageLength: node.maxMessageLength, sub } : null;
    }
    case 'anon': return null;
    case 'threshold': return thresholdFulfillment(node.threshold, node.subconditions);
  }
}

/**
 * threshold.c: children sorted by cost ascending (cmpConditionCost under glibc's merge sort; equal
 * costs keep construction order), then greedily: while more are needed, a child that can give a
 * fulfillment is fulfilled; every other child travels as its condition.
 */
function thresholdFulfillment(threshold: number, subs: readonly CCNode[]): AsnFulfillment | null {
  const sorted = glibcMergeSort(subs.map((n) => ({ n, cost: cost(n) })), (a, b) => {
    const d = toCInt(a.cost - b.cost);
    if (d !== 0) return d;
    return cmpConditionBin(conditionBinary(a.n), conditionBinary(b.n));
  });
  let needed = threshold;
  const subfulfillments: AsnFulfillment[] = [];
  const subconditions = [];
  for (const { n } of sorted) {
    const f = needed > 0 ? asnFulfillment(n) : null;
    if (f) {
      subfulfillments.push(f);
      needed--;
    } else {
      subconditions.push(asnCondition(n));
    }
  }
  if (needed > 0) return null;
  return { typeId: CC_THRESHOLD, subfulfillments, subconditions };
}

/** threshold.c cmpConditionBin: 0 whenever the bytes differ (sic), else shorter first, equal -> 1. */
function cmpConditionBin(a: Uint8Array, b: Uint8Array): number {
  const common = Math.min(a.length, b.length);
  for (let i = 0; i < common; i++) if (a[i] !== b[i]) return 0;
  return a.length < b.length ? -1 : 1;
}

/** cc_fulfillmentBinary. Throws CCError when the tree cannot be fulfilled (unsigned, threshold not met). */
export function fulfillmentBinary(node: CCNode): Uint8Array {
  const f = asnFulfillment(node);
  if (!f) throw new CCError('crypto-condition: the tree is not fulfilled (missing signatures or threshold not met)');
  return encodeAsnFulfillment(f);
}

/** fulfillmentToCC: the tree komodod builds from a decoded fulfillment. */
function fromAsn(f: AsnFulfillment): CCNode {
  switch (f.typeId) {
    case CC_PREIMAGE: return { type: 'preimage', preimage: f.preimage };
    case CC_EVAL: return { type: 'eval', code: f.code };
    case CC_PREFIX:
      return { type: 'prefix', prefix: f.prefix, maxMessageLength: f.maxMessageLength, subcondition: fromAsn(f.sub) };
    case CC_THRESHOLD:
      // The threshold is the number of subfulfillments; the conditions follow as anon nodes.
      return {
        type: 'threshold',
        threshold: f.subfulfillments.length,
        subconditions: [...f.subfulfillments.map(fromAsn), ...f.subconditions.map(anonFromAsn)],
      };
    case CC_SECP256K1: {
      // secp256k1.c copies 33 and 64 bytes (longer fields are cut; shorter ones are UB in C) and
      // requires the key to parse as a compressed point.
      if (f.publicKey.length < 33 || f.signature.length < 64) {
        throw new DecodeError('crypto-condition: secp256k1 key or signature too short');
      }
      const publicKey = f.publicKey.slice(0, 33);
      if ((publicKey[0] !== 0x02 && publicKey[0] !== 0x03) || !publicKeyUncompressed(publicKey)) {
        throw new DecodeError('crypto-condition: secp256k1 public key does not parse');
      }
      return { type: 'secp256k1', publicKey, signature: f.signature.slice(0, 64) };
    }
    case CC_ED25519: {
      // ed25519.c copies 32 and 64 bytes without checking the sizes.
      if (f.publicKey.length < 32 || f.signature.length < 64) {
        throw new DecodeError('crypto-condition: ed25519 key or signature too short');
      }
      return { type: 'ed25519', publicKey: f.publicKey.slice(0, 32), signature: f.signature.slice(0, 64) };
    }
    default:
      throw new DecodeError('crypto-condition: rsa-sha-256 fulfillments are not supported by komodod');
  }
}

/**
 * cc_readFulfillmentBinaryExt: parse, DER re-encode and require identical bytes, then build the
 * tree. Accepts exactly what komodod accepts; throws DecodeError otherwise.
 */
export function decodeFulfillment(bytes: Uint8Array): CCNode {
  return fromAsn(readAsnFulfillment(bytes));
}

