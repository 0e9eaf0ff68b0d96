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
