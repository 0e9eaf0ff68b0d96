import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hash160 } from '../../src/chain/crypto/hash.js';
import { publicKeyFromPrivate } from '../../src/chain/crypto/secp256k1.js';
import { SAPLING_BRANCH_ID } from '../../src/chain/consensus/upgrades.js';
import { SAPLING_VERSION_GROUP_ID } from '../../src/chain/consensus/tx.js';
import { ChainParams, devChainParams } from '../../src/chain/params/chain-params.js';
import { MANDATORY_SCRIPT_VERIFY_FLAGS, STANDARD_SCRIPT_VERIFY_FLAGS } from '../../src/chain/script/flags.js';
import { concatScript, opReturnScript, p2pkhScript, p2pkScript, pushData } from '../../src/chain/script/script.js';
import { OP_CHECKMULTISIG, OP_DUP, OP_1, OP_2 } from '../../src/chain/script/opcodes.js';
import { SIGHASH_ALL } from '../../src/chain/script/sighash.js';
import { signatureFor } from '../../src/chain/script/sign.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { highSTwin } from '../helpers/signatures.js';
import {
  type Coin,
  type CoinView,
  MissingInputsError,
  REJECT_INVALID,
  REJECT_NONSTANDARD,
  SignatureCache,
  ValidationError,
  absurdFeeLimit,
  areInputsStandard,
  checkAbsurdFee,
  checkInputScripts,
  checkTxInputs,
  isDust,
  isStandardTx,
  minRelayFee,
  validationContext,
} from '../../src/chain/validation/index.js';

function rejects(fn: () => unknown, code: number, reason: string, dos?: number): ValidationError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ValidationError, `expected ValidationError, got ${String(e)}`);
    assert.equal(e.reason, reason);
    assert.equal(e.rejectCode, code);
    if (dos !== undefined) assert.equal(e.dos, dos);
    return e;
  }
  assert.fail(`expected rejection ${code}: ${reason}`);
}

const ctx = validationContext(ChainParams.fromArgs({ ac_name: 'VALTEST', ac_sapling: '1' }));
const key = new Uint8Array(32).fill(7);
const pub = publicKeyFromPrivate(key, true);
const P2PKH = p2pkhScript(hash160(pub));
const PREV = new Uint8Array(32).fill(9);

function view(coins: Record<string, Coin>): CoinView {
  return { coin: (txid, n) => coins[`${txid}:${n}`] };
}

function coinKey(i = 0): string {
  return new Outpoint(PREV, i).key();
}

function spend(value: bigint, outValue: bigint): { tx: Transaction; coins: CoinView; coin: Coin } {
  const tx = new Transaction();
  tx.overwintered = true;
  tx.version = 4;
  tx.versionGroupId = SAPLING_VERSION_GROUP_ID;
  tx.expiryHeight = 300;
  tx.vin = [new TxIn(new Outpoint(PREV, 0), new Uint8Array(0), 0xffffffff)];
  tx.vout = [new TxOut(outValue, P2PKH)];
  const coin: Coin = { value, script: P2PKH, height: 10, coinbase: false, txVersion: 4 };
  const sig = signatureFor(tx, 0, P2PKH, value, SAPLING_BRANCH_ID, key, SIGHASH_ALL);
  tx.vin[0]!.scriptSig = concatScript(pushData(sig), pushData(pub));
  return { tx, coins: view({ [coinKey()]: coin }), coin };
}

test('checkTxInputs returns the fee; missing inputs, maturity, value ranges', () => {
  const { tx, coins, coin } = spend(100_000n, 90_000n);
  assert.equal(checkTxInputs(tx, coins, 20, ctx), 10_000n);

  assert.throws(() => checkTxInputs(tx, view({}), 20, ctx), (e: unknown) => e instanceof MissingInputsError && e.missing[0] === coinKey());

  // Coinbase maturity: 1 on a default asset chain (rawtx.md §7.8); spendHeight − height < maturity.
  assert.equal(ctx.coinbaseMaturity, 1);
  const cb = view({ [coinKey()]: { ...coin, coinbase: true, height: 20 } });
  rejects(() => checkTxInputs(tx, cb, 20, ctx), REJECT_INVALID, 'bad-txns-premature-spend-of-coinbase', 0);
  assert.equal(checkTxInputs(tx, cb, 21, ctx), 10_000n);
  const m100 = validationContext(ChainParams.fromArgs({ ac_name: 'VALTEST', ac_cbmaturity: '100' }));
  rejects(() => checkTxInputs(tx, cb, 119, m100), REJECT_INVALID, 'bad-txns-premature-spend-of-coinbase', 0);
  assert.equal(checkTxInputs(tx, cb, 120, m100), 10_000n);

  rejects(() => checkTxInputs(tx, view({ [coinKey()]: { ...coin, value: ctx.maxMoney + 1n } }), 20, ctx), REJECT_INVALID, 'bad-txns-inputvalues-outofrange', 100);
  rejects(() => checkTxInputs(tx, view({ [coinKey()]: { ...coin, value: -1n } }), 20, ctx), REJECT_INVALID, 'bad-txns-inputvalues-outofrange', 100);
  rejects(() => checkTxInputs(tx, view({ [coinKey()]: { ...coin, value: 89_999n } }), 20, ctx), REJECT_INVALID, 'bad-txns-in-belowout', 100);
  assert.equal(checkTxInputs(tx, view({ [coinKey()]: { ...coin, value: 90_000n } }), 20, ctx), 0n);
});

test('checkInputScripts: signed P2PKH passes with standard and mandatory flags', () => {
  const { tx, coins } = spend(100_000n, 90_000n);
  checkInputScripts(tx, coins, STANDARD_SCRIPT_VERIFY_FLAGS, SAPLING_BRANCH_ID);
  checkInputScripts(tx, coins, MANDATORY_SCRIPT_VERIFY_FLAGS, SAPLING_BRANCH_ID);
  // Signed for another amount: the ZIP-243 hash differs.
  const other = view({ [coinKey()]: { value: 100_001n, script: P2PKH, height: 10, coinbase: false, txVersion: 4 } });
  rejects(
    () => checkInputScripts(tx, other, STANDARD_SCRIPT_VERIFY_FLAGS, SAPLING_BRANCH_ID),
    REJECT_INVALID,
    'mandatory-script-verify-flag-failed (Script evaluated without error but finished with a false/empty top stack element)',
    100,
  );
  assert.throws(() => checkInputScripts(tx, view({}), STANDARD_SCRIPT_VERIFY_FLAGS, SAPLING_BRANCH_ID), MissingInputsError);
});

test('checkInputScripts: a policy-only failure is 64 non-mandatory, a consensus one 16 mandatory', () => {
  const { tx, coins } = spend(100_000n, 90_000n);
  const sig = signatureFor(tx, 0, P2PKH, 100_000n, SAPLING_BRANCH_ID, key, SIGHASH_ALL);
  tx.vin[0]!.scriptSig = concatScript(pushData(highSTwin(sig)), pushData(pub));
  rejects(
    () => checkInputScripts(tx, coins, STANDARD_SCRIPT_VERIFY_FLAGS, SAPLING_BRANCH_ID),
    REJECT_NONSTANDARD,
    // komodod's IsLowDERSignature returns false without setting an error (interpreter.cpp:184-196), so
    // the text is EvalScript's initial SCRIPT_ERR_UNKNOWN_ERROR, not "S value is unnecessarily high".
    'non-mandatory-script-verify-flag (unknown error)',
    0,
  );
  checkInputScripts(tx, coins, MANDATORY_SCRIPT_VERIFY_FLAGS, SAPLING_BRANCH_ID); // LOW_S is policy only

  // A non-DER signature fails whatever the flags (DERSIG is always enforced).
  const bad = sig.slice();
  bad[0] = 0x31;
  tx.vin[0]!.scriptSig = concatScript(pushData(bad), pushData(pub));
  rejects(
    () => checkInputScripts(tx, coins, STANDARD_SCRIPT_VERIFY_FLAGS, SAPLING_BRANCH_ID),
    REJECT_INVALID,
    'mandatory-script-verify-flag-failed (Non-canonical DER signature)',
    100,
  );
  // A scriptSig that is not push-only with the standard flags: mandatory part fails too (the stack ends false).
  tx.vin[0]!.scriptSig = concatScript(pushData(sig), pushData(pub), OP_DUP);
  assert.throws(() => checkInputScripts(tx, coins, STANDARD_SCRIPT_VERIFY_FLAGS, SAPLING_BRANCH_ID), ValidationError);
});

test('checkInputScripts: the signature cache stores from the mempool and is read when connecting', () => {
  const { tx, coins } = spend(100_000n, 90_000n);
  const cache = new SignatureCache();
  checkInputScripts(tx, coins, MANDATORY_SCRIPT_VERIFY_FLAGS, SAPLING_BRANCH_ID, { cache, cacheStore: false });
  assert.equal(cache.size, 0);
  checkInputScripts(tx, coins, STANDARD_SCRIPT_VERIFY_FLAGS, SAPLING_BRANCH_ID, { cache });
  assert.equal(cache.size, 1);
  checkInputScripts(tx, coins, MANDATORY_SCRIPT_VERIFY_FLAGS, SAPLING_BRANCH_ID, { cache, cacheStore: false });
  assert.equal(cache.size, 1);
});

test('policy: dust thresholds, relay fee, absurd fee', () => {
  // rawtx.md §7.9: 54 sat for P2PKH, 57 for a 35-byte P2PK; OP_RETURN never dust.
  assert.equal(isDust(new TxOut(53n, P2PKH)), true);
  assert.equal(isDust(new TxOut(54n, P2PKH)), false);
  const p2pk = p2pkScript(pub);
  assert.equal(isDust(new TxOut(56n, p2pk)), true);
  assert.equal(isDust(new TxOut(57n, p2pk)), false);
  assert.equal(isDust(new TxOut(0n, opReturnScript(new Uint8Array(10)))), false);
  // CFeeRate(100).GetFee: 100 × size / 1000, and the whole rate when that rounds to 0.
  assert.equal(minRelayFee(1000), 100n);
  assert.equal(minRelayFee(250), 25n);
  assert.equal(minRelayFee(5), 100n);
  assert.equal(absurdFeeLimit(250), 250_000n);
  const { tx } = spend(100_000n, 90_000n);
  checkAbsurdFee(tx, 250_000n, 250, 90_000n);
  const e = rejects(() => checkAbsurdFee(tx, 250_001n, 250, 90_000n), 0, `AcceptToMemoryPool: absurdly high fees ${tx.txid()}, 250001 > 250000`);
  assert.equal(e.mode, 'error');
  checkAbsurdFee(tx, 250_001n, 250, 250_001n * 19n); // not above valueOut/19
});

test('isStandardTx: version, scriptSig, outputs, OP_RETURN limit, dust, multi-op-return', () => {
  const std = { ...ctx, dataCarrierSize: 208 };
  const base = () => spend(100_000n, 90_000n).tx;
  assert.equal(isStandardTx(base(), 10, std), null);

  const v1 = base();
  v1.overwintered = false;
  v1.version = 1;
  v1.versionGroupId = 0;
  assert.equal(isStandardTx(v1, 10, std), 'sapling-version');
  const sprout = validationContext(ChainParams.fromArgs({ ac_name: 'VALTEST' }));
  assert.equal(isStandardTx(v1, 10, { ...sprout, dataCarrierSize: 208 }), null);
  assert.equal(isStandardTx(base(), 10, { ...sprout, dataCarrierSize: 208 }), 'version');
  const ow = validationContext(ChainParams.fromArgs({ ac_name: 'VALTEST', ac_overwinter: '1', ac_sapling: '100' }));
  assert.equal(isStandardTx(base(), 10, { ...ow, dataCarrierSize: 208 }), 'overwinter-version');

  const bigSig = base();
  bigSig.vin[0]!.scriptSig = pushData(new Uint8Array(1648)); // 3 + 1648 = 1651 bytes
  assert.equal(isStandardTx(bigSig, 10, std), 'scriptsig-size');
  bigSig.vin[0]!.scriptSig = pushData(new Uint8Array(1647)); // 1650
  assert.equal(isStandardTx(bigSig, 10, std), null);
  const notPush = base();
  notPush.vin[0]!.scriptSig = Uint8Array.of(OP_DUP);
  assert.equal(isStandardTx(notPush, 10, std), 'scriptsig-not-pushonly');

  const odd = base();
  odd.vout.push(new TxOut(1000n, Uint8Array.of(OP_DUP)));
  assert.equal(isStandardTx(odd, 10, std), 'scriptpubkey');

  // OP_RETURN: 208 script bytes are standard on an asset chain, 209 are not (-datacarriersize).
  const op = base();
  op.vout.push(new TxOut(0n, opReturnScript(new Uint8Array(205)))); // 1 + 2 + 205 = 208
  assert.equal(op.vout[1]!.script.length, 208);
  assert.equal(isStandardTx(op, 10, std), null);
  op.vout[1]!.script = opReturnScript(new Uint8Array(206));
  assert.equal(isStandardTx(op, 10, std), 'scriptpubkey');
  assert.equal(isStandardTx(op, 10, { ...std, dataCarrierSize: 209 }), null);
  assert.equal(isStandardTx(op, 10, { ...std, dataCarrier: false }), 'scriptpubkey');
  const huge = base();
  huge.vout.push(new TxOut(0n, opReturnScript(new Uint8Array(10_000))));
  assert.equal(isStandardTx(huge, 10, { ...std, dataCarrierSize: 20_000 }), 'opreturn too big');

  const two = base();
  two.vout.push(new TxOut(0n, opReturnScript(Uint8Array.of(1))), new TxOut(0n, opReturnScript(Uint8Array.of(2))));
  assert.equal(isStandardTx(two, 10, std), 'multi-op-return');

  const dust = base();
  dust.vout[0]!.value = 53n;
  assert.equal(isStandardTx(dust, 10, std), 'dust');

  const k2 = publicKeyFromPrivate(new Uint8Array(32).fill(8), true);
  const ms = base();
  ms.vout.push(new TxOut(1000n, concatScript(OP_1, pushData(pub), pushData(k2), OP_2, OP_CHECKMULTISIG)));
  assert.equal(isStandardTx(ms, 10, std), null);
  assert.equal(isStandardTx(ms, 10, { ...std, permitBareMultisig: false }), 'bare-multisig');
  const ms10 = base();
  const keys = Array.from({ length: 10 }, (_, i) => pushData(publicKeyFromPrivate(new Uint8Array(32).fill(i + 1), true)));
  ms10.vout.push(new TxOut(1000n, concatScript(OP_1, ...keys, 0x5a, OP_CHECKMULTISIG)));
  assert.equal(isStandardTx(ms10, 10, std), 'scriptpubkey'); // more than 9 keys
});

test('areInputsStandard: scriptSig items must match the spent template', () => {
  const { tx, coins } = spend(100_000n, 90_000n);
  assert.equal(areInputsStandard(tx, coins, SAPLING_BRANCH_ID), true);
  tx.vin[0]!.scriptSig = concatScript(Uint8Array.of(OP_1), tx.vin[0]!.scriptSig);
  assert.equal(areInputsStandard(tx, coins, SAPLING_BRANCH_ID), false);
  const nonstd = view({ [coinKey()]: { value: 1n, script: Uint8Array.of(OP_DUP), height: 1, coinbase: false, txVersion: 1 } });
  assert.equal(areInputsStandard(tx, nonstd, SAPLING_BRANCH_ID), false);
});

test('the dev chain context: regtest does not require standard transactions', () => {
  const dev = validationContext(devChainParams());
  assert.equal(dev.requireStandard, false);
  assert.equal(dev.checkEquihash, false);
  assert.equal(ctx.requireStandard, true);
  assert.equal(ctx.defaultDataCarrierSize, 208);
  assert.equal(ctx.maxBlockSigops, 60_000);
});

test('a coin import (prevout index 10^9) is refused without a VerifyCoinImport: 0 invalid-coin-import', () => {
  const tx = new Transaction();
  tx.vin = [new TxIn(new Outpoint(PREV, 1_000_000_000), Uint8Array.of(0x51, 0x51))];
  tx.vout = [new TxOut(1_000_000n, P2PKH)];
  assert.equal(checkTxInputs(tx, view({}), 20, ctx), 0n); // a mint: no inputs, no fee
  rejects(() => checkInputScripts(tx, view({}), MANDATORY_SCRIPT_VERIFY_FLAGS, SAPLING_BRANCH_ID), 0, 'invalid-coin-import', 0);
  checkInputScripts(tx, view({}), MANDATORY_SCRIPT_VERIFY_FLAGS, SAPLING_BRANCH_ID, { verifyCoinImport: () => true });
});

test('the signature cache is bounded: a new key past the bound pushes the oldest out, one already there pushes nothing', () => {
  const cache = new SignatureCache(3);
  for (const k of ['a', 'b', 'c']) cache.add(k);
  cache.add('a');
  assert.deepEqual(['a', 'b', 'c'].map((k) => cache.has(k)), [true, true, true]);
  cache.add('d');
  assert.equal(cache.size, 3);
  assert.deepEqual(['a', 'b', 'c', 'd'].map((k) => cache.has(k)), [false, true, true, true]);
});

test('signature cache keys: one per (sighash, signature, pubkey); the same bytes split differently between pubkey and signature are another key', () => {
  const sighash = new Uint8Array(32).fill(1);
  const pub33 = new Uint8Array(33).fill(2);
  const sig = new Uint8Array(70).fill(3);
  // The concatenation of pubkey and signature is the same; the triple is not.
  const pub65 = new Uint8Array([...pub33, ...sig.subarray(0, 32)]);
  assert.notEqual(SignatureCache.key(sighash, sig, pub33), SignatureCache.key(sighash, sig.subarray(32), pub65));
  assert.equal(SignatureCache.key(sighash, sig, pub33), SignatureCache.key(sighash.slice(), sig.slice(), pub33.slice()));
  assert.notEqual(SignatureCache.key(sighash, sig, pub33), SignatureCache.key(new Uint8Array(32), sig, pub33));
  const cache = new SignatureCache();
  cache.add(SignatureCache.key(sighash, sig, pub33));
  assert.equal(cache.has(SignatureCache.key(sighash, sig.subarray(32), pub65)), false);
});
