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

/** leveldb's order of CAddressUnspentKey within one address: txid's internal bytes, then the index as 4 LE bytes. */
export function compareAddressUnspent(a: Pick<AddressUnspent, 'txid' | 'index'>, b: Pick<AddressUnspent, 'txid' | 'index'>): number {
  return compareOutpoints(a, b);
}
