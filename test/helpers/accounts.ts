import type { Daemon } from './daemon.js';

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
