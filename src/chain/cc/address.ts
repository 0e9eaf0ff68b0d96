import { hash160 } from '../crypto/hash.js';
import { PUBKEY_ADDRESS, encodeAddress } from '../address/address.js';
import { makeCCcond1 } from './builders.js';
import { ccScriptPubKey } from './script.js';
import type { CCNode } from './types.js';

/**
 * CC address of a condition: base58check(60 || hash160(push(condition) OP_CHECKCRYPTOCONDITION)),
 * the CC sub-script without any OP_DROP data (Solver / ExtractDestination). Accepts a tree or a
 * condition binary.
 */
export function ccAddress(condition: CCNode | Uint8Array): string {
  return encodeAddress(PUBKEY_ADDRESS, ccAddressHash(condition));
}

/** The 20-byte hash behind a CC address (also the address-index key, type 3). */
export function ccAddressHash(condition: CCNode | Uint8Array): Uint8Array {
  return hash160(ccScriptPubKey(condition));
}

/** _GetCCaddress(evalcode, pk): the address of MakeCCcond1(evalcode, pk). */
export function ccAddressOf(evalCode: number, pk: Uint8Array): string {
  return ccAddress(makeCCcond1(evalCode, pk));
}

/** The normal R-address of a public key: base58check(60 || hash160(pubkey)). */
export function normalAddress(pk: Uint8Array): string {
  return encodeAddress(PUBKEY_ADDRESS, hash160(pk));
}
