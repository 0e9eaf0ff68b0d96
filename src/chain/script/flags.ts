/**
 * Script verification flags (src/script/interpreter.h; the SIGHASH_* types live in sighash.ts) and komodod's
 * mandatory/standard flag sets (src/script/standard.h).
 */

export const SCRIPT_VERIFY_NONE = 0;
/** Evaluate P2SH subscripts (BIP16). */
export const SCRIPT_VERIFY_P2SH = 1 << 0;
/** Signatures need a defined hash type; pubkeys must be compressed or uncompressed. */
export const SCRIPT_VERIFY_STRICTENC = 1 << 1;
/**
 * Bit 2 is commented out in komodod: as in Zcash, strict DER is always enforced by the interpreter
 * (CheckSignatureEncoding checks it whatever the flags), so there is no flag to turn it on or off.
 * Named here only so the test vectors' "DERSIG" flag name can be mapped.
 */
export const SCRIPT_VERIFY_DERSIG = 1 << 2;
/** S must be at most order/2 (BIP62 rule 5). */
export const SCRIPT_VERIFY_LOW_S = 1 << 3;
/** CHECKMULTISIG's dummy argument must be empty. */
export const SCRIPT_VERIFY_NULLDUMMY = 1 << 4;
/** scriptSig must be push-only. */
export const SCRIPT_VERIFY_SIGPUSHONLY = 1 << 5;
/** Minimal pushes and minimal numbers. */
export const SCRIPT_VERIFY_MINIMALDATA = 1 << 6;
/** Executing OP_NOP1..10 (and 0xb1 when CLTV is off) fails. */
export const SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_NOPS = 1 << 7;
/** Exactly one stack element must remain (only with P2SH). */
export const SCRIPT_VERIFY_CLEANSTACK = 1 << 8;
/** OP_NOP2 is OP_CHECKLOCKTIMEVERIFY (BIP65). */
export const SCRIPT_VERIFY_CHECKLOCKTIMEVERIFY = 1 << 9;

export const MANDATORY_SCRIPT_VERIFY_FLAGS = SCRIPT_VERIFY_P2SH;

export const STANDARD_SCRIPT_VERIFY_FLAGS =
  MANDATORY_SCRIPT_VERIFY_FLAGS |
  SCRIPT_VERIFY_STRICTENC |
  SCRIPT_VERIFY_MINIMALDATA |
  SCRIPT_VERIFY_NULLDUMMY |
  SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_NOPS |
  SCRIPT_VERIFY_CLEANSTACK |
  SCRIPT_VERIFY_CHECKLOCKTIMEVERIFY |
  SCRIPT_VERIFY_LOW_S;

export const STANDARD_NOT_MANDATORY_VERIFY_FLAGS = STANDARD_SCRIPT_VERIFY_FLAGS & ~MANDATORY_SCRIPT_VERIFY_FLAGS;
