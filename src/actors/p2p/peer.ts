import type { Socket } from 'node:net';
import { MessageParser, frameMessage, ipBytes, type Frame } from '../../chain/p2p/messages.js';
import { ipToString } from './banlist.js';
import { FifoSet } from '../../chain/fifo.js';
import { AskQueue, FingerprintSet } from './askfor.js';

/**
 * komodod's setInventoryKnown: an mruset of SendBufferSize() / 1000 entries (net.cpp:2101), 1,000 at
 * the default -maxsendbuffer=1000, so an inv of 50,000 entries leaves only its last 1,000 known.
 */
export const INVENTORY_KNOWN_MAX = 1000;

/**
 * ReceiveFloodSize(): -maxreceivebuffer's default of 5,000 (kB) (net.cpp:2095). komodod stops reading a
 * peer whose received, unprocessed messages (24-byte headers included) pass it (net.cpp:1137-1142).
 */
export const RECEIVE_FLOOD_SIZE = 5000 * 1000;
/** Frames waiting to be handled before reading pauses, whatever their size, and below which it resumes. */
const MAX_QUEUED_FRAMES = 64;
const RESUME_QUEUED_FRAMES = 8;

const frameBytes = (f: Frame): number => 24 + (f.kind === 'message' ? f.payload.length : 0);

/** Inventory a peer is known to have: the most recent INVENTORY_KNOWN_MAX entries. */
export class KnownSet {
  private readonly set: FifoSet<string>;
  constructor(max = INVENTORY_KNOWN_MAX) {
    this.set = new FifoSet(max);
  }
  has(k: string): boolean {
    return this.set.has(k);
  }
  add(k: string): void {
    this.set.add(k);
  }
}

/** Strips IPv4-mapped prefixes from Node's address text. */
export function cleanIp(text: string | undefined): string {
  if (!text) return '';
  return text.startsWith('::ffff:') && text.includes('.') ? text.slice(7) : text;
}

export function hostPort(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

/**
 * One connection (komodod's CNode + CNodeState): the socket, the framing parser, the handshake
 * state, traffic counters, ping state, misbehaviour score, what the peer knows and what we asked it.
 * Received frames are handled one at a time, in order; reading pauses while too many wait.
 */
export class Peer {
  readonly parser: MessageParser;
  /** The peer's address as a 16-byte IP (ban checks) and as getpeerinfo's addr. */
  readonly ip: Uint8Array;
  readonly addrName: string;
  addrLocal = '';
  /** Set by the peer's version message; 0 before. */
  version = 0;
  services = 0n;
  subver = '';
  startingHeight = -1;
  relayTxes = true;
  /** Our verack was answered and the peer's version processed. */
  successfullyConnected = false;
  gotVerack = false;
  readonly conntime = Math.floor(Date.now() / 1000);
  lastsend = 0;
  lastrecv = 0;
  bytessent = 0;
  bytesrecv = 0;
  pingNonceSent = 0n;
  pingStartMs = 0;
  pingTimeMs = 0;
  pingQueued = false;
  banscore = 0;
  shouldBan = false;
  addrProcessed = 0;
  addrRateLimited = 0;
  gotGetaddr = false;
  readonly known = new KnownSet();
  /** Blocks asked of this peer: hash → time asked (ms). */
  readonly inflight = new Map<string, number>();
  /** The best header this peer is known to have (display hash). */
  bestKnown: string | undefined;
  bestKnownHeight = -1;
  commonHeight = -1;
  syncStarted = false;
  /** Transaction invs waiting for the next flush. */
  readonly pendingTxInv: { type: number; hash: Uint8Array }[] = [];
  /** setAskFor: transactions asked of this peer (or queued to be) and not received yet. */
  readonly askFor = new FingerprintSet();
  /** mapAskFor: requests for transactions not sent yet, by the time they may go. */
  readonly askQueue = new AskQueue();
  /** The queue being sent (SendMessages' getdata loop): a second pass waits for it. */
  askSending: Promise<void> | undefined;
  /** Relayed transactions handed to the mempool and not answered yet. */
  readonly txInflight = new Set<Promise<void>>();
  disconnected = false;
  private queue: Frame[] = [];
  /** Bytes of the frames in `queue`, headers included (GetTotalRecvSize). */
  private queued = 0;
  private working = false;

  constructor(
    readonly id: number,
    readonly socket: Socket,
    readonly inbound: boolean,
    private readonly magic: Uint8Array,
    readonly whitelisted: boolean,
    readonly oneshot: boolean,
    /** For outbound connections: the string it was opened with (-addnode, addnode RPC). */
    readonly dest: string | undefined,
    private readonly handle: (p: Peer, f: Frame) => Promise<void>,
    private readonly onClose: (p: Peer) => void,
  ) {
    this.parser = new MessageParser(magic);
    const ipText = cleanIp(socket.remoteAddress);
    this.ip = ipBytes(ipText);
    this.addrName = dest ?? hostPort(ipToString(this.ip), socket.remotePort ?? 0);
    socket.setNoDelay(true);
    socket.on('data', (d: Buffer) => this.receive(d));
    socket.on('error', () => this.close());
    socket.on('close', () => this.close());
  }

  private receive(d: Buffer): void {
    if (this.disconnected) return;
    this.bytesrecv += d.length;
    this.lastrecv = Math.floor(Date.now() / 1000);
    const frames = this.parser.push(new Uint8Array(d.buffer, d.byteOffset, d.byteLength));
    for (const f of frames) {
      this.queue.push(f);
      this.queued += frameBytes(f);
    }
    // Backpressure: a peer cannot queue unbounded work (nor bytes: 64 messages could be 256 MB);
    // reading resumes once the queue drains. A message still arriving counts too, as in komodod.
    if (this.queue.length > MAX_QUEUED_FRAMES || (this.queue.length > 0 && this.queued + this.parser.bufferedBytes > RECEIVE_FLOOD_SIZE)) this.socket.pause();
    void this.pump();
  }

  /** Bytes received and not handled yet: the queued messages with their headers, and the one arriving. */
  get receivedPending(): number {
    return this.queued + this.parser.bufferedBytes;
  }

  private async pump(): Promise<void> {
    if (this.working) return;
    this.working = true;
    try {
      while (this.queue.length && !this.disconnected) {
        const f = this.queue.shift()!;
        this.queued -= frameBytes(f);
        try {
          await this.handle(this, f);
        } catch {
          // The handler reports its own failures; a stray one must not stop this peer's queue.
        }
        if (this.queue.length < RESUME_QUEUED_FRAMES && this.queued <= RECEIVE_FLOOD_SIZE && this.socket.isPaused()) this.socket.resume();
      }
    } finally {
      this.working = false;
    }
  }

  /** Resolves once the output queued to the socket is below `bytes` (at once if it is), or the peer is gone. */
  async drained(bytes: number): Promise<void> {
    while (!this.disconnected && this.socket.writableLength >= bytes) {
      await new Promise<void>((resolve) => {
        const done = () => {
          this.socket.off('drain', done);
          this.socket.off('close', done);
          resolve();
        };
        this.socket.on('drain', done);
        this.socket.on('close', done);
      });
    }
  }

  send(command: string, payload: Uint8Array = new Uint8Array(0)): void {
    if (this.disconnected) return;
    const frame = frameMessage(this.magic, command, payload);
    this.bytessent += frame.length;
    this.lastsend = Math.floor(Date.now() / 1000);
    this.socket.write(frame);
  }

  close(): void {
    if (this.disconnected) return;
    this.disconnected = true;
    this.queue = [];
    this.queued = 0;
    // What was asked of the peer goes with it (komodod's CNode destructor).
    this.askFor.clear();
    this.askQueue.clear();
    this.pendingTxInv.length = 0;
    this.socket.destroy();
    this.onClose(this);
  }
}
