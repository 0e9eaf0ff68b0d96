import { BufferWriter } from '../encoding/writer.js';
import { blake2b256, personalization, sha256d } from '../crypto/hash.js';
import { SAPLING_VERSION_GROUP_ID } from '../consensus/tx.js';
import type { Transaction } from '../tx/transaction.js';

/**
 * Transaction signature hashes as komodod's SignatureHash (script/interpreter.cpp) computes them:
 * legacy double SHA-256 for non-overwintered transactions, ZIP-143 for Overwinter and ZIP-243 for
 * Sapling. The transaction's format picks the algorithm; the branch id only personalises BLAKE2b.
 */

export const SIGHASH_ALL = 1;
export const SIGHASH_NONE = 2;
export const SIGHASH_SINGLE = 3;
export const SIGHASH_ANYONECANPAY = 0x80;

/** nIn for the hash that joinSplitSig and bindingSig sign (komodod's UINT_MAX). */
export const NOT_AN_INPUT = 0xffffffff;

/** komodod's std::logic_error from SignatureHash; its signature checker turns it into "invalid". */
export class SighashError extends Error {
  override readonly name = 'SighashError';
  constructor(message: string) {
    super(message);
  }
}

const PREVOUTS = personalization('ZcashPrevoutHash');
const SEQUENCE = personalization('ZcashSequencHash'); // sic: 16 characters in komodod too
const OUTPUTS = personalization('ZcashOutputsHash');
const JOINSPLITS = personalization('ZcashJSplitsHash');
const SHIELDED_SPENDS = personalization('ZcashSSpendsHash');
const SHIELDED_OUTPUTS = personalization('ZcashSOutputHash');
const ZERO32: Uint8Array = new Uint8Array(32);
const NULL_SIG = new Uint8Array(64);

/**
 * Scratch writers: every preimage part is hashed as soon as it is written, and nothing here yields, so
 * two suffice (parts, and the preimage that holds their hashes); a fresh writer per part cost more than
 * the BLAKE2b of a one-input transaction.
 */
const PART = new BufferWriter(1024);
const PREIMAGE = new BufferWriter(1024);

function prevoutsHash(tx: Transaction): Uint8Array {
  const w = PART.reset();
  for (const input of tx.vin) input.prevout.write(w);
  return blake2b256(w.buffer(), PREVOUTS, w.length);
}

function sequenceHash(tx: Transaction): Uint8Array {
  const w = PART.reset();
  for (const input of tx.vin) w.u32(input.sequence);
  return blake2b256(w.buffer(), SEQUENCE, w.length);
}

function outputsHash(tx: Transaction): Uint8Array {
  const w = PART.reset();
  for (const output of tx.vout) output.write(w);
  return blake2b256(w.buffer(), OUTPUTS, w.length);
}

function joinSplitsHash(tx: Transaction): Uint8Array {
  const w = PART.reset();
  for (const js of tx.joinSplits) js.write(w);
  w.bytes(tx.joinSplitPubKey);
  return blake2b256(w.buffer(), JOINSPLITS, w.length);
}

function shieldedSpendsHash(tx: Transaction): Uint8Array {
  const w = PART.reset();
  for (const spend of tx.shieldedSpends) spend.writeWithoutSig(w);
  return blake2b256(w.buffer(), SHIELDED_SPENDS, w.length);
}

function shieldedOutputsHash(tx: Transaction): Uint8Array {
  const w = PART.reset();
  for (const output of tx.shieldedOutputs) output.write(w);
  return blake2b256(w.buffer(), SHIELDED_OUTPUTS, w.length);
}

/** 'ZcashSigHash' || LE32(branch id), made once per branch id (a chain has a handful). */
const SIGHASH_PERSONALIZATION = new Map<number, Uint8Array>();
function sighashPersonalization(branchId: number): Uint8Array {
  let p = SIGHASH_PERSONALIZATION.get(branchId);
  if (!p) {
    const branch = new Uint8Array(4);
    new DataView(branch.buffer).setUint32(0, branchId >>> 0, true);
    p = personalization('ZcashSigHash', branch);
    if (SIGHASH_PERSONALIZATION.size < 64) SIGHASH_PERSONALIZATION.set(branchId, p);
  }
  return p;
}

/**
 * PrecomputedTransactionData: the ZIP-143/243 sub-hashes that do not depend on the input, computed
 * once per transaction so hashing every input stays linear. The transaction must not change after.
 */
export class PrecomputedTxData {
  readonly hashPrevouts: Uint8Array;
  readonly hashSequence: Uint8Array;
  readonly hashOutputs: Uint8Array;
  readonly hashJoinSplits: Uint8Array;
  readonly hashShieldedSpends: Uint8Array;
  readonly hashShieldedOutputs: Uint8Array;

  constructor(tx: Transaction) {
    this.hashPrevouts = prevoutsHash(tx);
    this.hashSequence = sequenceHash(tx);
    this.hashOutputs = outputsHash(tx);
    // Empty parts hash as zeros in the preimage: no BLAKE2b for them.
    this.hashJoinSplits = tx.joinSplits.length === 0 ? ZERO32 : joinSplitsHash(tx);
    this.hashShieldedSpends = tx.shieldedSpends.length === 0 ? ZERO32 : shieldedSpendsHash(tx);
    this.hashShieldedOutputs = tx.shieldedOutputs.length === 0 ? ZERO32 : shieldedOutputsHash(tx);
  }
}

/**
 * The 32-byte digest (natural byte order, the one ECDSA signs) of input `nIn` of `tx` spending an
 * output with script `scriptCode` and value `amount`. `hashType` is the full 32-bit value: its low
 * five bits give the base type and 0x80 ANYONECANPAY, and all 32 bits are hashed.
 * Throws SighashError where komodod throws logic_error.
 */
export function signatureHash(
  scriptCode: Uint8Array,
  tx: Transaction,
  nIn: number,
  hashType: number,
  amount: bigint,
  branchId: number,
  cache?: PrecomputedTxData,
): Uint8Array {
  if (nIn !== NOT_AN_INPUT && (nIn < 0 || nIn >= tx.vin.length)) {
    throw new SighashError('input index is out of range');
  }
  if (tx.overwintered) return zcashSignatureHash(scriptCode, tx, nIn, hashType, amount, branchId, cache);
  return legacySignatureHash(scriptCode, tx, nIn, hashType);
}

/** ZIP-143 (Overwinter) and ZIP-243 (Sapling, chosen by the version group id). */
function zcashSignatureHash(
  scriptCode: Uint8Array,
  tx: Transaction,
  nIn: number,
  hashType: number,
  amount: bigint,
  branchId: number,
  cache?: PrecomputedTxData,
): Uint8Array {
  const sapling = tx.versionGroupId === SAPLING_VERSION_GROUP_ID;
  const anyoneCanPay = (hashType & SIGHASH_ANYONECANPAY) !== 0;
  const base = hashType & 0x1f;
  const singleOrNone = base === SIGHASH_SINGLE || base === SIGHASH_NONE;

  const hashPrevouts = anyoneCanPay ? ZERO32 : (cache?.hashPrevouts ?? prevoutsHash(tx));
  const hashSequence = anyoneCanPay || singleOrNone ? ZERO32 : (cache?.hashSequence ?? sequenceHash(tx));
  let hashOutputs: Uint8Array = ZERO32;
  if (!singleOrNone) {
    hashOutputs = cache?.hashOutputs ?? outputsHash(tx);
  } else if (base === SIGHASH_SINGLE && nIn < tx.vout.length) {
    // SIGHASH_SINGLE out of range (or NOT_AN_INPUT) hashes zeros here, without komodod's legacy throw.
    const w = PART.reset();
    tx.vout[nIn]!.write(w);
    hashOutputs = blake2b256(w.buffer(), OUTPUTS, w.length);
  }
  const hashJoinSplits = tx.joinSplits.length === 0 ? ZERO32 : (cache?.hashJoinSplits ?? joinSplitsHash(tx));

  // The parts hash through PART (the shielded ones while this is written), the preimage through PREIMAGE.
  const w = PREIMAGE.reset();
  w.u32(tx.header).u32(tx.versionGroupId);
  w.bytes(hashPrevouts).bytes(hashSequence).bytes(hashOutputs).bytes(hashJoinSplits);
  if (sapling) {
    w.bytes(tx.shieldedSpends.length === 0 ? ZERO32 : (cache?.hashShieldedSpends ?? shieldedSpendsHash(tx)));
    w.bytes(tx.shieldedOutputs.length === 0 ? ZERO32 : (cache?.hashShieldedOutputs ?? shieldedOutputsHash(tx)));
  }
  w.u32(tx.lockTime).u32(tx.expiryHeight);
  if (sapling) w.i64(tx.valueBalance);
  w.u32(hashType);
  if (nIn !== NOT_AN_INPUT) {
    const input = tx.vin[nIn]!;
    input.prevout.write(w);
    w.varBytes(scriptCode).i64(amount).u32(input.sequence);
  }

  return blake2b256(w.buffer(), sighashPersonalization(branchId), w.length);
}

/**
 * The pre-Overwinter hash (CTransactionSignatureSerializer): the transaction with every other
 * input's script blanked, outputs trimmed per hash type, and the JoinSplits for nVersion >= 2.
 * Unlike Bitcoin, the whole scriptCode is used (no OP_CODESEPARATOR handling, no FindAndDelete).
 */
function legacySignatureHash(scriptCode: Uint8Array, tx: Transaction, nIn: number, hashType: number): Uint8Array {
  const anyoneCanPay = (hashType & SIGHASH_ANYONECANPAY) !== 0;
  const base = hashType & 0x1f;
  const single = base === SIGHASH_SINGLE;
  const none = base === SIGHASH_NONE;

  // komodod throws here where Bitcoin would hash the value 1.
  if (single && nIn >= tx.vout.length) throw new SighashError('no matching output for SIGHASH_SINGLE');
  // komodod asserts (aborts) in this case; refuse it instead.
  if (anyoneCanPay && nIn === NOT_AN_INPUT) throw new SighashError('ANYONECANPAY needs an input');

  const w = new BufferWriter(256 + scriptCode.length);
  w.i32(tx.version);

  const nInputs = anyoneCanPay ? 1 : tx.vin.length;
  w.compactSize(nInputs);
  for (let i = 0; i < nInputs; i++) {
    const n = anyoneCanPay ? nIn : i;
    const input = tx.vin[n]!;
    input.prevout.write(w);
    if (n === nIn) w.varBytes(scriptCode);
    else w.compactSize(0);
    w.u32(n !== nIn && (single || none) ? 0 : input.sequence);
  }

  const nOutputs = none ? 0 : single ? nIn + 1 : tx.vout.length;
  w.compactSize(nOutputs);
  for (let i = 0; i < nOutputs; i++) {
    // SIGHASH_SINGLE: outputs before nIn are CTxOut() — value -1, empty script.
    if (single && i !== nIn) w.i64(-1n).compactSize(0);
    else tx.vout[i]!.write(w);
  }
  w.u32(tx.lockTime);

  if (tx.version >= 2) {
    w.compactSize(tx.joinSplits.length);
    for (const js of tx.joinSplits) js.write(w);
    // The signature cannot sign itself: 64 zero bytes stand in for joinSplitSig.
    if (tx.joinSplits.length > 0) w.bytes(tx.joinSplitPubKey).bytes(NULL_SIG);
  }
  w.i32(hashType);
  return sha256d(w.finish());
}
