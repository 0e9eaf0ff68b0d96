import type { Transaction } from '../../chain/tx/transaction.js';
import { decodeAddress, encodeAddress, PUBKEY_ADDRESS, SCRIPT_ADDRESS } from '../../chain/address/address.js';
import { extractDestinations } from '../../chain/script/standard.js';
import { toHex } from '../../chain/encoding/hex.js';
import type { Entry, TxDetail } from './protocol.js';
import { ISMINE_SPENDABLE, ISMINE_WATCH_ONLY, type IsMineFilter, type IsMineType } from './watchonly.js';
import { p2pkhScript, p2shScript } from '../../chain/script/script.js';

export type { Entry, TxDetail } from './protocol.js';

/** What accounting asks the wallet: ownership of a script, and the account of a key id. */
export interface Ledger {
  isMine(script: Uint8Array): boolean;
  /** IsMine's level (watchonly.ts): ISMINE_SPENDABLE, ISMINE_WATCH_ONLY or ISMINE_NO. */
  mineLevel(script: Uint8Array): IsMineType;
  /** The address-book name of a destination (a wallet key's account, or a keyless entry's), undefined when it has none. */
  accountOfAddress(address: string, keyIdHex: string | null): string | undefined;
  /** The account of the wallet key with this id (hex): undefined when the key has none or is not the wallet's. */
  accountOfKeyId(idHex: string): string | undefined;
}

/** The destination (ExtractDestination) an output script pays: its address and, for a key, its id. */
export function scriptDestination(script: Uint8Array): { address: string; keyIdHex: string | null } | null {
  const d = extractDestinations(script, { ccEnabled: false });
  if (!d || d.type === 'multisig') return null;
  const h = d.destinations[0]!;
  if (h.kind === 'key') return { address: encodeAddress(PUBKEY_ADDRESS, h.hash), keyIdHex: toHex(h.hash) };
  return { address: encodeAddress(SCRIPT_ADDRESS, h.hash), keyIdHex: null };
}

/** GetScriptForDestination: the P2PKH of a key destination, the P2SH of a script one. */
function destinationScript(dest: { address: string; keyIdHex: string | null }): Uint8Array {
  if (dest.keyIdHex) return p2pkhScript(Buffer.from(dest.keyIdHex, 'hex'));
  const d = decodeAddress(dest.address)!;
  return p2shScript(d.hash);
}

/** The address an output script pays, or null. */
export function scriptAddress(script: Uint8Array): string | null {
  return scriptDestination(script)?.address ?? null;
}

/**
 * CWalletTx::GetAmounts and the credit/debit behind gettransaction, for one transaction, under the
 * isminefilter `filter` (`debit` is GetDebit(filter)); `watchDebit` is IsFromMe(ISMINE_WATCH_ONLY),
 * which marks every entry involvesWatchonly as ListTransactions does.
 */
export function txDetail(
  meta: { txid: string; timeReceived: number; mapValue?: Record<string, string>; size: number; conflicts: string[] },
  tx: Transaction,
  debit: bigint,
  ledger: Ledger,
  filter: IsMineFilter = ISMINE_SPENDABLE,
  watchDebit = false,
): TxDetail {
  let valueOut = 0n;
  let credit = 0n;
  const levels = tx.vout.map((o) => ledger.mineLevel(o.script));
  tx.vout.forEach((o, i) => {
    valueOut += o.value;
    if (levels[i]! & filter) credit += o.value;
  });
  const fee = debit > 0n ? debit - valueOut : 0n;
  const received: Entry[] = [];
  const sent: Entry[] = [];
  let oneshot = 0;
  tx.vout.forEach((o, i) => {
    const level = levels[i]!;
    const mine = (level & filter) !== 0;
    if (debit === 0n && !mine) return;
    const dest = scriptDestination(o.script);
    const account = dest ? ledger.accountOfAddress(dest.address, dest.keyIdHex) : undefined;
    if (debit > 0n) {
      // komodod's quirk: only change outputs after the second one are left out (IsChange: any IsMine level, no address-book entry).
      const change = level !== 0 && (dest === null || account === undefined);
      if (change && oneshot++ > 1) return;
    }
    const e: Entry = { address: dest?.address ?? null, amount: o.value, vout: i, account: account ?? '' };
    // involvesWatchonly: the transaction spends a watch-only output, or the entry's destination is watched (IsMine(destination)).
    if (watchDebit || (dest && ledger.mineLevel(destinationScript(dest)) & ISMINE_WATCH_ONLY)) e.involvesWatchonly = true;
    if (debit > 0n) sent.push(e);
    if (mine) received.push(e);
  });
  return {
    txid: meta.txid,
    coinbase: tx.isCoinbase(),
    timeReceived: meta.timeReceived,
    ...(meta.mapValue ? { mapValue: meta.mapValue } : {}),
    expiryHeight: tx.expiryHeight,
    size: meta.size,
    credit,
    debit,
    valueOut,
    received,
    sent,
    fee,
    conflicts: meta.conflicts,
  };
}
