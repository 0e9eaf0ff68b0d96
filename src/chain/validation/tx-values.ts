import type { Transaction } from '../tx/transaction.js';

/** The prevout index that marks a coin import (CTransaction::IsCoinImport: vin[0].prevout.n == 10e8). */
export const COIN_IMPORT_PREVOUT_N = 1_000_000_000;

/** CTransaction::IsCoinImport: one input whose prevout index is 10^9 (only fungible CC clusters create them). */
export function isCoinImport(tx: Transaction): boolean {
  return tx.vin.length === 1 && tx.vin[0]!.prevout.index === COIN_IMPORT_PREVOUT_N;
}

/** CTransaction::IsMint: a coinbase or a coin import (no ordinary inputs to check). */
export function isMint(tx: Transaction): boolean {
  return isCoinImport(tx) || tx.isCoinbase();
}

/**
 * GetValueOut: transparent outputs, plus what the shielded pools take (a negative valueBalance and
 * each JoinSplit's vpub_old). Callers have run checkTransaction, so no range check is repeated.
 */
export function valueOut(tx: Transaction): bigint {
  let sum = 0n;
  // Indexed loops (checkTransaction says why).
  for (let k = 0; k < tx.vout.length; k++) sum += tx.vout[k]!.value;
  if (tx.valueBalance <= 0n) sum += -tx.valueBalance;
  for (let k = 0; k < tx.joinSplits.length; k++) sum += tx.joinSplits[k]!.vpubOld;
  return sum;
}

/** GetShieldedValueIn: what the shielded pools give to the transparent one (positive valueBalance, vpub_new). */
export function shieldedValueIn(tx: Transaction): bigint {
  let sum = 0n;
  if (tx.valueBalance >= 0n) sum += tx.valueBalance;
  for (let k = 0; k < tx.joinSplits.length; k++) sum += tx.joinSplits[k]!.vpubNew;
  return sum;
}

/** GetSerializeSize(tx, SER_NETWORK, PROTOCOL_VERSION). */
export function txSize(tx: Transaction): number {
  return tx.toRaw().length;
}
