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
  const sig = signCompact(msg, key);

  const encode = opsPerSecond(() => void conditionBinary(cond));
  const decode = opsPerSecond(() => void decodeCondition(condBin));
  const ffDecode = opsPerSecond(() => void decodeFulfillment(ffill));
  const [verifyCC, verifySecp] = bestOfInterleaved([
    () => void verifyFulfillment(ffill, condBin, msg, ACCEPT_EVALS),
    () => void verifyCompact(sig, msg, pub),
  ]) as [number, number];
  const fingerprintBase = opsPerSecond(() => void sha256(condBin));
  return [
    { name: 'condition encode (MakeCCcond1 → binary)', value: encode, unit: 'ops/s', limitName: 'bare sha256 of the condition bytes', limit: fingerprintBase },
    { name: 'condition decode (binary → tree)', value: decode, unit: 'ops/s', limitName: 'bare sha256 of the condition bytes', limit: fingerprintBase },
    { name: 'fulfillment decode', value: ffDecode, unit: 'ops/s', limitName: 'bare sha256 of the condition bytes', limit: fingerprintBase },
    { name: 'CC spend verification (1-of-1 + eval)', value: verifyCC, unit: 'ops/s', limitName: 'plain secp256k1 verify (compact)', limit: verifySecp, target: { kind: 'min', ratio: 0.8 } },
  ];
}
