import { equalBytes } from '../encoding/hex.js';
import { CC_MAXVINS } from './constants.js';

/**
 * komodod's coin selection for CC transactions (CCtx.cpp CC_vinselect, AddNormalinputsRemote /
 * AddNormalinputsLocal, CCtokens.cpp AddTokenCCInputs), as pure functions of the candidate list.
 * Given the candidates in the order komodod's index or wallet yields them, the same inputs come out.
 * Which outputs are candidates (confirmed, unspent in the mempool, valid tokens) is the caller's
 * business: these functions only pick among them.
 */

export interface Coin {
  /** Internal byte order. */
  txid: Uint8Array;
  vout: number;
  value: bigint;
}

function sameOutpoint(a: Coin, b: Coin): boolean {
  return a.vout === b.vout && equalBytes(a.txid, b.txid);
}

/**
 * CC_vinselect as its callers use it: the index of the coin closest above `value` (an exact match
 * first), else the one closest below; -1 when every value is ≤ 0. Ties keep the earliest.
 */
export function ccVinselect(utxos: readonly Coin[], value: bigint): number {
  let above = 0n;
  let below = 0n;
  let abovei = -1;
  let belowi = -1;
  for (let i = 0; i < utxos.length; i++) {
    const v = utxos[i]!.value;
    if (v <= 0n) continue;
    if (v === value) return i;
    if (v > value) {
      const gap = v - value;
      if (above === 0n || gap < above) {
        above = gap;
        abovei = i;
      }
    } else {
      const gap = value - v;
      if (below === 0n || gap < below) {
        below = gap;
        belowi = i;
      }
    }
  }
  // The callers take `abovei` whenever there is one, whatever CC_vinselect itself returned.
  return abovei >= 0 ? abovei : belowi;
}

/**
 * AddNormalinputs(Remote|Local): gathers candidates worth at least total/maxinputs until `maxinputs`
 * of them or `total` is reached, then picks with CC_vinselect, removing each pick by moving the last
 * candidate into its place. Returns the picked coins in order, or null where komodod returns 0
 * (less than `total`). `taken` are outpoints already in the transaction.
 */
export function selectNormalInputs<T extends Coin>(
  candidates: readonly T[],
  total: bigint,
  maxinputs: number,
  taken: readonly Coin[] = [],
): T[] | null {
  maxinputs = Math.min(maxinputs, CC_MAXVINS);
  const threshold = maxinputs > 0 ? total / BigInt(maxinputs) : total;
  const utxos: T[] = [];
  let sum = 0n;
  for (const c of candidates) {
    if (c.value < threshold) continue;
    if (taken.some((t) => sameOutpoint(t, c)) || utxos.some((u) => sameOutpoint(u, c))) continue;
    utxos.push(c);
    sum += c.value;
    if (utxos.length >= maxinputs || sum >= total) break;
  }
  const picked: T[] = [];
  let totalinputs = 0n;
  let remains = total;
  for (let i = 0; i < maxinputs && utxos.length > 0; i++) {
    const ind = ccVinselect(utxos, remains);
    if (ind < 0) return null;
    const up = utxos[ind]!;
    picked.push(up);
    totalinputs += up.value;
    remains -= up.value;
    utxos[ind] = utxos[utxos.length - 1]!;
    utxos.pop();
    if (totalinputs >= total || i + 1 >= maxinputs) break;
  }
  return totalinputs >= total ? picked : null;
}

/**
 * AddTokenCCInputs' choice among the token outputs at the sender's token address (already known to
 * be valid outputs of this token): in order, skipping those below total/maxinputs or already in the
 * transaction, until `total` or `maxinputs` is reached. Returns the coins and their sum (which may
 * fall short: the caller reports that).
 */
export function selectTokenInputs<T extends Coin>(
  candidates: readonly T[],
  total: bigint,
  maxinputs: number,
  taken: readonly Coin[] = [],
): { coins: T[]; sum: bigint } {
  const threshold = total / BigInt(maxinputs !== 0 ? maxinputs : CC_MAXVINS);
  const coins: T[] = [];
  let sum = 0n;
  for (const c of candidates) {
    if (c.value < threshold) continue;
    if (taken.some((t) => sameOutpoint(t, c)) || coins.some((u) => sameOutpoint(u, c))) continue;
    coins.push(c);
    sum += c.value;
    if ((total > 0n && sum >= total) || (maxinputs > 0 && coins.length >= maxinputs)) break;
  }
  return { coins, sum };
}
