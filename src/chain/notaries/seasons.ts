import { stakedChainKind } from '../params/subsidy.js';
import { GENESIS_NOTARIES, NOTARIES_ELECTED, NOTARIES_STAKED } from './tables.js';

/** komodo_hardfork.h KMD_SEASON_TIMESTAMPS: the last second of each dPoW season on asset chains. */
export const KMD_SEASON_TIMESTAMPS = [1525132800, 1563148800, 1576840000, 1592146800, 1623682800, 1656077853, 1688132253, 1728049053, 1951328000] as const;

/** notaries_staked.h: STAKED_NOTARIES_TIMESTAMP, STAKED_ERA_GAP, and iguana's settings for LABS notaries. */
export const STAKED_NOTARIES_TIMESTAMP = [1572523200, 1704244444, 1704244444, 1704244444] as const;
export const STAKED_ERA_GAP = 777;
export const IGUANA_PORT = 9333;
export const BTC_MINSIGS = 13;
export const OVERRIDE_MINSIGS = 7;
export const IGUANA_SEEDS = ['94.23.1.95', '103.6.12.112', '18.224.176.46', '45.76.120.247', '185.62.57.32', '149.28.253.160', '68.183.226.124', '149.28.246.230'] as const;

/** getacseason: the 1-based season of a time on an asset chain, 0 past the last season. */
export function getAcSeason(timestamp: number): number {
  if (timestamp <= KMD_SEASON_TIMESTAMPS[0]) return 1;
  for (let i = 1; i < KMD_SEASON_TIMESTAMPS.length; i++) {
    if (timestamp <= KMD_SEASON_TIMESTAMPS[i]! && timestamp > KMD_SEASON_TIMESTAMPS[i - 1]!) return i + 1;
  }
  return 0;
}

/** STAKED_era: the 1-based LABS era of a time, 0 inside a gap. */
export function stakedEra(timestamp: number): number {
  if (timestamp <= STAKED_NOTARIES_TIMESTAMP[0]) return 1;
  for (let i = 1; i < STAKED_NOTARIES_TIMESTAMP.length; i++) {
    if (timestamp <= STAKED_NOTARIES_TIMESTAMP[i]! && timestamp >= STAKED_NOTARIES_TIMESTAMP[i - 1]! + STAKED_ERA_GAP) return i + 1;
  }
  return 0;
}

/** rpc/misc.cpp getera: the 0-based index of the staked table getiguanajson and getnotarysendmany read (0 past the last). */
export function getEra(timestamp: number): number {
  for (let i = 0; i < STAKED_NOTARIES_TIMESTAMP.length; i++) if (timestamp <= STAKED_NOTARIES_TIMESTAMP[i]!) return i;
  return 0;
}

/**
 * komodo_notaries(pubkeys, height, timestamp) on an asset chain that was never notarised, as pubkey hex:
 * a LABS-family chain takes its era's staked notaries (64 zero keys inside an era gap); any other chain
 * the season of the time. `timestamp` 0 means the time of the block at the height (`heightTime`, 0 when
 * there is none). Past the last season, and for a LABS chain at time 0, the genesis notaries komodo_init loads.
 */
export function komodoNotaries(chainName: string, timestamp: number, heightTime: number): string[] {
  const t = timestamp === 0 ? heightTime : timestamp;
  if (stakedChainKind(chainName) === 0) {
    const season = getAcSeason(t);
    if (season !== 0) return NOTARIES_ELECTED[season - 1]!.map(([, pk]) => pk);
  } else if (t !== 0) {
    const era = stakedEra(t);
    if (era === 0) return new Array<string>(64).fill('00'.repeat(33));
    return NOTARIES_STAKED[era - 1]!.map(([, pk]) => pk);
  }
  return GENESIS_NOTARIES.map(([, pk]) => pk);
}
