import { DecodeError } from '../encoding/errors.js';
import {
  type BitString, type Tlv, decodeBitString, decodeUint, encodeBitString, encodeUint, expectTlv, readTlv, setOf, tlv,
} from './der.js';
import { CC_EVAL, CC_PREFIX, CC_RSA, CC_SECP256K1, CC_THRESHOLD, CC_ED25519, CC_PREIMAGE, isCompoundType } from './types.js';

/**
 * The ASN.1 values of CryptoConditions.asn exactly as asn1c holds them after a BER decode: raw
 * OCTET STRINGs (SIZE constraints are not enforced by asn1c), u64 INTEGERs and raw BIT STRINGs.
 * Encoding them reproduces asn1c's DER encoder, so decode = parse, re-encode, compare bytes.
 */

export interface AsnCondition {
  readonly typeId: number;
  readonly fingerprint: Uint8Array;
  readonly cost: bigint;
  /** Present for compound types (prefix, threshold) only. */
  readonly subtypes?: BitString;
}

export type AsnFulfillment =
  | { readonly typeId: typeof CC_PREIMAGE; readonly preimage: Uint8Array }
  | { readonly typeId: typeof CC_PREFIX; readonly prefix: Uint8Array; readonly maxMessageLength: bigint; readonly sub: AsnFulfillment }
  | { readonly typeId: typeof CC_THRESHOLD; readonly subfulfillments: AsnFulfillment[]; readonly subconditions: AsnCondition[] }
  | { readonly typeId: typeof CC_RSA; readonly modulus: Uint8Array; readonly signature: Uint8Array }
  | { readonly typeId: typeof CC_ED25519 | typeof CC_SECP256K1; readonly publicKey: Uint8Array; readonly signature: Uint8Array }
  | { readonly typeId: typeof CC_EVAL; readonly code: Uint8Array };

/**
 * Nesting bound. komodod's asn1c decoder stops at 30000 bytes of C stack (ASN__DEFAULT_STACK_MAX),
 * a limit in bytes, not levels. Measured on komodod's asn1c sources built with gcc 12 -O2 (the
 * default CFLAGS) on x86-64: 70 nested thresholds decode and 71 fail; 96 nested prefixes decode and
 * 97 fail. We charge each level its share of one budget so mixed nesting fails where the stack would.
 */
export const THRESHOLD_STACK_COST = 96;
export const PREFIX_STACK_COST = 70;
export const MAX_DECODE_STACK = 70 * 96;

const TAG_CHOICE = 0xa0;

function choiceTypeId(tag: number): number {
  if ((tag & 0xe0) !== 0xa0) return -1;
  const id = tag & 0x1f;
  return id <= 5 || id === CC_EVAL ? id : -1;
}

function octets(buf: Uint8Array, t: Tlv): Uint8Array {
  return buf.slice(t.contentStart, t.end);
}

function requireEnd(pos: number, end: number, what: string): void {
  if (pos !== end) throw new DecodeError(`crypto-condition: unexpected bytes inside ${what}`);
}

/** Parses one Condition CHOICE value occupying exactly [t.start, t.end). */
function parseConditionTlv(buf: Uint8Array, t: Tlv): AsnCondition {
  const typeId = choiceTypeId(t.tag);
  if (typeId < 0) throw new DecodeError(`crypto-condition: unknown condition type tag 0x${t.tag.toString(16)}`);
  const fp = expectTlv(buf, t.contentStart, t.end, 0x80, 'fingerprint');
  const cost = expectTlv(buf, fp.end, t.end, 0x81, 'cost');
  const costValue = decodeUint(buf.subarray(cost.contentStart, cost.end));
  if (isCompoundType(typeId)) {
    const st = expectTlv(buf, cost.end, t.end, 0x82, 'subtypes');
    requireEnd(st.end, t.end, 'condition');
    return { typeId, fingerprint: octets(buf, fp), cost: costValue, subtypes: decodeBitString(buf.subarray(st.contentStart, st.end)) };
  }
  requireEnd(cost.end, t.end, 'condition');
  return { typeId, fingerprint: octets(buf, fp), cost: costValue };
}

function parseFulfillmentTlv(buf: Uint8Array, t: Tlv, stack: number): AsnFulfillment {
  const typeId = choiceTypeId(t.tag);
  if (typeId < 0) throw new DecodeError(`crypto-condition: unknown fulfillment type tag 0x${t.tag.toString(16)}`);
  const s = t.contentStart;
  const e = t.end;
  switch (typeId) {
    case CC_PREIMAGE: {
      const p = expectTlv(buf, s, e, 0x80, 'preimage');
      requireEnd(p.end, e, 'preimage fulfillment');
      return { typeId, preimage: octets(buf, p) };
    }
    case CC_PREFIX: {
      const depth = stack + PREFIX_STACK_COST;
      if (depth > MAX_DECODE_STACK) throw new DecodeError('crypto-condition: nested too deeply');
      const p = expectTlv(buf, s, e, 0x80, 'prefix');
      const m = expectTlv(buf, p.end, e, 0x81, 'maxMessageLength');
      const w = expectTlv(buf, m.end, e, 0xa2, 'subfulfillment');
      requireEnd(w.end, e, 'prefix fulfillment');
      const inner = readTlv(buf, w.contentStart, w.end);
      requireEnd(inner.end, w.end, 'subfulfillment');
      return {
        typeId,
        prefix: octets(buf, p),
        maxMessageLength: decodeUint(buf.subarray(m.contentStart, m.end)),
        sub: parseFulfillmentTlv(buf, inner, depth),
      };
    }
    case CC_THRESHOLD: {
      const depth = stack + THRESHOLD_STACK_COST;
      if (depth > MAX_DECODE_STACK) throw new DecodeError('crypto-condition: nested too deeply');
      const fs = expectTlv(buf, s, e, 0xa0, 'subfulfillments');
      const cs = expectTlv(buf, fs.end, e, 0xa1, 'subconditions');
      requireEnd(cs.end, e, 'threshold fulfillment');
      const subfulfillments: AsnFulfillment[] = [];
      for (let p = fs.contentStart; p < fs.end;) {
        const c = readTlv(buf, p, fs.end);
        subfulfillments.push(parseFulfillmentTlv(buf, c, depth));
        p = c.end;
      }
      const subconditions: AsnCondition[] = [];
      for (let p = cs.contentStart; p < cs.end;) {
        const c = readTlv(buf, p, cs.end);
        subconditions.push(parseConditionTlv(buf, c));
        p = c.end;
      }
      return { typeId, subfulfillments, subconditions };
    }
    case CC_RSA: {
      const m = expectTlv(buf, s, e, 0x80, 'modulus');
      const g = expectTlv(buf, m.end, e, 0x81, 'signature');
      requireEnd(g.end, e, 'rsa fulfillment');
      return { typeId, modulus: octets(buf, m), signature: octets(buf, g) };
    }
    case CC_ED25519:
    case CC_SECP256K1: {
      const k = expectTlv(buf, s, e, 0x80, 'publicKey');
      const g = expectTlv(buf, k.end, e, 0x81, 'signature');
      requireEnd(g.end, e, 'signature fulfillment');
      return { typeId, publicKey: octets(buf, k), signature: octets(buf, g) };
    }
    case CC_EVAL: {
      const c = expectTlv(buf, s, e, 0x80, 'code');
      requireEnd(c.end, e, 'eval fulfillment');
      return { typeId, code: octets(buf, c) };
    }
    default:
      throw new DecodeError(`crypto-condition: unknown fulfillment type ${typeId}`);
  }
}

export function encodeAsnCondition(c: AsnCondition): Uint8Array {
  const parts = [tlv(0x80, c.fingerprint), tlv(0x81, encodeUint(c.cost))];
  if (isCompoundType(c.typeId)) parts.push(tlv(0x82, encodeBitString(c.subtypes ?? { unused: 0, data: new Uint8Array(0) })));
  return tlv(TAG_CHOICE | c.typeId, ...parts);
}

export function encodeAsnFulfillment(f: AsnFulfillment): Uint8Array {
  const tag = TAG_CHOICE | f.typeId;
  switch (f.typeId) {
    case CC_PREIMAGE:
      return tlv(tag, tlv(0x80, f.preimage));
    case CC_PREFIX:
      return tlv(tag, tlv(0x80, f.prefix), tlv(0x81, encodeUint(f.maxMessageLength)), tlv(0xa2, encodeAsnFulfillment(f.sub)));
    case CC_THRESHOLD:
      return tlv(tag, setOf(0xa0, f.subfulfillments.map(encodeAsnFulfillment)), setOf(0xa1, f.subconditions.map(encodeAsnCondition)));
    case CC_RSA:
      return tlv(tag, tlv(0x80, f.modulus), tlv(0x81, f.signature));
    case CC_ED25519:
    case CC_SECP256K1:
      return tlv(tag, tlv(0x80, f.publicKey), tlv(0x81, f.signature));
    case CC_EVAL:
      return tlv(tag, tlv(0x80, f.code));
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * cc_readFulfillmentBinaryExt's first half: BER-decode a Fulfillment, DER re-encode it and require
 * exactly the input bytes (the malleability check). Throws DecodeError.
 */
export function readAsnFulfillment(bytes: Uint8Array): AsnFulfillment {
  const t = readTlv(bytes, 0, bytes.length);
  const f = parseFulfillmentTlv(bytes, t, 0);
  if (!sameBytes(encodeAsnFulfillment(f), bytes)) {
    throw new DecodeError('crypto-condition: fulfillment is not in canonical DER (re-encoding differs)');
  }
  return f;
}

/** A Condition value under the same parse-and-re-encode rule. Throws DecodeError. */
export function readAsnCondition(bytes: Uint8Array): AsnCondition {
  const t = readTlv(bytes, 0, bytes.length);
  const c = parseConditionTlv(bytes, t);
  if (!sameBytes(encodeAsnCondition(c), bytes)) {
    throw new DecodeError('crypto-condition: condition is not in canonical DER (re-encoding differs)');
  }
  return c;
}

/**
 * cc_readConditionBinary (komodod's policy check, MayAcceptCryptoCondition): a plain BER decode of
 * the first Condition, no re-encoding check, trailing bytes ignored. Indefinite lengths and
 * constructed strings, which asn1c's BER decoder would also take, are not supported here.
 */
export function readAsnConditionLenient(bytes: Uint8Array): AsnCondition {
  const t = readTlv(bytes, 0, bytes.length);
  return parseConditionTlv(bytes, t);
}
