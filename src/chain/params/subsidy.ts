import type { AcParams } from './ac-params.js';
import { KOMODO_FIRSTFUNGIBLEID } from './ac-params.js';
import { COIN } from '../consensus/amount.js';

/**
 * Block subsidy and money supply of an asset chain: komodo_ac_block_subsidy and
 * komodo_current_supply (komodo_utils.cpp:665-913 at 0adeeab), in komodod's integer arithmetic.
 * BigInt division truncates toward zero, as C's does.
 */

/** komodod's SATOSHIDEN (komodo_defs.h): the same 10^8 as COIN. */
const SATOSHIDEN = COIN;
/** The KMD genesis coinbase (50 coins) counted in the supply (ASSETCHAINS_GENESISTXVAL). */
export const ASSETCHAINS_GENESISTXVAL = 5_000_000_000n;
/** The largest value komodod lets MAX_MONEY take (KOMODO_MAXNVALUE). */
export const KOMODO_MAXNVALUE = (1n << 63n) - 1n;
/** The height komodo_max_money sums rewards up to. */
export const MAX_MONEY_HEIGHT = 10_000_000;

const u64 = (v: bigint): bigint => BigInt.asUintN(64, v);
const i64 = (v: bigint): bigint => BigInt.asIntN(64, v);
const u32 = (v: bigint): bigint => BigInt.asUintN(32, v);

/**
 * is_STAKED (notaries_staked.cpp:28-51): 1 LABS, 2 LABSxxx, 3 CFEK..., 4 TEST..., 0 otherwise.
 * Names starting with these get notary-era rules, coinbase maturity 1, and (2) no block reward.
 */
export function stakedChainKind(name: string): number {
  if (name === 'LABS') return 1;
  if (name.startsWith('LABS')) return 2;
  if (name.startsWith('CFEK')) return 3;
  if (name.startsWith('TEST')) return 4;
  if (name === 'THIS_CHAIN_IS_BANNED') return 255;
  return 0;
}

/**
 * reward × (decay/1e8) applied numhalvings times, truncating each step. komodod caches the last
 * result (komodo_utils.cpp:866-877); here the last result per chain and era is resumed from, so
 * walking up the chain costs one step per period instead of one per period per block.
 */
const decayCache = new WeakMap<AcParams, Map<number, { steps: number; value: bigint }>>();
function decayedSubsidy(p: AcParams, era: number, reward: bigint, numhalvings: number): bigint {
  let perEra = decayCache.get(p);
  if (!perEra) decayCache.set(p, (perEra = new Map()));
  const hit = perEra.get(era);
  let i = 0;
  let subsidy = reward;
  if (hit && hit.steps <= numhalvings) ({ steps: i, value: subsidy } = hit);
  for (; i < numhalvings && subsidy !== 0n; i++) subsidy = i64(u64(subsidy * p.decay[era]!) / 100000000n);
  perEra.set(era, { steps: i, value: subsidy });
  return subsidy;
}

/** The part of the magic block 1 pays on top of the supply: the low 24 bits, or all of it with ac_staked. */
export function magicExtra(p: AcParams, magic: number): bigint {
  return BigInt(p.staked !== 0 ? magic >>> 0 : magic & 0xffffff);
}

/** komodo_ac_block_subsidy(height): the new coins a block at `height` may pay, fees not included. */
export function blockSubsidy(p: AcParams, magic: number, height: number): bigint {
  const lastEra = p.eras - 1;
  const END = p.end;
  const REWARD = p.reward;
  const HALVING = p.subsidyHalving;
  const DECAY = p.decay;
  const h = BigInt(height);
  let subsidy = 0n;
  let curEra = 0;
  let sign = 1n;

  if (END[0] === 0n && REWARD[0] === 0n) {
    subsidy = 10000n; // older chains with no explicit reward paid 0.0001 per block
  } else {
    if (END[0] !== 0n) {
      for (curEra = 0; curEra <= lastEra; curEra++) if (END[curEra]! > h || END[curEra] === 0n) break;
    }
    if (curEra <= lastEra) {
      const nStart = curEra ? i64(END[curEra - 1]!) : 0n;
      subsidy = i64(REWARD[curEra]!);
      if (subsidy !== 0n || (curEra !== lastEra && REWARD[curEra + 1] !== 0n)) {
        if (HALVING[curEra] !== 0n) {
          // int32 numhalvings = (nHeight - nStart) / HALVING, in uint64 arithmetic.
          const numhalvings = Number(BigInt.asIntN(32, u64(h - nStart) / HALVING[curEra]!));
          if (numhalvings > 0) {
            if (DECAY[curEra] === 0n) {
              // An int64 shift by a variable count: x86 uses the count modulo 64.
              subsidy >>= BigInt(numhalvings & 63);
            } else if (DECAY[curEra] === 100000000n && END[curEra] !== 0n) {
              let subsidyDifference: bigint;
              if (curEra === lastEra) {
                subsidyDifference = subsidy;
              } else {
                subsidyDifference = subsidy - i64(REWARD[curEra + 1]!);
                if (subsidyDifference < 0n) {
                  sign = -1n;
                  subsidyDifference *= sign;
                }
              }
              const denominator = i64(END[curEra]!) - nStart;
              const numerator = denominator - (i64(END[curEra]!) - h + ((h - nStart) % i64(HALVING[curEra]!)));
              subsidy = subsidy - sign * ((subsidyDifference * numerator) / denominator);
            } else {
              subsidy = decayedSubsidy(p, curEra, subsidy, numhalvings);
            }
          }
        }
      }
    }
  }

  const extra = magicExtra(p, magic);
  if (p.supply > 10_000_000_000n) {
    // Over 10 billion: 1e9 coins on each of the first supply/1e9 blocks, the rest in block 1.
    if (h <= p.supply / 1_000_000_000n) {
      subsidy += 1_000_000_000n * COIN;
      if (height === 1) subsidy += (p.supply % 1_000_000_000n) * COIN + extra;
    }
  } else if (height === 1) {
    if (lastEra === 0) subsidy = p.supply * SATOSHIDEN + extra;
    else subsidy += p.supply * SATOSHIDEN + extra;
  } else if (stakedChainKind(p.name) === 2) {
    return 0n; // LABS fungible chains cannot have any block reward
  }
  return u64(subsidy);
}

/**
 * komodo_current_supply(height): the coins that can exist at `height` (premine, magic extra, the
 * KMD genesis coinbase and rewards), used as MAX_MONEY at height 10,000,000.
 */
export function currentSupply(p: AcParams, magic: number, height: number): bigint {
  const lastEra = p.eras - 1;
  const END = p.end;
  const REWARD = p.reward;
  const HALVING = p.halving;
  const DECAY = p.decay;
  const nHeight = BigInt(height >>> 0);
  let cur = (p.supply + 1n) * SATOSHIDEN + BigInt(magic & 0xffffff) + ASSETCHAINS_GENESISTXVAL;

  if (lastEra === 0 && REWARD[0] === 0n) {
    cur += nHeight * 10000n;
  } else {
    for (let j = 0; j <= lastEra; j++) {
      if (
        j !== 0 &&
        (nHeight <= END[j - 1]! ||
          (END[j - 1] === 0n && REWARD[j] === 0n && (j === lastEra || DECAY[j] !== SATOSHIDEN)))
      )
        break;
      let reward = i64(REWARD[j]!);
      if (reward <= 0n) continue;
      const lastEnd = j === 0 ? 0n : END[j - 1]!;
      const curEnd = END[j] === 0n ? nHeight : nHeight > END[j]! ? END[j]! : nHeight;
      const period = HALVING[j] === 0n ? 210000n : HALVING[j]!;
      const nSteps = u32((curEnd - lastEnd) / period);
      const modulo = u32((curEnd - lastEnd) % period);
      const decay = DECAY[j]!;

      if (HALVING[j] === 0n) {
        cur += reward * u32(nHeight - 1n); // no halving: straight multiply, era bounds ignored
      } else if (decay === SATOSHIDEN) {
        // Linear decay to zero or to the next era's reward. Note that this branch declares its own
        // `int64_t modulo = 1`, shadowing the modulo above (komodo_utils.cpp:719-720).
        let lowestSubsidy: bigint;
        let subsidyDifference: bigint;
        let sign = 1n;
        const innerModulo = 1n;
        if (j === lastEra) {
          subsidyDifference = reward;
          lowestSubsidy = 0n;
        } else {
          subsidyDifference = reward - i64(REWARD[j + 1]!);
          if (subsidyDifference < 0n) {
            sign = -1n;
            subsidyDifference *= sign;
            lowestSubsidy = reward;
          } else {
            lowestSubsidy = i64(REWARD[j + 1]!);
          }
        }
        let denominator = nSteps * period;
        if (denominator === 0n) denominator = 1n;
        const stepDifference = u64(period * subsidyDifference) / denominator;
        const stepTriangle = u64(period * stepDifference) >> 1n;
        if (sign < 0n) {
          const stepsLess1 = u32(nSteps - 1n); // uint32 arithmetic: wraps when nSteps is 0
          cur += stepTriangle * stepsLess1;
          cur += stepTriangle * stepsLess1 * stepsLess1;
          cur += innerModulo * stepDifference * nSteps;
        } else {
          lowestSubsidy = reward - stepDifference * nSteps;
          cur += stepTriangle * nSteps;
          cur += stepTriangle * nSteps * nSteps;
        }
        cur += lowestSubsidy * (curEnd - lastEnd);
      } else {
        for (let k = lastEnd; k < curEnd; k += period) {
          if (reward === 0n) break; // every later step adds nothing
          cur += period * reward;
          reward = decay ? i64(u64(reward * decay) / SATOSHIDEN) : reward >> 1n;
        }
        cur += modulo * reward;
      }
    }
  }
  cur = u64(cur);
  if (cur >> 63n) return KOMODO_MAXNVALUE;
  if (p.commission !== 0n) {
    const newval = u64(cur + (cur / COIN) * p.commission);
    if (newval >> 63n || newval < cur) return KOMODO_MAXNVALUE;
    return newval;
  }
  return cur;
}

/** MAX_MONEY of the chain (komodo_utils.cpp:1497-1508): the supply at 10,000,000, raised for fungible CC clusters. */
export function maxMoney(p: AcParams, magic: number): bigint {
  let m = currentSupply(p, magic, MAX_MONEY_HEIGHT);
  if (p.cc >= KOMODO_FIRSTFUNGIBLEID && m < 1_000_000n * SATOSHIDEN) m = 1_000_000n * SATOSHIDEN;
  if (m >> 63n) m = KOMODO_MAXNVALUE;
  return m;
}
