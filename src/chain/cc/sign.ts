import { isValidPrivateKey, publicKeyFromPrivate, signCompact } from '../crypto/secp256k1.js';
import { typeMask } from './condition.js';
import { type CCNode, CC_PREFIX } from './types.js';

/** A deep copy, so signing never touches the caller's tree. */
export function cloneTree(node: CCNode): CCNode {
  switch (node.type) {
    case 'threshold': return { ...node, subconditions: node.subconditions.map(cloneTree) };
    case 'prefix': return { ...node, subcondition: cloneTree(node.subcondition) };
    case 'secp256k1':
    case 'ed25519':
      return node.signature ? { ...node, signature: node.signature.slice() } : { ...node };
    default: return { ...node };
  }
}

function sameKey(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * cc_signTreeSecp256k1Msg32: signs, in place, every secp256k1 node whose key is the private key's
 * compressed public key (RFC 6979, low-S, compact r||s over the raw msg32) and returns how many it
 * signed. Trees with a prefix node are refused (0), as is an invalid key.
 */
export function signTreeSecp256k1(tree: CCNode, privateKey: Uint8Array, msg32: Uint8Array): number {
  if (typeMask(tree) & (1 << CC_PREFIX)) return 0;
  if (!isValidPrivateKey(privateKey) || msg32.length !== 32) return 0;
  const pk = publicKeyFromPrivate(privateKey, true);
  let signed = 0;
  const walk = (n: CCNode): void => {
    if (n.type === 'secp256k1' && sameKey(n.publicKey, pk)) {
      n.signature = signCompact(msg32, privateKey);
      signed++;
    } else if (n.type === 'threshold') {
      for (const sub of n.subconditions) walk(sub);
    }
  };
  walk(tree);
  return signed;
}
