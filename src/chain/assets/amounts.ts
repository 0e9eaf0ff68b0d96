import { cAtof, cAtoll, doubleToInt64 } from '../tokens/cparse.js';

/**
 * The order arithmetic of komodod's CCassetsCore.cpp (0adeeab): SetBidFillamounts / ValidateBidRemainder,
 * SetAskFillamounts / ValidateAskRemainder, in int64 (wrapping, as the C code does on x86-64) and, where
 * komodod computes in doubles, in doubles.
 */

/** int64_t arithmetic: wraps modulo 2^64 like the compiled C code. */
const i64 = (x: bigint) => BigInt.asIntN(64, x);

/** C integer division (truncates toward zero, as BigInt division does); callers never divide by zero. */
const div = (a: bigint, b: bigint) => i64(a / b);

/**
 * ValidateBidRemainder(remaining_units, remaining_nValue, orig_nValue, received_nValue, paidunits, totalunits):
 * nothing zero, units and coins both add up, and the integer unit price received is not below the
 * order's (orig_nValue / totalunits, integer division).
 */
export function validateBidRemainder(remainingUnits: bigint, remainingNValue: bigint, origNValue: bigint, receivedNValue: bigint, paidUnits: bigint, totalUnits: bigint): boolean {
  if (origNValue === 0n || receivedNValue === 0n || paidUnits === 0n || totalUnits === 0n) return false;
  if (totalUnits !== i64(remainingUnits + paidUnits)) return false;
  if (origNValue !== i64(remainingNValue + receivedNValue)) return false;
  const unitprice = div(origNValue, totalUnits);
  const recvunitprice = div(receivedNValue, paidUnits);
  // komodod also computes remaining_nValue / remaining_units for a log line only (skipped here).
  return recvunitprice >= unitprice;
}

/**
 * ValidateAskRemainder(remaining_nValue, remaining_assetoshis, orig_assetoshis, received_assetoshis, paid_nValue, total_nValue).
 * komodod also divides remaining_nValue by remaining_assetoshis for a log line, which would trap
 * (SIGFPE) on a zero remainder with coins still required; that log-only division is skipped here.
 */
export function validateAskRemainder(remainingNValue: bigint, remainingAssetoshis: bigint, origAssetoshis: bigint, receivedAssetoshis: bigint, paidNValue: bigint, totalNValue: bigint): boolean {
  if (origAssetoshis === 0n || receivedAssetoshis === 0n || paidNValue === 0n || totalNValue === 0n) return false;
  if (totalNValue !== i64(remainingNValue + paidNValue)) return false;
  if (origAssetoshis !== i64(remainingAssetoshis + receivedAssetoshis)) return false;
  const unitprice = div(totalNValue, origAssetoshis);
  const recvunitprice = div(paidNValue, receivedAssetoshis);
  return recvunitprice >= unitprice;
}

export interface BidFill {
  /** Coins the filler receives (vout1). */
  receivedNValue: bigint;
  /** Units still wanted (the 'B' price). */
  remainingUnits: bigint;
  /** Units actually paid (clamped to what the bid wants): vout2. */
  paidUnits: bigint;
  /** SetBidFillamounts' return value (FillBuyOffer ignores it). */
  ok: boolean;
}

/** SetBidFillamounts(received_nValue, remaining_units, orig_nValue, paidunits, totalunits). */
export function setBidFillamounts(origNValue: bigint, paidUnits: bigint, totalUnits: bigint): BidFill {
  if (totalUnits === 0n) return { receivedNValue: 0n, remainingUnits: 0n, paidUnits: 0n, ok: false };
  if (paidUnits >= totalUnits) return { receivedNValue: origNValue, remainingUnits: 0n, paidUnits: totalUnits, ok: true };
  const remainingUnits = i64(totalUnits - paidUnits);
  const unitprice = div(origNValue, totalUnits);
  const receivedNValue = i64(paidUnits * unitprice);
  let ok = false;
  if (unitprice > 0n && receivedNValue > 0n && receivedNValue <= origNValue) {
    ok = validateBidRemainder(remainingUnits, i64(origNValue - receivedNValue), origNValue, receivedNValue, paidUnits, totalUnits);
  }
  return { receivedNValue, remainingUnits, paidUnits, ok };
}

export interface AskFill {
  /** Token units the filler receives (vout1). */
  receivedAssetoshis: bigint;
  /** Coins still required (the 'S' price). */
  remainingNValue: bigint;
  /** Coins paid to the owner (clamped to the order's total): vout2. */
  paidNValue: bigint;
  /** SetAskFillamounts' return value (FillSell ignores it). */
  ok: boolean;
}

const SMALLVAL = 0.000000000000001;

/** SetAskFillamounts(received_assetoshis, remaining_nValue, orig_assetoshis, paid_nValue, total_nValue). */
export function setAskFillamounts(origAssetoshis: bigint, paidNValue: bigint, totalNValue: bigint): AskFill {
  if (totalNValue === 0n) return { receivedAssetoshis: 0n, remainingNValue: 0n, paidNValue: 0n, ok: false };
  if (paidNValue >= totalNValue) return { receivedAssetoshis: origAssetoshis, remainingNValue: 0n, paidNValue: totalNValue, ok: true };
  const remainingNValue = i64(totalNValue - paidNValue);
  const dunitprice = Number(totalNValue) / Number(origAssetoshis);
  const receivedAssetoshis = doubleToInt64(Number(paidNValue) / dunitprice);
  let ok = false;
  if (Math.abs(dunitprice) > SMALLVAL && receivedAssetoshis > 0n && receivedAssetoshis <= origAssetoshis) {
    ok = validateAskRemainder(remainingNValue, i64(origAssetoshis - receivedAssetoshis), origAssetoshis, receivedAssetoshis, paidNValue, totalNValue);
  }
  return { receivedAssetoshis, remainingNValue, paidNValue, ok };
}

/**
 * FillSell's payment before clamping: `dprice = (double)total_nValue / orig_assetoshis;
 * paid_nValue = dprice * fillunits` (doubles, truncated into an int64).
 */
export function askPaidAmount(totalNValue: bigint, origAssetoshis: bigint, fillUnits: bigint): bigint {
  const dprice = Number(totalNValue) / Number(origAssetoshis);
  return doubleToInt64(dprice * Number(fillUnits));
}

/**
 * tokenask / tokenbid's order value: `numtokens = atoll(params[0])`, `price = atof(params[2])`,
 * `amount = (price * numtokens) * COIN + 0.0000000049999` in doubles, stored in an int64.
 */
export function orderAmount(numtokensText: string, priceText: string): { numtokens: bigint; price: number; amount: bigint } {
  const numtokens = cAtoll(numtokensText);
  const price = cAtof(priceText);
  const amount = doubleToInt64(price * Number(numtokens) * 100000000 + 0.0000000049999);
  return { numtokens, price, amount };
}
