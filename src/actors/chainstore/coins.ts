import { toHex } from '../../chain/encoding/hex.js';
import { hash160 } from '../../chain/crypto/hash.js';
import { solver } from '../../chain/script/standard.js';
import { mayAcceptCryptoCondition } from '../../chain/cc/script.js';
import { compareOutpoints } from './ordered-outputs.js';

/** An unspent output as the chain knows it (komodod's Coin): amount, script, height, coinbase flag. */
export interface Coin {
  value: bigint;
  script: Uint8Array;
  height: number;
  coinbase: boolean;
  /** The version of the transaction that created it (gettxout's `version`). */
  txVersion: number;
}

/** Where a spent output went: komodod's spent index entry. */
export interface SpentInfo {
  txid: string;
  vin: number;
  height: number;
}

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

/** komodod's address-index key types (main.cpp GetAddressType): 1 P2PKH/P2PK, 2 P2SH, 3 CC. */
export type AddressType = 1 | 2 | 3;

/** An entry of komodod's address unspent index (CAddressUnspentKey/Value). */
export interface AddressUnspent {
  /** display hex */
  txid: string;
  index: number;
  value: bigint;
  script: Uint8Array;
  height: number;
  /** created by a coinbase (subject to maturity) */
  coinbase: boolean;
}

/** An entry of komodod's address index (CAddressIndexKey → CAmount): one credit or debit of an address. */
export interface AddressDelta {
  /** display hex */
  txid: string;
  /** the output index (a credit) or the input index (a debit) */
  index: number;
  /** the transaction's position in its block (CAddressIndexKey::txindex) */
  blockindex: number;
  height: number;
  /** positive for an output, negative (the spent output's value) for an input */
  satoshis: bigint;
  spending: boolean;
}

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
