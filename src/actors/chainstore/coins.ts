import { toHex } from '../../chain/encoding/hex.js';
import { hash160 } from '../../chain/crypto/hash.js';
import { solver } from '../../chain/script/standard.js';
import { mayAcceptCryptoCondition } from '../../chain/cc/script.js';
import { compareOutpoints } from './ordered-outputs.js';
import type { AddressType, AddressUnspent, Coin } from './protocol.js';

export type { AddressDelta, AddressType, AddressUnspent, Coin, SpentInfo } from './protocol.js';

/** Where a confirmed transaction lives: its block and position. */
export interface TxLocation {
  blockHash: string;
  height: number;
  index: number;
  /** Where its bytes are within the block's (read alone from the block file), when known. */
  offset?: number;
  length?: number;
}

/** What disconnecting a block needs to restore: the coins its transactions spent, in order. */
export interface BlockUndo {
  spent: { key: string; coin: Coin }[];
}

export const outpointKey = (txid: string, n: number): string => `${txid}:${n}`;

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
  if (script.length === 25 && script[0] === 0x76 && script[1] === 0xa9 && script[2] === 0x14 && script[23] === 0x88 && script[24] === 0xac) {
    return [addressKey(1, script.subarray(3, 23))];
  }
  const s = solver(script, { ccEnabled: true, isSupportedCondition: mayAcceptCryptoCondition });
  if (s.type === 'nonstandard') return [];
  const type: AddressType = s.type === 'scripthash' ? 2 : s.type === 'cryptocondition' ? 3 : 1;
  return s.solutions.map((sol) => addressKey(type, sol.length === 20 ? sol : hash160(sol)));
}

/** leveldb's order of CAddressUnspentKey within one address: txid's internal bytes, then the index as 4 LE bytes. */
export function compareAddressUnspent(a: Pick<AddressUnspent, 'txid' | 'index'>, b: Pick<AddressUnspent, 'txid' | 'index'>): number {
  return compareOutpoints(a, b);
}
