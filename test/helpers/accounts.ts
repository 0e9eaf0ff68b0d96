import assert from 'node:assert/strict';
import type { Daemon } from './daemon.js';
import type { MoveEntry, TxDetail } from '../../src/actors/wallet/protocol.js';

/** A listtransactions entry, as far as GetAccountBalance reads it. */
interface ListEntry {
  account: string;
  category: string;
  amount: number;
  fee?: number;
  txid?: string;
  rawconfirmations?: number;
}

const sats = (x: number) => BigInt(Math.round(x * 1e8));

/**
 * komodod's GetAccountBalance for every account, brute force over the whole of listtransactions "*":
 * receipts ("receive", mature "generate") at least minConf deep, minus the sends and each sending
 * transaction's fee once (depth ≥ 0), plus the accounting entries (category "move").
 */
export async function accountBalancesBrute(d: Daemon, minConf: number, includeWatchonly = false): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  const add = (a: string, v: bigint) => out.set(a, (out.get(a) ?? 0n) + v);
  const feePaid = new Set<string>();
  // With includeWatchonly the listing is GetAmounts under ISMINE_ALL, as GetAccountBalance's with that filter.
  for (const e of await d.rpc<ListEntry[]>('listtransactions', '*', 1_000_000, 0, includeWatchonly)) {
    if (e.category === 'move') {
      add(e.account, sats(e.amount));
      continue;
    }
    const depth = e.rawconfirmations!;
    if (depth < 0) continue;
    if (e.category === 'send') {
      add(e.account, sats(e.amount));
      if (!feePaid.has(e.txid!)) (feePaid.add(e.txid!), add(e.account, sats(e.fee!)));
    } else if ((e.category === 'receive' || e.category === 'generate') && depth >= minConf) add(e.account, sats(e.amount));
  }
  return out;
}

/** The wallet's listTxs reader, as the wallet logic answers it (a plain read). */
interface ListTxsReader {
  read(body: { op: 'listTxs'; count: number; from: number; account: string; watchOnly?: boolean }): unknown;
}

type Listed = TxDetail | MoveEntry;

/** ListTransactions' entries for `account` in one listed item (a move is one; "*" takes every entry). */
export function entriesFor(x: Listed, account: string): number {
  if ('kind' in x) return account === '*' || x.account === account ? 1 : 0;
  const sends = x.sent.length > 0 || x.fee !== 0n;
  if (account === '*') return x.received.length + (sends ? x.sent.length : 0);
  return x.received.filter((e) => e.account === account).length + (sends && account === (x.fromAccount ?? '') ? x.sent.length : 0);
}

/**
 * listtransactions' wallet part for `account` against komodod's loop: every order position newest
 * first (the whole "*" listing), each item's entries for the account counted until count + from,
 * keeping the items with an entry for it (what the RPC layer lists; an item without one adds nothing).
 */
export function assertListTxsAgainstBrute(wallet: ListTxsReader, account: string, count: number, from: number, watchOnly: boolean, step: string): void {
  const all = wallet.read({ op: 'listTxs', count: Number.MAX_SAFE_INTEGER, from: 0, account: '*', watchOnly }) as Listed[];
  const want: Listed[] = [];
  let entries = 0;
  for (const x of all) {
    if (entries >= count + from) break;
    const n = entriesFor(x, account);
    if (n > 0) want.push(x);
    entries += n;
  }
  const got = (wallet.read({ op: 'listTxs', count, from, account, watchOnly }) as Listed[]).filter((x) => entriesFor(x, account) > 0);
  assert.deepEqual(got, want, `${step}: listtransactions "${account}" ${count} ${from}${watchOnly ? ' (watch-only)' : ''}`);
}
