import { createServer, connect, type Server, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Block } from '../../chain/block/block.js';
import { BlockHeader } from '../../chain/block/header.js';
import { BufferReader } from '../../chain/encoding/reader.js';
import { getBlockProof } from '../../chain/block/pow.js';
import { DEFAULT_MAX_TIP_AGE } from '../../chain/consensus.js';
import { DecodeError } from '../../chain/encoding/errors.js';
import { fromHexReversed, toHexReversed } from '../../chain/encoding/hex.js';
import { Transaction } from '../../chain/tx/transaction.js';
import type { ChainParams } from '../../chain/params/chain-params.js';
import {
  AddrMessage,
  HeadersMessage,
  InvMessage,
  InvReader,
  LocatorMessage,
  MAX_ADDR_TO_SEND,
  MAX_HEADERS_RESULTS,
  MAX_INV_SZ,
  MIN_PEER_PROTO_VERSION,
  MSG_BLOCK,
  MSG_FILTERED_BLOCK,
  MSG_TX,
  NODE_NETWORK,
  NonceMessage,
  PROTOCOL_VERSION,
  REJECT_DUPLICATE,
  REJECT_MALFORMED,
  REJECT_INVALID,
  REJECT_OBSOLETE,
  RejectMessage,
  TooManyHeaders,
  VersionMessage,
  ipBytes,
  type Frame,
  type InvItem,
  type TimedNetAddress,
} from '../../chain/p2p/messages.js';
import { ValidationError, checkTransaction, contextualCheckTransaction, validationContext } from '../../chain/validation/index.js';
import { Subnet } from '../../rpc/subnet.js';
import { ServiceFailure, type Op } from '../protocol.js';
import type { Asker } from '../ask.js';
import type { Notice, ServiceLogic, WriteOutcome } from '../../machines/service.js';
import { BanList, ipToString, isLocalIp } from './banlist.js';
import { AlreadyAsked, MAPASKFOR_MAX_SZ, SETASKFOR_MAX_SZ } from './askfor.js';
import { Peer, cleanIp, hostPort } from './peer.js';

/** The komodod release acnode answers as (getinfo's version too, misc.ts); the user agent names acnode. */
export const CLIENT_VERSION = 90000;
export const SUBVERSION = '/acnode:0.1.0/';

/** net.h / main.h constants. */
export const PING_INTERVAL_MS = 2 * 60 * 1000;
export const TIMEOUT_INTERVAL_MS = 20 * 60 * 1000;
export const HANDSHAKE_TIMEOUT_MS = 60 * 1000;
export const MAX_BLOCKS_IN_TRANSIT_PER_PEER = 16;
export const BLOCK_DOWNLOAD_WINDOW = 1024;
export const DEFAULT_MAX_ORPHAN_TRANSACTIONS = 100;
/** Relayed transactions of one peer waiting for the mempool's answer at once (a burst's size). */
const MAX_TX_INFLIGHT = 64;
export const DEFAULT_BANSCORE = 101;
export const DEFAULT_MAX_PEER_CONNECTIONS = 384;
export const MAX_OUTBOUND_CONNECTIONS = 8;
/** Orphan blocks held while their parents are fetched. */
export const MAX_ORPHAN_BLOCKS = 64;
export const MAX_ORPHAN_BLOCK_BYTES = 64 * 1024 * 1024;
/** Headers held ahead of their blocks. */
export const MAX_PENDING_HEADERS = 50_000;
/** The relay cache keeps a relayed tx for 15 minutes (net.cpp:1905-1933). */
const RELAY_CACHE_MS = 15 * 60 * 1000;
const MAX_RELAY_CACHE = 20_000;
/** A peer that does not read what we send is dropped beyond this much queued output. */
const MAX_SEND_BUFFER = 32 * 1024 * 1024;
/** SendBufferSize(): -maxsendbuffer's default of 1,000 (kB) (net.cpp:2096). */
const SEND_BUFFER_SIZE = 1000 * 1000;
/** Inventory entries looked up together: one ask of the chain store and the mempool per slice. */
const INV_SLICE = 1000;
/** Transactions per getdata when the ask queue is sent (main.cpp:8620). */
const GETDATA_BATCH = 1000;
/** AskFor: a hash asked of one peer is asked of the next one this much later (µs). */
const ASK_RETRY_US = 2 * 60 * 1_000_000;
/** -addnode entries are retried this often (ThreadOpenAddedConnections sleeps 2 minutes; acnode retries sooner). */
const ADDNODE_RETRY_MS = 15_000;

/** DoS scores of komodod's input-level rejections (CheckTxInputs, AcceptToMemoryPool, main.cpp). */
const INPUT_DOS: ReadonlyMap<string, number> = new Map([
  ['coinbase', 100],
  ['bad-txns-in-belowout', 100],
  ['bad-txns-fee-negative', 100],
  ['bad-txns-fee-outofrange', 100],
  ['bad-txns-inputvalues-outofrange', 100],
  ['bad-txns-premature-spend-of-coinbase', 0],
  ['bad-txns-too-many-sigops', 1],
  ['bad-txns-inputs-spent', 0],
  ['mempool conflict', 0],
]);

interface TipInfo {
  hash: string;
  height: number;
  time: number;
  chainWork: bigint;
}

interface Known {
  height: number;
  chainWork: bigint;
  active: boolean;
  failed: boolean;
}

/** A header whose block the chain store does not have yet. */
interface PendingHeader {
  hash: string;
  prev: string;
  height: number;
  chainWork: bigint;
  time: number;
  failed: boolean;
}

interface OrphanTx {
  tx: Transaction;
  raw: Uint8Array;
  txid: string;
  fromPeer: number;
  prevs: string[];
}

export interface P2POptions {
  params: ChainParams;
  chain: Asker;
  mempool: Asker;
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

const hashKey = (type: number, hash: string) => `${type === MSG_BLOCK || type === MSG_FILTERED_BLOCK ? 'b' : 't'}:${hash}`;

/** Splits "host:port", "[v6]:port" or "host" (the chain's default port). */
export function splitHostPort(text: string, dflt: number): { host: string; port: number } {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (m) return { host: m[1]!, port: m[2] ? Number(m[2]) : dflt };
  const colon = text.lastIndexOf(':');
  if (colon > 0 && text.indexOf(':') === colon && /^\d+$/.test(text.slice(colon + 1))) return { host: text.slice(0, colon), port: Number(text.slice(colon + 1)) };
  return { host: text, port: dflt };
}

/**
 * The p2p service: komodod's wire protocol over TCP (net.cpp + main.cpp ProcessMessage/SendMessages).
 * It listens (loopback unless -bind says otherwise), dials -addnode/-connect, relays transactions and
 * blocks once per peer, syncs headers first and then blocks, scores misbehaviour and bans. Requests
 * (RPC, notices from the mempool and chain store) arrive through the service machine; socket traffic
 * is handled here, one message at a time per peer, asking chainStore and mempool for what it needs.
 */
export class P2PLogic implements ServiceLogic {
  readonly name = 'p2p';
  private server: Server | undefined;
  readonly peers = new Map<number, Peer>();
  private nextId = 0;
  private readonly bans: BanList;
  private readonly whitelist: Subnet[];
  private readonly localNonces = new Set<bigint>();
  private tip: TipInfo = { hash: '', height: 0, time: 0, chainWork: 0n };
  private ibdLatchedFalse = false;
  private readonly pending = new Map<string, PendingHeader>();
  /** Hashes asked of some peer (global in-flight set). */
  private readonly inflight = new Map<string, number>();
  private readonly orphanBlocks = new Map<string, { raw: Uint8Array; prev: string; peer: number }>();
  private readonly orphanTxs = new Map<string, OrphanTx>();
  private readonly recentRejects = new Set<string>();
  /** mapAlreadyAskedFor: when each transaction was last asked of some peer (µs). */
  private readonly alreadyAsked = new AlreadyAsked(MAX_INV_SZ);
  /** AskFor's static nLastTime: request times are never reused, so requests keep their order. */
  private askLastTime = 0;
  private readonly relayCache = new Map<string, { raw: Uint8Array; at: number }>();
  private readonly addedNodes: string[] = [];
  /** Bytes of the peers already gone (CNode's nTotalBytesRecv/Sent count every connection ever made). */
  private readonly closedBytes = { recv: 0, sent: 0 };
  private readonly addrs = new Map<string, TimedNetAddress>();
  private timers: NodeJS.Timeout[] = [];
  private closing = false;
  boundPort = 0;
  readonly boundAddresses: { host: string; port: number }[] = [];

  constructor(private readonly opts: P2POptions) {
    for (const [flag, v] of [['maxconnections', opts.maxConnections], ['banscore', opts.banScore], ['bantime', opts.banTime]] as const) {
      if (!Number.isInteger(v) || v < 0) throw new Error(`Invalid value for -${flag}: expected a whole number`);
    }
    const now = opts.now ?? (() => Math.floor(Date.now() / 1000));
    this.bans = new BanList(now, opts.banTime);
    this.whitelist = opts.whitelist.map((w) => {
      const s = Subnet.parse(w);
      if (!s) throw new Error(`Invalid netmask specified in -whitelist: '${w}'`);
      return s;
    });
  }

  private get magic(): Uint8Array {
    return this.opts.params.messageStart;
  }

  /** -debug=net (or -debug=1): every received message is logged. */
  private get debug(): boolean {
    return this.opts.debug === true;
  }

  private log(msg: string): void {
    this.opts.log(msg);
  }

  /** Work started from a socket or timer callback: a failure is logged, never left to crash the node. */
  private background(p: Promise<unknown>, what: string): void {
    p.catch((e) => this.log(`p2p: ${what} failed: ${e instanceof Error ? e.message : String(e)}`));
  }

  private guard(f: () => void, what: string): void {
    try {
      f();
    } catch (e) {
      this.log(`p2p: ${what} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  // ---- lifecycle ------------------------------------------------------------------------------

  async load(): Promise<void> {
    // The chain store may still be replaying a long chain: wait for it as startNode does.
    await this.refreshTip(10 * 60_000);
    if (this.opts.listen) {
      const binds = this.opts.bind.length ? this.opts.bind.map((b) => splitHostPort(b, this.opts.port)) : [{ host: '127.0.0.1', port: this.opts.port }];
      let port = 0;
      for (const b of binds) {
        const server = createServer((s) => this.accept(s));
        const p = b.port || port;
        await new Promise<void>((resolve, reject) => {
          // komodod's BindListenPort message (net.cpp) when the port is taken.
          server.once('error', (e: NodeJS.ErrnoException) =>
            reject(
              new Error(
                e.code === 'EADDRINUSE'
                  ? `Unable to bind to ${hostPort(b.host, p)} on this computer. Komodo is probably already running.`
                  : `Unable to bind to ${hostPort(b.host, p)} on this computer (bind returned error ${e.message})`,
              ),
            ),
          );
          server.listen(p, b.host, () => {
            server.removeAllListeners('error');
            resolve();
          });
        });
        server.on('error', (e) => this.log(`p2p: listener error ${String(e)}`));
        const a = server.address();
        const bound = typeof a === 'object' && a ? a.port : p;
        if (!port) port = bound;
        this.boundAddresses.push({ host: b.host, port: bound });
        this.server ??= server;
        this.extraServers.push(server);
      }
      this.boundPort = port;
      this.log(`P2P listening on ${this.boundAddresses.map((a) => hostPort(a.host, a.port)).join(', ')} (port=${port})`);
    } else {
      this.log('P2P not listening (-listen=0)');
    }
    // -connect: only those; else -addnode entries, kept and retried.
    const dial = this.opts.connect.length ? this.opts.connect : this.opts.addnode;
    for (const d of dial) this.addedNodes.push(d);
    this.openAddedConnections();
    this.timers.push(setInterval(() => this.guard(() => this.openAddedConnections(), 'added connections'), ADDNODE_RETRY_MS));
    this.timers.push(setInterval(() => this.guard(() => this.housekeeping(), 'housekeeping'), 1000));
    for (const t of this.timers) t.unref();
  }

  private readonly extraServers: Server[] = [];

  async close(): Promise<void> {
    this.closing = true;
    for (const t of this.timers) clearInterval(t);
    for (const p of [...this.peers.values()]) p.close();
    await Promise.all(this.extraServers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  }

  isWrite(body: Op): boolean {
    return !['peerinfo', 'connectioncount', 'networkinfo', 'listbanned', 'addednodes', 'local', 'nettotals'].includes(body.op);
  }

  /**
   * The mempool's accepted transactions, and the wallet's rebroadcast (relayTxs), are announced at
   * once, in the step that brings them (ServiceLogic.writesNow).
   */
  writesNow(body: Op): boolean {
    return body.op === 'txsAccepted' || body.op === 'relayTxs';
  }

  writeNow(body: Op): WriteOutcome {
    const items = body.items as { txid: string; raw: Uint8Array }[];
    if (body.op === 'relayTxs') for (const { txid, raw } of items) this.relayTransaction(txid, raw);
    else for (const { txid, raw } of items) this.onTxAccepted(txid, raw);
    return { result: null };
  }

  read(body: Op): unknown {
    switch (body.op) {
      case 'peerinfo':
        return [...this.peers.values()].filter((p) => !p.disconnected).map((p) => this.peerInfo(p));
      case 'connectioncount':
        return this.connected().length;
      case 'networkinfo':
        return { connections: this.connected().length, localServices: NODE_NETWORK, port: this.boundPort };
      case 'listbanned':
        return this.bans.list();
      case 'addednodes':
        return [...this.addedNodes];
      case 'nettotals': {
        // The gone peers' sum plus the live ones (at most the connection limit).
        const t = { ...this.closedBytes };
        for (const p of this.peers.values()) {
          t.recv += p.bytesrecv;
          t.sent += p.bytessent;
        }
        return t;
      }
      case 'local':
        return { port: this.boundPort, addresses: this.boundAddresses };
      default:
        throw new ServiceFailure(-32601, `p2p has no operation ${body.op}`);
    }
  }

  async write(body: Op): Promise<WriteOutcome> {
    const notices: Notice[] = [];
    switch (body.op) {
      case 'txsAccepted':
      case 'relayTxs':
        return this.writeNow(body);
      case 'tipChanged':
        await this.onTipChanged(body.hash as string | undefined, body.connected === true);
        return { result: null };
      case 'addnode':
        return { result: this.addnode(body.node as string, body.command as string) };
      case 'disconnectnode': {
        const p = this.findPeer(body.node as string);
        if (!p) throw new ServiceFailure(-29, 'Node not found in connected nodes');
        p.close();
        return { result: null };
      }
      case 'ping':
        for (const p of this.peers.values()) p.pingQueued = true;
        this.sendPings();
        return { result: null };
      case 'setban':
        return { result: this.setban(body.subnet as string, body.command as string, (body.bantime as number) ?? 0, body.absolute === true) };
      case 'clearbanned':
        this.bans.clear();
        return { result: null, notices };
      default:
        throw new ServiceFailure(-32601, `p2p has no operation ${body.op}`);
    }
  }

  summary(): Record<string, unknown> {
    let askFor = 0;
    for (const p of this.peers.values()) askFor += p.askFor.size;
    return {
      peers: this.connected().length,
      port: this.boundPort,
      pendingHeaders: this.pending.size,
      inflight: this.inflight.size,
      askFor,
      alreadyAsked: this.alreadyAsked.size,
      orphanTxs: this.orphanTxs.size,
      orphanBlocks: this.orphanBlocks.size,
    };
  }

  private connected(): Peer[] {
    return [...this.peers.values()].filter((p) => !p.disconnected);
  }

  // ---- RPC helpers ----------------------------------------------------------------------------

  private peerInfo(p: Peer) {
    const o: Record<string, unknown> = { id: p.id, addr: p.addrName };
    if (p.addrLocal) o.addrlocal = p.addrLocal;
    o.services = p.services.toString(16).padStart(16, '0');
    o.lastsend = p.lastsend;
    o.lastrecv = p.lastrecv;
    o.bytessent = p.bytessent;
    o.bytesrecv = p.bytesrecv;
    o.conntime = p.conntime;
    o.timeoffset = 0;
    o.pingtime = p.pingTimeMs / 1000;
    if (p.pingNonceSent !== 0n) {
      const wait = (Date.now() - p.pingStartMs) / 1000;
      if (wait > 0) o.pingwait = wait;
    }
    o.version = p.version;
    o.subver = p.subver;
    o.inbound = p.inbound;
    o.startingheight = p.startingHeight;
    o.banscore = p.banscore;
    o.synced_headers = p.bestKnownHeight;
    o.synced_blocks = p.commonHeight;
    o.inflight = [...p.inflight.keys()].map((h) => this.pending.get(h)?.height ?? -1).filter((h) => h >= 0);
    o.addr_processed = p.addrProcessed;
    o.addr_rate_limited = p.addrRateLimited;
    o.whitelisted = p.whitelisted;
    return o;
  }

  /** FindNode(string): by the name it was opened with or its ip:port. */
  private findPeer(node: string): Peer | undefined {
    return this.connected().find((p) => p.addrName === node || p.dest === node);
  }

  private addnode(node: string, command: string): null {
    if (command === 'onetry') {
      this.openConnection(node, true);
      return null;
    }
    const i = this.addedNodes.indexOf(node);
    if (command === 'add') {
      if (i >= 0) throw new ServiceFailure(-23, 'Error: Node already added');
      this.addedNodes.push(node);
      this.openAddedConnections();
    } else if (command === 'remove') {
      if (i < 0) throw new ServiceFailure(-24, 'Error: Node has not been added.');
      this.addedNodes.splice(i, 1);
    }
    return null;
  }

  private setban(text: string, command: string, bantime: number, absolute: boolean): null {
    const subnet = BanList.parse(text);
    // komodod answers an invalid address with RPC_CLIENT_NODE_ALREADY_ADDED (-23).
    if (!subnet) throw new ServiceFailure(-23, 'Error: Invalid IP/Subnet');
    if (command === 'add') {
      if (this.bans.isSubnetBanned(subnet)) throw new ServiceFailure(-23, 'Error: IP/Subnet already banned');
      this.bans.ban(subnet, bantime, absolute);
      for (const p of this.connected()) if (subnet.match(p.ip)) p.close();
    } else if (command === 'remove') {
      if (!this.bans.unban(subnet)) throw new ServiceFailure(-1, 'Error: Unban failed');
    }
    return null;
  }

  // ---- connections ----------------------------------------------------------------------------

  private isWhitelisted(ip: Uint8Array): boolean {
    return this.whitelist.some((s) => s.match(ip));
  }

  private accept(socket: Socket): void {
    const ip = ipBytes(cleanIp(socket.remoteAddress));
    const whitelisted = this.isWhitelisted(ip);
    if (this.closing) return void socket.destroy();
    if (this.bans.isBanned(ip) && !whitelisted) {
      this.log(`connection from ${cleanIp(socket.remoteAddress)} dropped (banned)`);
      return void socket.destroy();
    }
    const maxInbound = Math.max(0, this.opts.maxConnections - MAX_OUTBOUND_CONNECTIONS);
    if (this.connected().filter((p) => p.inbound).length >= maxInbound) {
      this.log('connection dropped: inbound slots full');
      return void socket.destroy();
    }
    this.addPeer(socket, true, whitelisted, false, undefined);
  }

  private addPeer(socket: Socket, inbound: boolean, whitelisted: boolean, oneshot: boolean, dest: string | undefined): Peer {
    const p = new Peer(this.nextId++, socket, inbound, this.magic, whitelisted, oneshot, dest, (peer, f) => this.onFrame(peer, f), (peer) => this.onPeerClosed(peer));
    this.peers.set(p.id, p);
    return p;
  }

  private openAddedConnections(): void {
    if (this.closing) return;
    for (const node of this.addedNodes) {
      if (this.connected().some((p) => p.dest === node) || this.dialing.has(node)) continue;
      this.openConnection(node, false);
    }
  }

  private readonly dialing = new Set<string>();

  private openConnection(node: string, oneshot: boolean): void {
    if (this.closing) return;
    const { host, port } = splitHostPort(node, this.opts.params.p2pPort);
    if (!(port > 0 && port < 65536)) {
      this.log(`p2p: cannot connect to ${node}: invalid port`);
      return;
    }
    this.dialing.add(node);
    let socket: Socket;
    try {
      socket = connect({ host, port });
    } catch (e) {
      this.dialing.delete(node);
      this.log(`p2p: cannot connect to ${node}: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    const fail = () => {
      this.dialing.delete(node);
      socket.destroy();
    };
    socket.once('error', fail);
    socket.setTimeout(5000, fail);
    socket.once('connect', () => {
      socket.off('error', fail);
      socket.setTimeout(0);
      this.dialing.delete(node);
      if (this.closing) return void socket.destroy();
      const ip = ipBytes(cleanIp(socket.remoteAddress));
      const p = this.addPeer(socket, false, this.isWhitelisted(ip), oneshot, node);
      this.pushVersion(p);
    });
  }

  private onPeerClosed(p: Peer): void {
    if (this.peers.delete(p.id)) {
      this.closedBytes.recv += p.bytesrecv;
      this.closedBytes.sent += p.bytessent;
    }
    this.bestKnownWork.delete(p.id);
    for (const h of p.inflight.keys()) this.inflight.delete(h);
    if (p.version) this.log(`p2p: peer=${p.id} ${p.addrName} disconnected`);
    if (!this.closing) this.background(this.scheduleAll(), 'download scheduling');
  }

  private pushVersion(p: Peer): void {
    const nonce = randomBytes(8).readBigUInt64LE() | 2n;
    this.localNonces.add(nonce);
    if (this.localNonces.size > 64) this.localNonces.delete(this.localNonces.values().next().value as bigint);
    const remotePort = p.socket.remotePort ?? 0;
    const v = new VersionMessage(
      PROTOCOL_VERSION,
      NODE_NETWORK,
      BigInt(Math.floor(Date.now() / 1000)),
      { services: 0n, ip: p.ip, port: remotePort },
      { services: NODE_NETWORK, ip: ipBytes(cleanIp(p.socket.localAddress)), port: this.boundPort },
      nonce,
      SUBVERSION,
      this.tip.height,
      true,
    );
    p.send('version', v.toRaw());
  }

  // ---- misbehaviour ---------------------------------------------------------------------------

  /** Misbehaving (main.cpp:2597) and SendMessages' fShouldBan handling (main.cpp:8446-8460). */
  misbehaving(p: Peer, howmuch: number, why: string): void {
    if (howmuch <= 0) return;
    const before = p.banscore;
    p.banscore += howmuch;
    if (p.banscore >= this.opts.banScore && before < this.opts.banScore) {
      this.log(`Misbehaving: ${p.addrName} (${before} -> ${p.banscore}) BAN THRESHOLD EXCEEDED (${why})`);
      if (p.whitelisted) {
        this.log(`Warning: not punishing whitelisted peer ${p.addrName}!`);
        return;
      }
      if (isLocalIp(p.ip)) this.log(`Warning: not banning local peer ${p.addrName}!`);
      else this.bans.ban(Subnet.parse(ipToString(p.ip))!);
      p.close();
    } else {
      this.log(`Misbehaving: ${p.addrName} (${before} -> ${p.banscore}) (${why})`);
    }
  }

  private reject(p: Peer, message: string, code: number, reason: string, hash?: Uint8Array): void {
    p.send('reject', new RejectMessage(message, code, reason, hash).toRaw());
  }

  // ---- housekeeping ---------------------------------------------------------------------------

  private housekeeping(): void {
    const now = Date.now();
    const nowS = Math.floor(now / 1000);
    for (const p of this.connected()) {
      const age = now - p.conntime * 1000;
      // No version within the first minute, or silence both ways: disconnect (net.cpp:1251-1270).
      if (age > HANDSHAKE_TIMEOUT_MS && (p.lastsend === 0 || p.lastrecv === 0 || p.version === 0)) {
        this.log(`socket no message in first 60 seconds, peer=${p.id}`);
        p.close();
        continue;
      }
      if (p.lastsend && nowS - p.lastsend > TIMEOUT_INTERVAL_MS / 1000) {
        this.log(`socket sending timeout: ${nowS - p.lastsend}s peer=${p.id}`);
        p.close();
        continue;
      }
      if (p.lastrecv && nowS - p.lastrecv > TIMEOUT_INTERVAL_MS / 1000) {
        this.log(`socket receive timeout: ${nowS - p.lastrecv}s peer=${p.id}`);
        p.close();
        continue;
      }
      if (p.pingNonceSent !== 0n && now - p.pingStartMs > TIMEOUT_INTERVAL_MS) {
        this.log(`ping timeout: ${(now - p.pingStartMs) / 1000}s peer=${p.id}`);
        p.close();
        continue;
      }
      if (p.socket.writableLength > MAX_SEND_BUFFER) {
        this.log(`send buffer full, peer=${p.id}`);
        p.close();
        continue;
      }
      // Block download timeout: 0.5 × spacing × (4 + queued) per request (main.cpp:381-384, 8562-8570):
      // komodod disconnects the peer; its blocks are then asked of the others.
      const spacingMs = this.opts.params.powTargetSpacing * 1000;
      const late = [...p.inflight].find(([, at]) => now - at > spacingMs * 0.5 * (4 + p.inflight.size));
      if (late) {
        this.log(`Timeout downloading block ${late[0]} from peer=${p.id}, disconnecting`);
        p.close();
        continue;
      }
    }
    this.sendPings();
    // Requests delayed because another peer was asked first (AskFor's two minutes) go out when due.
    const nowUs = now * 1000;
    for (const p of this.connected()) if (!p.askSending && p.askQueue.nextTime <= nowUs) this.background(this.sendAskedFor(p), 'getdata');
    // Oldest first (onTxAccepted keeps the map in time order): stop at the first one still fresh, so
    // the sweep costs what expired, not the 20,000 the cache may hold.
    for (const [k, v] of this.relayCache) {
      if (now - v.at <= RELAY_CACHE_MS) break;
      this.relayCache.delete(k);
    }
    this.background(this.scheduleAll(), 'download scheduling');
  }

  private sendPings(): void {
    const now = Date.now();
    for (const p of this.connected()) {
      if (!p.version) continue;
      if (p.pingQueued || (p.pingNonceSent === 0n && p.pingStartMs + PING_INTERVAL_MS < now)) {
        let nonce = 0n;
        while (nonce === 0n) nonce = randomBytes(8).readBigUInt64LE();
        p.pingQueued = false;
        p.pingStartMs = now;
        p.pingNonceSent = nonce;
        p.send('ping', new NonceMessage(nonce).toRaw());
      }
    }
  }

  // ---- chain state ----------------------------------------------------------------------------

  private async refreshTip(timeoutMs?: number): Promise<void> {
    const t = await this.opts.chain.ask<TipInfo>({ op: 'tip' }, timeoutMs);
    this.tip = { hash: t.hash, height: t.height, time: t.time, chainWork: t.chainWork };
  }

  /** IsInitialBlockDownload for an asset chain: tip older than 24 h; latches to false once left. */
  isInitialBlockDownload(): boolean {
    if (this.ibdLatchedFalse) return false;
    const ibd = this.tip.time < Math.floor(Date.now() / 1000) - DEFAULT_MAX_TIP_AGE;
    if (!ibd) this.ibdLatchedFalse = true;
    return ibd;
  }

  private async onTipChanged(hash: string | undefined, connected: boolean): Promise<void> {
    const before = this.tip.hash;
    await this.refreshTip();
    if (hash) this.pending.delete(hash);
    // A new tip is announced to every peer that does not have it, unless in initial download.
    if (connected && this.tip.hash !== before && !this.isInitialBlockDownload()) {
      const inv = { type: MSG_BLOCK, hash: fromHexReversed(this.tip.hash) };
      for (const p of this.connected()) {
        if (!p.successfullyConnected) continue;
        // Only to peers not far ahead of us (main.cpp:4556-4558).
        if (!(this.tip.height > (p.startingHeight !== -1 ? p.startingHeight - 2000 : 0))) continue;
        const k = hashKey(MSG_BLOCK, this.tip.hash);
        if (p.known.has(k)) continue;
        p.known.add(k);
        p.send('inv', new InvMessage([inv]).toRaw());
      }
    }
  }

  private onTxAccepted(txid: string, raw: Uint8Array): void {
    this.relayTransaction(txid, raw);
    // Called for every accepted transaction: no promise when there is no orphan to look at.
    if (this.orphanTxs.size > 0) this.background(this.resolveOrphanTxs(txid), 'orphan transactions');
  }

  /**
   * RelayTransaction (net.cpp): the transaction is kept for getdata (mapRelay) and announced by inv to
   * every peer not known to have it. The wallet's rebroadcast comes this way too (RelayWalletTransaction).
   */
  private relayTransaction(txid: string, raw: Uint8Array): void {
    // Re-set at the end, so the map stays in time order for housekeeping's sweep.
    this.relayCache.delete(txid);
    this.relayCache.set(txid, { raw, at: Date.now() });
    if (this.relayCache.size > MAX_RELAY_CACHE) this.relayCache.delete(this.relayCache.keys().next().value as string);
    this.recentRejects.delete(txid);
    const k = hashKey(MSG_TX, txid);
    for (const p of this.peers.values()) {
      if (p.disconnected || !p.successfullyConnected || !p.relayTxes || p.known.has(k)) continue;
      p.known.add(k);
      // Trickled: the invs of one turn of the event loop go out together (komodod batches tx invs too).
      p.pendingTxInv.push({ type: MSG_TX, hash: fromHexReversed(txid) });
      if (p.pendingTxInv.length === 1) setImmediate(() => this.flushTxInv(p));
    }
  }

  private flushTxInv(p: Peer): void {
    const items = p.pendingTxInv.splice(0);
    for (let i = 0; i < items.length; i += MAX_INV_SZ) p.send('inv', new InvMessage(items.slice(i, i + MAX_INV_SZ)).toRaw());
  }

  // ---- message dispatch -----------------------------------------------------------------------

  private async onFrame(p: Peer, f: Frame): Promise<void> {
    if (p.disconnected) return;
    switch (f.kind) {
      case 'fatal':
        this.log(`PROCESSMESSAGE: ${f.reason} peer=${p.id}; disconnecting`);
        p.close();
        return;
      case 'badHeader':
        this.log(`PROCESSMESSAGE: ERRORS IN HEADER ${JSON.stringify(f.command)} peer=${p.id}`);
        return;
      case 'badChecksum':
        this.log(`ProcessMessages(${JSON.stringify(f.command)}, ${f.length} bytes): CHECKSUM ERROR peer=${p.id}`);
        return;
      case 'message':
        try {
          await this.processMessage(p, f.command, f.payload);
        } catch (e) {
          if (e instanceof DecodeError) {
            // A deserialisation failure: reject MALFORMED, no score (main.cpp:8320-8322).
            this.reject(p, f.command, REJECT_MALFORMED, 'error parsing message');
            this.log(`ProcessMessages(${f.command}, ${f.payload.length} bytes): Exception '${e.message}' caught peer=${p.id}`);
          } else {
            this.log(`ProcessMessages(${f.command}) peer=${p.id}: ${e instanceof Error ? e.message : String(e)}`);
          }
        }
    }
  }

  private async processMessage(p: Peer, command: string, payload: Uint8Array): Promise<void> {
    if (this.debug) this.log(`p2p: received ${command} (${payload.length} bytes) peer=${p.id}`);
    if (command !== 'tx' && p.txInflight.size > 0) await Promise.all(p.txInflight);
    if (command === 'version') return this.onVersion(p, payload);
    if (p.version === 0) {
      // Must have a version message before anything else.
      this.misbehaving(p, 1, `${command} before version`);
      return;
    }
    switch (command) {
      case 'verack':
        p.gotVerack = true;
        return;
      case 'ping': {
        const m = NonceMessage.fromRaw(payload);
        p.send('pong', new NonceMessage(m.nonce).toRaw());
        return;
      }
      case 'pong': {
        if (payload.length < 8) return;
        const m = NonceMessage.fromRaw(payload.subarray(0, 8));
        if (p.pingNonceSent !== 0n && m.nonce === p.pingNonceSent) {
          p.pingTimeMs = Date.now() - p.pingStartMs;
          p.pingNonceSent = 0n;
        } else if (m.nonce === 0n) {
          p.pingNonceSent = 0n;
        }
        return;
      }
      case 'inv':
        return this.onInv(p, payload);
      case 'getdata':
        return this.onGetData(p, payload);
      case 'notfound':
        return;
      case 'getheaders':
        return this.onGetHeaders(p, payload);
      case 'getblocks':
        return this.onGetBlocks(p, payload);
      case 'headers':
        return this.onHeaders(p, payload);
      case 'block':
        return this.onBlock(p, payload);
      case 'tx':
        return this.onTx(p, payload);
      case 'mempool':
        return this.onMempool(p);
      case 'getaddr':
        return this.onGetAddr(p);
      case 'addr':
        return this.onAddr(p, payload);
      case 'reject': {
        const r = RejectMessage.fromRaw(payload);
        this.log(`Reject ${r.message} code ${r.code}: ${r.reason}${r.hash ? `: hash ${toHexReversed(r.hash)}` : ''} peer=${p.id}`);
        return;
      }
      default:
        // Unknown commands (sendheaders, feefilter, filter*, alert...) are ignored, as komodod does.
        return;
    }
  }

  private onVersion(p: Peer, payload: Uint8Array): void {
    if (p.version !== 0) {
      this.reject(p, 'version', REJECT_DUPLICATE, 'Duplicate version message');
      this.misbehaving(p, 1, 'duplicate version');
      return;
    }
    const v = VersionMessage.fromRaw(payload);
    const version = v.version === 10300 ? 300 : v.version;
    if (version < MIN_PEER_PROTO_VERSION) {
      this.log(`peer=${p.id} using obsolete version ${version}; disconnecting`);
      this.reject(p, 'version', REJECT_OBSOLETE, `Version must be ${MIN_PEER_PROTO_VERSION} or greater`);
      p.close();
      return;
    }
    if (v.nonce > 1n && this.localNonces.has(v.nonce)) {
      this.log(`connected to self at ${p.addrName}, disconnecting`);
      p.close();
      return;
    }
    p.version = version;
    p.services = v.services;
    p.subver = v.userAgent.replace(/[^ -~]/g, '');
    p.startingHeight = v.startHeight;
    p.relayTxes = v.relay;
    const local = ipToString(v.addrRecv.ip);
    if (local && !/^0\.0\.0\.0$|^::$/.test(local)) p.addrLocal = hostPort(local, v.addrRecv.port);
    if (p.inbound) this.pushVersion(p);
    p.send('verack');
    if (!p.inbound) p.send('getaddr');
    p.successfullyConnected = true;
    this.log(`receive version message: ${p.subver}: version ${version}, blocks=${v.startHeight}, peer=${p.id}${p.inbound ? ' (inbound)' : ''}`);
    // SendMessages: first ping right away, then start headers sync with a full-node peer.
    this.sendPings();
    if (p.services & NODE_NETWORK) {
      p.syncStarted = true;
      this.background(this.sendGetHeaders(p, this.tip.hash, new Uint8Array(32), true), 'initial getheaders');
    }
  }

  // ---- inventory ------------------------------------------------------------------------------

  /**
   * AlreadyHave for MSG_TX entries (main.cpp:7038-7066): recently rejected, an orphan, just relayed,
   * or in the mempool (one ask for all of them).
   */
  private async haveTxs(hexes: readonly string[]): Promise<boolean[]> {
    const out = hexes.map((h) => this.recentRejects.has(h) || this.orphanTxs.has(h) || this.relayCache.has(h));
    const ask = hexes.filter((_, i) => !out[i]);
    if (ask.length) {
      const inPool = await this.opts.mempool.ask<boolean[]>({ op: 'hasMany', txids: ask });
      let k = 0;
      for (let i = 0; i < out.length; i++) if (!out[i]) out[i] = inPool[k++] === true;
    }
    return out;
  }

  /**
   * AlreadyHave for a slice of an inv, with what the chain store knows of its blocks (for
   * UpdateBlockAvailability). An entry of another type counts as had ("Don't know what it is").
   */
  private async alreadyHave(types: readonly number[], hexes: readonly string[]): Promise<{ have: boolean[]; blocks: Map<string, Known | null> }> {
    const blockHashes = hexes.filter((_, i) => types[i] === MSG_BLOCK);
    const known = blockHashes.length ? await this.opts.chain.ask<(Known | null)[]>({ op: 'known', hashes: blockHashes }) : [];
    const blocks = new Map(blockHashes.map((h, i) => [h, known[i] ?? null]));
    const txHexes = hexes.filter((_, i) => types[i] === MSG_TX);
    const txHave = txHexes.length ? await this.haveTxs(txHexes) : [];
    let t = 0;
    const have = types.map((type, i) => {
      if (type === MSG_TX) return txHave[t++]!;
      if (type === MSG_BLOCK) return blocks.get(hexes[i]!) !== null || this.orphanBlocks.has(hexes[i]!);
      return true;
    });
    return { have, blocks };
  }

  /**
   * ProcessMessage "inv" (main.cpp:7650-7707). The entries are read in place and looked up a slice at
   * a time; what the node keeps of them is komodod's: the peer's recent inventory (setInventoryKnown,
   * 1,000), the transactions it will ask for (AskFor's bounded sets), the blocks it fetches.
   */
  private async onInv(p: Peer, payload: Uint8Array): Promise<void> {
    const inv = InvReader.fromRaw(payload);
    if (inv.count > MAX_INV_SZ) {
      this.misbehaving(p, 20, `message inv size() = ${inv.count}`);
      return;
    }
    const fetch: InvItem[] = [];
    const ibd = this.isInitialBlockDownload();
    let locator: Uint8Array[] | undefined;
    for (let start = 0; start < inv.count; start += INV_SLICE) {
      const end = Math.min(inv.count, start + INV_SLICE);
      const types: number[] = [];
      const hexes: string[] = [];
      for (let i = start; i < end; i++) {
        types.push(inv.type(i));
        hexes.push(toHexReversed(inv.hash(i)));
      }
      const { have, blocks } = await this.alreadyHave(types, hexes);
      if (p.disconnected) return;
      const nowUs = Date.now() * 1000;
      for (let j = 0; j < types.length; j++) {
        const type = types[j]!;
        const h = hexes[j]!;
        p.known.add(hashKey(type, h));
        // Relayed transactions are ignored in initial download; asking for them would be wasted.
        if (!have[j] && type === MSG_TX && !ibd) this.askFor(p, inv.hash(start + j), nowUs);
        if (type === MSG_BLOCK) {
          // UpdateBlockAvailability: an announced block we hold is the peer's best known block if it has more work.
          const k = blocks.get(h);
          if (k) {
            this.updateBestKnown(p, h, k.height, k.chainWork);
            if (k.active) p.commonHeight = Math.max(p.commonHeight, k.height);
          }
          if (!have[j] && !this.inflight.has(h)) {
            // The headers leading to it first; the block itself too when the tip is recent.
            locator ??= await this.locatorFrom(this.bestHeaderHash());
            p.send('getheaders', new LocatorMessage(locator, inv.hash(start + j)).toRaw());
            const spacing = this.opts.params.powTargetSpacing;
            if (this.tip.time > Math.floor(Date.now() / 1000) - spacing * 20 && p.inflight.size < MAX_BLOCKS_IN_TRANSIT_PER_PEER) {
              fetch.push({ type: MSG_BLOCK, hash: inv.hash(start + j).slice() });
              this.markInflight(p, h);
            }
          }
        }
        // A peer whose announcements make us queue more than twice the send buffer is scored and dropped from here.
        if (p.socket.writableLength > 2 * SEND_BUFFER_SIZE) {
          this.misbehaving(p, 50, `send buffer size() = ${p.socket.writableLength}`);
          return;
        }
      }
    }
    if (fetch.length) p.send('getdata', new InvMessage(fetch).toRaw());
    // SendMessages follows the message: the transactions just queued are asked for.
    await this.sendAskedFor(p);
  }

  /**
   * CNode::AskFor (net.cpp:2165-2197): queues a request for a transaction unless the peer's queues
   * are full (then the announcement is dropped) or it was asked of this peer already. A transaction
   * asked of another peer in the last two minutes is asked of this one when those two minutes end.
   */
  private askFor(p: Peer, hash: Uint8Array, nowUs: number): void {
    // komodod's checks are `size() > max`: each set takes one entry past its limit.
    if (p.askQueue.size > MAPASKFOR_MAX_SZ || p.askFor.size > SETASKFOR_MAX_SZ) return;
    if (!p.askFor.add(hash)) return;
    const last = this.alreadyAsked.get(hash) ?? 0;
    // Request times are never reused: at least one µs after the previous one, and at most a second ago.
    const now = Math.max(nowUs - 1_000_000, this.askLastTime + 1);
    this.askLastTime = now;
    const at = Math.max(last + ASK_RETRY_US, now);
    this.alreadyAsked.set(hash, at);
    p.askQueue.push(at, hash);
  }

  /**
   * SendMessages' getdata for transactions (main.cpp:8613-8634): every queued request whose time has
   * come goes out, in getdata messages of 1,000, unless the transaction arrived meanwhile (then the
   * peer is no longer expected to send it). One pass at a time per peer.
   */
  private async sendAskedFor(p: Peer): Promise<void> {
    while (p.askSending) await p.askSending;
    const pass = this.sendDueAsks(p);
    p.askSending = pass;
    try {
      await pass;
    } finally {
      p.askSending = undefined;
    }
  }

  private async sendDueAsks(p: Peer): Promise<void> {
    let batch: InvItem[] = [];
    while (!p.disconnected && p.askQueue.nextTime <= Date.now() * 1000) {
      const nowUs = Date.now() * 1000;
      const hashes = new Uint8Array(INV_SLICE * 32);
      let n = 0;
      while (n < INV_SLICE && p.askQueue.nextTime <= nowUs) p.askQueue.pop(hashes, 32 * n++);
      const slice = Array.from({ length: n }, (_, i) => hashes.subarray(i * 32, i * 32 + 32));
      const have = await this.haveTxs(slice.map((h) => toHexReversed(h)));
      if (p.disconnected) return;
      for (let i = 0; i < n; i++) {
        if (have[i]) {
          p.askFor.delete(slice[i]!);
          continue;
        }
        batch.push({ type: MSG_TX, hash: slice[i]! });
        if (batch.length >= GETDATA_BATCH) {
          p.send('getdata', new InvMessage(batch).toRaw());
          batch = [];
        }
      }
    }
    if (batch.length) p.send('getdata', new InvMessage(batch).toRaw());
  }

  private markInflight(p: Peer, h: string): void {
    const now = Date.now();
    p.inflight.set(h, now);
    this.inflight.set(h, p.id);
  }

  /**
   * ProcessGetData (main.cpp:7068-7180): each entry answered in order, the misses in one notfound.
   * The entries are read in place, and like komodod it pauses while a send buffer's worth of answers
   * waits for the peer to read them, so a getdata cannot make the node queue more than that.
   */
  private async onGetData(p: Peer, payload: Uint8Array): Promise<void> {
    const inv = InvReader.fromRaw(payload);
    if (inv.count > MAX_INV_SZ) {
      this.misbehaving(p, 20, `message getdata size() = ${inv.count}`);
      return;
    }
    const notFound: number[] = [];
    for (let i = 0; i < inv.count; i++) {
      await p.drained(SEND_BUFFER_SIZE);
      if (p.disconnected) return;
      const type = inv.type(i);
      const h = toHexReversed(inv.hash(i));
      if (type === MSG_BLOCK || type === MSG_FILTERED_BLOCK) {
        const b = await this.opts.chain.ask<{ raw: Uint8Array; active: boolean } | null>({ op: 'rawBlock', hash: h });
        // komodod serves main-chain blocks (and recent valid side blocks); filtered blocks are not offered.
        if (b && type === MSG_BLOCK) {
          p.send('block', b.raw);
          p.known.add(hashKey(MSG_BLOCK, h));
        }
      } else if (type === MSG_TX) {
        const cached = this.relayCache.get(h);
        let raw = cached?.raw;
        if (!raw) {
          const e = await this.opts.mempool.ask<{ raw: Uint8Array } | null>({ op: 'get', txid: h });
          raw = e?.raw;
        }
        if (raw) {
          p.send('tx', raw);
          p.known.add(hashKey(MSG_TX, h));
        } else notFound.push(i);
      } else notFound.push(i);
    }
    if (notFound.length) p.send('notfound', new InvMessage(notFound.map((i) => ({ type: inv.type(i), hash: inv.hash(i) }))).toRaw());
  }

  private async onMempool(p: Peer): Promise<void> {
    const txids = await this.opts.mempool.ask<string[]>({ op: 'txids' });
    for (let i = 0; i < txids.length; i += MAX_INV_SZ) {
      const chunk = txids.slice(i, i + MAX_INV_SZ).map((t) => ({ type: MSG_TX, hash: fromHexReversed(t) }));
      p.send('inv', new InvMessage(chunk).toRaw());
    }
  }

  private onGetAddr(p: Peer): void {
    // Answered only on inbound connections, once per connection (main.cpp:7618-7632).
    if (!p.inbound || p.gotGetaddr) return;
    p.gotGetaddr = true;
    const list = [...this.addrs.values()].slice(0, MAX_ADDR_TO_SEND);
    if (list.length) p.send('addr', new AddrMessage(list).toRaw());
  }

  private onAddr(p: Peer, payload: Uint8Array): void {
    const m = AddrMessage.fromRaw(payload);
    if (m.addrs.length > MAX_ADDR_TO_SEND) {
      this.misbehaving(p, 20, `message addr size() = ${m.addrs.length}`);
      return;
    }
    // Kept minimal: remembered (bounded) and served to getaddr; acnode never dials them on its own.
    for (const a of m.addrs) {
      p.addrProcessed++;
      const key = hostPort(ipToString(a.ip), a.port);
      if (this.addrs.size < MAX_ADDR_TO_SEND || this.addrs.has(key)) this.addrs.set(key, a);
    }
  }

  // ---- headers and blocks ---------------------------------------------------------------------

  /** The best header known: the best pending header with more work than the tip, else the tip. */
  private bestHeaderHash(): string {
    let best: PendingHeader | undefined;
    for (const h of this.pending.values()) if (!h.failed && (!best || h.chainWork > best.chainWork)) best = h;
    return best && best.chainWork > this.tip.chainWork ? best.hash : this.tip.hash;
  }

  /** A locator from a header: pending ancestors first, then the chain store's locator. */
  private async locatorFrom(hash: string): Promise<Uint8Array[]> {
    const out: string[] = [];
    let h: PendingHeader | undefined = this.pending.get(hash);
    let step = 0;
    while (h) {
      if (step++ < 10) out.push(h.hash);
      const prev: PendingHeader | undefined = this.pending.get(h.prev);
      if (!prev) {
        const rest = await this.opts.chain.ask<string[]>({ op: 'locator', from: h.prev });
        out.push(...rest);
        return out.map((x) => fromHexReversed(x));
      }
      h = prev;
    }
    const rest = await this.opts.chain.ask<string[]>({ op: 'locator', from: hash });
    return [...out, ...rest].map((x) => fromHexReversed(x));
  }

  private async sendGetHeaders(p: Peer, from: string, hashStop: Uint8Array, fromParent: boolean): Promise<void> {
    let start = from;
    if (fromParent) {
      // komodod starts the initial sync from pindexBestHeader->pprev.
      const k = await this.opts.chain.ask<{ prev: string | null } | null>({ op: 'entry', hash: from });
      if (k?.prev) start = k.prev;
    }
    const locator = await this.locatorFrom(start);
    p.send('getheaders', new LocatorMessage(locator, hashStop).toRaw());
  }

  private async onGetHeaders(p: Peer, payload: Uint8Array): Promise<void> {
    const m = LocatorMessage.fromRaw(payload);
    const r = await this.opts.chain.ask<{ headers: BlockHeader[] }>({
      op: 'headersAfter',
      locator: m.locator.map((h) => toHexReversed(h)),
      stop: toHexReversed(m.hashStop),
      max: MAX_HEADERS_RESULTS,
    });
    p.send('headers', new HeadersMessage(r.headers).toRaw());
  }

  private async onGetBlocks(p: Peer, payload: Uint8Array): Promise<void> {
    const m = LocatorMessage.fromRaw(payload);
    const stop = toHexReversed(m.hashStop);
    // An empty locator finds no fork: FindForkInGlobalIndex answers the genesis block.
    const locator = m.locator.length ? m.locator.map((h) => toHexReversed(h)) : [await this.opts.chain.ask<string>({ op: 'blockHash', height: 0 })];
    const r = await this.opts.chain.ask<{ hashes: string[] }>({ op: 'headersAfter', locator, stop, max: 500 });
    // getblocks stops *before* hashStop (it is not sent), unlike getheaders.
    const items: InvItem[] = [];
    for (const h of r.hashes) {
      if (h === stop) break;
      const k = hashKey(MSG_BLOCK, h);
      if (p.known.has(k)) continue;
      items.push({ type: MSG_BLOCK, hash: fromHexReversed(h) });
    }
    if (items.length) p.send('inv', new InvMessage(items).toRaw());
  }

  private async onHeaders(p: Peer, payload: Uint8Array): Promise<void> {
    let m: HeadersMessage;
    try {
      m = HeadersMessage.fromRaw(payload);
    } catch (e) {
      if (e instanceof TooManyHeaders) {
        this.misbehaving(p, 20, e.message);
        return;
      }
      throw e;
    }
    if (m.headers.length === 0) return;
    const hashes = m.headers.map((h) => h.hashHex());
    const prevs = m.headers.map((h) => toHexReversed(h.prevHash));
    for (let i = 1; i < m.headers.length; i++) {
      if (prevs[i] !== hashes[i - 1]) {
        this.misbehaving(p, 20, 'non-continuous headers sequence');
        return;
      }
    }
    const known = await this.opts.chain.ask<(Known | null)[]>({ op: 'known', hashes: [prevs[0]!, ...hashes] });
    const prevKnown = known[0];
    const prevPending = this.pending.get(prevs[0]!);
    if (!prevKnown && !prevPending) {
      // AcceptBlockHeader: prev block not found → Misbehaving(nDoS/nDoS) = 1.
      this.misbehaving(p, 1, 'invalid header received (prev block not found)');
      return;
    }
    let parentWork = prevKnown ? prevKnown.chainWork : prevPending!.chainWork;
    let parentHeight = prevKnown ? prevKnown.height : prevPending!.height;
    let parentFailed = prevKnown ? prevKnown.failed : prevPending!.failed;
    let last: { hash: string; height: number; chainWork: bigint } | undefined;
    for (let i = 0; i < m.headers.length; i++) {
      const h = m.headers[i]!;
      const hash = hashes[i]!;
      const k = known[i + 1];
      const work = parentWork + getBlockProof(h.bits);
      const height = parentHeight + 1;
      if (k) {
        parentWork = k.chainWork;
        parentHeight = k.height;
        parentFailed = k.failed;
      } else {
        let e = this.pending.get(hash);
        if (!e) {
          if (this.pending.size >= MAX_PENDING_HEADERS) break;
          e = { hash, prev: prevs[i]!, height, chainWork: work, time: h.time, failed: parentFailed };
          this.pending.set(hash, e);
        }
        parentWork = e.chainWork;
        parentHeight = e.height;
        parentFailed = e.failed;
      }
      last = { hash, height: parentHeight, chainWork: parentWork };
    }
    if (last) this.updateBestKnown(p, last.hash, last.height, last.chainWork);
    if (m.headers.length === MAX_HEADERS_RESULTS && last) {
      // The peer may have more: ask from the last one.
      await this.sendGetHeaders(p, last.hash, new Uint8Array(32), false);
    }
    await this.scheduleDownloads(p);
  }

  private bestKnownWork = new Map<number, bigint>();

  private updateBestKnown(p: Peer, hash: string, height: number, work: bigint): void {
    const cur = this.bestKnownWork.get(p.id);
    if (cur !== undefined && cur >= work) return;
    this.bestKnownWork.set(p.id, work);
    p.bestKnown = hash;
    p.bestKnownHeight = height;
  }

  private async scheduleAll(): Promise<void> {
    for (const p of this.connected()) await this.scheduleDownloads(p);
  }

  /** FindNextBlocksToDownload, reduced: the blocks of the peer's best chain we lack, oldest first. */
  private async scheduleDownloads(p: Peer): Promise<void> {
    if (!p.successfullyConnected || p.disconnected || !p.bestKnown) return;
    const work = this.bestKnownWork.get(p.id) ?? 0n;
    // The peer's chain is behind or level with ours: its blocks are not needed.
    let best = this.pending.get(p.bestKnown);
    if (!best) {
      p.commonHeight = p.bestKnownHeight;
      return;
    }
    if (work <= this.tip.chainWork) return;
    const path: PendingHeader[] = [];
    while (best) {
      if (best.failed) return;
      path.push(best);
      best = this.pending.get(best.prev);
    }
    path.reverse();
    p.commonHeight = Math.max(-1, (path[0]?.height ?? 0) - 1);
    const want: InvItem[] = [];
    for (const h of path.slice(0, BLOCK_DOWNLOAD_WINDOW)) {
      if (p.inflight.size >= MAX_BLOCKS_IN_TRANSIT_PER_PEER) break;
      if (this.inflight.has(h.hash) || this.orphanBlocks.has(h.hash)) continue;
      this.markInflight(p, h.hash);
      want.push({ type: MSG_BLOCK, hash: fromHexReversed(h.hash) });
    }
    if (want.length) p.send('getdata', new InvMessage(want).toRaw());
  }

  private async onBlock(p: Peer, payload: Uint8Array): Promise<void> {
    // komodod decodes the whole block first (a malformed one is answered "error parsing message");
    // only its header is kept here: the chain store parses what it will check.
    const header = Block.headerOf(payload);
    const hash = header.hashHex();
    const prev = toHexReversed(header.prevHash);
    p.known.add(hashKey(MSG_BLOCK, hash));
    const requested = p.inflight.has(hash);
    p.inflight.delete(hash);
    if (this.inflight.get(hash) === p.id) this.inflight.delete(hash);
    const [k, pk] = await this.opts.chain.ask<(Known | null)[]>({ op: 'known', hashes: [hash, prev] });
    if (k) {
      this.pending.delete(hash);
      this.updateBestKnown(p, hash, k.height, k.chainWork);
      return;
    }
    if (!pk) {
      // Its parent is still to come: hold it (bounded) until the parent connects.
      if (this.pending.has(hash) || requested || p.whitelisted) this.holdOrphanBlock(hash, payload, prev, p.id);
      return;
    }
    // An unrequested block is processed only if it would give the chain more work (AcceptBlock).
    if (!requested && !p.whitelisted && pk.chainWork + getBlockProof(header.bits) <= this.tip.chainWork) return;
    if (await this.submitBlock(p, payload, hash)) this.updateBestKnown(p, hash, pk.height + 1, pk.chainWork + getBlockProof(header.bits));
    await this.scheduleDownloads(p);
  }

  private orphanBlockBytes = 0;

  /** Holds a block whose parent is missing; the oldest go first beyond MAX_ORPHAN_BLOCKS or 64 MB. */
  private holdOrphanBlock(hash: string, raw: Uint8Array, prev: string, peer: number): void {
    if (this.orphanBlocks.has(hash)) return;
    this.orphanBlocks.set(hash, { raw, prev, peer });
    this.orphanBlockBytes += raw.length;
    while (this.orphanBlocks.size > MAX_ORPHAN_BLOCKS || this.orphanBlockBytes > MAX_ORPHAN_BLOCK_BYTES) {
      const [oldest, o] = this.orphanBlocks.entries().next().value as [string, { raw: Uint8Array }];
      this.orphanBlocks.delete(oldest);
      this.orphanBlockBytes -= o.raw.length;
    }
  }

  private takeOrphanBlock(hash: string): { raw: Uint8Array; prev: string; peer: number } | undefined {
    const o = this.orphanBlocks.get(hash);
    if (!o) return undefined;
    this.orphanBlocks.delete(hash);
    this.orphanBlockBytes -= o.raw.length;
    return o;
  }

  /** ProcessNewBlock for a received block; true when the chain store took it (connected or stored). */
  private async submitBlock(p: Peer | undefined, raw: Uint8Array, hash: string): Promise<boolean> {
    const res = await this.opts.chain.ask<{ status: string; rejectCode?: number; reason?: string; dos?: number }>({ op: 'submitBlock', raw }, 5 * 60_000);
    switch (res.status) {
      case 'connected':
      case 'stored':
      case 'duplicate':
        this.pending.delete(hash);
        break;
      case 'duplicate-invalid':
        // A block already known invalid: komodod's state.Invalid(..., 0, "duplicate") scores nothing.
        return false;
      case 'inconclusive': {
        // The chain store decoded the block: its header is all that is needed here.
        this.holdOrphanBlock(hash, raw, toHexReversed(BlockHeader.read(new BufferReader(raw)).prevHash), p?.id ?? -1);
        return false;
      }
      default: {
        const e = this.pending.get(hash);
        if (e) e.failed = true;
        for (const x of this.pending.values()) if (this.descendsFrom(x, hash)) x.failed = true;
        if (p) {
          const code = res.rejectCode ?? 0x10;
          this.reject(p, 'block', code, (res.reason ?? 'invalid').slice(0, 111), fromHexReversed(hash));
          // komodod scores the block's DoS value; a consensus failure at connect carries 100.
          this.misbehaving(p, res.dos ?? (code === 0x10 ? 100 : 0), `invalid block ${hash}: ${res.reason}`);
        }
        return false;
      }
    }
    // Children waiting for this block.
    for (const [h, o] of [...this.orphanBlocks]) {
      if (o.prev !== hash || !this.takeOrphanBlock(h)) continue;
      await this.submitBlock(this.peers.get(o.peer), o.raw, h);
    }
    return true;
  }

  private descendsFrom(x: PendingHeader, hash: string): boolean {
    let e: PendingHeader | undefined = x;
    for (let i = 0; e && i < BLOCK_DOWNLOAD_WINDOW * 64; i++) {
      if (e.prev === hash) return true;
      e = this.pending.get(e.prev);
    }
    return false;
  }

  // ---- transactions ---------------------------------------------------------------------------

  private async onTx(p: Peer, payload: Uint8Array): Promise<void> {
    // Ignored entirely while in initial block download (main.cpp:7824-7825).
    if (this.isInitialBlockDownload()) return;
    const tx = Transaction.fromRaw(payload);
    const hash = tx.hash();
    const txid = toHexReversed(hash);
    p.known.add(hashKey(MSG_TX, txid));
    // Answered: no longer expected of this peer, nor asked of others later (main.cpp:7840-7841).
    p.askFor.delete(hash);
    this.alreadyAsked.delete(hash);
    if (this.recentRejects.has(txid) || this.orphanTxs.has(txid)) return;
    // Consecutive tx messages reach the mempool together (it verifies a burst in parallel); any other
    // message of the peer waits for them (processMessage), so a peer still sees them handled in order.
    const job: Promise<void> = this.acceptTx(p, tx, payload, txid)
      .then(
        () => {},
        (e: unknown) => this.log(`p2p: tx ${txid} from peer=${p.id}: ${e instanceof Error ? e.message : String(e)}`),
      )
      .finally(() => p.txInflight.delete(job));
    p.txInflight.add(job);
    if (p.txInflight.size >= MAX_TX_INFLIGHT) await Promise.race(p.txInflight);
  }

  /** AcceptToMemoryPool for a relayed tx: relay (through the mempool's txAccepted notice), orphan or reject. */
  private async acceptTx(p: Peer | undefined, tx: Transaction, raw: Uint8Array, txid: string): Promise<boolean> {
    try {
      await this.opts.mempool.ask({ op: 'accept', raw, tx, allowHighFees: false });
      return true;
    } catch (e) {
      const f = e instanceof ServiceFailure ? e : new ServiceFailure(-32603, String(e));
      if (f.code === -25 && f.message === 'Missing inputs') {
        // Missing inputs: an orphan (transparent only), bounded by -maxorphantx.
        if (tx.joinSplits.length === 0 && tx.shieldedSpends.length === 0 && tx.shieldedOutputs.length === 0) {
          this.orphanTxs.set(txid, { tx, raw, txid, fromPeer: p?.id ?? -1, prevs: tx.vin.map((i) => i.prevout.txid()) });
          while (this.orphanTxs.size > DEFAULT_MAX_ORPHAN_TRANSACTIONS) {
            const keys = [...this.orphanTxs.keys()];
            this.orphanTxs.delete(keys[Math.floor(Math.random() * keys.length)]!);
          }
        }
        return false;
      }
      if (f.code === -27) return false;
      this.recentRejects.add(txid);
      if (this.recentRejects.size > 120_000) this.recentRejects.clear();
      const m = /^(\d+): (.*)$/.exec(f.message);
      // Failures without a reject state (non-standard inputs: -25 with no message) send nothing.
      if (p && m) {
        const code = Number(m[1]);
        const reason = m[2]!;
        this.reject(p, 'tx', code, reason.slice(0, 111), fromHexReversed(txid));
        this.misbehaving(p, await this.txDos(tx, code, reason), `invalid tx ${txid}: ${reason}`);
      }
      return false;
    }
  }

  /**
   * The DoS score komodod's validation state carries for a rejected transaction. The mempool's reply
   * keeps the reject code and reason; the score is recovered by re-running the pure context-free
   * checks (whose errors carry komodod's scores) or, for the input checks, from komodod's values.
   */
  private async txDos(tx: Transaction, code: number, reason: string): Promise<number> {
    const fixed = INPUT_DOS.get(reason);
    if (fixed !== undefined) return fixed;
    if (reason.startsWith('mandatory-script-verify-flag-failed')) return 100;
    if (code !== REJECT_INVALID) return 0;
    try {
      const params = (await this.opts.chain.ask<ChainParams | null>({ op: 'params' })) ?? this.opts.params;
      const ctx = validationContext(params);
      checkTransaction(tx, ctx, { tipTime: this.tip.time });
      contextualCheckTransaction(tx, this.tip.height + 1, ctx, { dosLevel: 10 });
    } catch (e) {
      if (e instanceof ValidationError && e.reason === reason) return e.dos;
    }
    return 0;
  }

  private async resolveOrphanTxs(parent: string): Promise<void> {
    for (const o of [...this.orphanTxs.values()]) {
      if (!o.prevs.includes(parent)) continue;
      this.orphanTxs.delete(o.txid);
      await this.acceptTx(undefined, o.tx, o.raw, o.txid);
    }
  }
}
