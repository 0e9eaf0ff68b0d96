import { test } from 'node:test';
import assert from 'node:assert/strict';
import { REGTEST_GENESIS, TestPeer, blockOf, compactSize, displayHex, invPayload, parseInv } from './p2p-testpeer.js';
import { MAGIC, PUB, p2pDaemon, spendCoinbase } from './p2p-helpers.js';
import { waitUntil } from '../helpers/wait.js';
import { toHex } from '../../src/chain/encoding/hex.js';

/**
 * What a node serves a peer (main.cpp ProcessMessage): getblocks → inv of the blocks after the
 * locator (≤ 500, hashStop excluded); getdata of an unknown tx → notfound; addr is remembered and
 * getaddr answered once, on inbound connections only; an addr of more than 1000 entries scores 20.
 */

function addrEntry(a: number, port: number): Buffer {
  const b = Buffer.alloc(30);
  b.writeUInt32LE(Math.floor(Date.now() / 1000), 0);
  b.writeBigUInt64LE(1n, 4);
  b[22] = 0xff;
  b[23] = 0xff;
  b.set([10, 0, 0, a], 24);
  b.writeUInt16BE(port, 28);
  return b;
}

test('getblocks, notfound, addr/getaddr', { timeout: 120_000 }, async (t) => {
  const { d, port, peers } = await p2pDaemon(t, ['-gen=0']);
  const mined = await d.rpc<string[]>('generate', 4);
  const p = await TestPeer.handshake(port, MAGIC);
  peers.push(p);

  // getblocks from genesis, stopping before mined[3]: inv of blocks 1..3.
  let from = p.received.length;
  p.send('getblocks', Buffer.concat([Buffer.from('1d980200', 'hex'), compactSize(1), Buffer.from(REGTEST_GENESIS, 'hex').reverse(), Buffer.from(mined[3]!, 'hex').reverse()]));
  const inv = await p.waitFor('inv', 30_000, () => true, from);
  assert.deepEqual(parseInv(inv.payload).map((i) => [i.type, displayHex(i.hash)]), mined.slice(0, 3).map((h) => [2, h]));

  // getdata for a tx nobody has: notfound with the same entry.
  from = p.received.length;
  const missing = Buffer.alloc(32, 0x42);
  p.send('getdata', invPayload([{ type: 1, hash: missing }]));
  const nf = await p.waitFor('notfound', 30_000, () => true, from);
  assert.deepEqual(parseInv(nf.payload), [{ type: 1, hash: missing }]);

  // addr then getaddr (inbound): the address comes back, once per connection.
  p.send('addr', Buffer.concat([compactSize(1), addrEntry(7, 7777)]));
  from = p.received.length;
  p.send('getaddr');
  const addr = await p.waitFor('addr', 30_000, () => true, from);
  assert.equal(addr.payload[0], 1);
  assert.deepEqual([...addr.payload.subarray(25, 29)], [10, 0, 0, 7]);
  assert.equal(addr.payload.readUInt16BE(29), 7777);
  from = p.received.length;
  p.send('getaddr');
  await p.ping();
  assert.equal(p.received.slice(from).filter((m) => m.command === 'addr').length, 0, 'getaddr is answered once');

  // An addr message of 1001 entries: misbehaviour 20.
  p.send('addr', Buffer.concat([compactSize(1001), ...Array.from({ length: 1001 }, (_, i) => addrEntry(i & 0xff, 1000 + i))]));
  await p.ping();
  const [info] = await d.rpc<{ banscore: number; addr_processed: number }[]>('getpeerinfo');
  assert.equal(info!.banscore, 20);
  assert.equal(info!.addr_processed, 1);
});

test('a tx relayed while no peer was connected is served by getdata to a peer that connects later, after it was mined (mapRelay)', { timeout: 120_000 }, async (t) => {
  // The premine pays the test key.
  const { d, port, peers } = await p2pDaemon(t, ['-gen=0', `-pubkey=${toHex(PUB)}`]);
  const [h1] = await d.rpc<string[]>('generate', 1);
  const { raw, txid } = spendCoinbase(await blockOf(port, MAGIC, h1!), 2);
  await waitUntil('no peer connected', async () => (await d.rpc<number>('getconnectioncount')) === 0);
  assert.equal(await d.rpc('sendrawtransaction', toHex(raw)), txid);
  await d.rpc('generate', 1);
  assert.deepEqual(await d.rpc('getrawmempool'), [], 'mined: only the relay memory has it now');
  // komodod's RelayTransaction keeps it in mapRelay 15 minutes with no peer too; ProcessGetData serves from it.
  const p = await TestPeer.handshake(port, MAGIC);
  peers.push(p);
  const from = p.received.length;
  p.send('getdata', invPayload([{ type: 1, hash: Buffer.from(txid, 'hex').reverse() }]));
  const tx = await p.waitFor('tx', 30_000, () => true, from);
  assert.equal(toHex(tx.payload), toHex(raw));
});
