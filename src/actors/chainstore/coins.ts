import type { Coin } from './protocol.js';

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
  /** `op`: the outpoint as the coins index keys it (txid's internal bytes | n u32 BE). */
  spent: { op: Buffer; coin: Coin }[];
}
