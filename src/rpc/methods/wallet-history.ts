import type { NodeServices } from '../../actors/protocol.js';
import { NULL_HASH_HEX } from '../../chain/encoding/hex.js';
import type { TxDetail } from '../../actors/wallet/protocol.js';
import { RpcError, RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER } from '../errors.js';
import type { JsonOut, JsonValue } from '../json-value.js';
import { getBool, getInt, getStr } from '../params.js';
import { valueFromAmount } from '../amount.js';
import type { RpcMethod } from '../table.js';
import { askRpc as ask } from '../ask.js';
import { nextBlock } from './rawwallet.js';
import * as H from './wallet-help.js';
import { listsinceblockHelp } from './address.js';

/** The wallet's transaction history as komodod prints it: gettransaction, listtransactions, listsinceblock (rpcwallet.cpp). */
interface ChainTxInfo {
  blockHash: string;
  height: number;
  index: number;
  time: number;
  confirmations: number;
}

/**
 * GetDepthInMainChain: the confirmations in the active chain, else 0 in the mempool, else -1 (a
 * conflicted, expired or stranded transaction). The mempool is asked first: a transaction mined in
 * between is then found in the chain, never taken for -1.
 */
async function txDepth(node: NodeServices, txid: string): Promise<{ info: ChainTxInfo | null; depth: number }> {
  const inMempool = await ask(node.mempool, { op: 'has', txid });
  const info = await ask(node.chainStore, { op: 'tx', txid });
  return { info, depth: info ? info.confirmations : inMempool ? 0 : -1 };
}

/** WalletTxToJSON (rpcwallet.cpp:135-162). */
async function walletTxJSON(node: NodeServices, w: TxDetail, entry: Record<string, JsonOut>, at?: { info: ChainTxInfo | null; depth: number }): Promise<void> {
  const { info, depth: confirms } = at ?? (await txDepth(node, w.txid));
  entry.rawconfirmations = confirms;
  if (w.coinbase) entry.generated = true;
  if (info && confirms > 0) {
    entry.confirmations = confirms;
    entry.blockhash = info.blockHash;
    entry.blockindex = info.index;
    entry.blocktime = info.time;
    entry.expiryheight = w.expiryHeight;
  } else entry.confirmations = confirms;
  entry.txid = w.txid;
  // GetConflicts: the wallet's other transactions spending one of its inputs (read with the record).
  entry.walletconflicts = w.conflicts;
  // GetTxTime: the received time (fTimeReceivedIsTxTime), else the block's.
  entry.time = w.timeReceived;
  entry.timereceived = w.timeReceived;
  // mapValue is a std::map: its keys in byte order.
  for (const k of Object.keys(w.mapValue ?? {}).sort()) entry[k] = w.mapValue![k]!;
  entry.vjoinsplit = [];
}

/** ListTransactions (rpcwallet.cpp:1741-1824) for one transaction, account "*". */
async function listTx(node: NodeServices, w: TxDetail, maturity: number, fLong: boolean, known?: { info: ChainTxInfo | null; depth: number }): Promise<Record<string, JsonOut>[]> {
  const out: Record<string, JsonOut>[] = [];
  const { received, sent, fee, size } = w;
  // One depth for all of the transaction's entries.
  const at = known ?? (await txDepth(node, w.txid));
  const { depth } = at;
  if (sent.length > 0 || fee !== 0n) {
    for (const s of sent) {
      const e: Record<string, JsonOut> = {};
      if (s.involvesWatchonly) e.involvesWatchonly = true;
      // strSentAccount: the account sendfrom/sendmany sent it from.
      e.account = w.fromAccount ?? '';
      if (s.address) e.address = s.address;
      e.category = 'send';
      e.amount = valueFromAmount(-s.amount);
      e.vout = s.vout;
      e.fee = valueFromAmount(-fee);
      if (fLong) await walletTxJSON(node, w, e, at);
      e.size = size;
      out.push(e);
    }
  }
  for (const r of received) {
    const e: Record<string, JsonOut> = {};
    if (r.involvesWatchonly) e.involvesWatchonly = true;
    e.account = r.account;
    if (r.address) e.address = r.address;
    if (w.coinbase) {
      const toMaturity = Math.max(0, maturity - depth);
      if (depth < 1) e.category = 'orphan';
      else if (toMaturity > 0) {
        e.category = 'immature';
        e.blockstomaturity = toMaturity;
      } else e.category = 'generate';
    } else e.category = 'receive';
    e.amount = valueFromAmount(r.amount);
    e.vout = r.vout;
    if (fLong) await walletTxJSON(node, w, e, at);
    e.size = size;
    out.push(e);
  }
  return out;
}

async function maturity(node: NodeServices): Promise<number> {
  return (await nextBlock(node)).params.coinbaseMaturity;
}

/** The wallet's transactions as komodod lists them (rpcwallet.cpp). */
export function historyMethods(node: NodeServices): RpcMethod[] {
  return [
    {
      name: 'gettransaction',
      category: 'wallet',
      minArgs: 1,
      maxArgs: 2,
      help: H.gettransactionHelp,
      handler: (params) => gettransaction(node, params),
    },
    {
      name: 'listtransactions',
      category: 'wallet',
      maxArgs: 4,
      help: H.listtransactionsHelp,
      handler: (params) => listtransactions(node, params),
    },
    {
      // listsinceblock (rpcwallet.cpp:2049): added with the address-index work (src/rpc/methods/address.ts).
      name: 'listsinceblock',
      category: 'wallet',
      help: listsinceblockHelp,
      handler: (params) => listsinceblock(node, params),
    },
  ];
}

async function gettransaction(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const txid = uint256Hex(getStr(params[0]!));
  // includeWatchonly: the isminefilter adds ISMINE_WATCH_ONLY (credit, debit, fee and details).
  const watchOnly = params.length > 1 ? getBool(params[1]!) : false;
  const w = await ask(node.wallet, { op: 'txDetail', txid, hex: true, watchOnly });
  if (!w) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Invalid or non-wallet transaction id');
  const { credit, debit, valueOut } = w;
  const fromMe = debit > 0n;
  const fee = fromMe ? valueOut - debit : 0n;
  const entry: Record<string, JsonOut> = { amount: valueFromAmount(credit - debit - fee) };
  if (fromMe) entry.fee = valueFromAmount(fee);
  const at = await txDepth(node, w.txid);
  await walletTxJSON(node, w, entry, at);
  entry.details = await listTx(node, w, await maturity(node), false, at);
  entry.hex = w.hex!;
  return entry;
}

async function listtransactions(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const account = params.length > 0 ? getStr(params[0]!) : '*';
  let count = params.length > 1 ? getInt(params[1]!) : 10;
  let from = params.length > 2 ? getInt(params[2]!) : 0;
  const watchOnly = params.length > 3 ? getBool(params[3]!) : false;
  if (count < 0) throw new RpcError(RPC_INVALID_PARAMETER, 'Negative count');
  if (from < 0) throw new RpcError(RPC_INVALID_PARAMETER, 'Negative from');
  // OrderedTxItems: by the order the wallet learned them; walked newest first, as far as the page needs.
  const txs = await ask(node.wallet, { op: 'listTxs', count, from, account, watchOnly });
  const m = await maturity(node);
  const ret: Record<string, JsonOut>[] = [];
  for (const w of txs) {
    if ('kind' in w) {
      // AcentryToJSON: a move's half (the wallet picked those of the account asked for).
      ret.push({ account: w.account, category: 'move', time: w.time, amount: valueFromAmount(w.amount), otheraccount: w.otherAccount, comment: w.comment });
      if (ret.length >= count + from) break;
      continue;
    }
    let entries = await listTx(node, w, m, true);
    if (account !== '*') entries = entries.filter((e) => e.account === account);
    ret.push(...entries);
    if (ret.length >= count + from) break;
  }
  if (from > ret.length) from = ret.length;
  if (from + count > ret.length) count = ret.length - from;
  return ret.slice(from, from + count).reverse();
}

async function listsinceblock(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  let since: number | null = null;
  if (params.length > 0) {
    const e = await ask(node.chainStore, { op: 'entry', hash: uint256Hex(getStr(params[0]!)) });
    // An unknown hash lists everything; a block off the active chain counts by its own height, as komodod does.
    if (e) since = e.height;
  }
  let targetConfirms = 1;
  if (params.length > 1) {
    targetConfirms = getInt(params[1]!);
    if (targetConfirms < 1) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter');
  }
  const watchOnly = params.length > 2 ? getBool(params[2]!) : false;
  const tip = await ask(node.chainStore, { op: 'tip' });
  const depth = since === null ? -1 : 1 + tip.height - since;
  // depth < D holds for the transactions in blocks above the given one and for every one in no
  // block (0 in the mempool, -1 otherwise), and for nothing when D < -1 (no depth is below -1);
  // komodod's odd D == -1 (a given block two above the tip) lists everything, as no block does.
  // The wallet hands over those candidates only (its index by height), then each depth is checked.
  let txs: TxDetail[] = [];
  if (depth === -1) txs = await ask(node.wallet, { op: 'txDetails', watchOnly });
  else if (depth > -1) txs = await ask(node.wallet, { op: 'sinceHeight', height: since!, watchOnly });
  const m = await maturity(node);
  // mapWallet is a std::map by uint256: internal byte order (the display hex reversed by bytes).
  const internal = (t: string) => t.match(/../g)!.reverse().join('');
  const ordered = txs.sort((a, b) => (internal(a.txid) < internal(b.txid) ? -1 : internal(a.txid) > internal(b.txid) ? 1 : 0));
  const transactions: Record<string, JsonOut>[] = [];
  for (const w of ordered) {
    const at = await txDepth(node, w.txid);
    if (depth === -1 || at.depth < depth) transactions.push(...(await listTx(node, w, m, true, at)));
  }
  const last = tip.height + 1 - targetConfirms;
  const lastblock = last >= 0 ? await ask(node.chainStore, { op: 'blockHash', height: last }) : null;
  return { transactions, lastblock: lastblock ?? NULL_HASH_HEX };
}

/** uint256::SetHex: optional 0x, the hex digits read from the end, zero-padded (never an error). */
export function uint256Hex(s: string): string {
  let t = s.trim();
  if (t.startsWith('0x') || t.startsWith('0X')) t = t.slice(2);
  const m = /^[0-9a-fA-F]*/.exec(t)![0];
  const digits = m.length > 64 ? m.slice(m.length - 64) : m.padStart(64, '0');
  return digits.toLowerCase();
}
