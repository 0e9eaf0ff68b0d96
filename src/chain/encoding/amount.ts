import { COIN } from '../consensus/amount.js';

/**
 * Coin amounts between bigint satoshis and komodod's JSON text: ValueFromAmount and
 * AmountFromValue (rpc/server.cpp) over ParseFixedPoint (utilstrencodings.cpp).
 */

/** komodod's AmountFromValue failures; all are RPC_TYPE_ERROR (-3) in komodod. */
export class AmountError extends Error {
  override readonly name = 'AmountError';
  readonly code = -3;
  constructor(message: 'Invalid amount' | 'Amount out of range' | 'Amount is not a number or string') {
    super(message);
  }
}

/** ValueFromAmount: "[-]<coins>.<8 digits>", the sign in front of the absolute value. */
export function formatAmount(sat: bigint): string {
  const sign = sat < 0n ? '-' : '';
  const abs = sat < 0n ? -sat : sat;
  return `${sign}${abs / COIN}.${(abs % COIN).toString().padStart(8, '0')}`;
}

/** ParseFixedPoint's bound: 18 significant digits keep every intermediate inside int64. */
const UPPER_BOUND = 10n ** 18n - 1n;

function isDigit(c: string | undefined): c is string {
  return c !== undefined && c >= '0' && c <= '9';
}

/**
 * komodod's ParseFixedPoint(val, decimals): a JSON-number-like decimal (optional '-', no leading
 * zeros, optional fraction and exponent) as an integer scaled by 10^decimals, or null when it is
 * malformed, has more precision than `decimals`, or reaches 10^(18-decimals) in magnitude.
 */
export function parseFixedPoint(val: string, decimals: number): bigint | null {
  // Komodo's addition: an 11-character all-digit string whose first digit is below '9' or second
  // below '3' is whole coins, so values from 1e10 coins up parse (plain parsing stops at 1e10).
  // It scales by 10^8 whatever `decimals` is, and the uint64 product lands in an int64 (wraps).
  if (val.length === 11 && (val[0]! < '9' || val[1]! < '3') && /^[0-9]{11}$/.test(val)) {
    return BigInt.asIntN(64, BigInt(val) * COIN);
  }

  let mantissa = 0n;
  let tzeros = 0; // trailing zeros seen but not yet applied to the mantissa
  const digit = (c: string): boolean => {
    if (c === '0') {
      tzeros++;
      return true;
    }
    if (mantissa === 0n) {
      mantissa = BigInt(c); // 0 * 10^k stays 0: skip the loop over leading zeros
    } else {
      for (let i = 0; i <= tzeros; i++) {
        if (mantissa > UPPER_BOUND / 10n) return false;
        mantissa *= 10n;
      }
      mantissa += BigInt(c);
    }
    tzeros = 0;
    return true;
  };

  let ptr = 0;
  const end = val.length;
  let negative = false;
  let pointOfs = 0;
  if (val[ptr] === '-') {
    negative = true;
    ptr++;
  }
  if (ptr >= end) return null; // empty or a lone '-'
  if (val[ptr] === '0') {
    ptr++; // a single leading 0 only
  } else if (isDigit(val[ptr])) {
    while (isDigit(val[ptr])) {
      if (!digit(val[ptr]!)) return null;
      ptr++;
    }
  } else {
    return null;
  }
  if (val[ptr] === '.') {
    ptr++;
    if (!isDigit(val[ptr])) return null;
    while (isDigit(val[ptr])) {
      if (!digit(val[ptr]!)) return null;
      ptr++;
      pointOfs++;
    }
  }
  let exponent = 0n;
  if (val[ptr] === 'e' || val[ptr] === 'E') {
    ptr++;
    let expNegative = false;
    if (val[ptr] === '+') ptr++;
    else if (val[ptr] === '-') {
      expNegative = true;
      ptr++;
    }
    if (!isDigit(val[ptr])) return null;
    while (isDigit(val[ptr])) {
      if (exponent > UPPER_BOUND / 10n) return null;
      exponent = exponent * 10n + BigInt(val[ptr]!);
      ptr++;
    }
    if (expNegative) exponent = -exponent;
  }
  if (ptr !== end) return null; // trailing garbage

  exponent = exponent - BigInt(pointOfs) + BigInt(tzeros) + BigInt(decimals);
  if (negative) mantissa = -mantissa;
  if (exponent < 0n) return null; // finer than 10^-decimals
  if (exponent >= 18n) return null; // 10^(18-decimals) or more
  for (let i = 0n; i < exponent; i++) {
    if (mantissa > UPPER_BOUND / 10n || mantissa < -(UPPER_BOUND / 10n)) return null;
    mantissa *= 10n;
  }
  if (mantissa > UPPER_BOUND || mantissa < -UPPER_BOUND) return null;
  return mantissa;
}

/**
 * AmountFromValue: a JSON number or string as satoshis, 0 <= amount <= maxMoney. A JSON number must
 * arrive as its exact decimal text (a string here); a JS number is read through String(), which is
 * exact only while the number survived JSON.parse unchanged. Other types fail as in komodod.
 */
export function parseAmount(value: unknown, maxMoney: bigint): bigint {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (typeof value === 'bigint' || (typeof value === 'number' && Number.isFinite(value))) text = String(value);
  else throw new AmountError('Amount is not a number or string');
  const amount = parseFixedPoint(text, 8);
  if (amount === null) throw new AmountError('Invalid amount');
  if (amount < 0n || amount > maxMoney) throw new AmountError('Amount out of range');
  return amount;
}
