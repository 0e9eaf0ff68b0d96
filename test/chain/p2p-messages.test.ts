import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  AddrMessage,
  HeadersMessage,
  InvMessage,
  InvReader,
  LocatorMessage,
  MAX_HEADERS_RESULTS,
  MAX_PROTOCOL_MESSAGE_LENGTH,
  MessageHeader,
  MessageParser,
  NonceMessage,
  PROTOCOL_VERSION,
  RejectMessage,
  TooManyHeaders,
  VersionMessage,
  frameMessage,
  ipBytes,
} from '../../src/chain/p2p/messages.js';
import { BlockHeader } from '../../src/chain/block/header.js';
import { DecodeError } from '../../src/chain/encoding/errors.js';
import { ChainParams } from '../../src/chain/params/chain-params.js';

/**
 * The P2P codecs against reference/p2p-blocks.md §1-2: the byte layouts are written out here from
 * the sheet's tables (hex literals and offsets), never produced by the encoder under test.
 */

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const sha256d = (b: Uint8Array) => createHash('sha256').update(createHash('sha256').update(b).digest()).digest();
/** TONYCI's magic 0x3cf11ae1 on the wire (§1.3). */
const TONYCI = hex('e11af13c');

test('verack on TONYCI is the sheet example byte for byte (§1.1)', () => {
  const expected = hex('e11af13c 76657261636b000000000000 00000000 5df6e0e2');
  assert.deepEqual(Buffer.from(frameMessage(TONYCI, 'verack', new Uint8Array(0))), expected);
  const h = MessageHeader.fromRaw(expected);
  assert.equal(h.command, 'verack');
  assert.equal(h.length, 0);
  assert.ok(h.isValid(TONYCI));
  assert.ok(h.checksumMatches(new Uint8Array(0)));
});

test('the magic of a chain goes on the wire as its messageStart (§1.2, §1.3 vectors)', () => {
  const cases: [string[], string][] = [
    [['-ac_name=TONYCI', '-ac_supply=10000000000', '-ac_reward=100000000000', '-ac_cc=2'], 'e11af13c'],
    [['-ac_name=KOIN', '-ac_supply=125000000'], '764c56b6'],
    [['-ac_name=ILN', '-ac_supply=10000000000', '-ac_cc=2'], 'feb4cb23'],
  ];
  for (const [args, bytes] of cases) {
    const m = new Map<string, string[]>();
    for (const a of args) {
      const [k, v] = a.slice(1).split('=') as [string, string];
      m.set(k, [v]);
    }
    const p = ChainParams.fromArgs(m, { regtest: false, port: 0 });
    assert.equal(Buffer.from(p.messageStart).toString('hex'), bytes, args.join(' '));
    assert.equal(Buffer.from(frameMessage(p.messageStart, 'ping', new Uint8Array(8))).subarray(0, 4).toString('hex'), bytes);
  }
});

test('header rules: command charset, NUL padding, size limit (protocol.cpp IsValid)', () => {
  const good = MessageHeader.fromRaw(hex('e11af13c 70696e670000000000000000 08000000 00000000'));
  assert.equal(good.command, 'ping');
  assert.equal(good.length, 8);
  // A byte after the first NUL: invalid.
  const afterNul = MessageHeader.fromRaw(hex('e11af13c 70696e670041000000000000 08000000 00000000'));
  assert.equal(afterNul.commandValid, false);
  // A control character: invalid.
  const ctrl = MessageHeader.fromRaw(hex('e11af13c 01696e670000000000000000 08000000 00000000'));
  assert.equal(ctrl.commandValid, false);
  // Twelve printable characters, no NUL: valid.
  const full = MessageHeader.fromRaw(Buffer.concat([TONYCI, Buffer.from('abcdefghijkl'), hex('00000000 00000000')]));
  assert.equal(full.command, 'abcdefghijkl');
  assert.ok(full.commandValid);
  // Length above MAX_SIZE (0x02000000).
  const big = MessageHeader.fromRaw(Buffer.concat([TONYCI, Buffer.from('block\0\0\0\0\0\0\0'), hex('01000002'), hex('00000000')]));
  assert.equal(big.length, 0x02000001);
  assert.equal(big.isValid(TONYCI), false);
  assert.throws(() => MessageHeader.fromRaw(new Uint8Array(23)), DecodeError);
});

test('version: the 86-byte layout of §2.2 (empty user agent), PROTOCOL_VERSION 170013 = 1d980200', () => {
  assert.equal(PROTOCOL_VERSION, 170013);
  const addr = (port: number) => hex(`0100000000000000 00000000000000000000ffff7f000001 ${port.toString(16).padStart(4, '0')}`);
  const payload = Buffer.concat([
    hex('1d980200'), // nVersion
    hex('0100000000000000'), // services NODE_NETWORK
    hex('0065cd1d00000000'), // nTime 500000000
    addr(7770), // addrRecv, port big-endian
    addr(8000), // addrFrom
    hex('efcdab8967452301'), // nonce
    hex('00'), // user agent ""
    hex('0a000000'), // start height 10
    hex('01'), // relay
  ]);
  assert.equal(payload.length, 86);
  const v = VersionMessage.fromRaw(payload);
  assert.equal(v.version, 170013);
  assert.equal(v.services, 1n);
  assert.equal(v.time, 500000000n);
  assert.equal(v.addrRecv.port, 7770);
  assert.deepEqual(Buffer.from(v.addrRecv.ip), hex('00000000000000000000ffff7f000001'));
  assert.equal(v.addrFrom.port, 8000);
  assert.equal(v.nonce, 0x0123456789abcdefn);
  assert.equal(v.userAgent, '');
  assert.equal(v.startHeight, 10);
  assert.equal(v.relay, true);
  assert.deepEqual(Buffer.from(v.toRaw()), payload);
  // Relay absent → true; everything after addrMe is optional on the wire.
  assert.equal(VersionMessage.fromRaw(payload.subarray(0, 85)).relay, true);
  const short = VersionMessage.fromRaw(payload.subarray(0, 46));
  assert.equal(short.nonce, 1n);
  assert.equal(short.startHeight, 0);
  // A user agent longer than 256 bytes is a parse error (LIMITED_STRING).
  const long = Buffer.concat([payload.subarray(0, 80), hex('fd0101'), Buffer.alloc(257, 0x41), hex('00000000 01')]);
  assert.throws(() => VersionMessage.fromRaw(long), DecodeError);
});

test('ping/pong: a uint64 nonce', () => {
  const raw = hex('0807060504030201');
  assert.equal(NonceMessage.fromRaw(raw).nonce, 0x0102030405060708n);
  assert.deepEqual(Buffer.from(new NonceMessage(0x0102030405060708n).toRaw()), raw);
  assert.throws(() => NonceMessage.fromRaw(hex('01020304')), DecodeError);
});

test('inv/getdata/notfound: CompactSize n × {uint32 type, uint256 hash}', () => {
  const h1 = Buffer.alloc(32, 0x11);
  const h2 = Buffer.alloc(32, 0x22);
  const raw = Buffer.concat([hex('02'), hex('01000000'), h1, hex('02000000'), h2]);
  const m = InvMessage.fromRaw(raw);
  assert.deepEqual(
    m.items.map((i) => [i.type, Buffer.from(i.hash).toString('hex')]),
    [
      [1, h1.toString('hex')],
      [2, h2.toString('hex')],
    ],
  );
  assert.deepEqual(Buffer.from(m.toRaw()), raw);
  // A count the payload cannot hold is refused before any allocation.
  assert.throws(() => InvMessage.fromRaw(hex('fe50c30000')), DecodeError);
  // Trailing bytes are an error.
  assert.throws(() => InvMessage.fromRaw(Buffer.concat([raw, hex('00')])), DecodeError);
});

test('InvReader reads an inv in place: the entries InvMessage reads, and the payloads it refuses', () => {
  const h1 = Buffer.alloc(32, 0x11);
  const h2 = Buffer.alloc(32, 0x22);
  // A type with the top bit set reads as an unsigned 32-bit value, as InvMessage's u32 does.
  const raw = Buffer.concat([hex('02'), hex('01000000'), h1, hex('040302f1'), h2]);
  const r = InvReader.fromRaw(raw);
  assert.equal(r.count, 2);
  assert.deepEqual(
    [0, 1].map((i) => [r.type(i), Buffer.from(r.hash(i)).toString('hex')]),
    InvMessage.fromRaw(raw).items.map((i) => [i.type, Buffer.from(i.hash).toString('hex')]),
  );
  assert.equal(r.type(1), 0xf1020304);
  // The hash is a view of the payload, not a copy.
  assert.equal(r.hash(0).buffer, raw.buffer);
  assert.equal(InvReader.fromRaw(hex('00')).count, 0);
  // A 3-byte CompactSize count (fd), as komodod writes 50,000.
  const big = Buffer.concat([hex('fd50c3'), Buffer.alloc(50_000 * 36, 7)]);
  assert.equal(InvReader.fromRaw(big).count, 50_000);
  for (const bad of [hex(''), hex('fe50c30000'), Buffer.concat([raw, hex('00')]), raw.subarray(0, raw.length - 1), hex('fd0100')]) {
    assert.throws(() => InvMessage.fromRaw(bad), DecodeError);
    assert.throws(() => InvReader.fromRaw(bad), DecodeError);
  }
});

test('getheaders/getblocks: uint32 version, locator, hashStop', () => {
  const a = Buffer.alloc(32, 0xaa);
  const stop = Buffer.alloc(32, 0);
  const raw = Buffer.concat([hex('1d980200'), hex('01'), a, stop]);
  const m = LocatorMessage.fromRaw(raw);
  assert.equal(m.version, 170013);
  assert.equal(m.locator.length, 1);
  assert.deepEqual(Buffer.from(m.locator[0]!), a);
  assert.deepEqual(Buffer.from(m.hashStop), stop);
  assert.deepEqual(Buffer.from(m.toRaw()), raw);
});

/** A 36-byte-solution header as §3.1 lays it out: 140 fixed bytes, CompactSize 0x24, solution. */
function rawHeader(prev: Buffer, time: number): Buffer {
  const fixed = Buffer.alloc(140);
  fixed.writeInt32LE(4, 0);
  prev.copy(fixed, 4);
  fixed.writeUInt32LE(time, 100);
  fixed.writeUInt32LE(0x200f0f0f, 104);
  return Buffer.concat([fixed, hex('24'), Buffer.alloc(36, 0x5a)]);
}

test('headers: each entry is a full header followed by a 0x00 tx count; at most 160 (§2.3)', () => {
  const h1 = rawHeader(Buffer.alloc(32), 1000);
  const h1hash = sha256d(h1);
  const h2 = rawHeader(h1hash, 1001);
  const raw = Buffer.concat([hex('02'), h1, hex('00'), h2, hex('00')]);
  const m = HeadersMessage.fromRaw(raw);
  assert.equal(m.headers.length, 2);
  assert.equal(m.headers[0]!.hashHex(), Buffer.from(h1hash).reverse().toString('hex'));
  assert.deepEqual(Buffer.from(m.headers[1]!.prevHash), h1hash);
  assert.deepEqual(Buffer.from(m.toRaw()), raw);
  assert.equal(MAX_HEADERS_RESULTS, 160);
  // 161 announced: refused as too many before reading them.
  const many = Buffer.concat([hex('a1'), Buffer.alloc(161 * 178)]);
  assert.throws(() => HeadersMessage.fromRaw(many), TooManyHeaders);
  assert.equal(new HeadersMessage([BlockHeader.fromRaw(h1)]).toRaw().at(-1), 0);
});

test('reject: var_str message, code, var_str reason, hash for block/tx', () => {
  const hash = Buffer.alloc(32, 0x33);
  const raw = Buffer.concat([hex('02'), Buffer.from('tx'), hex('10'), hex('0f'), Buffer.from('bad-txns-vin-em'), hash]);
  const r = RejectMessage.fromRaw(raw);
  assert.equal(r.message, 'tx');
  assert.equal(r.code, 0x10);
  assert.equal(r.reason, 'bad-txns-vin-em');
  assert.deepEqual(Buffer.from(r.hash!), hash);
  assert.deepEqual(Buffer.from(r.toRaw()), raw);
  const ver = Buffer.concat([hex('07'), Buffer.from('version'), hex('12'), hex('19'), Buffer.from('Duplicate version message')]);
  const d = RejectMessage.fromRaw(ver);
  assert.equal(d.code, 0x12);
  assert.equal(d.hash, undefined);
  assert.deepEqual(Buffer.from(new RejectMessage('version', 0x12, 'Duplicate version message').toRaw()), ver);
});

test('addr: CompactSize n × 30 bytes {uint32 time, uint64 services, 16-byte IP, big-endian port}', () => {
  const raw = Buffer.concat([hex('01'), hex('00e1f505'), hex('0100000000000000'), hex('00000000000000000000ffff0a000001'), hex('1e62')]);
  const a = AddrMessage.fromRaw(raw);
  assert.equal(a.addrs[0]!.time, 100000000);
  assert.equal(a.addrs[0]!.port, 7778);
  assert.deepEqual(Buffer.from(a.addrs[0]!.ip), Buffer.from(ipBytes('10.0.0.1')));
  assert.deepEqual(Buffer.from(a.toRaw()), raw);
});

test('stream parser: split delivery, bad checksum and bad command skipped, bad magic and oversize fatal', () => {
  const ping = Buffer.concat([TONYCI, Buffer.from('ping\0\0\0\0\0\0\0\0'), hex('08000000'), sha256d(hex('0102030405060708')).subarray(0, 4), hex('0102030405060708')]);
  const p = new MessageParser(TONYCI);
  // Byte by byte.
  const frames = [...ping].flatMap((b) => p.push(Uint8Array.of(b)));
  assert.deepEqual(frames.map((f) => f.kind), ['message']);
  assert.equal(frames[0]!.kind === 'message' && frames[0]!.command, 'ping');

  const badSum = Buffer.from(ping);
  badSum[20]! ^= 0xff;
  const badCmd = Buffer.from(ping);
  badCmd[4] = 0x01;
  const verack = hex('e11af13c 76657261636b000000000000 00000000 5df6e0e2');
  const q = new MessageParser(TONYCI);
  const out = q.push(Buffer.concat([badSum, badCmd, verack]));
  assert.deepEqual(out.map((f) => f.kind), ['badChecksum', 'badHeader', 'message']);

  const wrongMagic = new MessageParser(TONYCI).push(Buffer.concat([hex('f9eee48d'), verack.subarray(4)]));
  assert.deepEqual(wrongMagic.map((f) => f.kind), ['fatal']);

  const oversize = Buffer.concat([TONYCI, Buffer.from('block\0\0\0\0\0\0\0'), Buffer.from(new Uint32Array([MAX_PROTOCOL_MESSAGE_LENGTH + 1]).buffer), hex('00000000')]);
  const r = new MessageParser(TONYCI);
  assert.deepEqual(r.push(oversize).map((f) => f.kind), ['fatal']);
  assert.deepEqual(r.push(verack), [], 'nothing is parsed after a fatal frame');
  assert.equal(MAX_PROTOCOL_MESSAGE_LENGTH, 4 * 1024 * 1024 + 24);
});
