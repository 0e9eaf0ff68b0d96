import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Daemon, startDaemon, removeDir } from '../helpers/daemon.js';
import { readBlockFiles } from '../helpers/blockfiles.js';
import { waitUntil } from '../helpers/wait.js';
import { Block } from '../../src/chain/block/block.js';
import { devChainParams } from '../../src/chain/params/chain-params.js';

/**
 * acnoded's flags and signals (issue 4, Daemon): ports 0 bind OS-chosen ports named in the log,
 * a malformed flag stops the start with a message naming it, komodod flags acnode does not use are
 * logged as ignored, SIGTERM and SIGINT stop cleanly with the chain flushed.
 */

const exited = (d: Daemon) => (d as unknown as { exited: Promise<number | null> }).exited;
const loadedAt = (d: Daemon) => {
  const m = d.log.map((l) => / loaded at height (\d+) \(([0-9a-f]{64})\)/.exec(l)).find((x) => x);
  return m ? { height: Number(m[1]), hash: m[2]! } : undefined;
};

test('acnoded flags: ports 0, malformed values, ignored komodod flags', async (t) => {
  const dirs: string[] = [];
  const daemons: Daemon[] = [];
  t.after(async () => {
    for (const d of daemons) await d.stop().catch(() => {});
    for (const dir of dirs) removeDir(dir);
  });
  const fresh = () => {
    const dir = mkdtempSync(join(tmpdir(), 'acnode-flags-'));
    dirs.push(dir);
    return dir;
  };

  await t.test('-rpcport=0 -port=0 bind OS-chosen ports and the log names both', async () => {
    // The harness always starts with -rpcport=0 -port=0.
    const a = await startDaemon(['-gen=0'], fresh());
    daemons.push(a);
    const b = await startDaemon(['-gen=0'], fresh());
    daemons.push(b);
    for (const d of [a, b]) {
      assert.ok(d.rpcPort > 0);
      const line = d.log.find((l) => /RPC server listening on /.test(l))!;
      assert.match(line, new RegExp(`127\\.0\\.0\\.1:${d.rpcPort}\\b.*\\(rpcport=${d.rpcPort}\\)`));
      assert.equal(await d.rpc('getgenerate').then(() => 'ok'), 'ok');
    }
    assert.notEqual(a.rpcPort, b.rpcPort, 'two nodes on ports 0 never collide');
    // The P2P listener's bound port is named too (logged before the RPC line the harness waits for).
    const p2p = [a, b].map((d) => Number(/P2P listening on \S+:(\d+) \(port=(\d+)\)/.exec(d.log.join('\n'))?.[2] ?? NaN));
    for (const p of p2p) assert.ok(p > 0, `the log names the bound P2P port:\n${a.log.join('\n')}`);
    assert.notEqual(p2p[0], p2p[1]);
    assert.ok(!p2p.includes(a.rpcPort) && !p2p.includes(b.rpcPort));
    // The generated conf names the chain's derived port, not the bound one (komodod writes it on first start).
    assert.match(readFileSync(a.confPath(), 'utf8'), /^rpcport=\d+$/m);
    assert.doesNotMatch(readFileSync(a.confPath(), 'utf8'), new RegExp(`^rpcport=${a.rpcPort}$`, 'm'));
  });

  // The brief's cases and a few more (test/node/config.test.ts covers the parser in depth); the
  // daemons start side by side, each refusal is its own subtest.
  const malformed: [string[], RegExp][] = [
    [['-rpcport=abc'], /Invalid value for -rpcport: 'abc' \(expected a whole number\)/],
    [['-ac_name=CRASHX', '-ac_supply=-5'], /-ac_supply=-5 is out of range/],
    [['-txindex=0'], /-txindex=0 is not supported: acnode always keeps the transaction index/],
    [['-port=-1'], /Invalid value for -port: '-1' \(must be 0\.\.65535\)/],
    [['-gen=yes'], /Invalid value for -gen: 'yes' \(expected 1 or 0\)/],
    [['getinfo'], /There is no RPC client functionality in acnoded/],
  ];
  const outcomes = malformed.map(([args]) => {
    const d = new Daemon(fresh(), args);
    return d.start(30_000).then(
      () => {
        daemons.push(d);
        return undefined;
      },
      (e: Error) => e.message,
    );
  });
  for (const [i, [args, message]] of malformed.entries()) {
    await t.test(`${args.join(' ')} exits non-zero with a message naming the flag`, async () => {
      const err = await outcomes[i]!;
      assert.ok(err, 'the daemon must not start');
      assert.match(err, /acnoded exited with 1 before it was ready/);
      assert.match(err, message);
      assert.doesNotMatch(err, /\n\s+at /, 'a clear message, not a stack trace');
    });
  }

  await t.test('komodod flags acnode does not use are logged as ignored, never fatal', async () => {
    const d = await startDaemon(['-gen=0', '-rpcworkqueue=64', '-exportdir=/tmp', '-notary', '-maxorphantx=100', '-checkblocks=10'], fresh());
    daemons.push(d);
    const line = d.log.find((l) => /ignored flags \(not used by acnode\):/.test(l));
    assert.ok(line, d.log.join('\n'));
    for (const f of ['rpcworkqueue', 'exportdir', 'notary', 'maxorphantx', 'checkblocks']) assert.match(line!, new RegExp(`\\b${f}\\b`));
    assert.equal((await d.rpc<string[]>('generate', 1)).length, 1);
  });
});

test('acnoded signals: SIGTERM and SIGINT stop cleanly (exit 0) with the chain flushed', async (t) => {
  const d = await startDaemon(['-gen=0']);
  t.after(async () => {
    await d.stop().catch(() => {});
    removeDir(d.datadir);
  });
  let height = 0;
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    const hashes = await d.rpc<string[]>('generate', 3);
    height += 3;
    d.kill(sig);
    assert.equal(await exited(d), 0, `${sig}: exit code 0`);
    assert.ok(d.log.some((l) => l.endsWith(`${sig} received`)), d.log.join('\n'));
    assert.ok(d.log.some((l) => / stopped$/.test(l)), 'the node reports it stopped');
    // Flushed: the block files hold genesis and every block mined, the last one last.
    const records = readBlockFiles(d.datadir, devChainParams().messageStart);
    assert.equal(records.length, height + 1);
    assert.equal(Block.fromRaw(records.at(-1)!.raw).hashHex(), hashes[2]);
    await d.start();
    assert.deepEqual(loadedAt(d), { height, hash: hashes[2]! }, `${sig}: a restart has the same tip`);
  }

  // SIGTERM in the middle of mining: the block being written finishes, nothing acknowledged is lost.
  // (The client stops sending once it signals: a client that keeps a keep-alive connection busy
  // is still served after "shutting down" and holds the stop off.)
  const acked: string[] = [];
  let signalled = false;
  const mining = (async () => {
    while (!signalled) acked.push(...(await d.rpc<string[]>('generate', 1)));
  })().catch(() => {});
  // Signalled once blocks are coming (a slow machine may take longer than a fixed pause for the first).
  await waitUntil('a block was mined before the signal', () => acked.length > 0);
  signalled = true;
  d.kill('SIGTERM');
  assert.equal(await exited(d), 0, 'SIGTERM while mining: exit code 0');
  await mining;
  await d.start();
  const tip = loadedAt(d)!;
  assert.ok(acked.length > 0, 'blocks were mined before the signal');
  assert.ok(tip.height >= height + acked.length, `every acknowledged block survived (${tip.height} >= ${height + acked.length})`);
  assert.equal(await d.rpc<string>('getblockhash', height + acked.length), acked.at(-1));
});
