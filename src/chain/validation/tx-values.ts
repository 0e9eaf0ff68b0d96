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
  for (const out of tx.vout) sum += out.value;
  if (tx.valueBalance <= 0n) sum += -tx.valueBalance;
  for (const js of tx.joinSplits) sum += js.vpubOld;
  return sum;
}

/** GetShieldedValueIn: what the shielded pools give to the transparent one (positive valueBalance, vpub_new). */
export function shieldedValueIn(tx: Transaction): bigint {
  let sum = 0n;
  if (tx.valueBalance >= 0n) sum += tx.valueBalance;
  for (const js of tx.joinSplits) sum += js.vpubNew;
  return sum;
}

/** GetSerializeSize(tx, SER_NETWORK, PROTOCOL_VERSION). */
export function txSize(tx: Transaction): number {
  return tx.toRaw().length;
}
