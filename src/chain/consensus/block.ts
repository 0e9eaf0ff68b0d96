import { fromHexReversed } from '../encoding/hex.js';
import { SCRIPT_VERIFY_CHECKLOCKTIMEVERIFY, SCRIPT_VERIFY_P2SH } from '../script/flags.js';

/** Consensus script flags for blocks: P2SH and CHECKLOCKTIMEVERIFY; strict DER is always on (main.cpp:3414-3416). */
export const BLOCK_SCRIPT_FLAGS = SCRIPT_VERIFY_P2SH | SCRIPT_VERIFY_CHECKLOCKTIMEVERIFY;

/** The root of the empty Sapling note commitment tree (display hex), which every block carries while no Sapling output exists. */
export const EMPTY_SAPLING_ROOT = fromHexReversed('3e49b5f954aa9d3545bc6c37744661eea48d7c34e3000d82b7f0010c30f4c2fb');
