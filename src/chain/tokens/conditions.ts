import { makeCCcond1, makeTokensCCcond1, makeTokensCCcond1of2 } from '../cc/builders.js';
import { moduleGlobal } from '../cc/globals.js';
import { EVAL_TOKENS } from '../cc/eval-codes.js';
import { ccScriptPubKey } from '../cc/script.js';
import { fromHex } from '../encoding/hex.js';
import { TOKENS_GLOBAL_PRIVKEY_HEX } from './constants.js';

/**
 * The token output scripts komodod builds (MakeCC1vout, MakeTokensCC1vout, MakeTokensCC1of2vout; tokens
 * never pass vData, so no OP_DROP tail). A key is cut to its first 33 bytes, as CCNewSecp256k1's
 * CopyPubKey does, so a 65-byte opret key gives the (unspendable) condition komodod gives.
 */

const pk33 = (pk: Uint8Array) => pk.subarray(0, 33);

/** The Tokens module's global ("unspendable") key pair. */
export const TOKENS_GLOBAL_PUBKEY: Uint8Array = moduleGlobal(EVAL_TOKENS)!.pubkey;
export const TOKENS_GLOBAL_PRIVKEY: Uint8Array = fromHex(TOKENS_GLOBAL_PRIVKEY_HEX);

/** MakeCC1vout(evalcode, v, pk)'s scriptPubKey. */
export function cc1Script(evalcode: number, pk: Uint8Array): Uint8Array {
  return ccScriptPubKey(makeCCcond1(evalcode, pk33(pk)));
}

/** MakeTokensCC1vout(evalcode, evalcode2, v, pk)'s scriptPubKey. */
export function tokensCC1Script(evalcode: number, evalcode2: number, pk: Uint8Array): Uint8Array {
  return ccScriptPubKey(makeTokensCCcond1(evalcode, evalcode2, pk33(pk)));
}

/** MakeTokensCC1of2vout(evalcode, evalcode2, v, pk1, pk2)'s scriptPubKey. */
export function tokensCC1of2Script(evalcode: number, evalcode2: number, pk1: Uint8Array, pk2: Uint8Array): Uint8Array {
  return ccScriptPubKey(makeTokensCCcond1of2(evalcode, evalcode2, pk33(pk1), pk33(pk2)));
}

/** The create marker: MakeCC1vout(EVAL_TOKENS, txfee, Tokens global pk). */
export const TOKENS_MARKER_SCRIPT: Uint8Array = cc1Script(EVAL_TOKENS, TOKENS_GLOBAL_PUBKEY);
