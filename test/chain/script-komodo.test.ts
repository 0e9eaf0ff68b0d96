import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { hash160 } from '../../src/chain/crypto/hash.js';
import { publicKeyFromPrivate, signDER } from '../../src/chain/crypto/secp256k1.js';
import { concatBytes, fromHex } from '../../src/chain/encoding/hex.js';
import { verifyScript } from '../../src/chain/script/interpreter.js';
import { TransactionSignatureChecker, type CryptoConditionChecker } from '../../src/chain/script/checker.js';
import { scriptErrorString } from '../../src/chain/script/script-error.js';
import { signatureHash } from '../../src/chain/script/sighash.js';
import * as F from '../../src/chain/script/flags.js';
import * as op from '../../src/chain/script/opcodes.js';
import { concatScript, p2pkhScript, pushData } from '../../src/chain/script/script.js';

function txWith(lockTime = 0, sequence = 0xffffffff, nOut = 1): Transaction {
  const tx = new Transaction();
  tx.lockTime = lockTime;
  tx.vin.push(new TxIn(new Outpoint(new Uint8Array(32).fill(1), 0), new Uint8Array(0), sequence));
  tx.vin.push(new TxIn(new Outpoint(new Uint8Array(32).fill(2), 1), new Uint8Array(0), sequence));
  for (let i = 0; i < nOut; i++) tx.vout.push(new TxOut(1000n, new Uint8Array(0)));
  return tx;
}

test('scriptErrorString: komodod texts, "unknown error" where script_error.cpp has none', () => {
  assert.equal(scriptErrorString('SCRIPT_ERR_OK'), 'No error');
  assert.equal(
    scriptErrorString('SCRIPT_ERR_EVAL_FALSE'),
    'Script evaluated without error but finished with a false/empty top stack element',
  );
  assert.equal(scriptErrorString('SCRIPT_ERR_CRYPTOCONDITION_INVALID_FULFILLMENT'), 'Crypto-Condition payload is invalid');
  assert.equal(scriptErrorString('SCRIPT_ERR_CLEANSTACK'), 'unknown error');
  assert.equal(scriptErrorString('SCRIPT_ERR_CRYPTOCONDITION_VERIFY'), 'unknown error');
  assert.equal(scriptErrorString('SCRIPT_ERR_UNKNOWN_ERROR'), 'unknown error');
});

test('standard and mandatory flags (standard.h)', () => {
  assert.equal(F.MANDATORY_SCRIPT_VERIFY_FLAGS, F.SCRIPT_VERIFY_P2SH);
  assert.equal(F.STANDARD_SCRIPT_VERIFY_FLAGS, 0x1 | 0x2 | 0x8 | 0x10 | 0x40 | 0x80 | 0x100 | 0x200);
});

test('P2PKH spend signed with the legacy sighash verifies under standard flags; a wrong key does not', () => {
  const key = new Uint8Array(32).fill(0x42);
  const pub = publicKeyFromPrivate(key);
  const spk = p2pkhScript(hash160(pub));
  const tx = txWith();
  const digest = signatureHash(spk, tx, 0, 1, 0n, 0);
  const sig = concatBytes(signDER(digest, key), Uint8Array.of(1));
  const scriptSig = concatScript(pushData(sig), pushData(pub));
  tx.vin[0]!.scriptSig = scriptSig;
  const checker = new TransactionSignatureChecker(tx, 0, 0n, 0);
  assert.deepEqual(verifyScript(scriptSig, spk, F.STANDARD_SCRIPT_VERIFY_FLAGS, checker), { ok: true });
  // Same signature for input 1: the sighash differs.
  const other = new TransactionSignatureChecker(tx, 1, 0n, 0);
  assert.deepEqual(verifyScript(scriptSig, spk, F.STANDARD_SCRIPT_VERIFY_FLAGS, other), { ok: false, error: 'SCRIPT_ERR_EVAL_FALSE' });
  // Legacy SIGHASH_SINGLE with nIn >= #outputs: komodod's SignatureHash throws, CheckSig answers false.
  const single = concatBytes(sig.subarray(0, sig.length - 1), Uint8Array.of(3));
  const tx0 = txWith(0, 0xffffffff, 0);
  assert.equal(new TransactionSignatureChecker(tx0, 1, 0n, 0).checkSig(single, pub, spk), false);
});

test('strict DER always; LOW_S failure reports SCRIPT_ERR_UNKNOWN_ERROR (IsLowDERSignature sets no error)', () => {
  const pub = publicKeyFromPrivate(new Uint8Array(32).fill(7));
  const spk = concatScript(pushData(pub), op.OP_CHECKSIG);
  const checker = new TransactionSignatureChecker(txWith(), 0, 0n, 0);
  // r = 1, s = n - 1 (high S), hash type ALL.
  const highS = fromHex('3026020101022100fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd036414001');
  assert.deepEqual(verifyScript(pushData(highS), spk, F.SCRIPT_VERIFY_LOW_S, checker), { ok: false, error: 'SCRIPT_ERR_UNKNOWN_ERROR' });
  assert.deepEqual(verifyScript(pushData(highS), spk, 0, checker), { ok: false, error: 'SCRIPT_ERR_EVAL_FALSE' });
  // R with a superfluous leading zero: not strict DER, rejected with no flags at all.
  const padded = fromHex('302702020001022100fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd036414001');
  assert.deepEqual(verifyScript(pushData(padded), spk, 0, checker), { ok: false, error: 'SCRIPT_ERR_SIG_DER' });
});

test('OP_CODESEPARATOR is disabled, even in an unexecuted branch', () => {
  const checker = new TransactionSignatureChecker(txWith(), 0, 0n, 0);
  const spk = concatScript(op.OP_0, op.OP_IF, op.OP_CODESEPARATOR, op.OP_ENDIF, op.OP_1);
  assert.deepEqual(verifyScript(new Uint8Array(0), spk, 0, checker), { ok: false, error: 'SCRIPT_ERR_DISABLED_OPCODE' });
});

test('checkLockTime as TransactionSignatureChecker::CheckLockTime', () => {
  const c = (lt: number, seq: number) => new TransactionSignatureChecker(txWith(lt, seq), 0, 0n, 0);
  assert.equal(c(100, 0).checkLockTime(100n), true);
  assert.equal(c(100, 0).checkLockTime(101n), false);
  assert.equal(c(100, 0).checkLockTime(500000000n), false);
  assert.equal(c(500000005, 0).checkLockTime(500000000n), true);
  assert.equal(c(500000005, 0).checkLockTime(100n), false);
  assert.equal(c(100, 0xffffffff).checkLockTime(50n), false);
  // Through the interpreter: NOP2 is CLTV only with the flag.
  const spk = concatScript(pushData(fromHex('64')), op.OP_CHECKLOCKTIMEVERIFY, op.OP_DROP, op.OP_1);
  assert.deepEqual(verifyScript(new Uint8Array(0), spk, F.SCRIPT_VERIFY_CHECKLOCKTIMEVERIFY, c(100, 0)), { ok: true });
  assert.deepEqual(verifyScript(new Uint8Array(0), spk, F.SCRIPT_VERIFY_CHECKLOCKTIMEVERIFY, c(99, 0)), {
    ok: false,
    error: 'SCRIPT_ERR_UNSATISFIED_LOCKTIME',
  });
  assert.deepEqual(verifyScript(new Uint8Array(0), spk, 0, c(99, 0)), { ok: true });
});

test('OP_CHECKCRYPTOCONDITION: arguments, results and the CC scriptSig rule (interpreter.cpp)', () => {
  const cond = new Uint8Array(46).fill(0xa2);
  const ffill = concatBytes(new Uint8Array(120).fill(0xa2), Uint8Array.of(1));
  const ccSpk = concatScript(pushData(cond), op.OP_CHECKCRYPTOCONDITION);
  const ccSpkData = concatScript(ccSpk, pushData(fromHex('0401f20101')), op.OP_DROP);
  const seen: Uint8Array[][] = [];
  let answer: boolean | -1 = true;
  const ccChecker: CryptoConditionChecker = (f, c, code) => {
    seen.push([f, c, code]);
    return answer;
  };
  const checker = new TransactionSignatureChecker(txWith(), 0, 5000n, 0x76b809bb, undefined, { ccChecker });
  const on = { ccEnabled: true };
  const sig = pushData(ffill);

  assert.deepEqual(verifyScript(sig, ccSpkData, F.STANDARD_SCRIPT_VERIFY_FLAGS, checker, on), { ok: true });
  assert.deepEqual(seen[0], [ffill, cond, ccSpkData]);
  answer = false;
  assert.deepEqual(verifyScript(sig, ccSpk, 0, checker, on), { ok: false, error: 'SCRIPT_ERR_EVAL_FALSE' });
  answer = -1;
  assert.deepEqual(verifyScript(sig, ccSpk, 0, checker, on), { ok: false, error: 'SCRIPT_ERR_CRYPTOCONDITION_INVALID_FULFILLMENT' });
  answer = false;
  const verifySpk = concatScript(pushData(cond), op.OP_CHECKCRYPTOCONDITIONVERIFY, op.OP_1);
  assert.deepEqual(verifyScript(sig, verifySpk, 0, checker, on), { ok: false, error: 'SCRIPT_ERR_CRYPTOCONDITION_VERIFY' });

  answer = true;
  // The CC scriptSig is one push (OP_PUSHDATA4 at most, not OP_0) of at most 2048 bytes, nothing else.
  assert.deepEqual(verifyScript(concatScript(sig, op.OP_1), ccSpk, 0, checker, on), { ok: false, error: 'SCRIPT_ERR_INVALID_STACK_OPERATION' });
  assert.deepEqual(verifyScript(Uint8Array.of(op.OP_0), ccSpk, 0, checker, on), { ok: false, error: 'SCRIPT_ERR_INVALID_STACK_OPERATION' });
  assert.deepEqual(verifyScript(Uint8Array.of(op.OP_1), ccSpk, 0, checker, on), { ok: false, error: 'SCRIPT_ERR_INVALID_STACK_OPERATION' });
  assert.deepEqual(verifyScript(new Uint8Array(0), ccSpk, 0, checker, on), { ok: false, error: 'SCRIPT_ERR_BAD_OPCODE' });
  assert.deepEqual(verifyScript(pushData(new Uint8Array(2049)), ccSpk, 0, checker, on), { ok: false, error: 'SCRIPT_ERR_PUSH_SIZE' });
  // Larger than the 520-byte element limit is fine for a fulfillment.
  assert.deepEqual(verifyScript(pushData(new Uint8Array(2048).fill(1)), ccSpk, 0, checker, on), { ok: true });

  // CC disabled (-ac_cc=0): 0xcc is a bad opcode.
  assert.deepEqual(verifyScript(sig, ccSpk, 0, checker), { ok: false, error: 'SCRIPT_ERR_BAD_OPCODE' });
  // No crypto-conditions verifier supplied: false.
  const bare = new TransactionSignatureChecker(txWith(), 0, 5000n, 0);
  assert.deepEqual(verifyScript(sig, ccSpk, 0, bare, on), { ok: false, error: 'SCRIPT_ERR_EVAL_FALSE' });
});
