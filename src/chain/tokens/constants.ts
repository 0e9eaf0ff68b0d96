/**
 * Tokens module constants, named as in komodod (src/cc/eval.h, src/cc/CCinclude.h, src/cc/CCcustom.cpp,
 * src/komodo_defs.h at 0adeeab).
 */

/** The rogue game's eval code, still recognised by DecodeTokenOpRet's old-style layout. */
export const EVAL_ROGUE = 0x11;

/** Opret blob ids inside token OP_RETURNs (CCinclude.h). */
export const OPRETID_NONFUNGIBLEDATA = 0x11;
export const OPRETID_ASSETSDATA = 0x12;
export const OPRETID_GATEWAYSDATA = 0x13;
export const OPRETID_CHANNELSDATA = 0x14;
export const OPRETID_HEIRDATA = 0x15;
export const OPRETID_ROGUEGAMEDATA = 0x16;
/** Blob ids from here up carry no contract data (burn, import): FilterOutNonCCOprets skips them. */
export const OPRETID_FIRSTNONCCDATA = 0x80;
export const OPRETID_BURNDATA = 0x80;
export const OPRETID_IMPORTDATA = 0x81;

/** The fee every token builder uses (CreateToken/TokenTransfer turn txfee 0 into 10000). */
export const TOKENS_TXFEE = 10000n;

/** Most vins FinalizeCCTx accepts (CCinclude.h). */
export const CC_MAXVINS = 1024;

/** Token name and description limits of tokencreate / CreateToken, in bytes. */
export const TOKEN_NAME_MAX = 32;
export const TOKEN_DESCRIPTION_MAX = 4096;

/**
 * The Tokens module's global private key (CCcustom.cpp TokensCCpriv), needed to spend from the
 * global address; its public key, addresses and CC_BURNPUBKEY are in the cc module's globals.
 */
export const TOKENS_GLOBAL_PRIVKEY_HEX = '1d0d0dce2dd2e19df5b626d5ada0f00add7a727d1735b5e32c6ca9a203164bcf';
