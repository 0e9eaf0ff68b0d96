import { BaseSignatureChecker } from '../script/checker.js';
import { SCRIPT_VERIFY_NONE } from '../script/flags.js';
import { evalScript } from '../script/interpreter.js';
import { isPushOnly, isUnspendable } from '../script/script.js';
import { type Solution, type TxoutType, solver } from '../script/standard.js';
import { compactSizeLength } from '../encoding/writer.js';
import type { Transaction } from '../tx/transaction.js';
import type { TxOut } from '../tx/output.js';
import type { CoinView } from './coin.js';
import { type ValidationContext, isOverwinterActive, isSaplingActive } from './context.js';
import { REJECT_INVALID, REJECT_NONSTANDARD, reject } from './errors.js';
import { IGUANA_MAXSCRIPTSIZE } from '../consensus/script.js';
import { isCoinImport } from './tx-values.js';
import { scriptSigOpCount } from './sigops.js';
import { COIN } from '../consensus/amount.js';
import { OVERWINTER_CURRENT_VERSION, SAPLING_CURRENT_VERSION, SPROUT_MAX_CURRENT_VERSION, SPROUT_MIN_CURRENT_VERSION } from '../consensus/tx.js';

/**
 * Relay policy (not consensus) of komodod's AcceptToMemoryPool: IsStandardTx, AreInputsStandard, dust,
 * the minimum relay fee rate and the absurd-fee guard.
 */

/** DEFAULT_MIN_RELAY_TX_FEE (main.h): satoshis per 1000 bytes. */
export const DEFAULT_MIN_RELAY_TX_FEE = 100n;
/** The largest scriptSig IsStandardTx accepts. */
export const MAX_STANDARD_SCRIPTSIG_SIZE = 1650;
/** MAX_P2SH_SIGOPS (main.h): sigops a nonstandard P2SH redeem script may have. */
export const MAX_P2SH_SIGOPS = 15;
/** Multisig outputs are standard up to x-of-9 (script/standard.cpp IsStandard). */
export const MAX_STANDARD_MULTISIG_KEYS = 9;

/** CFeeRate(rate).GetFee(size): rate × size / 1000, at least the rate itself when that rounds to 0. */
export function feeForSize(ratePerK: bigint, size: number): bigint {
  let fee = (ratePerK * BigInt(size)) / 1000n;
  if (fee === 0n && ratePerK > 0n) fee = ratePerK;
  return fee;
}

/** ::minRelayTxFee.GetFee(size) at the default 100 sat/kB. */
export function minRelayFee(size: number): bigint {
  return feeForSize(DEFAULT_MIN_RELAY_TX_FEE, size);
}

/** CTxOut::GetDustThreshold: 3 × the relay fee of the output plus a 148-byte input; 0 for unspendable scripts. */
export function dustThreshold(out: TxOut): bigint {
  if (isUnspendable(out.script)) return 0n;
  const size = 8 + compactSizeLength(out.script.length) + out.script.length + 148;
  return 3n * minRelayFee(size);
}

/** CTxOut::IsDust at the default relay fee: 54 sat for P2PKH, 57 for a 35-byte P2PK; never OP_RETURN. */
export function isDust(out: TxOut): boolean {
  return out.value < dustThreshold(out);
}

/** The fee above which AcceptToMemoryPool calls a fee absurd (with fee > valueOut/19 as well). */
export function absurdFeeLimit(size: number): bigint {
  return minRelayFee(size) * 10000n;
}

/**
 * AcceptToMemoryPool's absurd-fee guard (skipped with allowhighfees and for coin imports). komodod uses
 * state.Error, so sendrawtransaction answers -25 with this text rather than a reject code.
 */
export function checkAbsurdFee(tx: Transaction, fee: bigint, size: number, valueOut: bigint): void {
  if (isCoinImport(tx)) return;
  const limit = absurdFeeLimit(size);
  if (fee > limit && fee > valueOut / 19n)
    reject(0, `AcceptToMemoryPool: absurdly high fees ${tx.txid()}, ${fee} > ${limit}`, 0, { mode: 'error' });
}

/** AcceptToMemoryPool's sigops limit (legacy + P2SH sigops, counted by the caller): 64 bad-txns-too-many-sigops. */
export function checkStandardSigOps(sigops: number, ctx: ValidationContext): void {
  if (sigops > ctx.maxStandardTxSigops) reject(REJECT_NONSTANDARD, 'bad-txns-too-many-sigops', 1);
}

/**
 * AcceptToMemoryPool's "tx valueout is too big": more than 777777 coins out and, beyond those, more
 * than KOMODO_VALUETOOBIG's 10000000001 coins.
 */
export function checkValueOutNotTooBig(valueOut: bigint): void {
  const room = 777_777n * COIN;
  if (valueOut > room && valueOut - room > 10_000_000_001n * COIN) reject(REJECT_INVALID, 'tx valueout is too big', 100);
}

export interface StandardOptions {
  /** -datacarriersize: the largest standard OP_RETURN script (208 on asset chains). */
  dataCarrierSize: number;
  /** -datacarrier (default true): OP_RETURN outputs are standard at all. */
  dataCarrier?: boolean;
  /** -permitbaremultisig (default true). */
  permitBareMultisig?: boolean;
}

/** ::IsStandard(scriptPubKey, whichType): the template, multisig bounds and the OP_RETURN size. */
export function isStandardScript(
  script: Uint8Array,
  ctx: Pick<ValidationContext, 'ccEnabled' | 'isSupportedCondition'>,
  opts: StandardOptions,
): { standard: boolean; type: TxoutType } {
  const sol: Solution = solver(script, {
    ccEnabled: ctx.ccEnabled,
    ...(ctx.isSupportedCondition ? { isSupportedCondition: ctx.isSupportedCondition } : {}),
  });
  const type = sol.type;
  if (type === 'nonstandard') return { standard: false, type };
  if (type === 'multisig') {
    const m = sol.solutions[0]![0]!;
    const n = sol.solutions[sol.solutions.length - 1]![0]!;
    if (n < 1 || n > MAX_STANDARD_MULTISIG_KEYS || m < 1 || m > n) return { standard: false, type };
  } else if (type === 'nulldata' && (opts.dataCarrier === false || script.length > opts.dataCarrierSize)) {
    return { standard: false, type };
  }
  return { standard: true, type };
}

/**
 * IsStandardTx (main.cpp:855-932) for a transaction going into a block at `height`: the reason string
 * it would give (64 REJECT_NONSTANDARD), or null when standard.
 */
export function isStandardTx(
  tx: Transaction,
  height: number,
  ctx: ValidationContext & StandardOptions,
): string | null {
  if (isSaplingActive(ctx, height)) {
    if (tx.version > SAPLING_CURRENT_VERSION || tx.version < SAPLING_CURRENT_VERSION) return 'sapling-version';
  } else if (isOverwinterActive(ctx, height)) {
    if (tx.version > OVERWINTER_CURRENT_VERSION || tx.version < OVERWINTER_CURRENT_VERSION) return 'overwinter-version';
  } else if (tx.version > SPROUT_MAX_CURRENT_VERSION || tx.version < SPROUT_MIN_CURRENT_VERSION) {
    return 'version';
  }

  for (const input of tx.vin) {
    if (input.scriptSig.length > MAX_STANDARD_SCRIPTSIG_SIZE) return 'scriptsig-size';
    if (!isPushOnly(input.scriptSig)) return 'scriptsig-not-pushonly';
  }

  let nDataOut = 0;
  for (const out of tx.vout) {
    const { standard, type } = isStandardScript(out.script, ctx, ctx);
    if (!standard) return 'scriptpubkey';
    if (type === 'nulldata') {
      if (out.script.length > IGUANA_MAXSCRIPTSIZE) return 'opreturn too big';
      nDataOut++;
    } else if (type === 'multisig' && ctx.permitBareMultisig === false) {
      return 'bare-multisig';
    } else if (type !== 'cryptocondition' && isDust(out)) {
      return 'dust';
    }
  }
  if (nDataOut > 1) return 'multi-op-return';
  return null;
}

/** ScriptSigArgsExpected: how many stack items a standard scriptSig for this template leaves. */
function scriptSigArgsExpected(sol: Solution): number {
  switch (sol.type) {
    case 'nonstandard':
    case 'nulldata':
      return -1;
    case 'pubkey':
      return 1;
    case 'pubkeyhash':
      return 2;
    case 'multisig':
      return sol.solutions.length < 1 || sol.solutions[0]!.length < 1 ? -1 : sol.solutions[0]![0]! + 1;
    case 'scripthash':
    case 'cryptocondition':
      return 1;
  }
}

/**
 * AreInputsStandard (main.cpp:1030-1092): each scriptSig leaves exactly the items its output's template
 * expects (P2SH: plus those of a standard redeem script). A nonstandard redeem script with at most 15
 * sigops ends the check as a success for the whole transaction, as in komodod (it returns from inside
 * the loop). komodod reports a failure without a reason: sendrawtransaction answers -25 "".
 * The view must hold every input (checkTxInputs or the caller has made sure).
 */
export function areInputsStandard(
  tx: Transaction,
  view: CoinView,
  branchId: number,
  ctx: Pick<ValidationContext, 'ccEnabled' | 'isSupportedCondition'> = { ccEnabled: false },
): boolean {
  if (tx.isCoinbase()) return true;
  // A coin import's scriptSig is judged by IsCoinImport(scriptSig): acnode has no import path, so none is standard.
  if (isCoinImport(tx)) return false;
  void branchId; // EvalScript with SCRIPT_VERIFY_NONE and no checker never reaches a signature hash.
  const solverOpts = {
    ccEnabled: ctx.ccEnabled,
    ...(ctx.isSupportedCondition ? { isSupportedCondition: ctx.isSupportedCondition } : {}),
  };
  for (const input of tx.vin) {
    const coin = view.coin(input.prevout.txid(), input.prevout.index);
    if (!coin) return false;
    const sol = solver(coin.script, solverOpts);
    if (sol.type === 'nonstandard') return false;
    let expected = scriptSigArgsExpected(sol);
    if (expected < 0) return false;

    const stack: Uint8Array[] = [];
    if (!evalScript(stack, input.scriptSig, SCRIPT_VERIFY_NONE, new BaseSignatureChecker(), { ccEnabled: ctx.ccEnabled }).ok)
      return false;

    if (sol.type === 'scripthash') {
      if (stack.length === 0) return false;
      const subscript = stack[stack.length - 1]!;
      const sub = solver(subscript, solverOpts);
      if (sub.type !== 'nonstandard') {
        const more = scriptSigArgsExpected(sub);
        if (more < 0) return false;
        expected += more;
      } else {
        return scriptSigOpCount(subscript, true) <= MAX_P2SH_SIGOPS;
      }
    }
    if (stack.length !== expected) return false;
  }
  return true;
}

