import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Daemon, startDaemon, removeDir } from '../helpers/daemon.js';
import { secp256k1BackendOf } from '../../src/actors/verify/sig-backend.js';
import { waitUntil } from '../helpers/wait.js';

/**
 * The node starts its script-check workers (-par) and its secp256k1 backend (-sigbackend) and stops
 * them with it; a second node, empty signature cache and mempool, syncs a block of transactions it
 * never saw, through its worker pool (and the other backend), to the same tip.
 */

const until = (what: string, f: () => Promise<boolean>, ms = 30_000): Promise<void> => waitUntil(what, f, ms, 200);

test('-par and -sigbackend: workers start and stop with the node; an unseen block syncs through them', { timeout: 90_000 }, async (t) => {
  const nodes: Daemon[] = [];
  t.after(async () => {
    for (const d of nodes) await d.stop().catch(() => {});
    for (const d of nodes) removeDir(d.datadir);
  });
  const x = await startDaemon(['-gen=0', '-par=2']);
  nodes.push(x);
  // The default, auto: native libsecp256k1 where its addon loads (every platform the package ships a
  // prebuild for), on the main thread and in the workers.
  const auto = secp256k1BackendOf('native') ? 'native (-sigbackend=auto; libsecp256k1 N-API addon' : 'wasm (-sigbackend=auto;';
  assert.ok(x.log.some((l) => l.includes(`secp256k1 backend: ${auto}`)), x.log.join('\n'));
  await until('X workers up', async () => x.log.some((l) => l.includes(`Using 2 threads for script verification (secp256k1 backend ${auto.split(' ')[0]})`)));

  await x.rpc('generate', 12);
  const txids: string[] = [];
  for (let i = 0; i < 8; i++) txids.push(await x.rpc<string>('sendtoaddress', await x.rpc<string>('getnewaddress'), 0.25));
  const [h] = await x.rpc<string[]>('generate', 1);
  const block = await x.rpc<{ tx: string[]; height: number }>('getblock', h);
  assert.equal(block.tx.length, 9);

  const y = await startDaemon(['-gen=0', '-par=2', '-sigbackend=noble']);
  nodes.push(y);
  assert.ok(y.log.some((l) => l.includes('secp256k1 backend: noble (-sigbackend=noble')), y.log.join('\n'));
  await until('Y workers up', async () => y.log.some((l) => l.includes('Using 2 threads for script verification (secp256k1 backend noble)')));
  const port = Number(x.log.map((l) => /P2P listening on .*\(port=(\d+)\)/.exec(l)?.[1]).find((p) => p !== undefined));
  assert.ok(port > 0, x.log.join('\n'));
  await y.rpc('addnode', `127.0.0.1:${port}`, 'onetry');
  await until('Y synced', async () => (await y.rpc<string>('getbestblockhash')) === h);
  for (const txid of txids) assert.equal((await y.rpc<{ txid: string }>('getrawtransaction', txid, 1)).txid, txid);

  await y.stop();
  assert.ok(y.log.at(-1)?.includes('stopped'), y.log.slice(-3).join('\n'));
});

test('-sigbackend where the native addon does not load: auto takes WebAssembly and says why; native is refused at start', { timeout: 90_000 }, async (t) => {
  // node-gyp-build looks for the addon in $SECP256K1_PREBUILD when it is set: an empty directory is a
  // platform the secp256k1 package ships no prebuild for.
  const empty = mkdtempSync(join(tmpdir(), 'acnode-noprebuild-'));
  const env = { SECP256K1_PREBUILD: empty };
  const nodes: Daemon[] = [];
  t.after(async () => {
    for (const d of nodes) await d.stop().catch(() => {});
    for (const d of nodes) removeDir(d.datadir);
    removeDir(empty);
  });
  const refused = new Daemon(mkdtempSync(join(tmpdir(), 'acnode-it-')), ['-gen=0', '-sigbackend=native'], env);
  nodes.push(refused);
  const err = await refused.start(30_000).then(
    () => undefined,
    (e: Error) => e.message,
  );
  assert.ok(err, 'acnoded -sigbackend=native must not start without the addon');
  assert.match(err, /acnoded exited with 1 before it was ready/);
  assert.match(err, /Error: -sigbackend=native: the native libsecp256k1 addon could not be loaded \(No native build was found for platform=/);
  assert.doesNotMatch(err, /\n\s+at /, 'a clear message, not a stack trace');

  const w = await startDaemon(['-gen=0', '-par=2'], undefined, env);
  nodes.push(w);
  assert.ok(
    w.log.some((l) => l.includes('secp256k1 backend: wasm (-sigbackend=auto; libsecp256k1 in WebAssembly, tiny-secp256k1; native unavailable: No native build was found for platform=')),
    w.log.join('\n'),
  );
  await until('W workers up', async () => w.log.some((l) => l.includes('Using 2 threads for script verification (secp256k1 backend wasm)')));
  // It verifies: a block of signed transactions connects.
  await w.rpc('generate', 11);
  await w.rpc<string>('sendtoaddress', await w.rpc<string>('getnewaddress'), 0.5);
  const [h] = await w.rpc<string[]>('generate', 1);
  assert.equal((await w.rpc<{ tx: string[] }>('getblock', h)).tx.length, 2);
});
