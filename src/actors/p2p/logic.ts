import { NODE_NETWORK } from '../../chain/p2p/messages.js';
import { ServiceFailure, noSuchOp } from '../protocol.js';
import type { ServiceLogic, WriteOutcome } from '../../machines/service.js';
import type { P2PReplies, P2PRequest } from './protocol.js';
import { AddrBook } from './addrs.js';
import { Bans } from './bans.js';
import { Connections } from './connections.js';
import { P2PCore, type P2POptions } from './context.js';
import { Dispatch } from './dispatch.js';
import { Inventory } from './inventory.js';
import type { Peer } from './peer.js';
import { TxRelay } from './relay.js';
import { BlockSync } from './sync.js';

export type { P2POptions } from './context.js';

export const DEFAULT_BANSCORE = 101;
export const DEFAULT_MAX_PEER_CONNECTIONS = 384;
/** -addnode entries are retried this often (ThreadOpenAddedConnections sleeps 2 minutes; acnode retries sooner). */
const ADDNODE_RETRY_MS = 15_000;

/**
 * The p2p service: komodod's wire protocol over TCP (net.cpp + main.cpp ProcessMessage/SendMessages).
 * It listens (loopback unless -bind says otherwise), dials -addnode/-connect, relays transactions and
 * blocks once per peer, syncs headers first and then blocks, scores misbehaviour and bans. Requests
 * (RPC, notices from the mempool and chain store) arrive through the service machine; socket traffic
 * is handled here, one message at a time per peer, asking chainStore and mempool for what it needs.
 *
 * The jobs live in their own modules, wired here: connections and handshake (connections.ts), header
 * sync and block download (sync.ts), transaction relay and orphans (relay.ts), inv and getdata
 * (inventory.ts), addresses (addrs.ts), misbehaviour and bans (bans.ts), message dispatch (dispatch.ts).
 */
export class P2PLogic implements ServiceLogic<P2PRequest, never> {
  readonly name = 'p2p';
  private readonly core: P2PCore;
  private readonly bans: Bans;
  private readonly sync: BlockSync;
  private readonly relay: TxRelay;
  private readonly connections: Connections;
  private timers: NodeJS.Timeout[] = [];

  constructor(private readonly opts: P2POptions) {
    for (const [flag, v] of [['maxconnections', opts.maxConnections], ['banscore', opts.banScore], ['bantime', opts.banTime]] as const) {
      if (!Number.isInteger(v) || v < 0) throw new Error(`Invalid value for -${flag}: expected a whole number`);
    }
    const core = (this.core = new P2PCore(opts));
    const bans = (this.bans = new Bans(core));
    const sync = (this.sync = new BlockSync(core, bans));
    const relay = (this.relay = new TxRelay(core, bans, sync));
    const inventory = new Inventory(core, bans, sync, relay);
    const addrs = new AddrBook(bans);
    // The dispatcher is made after the connections that hand it their frames: reached through a closure.
    let dispatch: Dispatch | undefined;
    this.connections = new Connections(core, bans, sync, (p, f) => dispatch!.onFrame(p, f));
    dispatch = new Dispatch(core, { bans, connections: this.connections, sync, relay, inventory, addrs });
  }

  get peers(): Map<number, Peer> {
    return this.core.peers;
  }

  get boundPort(): number {
    return this.connections.boundPort;
  }

  get boundAddresses(): { host: string; port: number }[] {
    return this.connections.boundAddresses;
  }

  // ---- lifecycle ------------------------------------------------------------------------------

  async load(): Promise<void> {
    // The chain store may still be replaying a long chain: wait for it as startNode does.
    await this.sync.refreshTip(10 * 60_000);
    if (this.opts.listen) {
      await this.connections.listen();
    } else {
      this.core.log('P2P not listening (-listen=0)');
    }
    // -connect: only those; else -addnode entries, kept and retried.
    const dial = this.opts.connect.length ? this.opts.connect : this.opts.addnode;
    for (const d of dial) this.connections.addedNodes.push(d);
    this.connections.openAddedConnections();
    this.timers.push(setInterval(() => this.core.guard(() => this.connections.openAddedConnections(), 'added connections'), ADDNODE_RETRY_MS));
    this.timers.push(setInterval(() => this.core.guard(() => this.housekeeping(), 'housekeeping'), 1000));
    for (const t of this.timers) t.unref();
  }

  async close(): Promise<void> {
    this.core.closing = true;
    for (const t of this.timers) clearInterval(t);
    await this.connections.close();
  }

  isWrite(body: P2PRequest): boolean {
    return !['peerinfo', 'connectioncount', 'networkinfo', 'listbanned', 'addednodes', 'local', 'nettotals'].includes(body.op);
  }

  /**
   * The mempool's accepted transactions, and the wallet's rebroadcast (relayTxs), are announced at
   * once, in the step that brings them (ServiceLogic.writesNow).
   */
  writesNow(body: P2PRequest): boolean {
    return body.op === 'txsAccepted' || body.op === 'relayTxs';
  }

  writeNow(body: P2PRequest): WriteOutcome<never> {
    if (body.op === 'relayTxs') for (const { txid, raw } of body.items) this.relay.relayTransaction(txid, raw);
    else if (body.op === 'txsAccepted') for (const { txid, raw } of body.items) this.relay.onTxAccepted(txid, raw);
    else throw noSuchOp('p2p', body);
    return { result: null };
  }

  read(body: P2PRequest): P2PReplies[keyof P2PReplies] {
    switch (body.op) {
      case 'peerinfo':
        return [...this.peers.values()].filter((p) => !p.disconnected).map((p) => this.connections.peerInfo(p));
      case 'connectioncount':
        return this.connected().length;
      case 'networkinfo':
        return { connections: this.connected().length, localServices: NODE_NETWORK, port: this.boundPort };
      case 'listbanned':
        return this.bans.list();
      case 'addednodes':
        return [...this.connections.addedNodes];
      case 'nettotals':
        return this.connections.netTotals();
      case 'local':
        return { port: this.boundPort, addresses: this.boundAddresses };
      default:
        throw noSuchOp('p2p', body);
    }
  }

  async write(body: P2PRequest): Promise<WriteOutcome<never>> {
    switch (body.op) {
      case 'txsAccepted':
      case 'relayTxs':
        return this.writeNow(body);
      case 'tipChanged':
        await this.sync.onTipChanged(body.hash, body.connected === true);
        return { result: null };
      case 'addnode':
        return { result: this.connections.addnode(body.node, body.command) };
      case 'disconnectnode': {
        const p = this.connections.findPeer(body.node);
        if (!p) throw new ServiceFailure(-29, 'Node not found in connected nodes');
        p.close();
        return { result: null };
      }
      case 'ping':
        for (const p of this.peers.values()) p.pingQueued = true;
        this.connections.sendPings();
        return { result: null };
      case 'setban':
        return { result: this.bans.setban(body.subnet, body.command, body.bantime ?? 0, body.absolute === true) };
      case 'clearbanned':
        this.bans.clear();
        return { result: null };
      default:
        throw noSuchOp('p2p', body);
    }
  }

  summary(): Record<string, unknown> {
    let askFor = 0;
    for (const p of this.peers.values()) askFor += p.askFor.size;
    return {
      peers: this.connected().length,
      port: this.boundPort,
      pendingHeaders: this.sync.pending.size,
      inflight: this.sync.inflight.size,
      askFor,
      alreadyAsked: this.relay.alreadyAsked.size,
      orphanTxs: this.relay.orphanTxs.size,
      orphanBlocks: this.sync.orphanBlocks.size,
    };
  }

  private connected(): Peer[] {
    return this.core.connected();
  }

  /** Once a second: dead and late peers dropped, pings, due transaction requests, downloads scheduled (the relay cache expires as komodod's, at a relay). */
  private housekeeping(): void {
    const now = Date.now();
    const nowS = Math.floor(now / 1000);
    for (const p of this.connected()) if (!this.connections.dropIfDead(p, now, nowS)) this.sync.dropIfLate(p, now);
    this.connections.sendPings();
    // Requests delayed because another peer was asked first (AskFor's two minutes) go out when due.
    const nowUs = now * 1000;
    for (const p of this.connected()) if (!p.askSending && p.askQueue.nextTime <= nowUs) this.core.background(this.relay.sendAskedFor(p), 'getdata');
    this.core.background(this.sync.scheduleAll(), 'download scheduling');
  }
}
