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
