import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { loadConfig } from '../../src/node/config.js';
import { startNode } from '../../src/node/node.js';
import { assembleBlock, solveBlock } from '../../src/chain/block/assemble.js';
import { Block } from '../../src/chain/block/block.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import type { ChainParams } from '../../src/chain/params/chain-params.js';
import { RECEIVE_FLOOD_SIZE, type Peer } from '../../src/actors/p2p/peer.js';
import { removeDir } from '../helpers/daemon.js';
import { TestPeer, compactSize } from '../integration/p2p-testpeer.js';
import { waitUntil } from '../helpers/wait.js';

/**
 * What one peer's message can make the node hold.
 *
 * An inv: komodod reads up to MAX_INV_SZ (50,000) entries and asks for each new transaction (AskFor,
 * net.cpp:2165-2197): per peer at most SETASKFOR_MAX_SZ (2 × MAX_INV_SZ) hashes wait for an answer,
 * and an announcement beyond that is dropped silently. Five raw-socket peers each announce 100,000
 * random transaction hashes (1.8 MB invs, ten of them): the node asks every peer for all of them,
 * holds no more than komodod's bounds, and its heap (after a full collection, off-heap buffers
 * included) grows by less than 20 MB. A peer's pending asks go with it when it disconnects.
 *
 * A block of 10,000 bogus transactions: one failing ContextualCheckBlock is refused before it is
 * stored (komodod's AcceptBlock), one whose transactions spend nothing is stored and fails to connect;
 * neither leaves its 10,000 parsed transactions behind.
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

/** A node in this process with block 1 mined (it ends initial block download), and the raw peers of the test. */
async function inProcessNode(t: TestContext) {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-p2pmem-'));
  const config = loadConfig([`-datadir=${dir}`, '-regtest', '-ac_name=P2PMEM', '-ac_supply=1000', '-ac_sapling=1', '-rpcport=0', '-port=0', '-gen=0']);
  const node = await startNode(config, { log: () => {} });
  const peers: TestPeer[] = [];
  t.after(async () => {
    for (const p of peers) p.close();
    await node.stop();
    removeDir(dir);
  });
  await node.services.miner.ask({ op: 'generate', n: 1 }, 60_000);
  const { port } = await node.services.p2p.ask({ op: 'local' });
  const magic = Buffer.from(config.chain.messageStart);
  const connect = async () => {
    const p = await TestPeer.handshake(port, magic, 1);
    peers.push(p);
    return p;
  };
  return { node, peers, connect, params: config.chain };
}

test('ten 50,000-entry tx invs from five peers: komodod’s AskFor bounds, less than 20 MB of heap, freed on disconnect', { timeout: 180_000 }, async (t) => {
  const { node, connect } = await inProcessNode(t);
  const logic = (node.services.actors!.get('p2p')!.getSnapshot() as { context: { logic: AskState } }).context.logic;

  const five: TestPeer[] = [];
  for (let i = 0; i < 5; i++) five.push(await connect());
  // A warm-up round on a sixth peer, so code compiled on first use is in the baseline.
  const warm = await connect();
  warm.send('inv', randomTxInv(1000));
  await warm.ping(30_000);
  assert.equal(takeGetdataCount(warm), 1000);
  warm.close();
  for (const p of five) {
    await p.ping();
    takeGetdataCount(p);
  }
  const before = settledMemory();

  // Two invs per peer, all five peers at once: 500,000 announcements in 18 MB of messages.
  const invs = five.map(() => [randomTxInv(INV_SZ), randomTxInv(INV_SZ)]);
  for (let round = 0; round < 2; round++) for (let i = 0; i < five.length; i++) five[i]!.send('inv', invs[i]![round]!);
  invs.length = 0;
  await Promise.all(five.map((p) => p.ping(120_000)));
  // Every announcement is new, so every one is asked for: SETASKFOR_MAX_SZ holds both invs.
  for (const p of five) assert.equal(takeGetdataCount(p), 2 * INV_SZ);
  const grown = settledMemory() - before;
  assert.ok(grown < 20 * MB, `the heap grew by ${(grown / MB).toFixed(1)} MB`);

  const s = logic.summary();
  assert.equal(s.askFor, 5 * 2 * INV_SZ, 'each peer has 100,000 asks waiting');
  // mapAlreadyAskedFor is a limitedmap(MAX_INV_SZ) that evicts once it reaches the limit: 49,999 stay.
  assert.equal(s.alreadyAsked, INV_SZ - 1);

  // The set is full at SETASKFOR_MAX_SZ: AskFor takes one more (its check is `size() > max`), then
  // drops the rest of a third inv without asking.
  five[0]!.send('inv', randomTxInv(INV_SZ));
  await five[0]!.ping(60_000);
  assert.equal(takeGetdataCount(five[0]!), 1);

  // Disconnected peers take their pending asks with them.
  for (const p of five) p.close();
  const deadline = Date.now() + 20_000;
  while (logic.summary().peers > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.equal(logic.summary().peers, 0);
  assert.equal(logic.summary().askFor, 0);
  const after = settledMemory() - before;
  assert.ok(after < 10 * MB, `after the peers left the heap is ${(after / MB).toFixed(1)} MB above the start`);
});

/** A v1 transaction spending a random outpoint (a Sprout-era layout: refused at a Sapling height). */
function bogusV1Tx(): Transaction {
  return Transaction.fromRaw(
    Buffer.concat([Buffer.from('01000000', 'hex'), Buffer.from([1]), randomBytes(36), Buffer.from([0]), Buffer.from('ffffffff', 'hex'), Buffer.from([1]), Buffer.from('e803000000000000', 'hex'), Buffer.from([1, 0x51]), Buffer.alloc(4)]),
  );
}

/** A well-formed transaction of the height's format spending a random outpoint (an input that does not exist). */
function bogusTx(params: ChainParams, height: number): Transaction {
  const tx = Transaction.ofFormat(params.txFormat(height), 0);
  tx.vin.push(new TxIn(new Outpoint(randomBytes(32), 0), new Uint8Array(0), 0xffffffff));
  tx.vout.push(new TxOut(1000n, Uint8Array.of(0x51)));
  return tx;
}

test('a block of 10,000 bogus transactions, refused before it is stored or failing to connect, leaves no parsed transactions behind', { timeout: 180_000 }, async (t) => {
  const { node, connect, params } = await inProcessNode(t);
  const tpl = await node.services.chainStore.ask({ op: 'template' });
  const height = tpl.height + 1;
  const blockOf = (txs: Transaction[]): Buffer => {
    const { block } = assembleBlock({ prevHash: tpl.hash, height, bits: tpl.nextBits, mtp: tpl.mtp, params, txs: [], payTo: node.services.minerPubkey, now: Math.floor(Date.now() / 1000) });
    block.txs.push(...txs);
    block.updateMerkleRoot();
    assert.ok(solveBlock(block, params));
    return Buffer.from(block.toRaw());
  };
  /** Sends a block from a fresh peer (each is scored 100 and dropped) and returns the reason of the node's reject. */
  const send = async (raw: Buffer): Promise<string> => {
    const p = await connect();
    p.send('block', raw);
    const rej = await p.waitFor('reject', 60_000);
    const reasonLen = rej.payload[1 + rej.payload[0]! + 1]!;
    const at = 1 + rej.payload[0]! + 2;
    p.close();
    return rej.payload.subarray(at, at + reasonLen).toString('latin1');
  };
  // Warm-up: the same paths with a small block, so code compiled on first use is in the baseline.
  assert.equal(await send(blockOf(Array.from({ length: 100 }, () => bogusV1Tx()))), 'tx-overwinter-active');
  const before = settledMemory();

  // v1 transactions at a Sapling height: ContextualCheckBlock refuses the block before it is stored.
  const refused = blockOf(Array.from({ length: 10_000 }, () => bogusV1Tx()));
  assert.ok(refused.length > 500_000);
  assert.equal(await send(refused), 'tx-overwinter-active');
  // Well-formed transactions spending outputs that do not exist: stored, then refused at connect.
  const failing = blockOf(Array.from({ length: 10_000 }, () => bogusTx(params, height)));
  assert.equal(await send(failing), 'bad-txns-inputs-missingorspent');

  const grown = settledMemory() - before;
  // The stored block's bytes and txids stay (every stored block is held in memory); no more.
  assert.ok(grown < 6 * MB, `the heap grew by ${(grown / MB).toFixed(1)} MB`);
  const tip = await node.services.chainStore.ask({ op: 'tip' });
  assert.equal(tip.height, 1, 'neither block is on the chain');
  const [r, f] = await node.services.chainStore.ask({ op: 'known', hashes: [Block.headerOf(refused).hashHex(), Block.headerOf(failing).hashHex()] });
  assert.equal(r, null, 'the refused block is not stored');
  assert.equal(f?.failed, true, 'the other one is stored and marked failed');
});

test('a peer whose messages wait (the node blocked on its getdata) has at most ReceiveFloodSize of them held, not 64 messages', { timeout: 120_000 }, async (t) => {
  const { node, connect } = await inProcessNode(t);
  const logic = (node.services.actors!.get('p2p')!.getSnapshot() as { context: { logic: { peers: Map<number, Peer> } } }).context.logic;
  const tip = await node.services.chainStore.ask({ op: 'tip' });
  const p = await connect();
  await p.ping();
  const mine = [...logic.peers.values()].at(-1)!;
  // The peer stops reading and asks for the tip block 50,000 times (15 MB of answers): the node stops
  // handling its messages while a send buffer's worth waits unread (ProcessGetData, main.cpp:8256-8260).
  p.socket.pause();
  const n = 50_000;
  p.send('getdata', Buffer.concat([compactSize(n), ...Array.from({ length: n }, () => Buffer.concat([Buffer.from('02000000', 'hex'), Buffer.from(tip.hash, 'hex').reverse()]))]));
  await new Promise((r) => setTimeout(r, 1000));
  // Meanwhile it sends 30 messages of 1 MB (pings whose first 8 bytes are the nonce).
  const pings = Array.from({ length: 30 }, (_, i) => {
    const b = Buffer.alloc(1_000_000);
    b.writeUInt32LE(i + 1, 0);
    return b;
  });
  for (const b of pings) p.send('ping', b);
  // The node reads up to its limit (however long that takes here), then no further.
  await waitUntil('the node read up to its limit', () => mine.receivedPending >= RECEIVE_FLOOD_SIZE - 1_000_024);
  await new Promise((r) => setTimeout(r, 2000));
  assert.ok(mine.receivedPending <= RECEIVE_FLOOD_SIZE + 1_000_024 + 65_536, `${mine.receivedPending} bytes held unhandled`);
  assert.ok(mine.receivedPending >= RECEIVE_FLOOD_SIZE - 1_000_024, 'the node read up to its limit');

  // Once the peer reads again, everything is answered, in order.
  p.socket.resume();
  const count = (cmd: string) => p.received.filter((m) => m.command === cmd).length;
  const deadline = Date.now() + 60_000;
  while ((count('block') < n || count('pong') < 31) && !p.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  assert.equal(count('block'), n);
  const pongs = p.received.filter((m) => m.command === 'pong').slice(1);
  assert.deepEqual(
    pongs.map((m) => m.payload.readUInt32LE(0)),
    pings.map((_, i) => i + 1),
  );
});
