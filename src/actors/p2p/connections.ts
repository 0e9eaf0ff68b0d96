import { createServer, connect, type Server, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import {
  MIN_PEER_PROTO_VERSION,
  NODE_NETWORK,
  NonceMessage,
  PROTOCOL_VERSION,
  VersionMessage,
  ipBytes,
  type Frame,
} from '../../chain/p2p/messages.js';
import { REJECT_DUPLICATE, REJECT_OBSOLETE } from '../../chain/validation/errors.js';
import { SUBVERSION } from '../../chain/p2p/version.js';
import { ServiceFailure } from '../protocol.js';
import { ipToString } from './banlist.js';
import type { Bans } from './bans.js';
import { P2PPart, type P2PCore } from './context.js';
import { Peer, cleanIp, hostPort } from './peer.js';
import type { PeerInfo } from './protocol.js';
import type { BlockSync } from './sync.js';

/** net.h / main.h constants. */
export const PING_INTERVAL_MS = 2 * 60 * 1000;
export const TIMEOUT_INTERVAL_MS = 20 * 60 * 1000;
export const HANDSHAKE_TIMEOUT_MS = 60 * 1000;
export const MAX_OUTBOUND_CONNECTIONS = 8;
/** A peer that does not read what we send is dropped beyond this much queued output. */
const MAX_SEND_BUFFER = 32 * 1024 * 1024;

/** Splits "host:port", "[v6]:port" or "host" (the chain's default port). */
export function splitHostPort(text: string, dflt: number): { host: string; port: number } {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (m) return { host: m[1]!, port: m[2] ? Number(m[2]) : dflt };
  const colon = text.lastIndexOf(':');
  if (colon > 0 && text.indexOf(':') === colon && /^\d+$/.test(text.slice(colon + 1))) return { host: text.slice(0, colon), port: Number(text.slice(colon + 1)) };
  return { host: text, port: dflt };
}

/**
 * Connections and handshake (net.cpp): the listening sockets, inbound slots and ban checks, dialling
 * -addnode/-connect and the addnode RPC, the version/verack exchange, pings, and the liveness checks
 * that drop silent peers. Each peer's frames go to `onFrame`.
 */
export class Connections extends P2PPart {
  private readonly servers: Server[] = [];
  private nextId = 0;
  private readonly localNonces = new Set<bigint>();
  readonly addedNodes: string[] = [];
  /** Bytes of the peers already gone (CNode's nTotalBytesRecv/Sent count every connection ever made). */
  private readonly closedBytes = { recv: 0, sent: 0 };
  private readonly dialing = new Set<string>();
  boundPort = 0;
  readonly boundAddresses: { host: string; port: number }[] = [];

  constructor(
    core: P2PCore,
    private readonly bans: Bans,
    private readonly sync: BlockSync,
    private readonly onFrame: (p: Peer, f: Frame) => Promise<void>,
  ) {
    super(core);
  }

  // ---- listening and dialling -----------------------------------------------------------------

  /** Binds every -bind address (loopback when none is given), the first one's port shared by the others. */
  async listen(): Promise<void> {
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
      this.servers.push(server);
    }
    this.boundPort = port;
    this.log(`P2P listening on ${this.boundAddresses.map((a) => hostPort(a.host, a.port)).join(', ')} (port=${port})`);
  }

  async close(): Promise<void> {
    for (const p of [...this.peers.values()]) p.close();
    await Promise.all(this.servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  }

  private accept(socket: Socket): void {
    const ip = ipBytes(cleanIp(socket.remoteAddress));
    const whitelisted = this.bans.isWhitelisted(ip);
    if (this.core.closing) return void socket.destroy();
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
    const p = new Peer(this.nextId++, socket, inbound, this.opts.params.messageStart, whitelisted, oneshot, dest, (peer, f) => this.onFrame(peer, f), (peer) => this.onPeerClosed(peer));
    this.peers.set(p.id, p);
    return p;
  }

  openAddedConnections(): void {
    if (this.core.closing) return;
    for (const node of this.addedNodes) {
      if (this.connected().some((p) => p.dest === node) || this.dialing.has(node)) continue;
      this.openConnection(node, false);
    }
  }

  private openConnection(node: string, oneshot: boolean): void {
    if (this.core.closing) return;
    // OpenNetworkConnection: a node already connected under that name is not dialled again (FindNode(pszDest)).
    if (this.findPeer(node)) return;
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
      if (this.core.closing) return void socket.destroy();
      const ip = ipBytes(cleanIp(socket.remoteAddress));
      const p = this.addPeer(socket, false, this.bans.isWhitelisted(ip), oneshot, node);
      this.pushVersion(p);
    });
  }

  private onPeerClosed(p: Peer): void {
    if (this.peers.delete(p.id)) {
      this.closedBytes.recv += p.bytesrecv;
      this.closedBytes.sent += p.bytessent;
    }
    this.sync.peerClosed(p);
    if (p.version) this.log(`p2p: peer=${p.id} ${p.addrName} disconnected`);
    if (!this.core.closing) this.background(this.sync.scheduleAll(), 'download scheduling');
  }

  // ---- RPC ------------------------------------------------------------------------------------

  /** getnettotals: the gone peers' sum plus the live ones (at most the connection limit). */
  netTotals(): { recv: number; sent: number } {
    const t = { ...this.closedBytes };
    for (const p of this.peers.values()) {
      t.recv += p.bytesrecv;
      t.sent += p.bytessent;
    }
    return t;
  }

  addnode(node: string, command: string): null {
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

  /** FindNode(string): by the name it was opened with or its ip:port. */
  findPeer(node: string): Peer | undefined {
    return this.connected().find((p) => p.addrName === node || p.dest === node);
  }

  peerInfo(p: Peer): PeerInfo {
    const wait = p.pingNonceSent !== 0n ? (Date.now() - p.pingStartMs) / 1000 : 0;
    // Keys in komodod's order; addrlocal and pingwait only when there is one.
    return {
      id: p.id,
      addr: p.addrName,
      ...(p.addrLocal ? { addrlocal: p.addrLocal } : {}),
      services: p.services.toString(16).padStart(16, '0'),
      lastsend: p.lastsend,
      lastrecv: p.lastrecv,
      bytessent: p.bytessent,
      bytesrecv: p.bytesrecv,
      conntime: p.conntime,
      timeoffset: 0,
      pingtime: p.pingTimeMs / 1000,
      ...(wait > 0 ? { pingwait: wait } : {}),
      version: p.version,
      subver: p.subver,
      inbound: p.inbound,
      startingheight: p.startingHeight,
      banscore: p.banscore,
      synced_headers: p.bestKnownHeight,
      synced_blocks: p.commonHeight,
      inflight: this.sync.inflightHeights(p),
      addr_processed: p.addrProcessed,
      addr_rate_limited: p.addrRateLimited,
      whitelisted: p.whitelisted,
    };
  }

  // ---- handshake ------------------------------------------------------------------------------

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
      this.sync.tip.height,
      true,
    );
    p.send('version', v.toRaw());
  }

  onVersion(p: Peer, payload: Uint8Array): void {
    if (p.version !== 0) {
      this.bans.reject(p, 'version', REJECT_DUPLICATE, 'Duplicate version message');
      this.bans.misbehaving(p, 1, 'duplicate version');
      return;
    }
    const v = VersionMessage.fromRaw(payload);
    const version = v.version === 10300 ? 300 : v.version;
    if (version < MIN_PEER_PROTO_VERSION) {
      this.log(`peer=${p.id} using obsolete version ${version}; disconnecting`);
      this.bans.reject(p, 'version', REJECT_OBSOLETE, `Version must be ${MIN_PEER_PROTO_VERSION} or greater`);
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
      this.background(this.sync.sendGetHeaders(p, this.sync.tip.hash, new Uint8Array(32), true), 'initial getheaders');
    }
  }

  // ---- liveness -------------------------------------------------------------------------------

  sendPings(): void {
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

  onPing(p: Peer, payload: Uint8Array): void {
    const m = NonceMessage.fromRaw(payload);
    p.send('pong', new NonceMessage(m.nonce).toRaw());
  }

  onPong(p: Peer, payload: Uint8Array): void {
    if (payload.length < 8) return;
    const m = NonceMessage.fromRaw(payload.subarray(0, 8));
    if (p.pingNonceSent !== 0n && m.nonce === p.pingNonceSent) {
      p.pingTimeMs = Date.now() - p.pingStartMs;
      p.pingNonceSent = 0n;
    } else if (m.nonce === 0n) {
      p.pingNonceSent = 0n;
    }
  }

  /** Drops a peer that is silent, does not read, or did not answer a ping in time; true when it was dropped. */
  dropIfDead(p: Peer, now: number, nowS: number): boolean {
    const age = now - p.conntime * 1000;
    // No version within the first minute, or silence both ways: disconnect (net.cpp:1251-1270).
    if (age > HANDSHAKE_TIMEOUT_MS && (p.lastsend === 0 || p.lastrecv === 0 || p.version === 0)) {
      this.log(`socket no message in first 60 seconds, peer=${p.id}`);
      p.close();
      return true;
    }
    if (p.lastsend && nowS - p.lastsend > TIMEOUT_INTERVAL_MS / 1000) {
      this.log(`socket sending timeout: ${nowS - p.lastsend}s peer=${p.id}`);
      p.close();
      return true;
    }
    if (p.lastrecv && nowS - p.lastrecv > TIMEOUT_INTERVAL_MS / 1000) {
      this.log(`socket receive timeout: ${nowS - p.lastrecv}s peer=${p.id}`);
      p.close();
      return true;
    }
    if (p.pingNonceSent !== 0n && now - p.pingStartMs > TIMEOUT_INTERVAL_MS) {
      this.log(`ping timeout: ${(now - p.pingStartMs) / 1000}s peer=${p.id}`);
      p.close();
      return true;
    }
    if (p.socket.writableLength > MAX_SEND_BUFFER) {
      this.log(`send buffer full, peer=${p.id}`);
      p.close();
      return true;
    }
    return false;
  }
}
