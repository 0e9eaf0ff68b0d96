import { verifyDER } from '../crypto/secp256k1.js';
import { type CryptoConditionChecker, TransactionSignatureChecker } from '../script/checker.js';
import { STANDARD_NOT_MANDATORY_VERIFY_FLAGS } from '../script/flags.js';
import { verifyScript } from '../script/interpreter.js';
import { scriptErrorString } from '../script/script-error.js';
import { PrecomputedTxData } from '../script/sighash.js';
import { isValidPubKeySize } from '../script/standard.js';
import type { Transaction } from '../tx/transaction.js';
import type { Coin, CoinView } from './coin.js';
import { MissingInputsError, REJECT_INVALID, REJECT_NONSTANDARD, reject } from './errors.js';
import { isCoinImport, isMint } from './tx-values.js';
import { FifoSet } from '../fifo.js';

/**
 * komodod's signature cache (script/sigcache.cpp): ECDSA checks that succeeded, keyed by
 * (sighash, signature, pubkey). The mempool stores into it as it accepts transactions; a block made of
 * those transactions then connects without verifying their signatures again. Bounded: the oldest
 * entries go first.
 */
export class SignatureCache {
  private readonly entries: FifoSet<string>;

  /** A bound of 0 keeps the newest entry (as the eviction it replaced did, for a throwaway cache). */
  constructor(readonly maxEntries = 100_000) {
    this.entries = new FifoSet(Math.max(1, maxEntries));
  }

  /**
   * The entry for a verified signature: its bytes as a Latin-1 string (half the length of hex, one
   * copy, no encoding work), the pubkey's length before it so that no two triples share an entry.
   */
  static key(sighash: Uint8Array, sig: Uint8Array, pubkey: Uint8Array): string {
    return SignatureCache.keyBytes(sighash, sig, pubkey).toString('latin1');
  }

  /** The key's bytes (a script-check worker sends these; keyOf makes the key of them). */
  static keyBytes(sighash: Uint8Array, sig: Uint8Array, pubkey: Uint8Array): Buffer {
    const b = Buffer.allocUnsafe(sighash.length + 1 + pubkey.length + sig.length);
    b.set(sighash, 0);
    b[sighash.length] = pubkey.length;
    b.set(pubkey, sighash.length + 1);
    b.set(sig, sighash.length + 1 + pubkey.length);
    return b;
  }

  /** The key of keyBytes' bytes. */
  static keyOf(bytes: Uint8Array): string {
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  add(key: string): void {
    this.entries.add(key);
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}

/** CachingTransactionSignatureChecker: a cache hit skips the ECDSA verification. */
class CachingSignatureChecker extends TransactionSignatureChecker {
  constructor(
    tx: Transaction,
    nIn: number,
    amount: bigint,
    branchId: number,
    txdata: PrecomputedTxData,
    ccChecker: CryptoConditionChecker | undefined,
    private readonly cache: SignatureCache,
    private readonly store: boolean,
  ) {
    super(tx, nIn, amount, branchId, txdata, ccChecker ? { ccChecker } : {});
  }

  override checkSig(sigWithHashType: Uint8Array, pubkey: Uint8Array, scriptCode: Uint8Array): boolean {
    if (!isValidPubKeySize(pubkey) || sigWithHashType.length === 0) return false;
    let digest: Uint8Array;
    try {
      digest = this.sighash(scriptCode, sigWithHashType[sigWithHashType.length - 1]!);
    } catch {
      return false;
    }
    const sig = sigWithHashType.subarray(0, sigWithHashType.length - 1);
    // An empty cache cannot answer, and one not stored into needs no entry (a -reindex's blocks, before any mempool).
    if (!this.store && this.cache.size === 0) return verifyDER(sig, digest, pubkey, false);
    const key = SignatureCache.key(digest, sig, pubkey);
    if (this.cache.has(key)) return true;
    if (!verifyDER(sig, digest, pubkey, false)) return false;
    if (this.store) this.cache.add(key);
    return true;
  }
}

export interface InputScriptOptions {
  /** The crypto-conditions verifier (eval dispatch) for CC inputs. */
  ccChecker?: CryptoConditionChecker;
  /** -ac_cc ≠ 0. Defaults to whether a ccChecker is given. */
  ccEnabled?: boolean;
  cache?: SignatureCache;
  /** Add verified signatures to the cache: true from the mempool, false when connecting a block (as komodod). */
  cacheStore?: boolean;
  /** Reuse the transaction's ZIP-143/243 midstate hashes if the caller has them. */
  txdata?: PrecomputedTxData;
  /**
   * VerifyCoinImport for a coin import (its scriptSig must be one push of an EVAL_IMPORTCOIN condition
   * that the eval dispatch accepts). Absent, every coin import is refused: acnode has no import path.
   */
  verifyCoinImport?: (tx: Transaction) => boolean;
}

/**
 * The script half of ContextualCheckInputs (main.cpp:2800-2870): VerifyScript for every input against
 * the output it spends. When a check with policy flags fails, komodod re-runs it with only the
 * mandatory part of those flags: if that passes, the failure is policy (64
 * `non-mandatory-script-verify-flag (<error>)`, no ban), else 16
 * `mandatory-script-verify-flag-failed (<error>)` with DoS 100. Both texts carry the error of the first
 * (full-flags) run. A coinbase has no scripts to run; a coin import is checked by VerifyCoinImport instead.
 */
export function checkInputScripts(
  tx: Transaction,
  view: CoinView,
  flags: number,
  branchId: number,
  opts: InputScriptOptions = {},
): void {
  if (isCoinImport(tx)) {
    // komodod: state.Invalid(false, 0, "invalid-coin-import"), no reject code, no DoS.
    if (!opts.verifyCoinImport?.(tx)) reject(0, 'invalid-coin-import', 0);
    return;
  }
  if (isMint(tx)) return;
  const ccEnabled = opts.ccEnabled ?? opts.ccChecker !== undefined;
  const cache = opts.cache ?? new SignatureCache(0);
  const store = opts.cache !== undefined && (opts.cacheStore ?? true);
  const txdata = opts.txdata ?? new PrecomputedTxData(tx);

  // Loops, not map and filter with a closure each: this runs on every transaction accepted.
  const coins = new Array<Coin | undefined>(tx.vin.length);
  let missing: string[] | undefined;
  for (let i = 0; i < tx.vin.length; i++) {
    const prevout = tx.vin[i]!.prevout;
    coins[i] = view.coin(prevout.txid(), prevout.index);
    if (coins[i] === undefined) (missing ??= []).push(prevout.key());
  }
  if (missing) throw new MissingInputsError(missing);

  const run: InputRun = { tx, branchId, txdata, ccChecker: opts.ccChecker, cache, store, ccEnabled };
  for (let i = 0; i < tx.vin.length; i++) {
    const coin = coins[i]!;
    const r = runInput(run, i, coin, flags);
    if (r.ok) continue;
    const text = scriptErrorString(r.error);
    if (flags & STANDARD_NOT_MANDATORY_VERIFY_FLAGS) {
      if (runInput(run, i, coin, flags & ~STANDARD_NOT_MANDATORY_VERIFY_FLAGS).ok)
        reject(REJECT_NONSTANDARD, `non-mandatory-script-verify-flag (${text})`, 0);
    }
    reject(REJECT_INVALID, `mandatory-script-verify-flag-failed (${text})`, 100, { debug: `input ${i}` });
  }
}

/** What every input's check of one transaction shares (a record, not a closure per input: tsx names each closure it makes). */
interface InputRun {
  tx: Transaction;
  branchId: number;
  txdata: PrecomputedTxData;
  ccChecker: InputScriptOptions['ccChecker'];
  cache: SignatureCache;
  store: boolean;
  ccEnabled: boolean;
}

/** VerifyScript of input `i` against the coin it spends, with `flags`. */
function runInput(run: InputRun, i: number, coin: Coin, flags: number): ReturnType<typeof verifyScript> {
  const checker = new CachingSignatureChecker(run.tx, i, coin.value, run.branchId, run.txdata, run.ccChecker, run.cache, run.store);
  return verifyScript(run.tx.vin[i]!.scriptSig, coin.script, flags, checker, { ccEnabled: run.ccEnabled });
}
