import type { Transaction } from '../tx/transaction.js';

/**
 * What validation needs to know about an unspent output (komodod's CCoins entry for one vout), and the
 * synchronous lookup the calling actor provides over the UTXO set (plus its mempool, for the mempool).
 */
export interface Coin {
  value: bigint;
  script: Uint8Array;
  /** Height of the block that created it (the next block's height for a mempool parent). */
  height: number;
  /** Created by a coinbase: subject to coinbase maturity. */
  coinbase: boolean;
  /** nVersion of the creating transaction (kept in undo data, as CCoins does). */
  txVersion: number;
}

export interface CoinView {
  /** The unspent output `n` of `txid` (display hex), or undefined when spent or unknown. */
  coin(txid: string, n: number): Coin | undefined;
}

/**
 * Coins visible while connecting: the chain's UTXO set as changed by the block's earlier
 * transactions. The rules call `apply` after checking each transaction, so a later transaction sees
 * the outputs of earlier ones and cannot spend what an earlier one spent.
 */
export interface ConnectView {
  coin(txid: string, n: number): Coin | undefined;
  /** A confirmed transaction, or an earlier one of the same block (CC validators read previous transactions). */
  tx(txid: string): Transaction | undefined;
  apply(tx: Transaction, txid: string, height: number): void;
}
