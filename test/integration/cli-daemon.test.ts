import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, removeDir, Daemon } from '../helpers/daemon.js';
import { freePort, runCliProc, startCli } from '../cli/cli-runner.js';
import { runCli } from '../../src/cli/main.js';

/**
 * acnode-cli against a real acnoded: komodo-cli's param conversion, output and exit status,
 * conf discovery through HOME/-ac_name/-datadir, -stdin and -rpcwait.
 *
 * The dev-chain daemon lives in <home>/.acnode/ACDEV/ with a conf written beforehand (fixed rpcport),
 * so the client finds it the way a user's does: by HOME alone.
 */

const HASH = /^[0-9a-f]{64}$/;

test('acnode-cli against acnoded', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'acnode-cli-home-'));
  // The daemon's data directory is inside home: it stops before home goes (hooks run in order).
  let d: Daemon | undefined;
  t.after(async () => {
    await d?.stop();
    removeDir(home);
  });
  const datadir = join(home, '.acnode', 'ACDEV');
  mkdirSync(datadir, { recursive: true });
  const port = await freePort();
  writeFileSync(join(datadir, 'ACDEV.conf'), `rpcuser=cliuser\nrpcpassword=clipass\nrpcport=${port}\nrpcallowip=127.0.0.1\n`, { mode: 0o600 });
  // The harness puts -rpcport=0 first; the last -rpcport wins, so the daemon binds the conf's port.
  d = await startDaemon(['-gen=0', `-rpcport=${port}`], datadir);
  assert.equal(d.rpcPort, port);
  const env = { HOME: home };
  // The bin through its launcher (as `npx acnode-cli` runs it), or the same client in this process
  // (quicker: the machine is shared, and a spawned client costs a second of start-up).
  const cli = (args: string[], stdin?: string) => runCliProc(args, { env, ...(stdin !== undefined ? { stdin } : {}) });
  const inproc = async (args: string[]) => {
    let out = '';
    let err = '';
    const code = await runCli(args, { stdout: (x) => (out += x), stderr: (x) => (err += x), readStdin: async () => '', homedir: home });
    return { code: code & 0xff, out, err };
  };

  await t.test('conf discovery by HOME (dev chain), -ac_name and -datadir; generate 2 converts its param', async () => {
    const r = await cli(['generate', '2']);
    assert.equal(r.code, 0, r.err);
    const hashes = JSON.parse(r.out) as string[];
    assert.equal(hashes.length, 2);
    assert.ok(hashes.every((h) => HASH.test(h)));
    // komodo-cli's write(2) layout, byte for byte.
    assert.equal(r.out, `[\n  "${hashes[0]}",\n  "${hashes[1]}"\n]\n`);
    const byName = await inproc(['-ac_name=ACDEV', 'getgenerate']);
    assert.equal(byName.code, 0, byName.err);
    assert.equal(byName.out, '{\n  "staking": false,\n  "generate": false,\n  "numthreads": -1\n}\n');
    const byDir = await runCliProc([`-datadir=${datadir}`, 'getgenerate'], { env: { HOME: '/nonexistent' } });
    assert.equal(byDir.code, 0, byDir.err);
    assert.equal(byDir.out, byName.out);
  });

  await t.test('booleans and numbers reach the daemon typed: setgenerate false 1', async () => {
    assert.deepEqual(await inproc(['setgenerate', 'false', '1']), { code: 0, out: '', err: '' });
    const g = await inproc(['getgenerate']);
    assert.equal(g.out, '{\n  "staking": false,\n  "generate": false,\n  "numthreads": 1\n}\n');
    // Without the table the daemon would have received "1" and failed with "not an integer".
    const direct = await d.rpcRaw('generate', ['1']);
    assert.equal(direct.error?.message, 'JSON value is not an integer as expected');
  });

  await t.test('getblock with verbosity, createrawtransaction JSON args (when the daemon serves them)', async (tt) => {
    const help = await inproc(['help', 'getblock']);
    if (help.out.startsWith('help: unknown command')) {
      tt.skip('getblock is not served by this build');
    } else {
      const [hash] = JSON.parse((await inproc(['generate', '1'])).out) as string[];
      const raw = await inproc(['getblock', hash!, '0']);
      assert.equal(raw.code, 0, raw.err);
      assert.match(raw.out, /^[0-9a-f]+\n$/, 'verbosity 0 (a number) gives the hex string, printed raw');
      const obj = await inproc(['getblock', hash!, '1']);
      assert.equal(obj.code, 0, obj.err);
      assert.match(obj.out, new RegExp(`^\\{\\n(  "[a-z_]+": .*,\\n)*  "hash": "${hash}",\\n`));
    }
    const crt = await inproc(['createrawtransaction', '[]', '{}']);
    if (crt.code === 89) {
      assert.equal(crt.err, 'error code: -32601\nerror message:\nMethod not found\n');
    } else {
      // An array and an object arrived (a string would fail the type check with -3).
      assert.equal(crt.code, 0, crt.err);
      assert.match(crt.out, /^[0-9a-f]+\n$/);
      const bad = await inproc(['createrawtransaction', '[]', '{}', '"x"']);
      assert.equal(bad.code, 3);
      assert.equal(bad.err, 'error code: -3\nerror message:\nExpected type number, got string\n');
    }
  });

  await t.test('tokencreate DUKE 1987.420 "Duke\'s token": every param a string, as komodo-cli sends it (when served)', async (tt) => {
    if ((await inproc(['help', 'tokencreate'])).out.startsWith('help: unknown command')) {
      tt.skip('tokencreate is not served by this build');
      return;
    }
    const r = await inproc(['tokencreate', 'DUKE', '1987.420', "Duke's token"]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^\{\n  "result": "success",\n  "hex": "[0-9a-f]+"\n\}\n$/);
  });

  await t.test('errors: stderr lines and komodo-cli exit status', async () => {
    assert.deepEqual(await cli(['nosuchmethod']), { code: 89, out: '', err: 'error code: -32601\nerror message:\nMethod not found\n' }); // |-32601| & 0xff
    const usage = await inproc(['generate']);
    assert.equal(usage.code, 1);
    assert.match(usage.err, /^error code: -1\nerror message:\ngenerate numblocks\n\nMine blocks immediately/);
    assert.deepEqual(await inproc(['generate', 'abc']), { code: 1, out: '', err: 'error: Error JSON:abc\n' });
    const wrong = await inproc(['-rpcpassword=wrong', 'getgenerate']);
    assert.deepEqual(wrong, { code: 1, out: '', err: 'error: incorrect rpcuser or rpcpassword (authorization failed)\n' });
    const closed = await freePort();
    const down = await inproc([`-rpcport=${closed}`, 'getgenerate']);
    assert.equal(down.code, 1);
    assert.match(down.err, /^error: couldn't connect to server: unknown \(code -1\)\n\(make sure server is running and you are connecting to the correct RPC port\)\n/);
    const noConf = await inproc(['-ac_name=NOTHERE', 'getinfo']);
    assert.equal(noConf.code, 1);
    assert.match(noConf.err, /^Error reading configuration file: Missing .*NOTHERE\.conf/);
  });

  await t.test('help comes from the daemon', async () => {
    const list = await inproc(['help']);
    assert.equal(list.code, 0);
    assert.equal(list.out, `${(await d.rpc<string>('help'))}\n`);
    assert.match(list.out, /== Dev ==\ngetactorstates\n/);
    const one = await inproc(['help', 'generate']);
    assert.equal(one.out, `${await d.rpc<string>('help', 'generate')}\n`);
    assert.match(one.out, /> acnode-cli -ac_name=ACDEV generate 11\n/);
  });

  await t.test('-stdin appends one param per line', async () => {
    const r = await cli(['-stdin', 'generate'], '1\n');
    assert.equal(r.code, 0, r.err);
    assert.equal((JSON.parse(r.out) as string[]).length, 1);
    const all = await cli(['-stdin'], 'help\ngetgenerate\n');
    assert.match(all.out, /^getgenerate\n/);
  });

  await t.test('getactorstates: every actor, no inspector without -inspect; inspect refuses', async () => {
    const s = await d.rpc<{ inspector: string | null; actors: Record<string, { status: string; state: string; context: Record<string, unknown> }> }>('getactorstates');
    assert.equal(s.inspector, null);
    for (const name of ['chainStore', 'mempool', 'miner', 'pacer']) assert.equal(s.actors[name]?.status, 'active', name);
    assert.equal(s.actors.chainStore!.state, 'ready.idle');
    const summary = s.actors.chainStore!.context.summary as { height?: number };
    assert.equal(typeof summary.height, 'number');
    assert.ok(!('logic' in s.actors.chainStore!.context), 'no whole indexes');
    const r = await cli(['inspect']);
    assert.equal(r.code, 1);
    assert.match(r.err, /not running with -inspect/);
  });
});

test('-rpcwait: the client started before the daemon waits for it (-ac_name chain found by HOME)', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'acnode-cli-wait-'));
  let d: Daemon | undefined;
  t.after(async () => {
    await d?.stop();
    removeDir(home);
  });
  const datadir = join(home, '.acnode', 'CLIWAIT');
  mkdirSync(datadir, { recursive: true });
  const port = await freePort();
  writeFileSync(join(datadir, 'CLIWAIT.conf'), `rpcuser=w\nrpcpassword=wpass\nrpcport=${port}\n`, { mode: 0o600 });
  const waiting = startCli(['-ac_name=CLIWAIT', '-rpcwait', 'getgenerate'], { env: { HOME: home }, timeoutMs: 90_000 });
  // Let it fail to connect at least once first.
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(waiting.proc.exitCode, null, 'still waiting');
  d = new Daemon(datadir, ['-ac_name=CLIWAIT', '-ac_supply=1000', '-gen=0', `-rpcport=${port}`]);
  await d.start();
  const r = await waiting.done;
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, '{\n  "staking": false,\n  "generate": false,\n  "numthreads": -1\n}\n');
});
