import { verifyDER } from '../../chain/crypto/secp256k1.js';
import { OP_CHECKCRYPTOCONDITION, OP_CHECKCRYPTOCONDITIONVERIFY } from '../../chain/script/opcodes.js';
import { TransactionSignatureChecker } from '../../chain/script/checker.js';
import { SCRIPT_VERIFY_P2SH, STANDARD_NOT_MANDATORY_VERIFY_FLAGS } from '../../chain/script/flags.js';
import { verifyScript } from '../../chain/script/interpreter.js';
import { scriptErrorString, type ScriptError } from '../../chain/script/script-error.js';
import { getOp, isP2SH, skipOp } from '../../chain/script/script.js';
import { PrecomputedTxData } from '../../chain/script/sighash.js';
import { isValidPubKeySize } from '../../chain/script/standard.js';
import { Transaction } from '../../chain/tx/transaction.js';
import { BufferReader } from '../../chain/encoding/reader.js';
import { BufferWriter } from '../../chain/encoding/writer.js';
import { REJECT_INVALID, REJECT_NONSTANDARD, ValidationError } from '../../chain/validation/errors.js';
import { SignatureCache } from '../../chain/validation/scripts.js';

/**
 * The script check of one input, split from checkInputScripts (src/chain/validation/scripts.ts) so that
 * it can run in a worker thread: the same VerifyScript runs, the same policy re-run, and the same
 * ValidationError at the end, built on the main thread from the outcome.
 */

/** What checking one input found: valid, or the first run's error and whether the mandatory-only re-run passed. */
export type InputOutcome = { ok: true } | { ok: false; error: ScriptError; policyOnly: boolean };

/** The spent output an input is checked against. */
export interface SpentOutput {
  value: bigint;
  script: Uint8Array;
}

/**
 * A batch posted to a worker. `data` packs its transactions in one buffer (one copy when posted; the
 * scripts of a parsed block are views into the whole block's bytes, which must not travel with each):
 * per transaction, its serialisation, then a CompactSize count of inputs to check and, for each, the
 * input index (CompactSize), the spent value (int64) and the spent script (CompactSize-prefixed).
 */
export interface ScriptBatch {
  id: number;
  flags: number;
  branchId: number;
  ccEnabled: boolean;
  /** Return the cache keys of the signatures that verified (when the caller stores into its cache). */
  collectKeys: boolean;
  data: Uint8Array;
}

/**
 * writeBatchTx for inputs `ns` of `tx` (every input when null), `spent` holding each input's spent
 * output by input index: no object per input (ScriptChecks.defer, once per input of every burst).
 */
export function writeBatchTxInputs(w: BufferWriter, tx: Transaction, spent: readonly SpentOutput[], ns: readonly number[] | null, raw?: Uint8Array): void {
  // The caller's serialisation of the transaction when it has one (the mempool does), else a new one.
  if (raw) w.bytes(raw);
  else tx.write(w);
  const count = ns ? ns.length : spent.length;
  w.compactSize(count);
  for (let k = 0; k < count; k++) {
    const n = ns ? ns[k]! : k;
    w.compactSize(n);
    w.i64(spent[n]!.value);
    w.varBytes(spent[n]!.script);
  }
}

/** Appends a transaction and the inputs of it to check to a batch's data. */
export function writeBatchTx(w: BufferWriter, tx: Transaction, inputs: readonly { n: number; value: bigint; script: Uint8Array }[], raw?: Uint8Array): void {
  const spent: SpentOutput[] = [];
  for (const i of inputs) spent[i.n] = i;
  writeBatchTxInputs(w, tx, spent, inputs.map((i) => i.n), raw);
}

/**
 * Per input: its outcome, or null when it reached a crypto-condition (the main thread checks it); and
 * per transaction the cache keys' bytes (SignatureCache.keyBytes: the caller makes the keys, so a
 * worker's travel as bytes, not as strings turned back into bytes).
 */
export type BatchResult =
  | { id: number; outcomes: (InputOutcome | null)[][]; keys: Uint8Array[][] | null }
  | { id: number; error: string };

/**
 * checkInputScripts' per-input rule: VerifyScript with `flags`; on failure with policy flags set, a
 * re-run with the mandatory part only decides between policy (64, no DoS) and consensus (16, DoS 100).
 * `checker()` makes a fresh signature checker for each run, as the serial path does.
 */
export function checkInputOutcome(
  scriptSig: Uint8Array,
  spent: SpentOutput,
  flags: number,
  ccEnabled: boolean,
  checker: () => TransactionSignatureChecker,
): InputOutcome {
  const r = verifyScript(scriptSig, spent.script, flags, checker(), { ccEnabled });
  if (r.ok) return OK_OUTCOME;
  return failedOutcome(r.error, flags, (mandatory) => verifyScript(scriptSig, spent.script, mandatory, checker(), { ccEnabled }).ok);
}

/**
 * A failed run's outcome: policy only (64, no DoS) when policy flags were set and `passes` says the
 * mandatory part alone passes, else consensus (16, DoS 100). The rule checkInputOutcome and the
 * worker's batches share.
 */
function failedOutcome(error: ScriptError, flags: number, passes: (mandatoryFlags: number) => boolean): InputOutcome {
  const policyOnly = (flags & STANDARD_NOT_MANDATORY_VERIFY_FLAGS) !== 0 && passes(flags & ~STANDARD_NOT_MANDATORY_VERIFY_FLAGS);
  return { ok: false, error, policyOnly };
}

/** The ValidationError checkInputScripts throws for a failed input `n`. */
export function outcomeError(outcome: Extract<InputOutcome, { ok: false }>, n: number): ValidationError {
  const text = scriptErrorString(outcome.error);
  if (outcome.policyOnly) return new ValidationError(REJECT_NONSTANDARD, `non-mandatory-script-verify-flag (${text})`, 0);
  return new ValidationError(REJECT_INVALID, `mandatory-script-verify-flag-failed (${text})`, 100, { debug: `input ${n}` });
}

/** The digest of a checkSig call, or undefined where the serial checker answers false without one. */
function digestOf(c: TransactionSignatureChecker, sigWithHashType: Uint8Array, pubkey: Uint8Array, scriptCode: Uint8Array): Uint8Array | undefined {
  if (!isValidPubKeySize(pubkey) || sigWithHashType.length === 0) return undefined;
  try {
    return c.sighash(scriptCode, sigWithHashType[sigWithHashType.length - 1]!);
  } catch {
    return undefined;
  }
}

/**
 * The worker's checker: CachingSignatureChecker's checkSig without a cache (the main thread looked
 * there first), recording the cache key of every signature that verified. A crypto-condition is never
 * checked here (its eval code reads chain state): the main thread keeps such inputs, and should one
 * get here the input is reported as needing the main thread.
 */
export class RecordingSignatureChecker extends TransactionSignatureChecker {
  ccCalled = false;

  constructor(
    tx: Transaction,
    nIn: number,
    amount: bigint,
    branchId: number,
    txdata: PrecomputedTxData,
    private readonly keys: Uint8Array[] | null,
  ) {
    super(tx, nIn, amount, branchId, txdata);
  }

  override checkSig(sigWithHashType: Uint8Array, pubkey: Uint8Array, scriptCode: Uint8Array): boolean {
    const digest = digestOf(this, sigWithHashType, pubkey, scriptCode);
    if (!digest) return false;
    const sig = sigWithHashType.subarray(0, sigWithHashType.length - 1);
    if (!verifyDER(sig, digest, pubkey, false)) return false;
    this.keys?.push(SignatureCache.keyBytes(digest, sig, pubkey));
    return true;
  }

  override checkCryptoCondition(): false {
    this.ccCalled = true;
    return false;
  }
}

/**
 * The main thread's look-ahead: CachingSignatureChecker answering from the cache only. A signature not
 * in the cache (or a crypto-condition) marks the run `missed`, and its outcome is then thrown away: the
 * input goes to a worker. A run that never missed is exactly the serial path's run.
 */
export class CacheOnlySignatureChecker extends TransactionSignatureChecker {
  missed = false;

  constructor(tx: Transaction, nIn: number, amount: bigint, branchId: number, txdata: PrecomputedTxData, private readonly cache: SignatureCache) {
    super(tx, nIn, amount, branchId, txdata);
  }

  override checkSig(sigWithHashType: Uint8Array, pubkey: Uint8Array, scriptCode: Uint8Array): boolean {
    if (this.missed) return false;
    const digest = digestOf(this, sigWithHashType, pubkey, scriptCode);
    if (!digest) return false;
    if (this.cache.has(SignatureCache.key(digest, sigWithHashType.subarray(0, sigWithHashType.length - 1), pubkey))) return true;
    this.missed = true;
    return false;
  }

  override checkCryptoCondition(): false {
    this.missed = true;
    return false;
  }
}

function hasCCOp(script: Uint8Array, alsoPushes: boolean): boolean {
  // Opcodes alone (every input's scriptPubKey, and its scriptSig but for P2SH): walked without the
  // object and data view getOp makes per instruction (a P2PKH input made seven).
  if (!alsoPushes) {
    for (let pc = 0; ; ) {
      const next = skipOp(script, pc);
      if (next < 0) return false;
      const op = script[pc]!;
      if (op === OP_CHECKCRYPTOCONDITION || op === OP_CHECKCRYPTOCONDITIONVERIFY) return true;
      pc = next;
    }
  }
  let pc = 0;
  for (;;) {
    const r = getOp(script, pc);
    if (!r) return false;
    if (r.op === OP_CHECKCRYPTOCONDITION || r.op === OP_CHECKCRYPTOCONDITIONVERIFY) return true;
    if (alsoPushes && r.data && r.data.length > 0 && hasCCOp(r.data, false)) return true;
    pc = r.next;
  }
}

/**
 * Whether checking this input can reach OP_CHECKCRYPTOCONDITION (whose eval code reads the chain as it
 * stands at this transaction): the opcode in the scriptSig or the scriptPubKey, or, for P2SH, in any
 * push of the scriptSig (the redeem script is one of them). Such inputs are checked on the main thread,
 * in block order. Without -ac_cc the opcode is a bad opcode and never calls the checker.
 */
export function needsMainThread(scriptSig: Uint8Array, scriptPubKey: Uint8Array, flags: number, ccEnabled: boolean): boolean {
  if (!ccEnabled) return false;
  if (hasCCOp(scriptPubKey, false)) return true;
  // SCRIPT_VERIFY_P2SH is what makes the redeem script run.
  return hasCCOp(scriptSig, (flags & SCRIPT_VERIFY_P2SH) !== 0 && isP2SH(scriptPubKey));
}

/** Runs a batch (in a worker, or on the main thread when the pool cannot). */
export function runBatch(batch: ScriptBatch): BatchResult {
  const outcomes: (InputOutcome | null)[][] = [];
  const keys: Uint8Array[][] | null = batch.collectKeys ? [] : null;
  const { flags, branchId, ccEnabled } = batch;
  const r = new BufferReader(batch.data);
  while (r.left > 0) {
    // Views into the batch: the transaction lives only while its batch is checked.
    const tx = Transaction.read(r, true);
    const count = r.compactSize();
    const txdata = new PrecomputedTxData(tx);
    const txOutcomes = new Array<InputOutcome | null>(count);
    const txKeys: Uint8Array[] | null = keys ? [] : null;
    // Each input read and checked in turn: checkInputOutcome's steps without its checker factory
    // (a closure, an array of the checkers made and a search of it, per input).
    for (let k = 0; k < count; k++) {
      const n = r.compactSize();
      const spent: SpentOutput = { value: r.i64(), script: r.varBytes() };
      const scriptSig = tx.vin[n]!.scriptSig;
      const first = new RecordingSignatureChecker(tx, n, spent.value, branchId, txdata, txKeys);
      const run = verifyScript(scriptSig, spent.script, flags, first, { ccEnabled });
      let cc = first.ccCalled;
      // The failure path alone makes a closure (the re-run's checker may meet a crypto-condition too).
      const outcome = run.ok
        ? OK_OUTCOME
        : failedOutcome(run.error, flags, (mandatory) => {
            const again = new RecordingSignatureChecker(tx, n, spent.value, branchId, txdata, txKeys);
            const passes = verifyScript(scriptSig, spent.script, mandatory, again, { ccEnabled }).ok;
            cc ||= again.ccCalled;
            return passes;
          });
      txOutcomes[k] = cc ? null : outcome;
    }
    outcomes.push(txOutcomes);
    if (txKeys) keys!.push(txKeys);
  }
  return { id: batch.id, outcomes, keys };
}

/** Every passing input's outcome, shared (no outcome is changed after it is made). */
const OK_OUTCOME: InputOutcome = { ok: true };
