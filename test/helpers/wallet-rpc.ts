import type { TestContext } from 'node:test';
import { removeDir, startDaemon, type Daemon } from './daemon.js';

/**
 * What the wallet's integration tests share: listunspent's row, JSON amounts as satoshis, and a
 * daemon stopped and its data directory removed when the test ends (a restart through start() is
 * the same Daemon, so the teardown stops whichever run is last).
 */

/** A listunspent row, komodod's fields (redeemScript only for a P2SH coin; account only when labelled). */
export interface Unspent {
  txid: string;
  vout: number;
  generated: boolean;
  /** Absent for a watched script with no address. */
  address: string;
  segid: number;
  account?: string;
  amount: number;
  interest: number;
  scriptPubKey: string;
  redeemScript?: string;
  rawconfirmations: number;
  confirmations: number;
  spendable: boolean;
}

/** A JSON amount (8 decimals) as satoshis. */
export const sats = (x: number): bigint => BigInt(Math.round(x * 1e8));

/** startDaemon(args), stopped and its directory removed after the test `t`. */
export async function walletDaemon(t: TestContext, args?: string[]): Promise<Daemon> {
  let d: Daemon | undefined;
  t.after(async () => {
    await d?.stop();
    if (d) removeDir(d.datadir);
  });
  d = await startDaemon(args);
  return d;
}
