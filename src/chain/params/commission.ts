import type { AcParams } from './ac-params.js';
import { stakedChainKind } from './subsidy.js';

const COIN = 100_000_000n;
const u64 = (v: bigint): bigint => BigInt.asUintN(64, v);

/**
 * komodo_commission (komodo_bitcoind.cpp) for a chain with -ac_founders: ac_commission of the block
 * subsidy (per COIN), paid every ac_founders blocks (times ac_founders, or ac_foundersreward) when
 * ac_founders > 1; under 10000 satoshis it is 0. LABSxxx chains pay none.
 */
export function foundersCommission(p: AcParams, subsidy: bigint, height: number): bigint {
  if (stakedChainKind(p.name) === 2) return 0n;
  let commission = u64(subsidy * p.commission) / COIN;
  if (p.founders > 1) {
    if (height % p.founders === 0) commission = p.foundersReward === 0n ? commission * BigInt(p.founders) : p.foundersReward;
    else commission = 0n;
  }
  return commission < 10000n ? 0n : commission;
}

/**
 * komodo_commission for a chain without -ac_founders, on a block: ac_commission (per 10^8) of its
 * output values, every output but the coinbase's second counted and the sum capped at 10^6 coins (past
 * height 225000 on a staked chain the last output of the last transaction is not counted).
 */
export function blockCommission(p: AcParams, height: number, outputs: readonly (readonly bigint[])[]): bigint {
  if (stakedChainKind(p.name) === 2) return 0n;
  let total = 0n;
  for (let i = 0; i < outputs.length; i++) {
    const vout = outputs[i]!;
    for (let j = 0; j < vout.length; j++) {
      if (height > 225000 && p.staked !== 0 && outputs.length > 1 && i === outputs.length - 1 && j === vout.length - 1) break;
      if (i !== 0 || j !== 1) total = u64(total + vout[j]!);
      if (total > 1_000_000n * COIN) {
        total = 1_000_000n * COIN;
        break; // komodod leaves only this transaction's loop: the sum stays capped
      }
    }
  }
  const commission = ((total / 10000n) * p.commission) / 10000n;
  return commission < 10000n ? 0n : commission;
}
