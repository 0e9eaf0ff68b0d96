import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fromHex, toHex, concatBytes } from '../../src/chain/encoding/hex.js';
import { DecodeError } from '../../src/chain/encoding/errors.js';
import { signCompact } from '../../src/chain/crypto/secp256k1.js';
import {
  ACCEPT_EVALS, conditionBinary, decodeFulfillment, decodeCondition, fulfillmentBinary, verifyFulfillment,
  makeCCcond1, makeCCcond1of2, makeTokensCCcond1, ccScriptPubKey, ccOptParams, makeCC1voutScript, dispatchEval,
  VALID, invalid, type EvalValidator, isSignedCondition, isSupportedCondition, cloneTree, signTreeSecp256k1,
  conditionUri, cost,
} from '../../src/chain/cc/index.js';
import { loadVector, needVectors } from '../helpers/vectors.js';
import { readTlv, tlv as derTlv } from '../../src/chain/cc/der.js';

/** A DER definite length, written independently of der.ts (the oracle for its tlv). */
function encodeLength(n: number): Uint8Array {
  if (n < 0x80) return Uint8Array.of(n);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Uint8Array.of(0x80 | bytes.length, ...bytes);
}
import { CURVE_ORDER } from '../../src/chain/crypto/secp256k1.js';

/** DER TLV with a definite length (test-side builder for hand-made malformed inputs). */
function tlv(tag: number, ...content: Uint8Array[]): Uint8Array {
  const body = concatBytes(...content);
  const n = body.length;
  const len = n < 128 ? [n] : n < 256 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return concatBytes(Uint8Array.of(tag, ...len), body);
}

const PK1 = fromHex('031b84c5567b126440995d3ed5aaba0565d71e1834604819ff9c17f5e9d5dd078f'); // key 01*32 (sheet §2.3)
const K1 = new Uint8Array(32).fill(1);
const K2 = new Uint8Array(32).fill(2);
const PK2 = fromHex('024d4b6cd1361032ca9bd2aeb9d900aa4d45d9ead80ac9423374c451a7254d0766');
const MSG = fromHex('97493baa2de65d0bcc7a46af19e3f4a4baca07d1eb768d18edc53538780c0e65');

test('reference sheet worked examples (cryptoconditions.md §1.2, §2.3; tokens.md §3.3)', () => {
  const c1 = makeCCcond1(0xe4, PK1);
  assert.equal(toHex(conditionBinary(c1)), 'a22c8020ed2ea2a2f016d895137e282e6b5874628d53ed45c0f32906de011af0ff89d1f58103120c008203000401');
  assert.equal(conditionUri(c1), 'ni:///sha-256;7S6iovAW2JUTfigua1h0Yo1T7UXA8ykG3gEa8P-J0fU?fpt=threshold-sha-256&cost=1182720&subtypes=secp256k1-sha-256,eval-sha-256');
  assert.equal(cost(makeCCcond1of2(0xe4, PK1, PK2)), 1183744n);
  assert.equal(cost(makeTokensCCcond1(0xe3, PK1)), 2232320n);
  const qa = fromHex('02676d00110c2cd14ae24f95969e8598f7ccfaa675498b82654a5b5bd57fc1d8cf');
  assert.equal(toHex(conditionBinary(makeCCcond1(0xf2, qa))), 'a22c8020e9164aeff3fb29fc6782d3bba2ab680cc02799cb50c48ced7423e1d8db1203fc8103120c008203000401');
  // tokens.md §3.3: child order does not matter; MakeTokensCCcond1(f2, 0, pk) == MakeCCcond1(f2, pk).
  assert.deepEqual(conditionBinary(makeTokensCCcond1(0xf2, 0, qa)), conditionBinary(makeCCcond1(0xf2, qa)));
  assert.deepEqual(conditionBinary(makeTokensCCcond1(0xf2, 0xe3, qa)), conditionBinary(makeTokensCCcond1(0xe3, qa)));
  assert.deepEqual(conditionBinary(makeCCcond1of2(0xe4, PK1, PK2)), conditionBinary(makeCCcond1of2(0xe4, PK2, PK1)));
});

test('cryptoconditions.md §4.1: MakeCC1vout with vData gives `<params> OP_DROP` (hempcoin_notes.txt:54 form)', () => {
  const opret = fromHex('6a22f046' + '00'.repeat(32));
  const params = ccOptParams(0xf0, 1, 1, [], [opret]);
  assert.equal(toHex(params.subarray(0, 6)), '0401f0010124');
  const script = makeCC1voutScript(0xf0, PK1, [opret]);
  assert.deepEqual(script, concatBytes(ccScriptPubKey(makeCCcond1(0xf0, PK1)), Uint8Array.of(params.length), params, Uint8Array.of(0x75)));
});

function oneOfTwoSignedByK2(): Uint8Array {
  const t = cloneTree(makeCCcond1of2(0xe4, PK1, PK2));
  assert.equal(signTreeSecp256k1(t, K2, MSG), 1);
  return fulfillmentBinary(t);
}

/** Replaces the single anon secp256k1 condition inside the 1-of-2 fulfillment and fixes the lengths. */
function with1of2Anon(anon: Uint8Array): Uint8Array {
  // Rebuild by hand: outer { a0 { inner { a0 {secp ffill} a1 {anon} }, eval }, a1 {} }.
  const ffill = oneOfTwoSignedByK2();
  const secpStart = toHex(ffill).indexOf('a5658021') / 2;
  const secp = ffill.subarray(secpStart, secpStart + 0x67);
  const inner = tlv(0xa2, tlv(0xa0, secp), tlv(0xa1, anon));
  const evalF = fromHex('af038001e4');
  return tlv(0xa2, tlv(0xa0, inner, evalF), tlv(0xa1));
}

test('quirks Q1/Q2/Q3 and SET OF order (cryptoconditions.md §3.3), checked against komodod behaviour', () => {
  const cond = conditionBinary(makeCCcond1of2(0xe4, PK1, PK2));
  const good = oneOfTwoSignedByK2();
  const secpFp = fromHex('1bcf0ee19925c515180f0dc3a24a4bcdc8d66abfe3fb59fca02b65332d300022');
  assert.deepEqual(with1of2Anon(tlv(0xa5, tlv(0x80, secpFp), tlv(0x81, fromHex('020000')))), good);
  assert.ok(verifyFulfillment(good, cond, MSG, ACCEPT_EVALS));
  // Q1: a longer anon fingerprint decodes and only its first 32 bytes count.
  const q1 = with1of2Anon(tlv(0xa5, tlv(0x80, secpFp, Uint8Array.of(0xee)), tlv(0x81, fromHex('020000'))));
  assert.ok(verifyFulfillment(q1, cond, MSG, ACCEPT_EVALS));
  // A shorter one is undefined behaviour in C: rejected.
  assert.throws(() => decodeFulfillment(with1of2Anon(tlv(0xa5, tlv(0x80, secpFp.subarray(0, 31)), tlv(0x81, fromHex('020000'))))), DecodeError);
  // Q3: a non-minimal cost fails the re-encoding check.
  assert.throws(() => decodeFulfillment(with1of2Anon(tlv(0xa5, tlv(0x80, secpFp), tlv(0x81, fromHex('00020000'))))), DecodeError);
  // A wrong (but minimal) cost decodes and fails only the condition comparison.
  const wrongCost = with1of2Anon(tlv(0xa5, tlv(0x80, secpFp), tlv(0x81, fromHex('020001'))));
  assert.ok(!verifyFulfillment(wrongCost, cond, MSG, ACCEPT_EVALS));

  // Q2 on an anon threshold: BIT STRING 00 04 00 / 00 04 accepted (mask re-canonicalised), 02 07 rejected.
  // 1 of { eval, anon threshold T }, with T's subtypes BIT STRING varied.
  const innerCond = decodeCondition(fromHex('a22b8020a98bf8c697fcb3f1f43500e951a4331445f998680f327ece0a66f4fd553bbe1c810302040082020204'));
  assert.equal(innerCond.subtypes, 1 << 5);
  const anonT = (bits: string) => tlv(0xa2, tlv(0x80, innerCond.fingerprint), tlv(0x81, fromHex('020400')), tlv(0x82, fromHex(bits)));
  const evalF = fromHex('af038001e4');
  const mk = (bits: string) => tlv(0xa2, tlv(0xa0, evalF), tlv(0xa1, anonT(bits)));
  const canonical = decodeFulfillment(mk('0204'));
  for (const bits of ['000400', '0004']) assert.deepEqual(conditionBinary(decodeFulfillment(mk(bits))), conditionBinary(canonical), bits);
  assert.throws(() => decodeFulfillment(mk('0207')), DecodeError);

  // SET OF members in reverse order fail the re-encoding check.
  const ok = fromHex('a276a072a26ba067a5658021031b84c5567b126440995d3ed5aaba0565d71e1834604819ff9c17f5e9d5dd078f8140' + '11'.repeat(64) + 'a100af038001e4a100');
  decodeFulfillment(ok);
  const swapped = concatBytes(ok.subarray(0, 4), ok.subarray(4 + 0x6d, 4 + 0x72), ok.subarray(4, 4 + 0x6d), ok.subarray(4 + 0x72));
  assert.throws(() => decodeFulfillment(swapped), DecodeError);
  // Trailing bytes after the fulfillment fail it; after the scriptPubKey's condition they are tolerated (memcmp).
  assert.throws(() => decodeFulfillment(concatBytes(good, Uint8Array.of(0))), DecodeError);
  assert.ok(verifyFulfillment(good, concatBytes(cond, fromHex('000102')), MSG, ACCEPT_EVALS));
  assert.ok(!verifyFulfillment(good, cond.subarray(0, cond.length - 1), MSG, ACCEPT_EVALS));
});

test('secp256k1: high-S is rejected (libsecp256k1 verify), an invalid key does not decode', () => {
  const tree = cloneTree(makeCCcond1(0xe4, PK1));
  signTreeSecp256k1(tree, K1, MSG);
  const cond = conditionBinary(tree);
  const ffill = fulfillmentBinary(tree);
  assert.ok(verifyFulfillment(ffill, cond, MSG, ACCEPT_EVALS));
  const sig = signCompact(MSG, K1);
  const s = BigInt('0x' + toHex(sig.subarray(32)));
  const highS = fromHex((CURVE_ORDER - s).toString(16).padStart(64, '0'));
  const hex = toHex(ffill).replace(toHex(sig.subarray(32)), toHex(highS));
  assert.notEqual(hex, toHex(ffill));
  assert.ok(!verifyFulfillment(fromHex(hex), cond, MSG, ACCEPT_EVALS));
  const badKey = toHex(ffill).replace('031b84c5', '051b84c5');
  assert.throws(() => decodeFulfillment(fromHex(badKey)), DecodeError);
});

test('eval dispatch through a registry (Eval::Dispatch / ProcessCC)', () => {
  const tree = cloneTree(makeCCcond1(0xf2, PK1));
  signTreeSecp256k1(tree, K1, MSG);
  const ffill = fulfillmentBinary(tree);
  const cond = conditionBinary(tree);
  const seen: number[] = [];
  const tokens: EvalValidator<string> = (code, params, ctx) => {
    seen.push(code);
    assert.equal(params.length, 0);
    return ctx === 'ok' ? VALID : invalid('tokens says no');
  };
  assert.ok(!verifyFulfillment(ffill, cond, MSG, dispatchEval(new Map(), 'ok')), 'nothing registered: invalid');
  assert.ok(verifyFulfillment(ffill, cond, MSG, dispatchEval(new Map([[0xf2, tokens]]), 'ok')));
  assert.ok(!verifyFulfillment(ffill, cond, MSG, dispatchEval(new Map([[0xf2, tokens]]), 'no')));
  assert.deepEqual(seen, [0xf2, 0xf2]);
  // Dual-eval token condition: both validators run.
  const dual = cloneTree(makeTokensCCcond1(0xe3, PK1));
  signTreeSecp256k1(dual, K1, MSG);
  const calls: number[] = [];
  const rec: EvalValidator<null> = (code) => (calls.push(code), VALID);
  assert.ok(verifyFulfillment(fulfillmentBinary(dual), conditionBinary(dual), MSG, dispatchEval(new Map([[0xe3, rec], [0xf2, rec]]), null)));
  assert.deepEqual(calls.sort(), [0xe3, 0xf2]);
  assert.ok(!verifyFulfillment(fulfillmentBinary(dual), conditionBinary(dual), MSG, dispatchEval(new Map([[0xe3, rec]]), null)));
  // Params on a module eval code are refused before the validator.
  const withParams = cloneTree({ type: 'threshold', threshold: 2, subconditions: [{ type: 'eval', code: Uint8Array.of(0xf2, 1) }, makeCCcond1(0xf2, PK1).subconditions[1]!] });
  signTreeSecp256k1(withParams, K1, MSG);
  assert.ok(!verifyFulfillment(fulfillmentBinary(withParams), conditionBinary(withParams), MSG, dispatchEval(new Map([[0xf2, tokens]]), 'ok')));
});

test('IsSupported / IsSigned (script/cc.cpp)', () => {
  const tree = cloneTree(makeCCcond1(0xe4, PK1));
  assert.ok(isSupportedCondition(tree));
  assert.ok(!isSignedCondition(tree));
  signTreeSecp256k1(tree, K1, MSG);
  assert.ok(isSignedCondition(decodeFulfillment(fulfillmentBinary(tree))));
  const evalOnly = decodeFulfillment(fromHex('af038001e4'));
  assert.ok(!isSupportedCondition(evalOnly));
  assert.ok(!isSignedCondition(evalOnly));
  const prefix = decodeFulfillment(tlv(0xa1, tlv(0x80), tlv(0x81, Uint8Array.of(0)), tlv(0xa2, fulfillmentBinary(tree))));
  assert.ok(!isSupportedCondition(prefix), 'prefix is not an enabled type');
});

test('real CC spend: tokens_88ac2d4d2765 vin 1 spends tokens_e4895451 vout 0 (legacy sighash)', needVectors, async () => {
  const { Transaction } = await import('../../src/chain/tx/transaction.js');
  const { signatureHash } = await import('../../src/chain/script/sighash.js');
  const { checkCryptoCondition, parseCCScript, ccAddress, signCCInput, makeCCChecker } = await import('../../src/chain/cc/index.js');
  const spend = Transaction.fromHex(loadVector<{ hex: string }>('komodo-examples/developer-docs/tokens_88ac2d4d2765.json').hex);
  const prevDoc = loadVector<{ hex: string; decoded: { vout: { scriptPubKey: { addresses?: string[] } }[] } }>('komodo-examples/developer-docs/tokens_e4895451cae4.json');
  const prev = Transaction.fromHex(prevDoc.hex);
  const out = prev.vout[0]!;
  const cc = parseCCScript(out.script);
  assert.ok(cc);
  assert.equal(ccAddress(cc.condition), prevDoc.decoded.vout[0]!.scriptPubKey.addresses![0]);
  const scriptSig = spend.vin[1]!.scriptSig;
  const payload = scriptSig.subarray(2);
  assert.equal(scriptSig[0], 0x4c);
  const hashed: Uint8Array[] = [];
  const checker = {
    sighash(scriptCode: Uint8Array, hashType: number) {
      hashed.push(scriptCode);
      return signatureHash(scriptCode, spend, 1, hashType, out.value, 0);
    },
  };
  assert.equal(checkCryptoCondition(payload, cc.condition, out.script, checker), true);
  assert.deepEqual(hashed[0], ccScriptPubKey(cc.condition));
  assert.equal(makeCCChecker(() => dispatchEval(new Map(), null))(payload, cc.condition, out.script, checker), false, 'no validator');
  const tampered = payload.slice();
  tampered[40]! ^= 1;
  assert.equal(checkCryptoCondition(tampered, cc.condition, out.script, checker), false);
  assert.equal(checkCryptoCondition(payload.subarray(0, 50), cc.condition, out.script, checker), -1);
  assert.equal(checkCryptoCondition(new Uint8Array(0), cc.condition, out.script, checker), false);

  // Our signer on the same input with a toy key: the checker accepts what signCCInput makes.
  const cond = makeCCcond1(0xe3, PK1);
  const signed = signCCInput({ tx: spend, nIn: 1, amount: out.value, branchId: 0, condition: cond, privateKeys: [K2, K1] });
  assert.deepEqual(signed.signedPerKey, [0, 1]);
  assert.equal(toHex(signed.sighash), toHex(signatureHash(ccScriptPubKey(cond), spend, 1, 1, out.value, 0)));
  assert.equal(checkCryptoCondition(signed.scriptSig.subarray(2), conditionBinary(cond), ccScriptPubKey(cond), checker), true);
  assert.throws(() => signCCInput({ tx: spend, nIn: 1, amount: out.value, branchId: 0, condition: cond, privateKeys: [K2] }));
});

test('DER tlv: one allocation, the same bytes as tag + encodeLength + content, short and long forms', () => {
  for (const n of [0, 1, 0x7f, 0x80, 0xff, 0x100, 0x1234, 0xffff, 0x10000]) {
    const body = Uint8Array.from({ length: n }, (_, i) => i & 0xff);
    const want = Uint8Array.from([0xa4, ...encodeLength(n), ...body]);
    assert.deepEqual(derTlv(0xa4, body), want, `length ${n}`);
    // Parts are concatenated in order.
    assert.deepEqual(derTlv(0xa4, body.subarray(0, n >> 1), body.subarray(n >> 1)), want, `length ${n} in two parts`);
    const t = readTlv(want, 0, want.length);
    assert.deepEqual([t.tag, t.end - t.contentStart, t.end], [0xa4, n, want.length]);
  }
});
