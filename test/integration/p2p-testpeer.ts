import { connect, type Socket } from 'node:net';
import { createHash, randomBytes } from 'node:crypto';
import { waitUntil } from '../helpers/wait.js';

/**
 * A raw-socket test peer written from reference/p2p-blocks.md §1-2 (not from acnode's encoder):
 * 24-byte header (magic, NUL-padded command, LE length, first 4 bytes of SHA256d), the 170013
 * version payload laid out field by field, and hand-written payloads for the few messages the
 * tests use. It records every message the node sends and whether the node closed the socket.
 */

const sha256d = (b: Buffer) => createHash('sha256').update(createHash('sha256').update(b).digest()).digest();

export function frame(magic: Buffer, command: string, payload: Buffer = Buffer.alloc(0)): Buffer {
  const h = Buffer.alloc(24);
  magic.copy(h, 0);
  h.write(command, 4, 'ascii');
  h.writeUInt32LE(payload.length, 16);
  sha256d(payload).copy(h, 20, 0, 4);
  return Buffer.concat([h, payload]);
}

/** CompactSize per the sheet: < 0xfd one byte, fd + u16, fe + u32. */
export function compactSize(n: number): Buffer {
  if (n < 0xfd) return Buffer.from([n]);
  if (n <= 0xffff) {
    const b = Buffer.alloc(3);
    b[0] = 0xfd;
    b.writeUInt16LE(n, 1);
    return b;
  }
  const b = Buffer.alloc(5);
  b[0] = 0xfe;
  b.writeUInt32LE(n, 1);
  return b;
}

/** addr without time: u64 services, 16-byte IPv4-mapped IP, big-endian u16 port (26 bytes). */
function netAddr(port: number): Buffer {
  const b = Buffer.alloc(26);
  b.writeBigUInt64LE(1n, 0);
  b[18] = 0xff;
  b[19] = 0xff;
  b[20] = 127;
  b[23] = 1;
  b.writeUInt16BE(port, 24);
  return b;
}

/** The version payload, 86 bytes + user agent: §2.2's table. */
export function versionPayload(opts: { version?: number; nonce?: bigint; startHeight?: number; port?: number } = {}): Buffer {
  const head = Buffer.alloc(20);
  head.writeInt32LE(opts.version ?? 170013, 0);
  head.writeBigUInt64LE(1n, 4); // NODE_NETWORK
  head.writeBigInt64LE(BigInt(Math.floor(Date.now() / 1000)), 12);
  const nonce = Buffer.alloc(8);
  nonce.writeBigUInt64LE(opts.nonce ?? randomBytes(8).readBigUInt64LE());
  const ua = Buffer.from('/testpeer:1.0/', 'ascii');
  const tail = Buffer.alloc(5);
  tail.writeInt32LE(opts.startHeight ?? 0, 0);
  tail[4] = 1;
  return Buffer.concat([head, netAddr(opts.port ?? 0), netAddr(0), nonce, compactSize(ua.length), ua, tail]);
}

export interface Received {
  command: string;
  payload: Buffer;
}

export class TestPeer {
  readonly received: Received[] = [];
  closed = false;
  private buf = Buffer.alloc(0);
  private waiters: (() => void)[] = [];

  private constructor(
    readonly socket: Socket,
    readonly magic: Buffer,
  ) {
    socket.on('data', (d) => {
      this.buf = Buffer.concat([this.buf, d]);
      while (this.buf.length >= 24) {
        const len = this.buf.readUInt32LE(16);
        if (this.buf.length < 24 + len) break;
        const cmd = this.buf.subarray(4, 16).toString('ascii').replace(/\0+$/, '');
        this.received.push({ command: cmd, payload: Buffer.from(this.buf.subarray(24, 24 + len)) });
        this.buf = this.buf.subarray(24 + len);
      }
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => {});
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  static connect(port: number, magic: Buffer): Promise<TestPeer> {
    return new Promise((resolve, reject) => {
      const s = connect({ host: '127.0.0.1', port }, () => resolve(new TestPeer(s, magic)));
      s.once('error', reject);
    });
  }

  /** Connects and completes the handshake: version → (version, verack) ← verack →. */
  static async handshake(port: number, magic: Buffer, startHeight = 0): Promise<TestPeer> {
    const p = await TestPeer.connect(port, magic);
    p.send('version', versionPayload({ startHeight }));
    await p.waitFor('version');
    await p.waitFor('verack');
    p.send('verack');
    return p;
  }

  send(command: string, payload: Buffer = Buffer.alloc(0)): void {
    this.socket.write(frame(this.magic, command, payload));
  }

  raw(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** Waits for a message (from index `from` on) satisfying `pred`, or the socket closing. */
  async waitFor(command: string, timeoutMs = 30_000, pred: (m: Received) => boolean = () => true, from = 0): Promise<Received> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const m = this.received.slice(from).find((x) => x.command === command && pred(x));
      if (m) return m;
      if (this.closed) throw new Error(`connection closed while waiting for ${command}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${command} within ${timeoutMs} ms (got ${this.received.map((r) => r.command).join(',')})`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }

  async waitClosed(timeoutMs = 30_000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed && Date.now() < deadline) {
      await new Promise<void>((r) => {
        const t = setTimeout(r, Math.max(1, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
    return this.closed;
  }

  /** ping with a nonce; resolves when the matching pong arrives. */
  async ping(timeoutMs = 30_000): Promise<void> {
    const nonce = randomBytes(8);
    const from = this.received.length;
    this.send('ping', nonce);
    await this.waitFor('pong', timeoutMs, (m) => m.payload.equals(nonce), from);
  }

  close(): void {
    this.socket.destroy();
  }
}

/** The node's version message: start height at offset 80 + user-agent length (§2.2). */
export function startHeightOf(version: Buffer): number {
  const uaLen = version[80]!;
  return version.readInt32LE(81 + uaLen);
}

/** An inv/getdata payload: CompactSize n, then n × {u32 type, 32-byte hash (internal order)}. */
export function invPayload(items: { type: number; hash: Buffer }[]): Buffer {
  const parts = [compactSize(items.length)];
  for (const it of items) {
    const t = Buffer.alloc(4);
    t.writeUInt32LE(it.type);
    parts.push(t, it.hash);
  }
  return Buffer.concat(parts);
}

export function parseInv(payload: Buffer): { type: number; hash: Buffer }[] {
  let n = payload[0]!;
  let off = 1;
  if (n === 0xfd) {
    n = payload.readUInt16LE(1);
    off = 3;
  } else if (n === 0xfe) {
    n = payload.readUInt32LE(1);
    off = 5;
  }
  const out: { type: number; hash: Buffer }[] = [];
  for (let i = 0; i < n; i++) out.push({ type: payload.readUInt32LE(off + i * 36), hash: payload.subarray(off + 4 + i * 36, off + 36 + i * 36) });
  return out;
}

/** Display hex of an internal-order hash. */
export const displayHex = (h: Buffer) => Buffer.from(h).reverse().toString('hex');

/** The P2P port a daemon logged ("P2P listening on ... (port=N)"). */
export function p2pPort(log: string[]): number {
  for (const l of log) {
    const m = /P2P listening on .*\(port=(\d+)\)/.exec(l);
    if (m) return Number(m[1]);
  }
  throw new Error('no P2P listening line in the log');
}

/** The node's mempool txids as it answers a `mempool` message (an inv of MSG_TX entries). */
export async function mempoolOf(port: number, magic: Buffer): Promise<string[]> {
  const p = await TestPeer.handshake(port, magic);
  try {
    const from = p.received.length;
    p.send('mempool');
    // An empty mempool sends no inv: a ping/pong round trip marks the end of the answer.
    await p.ping();
    return p.received
      .slice(from)
      .filter((m) => m.command === 'inv')
      .flatMap((m) => parseInv(m.payload))
      .filter((i) => i.type === 1)
      .map((i) => displayHex(i.hash));
  } finally {
    p.close();
  }
}

/** The node's tip height, as its version message announces it. */
export async function heightOf(port: number, magic: Buffer): Promise<number> {
  const p = await TestPeer.connect(port, magic);
  try {
    p.send('version', versionPayload());
    const v = await p.waitFor('version');
    return startHeightOf(v.payload);
  } finally {
    p.close();
  }
}

/** Splits a headers payload (§2.3, §3.1): 140 fixed bytes, CompactSize solution length, solution, 0x00. */
export function parseHeaders(payload: Buffer): { hash: string; prev: string; raw: Buffer }[] {
  let off = 0;
  const readCs = (): number => {
    const f = payload[off++]!;
    if (f < 0xfd) return f;
    if (f === 0xfd) {
      const v = payload.readUInt16LE(off);
      off += 2;
      return v;
    }
    const v = payload.readUInt32LE(off);
    off += 4;
    return v;
  };
  const n = readCs();
  const out: { hash: string; prev: string; raw: Buffer }[] = [];
  for (let i = 0; i < n; i++) {
    const start = off;
    off += 140;
    const sol = readCs();
    off += sol;
    const raw = payload.subarray(start, off);
    out.push({ hash: displayHex(sha256d(raw)), prev: displayHex(raw.subarray(4, 36)), raw });
    off += 1; // tx count 0
  }
  return out;
}

/** The regtest genesis (§4.1): every dev-chain locator ends with it. */
export const REGTEST_GENESIS = '029f11d80ef9765602235e1bc9727e3eb6ba20839319f761fee920d63401e327';

/** The node's active chain after genesis (≤ 160 blocks), as its `headers` reply to getheaders(genesis) lists it. */
export async function chainOf(port: number, magic: Buffer): Promise<string[]> {
  const p = await TestPeer.handshake(port, magic);
  try {
    const from = p.received.length;
    const body = Buffer.concat([Buffer.from('1d980200', 'hex'), compactSize(1), Buffer.from(REGTEST_GENESIS, 'hex').reverse(), Buffer.alloc(32)]);
    p.send('getheaders', body);
    // The node's own initial getheaders to us is answered by nothing; wait for its reply to ours.
    await p.ping();
    const replies = p.received.slice(from).filter((m) => m.command === 'headers');
    const last = replies.at(-1);
    return last ? parseHeaders(last.payload).map((h) => h.hash) : [];
  } finally {
    p.close();
  }
}

/** Fetches a block by getdata (MSG_BLOCK) and returns its raw bytes. */
export async function blockOf(port: number, magic: Buffer, hash: string): Promise<Buffer> {
  const p = await TestPeer.handshake(port, magic);
  try {
    const from = p.received.length;
    p.send('getdata', invPayload([{ type: 2, hash: Buffer.from(hash, 'hex').reverse() }]));
    const m = await p.waitFor('block', 30_000, () => true, from);
    return m.payload;
  } finally {
    p.close();
  }
}

/** Polls `f` until it returns true, or fails after timeoutMs with `what`. */
export function until(what: string, f: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  return waitUntil(what, () => f().catch(() => false), timeoutMs, 200);
}
