/** Satoshis per coin (amount.h COIN). */
export const COIN = 100_000_000n;
