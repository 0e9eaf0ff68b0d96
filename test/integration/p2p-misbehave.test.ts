import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { TestPeer, compactSize, frame, invPayload, until, versionPayload } from './p2p-testpeer.js';
import { MAGIC, p2pDaemon } from './p2p-helpers.js';

/**
 * A raw-socket peer written from reference/p2p-blocks.md attacks one daemon after a valid handshake:
 * a malformed header and a bad checksum are skipped with the connection kept (§1.1); messages komodod
 * scores raise the ban score shown by getpeerinfo until the threshold disconnects the peer, which is
 * local and so never banned (main.cpp:8446-8460); an oversized length and garbage end the connection.
 * The node survives all of it and keeps serving a well-behaved peer. setban/listbanned/clearbanned
 * and disconnectnode/addnode answer as komodod's rpc/net.cpp does.
 */


/** Two 140-byte headers (empty solution, tx count 0) that do not chain: "non-continuous headers sequence". */
function brokenHeaders(): Buffer {
  const h = () => Buffer.concat([Buffer.alloc(4, 4), randomBytes(32), Buffer.alloc(104), Buffer.from([0, 0])]);
  return Buffer.concat([compactSize(2), h(), h()]);
}

interface PeerInfo {
  id: number;
  addr: string;
  banscore: number;
  inbound: boolean;
  subver: string;
}

test('misbehaving peer: skipped frames, ban score, disconnect without ban (local), node keeps serving', { timeout: 120_000 }, async (t) => {
  const { d, port, peers } = await p2pDaemon(t, ['-gen=0']);
  const good = await TestPeer.handshake(port, MAGIC);
  peers.push(good);
  const bad = await TestPeer.handshake(port, MAGIC);
  peers.push(bad);
  const info = async () => (await d!.rpc<PeerInfo[]>('getpeerinfo')).filter((p) => p.subver === '/testpeer:1.0/');
  await until('two test peers', async () => (await info()).length === 2);

  // A malformed header (control byte in the command): skipped, the connection stays.
  const malformed = frame(MAGIC, 'ping', randomBytes(8));
  malformed[4] = 0x01;
  bad.raw(malformed);
  await bad.ping();
  // A bad checksum: skipped, the connection stays.
  const badSum = frame(MAGIC, 'ping', randomBytes(8));
  badSum[20]! ^= 0xff;
  bad.raw(badSum);
  await bad.ping();
  // Unknown commands are ignored.
  bad.send('sendheaders');
  await bad.ping();
  assert.equal(bad.closed, false);
  const badId = () => info().then((l) => l.find((p) => p.banscore > 0 || p.id === Math.max(...l.map((x) => x.id))));
  assert.equal((await badId())!.banscore, 0);

  // A second version: reject DUPLICATE (0x12) and misbehaviour 1.
  const from = bad.received.length;
  bad.send('version', versionPayload());
  const rej = await bad.waitFor('reject', 10_000, () => true, from);
  assert.equal(rej.payload.subarray(1, 8).toString('ascii'), 'version');
  assert.equal(rej.payload[8], 0x12);
  await bad.ping();
  assert.equal((await badId())!.banscore, 1);

  // A payload that does not parse: reject MALFORMED "error parsing message", no score.
  const from2 = bad.received.length;
  bad.send('inv', Buffer.from([0x05, 0x01]));
  const malformedRej = await bad.waitFor('reject', 10_000, () => true, from2);
  assert.equal(malformedRej.payload[4], 0x01);
  assert.match(malformedRej.payload.toString('latin1'), /error parsing message/);

  // Non-continuous headers: +20 each; 1 + 5 × 20 = 101 reaches -banscore (101) → disconnect.
  for (let i = 0; i < 4; i++) {
    bad.send('headers', brokenHeaders());
    await bad.ping();
  }
  assert.equal((await badId())!.banscore, 81);
  bad.send('headers', brokenHeaders());
  assert.ok(await bad.waitClosed(), 'the peer is disconnected at the threshold');
  // Local peers are disconnected but never banned.
  assert.deepEqual(await d.rpc('listbanned'), []);
  await d.logged(/BAN THRESHOLD EXCEEDED/);
  await d.logged(/not banning local peer/);

  // An oversized length (> MAX_SIZE): disconnected at once.
  const big = await TestPeer.handshake(port, MAGIC);
  peers.push(big);
  const hdr = frame(MAGIC, 'block').subarray(0, 24);
  hdr.writeUInt32LE(0x02000001, 16);
  big.raw(hdr);
  assert.ok(await big.waitClosed(), 'oversized message: disconnected');

  // A length above 4 MiB + 24 but below MAX_SIZE: disconnected too (MAX_PROTOCOL_MESSAGE_LENGTH).
  const big2 = await TestPeer.handshake(port, MAGIC);
  peers.push(big2);
  const hdr2 = frame(MAGIC, 'block').subarray(0, 24);
  hdr2.writeUInt32LE(4 * 1024 * 1024 + 25, 16);
  big2.raw(hdr2);
  assert.ok(await big2.waitClosed(), 'message above MAX_PROTOCOL_MESSAGE_LENGTH: disconnected');

  // Garbage after the handshake: a wrong message start → disconnected.
  const junk = await TestPeer.handshake(port, MAGIC);
  peers.push(junk);
  junk.raw(randomBytes(64));
  assert.ok(await junk.waitClosed(), 'garbage: disconnected');

  // A peer below the minimum protocol version: reject OBSOLETE, disconnected.
  const old = await TestPeer.connect(port, MAGIC);
  peers.push(old);
  old.send('version', versionPayload({ version: 170011 }));
  const ob = await old.waitFor('reject');
  assert.equal(ob.payload[8], 0x11);
  assert.match(ob.payload.toString('latin1'), /Version must be 170012 or greater/);
  assert.ok(await old.waitClosed());

  // A message before version: misbehaviour 1, dropped.
  const early = await TestPeer.connect(port, MAGIC);
  peers.push(early);
  early.send('ping', randomBytes(8));
  early.send('version', versionPayload());
  await early.waitFor('verack');
  early.send('verack');
  await early.ping();
  await until('early peer scored 1', async () => (await info()).some((p) => p.banscore === 1));

  // The node survived and still serves the well-behaved peer.
  await good.ping();
  assert.equal(good.closed, false);
  assert.equal(typeof (await d.rpc<number>('getconnectioncount')), 'number');
  void invPayload;
});

test('setban/listbanned/clearbanned, disconnectnode, addnode and their komodod errors', { timeout: 120_000 }, async (t) => {
  const { d, port, peers } = await p2pDaemon(t, ['-gen=0']);
  const p = await TestPeer.handshake(port, MAGIC);
  peers.push(p);
  await until('peer listed', async () => (await d!.rpc<unknown[]>('getpeerinfo')).length === 1);
  const [row] = await d.rpc<Record<string, unknown>[]>('getpeerinfo');
  assert.deepEqual(Object.keys(row!), [
    'id', 'addr', 'addrlocal', 'services', 'lastsend', 'lastrecv', 'bytessent', 'bytesrecv', 'conntime', 'timeoffset',
    'pingtime', ...(row!.pingwait !== undefined ? ['pingwait'] : []), 'version', 'subver', 'inbound', 'startingheight', 'banscore',
    'synced_headers', 'synced_blocks', 'inflight', 'addr_processed', 'addr_rate_limited', 'whitelisted',
  ]);
  assert.equal(row!.services, '0000000000000001');
  assert.equal(row!.inbound, true);

  // Errors as rpc/net.cpp raises them.
  await assert.rejects(d.rpc('disconnectnode', '10.9.9.9:1'), { code: -29, message: 'Node not found in connected nodes' });
  await assert.rejects(d.rpc('addnode', '10.9.9.9:1', 'remove'), { code: -24, message: 'Error: Node has not been added.' });
  assert.equal(await d.rpc('addnode', '127.0.0.1:1', 'add'), null);
  await assert.rejects(d.rpc('addnode', '127.0.0.1:1', 'add'), { code: -23, message: 'Error: Node already added' });
  assert.equal(await d.rpc('addnode', '127.0.0.1:1', 'remove'), null);
  await assert.rejects(d.rpc('addnode', '127.0.0.1:1', 'bogus'), (e: Error & { code: number }) => e.code === -1 && /^addnode "node" "add\|remove\|onetry"\n/.test(e.message));
  await assert.rejects(d.rpc('setban', 'nonsense', 'add'), { code: -23, message: 'Error: Invalid IP/Subnet' });
  await assert.rejects(d.rpc('setban', '10.0.0.1', 'remove'), { code: -1, message: 'Error: Unban failed' });
  assert.equal(await d.rpc('ping'), null);

  // setban on 127.0.0.1 drops the connected peer and refuses new ones until removed.
  assert.equal(await d.rpc('setban', '127.0.0.1', 'add', 3600), null);
  await assert.rejects(d.rpc('setban', '127.0.0.1', 'add'), { code: -23, message: 'Error: IP/Subnet already banned' });
  assert.ok(await p.waitClosed(), 'the banned address is disconnected');
  const listed = await d.rpc<{ address: string; banned_until: number }[]>('listbanned');
  assert.equal(listed.length, 1);
  assert.equal(listed[0]!.address, '127.0.0.1/255.255.255.255');
  assert.ok(Math.abs(listed[0]!.banned_until - (Math.floor(Date.now() / 1000) + 3600)) < 30);
  const refused = await TestPeer.connect(port, MAGIC);
  peers.push(refused);
  assert.ok(await refused.waitClosed(), 'a banned address cannot connect');
  assert.equal(await d.rpc('setban', '10.0.0.0/8', 'add', 2_000_000_000, true), null);
  assert.deepEqual(
    (await d.rpc<{ address: string; banned_until: number }[]>('listbanned')).map((r) => [r.address, r.address.startsWith('10.') ? r.banned_until : 0]),
    [
      ['10.0.0.0/255.0.0.0', 2_000_000_000],
      ['127.0.0.1/255.255.255.255', 0],
    ],
  );
  assert.equal(await d.rpc('setban', '127.0.0.1', 'remove'), null);
  const again = await TestPeer.handshake(port, MAGIC);
  peers.push(again);
  assert.equal(await d.rpc('clearbanned'), null);
  assert.deepEqual(await d.rpc('listbanned'), []);

  // disconnectnode by the address getpeerinfo shows.
  await until('peer back', async () => (await d!.rpc<unknown[]>('getpeerinfo')).length === 1);
  const [back] = await d.rpc<{ addr: string }[]>('getpeerinfo');
  assert.equal(await d.rpc('disconnectnode', back!.addr), null);
  assert.ok(await again.waitClosed());
  const net = await d.rpc<Record<string, unknown>>('getnetworkinfo');
  assert.deepEqual(Object.keys(net), ['version', 'subversion', 'protocolversion', 'localservices', 'timeoffset', 'connections', 'networks', 'relayfee', 'localaddresses', 'warnings']);
  assert.equal(net.protocolversion, 170013);
  const raw = await d.rpcRaw('getnetworkinfo');
  assert.match(raw.raw, /"relayfee":0\.00000100/);
});

test('relayed transactions are ignored in initial block download; afterwards an invalid one is rejected and scored', { timeout: 120_000 }, async (t) => {
  const { d, port, peers } = await p2pDaemon(t, ['-gen=0']);
  // A v1 transaction with no inputs (§3.3 layout): CheckTransaction's bad-txns-vin-empty.
  const tx = Buffer.concat([Buffer.from('01000000', 'hex'), Buffer.from([0]), Buffer.from([1]), Buffer.from('00e1f50500000000', 'hex'), Buffer.from([1, 0x51]), Buffer.alloc(4)]);
  const p = await TestPeer.handshake(port, MAGIC);
  peers.push(p);
  // A fresh chain's tip is the 2011 regtest genesis: in initial download, the tx is dropped silently.
  const from = p.received.length;
  p.send('tx', tx);
  await p.ping();
  assert.equal(p.received.slice(from).filter((m) => m.command === 'reject').length, 0);
  // Block 1 ends initial download; the same tx now gets reject INVALID and misbehaviour.
  await d.rpc('generate', 1);
  const from2 = p.received.length;
  p.send('tx', tx);
  const rej = await p.waitFor('reject', 10_000, () => true, from2);
  assert.equal(rej.payload.subarray(1, 3).toString('ascii'), 'tx');
  assert.equal(rej.payload[3], 0x10);
  assert.match(rej.payload.toString('latin1'), /bad-txns-vin-empty/);
  await p.ping();
  const [info] = await d.rpc<{ banscore: number }[]>('getpeerinfo');
  assert.equal(info!.banscore, 10);
});

test('-whitelist: a whitelisted peer is never punished (scored, not disconnected, not banned)', { timeout: 120_000 }, async (t) => {
  const { d, port, peers } = await p2pDaemon(t, ['-gen=0', '-whitelist=127.0.0.1']);
  const p = await TestPeer.handshake(port, MAGIC);
  peers.push(p);
  for (let i = 0; i < 6; i++) {
    p.send('headers', brokenHeaders());
    await p.ping();
  }
  const [info] = await d.rpc<{ banscore: number; whitelisted: boolean }[]>('getpeerinfo');
  assert.equal(info!.whitelisted, true);
  assert.equal(info!.banscore, 120);
  assert.equal(p.closed, false);
  await d.logged(/not punishing whitelisted peer/);
  assert.deepEqual(await d.rpc('listbanned'), []);
});

test('random payloads under every command after a handshake: the node survives and keeps serving', { timeout: 120_000 }, async (t) => {
  const { d, port, peers } = await p2pDaemon(t, ['-gen=0']);
  await d.rpc('generate', 2);
  const good = await TestPeer.handshake(port, MAGIC);
  peers.push(good);
  const commands = ['version', 'verack', 'ping', 'pong', 'inv', 'getdata', 'notfound', 'getheaders', 'getblocks', 'headers', 'block', 'tx', 'mempool', 'getaddr', 'addr', 'reject', 'alert', 'filterload'];
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed);
  for (let round = 0; round < 3; round++) {
    const p = await TestPeer.handshake(port, MAGIC);
    peers.push(p);
    for (const cmd of commands) {
      for (let i = 0; i < 4; i++) {
        const len = rnd() % 300;
        const payload = Buffer.from(Array.from({ length: len }, () => rnd() & 0xff));
        // Small counts sometimes, so decoders get past the first byte.
        if (len > 0 && i % 2 === 0) payload[0] = rnd() % 4;
        p.send(cmd, payload);
      }
    }
    if (!p.closed) await p.ping().catch(() => {});
  }
  await good.ping();
  assert.equal(good.closed, false);
  assert.equal(typeof (await d.rpc<number>('getconnectioncount')), 'number');
  assert.ok((await d.rpc<string[]>('generate', 1)).length === 1, 'the node still mines');
});
