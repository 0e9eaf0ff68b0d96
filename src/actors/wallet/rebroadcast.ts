import type { Transaction } from '../../chain/tx/transaction.js';
import { DEFAULT_MAX_TIP_AGE, KOMODO_MAXMEMPOOLTIME } from '../../chain/consensus/timing.js';
import { LOCKTIME_THRESHOLD } from '../../chain/consensus/script.js';

/**
 * The wallet's unconfirmed transactions after a restart and while they wait for a block: komodod's
 * ReacceptWalletTransactions (at start) and ResendWalletTransactions (periodic rebroadcast), as pure
 * rules over the wallet's records, so the wallet actor only feeds them and acts on the answers.
 */

/** A wallet transaction as these rules read it (WalletTx). */
export interface PendingTx {
  txid: string;
  tx: Transaction;
  /** nTimeReceived. */
  timeReceived: number;
  /** nOrderPos. */
  seq: number;
}

/** The timing of ResendWalletTransactions, in seconds. */
export interface ResendTimes {
  /** A round is due GetRand(maxDelay) seconds after the previous one (komodod: 30 * 60). */
  maxDelay: number;
  /** Only transactions received this long before the last block came are resent (komodod: 5 * 60). */
  minAge: number;
}

/** komodod's: wallet.cpp ResendWalletTransactions. */
export const KOMODOD_RESEND_TIMES: ResendTimes = { maxDelay: 30 * 60, minAge: 5 * 60 };

/** uint256 order (mapWallet's key order): the internal byte order, i.e. the display hex read backwards by bytes. */
export function compareTxids(a: string, b: string): number {
  for (let i = a.length - 2; i >= 0; i -= 2) {
    const x = a.slice(i, i + 2);
    const y = b.slice(i, i + 2);
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/**
 * The order the re-accept tries transactions in: by nOrderPos, as komodod's mapSorted, except that a
 * transaction spending another of them always comes after it (a child learned first would otherwise
 * be refused for missing inputs). Iterative, so a long chain of unconfirmed transactions cannot
 * overflow the stack.
 */
export function reacceptOrder<T extends PendingTx>(txs: readonly T[]): T[] {
  const byId = new Map(txs.map((t) => [t.txid, t]));
  const out: T[] = [];
  const seen = new Set<string>();
  for (const root of [...txs].sort((a, b) => a.seq - b.seq)) {
    if (seen.has(root.txid)) continue;
    seen.add(root.txid);
    const stack: { t: T; next: number }[] = [{ t: root, next: 0 }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const vin = top.t.tx.vin;
      if (top.next < vin.length) {
        const parent = byId.get(vin[top.next++]!.prevout.txid());
        if (parent && !seen.has(parent.txid)) {
          seen.add(parent.txid);
          stack.push({ t: parent, next: 0 });
        }
        continue;
      }
      out.push(top.t);
      stack.pop();
    }
  }
  return out;
}

/**
 * IsInitialBlockDownload as the wallet needs it: the tip is older than DEFAULT_MAX_TIP_AGE; once
 * left, never entered again (komodod latches it to false).
 */
export class InitialDownload {
  private left = false;

  /** The tip's block time changed (at load, on each connected block). */
  tipTime(time: number, now: number): void {
    if (!this.left && time >= now - DEFAULT_MAX_TIP_AGE) this.left = true;
  }

  get active(): boolean {
    return !this.left;
  }
}

/**
 * The schedule of ResendWalletTransactions (wallet.cpp): a round runs when its random time has come;
 * the first one only sets the next; a round does anything only if a block came since the last one
 * that did, and then resends what was received minAge before that block came.
 */
export class ResendClock {
  /** nNextResend (0: never called yet). */
  private nextResend = 0;
  /** nLastResend. */
  private lastResend = 0;
  /** nTimeBestReceived: when this node's tip last changed (UpdateTip); 0 until one does. */
  bestReceived = 0;

  constructor(
    private readonly times: ResendTimes,
    /** GetRand(n): a whole number in [0, n). */
    private readonly random: (n: number) => number,
  ) {}

  /** One call at `now` (seconds): the received-time limit of the transactions to resend, or null when none are. */
  round(now: number): number | null {
    if (now < this.nextResend) return null;
    const first = this.nextResend === 0;
    this.nextResend = now + this.random(this.times.maxDelay);
    if (first) return null;
    // Only do it if there's been a new block since last time. In whole seconds, as komodod: a block in
    // the second of the last round lets the next round through too.
    if (this.bestReceived < this.lastResend) return null;
    this.lastResend = now;
    return this.bestReceived - this.times.minAge;
  }

  /** Seconds from `now` until the next round is due (0: due now). */
  dueIn(now: number): number {
    return Math.max(0, this.nextResend - now);
  }
}

/**
 * ResendWalletTransactionsBefore(nTime) over the wallet's transactions still in the mempool (depth 0,
 * the only ones RelayWalletTransaction relays): those received at or before `before`, oldest first
 * (ties in mapWallet order). komodod's oddity kept: a transaction time-locked to a time more than
 * KOMODO_MAXMEMPOOLTIME before now is never resent (the wallet's own carry the tip's median time).
 */
export function resendable<T extends PendingTx>(inMempool: Iterable<T>, before: number, now: number): T[] {
  const out: T[] = [];
  for (const w of inMempool) {
    if (w.timeReceived > before || w.tx.isCoinbase()) continue;
    const lockTime = w.tx.lockTime >>> 0;
    if (lockTime >= LOCKTIME_THRESHOLD && lockTime < now - KOMODO_MAXMEMPOOLTIME) continue;
    out.push(w);
  }
  return out.sort((a, b) => a.timeReceived - b.timeReceived || compareTxids(a.txid, b.txid));
}
