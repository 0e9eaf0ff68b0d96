/**
 * Transaction consensus constants, each named as in komodod (src/primitives/transaction.h,
 * src/consensus/consensus.h). The other topics sit beside this file in src/chain/consensus/.
 */

// Transaction formats (primitives/transaction.h).
export const OVERWINTER_VERSION_GROUP_ID = 0x03c48270;
export const SAPLING_VERSION_GROUP_ID = 0x892f2085;
export const OVERWINTER_TX_VERSION = 3;
export const SAPLING_TX_VERSION = 4;
/** Expiry heights at or above this are invalid (TX_EXPIRY_HEIGHT_THRESHOLD). */
export const TX_EXPIRY_HEIGHT_THRESHOLD = 500_000_000;
/** SPROUT_MIN_TX_VERSION: the lowest version CheckTransaction accepts for a transaction that is not overwintered. */
export const SPROUT_MIN_TX_VERSION = 1;
// The versions IsStandardTx accepts (CTransaction::*_CURRENT_VERSION).
export const SPROUT_MIN_CURRENT_VERSION = 1;
export const SPROUT_MAX_CURRENT_VERSION = 2;
export const OVERWINTER_CURRENT_VERSION = 3;
export const SAPLING_CURRENT_VERSION = 4;

// Shielded component sizes (zcash/Zcash.h, primitives/transaction.h).
export const GROTH_PROOF_SIZE = 192;
export const PHGR_PROOF_SIZE = 296;
export const ZC_NOTECIPHERTEXT_SIZE = 601;
export const SAPLING_ENC_CIPHERTEXT_SIZE = 580;
export const SAPLING_OUT_CIPHERTEXT_SIZE = 80;
export const SPEND_DESCRIPTION_SIZE = 384;
export const OUTPUT_DESCRIPTION_SIZE = 948;

// Transaction size limits (consensus/consensus.h).
export const MAX_TX_SIZE_BEFORE_SAPLING = 100_000;
export const MAX_TX_SIZE_AFTER_SAPLING = 200_000;
