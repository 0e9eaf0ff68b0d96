import { UINT256_MASK, getCompact, setCompact, uint256FromLE } from './compact.js';

/**
 * Proof of work and difficulty as komodod computes them for an asset chain (pow.cpp, chain.h,
 * consensus/params.h, chainparams.cpp). KMD-only rules are not here: the notary "easy-mined" blocks
 * (pow.cpp CheckProofOfWork with komodo_is_special/komodo_chosennotary above height 34000), the
 * 235300-236000 bad-diffbits window, and the ac_adaptivepow/ac_staked retarget (zawy RT_CST_RST) all
 * concern chains this node does not run.
 */

/** KOMODO_MINDIFF_NBITS (chainparams.h): the compact form of powLimit, also the genesis nBits. */
export const KOMODO_MINDIFF_NBITS = 0x200f0f0f;
/** consensus.powLimit on every network (chainparams.cpp): 0x0f0f…0f. */
export const POW_LIMIT = BigInt('0x' + '0f'.repeat(32));
/** CBlockIndex::nMedianTimeSpan. */
export const MEDIAN_TIME_SPAN = 11;
/** consensus.nPowAveragingWindow. */
export const POW_AVERAGING_WINDOW = 17;
/**
 * How many blocks, the previous one first, nextWorkRequired needs: the averaging window plus the
 * median-time span behind its first block.
 */
export const POW_CONTEXT_BLOCKS = POW_AVERAGING_WINDOW + MEDIAN_TIME_SPAN;

export interface PowParams {
  powLimit: bigint;
  nPowAveragingWindow: number;
  /** Percent (32 main, 0 regtest). */
  nPowMaxAdjustDown: number;
  /** Percent (16 main, 0 regtest). */
  nPowMaxAdjustUp: number;
  /** Seconds: ac_blocktime on an asset chain. */
  nPowTargetSpacing: number;
}

/**
 * The PoW parameters of an asset chain: mainnet params (spacing 60 s) or regtest params (spacing 150 s,
 * no adjustment limits), with ac_blocktime replacing the spacing whenever it is not 60
 * (chainparams.cpp chainparams_commandline).
 */
export function assetChainPowParams(opts: { regtest?: boolean; blocktime?: number } = {}): PowParams {
  const blocktime = opts.blocktime ?? 60;
  const regtest = opts.regtest === true;
  let spacing = regtest ? 150 : 60;
  if (blocktime !== 60) spacing = blocktime;
  return {
    powLimit: POW_LIMIT,
    nPowAveragingWindow: POW_AVERAGING_WINDOW,
    nPowMaxAdjustDown: regtest ? 0 : 32,
    nPowMaxAdjustUp: regtest ? 0 : 16,
    nPowTargetSpacing: spacing,
  };
}

export function averagingWindowTimespan(p: PowParams): number {
  return p.nPowAveragingWindow * p.nPowTargetSpacing;
}

export function minActualTimespan(p: PowParams): number {
  return Math.trunc((averagingWindowTimespan(p) * (100 - p.nPowMaxAdjustUp)) / 100);
}

export function maxActualTimespan(p: PowParams): number {
  return Math.trunc((averagingWindowTimespan(p) * (100 + p.nPowMaxAdjustDown)) / 100);
}

/** A block hash (internal byte order) as the 256-bit integer komodod compares with the target. */
export function hashToBigInt(hash: Uint8Array): bigint {
  return uint256FromLE(hash);
}

/**
 * CheckProofOfWork for an asset chain: nBits must decode to a positive target no easier than powLimit,
 * and the hash must not exceed it.
 */
export function checkProofOfWork(hash: Uint8Array, bits: number, powLimit: bigint = POW_LIMIT): boolean {
  const { target, negative, overflow } = setCompact(bits);
  if (negative || target === 0n || overflow || target > powLimit) return false;
  return hashToBigInt(hash) <= target;
}

/** GetBlockProof: the work a block adds, 2^256 / (target + 1); 0 for an invalid nBits. */
export function getBlockProof(bits: number): bigint {
  const { target, negative, overflow } = setCompact(bits);
  if (negative || overflow || target === 0n) return 0n;
  return (~target & UINT256_MASK) / (target + 1n) + 1n;
}

/**
 * GetDifficulty (rpc/blockchain.cpp GetDifficultyINTERNAL): powLimit's mantissa over the block's,
 * scaled by 256 per byte of exponent difference, in double precision exactly as komodod does it.
 */
export function getDifficulty(bits: number, powLimit: bigint = POW_LIMIT): number {
  const limitBits = getCompact(powLimit);
  let shift = (bits >>> 24) & 0xff;
  const shiftAmount = (limitBits >>> 24) & 0xff;
  let diff = (limitBits & 0x00ffffff) / (bits & 0x00ffffff);
  while (shift < shiftAmount) {
    diff *= 256.0;
    shift++;
  }
  while (shift > shiftAmount) {
    diff /= 256.0;
    shift--;
  }
  return diff;
}

/** What difficulty needs from each earlier block. */
export interface TimeAndBits {
  time: number;
  bits: number;
}

/**
 * GetMedianTimePast of blocks[0]: the median of its time and up to 10 ancestors' (blocks[i] is the
 * i-th ancestor of blocks[0]; fewer only when the chain is shorter).
 */
export function medianTimePast(blocks: readonly Pick<TimeAndBits, 'time'>[], from = 0): number {
  const times: number[] = [];
  for (let i = from; i < from + MEDIAN_TIME_SPAN && i < blocks.length; i++) times.push(blocks[i]!.time);
  if (times.length === 0) throw new RangeError('medianTimePast needs at least one block');
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/**
 * CalculateNextWorkRequired: dampen the window's actual timespan by 4, clamp it, scale the average
 * target (dividing first, as komodod does), cap at powLimit.
 */
export function calculateNextWorkRequired(avgTarget: bigint, lastMtp: number, firstMtp: number, p: PowParams): number {
  const awt = averagingWindowTimespan(p);
  let actual = lastMtp - firstMtp;
  // int64 division truncates toward zero.
  actual = awt + Math.trunc((actual - awt) / 4);
  if (actual < minActualTimespan(p)) actual = minActualTimespan(p);
  if (actual > maxActualTimespan(p)) actual = maxActualTimespan(p);
  let next = avgTarget / BigInt(awt);
  // arith_uint256 *= uint32: the timespan is converted to uint32 and the product wraps at 256 bits.
  next = (next * BigInt(actual >>> 0)) & UINT256_MASK;
  if (next > p.powLimit) next = p.powLimit;
  return getCompact(next);
}

/**
 * GetNextWorkRequired for the block after `prev[0]` (ac_adaptivepow off): powLimit while the parent
 * has fewer than 17 ancestors (new heights 1-17), else the retarget over the parent's and its 16
 * predecessors' targets and the median times past of prev[0] and prev[17].
 *
 * `prev[i]` is the i-th ancestor of the new block's parent, parent first. Pass POW_CONTEXT_BLOCKS
 * entries, or the whole chain down to genesis when it is shorter; an empty list means the new block is
 * the genesis block.
 */
export function nextWorkRequired(prev: readonly TimeAndBits[], p: PowParams): number {
  const limitBits = getCompact(p.powLimit);
  if (prev.length === 0) return limitBits;
  let total = 0n;
  let i = 0;
  for (; i < p.nPowAveragingWindow && i < prev.length; i++) {
    total = (total + setCompact(prev[i]!.bits).target) & UINT256_MASK;
  }
  // The window's first block (pindexFirst) must exist, else komodod returns powLimit.
  if (i < p.nPowAveragingWindow || prev.length <= p.nPowAveragingWindow) return limitBits;
  const avg = total / BigInt(p.nPowAveragingWindow);
  return calculateNextWorkRequired(avg, medianTimePast(prev, 0), medianTimePast(prev, p.nPowAveragingWindow), p);
}
