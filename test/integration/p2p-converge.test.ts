import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, removeDir, type Daemon } from '../helpers/daemon.js';
import { toHex } from '../../src/chain/encoding/hex.js';
import { devChainParams } from '../../src/chain/params/chain-params.js';
import { blockOf, chainOf, mempoolOf, p2pPort, until } from './p2p-testpeer.js';
import { PUB, spendCoinbase, submitTx } from './p2p-helpers.js';

/**
 * Two daemons share block 1, part, mine apart (the first with a transaction in its block, the second
 * more blocks), then connect with `addnode onetry`: both end on the chain with most work, and the
 * loser's transaction returns to its mempool (and is relayed to the winner's).
 */

const MAGIC = Buffer.from(devChainParams().messageStart);

test('two nodes mining apart converge on most work; the loser\'s tx returns to the mempool', { timeout: 120_000 }, async (t) => {
  const nodes: Daemon[] = [];
  t.after(async () => {
    for (const d of nodes) await d.stop().catch(() => {});
    for (const d of nodes) removeDir(d.datadir);
  });
  const x = await startDaemon(['-gen=0', `-pubkey=${toHex(PUB)}`]);
  nodes.push(x);
  const y = await startDaemon(['-gen=0']);
  nodes.push(y);
  const px = p2pPort(x.log);
  const py = p2pPort(y.log);
  const tip = async (port: number) => (await chainOf(port, MAGIC)).at(-1);

  // Shared history: block 1 (the premine to the test key) reaches Y, then they part.
  const [h1] = await x.rpc<string[]>('generate', 1);
  assert.equal(await y.rpc('addnode', `127.0.0.1:${px}`, 'onetry'), null);
  await until('Y has block 1', async () => (await tip(py)) === h1);
  await y.rpc('disconnectnode', `127.0.0.1:${px}`);
  await until('parted', async () => (await x.rpc<number>('getconnectioncount')) === 0 && (await y.rpc<number>('getconnectioncount')) === 0);

  // X: a transaction mined in its block 2. Y: three blocks (more work).
  const { raw, txid } = spendCoinbase(await blockOf(px, MAGIC, h1!), 2);
  await submitTx(x, raw);
  await until('tx in X\'s mempool', async () => (await mempoolOf(px, MAGIC)).includes(txid));
  const [x2] = await x.rpc<string[]>('generate', 1);
  assert.deepEqual(await mempoolOf(px, MAGIC), []);
  const ys = await y.rpc<string[]>('generate', 3);
  assert.deepEqual(await chainOf(px, MAGIC), [h1, x2]);

  // Connected again: both follow Y's chain (most work); X's tx is back in its mempool and relayed to Y.
  assert.equal(await x.rpc('addnode', `127.0.0.1:${py}`, 'onetry'), null);
  await until('X reorganised to Y\'s chain', async () => (await tip(px)) === ys[2]);
  assert.deepEqual(await chainOf(px, MAGIC), [h1, ...ys]);
  assert.deepEqual(await chainOf(py, MAGIC), [h1, ...ys]);
  await until('X\'s tx back in its mempool', async () => (await mempoolOf(px, MAGIC)).includes(txid));
  await until('and relayed to Y', async () => (await mempoolOf(py, MAGIC)).includes(txid));
});
