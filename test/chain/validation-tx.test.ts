import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SAPLING_VERSION_GROUP_ID, OVERWINTER_VERSION_GROUP_ID } from '../../src/chain/consensus/tx.js';
import { fromHex } from '../../src/chain/encoding/hex.js';
import { ChainParams } from '../../src/chain/params/chain-params.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { JoinSplit } from '../../src/chain/tx/joinsplit.js';
import { OutputDescription, SpendDescription } from '../../src/chain/tx/sapling.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import {
  REJECT_INVALID,
  ValidationError,
  checkTransaction,
  contextualCheckTransaction,
  isExpiredTx,
  isFinalTx,
  validationContext,
} from '../../src/chain/validation/index.js';

function rejects(fn: () => unknown, reason: string, dos?: number): void {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ValidationError, `expected ValidationError, got ${String(e)}`);
    assert.equal(e.reason, reason);
    assert.equal(e.rejectCode, REJECT_INVALID);
    if (dos !== undefined) assert.equal(e.dos, dos, `dos of ${reason}`);
    return;
  }
  assert.fail(`expected rejection ${reason}`);
}

const P2PKH = fromHex('76a914' + '11'.repeat(20) + '88ac');
/** A plain asset chain with no -ac_sapling (Sapling inactive until the auto-activation). */
const plain = ChainParams.fromArgs({ ac_name: 'VALTEST' });
const ctx = validationContext(plain);
const sapling = validationContext(ChainParams.fromArgs({ ac_name: 'VALTEST', ac_sapling: '1' }));
const overwinterOnly = validationContext(ChainParams.fromArgs({ ac_name: 'VALTEST', ac_overwinter: '1', ac_sapling: '100' }));

function prevout(i = 0): Outpoint {
  return new Outpoint(new Uint8Array(32).fill(i + 1), i);
}

function v1(): Transaction {
  const tx = new Transaction();
  tx.vin = [new TxIn(prevout(), Uint8Array.of(0x51))];
  tx.vout = [new TxOut(1000n, P2PKH)];
  return tx;
}

function v4(): Transaction {
  const tx = v1();
  tx.overwintered = true;
  tx.version = 4;
  tx.versionGroupId = SAPLING_VERSION_GROUP_ID;
  tx.expiryHeight = 200;
  return tx;
}

function zeroJoinSplit(vpubOld: bigint, vpubNew: bigint): JoinSplit {
  const z = (n: number) => new Uint8Array(n);
  return new JoinSplit(vpubOld, vpubNew, z(32), [z(32), z(32).fill(1)], [z(32), z(32)], z(32), z(32), [z(32), z(32)], z(296), [z(601), z(601)]);
}

function zeroSpend(nf: number): SpendDescription {
  const z = (n: number) => new Uint8Array(n);
  return new SpendDescription(z(32), z(32), z(32).fill(nf), z(32), z(192), z(64));
}

test('checkTransaction accepts plain v1 and v4 transactions', () => {
  checkTransaction(v1(), ctx);
  checkTransaction(v4(), ctx);
});

test('checkTransaction: version rules', () => {
  const t0 = v1();
  t0.version = 0;
  rejects(() => checkTransaction(t0, ctx), 'bad-txns-version-too-low', 100);
  const low = v4();
  low.version = 2;
  rejects(() => checkTransaction(low, ctx), 'bad-tx-overwinter-version-too-low', 100);
  const gid = v4();
  gid.versionGroupId = 0x12345678;
  rejects(() => checkTransaction(gid, ctx), 'bad-tx-version-group-id', 100);
  const exp = v4();
  exp.expiryHeight = 500_000_000;
  rejects(() => checkTransaction(exp, ctx), 'bad-tx-expiry-height-too-high', 100);
  exp.expiryHeight = 499_999_999;
  checkTransaction(exp, ctx);
});

test('checkTransaction: empty vin/vout and size', () => {
  const noIn = v1();
  noIn.vin = [];
  rejects(() => checkTransaction(noIn, ctx), 'bad-txns-vin-empty', 10);
  const noOut = v1();
  noOut.vout = [];
  rejects(() => checkTransaction(noOut, ctx), 'bad-txns-vout-empty', 10);
  const big = v1();
  big.vin[0]!.scriptSig = new Uint8Array(200_001 - 60);
  rejects(() => checkTransaction(big, ctx), 'bad-txns-oversize', 100);
  // The caller's byte count, when given, is the size checked (the mempool holds the bytes it parsed).
  rejects(() => checkTransaction(big, ctx, { size: big.toRaw().length }), 'bad-txns-oversize', 100);
  checkTransaction(v1(), ctx, { size: v1().toRaw().length });
  rejects(() => checkTransaction(v1(), ctx, { size: 200_001 }), 'bad-txns-oversize', 100);
});

test('checkTransaction: output values and script size', () => {
  const neg = v1();
  neg.vout[0]!.value = -1n;
  rejects(() => checkTransaction(neg, ctx), 'bad-txns-vout-negative', 100);
  const large = v1();
  large.vout[0]!.value = ctx.maxMoney + 1n;
  rejects(() => checkTransaction(large, ctx), 'bad-txns-vout-toolarge', 100);
  const max = v1();
  max.vout[0]!.value = ctx.maxMoney;
  checkTransaction(max, ctx);
  const total = v1();
  total.vout = [new TxOut(ctx.maxMoney, P2PKH), new TxOut(1n, P2PKH)];
  rejects(() => checkTransaction(total, ctx), 'bad-txns-txouttotal-toolarge', 100);
  const opret = v1();
  opret.vout.push(new TxOut(0n, new Uint8Array(10_002).fill(0x6a)));
  rejects(() => checkTransaction(opret, ctx), 'bad-txns-opret-too-big', 100);
  opret.vout[1]!.script = new Uint8Array(10_001).fill(0x6a);
  checkTransaction(opret, ctx);
});

test('checkTransaction: valueBalance and shielded rules', () => {
  const vb = v4();
  vb.valueBalance = 1n;
  rejects(() => checkTransaction(vb, ctx), 'bad-txns-valuebalance-nonzero', 100);
  const sp = v4();
  sp.shieldedSpends = [zeroSpend(1)];
  sp.valueBalance = ctx.maxMoney + 1n;
  rejects(() => checkTransaction(sp, ctx), 'bad-txns-valuebalance-toolarge', 100);
  sp.valueBalance = 0n;
  checkTransaction(sp, ctx);
  const pub = validationContext(ChainParams.fromArgs({ ac_name: 'VALTEST', ac_public: '1' }));
  rejects(() => checkTransaction(sp, pub), 'bad-txns-acpublic-chain', 100);
  const neg = v4();
  neg.shieldedOutputs = [];
  neg.shieldedSpends = [zeroSpend(1)];
  neg.valueBalance = -ctx.maxMoney;
  rejects(() => checkTransaction(neg, ctx), 'bad-txns-txouttotal-toolarge', 100);
  const inTotal = v4();
  inTotal.shieldedSpends = [zeroSpend(1)];
  inTotal.valueBalance = ctx.maxMoney;
  checkTransaction(inTotal, ctx);
  const dupNf = v4();
  dupNf.shieldedSpends = [zeroSpend(3), zeroSpend(3)];
  rejects(() => checkTransaction(dupNf, ctx), 'bad-spend-description-nullifiers-duplicate', 100);
});

test('checkTransaction: JoinSplits expire with the 2019-02-15 deadline; value rules before it', () => {
  const js = v1();
  js.version = 2;
  js.joinSplits = [zeroJoinSplit(0n, 0n)];
  rejects(() => checkTransaction(js, ctx), 'bad-txns-sprout-expired', 100);
  rejects(() => checkTransaction(js, ctx, { tipTime: 1550188800 }), 'bad-txns-sprout-expired');
  const early = { tipTime: 1550188799 };
  js.joinSplits = [zeroJoinSplit(-1n, 0n)];
  rejects(() => checkTransaction(js, ctx, early), 'bad-txns-vpub_old-negative', 100);
  js.joinSplits = [zeroJoinSplit(0n, -1n)];
  rejects(() => checkTransaction(js, ctx, early), 'bad-txns-vpub_new-negative', 100);
  js.joinSplits = [zeroJoinSplit(ctx.maxMoney + 1n, 0n)];
  rejects(() => checkTransaction(js, ctx, early), 'bad-txns-vpub_old-toolarge', 100);
  js.joinSplits = [zeroJoinSplit(0n, ctx.maxMoney + 1n)];
  rejects(() => checkTransaction(js, ctx, early), 'bad-txns-vpub_new-toolarge', 100);
  js.joinSplits = [zeroJoinSplit(1n, 1n)];
  rejects(() => checkTransaction(js, ctx, early), 'bad-txns-vpubs-both-nonzero', 100);
  js.joinSplits = [zeroJoinSplit(0n, ctx.maxMoney), zeroJoinSplit(0n, 1n)];
  rejects(() => checkTransaction(js, ctx, early), 'bad-txns-txintotal-toolarge', 100);
  const pub = validationContext(ChainParams.fromArgs({ ac_name: 'VALTEST', ac_public: '1' }));
  js.joinSplits = [zeroJoinSplit(0n, 0n)];
  rejects(() => checkTransaction(js, pub, early), 'bad-txns-acpublic-chain', 100);
  const dup = zeroJoinSplit(0n, 0n);
  dup.nullifiers = [new Uint8Array(32), new Uint8Array(32)];
  js.joinSplits = [dup];
  rejects(() => checkTransaction(js, ctx, early), 'bad-joinsplits-nullifiers-duplicate', 100);
});

test('checkTransaction: inputs, coinbase shape, txpow', () => {
  const dup = v1();
  dup.vin.push(new TxIn(prevout(), Uint8Array.of(0x51)));
  rejects(() => checkTransaction(dup, ctx), 'bad-txns-inputs-duplicate', 100);
  const nullIn = v1();
  nullIn.vin.push(new TxIn(Outpoint.null(), Uint8Array.of(0x51)));
  rejects(() => checkTransaction(nullIn, ctx), 'bad-txns-prevout-null', 10);

  const cb = v1();
  cb.vin = [new TxIn(Outpoint.null(), Uint8Array.of(0x51))];
  rejects(() => checkTransaction(cb, ctx), 'bad-cb-length', 100);
  cb.vin[0]!.scriptSig = new Uint8Array(101);
  rejects(() => checkTransaction(cb, ctx), 'bad-cb-length', 100);
  cb.vin[0]!.scriptSig = new Uint8Array(100);
  checkTransaction(cb, ctx);
  cb.vin[0]!.scriptSig = Uint8Array.of(0x51, 0x51);
  checkTransaction(cb, ctx);
  const cbOut = v4();
  cbOut.vin = [new TxIn(Outpoint.null(), Uint8Array.of(0x51, 0x51))];
  const z = (n: number) => new Uint8Array(n);
  // A Sapling output description of zeros: only its presence matters here.
  cbOut.shieldedOutputs = [new OutputDescription(z(32), z(32), z(32), z(580), z(80), z(192))];
  rejects(() => checkTransaction(cbOut, ctx), 'bad-cb-has-output-description', 100);
  const cbSpend = v4();
  cbSpend.vin = [new TxIn(Outpoint.null(), Uint8Array.of(0x51, 0x51))];
  cbSpend.shieldedSpends = [zeroSpend(1)];
  rejects(() => checkTransaction(cbSpend, ctx), 'bad-cb-has-spend-description', 100);

  // -ac_txpow=1: non-coinbase txids must start and end (internal order) with a zero byte.
  const txpow = validationContext(ChainParams.fromArgs({ ac_name: 'VALTEST', ac_txpow: '1' }));
  const t = v1();
  let ground = 0;
  for (let i = 0; ; i++) {
    t.lockTime = i;
    const h = t.hash();
    if (h[0] === 0 && h[31] === 0) break;
    if (++ground > 200_000) assert.fail('no txpow solution found');
  }
  checkTransaction(t, txpow);
  t.lockTime += 1;
  const h = t.hash();
  if (h[0] !== 0 || h[31] !== 0) rejects(() => checkTransaction(t, txpow), 'bad-txns-actxpow-chain', 100);
  checkTransaction(t, ctx);
  checkTransaction(cb, txpow); // bit 2 (coinbases) is not set
});

test('contextualCheckTransaction: epoch rules before Overwinter', () => {
  rejects(() => contextualCheckTransaction(v4(), 10, ctx), 'tx-overwinter-not-active', 0);
  contextualCheckTransaction(v1(), 10, ctx);
  const big = v1();
  big.vin[0]!.scriptSig = new Uint8Array(100_001 - 60);
  rejects(() => contextualCheckTransaction(big, 10, ctx), 'bad-txns-oversize', 100);
  // After Sapling the limit is 200000 bytes, enforced by checkTransaction.
  const bigV4 = v4();
  bigV4.vin[0]!.scriptSig = new Uint8Array(100_001 - 60);
  contextualCheckTransaction(bigV4, 10, sapling);
});

test('contextualCheckTransaction: Sapling rules (-ac_sapling=1)', () => {
  contextualCheckTransaction(v4(), 10, sapling);
  rejects(() => contextualCheckTransaction(v1(), 10, sapling), 'tx-overwinter-active', 100);
  rejects(() => contextualCheckTransaction(v1(), 10, sapling, { dosLevel: 10 }), 'tx-overwinter-active', 10);
  const notFlagged = v1();
  notFlagged.version = 4;
  rejects(() => contextualCheckTransaction(notFlagged, 10, sapling), 'tx-overwintered-flag-not-set', 100);
  const v3 = v4();
  v3.version = 3;
  v3.versionGroupId = OVERWINTER_VERSION_GROUP_ID;
  rejects(() => contextualCheckTransaction(v3, 10, sapling), 'bad-sapling-tx-version-group-id', 100);
  rejects(() => contextualCheckTransaction(v3, 10, sapling, { initialBlockDownload: true }), 'bad-sapling-tx-version-group-id', 0);
  const v3s = v4();
  v3s.version = 3;
  rejects(() => contextualCheckTransaction(v3s, 10, sapling), 'bad-tx-sapling-version-too-low', 100);
  const v5 = v4();
  v5.version = 5;
  rejects(() => contextualCheckTransaction(v5, 10, sapling), 'bad-tx-sapling-version-too-high', 100);
});

test('contextualCheckTransaction: Overwinter-only rules', () => {
  const v3 = v4();
  v3.version = 3;
  v3.versionGroupId = OVERWINTER_VERSION_GROUP_ID;
  contextualCheckTransaction(v3, 10, overwinterOnly);
  const flagless = v1();
  flagless.version = 3;
  rejects(() => contextualCheckTransaction(flagless, 10, overwinterOnly), 'tx-overwinter-flag-not-set', 100);
  rejects(() => contextualCheckTransaction(v4(), 10, overwinterOnly), 'bad-overwinter-tx-version-group-id', 100);
  const high = v3.clone();
  high.version = 4; // overwinter group id with version 4
  rejects(() => contextualCheckTransaction(high, 10, overwinterOnly), 'bad-tx-overwinter-version-too-high', 100);
  rejects(() => contextualCheckTransaction(v1(), 10, overwinterOnly), 'tx-overwinter-active', 100);
});

test('expiry: tx-overwinter-expired after nExpiryHeight, no ban when it only just expired', () => {
  const tx = v4();
  tx.expiryHeight = 10;
  contextualCheckTransaction(tx, 10, sapling);
  assert.equal(isExpiredTx(tx, 10), false);
  assert.equal(isExpiredTx(tx, 11), true);
  rejects(() => contextualCheckTransaction(tx, 11, sapling), 'tx-overwinter-expired', 0);
  rejects(() => contextualCheckTransaction(tx, 12, sapling), 'tx-overwinter-expired', 100);
  rejects(() => contextualCheckTransaction(tx, 12, sapling, { dosLevel: 1 }), 'tx-overwinter-expired', 10);
  tx.expiryHeight = 0;
  contextualCheckTransaction(tx, 1000, sapling);
  const cb = v4();
  cb.vin = [new TxIn(Outpoint.null(), Uint8Array.of(0x51, 0x51))];
  cb.expiryHeight = 5;
  assert.equal(isExpiredTx(cb, 100), false);
});

test('contextualCheckTransaction refuses Sapling parts it cannot verify', () => {
  const sp = v4();
  sp.shieldedSpends = [zeroSpend(1)];
  rejects(() => contextualCheckTransaction(sp, 10, sapling), 'bad-txns-sapling-spend-description-invalid', 100);
});

test('isFinalTx: lock time by height and by time, nSequence rules', () => {
  const tx = v1();
  const now = 1_700_000_000;
  assert.equal(isFinalTx(tx, 100, now), true); // nLockTime 0
  tx.lockTime = 100;
  tx.vin[0]!.sequence = 0;
  assert.equal(isFinalTx(tx, 101, now), true);
  assert.equal(isFinalTx(tx, 100, now), false);
  tx.vin[0]!.sequence = 0xffffffff;
  assert.equal(isFinalTx(tx, 100, now), true);
  tx.lockTime = now;
  tx.vin[0]!.sequence = 0;
  assert.equal(isFinalTx(tx, 10, now + 1), true);
  assert.equal(isFinalTx(tx, 10, now), false);
  // nSequence 0xfffffffe after the December 2019 fork: final when the lock time equals the cutoff.
  tx.vin[0]!.sequence = 0xfffffffe;
  assert.equal(isFinalTx(tx, 10, now), true);
  assert.equal(isFinalTx(tx, 10, now - 1), false);
  // Before the fork (block time ≤ 1576840000): final while the lock time is NOT reached (komodod's quirk).
  tx.lockTime = 1_500_000_000;
  assert.equal(isFinalTx(tx, 10, 1_400_000_000), true);
  assert.equal(isFinalTx(tx, 10, 1_500_000_000), false);
  tx.lockTime = 50;
  assert.equal(isFinalTx(tx, 10, 1_400_000_000), true);
  assert.equal(isFinalTx(tx, 50, 1_400_000_000), false);
});

test('validationContext: derived once per params object, again for params that changed', () => {
  assert.equal(validationContext(plain), ctx);
  // afterTip's automatic Sapling activation makes new params: their context says so.
  const activated = plain.withSaplingActivation(77);
  const after = validationContext(activated);
  assert.notEqual(after, ctx);
  assert.equal(after.activation.sapling, 77);
  assert.notEqual(ctx.activation.sapling, 77);
  assert.equal(validationContext(activated), after);
  // A context with a condition filter is the caller's own.
  const only = () => true;
  const filtered = validationContext(plain, { isSupportedCondition: only });
  assert.notEqual(filtered, ctx);
  assert.equal(filtered.isSupportedCondition, only);
  assert.equal(ctx.isSupportedCondition, undefined);
});
