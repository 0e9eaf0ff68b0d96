import { formatAmount } from './amount.js';

/**
 * A coin amount inside a result object: bigint satoshis that a JSON writer prints as komodod's
 * ValueFromAmount does (a raw JSON number with exactly 8 decimals). A distinct type, so no writer
 * can mistake an amount for a plain integer or pass a float through.
 */
export class Amount {
  constructor(readonly sats: bigint) {}

  toString(): string {
    return formatAmount(this.sats);
  }
}
