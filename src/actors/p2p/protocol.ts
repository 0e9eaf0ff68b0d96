/**
 * The p2p service's protocol: the network RPCs' requests (peers, bans, added nodes), and what the
 * node forwards to it (the mempool's accepted transactions, the wallet's rebroadcast, tip changes).
 * It emits nothing.
 */
import type { Protocol } from '../../machines/messages.js';

/** A transaction to announce: its txid and bytes as accepted. */
export interface RelayItem {
  txid: string;
  raw: Uint8Array;
}

/** getpeerinfo's object for one peer, keys in komodod's order. */
export type PeerInfo = {
  id: number;
  addr: string;
  addrlocal?: string;
  services: string;
  lastsend: number;
  lastrecv: number;
  bytessent: number;
  bytesrecv: number;
  conntime: number;
  timeoffset: number;
  pingtime: number;
  pingwait?: number;
  version: number;
  subver: string;
  inbound: boolean;
  startingheight: number;
  banscore: number;
  synced_headers: number;
  synced_blocks: number;
  inflight: number[];
  addr_processed: number;
  addr_rate_limited: number;
  whitelisted: boolean;
};

/** listbanned's entry. */
export type BannedEntry = { address: string; banned_until: number };

export type P2PRequest =
  | { op: 'peerinfo' }
  | { op: 'connectioncount' }
  | { op: 'networkinfo' }
  | { op: 'listbanned' }
  | { op: 'addednodes' }
  /** getnettotals: bytes received and sent, by every connection ever made. */
  | { op: 'nettotals' }
  /** The port and addresses it listens on (asked at start, once listening). */
  | { op: 'local' }
  // Writes.
  /** The mempool's accepted transactions (announced at once). */
  | { op: 'txsAccepted'; items: RelayItem[] }
  /** The wallet's rebroadcast (ResendWalletTransactions' RelayTransaction). */
  | { op: 'relayTxs'; items: RelayItem[] }
  /** The chain store connected (hash of the new tip) or disconnected a block. */
  | { op: 'tipChanged'; hash?: string; connected: boolean }
  /** command: add | remove | onetry */
  | { op: 'addnode'; node: string; command: string }
  | { op: 'disconnectnode'; node: string }
  | { op: 'ping' }
  /** command: add | remove; bantime in seconds (0: -bantime), absolute: bantime is a unix time */
  | { op: 'setban'; subnet: string; command: string; bantime?: number; absolute?: boolean }
  | { op: 'clearbanned' };

export interface P2PReplies {
  peerinfo: PeerInfo[];
  connectioncount: number;
  networkinfo: { connections: number; localServices: bigint; port: number };
  listbanned: BannedEntry[];
  addednodes: string[];
  nettotals: { recv: number; sent: number };
  local: { port: number; addresses: { host: string; port: number }[] };
  txsAccepted: null;
  relayTxs: null;
  tipChanged: null;
  addnode: null;
  disconnectnode: null;
  ping: null;
  setban: null;
  clearbanned: null;
}

export type P2PProtocol = Protocol<P2PRequest, P2PReplies, never>;
