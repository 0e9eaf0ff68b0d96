import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { loadConfig } from '../../src/actors/config.js';
import { startNode } from '../../src/actors/node.js';
import { removeDir } from '../helpers/daemon.js';
import { TestPeer, compactSize } from '../integration/p2p-testpeer.js';

/**
 * What one peer's inv can make the node hold. komodod reads an inv of up to MAX_INV_SZ (50,000)
 * entries and asks for each new transaction (AskFor, net.cpp:2165-2197): per peer at most
 * SETASKFOR_MAX_SZ (2 × MAX_INV_SZ) hashes are waiting for an answer, and an announcement beyond that
 * is dropped silently. Five raw-socket peers each announce 100,000 random transaction hashes (1.8 MB
 * invs, ten of them): the node asks every peer for all of them, holds no more than komodod's bounds,
 * and its heap (after a full collection, off-heap buffers included) grows by less than 20 MB. A
 * peer's pending asks go with it when it disconnects.
 *
 * The node runs in this process so its heap can be measured after a forced collection; its peers
 * still talk to it over loopback sockets.
 */

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const MSG_TX = 1;
const INV_SZ = 50_000;
const MB = 1024 * 1024;

/** An inv of n random MSG_TX hashes, laid out per reference/p2p-blocks.md (count, then {u32 type, 32 bytes}). */
function randomTxInv(n: number): Buffer {
  const body = randomBytes(n * 36);
  for (let i = 0; i < n; i++) body.writeUInt32LE(MSG_TX, i * 36);
  return Buffer.concat([compactSize(n), body]);
}

/** How many entries the getdata messages a peer received ask for; the messages are then dropped. */
function takeGetdataCount(p: TestPeer): number {
  let n = 0;
  for (const m of p.received) {
    if (m.command !== 'getdata') continue;
    const b = m.payload;
    n += b[0]! < 0xfd ? b[0]! : b[0] === 0xfd ? b.readUInt16LE(1) : b.readUInt32LE(1);
  }
  p.received.length = 0;
  return n;
}

/** The heap after full collections, with the buffers V8 keeps outside it (typed arrays, socket data). */
function settledMemory(): number {
  for (let i = 0; i < 3; i++) gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

interface AskState {
  summary(): { askFor: number; alreadyAsked: number; peers: number };
}

test('ten 50,000-entry tx invs from five peers: komodod’s AskFor bounds, less than 20 MB of heap, freed on disconnect', { timeout: 180_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-invmem-'));
  const config = loadConfig([`-datadir=${dir}`, '-regtest', '-ac_name=INVMEM', '-ac_supply=1000', '-ac_sapling=1', '-rpcport=0', '-port=0', '-gen=0']);
  const MAGIC = Buffer.from(config.chain.messageStart);
  const node = await startNode(config, { log: () => {} });
  const peers: TestPeer[] = [];
  t.after(async () => {
    for (const p of peers) p.close();
    await node.stop();
    removeDir(dir);
  });
  // Block 1 ends initial block download (a fresh chain's tip is the 2011 genesis): invs of
  // transactions are acted on only after it.
  await node.services.miner.ask({ op: 'generate', n: 1 }, 60_000);
  const { port } = await node.services.p2p.ask<{ port: number }>({ op: 'local' });
  const logic = (node.services.actors!.get('p2p')!.getSnapshot() as { context: { logic: AskState } }).context.logic;

  for (let i = 0; i < 5; i++) peers.push(await TestPeer.handshake(port, MAGIC, 1));
  // A warm-up round on a sixth peer, so code compiled on first use is in the baseline.
  const warm = await TestPeer.handshake(port, MAGIC, 1);
  warm.send('inv', randomTxInv(1000));
  await warm.ping(30_000);
  assert.equal(takeGetdataCount(warm), 1000);
  warm.close();
  for (const p of peers) {
    await p.ping();
    takeGetdataCount(p);
  }
  const before = settledMemory();

  // Two invs per peer, all five peers at once: 500,000 announcements in 18 MB of messages.
  const invs = peers.map(() => [randomTxInv(INV_SZ), randomTxInv(INV_SZ)]);
  for (let round = 0; round < 2; round++) for (let i = 0; i < peers.length; i++) peers[i]!.send('inv', invs[i]![round]!);
  invs.length = 0;
  await Promise.all(peers.map((p) => p.ping(120_000)));
  // Every announcement is new, so every one is asked for: SETASKFOR_MAX_SZ holds both invs.
  for (const p of peers) assert.equal(takeGetdataCount(p), 2 * INV_SZ);
  const grown = settledMemory() - before;
  assert.ok(grown < 20 * MB, `the heap grew by ${(grown / MB).toFixed(1)} MB`);

  const s = logic.summary();
  assert.equal(s.askFor, 5 * 2 * INV_SZ, 'each peer has 100,000 asks waiting');
  // mapAlreadyAskedFor is a limitedmap(MAX_INV_SZ) that evicts once it reaches the limit: 49,999 stay.
  assert.equal(s.alreadyAsked, INV_SZ - 1);

  // The set is full at SETASKFOR_MAX_SZ: AskFor takes one more (its check is `size() > max`), then
  // drops the rest of a third inv without asking.
  peers[0]!.send('inv', randomTxInv(INV_SZ));
  await peers[0]!.ping(60_000);
  assert.equal(takeGetdataCount(peers[0]!), 1);

  // Disconnected peers take their pending asks with them.
  for (const p of peers) p.close();
  const deadline = Date.now() + 20_000;
  while (logic.summary().peers > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.equal(logic.summary().peers, 0);
  assert.equal(logic.summary().askFor, 0);
  const after = settledMemory() - before;
  assert.ok(after < 10 * MB, `after the peers left the heap is ${(after / MB).toFixed(1)} MB above the start`);
});
