import { p2pkScript } from '../script/script.js';
import { parsePayToCryptoCondition } from '../script/standard.js';
import { Outpoint, TxIn } from '../tx/input.js';
import { TxOut } from '../tx/output.js';
import type { Transaction } from '../tx/transaction.js';
import { CC_MAXVINS } from './constants.js';
import type { Coin } from './select.js';

/** A coin as an unsigned input (empty scriptSig, final sequence). */
export function toTxIn(c: Coin): TxIn {
  return new TxIn(new Outpoint(c.txid.slice(), c.vout));
}

/**
 * The assembly half of komodod's FinalizeCCTx (CCtx.cpp), one function for every CC module as in
 * komodod: normal inputs standing before the first CC input all move to the end but the first; a
 * P2PK change output to mypk when the inputs cover outputs + 2·txfee (both totals count CC values);
 * the OP_RETURN last. Sets `tx.vin` from the coins in their final order and returns that order.
 */
export function finalizeCCTx<C extends Coin & { script: Uint8Array }>(
  tx: Transaction,
  spentIn: readonly C[],
  mypk: Uint8Array,
  opret: Uint8Array,
  txfee: bigint,
): { ok: true; spent: C[] } | { ok: false; error: string } {
  if (spentIn.length > CC_MAXVINS) return { ok: false, error: `FinalizeCCTx: ${spentIn.length} is too many vins` };
  let totalOutputs = 0n;
  for (const o of tx.vout) totalOutputs += o.value;
  let normalvins = 0;
  let ccvins = 0;
  for (const c of spentIn) {
    if (!parsePayToCryptoCondition(c.script) && ccvins === 0) normalvins++;
    else ccvins++;
  }
  let order = spentIn.map((_, i) => i);
  if (normalvins > 1 && ccvins > 0) order = [0, ...order.slice(normalvins), ...order.slice(1, normalvins)];
  const spent = order.map((i) => spentIn[i]!);
  tx.vin = spent.map(toTxIn);
  let totalInputs = 0n;
  for (const c of spent) totalInputs += c.value;
  if (totalInputs >= totalOutputs + 2n * txfee) tx.vout.push(new TxOut(totalInputs - (totalOutputs + txfee), p2pkScript(mypk)));
  if (opret.length > 0) tx.vout.push(new TxOut(0n, opret));
  return { ok: true, spent };
}
