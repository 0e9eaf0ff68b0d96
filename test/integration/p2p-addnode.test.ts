import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, removeDir, type Daemon } from '../helpers/daemon.js';
import { p2pPort, until } from './p2p-testpeer.js';

/**
 * komodo's qa test_addnode/test_disconnectnode sequence: `addnode onetry` to a node already connected
 * under that name opens no second connection (OpenNetworkConnection's FindNode(pszDest)), so after
 * `addnode remove` and `disconnectnode` the node is gone from getpeerinfo and stays gone.
 */
test('addnode onetry to a connected node adds no connection; remove + disconnectnode leave it disconnected', { timeout: 120_000 }, async (t) => {
  const nodes: Daemon[] = [];
  t.after(async () => {
    for (const d of nodes) await d.stop().catch(() => {});
    for (const d of nodes) removeDir(d.datadir);
  });
  const x = await startDaemon(['-gen=0']);
  nodes.push(x);
  const node = `127.0.0.1:${p2pPort(x.log)}`;
  const y = await startDaemon(['-gen=0', `-addnode=${node}`]);
  nodes.push(y);
  const toX = async () => (await y.rpc<{ addr: string }[]>('getpeerinfo')).filter((p) => p.addr === node).length;
  await until('Y connected to X', async () => (await toX()) === 1);

  assert.equal(await y.rpc('addnode', node, 'remove'), null);
  assert.equal(await y.rpc('addnode', node, 'onetry'), null);
  assert.equal(await y.rpc('addnode', node, 'add'), null);
  // Give a second dial the time it would take on loopback.
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(await toX(), 1, 'one connection to X, not two');

  assert.equal(await y.rpc('addnode', node, 'remove'), null);
  assert.equal(await y.rpc('disconnectnode', node), null);
  await until('Y disconnected from X', async () => (await toX()) === 0);
  // The -addnode retry (every 15 s) would have dialled it again had it stayed in the list.
  await new Promise((r) => setTimeout(r, 16_000));
  assert.equal(await toX(), 0);
});
