import { toHex } from '../encoding/hex.js';
import { hash160 } from '../crypto/hash.js';
import { solver } from '../script/standard.js';
import { isP2PKH } from '../script/script.js';
import { mayAcceptCryptoCondition } from '../cc/script.js';

/** komodod's address-index key types (main.cpp GetAddressType): 1 P2PKH/P2PK, 2 P2SH, 3 CC. */
export type AddressType = 1 | 2 | 3;

/** The map key of an address: `<type>:<hash160 hex>`. */
export const addressKey = (type: AddressType, hash: Uint8Array | string): string => `${type}:${typeof hash === 'string' ? hash : toHex(hash)}`;

/**
 * GetAddressType + the addrHash loop of ConnectBlock: the address-index keys an output script is
 * filed under. Solver's solutions each give one key: a 20-byte solution is the hash itself, anything
 * else (a pubkey, and, as komodod does, multisig's m and n bytes) is hashed. OP_RETURN solves with no
 * solution, so it is filed nowhere; a nonstandard script neither. CC outputs are solved as with
 * -ac_cc on (the index serves CC chains).
 */
export function addressKeysOf(script: Uint8Array): string[] {
  // P2PKH, nearly every output, read off its template without the general solver.
  if (isP2PKH(script)) {
    return [addressKey(1, script.subarray(3, 23))];
  }
  const s = solver(script, { ccEnabled: true, isSupportedCondition: mayAcceptCryptoCondition });
  if (s.type === 'nonstandard') return [];
  const type: AddressType = s.type === 'scripthash' ? 2 : s.type === 'cryptocondition' ? 3 : 1;
  return s.solutions.map((sol) => addressKey(type, sol.length === 20 ? sol : hash160(sol)));
}
