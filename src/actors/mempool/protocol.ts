/**
 * The mempool's protocol: what it answers, what it announces (txsAccepted, txsRemoved), and the
 * records others see of it (the entry view, getmempoolinfo's figures, its address index entries).
 */
import type { Block } from '../../chain/block/block.js';
import type { Transaction } from '../../chain/tx/transaction.js';
import type { Protocol, ServiceError } from '../../machines/messages.js';
import type { Outpoint } from '../chainstore/protocol.js';

// ---- records ---------------------------------------------------------------------------------

/** getmempoolinfo's figures, kept as running totals: every add and removal updates them. */
export interface MempoolInfo {
  size: number;
  bytes: number;
  usage: number;
  /** nTransactionsUpdated: one per transaction added or removed and per tip change (getblocktemplate's longpollid). */
  transactionsUpdated: number;
}

/** A transaction in the mempool. */
export interface MempoolEntry {
  tx: Transaction;
  txid: string;
  raw: Uint8Array;
  size: number;
  fee: bigint;
  /** Unix time of acceptance. */
  time: number;
  /** Chain height when it was accepted. */
  height: number;
  /** Outpoint keys it spends. */
  spends: string[];
  /** The value and script of each output it spends (for the address view), in input order. */
  prevouts?: { value: bigint; script: Uint8Array }[];
}

/** One entry of komodod's mempool address index (CMempoolAddressDeltaKey → CMempoolAddressDelta). */
export interface MempoolAddressDelta {
  /** address key (coins.ts addressKey) */
  address: string;
  txid: string;
  index: number;
  spending: boolean;
  satoshis: bigint;
  /** the time the transaction entered the mempool */
  time: number;
  /** the spent outpoint (inputs only) */
  prevtxid?: string;
  prevout?: number;
}

/** A prioritisetransaction delta: what the miner's selection adds to a transaction's priority and fee. */
export interface PriorityDelta {
  priority: number;
  fee: bigint;
}

/** One transaction to accept. */
export interface AcceptItem {
  raw: Uint8Array;
  allowHighFees: boolean;
  /** The transaction already decoded from raw (saves decoding it again). */
  tx?: Transaction;
  /**
   * false: accepted without being announced to peers. komodod's AcceptToMemoryPool never relays (its
   * callers do); the wallet's re-accept at start leaves the announcement to its rebroadcast.
   */
  relay?: false;
}

/** One transaction's answer inside an acceptMany answer: its txid, or its error. */
export type AcceptOutcome = { ok: true; result: string } | { ok: false; error: ServiceError };

// ---- requests and replies ------------------------------------------------------------------

export type MempoolRequest =
  | { op: 'get'; txid: string }
  | { op: 'has'; txid: string }
  /** Which of these txids the pool holds (p2p's AlreadyHave for a slice of an inv). */
  | { op: 'hasMany'; txids: string[] }
  | { op: 'txids' }
  /** Parents before children (a block template built in this order is valid). */
  | { op: 'entries' }
  | { op: 'info' }
  | { op: 'spentBy'; txid: string; n: number }
  /**
   * Which of the outpoints a mempool transaction spends (myIsutxo_spentinmempool for a list), with
   * the pool's count of removals so far: while it is unchanged, an outpoint found spent stays spent.
   */
  | { op: 'spentAmong'; outpoints: Outpoint[] }
  /** Answered once every write sent before it (a chain notice) has applied: invalidateblock waits on it. */
  | { op: 'sync' }
  | { op: 'addressDeltas'; addresses: string[] }
  /** The mempool's spent index (mapSpent): the spending txid and its input index, per outpoint. */
  | { op: 'spentMany'; outpoints: Outpoint[] }
  /** The prioritisetransaction deltas (mapDeltas) of these txids, null where none. */
  | { op: 'deltas'; txids: string[] }
  /** CBlockPolicyEstimator::estimateFee: satoshis per kB for confirmation within `blocks`, 0 when unknown. */
  | { op: 'estimateFee'; blocks: number }
  /** CBlockPolicyEstimator::estimatePriority: -1 when unknown. */
  | { op: 'estimatePriority'; blocks: number }
  // Writes.
  /** prioritisetransaction: adds to the txid's priority and fee deltas (kept until it is mined). */
  | { op: 'prioritise'; txid: string; priority: number; fee: bigint }
  /**
   * One transaction. `gathered`: its sender waited for company already (sendrawtransaction's calls of
   * one turn): the mempool starts it at once instead of holding it a turn, as it does an acceptMany.
   */
  | ({ op: 'accept'; gathered?: true } & AcceptItem)
  /** Accepted as one burst (the sendrawtransaction calls of one JSON-RPC batch). */
  | { op: 'acceptMany'; items: AcceptItem[] }
  /** The chain store's notices, forwarded by the node: the mempool re-checks its contents. */
  | { op: 'blockConnected'; block: Block; txids: string[]; height: number }
  | { op: 'blockDisconnected'; block: Block };

export interface MempoolReplies {
  get: MempoolEntry | null;
  has: boolean;
  hasMany: boolean[];
  txids: string[];
  entries: MempoolEntry[];
  info: MempoolInfo;
  spentBy: string | null;
  spentAmong: { spent: boolean[]; removals: number };
  sync: null;
  addressDeltas: MempoolAddressDelta[];
  spentMany: ({ txid: string; vin: number } | null)[];
  deltas: (PriorityDelta | null)[];
  estimateFee: number;
  estimatePriority: number;
  prioritise: null;
  /** the txid */
  accept: string;
  acceptMany: AcceptOutcome[];
  blockConnected: null;
  blockDisconnected: null;
}

// ---- notices -------------------------------------------------------------------------------

/** One transaction of a txsAccepted notice. */
export interface TxAccepted {
  txid: string;
  tx: Transaction;
  /** Its serialisation, as accepted (relayed as is). */
  raw: Uint8Array;
  /** false: not announced to peers (AcceptItem.relay). */
  relay?: false;
}

/**
 * Transactions that entered the mempool, in the order they entered: one notice for the run of them a
 * write or a burst's report settled (a burst of 16 is one notice, not 16), so each recipient (wallet,
 * p2p relay) takes one message per burst. A txsRemoved between two accepted ones splits the run.
 */
export interface TxsAccepted {
  type: 'txsAccepted';
  items: TxAccepted[];
}

/** One transaction of a txsRemoved notice. */
export interface TxRemoved {
  txid: string;
  reason: 'block' | 'conflict' | 'expired' | 'reorg';
}

/**
 * Transactions that left the mempool, in the order they left: one notice for the run of them a write
 * made (a connected block's mined, conflicting and expired transactions are one notice, not one per
 * transaction). A txsAccepted between two removed ones splits the run.
 */
export interface TxsRemoved {
  type: 'txsRemoved';
  items: TxRemoved[];
}

export type MempoolNotice = TxsAccepted | TxsRemoved;

export type MempoolProtocol = Protocol<MempoolRequest, MempoolReplies, MempoolNotice>;
