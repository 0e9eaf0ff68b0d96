import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, removeDir, type Daemon } from '../helpers/daemon.js';
import { Block } from '../../src/chain/block/block.js';
import { toHex } from '../../src/chain/encoding/hex.js';
import { blockOf, chainOf, mempoolOf, p2pPort, until } from './p2p-testpeer.js';
import { MAGIC, PUB, spendCoinbase, submitTx } from './p2p-helpers.js';

/**
 * Three acnoded daemons on loopback (dev chain, -gen=0, OS-chosen ports) joined with -addnode:
 * a transaction sent to A reaches B's and C's mempools; blocks mined on B are connected on A and C;
 * C is stopped while A and B mine, and catches up when restarted. What each node holds is read over
 * the wire by a test peer written from the sheet (its mempool answer, its headers, its blocks).
 */

const tipOf = async (d: Daemon) => (await chainOf(p2pPort(d.log), MAGIC)).at(-1);

test('three daemons: tx relay to every mempool, blocks from B on A and C, C catches up after a restart', { timeout: 90_000 }, async (t) => {
  const nodes: Daemon[] = [];
  t.after(async () => {
    for (const d of nodes) await d.stop().catch(() => {});
    for (const d of nodes) removeDir(d.datadir);
  });
  const a = await startDaemon(['-gen=0', `-pubkey=${toHex(PUB)}`]);
  nodes.push(a);
  const pa = p2pPort(a.log);
  const b = await startDaemon(['-gen=0', `-addnode=127.0.0.1:${pa}`]);
  nodes.push(b);
  const pb = p2pPort(b.log);
  const cArgs = ['-gen=0', `-addnode=127.0.0.1:${pa}`, `-addnode=127.0.0.1:${pb}`];
  const c = await startDaemon(cArgs);
  nodes.push(c);
  await until('A has two peers', async () => (await a.rpc<number>('getconnectioncount')) === 2);
  await until('C has two peers', async () => (await c.rpc<number>('getconnectioncount')) === 2);
  const peers = await a.rpc<{ inbound: boolean; version: number; subver: string; services: string }[]>('getpeerinfo');
  assert.ok(peers.every((p) => p.inbound && p.version === 170013 && p.services === '0000000000000001'));

  // Block 1 (the premine to the test key) on A: every node connects it.
  const [h1] = await a.rpc<string[]>('generate', 1);
  for (const d of [b, c]) await until(`block 1 on ${d === b ? 'B' : 'C'}`, async () => (await tipOf(d)) === h1);

  // Blocks mined on B reach A and C.
  const fromB = await b.rpc<string[]>('generate', 2);
  for (const d of [a, c]) await until('B\'s blocks everywhere', async () => (await tipOf(d)) === fromB[1]);
  assert.deepEqual(await chainOf(pa, MAGIC), [h1!, ...fromB]);

  // A transaction sent to A reaches B's and C's mempools.
  const block1 = await blockOf(pa, MAGIC, h1!);
  const { raw, txid } = spendCoinbase(block1, 4);
  await submitTx(a, raw);
  for (const [name, d] of [['A', a], ['B', b], ['C', c]] as const) {
    await until(`tx in ${name}'s mempool`, async () => (await mempoolOf(p2pPort(d.log), MAGIC)).includes(txid));
  }

  // C stops; A and B mine on (A's block carries the tx); C restarts and catches up.
  await c.stop();
  nodes.splice(nodes.indexOf(c), 1);
  const fromA = await a.rpc<string[]>('generate', 1);
  await until('A\'s block on B', async () => (await tipOf(b)) === fromA[0]);
  const more = [...fromA, ...(await b.rpc<string[]>('generate', 2))];
  await until('A and B agree', async () => (await tipOf(a)) === more[2] && (await tipOf(b)) === more[2]);
  const mined = Block.fromRaw(await blockOf(pa, MAGIC, more[0]!));
  assert.ok(mined.txs.some((tx) => tx.txid() === txid), 'A mined the relayed transaction');
  await c.start();
  nodes.push(c);
  await until('C caught up', async () => (await tipOf(c)) === more[2], 30_000);
  assert.deepEqual(await chainOf(p2pPort(c.log), MAGIC), [h1!, ...fromB, ...more]);
  assert.deepEqual(await mempoolOf(p2pPort(c.log), MAGIC), [], 'the mined tx left C\'s mempool');
});
