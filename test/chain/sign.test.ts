import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { hash160, sha256, sha256d } from '../../src/chain/crypto/hash.js';
import { signDER } from '../../src/chain/crypto/secp256k1.js';
import { decodeWIF } from '../../src/chain/address/wif.js';
import { isLowS, publicKeyFromPrivate, verifyDER } from '../../src/chain/crypto/secp256k1.js';
import { equalBytes, fromHex, toHex } from '../../src/chain/encoding/hex.js';
import { TransactionSignatureChecker } from '../../src/chain/script/checker.js';
import { SCRIPT_VERIFY_P2SH, STANDARD_SCRIPT_VERIFY_FLAGS } from '../../src/chain/script/flags.js';
import { verifyScript } from '../../src/chain/script/interpreter.js';
import { OP_CHECKLOCKTIMEVERIFY, OP_CHECKMULTISIG, OP_DROP } from '../../src/chain/script/opcodes.js';
import { concatScript, p2pkhScript, p2pkScript, p2shScript, parseScript, pushData, pushNumber } from '../../src/chain/script/script.js';
import {
  PrecomputedTxData,
  SIGHASH_ALL,
  SIGHASH_ANYONECANPAY,
  SIGHASH_NONE,
  SIGHASH_SINGLE,
  signatureHash,
} from '../../src/chain/script/sighash.js';
import { combineSignatures, produceScriptSig, signatureFor, type KeyLookup, type SigningKey } from '../../src/chain/script/sign.js';
import { OVERWINTER_BRANCH_ID, SAPLING_BRANCH_ID, SPROUT_BRANCH_ID } from '../../src/chain/consensus/upgrades.js';

const enc = new TextEncoder();
const keys = ['a', 'b', 'c', 'd'].map((l) => sha256(enc.encode(`acnode sign test key ${l}`)));
const pubs = keys.map((k) => publicKeyFromPrivate(k, true));
const uncompressedPub = publicKeyFromPrivate(keys[3]!, false);

/** A key store over the given key indexes, by key id, as CBasicKeyStore (key 3 held uncompressed). */
function store(indexes: number[]): KeyLookup {
  const map = new Map<string, SigningKey>();
  for (const i of indexes) {
    const compressed = i !== 3;
    map.set(toHex(hash160(publicKeyFromPrivate(keys[i]!, compressed))), { key: keys[i]!, compressed });
  }
  return (id) => map.get(toHex(id));
}

const multisig = concatScript(pushNumber(2), pushData(pubs[0]!), pushData(pubs[1]!), pushData(pubs[2]!), pushNumber(3), OP_CHECKMULTISIG);
const scripts = (h: Uint8Array) => (equalBytes(h, hash160(multisig)) ? multisig : undefined);

interface Prev {
  name: string;
  script: Uint8Array;
  amount: bigint;
}
const prevs: Prev[] = [
  { name: 'P2PKH', script: p2pkhScript(hash160(pubs[0]!)), amount: 1_0000_0000n },
  { name: 'P2PKH (uncompressed key)', script: p2pkhScript(hash160(uncompressedPub)), amount: 2_5000_0000n },
  { name: 'P2PK', script: p2pkScript(pubs[1]!), amount: 7777n },
  { name: 'bare multisig 2-of-3', script: multisig, amount: 5_0000_0000n },
  { name: 'P2SH multisig 2-of-3', script: p2shScript(hash160(multisig)), amount: 12_345n },
];

type Format = 'v1' | 'v3' | 'v4';
const branchFor: Record<Format, number> = { v1: SPROUT_BRANCH_ID, v3: OVERWINTER_BRANCH_ID, v4: SAPLING_BRANCH_ID };

function spendingTx(format: Format): Transaction {
  const tx = new Transaction();
  if (format !== 'v1') {
    tx.overwintered = true;
    tx.version = format === 'v3' ? 3 : 4;
    tx.versionGroupId = format === 'v3' ? 0x03c48270 : 0x892f2085;
    tx.expiryHeight = 300;
  }
  prevs.forEach((_, i) => tx.vin.push(new TxIn(new Outpoint(sha256(Uint8Array.of(i)), i), new Uint8Array(0), 0xfffffffe)));
  for (let i = 0; i < prevs.length; i++) tx.vout.push(new TxOut(1000n + BigInt(i), p2pkhScript(hash160(pubs[i % 3]!))));
  tx.lockTime = 100;
  return tx;
}

function verifies(tx: Transaction, nIn: number, branchId: number, flags = STANDARD_SCRIPT_VERIFY_FLAGS): boolean {
  const checker = new TransactionSignatureChecker(tx, nIn, prevs[nIn]!.amount, branchId);
  return verifyScript(tx.vin[nIn]!.scriptSig, prevs[nIn]!.script, flags, checker).ok;
}

for (const format of ['v1', 'v3', 'v4'] as const) {
  test(`${format}: every input type signs completely and verifies with the interpreter`, () => {
    const tx = spendingTx(format);
    const branchId = branchFor[format];
    const cache = new PrecomputedTxData(tx);
    for (let nIn = 0; nIn < prevs.length; nIn++) {
      const ctx = { tx, nIn, amount: prevs[nIn]!.amount, branchId, hashType: SIGHASH_ALL, keys: store([0, 1, 2, 3]), scripts, cache };
      const r = produceScriptSig(prevs[nIn]!.script, ctx);
      assert.equal(r.complete, true, prevs[nIn]!.name);
      tx.vin[nIn]!.scriptSig = r.scriptSig;
      // The same bytes without the cache, and again (RFC 6979: deterministic).
      assert.deepEqual(produceScriptSig(prevs[nIn]!.script, { ...ctx, cache: undefined }).scriptSig, r.scriptSig);
    }
    for (let nIn = 0; nIn < prevs.length; nIn++) assert.ok(verifies(tx, nIn, branchId), prevs[nIn]!.name);

    // Script shapes komodod produces: <sig> <pubkey>, <sig>, OP_0 <sig> <sig>, OP_0 <sig> <sig> <redeem>.
    const shape = (s: Uint8Array) => parseScript(s).ops.map((o) => (o.op === 0 ? 'OP_0' : (o.data?.length ?? -1)));
    assert.deepEqual(shape(tx.vin[0]!.scriptSig).slice(1), [33]);
    assert.deepEqual(shape(tx.vin[1]!.scriptSig).slice(1), [65]);
    assert.equal(shape(tx.vin[2]!.scriptSig).length, 1);
    assert.equal(shape(tx.vin[3]!.scriptSig)[0], 'OP_0');
    assert.equal(shape(tx.vin[3]!.scriptSig).length, 3);
    assert.deepEqual(shape(tx.vin[4]!.scriptSig).at(-1), multisig.length);

    // A signature is bound to its transaction format and branch: another branch id fails.
    if (format !== 'v1') assert.equal(verifies(tx, 0, format === 'v3' ? SAPLING_BRANCH_ID : OVERWINTER_BRANCH_ID), false);
    // And to the amount (ZIP-143/243), which legacy hashes do not cover.
    const other = new TransactionSignatureChecker(tx, 0, prevs[0]!.amount + 1n, branchId);
    assert.equal(verifyScript(tx.vin[0]!.scriptSig, prevs[0]!.script, STANDARD_SCRIPT_VERIFY_FLAGS, other).ok, format === 'v1');
  });
}

test('multisig 2-of-3: partial signatures, then combined into a complete one (bare and P2SH)', () => {
  for (const format of ['v1', 'v4'] as const) {
    const tx = spendingTx(format);
    const branchId = branchFor[format];
    for (const nIn of [3, 4]) {
      const base = { tx, nIn, amount: prevs[nIn]!.amount, branchId, hashType: SIGHASH_ALL, scripts };
      const partA = produceScriptSig(prevs[nIn]!.script, { ...base, keys: store([0]) });
      const partC = produceScriptSig(prevs[nIn]!.script, { ...base, keys: store([2]) });
      assert.equal(partA.complete, false);
      assert.equal(partC.complete, false);
      tx.vin[nIn]!.scriptSig = partA.scriptSig;
      assert.equal(verifies(tx, nIn, branchId), false);

      const checker = new TransactionSignatureChecker(tx, nIn, prevs[nIn]!.amount, branchId);
      const merged = combineSignatures(prevs[nIn]!.script, checker, partC.scriptSig, partA.scriptSig);
      tx.vin[nIn]!.scriptSig = merged;
      assert.ok(verifies(tx, nIn, branchId), `${format} input ${nIn}`);
      // Signatures come out in key order (A before C), whatever order the partial scripts came in.
      const full = produceScriptSig(prevs[nIn]!.script, { ...base, keys: store([0, 2]) });
      assert.equal(full.complete, true);
      assert.deepEqual(merged, full.scriptSig);

      // With an empty scriptSig: bare multisig keeps the signature and fills a placeholder OP_0;
      // P2SH returns the non-empty side unchanged (sign.cpp CombineSignatures, TX_SCRIPTHASH).
      const one = combineSignatures(prevs[nIn]!.script, checker, partA.scriptSig, new Uint8Array(0));
      if (nIn === 3) assert.equal(parseScript(one).ops.filter((o) => o.op === 0).length, 2, 'dummy and one placeholder');
      else assert.deepEqual(one, partA.scriptSig);
    }
  }
});

test('signatureFor: deterministic low-S DER plus the hash-type byte, over the full 32-bit hash type', () => {
  const tx = spendingTx('v4');
  const scriptCode = prevs[0]!.script;
  for (const hashType of [SIGHASH_ALL, SIGHASH_NONE, SIGHASH_SINGLE | SIGHASH_ANYONECANPAY, 0x7fffff01]) {
    const a = signatureFor(tx, 0, scriptCode, prevs[0]!.amount, SAPLING_BRANCH_ID, keys[0]!, hashType);
    const b = signatureFor(tx, 0, scriptCode, prevs[0]!.amount, SAPLING_BRANCH_ID, keys[0]!, hashType, new PrecomputedTxData(tx));
    assert.deepEqual(a, b);
    assert.equal(a[a.length - 1], hashType & 0xff);
    const der = a.subarray(0, -1);
    assert.ok(isLowS(der));
    const digest = signatureHash(scriptCode, tx, 0, hashType, prevs[0]!.amount, SAPLING_BRANCH_ID);
    assert.ok(verifyDER(der, digest, pubs[0]!, true));
  }
});

test('ANYONECANPAY|SINGLE signs and verifies; legacy SINGLE without its output cannot sign', () => {
  const tx = spendingTx('v1');
  tx.vout.length = 2;
  const ctx = { tx, nIn: 0, amount: prevs[0]!.amount, branchId: 0, hashType: SIGHASH_SINGLE | SIGHASH_ANYONECANPAY, keys: store([0, 1]) };
  const ok = produceScriptSig(prevs[0]!.script, ctx);
  assert.equal(ok.complete, true);
  tx.vin[0]!.scriptSig = ok.scriptSig;
  assert.ok(verifies(tx, 0, 0));
  // Input 2 (P2PK) has no output 2: komodod's SignatureHash throws, CreateSig fails.
  const none = produceScriptSig(prevs[2]!.script, { ...ctx, nIn: 2, amount: prevs[2]!.amount, hashType: SIGHASH_SINGLE });
  assert.equal(none.complete, false);
  assert.equal(none.scriptSig.length, 0);
});

test('missing keys or redeem scripts leave the input unsolved', () => {
  const tx = spendingTx('v4');
  const base = { tx, branchId: SAPLING_BRANCH_ID, hashType: SIGHASH_ALL };
  assert.deepEqual(produceScriptSig(prevs[0]!.script, { ...base, nIn: 0, amount: prevs[0]!.amount, keys: store([1]) }), {
    scriptSig: new Uint8Array(0),
    complete: false,
  });
  // P2SH without the redeem script: nothing to push.
  const p2sh = produceScriptSig(prevs[4]!.script, { ...base, nIn: 4, amount: prevs[4]!.amount, keys: store([0, 1, 2]) });
  assert.equal(p2sh.complete, false);
  assert.equal(p2sh.scriptSig.length, 0);
  // OP_RETURN and nonstandard scripts are never signed.
  assert.equal(produceScriptSig(Uint8Array.of(0x6a, 0x01, 0x01), { ...base, nIn: 0, amount: 0n, keys: store([0]) }).complete, false);
});

test('a CLTV-prefixed P2PKH is solved by the script after the prefix and verifies', () => {
  const tx = spendingTx('v4');
  const script = concatScript(pushNumber(50), OP_CHECKLOCKTIMEVERIFY, OP_DROP, p2pkhScript(hash160(pubs[0]!)));
  const r = produceScriptSig(script, { tx, nIn: 0, amount: 1n, branchId: SAPLING_BRANCH_ID, hashType: SIGHASH_ALL, keys: store([0]) });
  assert.equal(r.complete, true);
  const checker = new TransactionSignatureChecker(tx, 0, 1n, SAPLING_BRANCH_ID);
  assert.ok(verifyScript(r.scriptSig, script, STANDARD_SCRIPT_VERIFY_FLAGS, checker).ok);
  // Lock time in the future of the transaction's: the interpreter refuses it (and so does produceScriptSig).
  tx.lockTime = 10;
  const early = produceScriptSig(script, { tx, nIn: 0, amount: 1n, branchId: SAPLING_BRANCH_ID, hashType: SIGHASH_ALL, keys: store([0]) });
  assert.equal(early.complete, false);
  assert.equal(verifyScript(early.scriptSig, script, SCRIPT_VERIFY_P2SH, new TransactionSignatureChecker(tx, 0, 1n, SAPLING_BRANCH_ID)).ok, true);
});

test('komodod key_tests.cpp: CKey::Sign deterministic signatures (the ECDSA under signatureFor)', () => {
  const digest = sha256d(enc.encode('Very deterministic message'));
  const cases: [string, string][] = [
    ['5HxWvvfubhXpYYpS3tJkw6fq9jE9j18THftkZjHHfmFiWtmAbrj', '304402205dbbddda71772d95ce91cd2d14b592cfbc1dd0aabd6a394b6c2d377bbe59d31d022014ddda21494a4e221f0824f0b8b924c43fa43c0ad57dccdaa11f81a6bd4582f6'],
    ['5KC4ejrDjv152FGwP386VD1i2NYc5KkfSMyv1nGy1VGDxGHqVY3', '3044022052d8a32079c11e79db95af63bb9600c5b04f21a9ca33dc129c2bfa8ac9dc1cd5022061d8ae5e0f6c1a16bde3719c64c2fd70e404b6428ab9a69566962e8771b5944d'],
  ];
  for (const [wif, sig] of cases) {
    const k = decodeWIF(wif, 128)!;
    assert.deepEqual(signDER(digest, k.key), fromHex(sig));
  }
});
