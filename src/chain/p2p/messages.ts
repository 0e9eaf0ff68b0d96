import { BufferReader, MAX_SIZE } from '../encoding/reader.js';
import { BufferWriter } from '../encoding/writer.js';
import { DecodeError } from '../encoding/errors.js';
import { equalBytes } from '../encoding/hex.js';
import { sha256d } from '../crypto/hash.js';
import { BlockHeader } from '../block/header.js';
import { MAX_BLOCK_SIZE_SAPLING } from '../params/upgrades.js';

/**
 * komodod's P2P wire structures (protocol.h, net.cpp, main.cpp ProcessMessage): the 24-byte message
 * header and one class per message payload, each with fromRaw/toRaw. Pure: no sockets, no clocks.
 * Every decoder takes untrusted bytes and throws DecodeError, never allocating from an unchecked count.
 */

/** version.h */
export const PROTOCOL_VERSION = 170013;
export const INIT_PROTO_VERSION = 209;
export const MIN_PEER_PROTO_VERSION = 170012;
export const CADDR_TIME_VERSION = 31402;
export const BIP0031_VERSION = 60000;

/** protocol.h service bits */
export const NODE_NETWORK = 1n;
export const NODE_BLOOM = 4n;

/** protocol.h inventory types */
export const MSG_TX = 1;
export const MSG_BLOCK = 2;
export const MSG_FILTERED_BLOCK = 3;

export const MESSAGE_HEADER_SIZE = 24;
export const COMMAND_SIZE = 12;
/** net.h: _MAX_BLOCK_SIZE (4 MiB) + 24; a longer payload disconnects the peer. */
export const MAX_PROTOCOL_MESSAGE_LENGTH = MAX_BLOCK_SIZE_SAPLING + 24;
/** net.h MAX_INV_SZ */
export const MAX_INV_SZ = 50000;
/** main.h MAX_HEADERS_RESULTS: komodod's headers replies carry at most 160. */
export const MAX_HEADERS_RESULTS = 160;
/** net.h MAX_SUBVERSION_LENGTH */
export const MAX_SUBVERSION_LENGTH = 256;
/** main.h MAX_REJECT_MESSAGE_LENGTH */
export const MAX_REJECT_MESSAGE_LENGTH = 111;
/** net.h MAX_ADDR_TO_SEND: an addr message with more is misbehaviour. */
export const MAX_ADDR_TO_SEND = 1000;

/** First four bytes of SHA256d(payload) (net.cpp:2239-2244). */
export function checksum(payload: Uint8Array): Uint8Array {
  return sha256d(payload).subarray(0, 4);
}

/** The 24-byte header: magic, NUL-padded command, payload length (LE), checksum. */
export class MessageHeader {
  constructor(
    readonly magic: Uint8Array,
    readonly commandBytes: Uint8Array,
    readonly length: number,
    readonly checksum: Uint8Array,
  ) {}

  static fromRaw(raw: Uint8Array): MessageHeader {
    if (raw.length !== MESSAGE_HEADER_SIZE) throw new DecodeError(`message header must be 24 bytes, got ${raw.length}`);
    const r = new BufferReader(raw);
    const magic = r.bytes(4).slice();
    const cmd = r.bytes(COMMAND_SIZE).slice();
    const length = r.u32();
    const sum = r.bytes(4).slice();
    return new MessageHeader(magic, cmd, length, sum);
  }

  static forPayload(magic: Uint8Array, command: string, payload: Uint8Array): MessageHeader {
    const cmd = new Uint8Array(COMMAND_SIZE);
    const text = new TextEncoder().encode(command);
    if (text.length > COMMAND_SIZE) throw new Error(`command too long: ${command}`);
    cmd.set(text);
    return new MessageHeader(magic, cmd, payload.length, checksum(payload));
  }

  toRaw(): Uint8Array {
    const w = new BufferWriter(MESSAGE_HEADER_SIZE);
    w.bytes(this.magic).bytes(this.commandBytes).u32(this.length).bytes(this.checksum);
    return w.finish();
  }

  /** CMessageHeader::GetCommand: the bytes up to the first NUL. */
  get command(): string {
    const nul = this.commandBytes.indexOf(0);
    return String.fromCharCode(...this.commandBytes.subarray(0, nul === -1 ? COMMAND_SIZE : nul));
  }

  /** The command rule of CMessageHeader::IsValid: printable ASCII, then only NULs after the first NUL. */
  get commandValid(): boolean {
    let seenNul = false;
    for (const b of this.commandBytes) {
      if (seenNul) {
        if (b !== 0) return false;
      } else if (b === 0) seenNul = true;
      else if (b < 0x20 || b > 0x7e) return false;
    }
    return true;
  }

  /** CMessageHeader::IsValid: magic, command and size (≤ MAX_SIZE). */
  isValid(magic: Uint8Array): boolean {
    return equalBytes(this.magic, magic) && this.commandValid && this.length <= MAX_SIZE;
  }

  checksumMatches(payload: Uint8Array): boolean {
    return equalBytes(checksum(payload), this.checksum);
  }
}

/** A whole framed message: header then payload. */
export function frameMessage(magic: Uint8Array, command: string, payload: Uint8Array): Uint8Array {
  const head = MessageHeader.forPayload(magic, command, payload).toRaw();
  const out = new Uint8Array(head.length + payload.length);
  out.set(head);
  out.set(payload, head.length);
  return out;
}

function expectEnd(r: BufferReader, what: string): void {
  if (r.left !== 0) throw new DecodeError(`${r.left} trailing bytes after ${what}`);
}

function readString(r: BufferReader, max: number): string {
  const n = r.compactSize();
  // LIMITED_STRING: a longer string is a deserialisation error ("String length limit exceeded").
  if (n > max) throw new DecodeError('String length limit exceeded');
  return new TextDecoder('latin1').decode(r.bytes(n));
}

function writeString(w: BufferWriter, s: string): void {
  w.varBytes(new TextEncoder().encode(s));
}

/** CAddress without the time field (version messages; the stream is at INIT_PROTO_VERSION 209 there). */
export interface NetAddress {
  services: bigint;
  /** 16 bytes, IPv4 as ::ffff:a.b.c.d */
  ip: Uint8Array;
  port: number;
}

/** CAddress in addr messages: nTime first (CADDR_TIME_VERSION). */
export interface TimedNetAddress extends NetAddress {
  time: number;
}

function readNetAddress(r: BufferReader): NetAddress {
  const services = r.u64();
  const ip = r.bytes(16).slice();
  const hi = r.u8();
  const lo = r.u8();
  // The port is big-endian on the wire (CService serialises it in network order).
  return { services, ip, port: (hi << 8) | lo };
}

function writeNetAddress(w: BufferWriter, a: NetAddress): void {
  w.u64(a.services).bytes(a.ip).u8((a.port >> 8) & 0xff).u8(a.port & 0xff);
}

/** The 16-byte form of an IPv4 or IPv6 text address (IPv4 mapped into ::ffff:0:0/96); zeros if unparsable. */
export function ipBytes(text: string): Uint8Array {
  const out = new Uint8Array(16);
  const v4 = /^(?:::ffff:)?(\d+)\.(\d+)\.(\d+)\.(\d+)$/i.exec(text);
  if (v4) {
    out[10] = 0xff;
    out[11] = 0xff;
    for (let i = 0; i < 4; i++) out[12 + i] = Number(v4[i + 1]) & 0xff;
    return out;
  }
  if (text.includes(':')) {
    const [head, tail] = text.split('::') as [string, string | undefined];
    const hs = head ? head.split(':') : [];
    const ts = tail ? tail.split(':') : [];
    const groups = tail === undefined ? hs : [...hs, ...Array<string>(8 - hs.length - ts.length).fill('0'), ...ts];
    if (groups.length !== 8) return out;
    groups.forEach((g, i) => {
      const n = parseInt(g, 16) || 0;
      out[i * 2] = n >> 8;
      out[i * 2 + 1] = n & 0xff;
    });
  }
  return out;
}

/** `version` (net.cpp PushVersion, main.cpp:7242-7287). Fields after addrMe are optional on the wire. */
export class VersionMessage {
  constructor(
    public version: number,
    public services: bigint,
    public time: bigint,
    public addrRecv: NetAddress,
    public addrFrom: NetAddress,
    public nonce: bigint,
    public userAgent: string,
    public startHeight: number,
    public relay: boolean,
  ) {}

  static fromRaw(raw: Uint8Array): VersionMessage {
    const r = new BufferReader(raw);
    const version = r.i32();
    const services = r.u64();
    const time = r.i64();
    const addrRecv = readNetAddress(r);
    let addrFrom: NetAddress = { services: 0n, ip: new Uint8Array(16), port: 0 };
    let nonce = 1n;
    let userAgent = '';
    let startHeight = 0;
    let relay = true;
    if (r.left) {
      addrFrom = readNetAddress(r);
      nonce = r.u64();
    }
    if (r.left) userAgent = readString(r, MAX_SUBVERSION_LENGTH);
    if (r.left) startHeight = r.i32();
    if (r.left) relay = r.u8() !== 0;
    // komodod ignores anything after fRelay.
    return new VersionMessage(version, services, time, addrRecv, addrFrom, nonce, userAgent, startHeight, relay);
  }

  toRaw(): Uint8Array {
    const w = new BufferWriter(128);
    w.i32(this.version).u64(this.services).i64(this.time);
    writeNetAddress(w, this.addrRecv);
    writeNetAddress(w, this.addrFrom);
    w.u64(this.nonce);
    writeString(w, this.userAgent);
    w.i32(this.startHeight).u8(this.relay ? 1 : 0);
    return w.finish();
  }
}

/** A uint64 nonce: `ping` and `pong`. */
export class NonceMessage {
  constructor(public nonce: bigint) {}

  static fromRaw(raw: Uint8Array): NonceMessage {
    const r = new BufferReader(raw);
    const n = r.u64();
    return new NonceMessage(n);
  }

  toRaw(): Uint8Array {
    return new BufferWriter(8).u64(this.nonce).finish();
  }
}

export interface InvItem {
  type: number;
  /** 32 bytes, internal byte order */
  hash: Uint8Array;
}

/** `inv`, `getdata`, `notfound`: a vector of {uint32 type, uint256 hash}. */
export class InvMessage {
  constructor(public items: InvItem[]) {}

  /** The count is read before the MAX_INV_SZ rule is applied (the caller scores an oversized vector). */
  static fromRaw(raw: Uint8Array): InvMessage {
    const r = new BufferReader(raw);
    const n = r.count(36);
    const items: InvItem[] = [];
    for (let i = 0; i < n; i++) items.push({ type: r.u32(), hash: r.bytes(32).slice() });
    expectEnd(r, 'inv');
    return new InvMessage(items);
  }

  toRaw(): Uint8Array {
    const w = new BufferWriter(9 + this.items.length * 36);
    w.compactSize(this.items.length);
    for (const it of this.items) w.u32(it.type).bytes(it.hash);
    return w.finish();
  }
}

/**
 * An `inv`, `getdata` or `notfound` payload read in place: the count and the length are checked as
 * InvMessage.fromRaw checks them (same errors), but no entry is copied or turned into an object
 * until asked for, so a 50,000-entry vector costs nothing per entry the reader does not look at.
 */
export class InvReader {
  private constructor(
    private readonly raw: Uint8Array,
    private readonly start: number,
    readonly count: number,
  ) {}

  static fromRaw(raw: Uint8Array): InvReader {
    const r = new BufferReader(raw);
    const n = r.count(36);
    const start = r.offset;
    if (r.left !== n * 36) throw new DecodeError(`${r.left - n * 36} trailing bytes after inv`);
    return new InvReader(raw, start, n);
  }

  type(i: number): number {
    const o = this.start + i * 36;
    const b = this.raw;
    return (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16) | (b[o + 3]! << 24)) >>> 0;
  }

  /** Entry i's 32-byte hash (internal byte order), a view into the payload: copy it to keep it. */
  hash(i: number): Uint8Array {
    const o = this.start + i * 36 + 4;
    return this.raw.subarray(o, o + 32);
  }
}

/** `getheaders` / `getblocks`: CBlockLocator (version + hashes) and hashStop. */
export class LocatorMessage {
  constructor(
    public locator: Uint8Array[],
    public hashStop: Uint8Array = new Uint8Array(32),
    public version = PROTOCOL_VERSION,
  ) {}

  static fromRaw(raw: Uint8Array): LocatorMessage {
    const r = new BufferReader(raw);
    const version = r.i32();
    const n = r.count(32);
    const locator: Uint8Array[] = [];
    for (let i = 0; i < n; i++) locator.push(r.bytes(32).slice());
    const hashStop = r.bytes(32).slice();
    expectEnd(r, 'locator message');
    return new LocatorMessage(locator, hashStop, version);
  }

  toRaw(): Uint8Array {
    const w = new BufferWriter(45 + this.locator.length * 32);
    w.i32(this.version).compactSize(this.locator.length);
    for (const h of this.locator) w.bytes(h);
    w.bytes(this.hashStop);
    return w.finish();
  }
}

/** `headers`: CNetworkBlockHeader entries, each a full header followed by a 0x00 tx count. */
export class HeadersMessage {
  constructor(public headers: BlockHeader[]) {}

  /** Throws TooManyHeaders (before reading them) when the count exceeds MAX_HEADERS_RESULTS. */
  static fromRaw(raw: Uint8Array): HeadersMessage {
    const r = new BufferReader(raw);
    const n = r.count(141);
    if (n > MAX_HEADERS_RESULTS) throw new TooManyHeaders(n);
    const headers: BlockHeader[] = [];
    for (let i = 0; i < n; i++) {
      headers.push(BlockHeader.read(r));
      r.compactSize(); // the tx count, ignored ("assume it is 0")
    }
    return new HeadersMessage(headers);
  }

  toRaw(): Uint8Array {
    const w = new BufferWriter(9 + this.headers.length * 200);
    w.compactSize(this.headers.length);
    for (const h of this.headers) {
      h.write(w);
      w.u8(0);
    }
    return w.finish();
  }
}

/** A headers message announcing more than MAX_HEADERS_RESULTS: misbehaviour 20 in komodod. */
export class TooManyHeaders extends DecodeError {
  constructor(readonly count: number) {
    super(`headers message size = ${count}`);
  }
}

/** `reject`: message, code, reason, and the hash for "block"/"tx". */
export class RejectMessage {
  constructor(
    public message: string,
    public code: number,
    public reason: string,
    public hash?: Uint8Array,
  ) {}

  static fromRaw(raw: Uint8Array): RejectMessage {
    const r = new BufferReader(raw);
    const message = readString(r, COMMAND_SIZE);
    const code = r.u8();
    const reason = readString(r, MAX_REJECT_MESSAGE_LENGTH);
    let hash: Uint8Array | undefined;
    if ((message === 'block' || message === 'tx') && r.left >= 32) hash = r.bytes(32).slice();
    return new RejectMessage(message, code, reason, hash);
  }

  toRaw(): Uint8Array {
    const w = new BufferWriter(64);
    writeString(w, this.message);
    w.u8(this.code);
    writeString(w, this.reason.slice(0, MAX_REJECT_MESSAGE_LENGTH));
    if (this.hash) w.bytes(this.hash);
    return w.finish();
  }
}

/** `addr`: CompactSize n × {uint32 time, CAddress}. */
export class AddrMessage {
  constructor(public addrs: TimedNetAddress[]) {}

  static fromRaw(raw: Uint8Array): AddrMessage {
    const r = new BufferReader(raw);
    const n = r.count(30);
    const addrs: TimedNetAddress[] = [];
    for (let i = 0; i < n; i++) {
      const time = r.u32();
      addrs.push({ time, ...readNetAddress(r) });
    }
    expectEnd(r, 'addr');
    return new AddrMessage(addrs);
  }

  toRaw(): Uint8Array {
    const w = new BufferWriter(9 + this.addrs.length * 30);
    w.compactSize(this.addrs.length);
    for (const a of this.addrs) {
      w.u32(a.time);
      writeNetAddress(w, a);
    }
    return w.finish();
  }
}

/** The outcome of feeding bytes to a MessageParser. */
export type Frame =
  | { kind: 'message'; command: string; payload: Uint8Array }
  /** A header that fails CMessageHeader::IsValid (bad command bytes): skipped, connection kept. */
  | { kind: 'badHeader'; command: string; length: number }
  /** A checksum mismatch: skipped, connection kept. */
  | { kind: 'badChecksum'; command: string; length: number }
  /** Wrong magic or a payload longer than MAX_PROTOCOL_MESSAGE_LENGTH: the connection ends. */
  | { kind: 'fatal'; reason: string };

/**
 * CNode::ReceiveMsgBytes + the framing half of ProcessMessages: splits a byte stream into messages.
 * It never buffers more than one header plus MAX_PROTOCOL_MESSAGE_LENGTH bytes of payload.
 */
export class MessageParser {
  private chunks: Uint8Array[] = [];
  private buffered = 0;
  private header: MessageHeader | undefined;
  private dead = false;

  constructor(private readonly magic: Uint8Array) {}

  get bufferedBytes(): number {
    return this.buffered;
  }

  private take(n: number): Uint8Array {
    const out = new Uint8Array(n);
    let off = 0;
    while (off < n) {
      const c = this.chunks[0]!;
      const need = n - off;
      if (c.length <= need) {
        out.set(c, off);
        off += c.length;
        this.chunks.shift();
      } else {
        out.set(c.subarray(0, need), off);
        this.chunks[0] = c.subarray(need);
        off += need;
      }
    }
    this.buffered -= n;
    return out;
  }

  /** Adds received bytes; returns every frame now complete, in order. After a fatal frame, nothing more. */
  push(data: Uint8Array): Frame[] {
    if (this.dead) return [];
    if (data.length) {
      this.chunks.push(data);
      this.buffered += data.length;
    }
    const out: Frame[] = [];
    for (;;) {
      if (!this.header) {
        if (this.buffered < MESSAGE_HEADER_SIZE) break;
        const h = MessageHeader.fromRaw(this.take(MESSAGE_HEADER_SIZE));
        // komodod reads the whole declared payload before it notices a wrong magic; acnode closes at once.
        if (!equalBytes(h.magic, this.magic)) {
          this.dead = true;
          out.push({ kind: 'fatal', reason: 'INVALID MESSAGESTART' });
          break;
        }
        if (h.length > MAX_SIZE || h.length > MAX_PROTOCOL_MESSAGE_LENGTH) {
          this.dead = true;
          out.push({ kind: 'fatal', reason: `Oversized message (${h.length} bytes)` });
          break;
        }
        this.header = h;
      }
      const h = this.header;
      if (this.buffered < h.length) break;
      const payload = this.take(h.length);
      this.header = undefined;
      if (!h.commandValid) out.push({ kind: 'badHeader', command: h.command, length: h.length });
      else if (!h.checksumMatches(payload)) out.push({ kind: 'badChecksum', command: h.command, length: h.length });
      else out.push({ kind: 'message', command: h.command, payload });
    }
    return out;
  }
}
