// Script limits (script/script.h, script/interpreter.cpp, consensus/consensus.h).
export const MAX_SCRIPT_SIZE = 10_000;
export const MAX_SCRIPT_ELEMENT_SIZE = 520;
export const MAX_SCRIPT_CRYPTOCONDITION_FULFILLMENT_SIZE = 2048;
export const MAX_OPS_PER_SCRIPT = 201;
export const MAX_PUBKEYS_PER_MULTISIG = 20;
export const MAX_STACK_SIZE = 1000;
/** nLockTime below this is a height, at or above it a unix time (script/interpreter.h). */
export const LOCKTIME_THRESHOLD = 500_000_000;
/** IGUANA_MAXSCRIPTSIZE (komodo_defs.h): the largest scriptPubKey CheckTransaction lets through, and the largest NFT data blob tokencreate accepts. */
export const IGUANA_MAXSCRIPTSIZE = 10001;
