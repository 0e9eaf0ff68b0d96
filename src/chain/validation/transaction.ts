import { ed25519 } from '@noble/curves/ed25519.js';
import { IGUANA_MAXSCRIPTSIZE, LOCKTIME_THRESHOLD } from '../consensus/script.js';
import { OVERWINTER_TX_VERSION, OVERWINTER_VERSION_GROUP_ID, SAPLING_TX_VERSION, SAPLING_VERSION_GROUP_ID, TX_EXPIRY_HEIGHT_THRESHOLD, MAX_TX_SIZE_AFTER_SAPLING, MAX_TX_SIZE_BEFORE_SAPLING, SPROUT_MIN_TX_VERSION } from '../consensus/tx.js';
import { KOMODO_SAPLING_DEADLINE, STAKED_DECEMBER_HARDFORK_TIMESTAMP } from '../consensus/upgrades.js';
import { toHex } from '../encoding/hex.js';
import { currentEpochBranchId } from '../params/upgrades.js';
import { NOT_AN_INPUT, SIGHASH_ALL, signatureHash } from '../script/sighash.js';
import type { Transaction } from '../tx/transaction.js';
import { type ValidationContext, isOverwinterActive, isSaplingActive } from './context.js';
import { REJECT_INVALID, reject } from './errors.js';
import { isMint, txSize } from './tx-values.js';

export { checkTxInputs } from './inputs.js';
export { checkInputScripts, SignatureCache, type InputScriptOptions } from './scripts.js';

/**
 * Transaction rules of komodod's main.cpp at 0adeeab: CheckTransaction (context-free),
 * ContextualCheckTransaction (height-dependent), IsFinalTx and IsExpiredTx. Each failure throws a
 * ValidationError with komodod's reject code, reason and DoS score, in komodod's check order.
 *
 * Left out, being KMD-only (p2p-blocks.md §8): the banned-txid list and the interest rules. Left out, being
 * options acnode does not run: ac_staked's `bad-txns-stakingtx`, ac_private's notary-address rules
 * (PIRATE/ZOMBIE only) and ac_timelockgte's coinbase time lock (see unsupportedValidationOptions).
 */

/** Display txid of the KMD genesis coinbase, which -ac_txpow exempts. */
const GENESIS_COINBASE_TXID = '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b';

export interface CheckTransactionOptions {
  /**
   * The tip's nTime (CheckTransaction's `tiptime`: the previous block's time in a block, the tip's in the
   * mempool). Only the JoinSplit deadline reads it; omitted, the tip is taken to be past 2019-02-15.
   */
  tipTime?: number;
  /** The transaction's serialised size when the caller holds its bytes (else it is serialised again). */
  size?: number;
}

const moneyRange = (v: bigint, ctx: ValidationContext): boolean => v >= 0n && v <= ctx.maxMoney;

/** CheckTransaction (CheckTransactionWithoutProofVerification, then the JoinSplit proofs). */
export function checkTransaction(tx: Transaction, ctx: ValidationContext, opts: CheckTransactionOptions = {}): void {
  const tipTime = opts.tipTime ?? 0xffffffff;
  const I = REJECT_INVALID;

  if (!tx.overwintered && tx.version < SPROUT_MIN_TX_VERSION) reject(I, 'bad-txns-version-too-low', 100);
  else if (tx.overwintered) {
    if (tx.version < OVERWINTER_TX_VERSION) reject(I, 'bad-tx-overwinter-version-too-low', 100);
    if (tx.versionGroupId !== OVERWINTER_VERSION_GROUP_ID && tx.versionGroupId !== SAPLING_VERSION_GROUP_ID)
      reject(I, 'bad-tx-version-group-id', 100);
    if (tx.expiryHeight >>> 0 >= TX_EXPIRY_HEIGHT_THRESHOLD) reject(I, 'bad-tx-expiry-height-too-high', 100);
  }

  if (tx.vin.length === 0 && tx.joinSplits.length === 0 && tx.shieldedSpends.length === 0) reject(I, 'bad-txns-vin-empty', 10);
  if (tx.vout.length === 0 && tx.joinSplits.length === 0 && tx.shieldedOutputs.length === 0) reject(I, 'bad-txns-vout-empty', 10);
  if ((opts.size ?? txSize(tx)) > MAX_TX_SIZE_AFTER_SAPLING) reject(I, 'bad-txns-oversize', 100);

  // Indexed loops: a connecting block checks each of its transactions once, mostly before V8
  // optimises this, and an unoptimised for…of makes an iterator per loop, empty ones included.
  let nValueOut = 0n;
  for (let k = 0; k < tx.vout.length; k++) {
    const out = tx.vout[k]!;
    if (out.value < 0n) reject(I, 'bad-txns-vout-negative', 100);
    if (out.value > ctx.maxMoney) reject(I, 'bad-txns-vout-toolarge', 100);
    if (out.script.length > IGUANA_MAXSCRIPTSIZE) reject(I, 'bad-txns-opret-too-big', 100);
    nValueOut += out.value;
    if (!moneyRange(nValueOut, ctx)) reject(I, 'bad-txns-txouttotal-toolarge', 100);
  }

  const shielded = tx.shieldedSpends.length > 0 || tx.shieldedOutputs.length > 0;
  if (!shielded && tx.valueBalance !== 0n) reject(I, 'bad-txns-valuebalance-nonzero', 100);
  if (ctx.acPublic && shielded) reject(I, 'bad-txns-acpublic-chain', 100);
  if (tx.valueBalance > ctx.maxMoney || tx.valueBalance < -ctx.maxMoney) reject(I, 'bad-txns-valuebalance-toolarge', 100);
  if (tx.valueBalance <= 0n) {
    nValueOut += -tx.valueBalance;
    if (!moneyRange(nValueOut, ctx)) reject(I, 'bad-txns-txouttotal-toolarge', 100);
  }

  for (let k = 0; k < tx.joinSplits.length; k++) {
    const js = tx.joinSplits[k]!;
    if (ctx.acPublic) reject(I, 'bad-txns-acpublic-chain', 100);
    if (tipTime >>> 0 >= KOMODO_SAPLING_DEADLINE) reject(I, 'bad-txns-sprout-expired', 100);
    if (js.vpubOld < 0n) reject(I, 'bad-txns-vpub_old-negative', 100);
    if (js.vpubNew < 0n) reject(I, 'bad-txns-vpub_new-negative', 100);
    if (js.vpubOld > ctx.maxMoney) reject(I, 'bad-txns-vpub_old-toolarge', 100);
    if (js.vpubNew > ctx.maxMoney) reject(I, 'bad-txns-vpub_new-toolarge', 100);
    if (js.vpubNew !== 0n && js.vpubOld !== 0n) reject(I, 'bad-txns-vpubs-both-nonzero', 100);
    nValueOut += js.vpubOld;
    if (!moneyRange(nValueOut, ctx)) reject(I, 'bad-txns-txouttotal-toolarge', 100);
  }

  if (ctx.txpow !== 0) {
    const coinbase = tx.isCoinbase();
    if (((ctx.txpow & 2) !== 0 && coinbase) || ((ctx.txpow & 1) !== 0 && !coinbase)) {
      // komodod tests bytes 0 and 31 of the uint256, i.e. the internal byte order.
      const h = tx.hash();
      if ((h[0] !== 0 || h[31] !== 0) && tx.txid() !== GENESIS_COINBASE_TXID) reject(I, 'bad-txns-actxpow-chain', 100);
    }
  }

  let nValueIn = 0n;
  for (let k = 0; k < tx.joinSplits.length; k++) {
    const js = tx.joinSplits[k]!;
    nValueIn += js.vpubNew;
    if (!moneyRange(js.vpubNew, ctx) || !moneyRange(nValueIn, ctx)) reject(I, 'bad-txns-txintotal-toolarge', 100);
  }
  if (tx.valueBalance >= 0n) {
    nValueIn += tx.valueBalance;
    if (!moneyRange(nValueIn, ctx)) reject(I, 'bad-txns-txintotal-toolarge', 100);
  }

  // A duplicate takes two of a kind: no set and no keys for a lone input or spend (most transactions).
  if (tx.vin.length > 1) {
    const outpoints = new Set<string>();
    for (const input of tx.vin) {
      const key = input.prevout.key();
      if (outpoints.has(key)) reject(I, 'bad-txns-inputs-duplicate', 100);
      outpoints.add(key);
    }
  }
  if (tx.joinSplits.length > 0) {
    const jsNullifiers = new Set<string>();
    for (const js of tx.joinSplits) {
      for (const nf of js.nullifiers) {
        const key = toHex(nf);
        if (jsNullifiers.has(key)) reject(I, 'bad-joinsplits-nullifiers-duplicate', 100);
        jsNullifiers.add(key);
      }
    }
  }
  if (tx.shieldedSpends.length > 1) {
    const saplingNullifiers = new Set<string>();
    for (const spend of tx.shieldedSpends) {
      const key = toHex(spend.nullifier);
      if (saplingNullifiers.has(key)) reject(I, 'bad-spend-description-nullifiers-duplicate', 100);
      saplingNullifiers.add(key);
    }
  }

  if (isMint(tx)) {
    if (tx.joinSplits.length > 0) reject(I, 'bad-cb-has-joinsplits', 100);
    if (tx.shieldedSpends.length > 0) reject(I, 'bad-cb-has-spend-description', 100);
    if (tx.shieldedOutputs.length > 0) reject(I, 'bad-cb-has-output-description', 100);
    const len = tx.vin[0]!.scriptSig.length;
    if (len < 2 || len > 100) reject(I, 'bad-cb-length', 100);
  } else {
    for (let k = 0; k < tx.vin.length; k++) if (tx.vin[k]!.prevout.isNull()) reject(I, 'bad-txns-prevout-null', 10);
  }

  // JoinSplit zk-SNARK proofs: acnode has no Sprout verifier. JoinSplits only get here with a tip time
  // before 2019-02-15 (bad-txns-sprout-expired above), so this refuses what it cannot check.
  if (tx.joinSplits.length > 0)
    reject(I, 'bad-txns-joinsplit-verification-failed', 100, { debug: 'acnode does not verify Sprout proofs' });
}

export interface ContextualCheckOptions {
  /** The DoS score for version/flag/expiry failures: 100 in blocks (default), 10 from the mempool. */
  dosLevel?: number;
  /** IsInitialBlockDownload(): version-group-id failures then score 0. */
  initialBlockDownload?: boolean;
}

/** ContextualCheckTransaction: the rules of the network upgrade active at `height` (the block's height). */
export function contextualCheckTransaction(
  tx: Transaction,
  height: number,
  ctx: ValidationContext,
  opts: ContextualCheckOptions = {},
): void {
  const dosLevel = opts.dosLevel ?? 100;
  const ibd = opts.initialBlockDownload ?? false;
  const overwinterActive = isOverwinterActive(ctx, height);
  const saplingActive = isSaplingActive(ctx, height);
  const owHeight = ctx.activation.overwinter;
  const I = REJECT_INVALID;

  if (!overwinterActive && tx.overwintered)
    reject(I, 'tx-overwinter-not-active', owHeight < 0 || height < owHeight ? 0 : dosLevel);

  if (saplingActive) {
    if (tx.version >= SAPLING_TX_VERSION && !tx.overwintered) reject(I, 'tx-overwintered-flag-not-set', dosLevel);
    if (tx.overwintered && tx.versionGroupId !== SAPLING_VERSION_GROUP_ID)
      reject(I, 'bad-sapling-tx-version-group-id', ibd ? 0 : dosLevel);
    if (tx.overwintered && tx.version < SAPLING_TX_VERSION) reject(I, 'bad-tx-sapling-version-too-low', 100);
    if (tx.overwintered && tx.version > SAPLING_TX_VERSION) reject(I, 'bad-tx-sapling-version-too-high', 100);
  } else if (overwinterActive) {
    if (tx.version >= OVERWINTER_TX_VERSION && !tx.overwintered) reject(I, 'tx-overwinter-flag-not-set', dosLevel);
    if (tx.overwintered && tx.versionGroupId !== OVERWINTER_VERSION_GROUP_ID)
      reject(I, 'bad-overwinter-tx-version-group-id', ibd ? 0 : dosLevel);
    if (tx.overwintered && tx.version > OVERWINTER_TX_VERSION) reject(I, 'bad-tx-overwinter-version-too-high', 100);
  }

  if (overwinterActive) {
    if (!tx.overwintered) reject(I, 'tx-overwinter-active', ctx.acPrivate || owHeight < 0 || height < owHeight ? 0 : dosLevel);
    if (isExpiredTx(tx, height)) {
      // No ban for a transaction that only just expired.
      reject(I, 'tx-overwinter-expired', isExpiredTx(tx, height - 1) ? Math.max(dosLevel, 10) : 0);
    }
  }

  if (!saplingActive && txSize(tx) > MAX_TX_SIZE_BEFORE_SAPLING) reject(I, 'bad-txns-oversize', 100);

  const hasShielded = tx.joinSplits.length > 0 || tx.shieldedSpends.length > 0 || tx.shieldedOutputs.length > 0;
  if (isMint(tx) || !hasShielded) return;

  let dataToBeSigned: Uint8Array;
  try {
    dataToBeSigned = signatureHash(new Uint8Array(0), tx, NOT_AN_INPUT, SIGHASH_ALL, 0n, currentEpochBranchId(height, ctx.activation));
  } catch {
    reject(I, 'error-computing-signature-hash', 100);
  }
  if (tx.joinSplits.length > 0) {
    let ok = false;
    try {
      // libsodium's crypto_sign_verify_detached: canonical encodings required (not ZIP-215).
      ok = ed25519.verify(tx.joinSplitSig, dataToBeSigned, tx.joinSplitPubKey, { zip215: false });
    } catch {
      ok = false;
    }
    if (!ok) reject(I, 'bad-txns-invalid-joinsplit-signature', ibd ? 0 : 100);
  }
  // Sapling spend/output proofs and the binding signature: acnode has no Groth16/RedJubjub verifier, so
  // a transaction with Sapling parts is refused with the reason komodod gives for a failing proof.
  if (tx.shieldedSpends.length > 0)
    reject(I, 'bad-txns-sapling-spend-description-invalid', 100, { debug: 'acnode does not verify Sapling proofs' });
  if (tx.shieldedOutputs.length > 0)
    reject(I, 'bad-txns-sapling-output-description-invalid', 100, { debug: 'acnode does not verify Sapling proofs' });
}

/**
 * IsFinalTx(tx, height, blockTime) as komodod has it for asset chains: final when nLockTime is 0 or
 * below the height/time cutoff, or when every input is final. komodod's odd nSequence 0xfffffffe rule:
 * before the December 2019 hard fork (block time ≤ 1576840000) such an input counts as final when the
 * lock time has NOT been reached; after it, when the lock time equals the cutoff.
 */
export function isFinalTx(tx: Transaction, height: number, blockTime: number): boolean {
  const lockTime = tx.lockTime >>> 0;
  if (lockTime === 0) return true;
  const byHeight = lockTime < LOCKTIME_THRESHOLD;
  if (lockTime < (byHeight ? height : blockTime)) return true;
  const hardfork = blockTime > STAKED_DECEMBER_HARDFORK_TIMESTAMP;
  for (const input of tx.vin) {
    if (input.sequence >>> 0 === 0xfffffffe) {
      const notReached = byHeight ? lockTime > height : lockTime > blockTime;
      if (!hardfork && notReached) continue;
      if (hardfork && !notReached) continue;
    }
    if (input.sequence >>> 0 !== 0xffffffff) return false;
  }
  return true;
}

/** IsExpiredTx: an expiry height is set, the transaction is no coinbase, and `height` is past it. */
export function isExpiredTx(tx: Transaction, height: number): boolean {
  if (tx.expiryHeight === 0 || tx.isCoinbase()) return false;
  return height >>> 0 > tx.expiryHeight >>> 0;
}
