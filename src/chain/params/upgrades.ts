import { OVERWINTER_BRANCH_ID, SAPLING_BRANCH_ID, SPROUT_BRANCH_ID } from '../consensus/upgrades.js';
import { OVERWINTER_TX_VERSION, OVERWINTER_VERSION_GROUP_ID, SAPLING_TX_VERSION, SAPLING_VERSION_GROUP_ID, MAX_TX_SIZE_AFTER_SAPLING, MAX_TX_SIZE_BEFORE_SAPLING } from '../consensus/tx.js';

/**
 * Network upgrades on an asset chain: activation heights, the branch id and transaction format at
 * a height, and komodod's automatic Sapling activation for chains started without -ac_sapling.
 */

/** Consensus::NetworkUpgrade::NO_ACTIVATION_HEIGHT. */
export const NO_ACTIVATION_HEIGHT = -1;
/** KOMODO_SAPLING_ACTIVATION (komodo_defs.h): 2018-12-15, the time the auto-activation looks for. */
export const KOMODO_SAPLING_ACTIVATION = 1544832000;
/** Blocks after the first post-2018-12-15 block at which Sapling activates (main.cpp:4143). */
export const SAPLING_AUTO_ACTIVATION_DELAY = 60;
/** -txexpirydelta's default (DEFAULT_TX_EXPIRY_DELTA, main.h:90). */
export const DEFAULT_TX_EXPIRY_DELTA = 200;
/** MAX_BLOCK_SIZE once Sapling is active (_MAX_BLOCK_SIZE) and before it. */
export const MAX_BLOCK_SIZE_SAPLING = 4_194_304;
export const MAX_BLOCK_SIZE_BEFORE_SAPLING = 2_000_000;

/** Overwinter and Sapling activation heights, −1 for never. */
export interface Activation {
  readonly overwinter: number;
  readonly sapling: number;
}

/** NetworkUpgradeActive: set (not −1) and reached. */
export function upgradeActive(height: number, activationHeight: number): boolean {
  return activationHeight !== NO_ACTIVATION_HEIGHT && height >= activationHeight;
}

/** CurrentEpochBranchId: the newest upgrade active at `height` (Sapling > Overwinter > Sprout). */
export function currentEpochBranchId(height: number, act: Activation): number {
  if (upgradeActive(height, act.sapling)) return SAPLING_BRANCH_ID;
  if (upgradeActive(height, act.overwinter)) return OVERWINTER_BRANCH_ID;
  return SPROUT_BRANCH_ID;
}

/** The version fields a new transaction gets. */
export interface TxFormat {
  readonly overwintered: boolean;
  readonly version: number;
  readonly versionGroupId: number;
  readonly expiryHeight: number;
}

/**
 * CreateNewContextualCMutableTransaction (main.cpp:8669-8700): the transaction komodod builds for
 * inclusion at `height` (the tip height + 1): v1 before Overwinter, v3 with expiry capped below the
 * Sapling height while only Overwinter is active, v4 once Sapling is; expiry = height + delta.
 */
export function contextualTxFormat(height: number, act: Activation, expiryDelta = DEFAULT_TX_EXPIRY_DELTA): TxFormat {
  if (!upgradeActive(height, act.overwinter)) return { overwintered: false, version: 1, versionGroupId: 0, expiryHeight: 0 };
  const expiry = (height + expiryDelta) >>> 0;
  if (upgradeActive(height, act.sapling))
    return { overwintered: true, version: SAPLING_TX_VERSION, versionGroupId: SAPLING_VERSION_GROUP_ID, expiryHeight: expiry };
  // std::min with uint32(saplingHeight - 1): a never-activating Sapling (−1) gives 0xfffffffe.
  const cap = (act.sapling - 1) >>> 0;
  return {
    overwintered: true,
    version: OVERWINTER_TX_VERSION,
    versionGroupId: OVERWINTER_VERSION_GROUP_ID,
    expiryHeight: Math.min(expiry, cap),
  };
}

/** MAX_BLOCK_SIZE(height) (chainparams.cpp:630-639). */
export function maxBlockSize(height: number, act: Activation): number {
  return height <= 0 || (act.sapling > 0 && height >= act.sapling) ? MAX_BLOCK_SIZE_SAPLING : MAX_BLOCK_SIZE_BEFORE_SAPLING;
}

/** The serialized-size limit of a transaction in a block at `height` (main.cpp:1272-1276, 1494-1495). */
export function maxTxSize(height: number, act: Activation): number {
  return upgradeActive(height, act.sapling) ? MAX_TX_SIZE_AFTER_SAPLING : MAX_TX_SIZE_BEFORE_SAPLING;
}

/**
 * Whether komodod runs komodo_activate_sapling for a new tip: while ASSETCHAINS_SAPLING <= 0 and the
 * tip is newer than a day before 2018-12-15 (main.cpp:4265-4266; at startup only the first test applies).
 */
export function saplingAutoActivationApplies(currentSapling: number, tipTime: number): boolean {
  return currentSapling <= 0 && tipTime > KOMODO_SAPLING_ACTIVATION - 24 * 3600;
}

/**
 * komodo_activate_sapling (main.cpp:4100-4162) as a pure function: given the tip height and the
 * block time at any height up to it, the Sapling (and Overwinter) activation height it decides, or 0
 * when it decides nothing. From a tip of height ≥ 30 it steps back 30 blocks and, when that block is
 * after 2018-12-15, walks back to the earliest block after that date whose parent is at or before it;
 * activation = that height + 60. A new asset chain (2009 genesis) gets 61, decided at height 31.
 */
export function saplingAutoActivation(tipHeight: number, blockTime: (height: number) => number): number {
  if (tipHeight < 30) return 0;
  let height = tipHeight - 30;
  let time = blockTime(height) >>> 0;
  let activation = 0;
  if (time > KOMODO_SAPLING_ACTIVATION) {
    while (height > 0) {
      const prevTime = blockTime(height - 1) >>> 0;
      if (prevTime <= KOMODO_SAPLING_ACTIVATION && time > KOMODO_SAPLING_ACTIVATION)
        activation = height + SAPLING_AUTO_ACTIVATION_DELAY;
      if (prevTime < KOMODO_SAPLING_ACTIVATION - 3600 * 24) break;
      height -= 1;
      time = prevTime;
    }
  }
  return activation;
}
