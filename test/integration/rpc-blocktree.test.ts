import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, removeDir, RpcCallError, type Daemon } from '../helpers/daemon.js';

async function rpcError(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof RpcCallError) return { code: e.code, message: e.message };
    throw e;
  }
  assert.fail('expected an RPC error');
}

interface Tip {
  height: number;
  hash: string;
  branchlen: number;
  status: string;
}

const daemons: Daemon[] = [];

test('getchaintips: every head of the block tree with komodod\'s keys, order, branch lengths and statuses', { timeout: 180_000 }, async (t) => {
  t.after(async () => {
    for (const d of daemons) await d.stop();
    for (const d of daemons) removeDir(d.datadir);
  });
  const a = await startDaemon();
  daemons.push(a);
  const b = await startDaemon();
  daemons.push(b);

  const mined = await a.rpc<string[]>('generate', 3);
  let tips = await a.rpc<Tip[]>('getchaintips');
  assert.deepEqual(tips, [{ height: 3, hash: mined[2], branchlen: 0, status: 'active' }]);
  assert.deepEqual(Object.keys(tips[0]!), ['height', 'hash', 'branchlen', 'status']);

  // invalidateblock: the invalidated head stays a head, 'invalid', one block off the active chain.
  await a.rpc('invalidateblock', mined[2]);
  tips = await a.rpc<Tip[]>('getchaintips');
  assert.deepEqual(tips, [
    { height: 3, hash: mined[2], branchlen: 1, status: 'invalid' },
    { height: 2, hash: mined[1], branchlen: 0, status: 'active' },
  ]);

  // A longer branch takes over; the reconsidered block was connected once: a 'valid-fork'.
  const other = await a.rpc<string[]>('generate', 2);
  await a.rpc('reconsiderblock', mined[2]);
  tips = await a.rpc<Tip[]>('getchaintips');
  assert.deepEqual(tips, [
    { height: 4, hash: other[1], branchlen: 0, status: 'active' },
    { height: 3, hash: mined[2], branchlen: 1, status: 'valid-fork' },
  ]);

  // Blocks accepted on a branch with less work and never connected: 'valid-headers', branch from genesis.
  const theirs = await b.rpc<string[]>('generate', 2);
  for (const h of theirs) {
    const raw = await b.rpc<string>('getblock', h, 0);
    // komodod's answer for a block stored off the best chain
    assert.equal(await a.rpc('submitblock', raw), 'inconclusive');
  }
  tips = await a.rpc<Tip[]>('getchaintips');
  assert.deepEqual(tips, [
    { height: 4, hash: other[1], branchlen: 0, status: 'active' },
    { height: 3, hash: mined[2], branchlen: 1, status: 'valid-fork' },
    { height: 2, hash: theirs[1], branchlen: 2, status: 'valid-headers' },
  ]);

  // komodod takes no params: the help text as a -1 error; `help getchaintips` is komodod's text.
  const e = await rpcError(a.rpc('getchaintips', 1));
  assert.equal(e.code, -1);
  assert.ok(e.message.startsWith('getchaintips\nReturn information about all known tips in the block tree, including the main chain as well as orphaned branches.\n'));
  const help = await a.rpc<string>('help', 'getchaintips');
  assert.equal(help, e.message);
  assert.ok(help.includes('3.  "valid-headers"         All blocks are available for this branch, but they were never fully validated\n'));
  assert.ok((await a.rpc<string>('help')).includes('getchaintips\n'));
});
