import { EVAL_ASSETS, EVAL_TOKENS } from '../cc/eval-codes.js';
import { moduleGlobal } from '../cc/globals.js';
import { mayAcceptCryptoCondition } from '../cc/script.js';
import { hash160 } from '../crypto/hash.js';
import { fromHex, toHex } from '../encoding/hex.js';
import { isValidPubKeySize, solver, checkLockTimePrefix } from '../script/standard.js';
import { cc1Script, tokensCC1Script } from '../tokens/conditions.js';
import { cpubkeyLength } from '../tokens/opret.js';

/**
 * The Assets module's keys and the output scripts its orders use (CCcustom.cpp, CCassetstx.cpp at 0adeeab).
 */

/** The Assets global ("unspendable") key pair (CCcustom.cpp AssetsCChexstr / AssetsCCpriv). */
export const ASSETS_GLOBAL_PUBKEY: Uint8Array = moduleGlobal(EVAL_ASSETS)!.pubkey;
export const ASSETS_GLOBAL_PRIVKEY: Uint8Array = fromHex('9b1766e58266acb6ba438374f763113bf0f3506fd96b6785f97af0544db13077');

/** The owner marker and bid/ask fee: every Assets builder uses txfee 10000. */
export const ASSETS_TXFEE = 10000n;

/** Bid lock: MakeCC1vout(EVAL_ASSETS, v, Assets global pk) (address RGKRjeTBw4LYFotSDLT6RWzMHbhXri6BG6). */
export const ASSETS_GLOBAL_CC_SCRIPT: Uint8Array = cc1Script(EVAL_ASSETS, ASSETS_GLOBAL_PUBKEY);

/** Ask lock: MakeTokensCC1vout(EVAL_ASSETS, nftEval|0, v, Assets global pk) ({e3, f2[, nft]}). */
export function askLockScript(nftEval = 0): Uint8Array {
  return tokensCC1Script(EVAL_ASSETS, nftEval, ASSETS_GLOBAL_PUBKEY);
}

/** The owner marker: MakeCC1vout(EVAL_ASSETS, 10000, pk). */
export function assetsMarkerScript(pk: Uint8Array): Uint8Array {
  return cc1Script(EVAL_ASSETS, pk);
}

/** A token output of pk as the order builders make it: MakeTokensCC1vout(nft ? nft : EVAL_TOKENS, v, pk). */
export function tokenOutScript(pk: Uint8Array, nftEval = 0): Uint8Array {
  return tokensCC1Script(nftEval !== 0 ? nftEval : EVAL_TOKENS, 0, pk);
}

/**
 * Getscriptaddress as a comparable key (komodod compares the address strings): 'k' + Hash160 for a
 * key address (P2PK with a valid key, P2PKH, CC: all prefix 60), 's' + Hash160 for P2SH (prefix 85),
 * null where ExtractDestination fails. A CLTV prefix is skipped once, as ExtractDestination does.
 */
export function scriptAddressKey(script: Uint8Array): string | null {
  if (checkLockTimePrefix(script) !== null) {
    const start = script[0]! + 3;
    script = script.length > start ? script.subarray(start) : new Uint8Array(0);
  }
  const s = solver(script, { ccEnabled: true, isSupportedCondition: mayAcceptCryptoCondition });
  switch (s.type) {
    case 'pubkey': {
      const pk = s.solutions[0]!;
      return isValidPubKeySize(pk) && cpubkeyLength(pk[0]!) === pk.length ? 'k' + toHex(hash160(pk)) : null;
    }
    case 'pubkeyhash':
    case 'cryptocondition':
      return 'k' + toHex(s.solutions[0]!);
    case 'scripthash':
      return 's' + toHex(s.solutions[0]!);
    default:
      return null;
  }
}
