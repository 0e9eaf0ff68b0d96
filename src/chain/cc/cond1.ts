import { sha256 } from '../crypto/hash.js';
import { pushData } from '../script/script.js';
import { makeCCcond1, secp256k1Node, thresholdNode } from './builders.js';
import { conditionBinary, fingerprint, fingerprintContents } from './condition.js';

/**
 * MakeCCcond1(ev, pk) = 2 of { eval(ev), 1 of { secp256k1(pk) } } for many keys at once. A node's
 * fingerprint contents hold each child's condition binary, and those differ between keys only in the
 * child's own fingerprint (costs and subtypes do not depend on the key). So each level is a template
 * with one 32-byte hole: per key, one SHA-256 per level and per eval code, instead of building the
 * whole condition (about 40 µs) per eval code. A wallet recognises its CC outputs by fingerprint.
 */

const OP_CHECKCRYPTOCONDITION = 0xcc;
const SAMPLE_KEY = Uint8Array.of(2, ...new Uint8Array(32).fill(7));

/** Where `part` sits in `whole` (a template's hole). */
function locate(part: Uint8Array, whole: Uint8Array): number {
  for (let at = 0; at + part.length <= whole.length; at++) if (part.every((b, i) => whole[at + i] === b)) return at;
  throw new Error('cond1: template hole not found');
}

interface Template {
  bytes: Uint8Array;
  at: number;
}

function template(bytes: Uint8Array, hole: Uint8Array): Template {
  return { bytes, at: locate(hole, bytes) };
}

/** sha256 of the template with `fill` in its hole. */
function hashFilled(t: Template, fill: Uint8Array): Uint8Array {
  const b = t.bytes.slice();
  b.set(fill, t.at);
  return sha256(b);
}

const sampleSecp = secp256k1Node(SAMPLE_KEY);
const sampleInner = thresholdNode(1, [sampleSecp]);
/** secp256k1(pk)'s contents (the key in the hole), then 1 of { secp256k1 }'s (its fingerprint in the hole). */
const secpContents = template(fingerprintContents(sampleSecp), SAMPLE_KEY);
const innerContents = template(fingerprintContents(sampleInner), fingerprint(sampleSecp));
/** Per eval code, MakeCCcond1's contents with the inner threshold's fingerprint in the hole. */
const outerContents = new Map<number, Template>();

function outerTemplate(evalCode: number): Template {
  let t = outerContents.get(evalCode);
  if (!t) outerContents.set(evalCode, (t = template(fingerprintContents(makeCCcond1(evalCode, SAMPLE_KEY)), fingerprint(sampleInner))));
  return t;
}

/** The fingerprint of MakeCCcond1(ev, pk) (a 33-byte key) for each of `evalCodes`. */
export function cond1Fingerprints(pk: Uint8Array, evalCodes: readonly number[]): Uint8Array[] {
  if (pk.length !== 33) throw new Error('cond1: a 33-byte compressed public key is needed');
  const inner = hashFilled(innerContents, hashFilled(secpContents, pk));
  return evalCodes.map((ev) => hashFilled(outerTemplate(ev), inner));
}

/** A CC 1-of-1 sub-script (the condition's push, OP_CHECKCRYPTOCONDITION) of the sample key, with its fingerprint's place. */
const subScript = (() => {
  const node = makeCCcond1(0xf2, SAMPLE_KEY);
  return template(Uint8Array.of(...pushData(conditionBinary(node)), OP_CHECKCRYPTOCONDITION), fingerprint(node));
})();

/**
 * The fingerprint a CC sub-script carries when it has MakeCCcond1's shape (any key, any eval code),
 * else null. It is a view into `ccSubScript`.
 */
export function cond1FingerprintOf(ccSubScript: Uint8Array): Uint8Array | null {
  const { bytes, at } = subScript;
  if (ccSubScript.length !== bytes.length) return null;
  for (let i = 0; i < bytes.length; i++) {
    if ((i < at || i >= at + 32) && ccSubScript[i] !== bytes[i]) return null;
  }
  return ccSubScript.subarray(at, at + 32);
}

/** The CC 1-of-1 sub-script (condition push, OP_CHECKCRYPTOCONDITION) with this fingerprint. */
export function cond1SubScript(fp: Uint8Array): Uint8Array {
  const b = subScript.bytes.slice();
  b.set(fp, subScript.at);
  return b;
}
