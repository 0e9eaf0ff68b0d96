import { CURVE_ORDER } from '../../src/chain/crypto/secp256k1.js';
import { encodeDERSignature, parseDERSignature } from '../../src/chain/crypto/der.js';

/**
 * The high-S twin of a DER signature with its hash-type byte: S' = n − S, still a valid ECDSA
 * signature (consensus accepts it), refused by the LOW_S policy.
 */
export function highSTwin(sigWithHashType: Uint8Array): Uint8Array {
  const sig64 = parseDERSignature(sigWithHashType.subarray(0, sigWithHashType.length - 1));
  if (!sig64) throw new Error('highSTwin: not a DER signature');
  let s = 0n;
  for (const b of sig64.subarray(32)) s = (s << 8n) | BigInt(b);
  const high = CURVE_ORDER - s;
  const out = new Uint8Array(sig64);
  for (let i = 0; i < 32; i++) out[63 - i] = Number((high >> BigInt(8 * i)) & 0xffn);
  return Uint8Array.of(...encodeDERSignature(out), sigWithHashType[sigWithHashType.length - 1]!);
}
