import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, removeDir, type Daemon, rpcError } from '../helpers/daemon.js';
import { p2pPort, until } from './p2p-testpeer.js';

/** getnettotals, getaddednodeinfo and getdeprecationinfo over HTTP, on two connected daemons. */

type Totals = { totalbytesrecv: number; totalbytessent: number; timemillis: number };
type Peer = { addr: string; inbound: boolean; bytessent: number; bytesrecv: number };

test('getnettotals and getaddednodeinfo follow the connections; getdeprecationinfo is main-net only', { timeout: 180_000 }, async (t) => {
  const ds: Daemon[] = [];
  t.after(async () => {
    for (const d of ds) await d.stop();
    for (const d of ds) removeDir(d.datadir);
  });
  const a = await startDaemon(['-gen=0']);
  ds.push(a);
  const before = await a.rpc<Totals>('getnettotals');
  assert.deepEqual(Object.keys(before), ['totalbytesrecv', 'totalbytessent', 'timemillis']);
  assert.equal(before.totalbytesrecv, 0);
  assert.equal(before.totalbytessent, 0);
  assert.ok(Math.abs(before.timemillis - Date.now()) < 60_000);
  assert.deepEqual(await a.rpc('getaddednodeinfo', true), []);
  assert.deepEqual(await a.rpc('getaddednodeinfo', false), []);

  const pa = p2pPort(a.log);
  const target = `127.0.0.1:${pa}`;
  const b = await startDaemon(['-gen=0', `-addnode=${target}`]);
  ds.push(b);
  await until('a and b connected', async () => (await b.rpc<Peer[]>('getpeerinfo')).length === 1 && (await a.rpc<Peer[]>('getpeerinfo')).length === 1, 30_000);
  await a.rpc('generate', 1);
  await until('b has block 1', async () => (await b.rpc<number>('getblockcount')) === 1, 30_000);

  // The totals are at least what the live peer counted (the version/verack/block exchange).
  const peerA = (await a.rpc<Peer[]>('getpeerinfo'))[0]!;
  const totalsA = await a.rpc<Totals>('getnettotals');
  assert.ok(totalsA.totalbytessent >= peerA.bytessent && peerA.bytessent > 0, JSON.stringify([totalsA, peerA]));
  assert.ok(totalsA.totalbytesrecv >= peerA.bytesrecv && peerA.bytesrecv > 0);

  // b's -addnode entry: connected outbound; with dns=false only the name.
  assert.deepEqual(await b.rpc('getaddednodeinfo', false), [{ addednode: target }]);
  const info = await b.rpc<unknown[]>('getaddednodeinfo', true);
  assert.deepEqual(info, [{ addednode: target, connected: true, addresses: [{ address: target, connected: 'outbound' }] }]);
  assert.deepEqual(Object.keys(info[0] as object), ['addednode', 'connected', 'addresses']);
  assert.deepEqual(await b.rpc('getaddednodeinfo', true, target), info);
  assert.deepEqual(await rpcError(b.rpc('getaddednodeinfo', true, '127.0.0.1:1')), { code: -24, message: 'Error: Node has not been added.' });
  assert.deepEqual(await rpcError(b.rpc('getaddednodeinfo', 'yes')), { code: -1, message: 'JSON value is not a boolean as expected' });
  assert.equal((await rpcError(b.rpc('getaddednodeinfo'))).message.split('\n')[0], 'getaddednodeinfo dns ( "node" )');
  // An added node nobody is connected to: listed, its address "false".
  await b.rpc('addnode', '127.0.0.1:1', 'add');
  assert.deepEqual(await b.rpc('getaddednodeinfo', true, '127.0.0.1:1'), [
    { addednode: '127.0.0.1:1', connected: false, addresses: [{ address: '127.0.0.1:1', connected: 'false' }] },
  ]);

  // The bytes of a peer that disconnects stay in the totals.
  const beforeGone = await b.rpc<Totals>('getnettotals');
  await b.rpc('addnode', target, 'remove');
  await b.rpc('disconnectnode', target);
  await until('b disconnected', async () => (await b.rpc<Peer[]>('getpeerinfo')).length === 0, 30_000);
  const afterGone = await b.rpc<Totals>('getnettotals');
  assert.ok(afterGone.totalbytessent >= beforeGone.totalbytessent && afterGone.totalbytesrecv >= beforeGone.totalbytesrecv, JSON.stringify([beforeGone, afterGone]));
  assert.ok(afterGone.totalbytesrecv > 0);

  // getdeprecationinfo: the dev chain is regtest, where komodod answers with its help text.
  const dep = await rpcError(a.rpc('getdeprecationinfo'));
  assert.equal(dep.code, -1);
  assert.equal(dep.message.split('\n')[0], 'getdeprecationinfo');
});

test('getdeprecationinfo on a main-net asset chain: version, subversion, deprecationheight', { timeout: 120_000 }, async (t) => {
  let m: Daemon | undefined;
  t.after(async () => {
    await m?.stop();
    if (m) removeDir(m.datadir);
  });
  m = await startDaemon(['-ac_name=UTILDEP', '-ac_supply=1000', '-gen=0']);
  const info = await m.rpc<Record<string, unknown>>('getdeprecationinfo');
  const net = await m.rpc<Record<string, unknown>>('getnetworkinfo');
  assert.deepEqual(info, { version: net.version, subversion: net.subversion, deprecationheight: 4820333 });
  assert.deepEqual(Object.keys(info), ['version', 'subversion', 'deprecationheight']);
  assert.equal((await rpcError(m.rpc('getdeprecationinfo', 1))).message.split('\n')[0], 'getdeprecationinfo');
});
