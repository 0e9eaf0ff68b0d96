import type { BlockHeader } from './header.js';
import { verifyEquihash, type EquihashParams } from './equihash.js';
import { KMD_GENESIS_HASH } from './genesis.js';
import { POW_LIMIT, checkProofOfWork } from './pow.js';

export interface ChainPowRules {
  /** The chain's Equihash (n,k) and whether it came from -ac_nk. */
  equihash: EquihashParams;
  /** komodod -regtest: Equihash is not checked at all (pow.cpp CheckEquihashSolution). */
  regtest?: boolean;
  powLimit?: bigint;
}

/**
 * CheckEquihashSolution (pow.cpp): regtest accepts anything; with -ac_nk the KMD genesis, whose solution
 * is a (200,9) "ZcashPoW" one, is accepted by its hash; otherwise the solution must verify.
 */
export function checkEquihashSolution(header: BlockHeader, rules: ChainPowRules): boolean {
  if (rules.equihash.acNk && header.hashHex() === KMD_GENESIS_HASH) return true;
  if (rules.regtest) return true;
  return verifyEquihash(rules.equihash, header.equihashInput(), header.solution);
}

/**
 * The proof-of-work part of komodod's CheckBlockHeader + CheckBlock for a plain asset chain
 * (p2p-blocks.md §8): null when valid, else komodod's reject reason — "invalid-solution" (bad Equihash,
 * checked first, DoS 100) or "high-hash" (hash above the nBits target or an invalid nBits, DoS 50).
 * Notary easy-mined blocks (KMD only) and ac_staked are out of scope. On regtest komodod's fast path
 * skips the hash check (KOMODO_TEST_ASSETCHAIN_SKIP_POW) but CheckBlock's CheckProofOfWork still
 * enforces it on connect, so it is enforced here.
 */
export function proofOfWorkError(header: BlockHeader, rules: ChainPowRules): 'invalid-solution' | 'high-hash' | null {
  if (!checkEquihashSolution(header, rules)) return 'invalid-solution';
  if (!checkProofOfWork(header.hash(), header.bits, rules.powLimit ?? POW_LIMIT)) return 'high-hash';
  return null;
}
