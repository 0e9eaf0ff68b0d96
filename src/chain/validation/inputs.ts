import type { Transaction } from '../tx/transaction.js';
import type { Coin, CoinView } from './coin.js';
import type { ValidationContext } from './context.js';
import { MissingInputsError, REJECT_INVALID, reject } from './errors.js';
import { isMint, shieldedValueIn, valueOut } from './tx-values.js';

/**
 * Consensus::CheckTxInputs (main.cpp:2711-2798): every input exists, coinbase outputs are mature,
 * input values are in range and cover the outputs. Returns the fee. `spendHeight` is the height of the
 * block the transaction goes into (the tip's height + 1 for the mempool).
 *
 * A mint (coinbase or coin import) has no inputs to check and pays no fee: komodod's
 * ContextualCheckInputs skips this for it, and so this returns 0.
 * Not here: the ac_timelockgte coinbase lock (an option acnode does not run), the JoinSplit anchors
 * (JoinSplits never pass checkTransaction), fCoinbaseMustBeProtected (false on asset chains and regtest)
 * and KMD's interest.
 */
/** MoneyRange. */
function inRange(v: bigint, ctx: ValidationContext): boolean {
  return v >= 0n && v <= ctx.maxMoney;
}

export function checkTxInputs(tx: Transaction, view: CoinView, spendHeight: number, ctx: ValidationContext): bigint {
  if (isMint(tx)) return 0n;
  // One pass, one array: a connecting block runs this once per transaction (the map, filter, map
  // and for…of it was made ~470 B of arrays and iterators a call).
  const vin = tx.vin;
  const coins: Coin[] = [];
  let missing: string[] | undefined;
  for (let i = 0; i < vin.length; i++) {
    const prevout = vin[i]!.prevout;
    const coin = view.coin(prevout.txid(), prevout.index);
    if (coin === undefined) (missing ??= []).push(prevout.key());
    else coins.push(coin);
  }
  // HaveInputs: komodod returns state.Invalid without a reason; sendrawtransaction says "Missing inputs".
  if (missing) throw new MissingInputsError(missing);

  let nValueIn = 0n;
  for (let i = 0; i < coins.length; i++) {
    const coin = coins[i]!;
    if (coin.coinbase && spendHeight - coin.height < ctx.coinbaseMaturity) {
      // state.Invalid: no DoS, the same spend may be valid a block later.
      reject(REJECT_INVALID, 'bad-txns-premature-spend-of-coinbase', 0, {
        debug: `CheckInputs(): tried to spend coinbase at depth ${spendHeight - coin.height}/${ctx.coinbaseMaturity}`,
      });
    }
    nValueIn += coin.value;
    if (!inRange(coin.value, ctx) || !inRange(nValueIn, ctx)) reject(REJECT_INVALID, 'bad-txns-inputvalues-outofrange', 100);
  }

  nValueIn += shieldedValueIn(tx);
  if (!inRange(nValueIn, ctx)) reject(REJECT_INVALID, 'bad-txns-inputvalues-outofrange', 100);

  const out = valueOut(tx);
  if (nValueIn < out) reject(REJECT_INVALID, 'bad-txns-in-belowout', 100);
  const fee = nValueIn - out;
  // Unreachable after the test above, kept as komodod has it.
  if (fee < 0n) reject(REJECT_INVALID, 'bad-txns-fee-negative', 100);
  if (!inRange(fee, ctx)) reject(REJECT_INVALID, 'bad-txns-fee-outofrange', 100);
  return fee;
}
