import type { Transaction } from '../../chain/tx/transaction.js';
import { encodeAddress, PUBKEY_ADDRESS, SCRIPT_ADDRESS } from '../../chain/address/address.js';
import { extractDestinations } from '../../chain/script/standard.js';
import { toHex } from '../../chain/encoding/hex.js';
import type { Entry, TxDetail } from './protocol.js';

export type { Entry, TxDetail } from './protocol.js';

/** What accounting asks the wallet: ownership of a script, and the account of a key id. */
export interface Ledger {
  isMine(script: Uint8Array): boolean;
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

/** The address an output script pays, or null. */
export function scriptAddress(script: Uint8Array): string | null {
  return scriptDestination(script)?.address ?? null;
}

/** CWalletTx::GetAmounts and the credit/debit behind gettransaction, for one transaction. */
export function txDetail(
  meta: { txid: string; timeReceived: number; mapValue?: Record<string, string>; size: number; conflicts: string[] },
  tx: Transaction,
  debit: bigint,
  ledger: Ledger,
): TxDetail {
  let valueOut = 0n;
  let credit = 0n;
  for (const o of tx.vout) {
    valueOut += o.value;
    if (ledger.isMine(o.script)) credit += o.value;
  }
  const fee = debit > 0n ? debit - valueOut : 0n;
  const received: Entry[] = [];
  const sent: Entry[] = [];
  let oneshot = 0;
  tx.vout.forEach((o, i) => {
    const mine = ledger.isMine(o.script);
    if (debit === 0n && !mine) return;
    const dest = scriptDestination(o.script);
    const account = dest?.keyIdHex ? ledger.accountOfKeyId(dest.keyIdHex) : undefined;
    if (debit > 0n) {
      // komodod's quirk: only change outputs after the second one are left out.
      const change = mine && (dest === null || account === undefined);
      if (change && oneshot++ > 1) return;
    }
    const e: Entry = { address: dest?.address ?? null, amount: o.value, vout: i, account: account ?? '' };
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
