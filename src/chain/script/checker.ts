import { verifyDER } from '../crypto/secp256k1.js';
import type { Transaction } from '../tx/transaction.js';
import { LOCKTIME_THRESHOLD } from '../consensus/script.js';
import { PrecomputedTxData, signatureHash } from './sighash.js';
import { isValidPubKeySize } from './standard.js';

/**
 * komodod's BaseSignatureChecker (src/script/interpreter.h). The consensus branch id, which komodod
 * threads through EvalScript, is held by the checker here.
 *
 * checkCryptoCondition gets what komodod's CheckCryptoCondition gets at OP_CHECKCRYPTOCONDITION:
 * the scriptSig's payload (fulfillment DER followed by one hash-type byte, stack item -2), the
 * condition bytes pushed by the scriptPubKey (stack item -1, the raw condition, not a script) and the
 * script being executed (the whole scriptPubKey, OP_DROP data included; komodod ignores it and hashes
 * `<push condition-of-the-fulfillment> OP_CHECKCRYPTOCONDITION` instead).
 * It answers true (1), false (0), or -1 when the fulfillment cannot be decoded, which the interpreter
 * turns into SCRIPT_ERR_CRYPTOCONDITION_INVALID_FULFILLMENT as komodod does.
 */
export type CryptoConditionResult = boolean | -1;

export interface SignatureChecker {
  checkSig(sigWithHashType: Uint8Array, pubkey: Uint8Array, scriptCode: Uint8Array): boolean;
  checkLockTime(lockTime: bigint): boolean;
  checkCryptoCondition(fulfillmentWithHashType: Uint8Array, condition: Uint8Array, scriptCode: Uint8Array): CryptoConditionResult;
}

/** Every check fails (komodod's BaseSignatureChecker). */
export class BaseSignatureChecker implements SignatureChecker {
  checkSig(_sig: Uint8Array, _pubkey: Uint8Array, _scriptCode: Uint8Array): boolean {
    return false;
  }
  checkLockTime(_lockTime: bigint): boolean {
    return false;
  }
  checkCryptoCondition(_ffill: Uint8Array, _condition: Uint8Array, _scriptCode: Uint8Array): CryptoConditionResult {
    return false;
  }
}

/**
 * The crypto-conditions verifier (komodod's TransactionSignatureChecker::CheckCryptoCondition body),
 * supplied by the cc module: decode the fulfillment, check it is supported and signed, hash with
 * `checker.sighash(...)`, verify against `condition`.
 */
export type CryptoConditionChecker = (
  fulfillmentWithHashType: Uint8Array,
  condition: Uint8Array,
  scriptCode: Uint8Array,
  checker: TransactionSignatureChecker,
) => CryptoConditionResult;

export interface TransactionSignatureCheckerOptions {
  ccChecker?: CryptoConditionChecker;
}

/** komodod's TransactionSignatureChecker for input `nIn` of `tx`, spending an output worth `amount`. */
export class TransactionSignatureChecker implements SignatureChecker {
  readonly ccChecker: CryptoConditionChecker | undefined;

  constructor(
    readonly tx: Transaction,
    readonly nIn: number,
    readonly amount: bigint,
    readonly branchId: number,
    readonly precomputed?: PrecomputedTxData,
    options: TransactionSignatureCheckerOptions = {},
  ) {
    this.ccChecker = options.ccChecker;
  }

  /** SignatureHash for this input; throws where komodod throws (e.g. legacy SIGHASH_SINGLE out of range). */
  sighash(scriptCode: Uint8Array, hashType: number): Uint8Array {
    return signatureHash(scriptCode, this.tx, this.nIn, hashType, this.amount, this.branchId, this.precomputed);
  }

  checkSig(sigWithHashType: Uint8Array, pubkey: Uint8Array, scriptCode: Uint8Array): boolean {
    // CPubKey(vch).IsValid(): only the header/size match is checked here; the curve check is in verify.
    if (!isValidPubKeySize(pubkey)) return false;
    if (sigWithHashType.length === 0) return false;
    const hashType = sigWithHashType[sigWithHashType.length - 1]!;
    let digest: Uint8Array;
    try {
      digest = this.sighash(scriptCode, hashType);
    } catch {
      return false;
    }
    // CPubKey::Verify normalises S before verifying, so high-S verifies here (LOW_S is policy, checked earlier).
    return verifyDER(sigWithHashType.subarray(0, sigWithHashType.length - 1), digest, pubkey, false);
  }

  checkLockTime(lockTime: bigint): boolean {
    const txLockTime = BigInt(this.tx.lockTime);
    const threshold = BigInt(LOCKTIME_THRESHOLD);
    // Compare like with like: heights with heights, times with times.
    if (!((txLockTime < threshold && lockTime < threshold) || (txLockTime >= threshold && lockTime >= threshold))) return false;
    if (lockTime > txLockTime) return false;
    // A final input (nSequence 0xffffffff) would let nLockTime be bypassed.
    const input = this.tx.vin[this.nIn];
    if (!input || input.sequence === 0xffffffff) return false;
    return true;
  }

  checkCryptoCondition(fulfillmentWithHashType: Uint8Array, condition: Uint8Array, scriptCode: Uint8Array): CryptoConditionResult {
    // komodod: an empty payload is false before anything is decoded.
    if (fulfillmentWithHashType.length === 0) return false;
    if (!this.ccChecker) return false;
    return this.ccChecker(fulfillmentWithHashType, condition, scriptCode, this);
  }
}
