import { fromHex } from '../encoding/hex.js';
import { sha256 } from '../crypto/hash.js';
import { publicKeyFromPrivate } from '../crypto/secp256k1.js';
import { ccAddressOf, normalAddress } from './address.js';
import { EVAL_FIRSTUSER } from './eval-codes.js';
import type { ModuleGlobal } from './globals.js';

/** CCcustom.cpp's CClibCChexstr: the global pubkey of the first user eval code (0x10). */
const CCLIB_CCHEXSTR = '032447d97655da079729dc024c61088ea415b22f4c15d4810ddaf2069ac6468d2f';
/** CCcustom.cpp's CClibCCpriv (public by design, as every module's global key). */
const CCLIB_CCPRIV = fromHex('57cf49717db4151b4f98c5458d26524b7be9bd55d820d6c4820ff5ec6c1ca0c0');

/**
 * CClib_initcp (CCcustom.cpp): the global key of a user eval code (0x10..0x7f). 0x10 uses the fixed
 * CClibCChexstr; each later code hashes the private key once more per step (sha256) and uses its pubkey.
 */
export function cclibGlobal(evalCode: number): ModuleGlobal {
  let pubkey: Uint8Array;
  if (evalCode === EVAL_FIRSTUSER) pubkey = fromHex(CCLIB_CCHEXSTR);
  else {
    let priv = CCLIB_CCPRIV;
    for (let i = EVAL_FIRSTUSER; i < evalCode; i++) priv = sha256(priv);
    pubkey = publicKeyFromPrivate(priv, true);
  }
  return Object.freeze({ module: 'CClib', evalCode, pubkey, normalAddressConstant: normalAddress(pubkey), ccAddressConstant: ccAddressOf(evalCode, pubkey) });
}

/** One entry of cclib.cpp's CClib_methods table. */
export interface CClibMethodInfo {
  name: string;
  method: string;
  help: string;
  required: number;
  max: number;
  funcid: number;
  evalCode: number;
}

/** The library komodod links (libcc.a, built with -DBUILD_CUSTOMCC: customcc.h's MYCCLIBNAME). */
export const CCLIB_NAME = 'customcc';

/** CClib_methods as built with -DBUILD_CUSTOMCC: faucet2's two, then customcc.h's RPC_FUNCS. */
export const CCLIB_METHODS: readonly CClibMethodInfo[] = Object.freeze([
  { name: 'faucet2', method: 'fund', help: 'amount', required: 1, max: 1, funcid: 0x46, evalCode: EVAL_FIRSTUSER },
  { name: 'faucet2', method: 'get', help: '<no args>', required: 0, max: 0, funcid: 0x47, evalCode: EVAL_FIRSTUSER },
  { name: 'custom', method: 'func0', help: '<parameter help>', required: 1, max: 1, funcid: 0x30, evalCode: EVAL_FIRSTUSER + 1 },
  { name: 'custom', method: 'func1', help: '<no args>', required: 0, max: 0, funcid: 0x31, evalCode: EVAL_FIRSTUSER + 1 },
]);
