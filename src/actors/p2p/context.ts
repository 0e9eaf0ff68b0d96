import type { ChainParams } from '../../chain/params/chain-params.js';
import { MSG_BLOCK, MSG_FILTERED_BLOCK } from '../../chain/p2p/messages.js';
import type { Asker } from '../ask.js';
import type { ChainStoreProtocol, TipInfo as ChainTip } from '../chainstore/protocol.js';
import type { MempoolProtocol } from '../mempool/protocol.js';
import type { Peer } from './peer.js';

export interface P2POptions {
  params: ChainParams;
  chain: Asker<ChainStoreProtocol>;
  mempool: Asker<MempoolProtocol>;
  port: number;
  listen: boolean;
  bind: readonly string[];
  addnode: readonly string[];
  connect: readonly string[];
  whitelist: readonly string[];
  maxConnections: number;
  banScore: number;
  banTime: number;
  log: (msg: string) => void;
  /** -debug=net: log every message received. */
  debug?: boolean;
  now?: () => number;
}

/** What sync keeps of the chain store's tip. */
export type TipInfo = Pick<ChainTip, 'hash' | 'height' | 'time' | 'chainWork'>;

/** What the chain store knows of a block (its 'known' op). */
export type { KnownBlock as Known } from '../chainstore/protocol.js';

/** The key of an inventory entry in a peer's known set and the node's relay bookkeeping. */
export const hashKey = (type: number, hash: string) => `${type === MSG_BLOCK || type === MSG_FILTERED_BLOCK ? 'b' : 't'}:${hash}`;

/** What every part of the p2p service shares: its options, its peers, its log, its closing flag. */
export class P2PCore {
  readonly peers = new Map<number, Peer>();
  /** Set by close(): nothing new is dialled, accepted or scheduled. */
  closing = false;

  constructor(readonly opts: P2POptions) {}

  connected(): Peer[] {
    return [...this.peers.values()].filter((p) => !p.disconnected);
  }

  log(msg: string): void {
    this.opts.log(msg);
  }

  /** Work started from a socket or timer callback: a failure is logged, never left to crash the node. */
  background(p: Promise<unknown>, what: string): void {
    p.catch((e) => this.log(`p2p: ${what} failed: ${e instanceof Error ? e.message : String(e)}`));
  }

  guard(f: () => void, what: string): void {
    try {
      f();
    } catch (e) {
      this.log(`p2p: ${what} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

/** One part of the p2p service (connections, sync, relay...): the shared core through a few helpers. */
export abstract class P2PPart {
  constructor(protected readonly core: P2PCore) {}

  protected get opts(): P2POptions {
    return this.core.opts;
  }

  protected get peers(): Map<number, Peer> {
    return this.core.peers;
  }

  protected connected(): Peer[] {
    return this.core.connected();
  }

  protected log(msg: string): void {
    this.core.log(msg);
  }

  protected background(p: Promise<unknown>, what: string): void {
    this.core.background(p, what);
  }
}
