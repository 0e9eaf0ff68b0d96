import type { ChainParams } from '../../src/chain/params/chain-params.js';
import type { Coin } from '../../src/chain/validation/index.js';

/**
 * What a stand-in chain store answers the mempool's `view` ask (and each item of `views`) with, in the
 * chain store's property order: a tip at `height` whose time is `time` (its median time past ten
 * minutes before), the coins `coinOf` gives for `outpoints`, and whether each one's transaction is
 * confirmed.
 */
export function fakeChainView(
  tip: { height: number; time: number; params: ChainParams },
  outpoints: readonly [string, number][],
  coinOf: (txid: string, n: number) => Coin | null,
  confirmed: (txid: string) => boolean = () => false,
) {
  return {
    height: tip.height,
    hash: '00'.repeat(32),
    time: tip.time,
    mtp: tip.time - 600,
    coins: outpoints.map(([t, n]) => coinOf(t, n)),
    confirmed: outpoints.map(([t]) => confirmed(t)),
    hasUnspentOutputs: false,
    params: tip.params,
  };
}
