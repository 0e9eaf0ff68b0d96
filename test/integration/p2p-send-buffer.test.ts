import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { assembleBlock, solveBlock } from '../../src/chain/block/assemble.js';
import { Block } from '../../src/chain/block/block.js';
import { fromHex, toHex } from '../../src/chain/encoding/hex.js';
import { TxOut } from '../../src/chain/tx/output.js';
import type { Daemon } from '../helpers/daemon.js';
import { TestPeer, compactSize, invPayload, until } from './p2p-testpeer.js';
import { MAGIC, PUB, p2pDaemon, params } from './p2p-helpers.js';

/**
 * A peer that stops reading cannot make the node queue its answers without bound. komodod's
 * ProcessGetData stops while SendBufferSize() (1 MB) of output waits and carries on once the peer
 * reads (main.cpp:7080-7083); its inv handler scores a peer 50 once the getheaders its block
 * announcements make pass twice that (main.cpp:7700-7703).
 */

const MSG_BLOCK = 2;

/** Mines a block of about 90 kB on the tip: a coinbase (under MAX_TX_SIZE) with 10 zero-value outputs of 9,000-byte scripts. */
async function mineBigBlock(d: Daemon): Promise<string> {
  const tipHash = await d.rpc<string>('getbestblockhash');
  const tip = Block.fromRaw(fromHex(await d.rpc<string>('getblock', tipHash, 0)));
  const height = (await d.rpc<number>('getblockcount')) + 1;
  const { block } = assembleBlock({ prevHash: tipHash, height, bits: tip.header.bits, mtp: tip.header.time, params, txs: [], payTo: PUB, now: Math.floor(Date.now() / 1000) });
  for (let i = 0; i < 10; i++) block.txs[0]!.vout.push(new TxOut(0n, new Uint8Array(9000).fill(0x6a)));
  block.updateMerkleRoot();
  assert.ok(solveBlock(block, params));
  assert.equal(await d.rpc('submitblock', toHex(block.toRaw())), null);
  return block.hashHex();
}

test('getdata for 1,000 blocks of 90 kB to a peer that stops reading: answered in full once it reads, never dropped for a full buffer', { timeout: 120_000 }, async (t) => {
  const { d, port, peers } = await p2pDaemon(t, ['-gen=0']);
  await d.rpc('generate', 1);
  const tip = await mineBigBlock(d);
  const size = (await d.rpc<string>('getblock', tip, 0)).length / 2;
  const p = await TestPeer.handshake(port, MAGIC, 1);
  peers.push(p);
  await p.ping();
  p.received.length = 0;
  // 1,000 copies of the tip: nearly three times the 32 MB after which a peer not reading is dropped.
  const n = 1000;
  assert.ok(n * size > 85 * 1024 * 1024, `${n} blocks of ${size} bytes`);
  p.socket.pause();
  p.send('getdata', invPayload(Array.from({ length: n }, () => ({ type: MSG_BLOCK, hash: Buffer.from(tip, 'hex').reverse() }))));
  // Long enough for the node to have queued everything, and for its housekeeping to notice.
  await new Promise((r) => setTimeout(r, 4000));
  assert.equal(p.closed, false);
  // What the node queued for it (bytessent counts at queueing): a send buffer's worth past what the sockets hold.
  const info = (await d.rpc<{ bytessent: number; subver: string }[]>('getpeerinfo')).find((x) => x.subver === '/testpeer:1.0/');
  assert.ok(info, 'the node keeps the peer that stopped reading');
  assert.ok(info.bytessent < 16 * 1024 * 1024, `${info.bytessent} bytes queued`);
  p.socket.resume();
  await until(`${n} blocks received`, async () => p.closed || p.received.filter((m) => m.command === 'block').length === n, 60_000);
  assert.equal(p.closed, false, 'the peer was not dropped');
  assert.ok(p.received.every((m) => m.command !== 'block' || m.payload.length === size));
  await p.ping();
});

test('an inv of 50,000 unknown blocks to a peer that stops reading: scored 50 once its getheaders pass twice the send buffer', { timeout: 120_000 }, async (t) => {
  const { d, port, peers } = await p2pDaemon(t, ['-gen=0']);
  // A longer chain makes a longer locator in each getheaders.
  await d.rpc('generate', 30);
  const p = await TestPeer.handshake(port, MAGIC, 30);
  peers.push(p);
  await p.ping();
  p.socket.pause();
  const body = randomBytes(50_000 * 36);
  for (let i = 0; i < 50_000; i++) body.writeUInt32LE(MSG_BLOCK, i * 36);
  p.send('inv', Buffer.concat([compactSize(50_000), body]));
  const info = async () => (await d.rpc<{ banscore: number; subver: string }[]>('getpeerinfo')).find((x) => x.subver === '/testpeer:1.0/');
  await until('the peer scored 50', async () => (await info())?.banscore === 50, 60_000);
  await d.logged(/Misbehaving: .* \(0 -> 50\) \(send buffer size\(\) = \d+\)/);
  p.socket.resume();
  await p.ping();
});
