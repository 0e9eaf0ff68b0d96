import { sha256 } from '@noble/hashes/sha2.js';
import {
  makeCCcond1,
  conditionBinary,
  decodeCondition,
  fulfillmentBinary,
  decodeFulfillment,
  signTreeSecp256k1,
  cloneTree,
  verifyFulfillment,
  ACCEPT_EVALS,
} from '../src/chain/cc/index.js';
import { publicKeyFromPrivate, signCompact, verifyCompact } from '../src/chain/crypto/secp256k1.js';
import { bestOfInterleaved, opsPerSecond, type Row } from './lib.js';

/** The crypto-conditions codec and a CC spend's verification, beside the secp256k1 work inside it. */
export function ccBenchmarks(): Row[] {
  const key = sha256(Uint8Array.of(7));
  const pub = publicKeyFromPrivate(key);
  const msg = sha256(Uint8Array.of(8));
  const cond = makeCCcond1(0xf2, pub);
  const condBin = conditionBinary(cond);
  const signed = cloneTree(cond);
  signTreeSecp256k1(signed, key, msg);
  const ffill = fulfillmentBinary(signed);

  const encode = opsPerSecond(() => void conditionBinary(cond));
  const decode = opsPerSecond(() => void decodeCondition(condBin));
  // One fulfillment again and again: its key is remembered after the first parse.
  const ffDecode = opsPerSecond(() => void decodeFulfillment(ffill));
  // Spends by more distinct keys than the parsed-key memory holds (4,096): every key is parsed, as
  // for a stream of strangers' spends (reused keys only go faster).
  const spends = Array.from({ length: 5000 }, (_, i) => {
    const k = sha256(Uint8Array.of(9, i & 0xff, i >> 8));
    const tree = cloneTree(makeCCcond1(0xf2, publicKeyFromPrivate(k)));
    signTreeSecp256k1(tree, k, msg);
    return { ffill: fulfillmentBinary(tree), cond: conditionBinary(tree), pub: publicKeyFromPrivate(k), sig: signCompact(msg, k) };
  });
  let next = 0;
  const [verifyCC, verifySecp] = bestOfInterleaved([
    () => {
      const x = spends[next++ % spends.length]!;
      verifyFulfillment(x.ffill, x.cond, msg, ACCEPT_EVALS);
    },
    () => {
      const x = spends[next++ % spends.length]!;
      verifyCompact(x.sig, msg, x.pub);
    },
  ]) as [number, number];
  const fingerprintBase = opsPerSecond(() => void sha256(condBin));
  return [
    { name: 'condition encode (MakeCCcond1 → binary)', value: encode, unit: 'ops/s', limitName: 'bare sha256 of the condition bytes', limit: fingerprintBase },
    { name: 'condition decode (binary → tree)', value: decode, unit: 'ops/s', limitName: 'bare sha256 of the condition bytes', limit: fingerprintBase },
    { name: 'fulfillment decode (the same one: its key remembered)', value: ffDecode, unit: 'ops/s', limitName: 'bare sha256 of the condition bytes', limit: fingerprintBase },
    { name: 'CC spend verification (1-of-1 + eval), 5,000 keys', value: verifyCC, unit: 'ops/s', limitName: 'plain secp256k1 verify (compact), same keys', limit: verifySecp, target: { kind: 'min', ratio: 0.8 } },
  ];
}
