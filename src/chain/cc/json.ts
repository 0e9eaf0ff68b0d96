import { fromHex, toHex } from '../encoding/hex.js';
import { typeName } from './condition.js';
import { type CCNode, CCError } from './types.js';

/**
 * The library's JSON form of a tree (cc_conditionFromJSON / cc_conditionToJSON, json_rpc.c):
 * base64url for binary fields, except secp256k1's publicKey/signature, which are hex (upper-case out).
 */
export type CCJson = { readonly type: string; readonly [key: string]: unknown };

function b64urlDecode(v: unknown, field: string): Uint8Array {
  if (typeof v !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(v)) throw new CCError(`${field} must be a base64 string`);
  return Uint8Array.from(Buffer.from(v.replace(/-/g, '+').replace(/_/g, '/'), 'base64'));
}

function b64url(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64url');
}

function hexField(v: unknown, field: string): Uint8Array {
  if (typeof v !== 'string') throw new CCError(`${field} must be a hex string`);
  try {
    return fromHex(v);
  } catch {
    throw new CCError(`${field} must be a hex string`);
  }
}

function numberField(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new CCError(`${field} must be a number`);
  return Math.trunc(v);
}

export function ccFromJSON(json: unknown): CCNode {
  if (typeof json !== 'object' || json === null) throw new CCError('condition must be an object');
  const j = json as Record<string, unknown>;
  switch (j.type) {
    case 'preimage-sha-256':
      return { type: 'preimage', preimage: b64urlDecode(j.preimage, 'preimage') };
    case 'prefix-sha-256':
      return {
        type: 'prefix',
        prefix: b64urlDecode(j.prefix, 'prefix'),
        maxMessageLength: BigInt(numberField(j.maxMessageLength, 'maxMessageLength')),
        subcondition: ccFromJSON(j.subfulfillment),
      };
    case 'threshold-sha-256': {
      if (!Array.isArray(j.subfulfillments)) throw new CCError('subfulfillments must be an array');
      const threshold = numberField(j.threshold, 'threshold');
      const subconditions = j.subfulfillments.map(ccFromJSON);
      if (threshold > subconditions.length) throw new CCError('threshold exceeds the number of subconditions');
      return { type: 'threshold', threshold, subconditions };
    }
    case 'ed25519-sha-256': {
      const publicKey = b64urlDecode(j.publicKey, 'publicKey');
      if (publicKey.length !== 32) throw new CCError('publicKey has incorrect length');
      if (j.signature === undefined || j.signature === null) return { type: 'ed25519', publicKey };
      const signature = b64urlDecode(j.signature, 'signature');
      if (signature.length !== 64) throw new CCError('signature has incorrect length');
      return { type: 'ed25519', publicKey, signature };
    }
    case 'secp256k1-sha-256': {
      const publicKey = hexField(j.publicKey, 'publicKey');
      if (publicKey.length !== 33) throw new CCError('invalid public key');
      if (j.signature === undefined || j.signature === null) return { type: 'secp256k1', publicKey };
      const signature = hexField(j.signature, 'signature');
      if (signature.length !== 64) throw new CCError('signature has incorrect length');
      return { type: 'secp256k1', publicKey, signature };
    }
    case 'eval-sha-256':
      return { type: 'eval', code: b64urlDecode(j.code, 'code') };
    default:
      throw new CCError(`unsupported condition type ${String(j.type)}`);
  }
}

export function ccToJSON(node: CCNode): CCJson {
  switch (node.type) {
    case 'preimage': return { type: typeName(node), preimage: b64url(node.preimage) };
    case 'prefix':
      return {
        type: typeName(node),
        maxMessageLength: Number(node.maxMessageLength),
        prefix: b64url(node.prefix),
        subfulfillment: ccToJSON(node.subcondition),
      };
    case 'threshold':
      return { type: typeName(node), threshold: node.threshold, subfulfillments: node.subconditions.map(ccToJSON) };
    case 'ed25519':
      return node.signature
        ? { type: typeName(node), publicKey: b64url(node.publicKey), signature: b64url(node.signature) }
        : { type: typeName(node), publicKey: b64url(node.publicKey) };
    case 'secp256k1':
      return node.signature
        ? { type: typeName(node), publicKey: toHex(node.publicKey).toUpperCase(), signature: toHex(node.signature).toUpperCase() }
        : { type: typeName(node), publicKey: toHex(node.publicKey).toUpperCase() };
    case 'eval': return { type: typeName(node), code: b64url(node.code) };
    // anon.c prints "(anon)" without the real type.
    case 'anon':
      return { type: '(anon)', fingerprint: b64url(node.fingerprint), cost: Number(node.cost), subtypes: node.subtypes };
  }
}
