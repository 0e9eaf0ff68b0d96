import { AmountError, parseAmount } from '../chain/encoding/amount.js';
import { RpcError, RPC_TYPE_ERROR } from './errors.js';
import { Amount, JsonNumber, type JsonValue } from './json-value.js';

/**
 * AmountFromValue (src/rpc/server.cpp): a JSON number (its exact text) or a string, parsed as a fixed-point
 * coin amount with at most 8 decimals and 0 <= v <= maxMoney. Every failure is -3: "Amount is not a
 * number or string", or the parser's "Invalid amount" / "Amount out of range".
 */
export function amountFromValue(v: JsonValue, maxMoney: bigint): bigint {
  let text: string;
  if (v instanceof JsonNumber) text = v.text;
  else if (typeof v === 'string') text = v;
  else throw new RpcError(RPC_TYPE_ERROR, 'Amount is not a number or string');
  try {
    return parseAmount(text, maxMoney);
  } catch (e) {
    if (e instanceof AmountError) throw new RpcError(RPC_TYPE_ERROR, e.message);
    throw e;
  }
}

/** ValueFromAmount: satoshis as a JSON number with exactly 8 decimals. */
export function valueFromAmount(sats: bigint): Amount {
  return new Amount(sats);
}
