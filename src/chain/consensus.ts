/**
 * Consensus constants shared by transactions, signature hashes and blocks, each named as in komodod
 * (src/primitives/transaction.h, src/consensus/upgrades.cpp, src/consensus/consensus.h).
 */

/** Satoshis per coin (amount.h COIN). */
export const COIN = 100_000_000n;

// Transaction formats (primitives/transaction.h).
export const OVERWINTER_VERSION_GROUP_ID = 0x03c48270;
export const SAPLING_VERSION_GROUP_ID = 0x892f2085;
export const OVERWINTER_TX_VERSION = 3;
export const SAPLING_TX_VERSION = 4;
/** Expiry heights at or above this are invalid (TX_EXPIRY_HEIGHT_THRESHOLD). */
export const TX_EXPIRY_HEIGHT_THRESHOLD = 500_000_000;

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

// Shielded component sizes (zcash/Zcash.h, primitives/transaction.h).
export const GROTH_PROOF_SIZE = 192;
export const PHGR_PROOF_SIZE = 296;
export const ZC_NOTECIPHERTEXT_SIZE = 601;
export const SAPLING_ENC_CIPHERTEXT_SIZE = 580;
export const SAPLING_OUT_CIPHERTEXT_SIZE = 80;
export const SPEND_DESCRIPTION_SIZE = 384;
export const OUTPUT_DESCRIPTION_SIZE = 948;

// Size limits (consensus/consensus.h).
export const MAX_TX_SIZE_BEFORE_SAPLING = 100_000;
export const MAX_TX_SIZE_AFTER_SAPLING = 200_000;
export const MAX_SCRIPT_SIZE = 10_000;
export const MAX_SCRIPT_ELEMENT_SIZE = 520;
export const MAX_OPS_PER_SCRIPT = 201;
export const MAX_PUBKEYS_PER_MULTISIG = 20;
export const MAX_STACK_SIZE = 1000;
/** nLockTime below this is a height, at or above it a unix time (script/interpreter.h). */
export const LOCKTIME_THRESHOLD = 500_000_000;

// Node timing (main.h, komodo_defs.h).
/** DEFAULT_MAX_TIP_AGE: a tip older than this (seconds) means initial block download (main.h). */
export const DEFAULT_MAX_TIP_AGE = 24 * 60 * 60;
/** KOMODO_MAXMEMPOOLTIME (komodo_defs.h): seconds; the wallet does not resend a transaction whose time lock is older. */
export const KOMODO_MAXMEMPOOLTIME = 3600;
