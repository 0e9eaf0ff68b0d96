// Consensus branch ids (consensus/upgrades.cpp).
export const SPROUT_BRANCH_ID = 0x00000000;
export const OVERWINTER_BRANCH_ID = 0x5ba81b19;
export const SAPLING_BRANCH_ID = 0x76b809bb;
export const TESTDUMMY_BRANCH_ID = 0x74736554;
export const KNOWN_BRANCH_IDS: readonly number[] = [
  SPROUT_BRANCH_ID,
  TESTDUMMY_BRANCH_ID,
  OVERWINTER_BRANCH_ID,
  SAPLING_BRANCH_ID,
];

// Komodo's hard-fork times.
/** KOMODO_SAPLING_DEADLINE (komodo_defs.h): no JoinSplits once the tip is at or past 2019-02-15. */
export const KOMODO_SAPLING_DEADLINE = 1550188800;
/** nStakedDecemberHardforkTimestamp (komodo_hardfork.cpp): from this block time IsFinalTx's nSequence 0xfffffffe rule flips. */
export const STAKED_DECEMBER_HARDFORK_TIMESTAMP = 1576840000;
