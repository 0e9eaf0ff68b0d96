import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, stdinLines } from '../../src/cli/main.js';
import { RPC_CONVERT_PARAMS } from '../../src/cli/convert.js';
import { loadSettings, splitArgs, CliStartError } from '../../src/cli/options.js';

/** A stand-in JSON-RPC server that records what the client sent and answers what the test says. */
class FakeServer {
  readonly requests: { body: string; headers: IncomingMessage['headers']; url: string }[] = [];
  answer: (body: string) => { status: number; body: string } = () => ({ status: 200, body: '{"result":null,"error":null,"id":1}\n' });
  private server: Server | undefined;
  port = 0;

  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        this.requests.push({ body, headers: req.headers, url: req.url ?? '' });
        const a = this.answer(body);
        res.writeHead(a.status, { 'content-type': 'application/json' });
        res.end(a.body);
      });
    });
    await new Promise<void>((r) => this.server!.listen(port, '127.0.0.1', () => r()));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((r) => this.server?.close(() => r()) ?? r());
  }
}

interface Run {
  code: number;
  out: string;
  err: string;
}

async function cli(argv: string[], opts: { stdin?: string; home?: string; sleep?: (ms: number) => Promise<void> } = {}): Promise<Run> {
  let out = '';
  let err = '';
  const code = await runCli(argv, {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    readStdin: async () => opts.stdin ?? '',
    homedir: opts.home ?? '/nonexistent-home',
    ...(opts.sleep ? { sleep: opts.sleep } : {}),
  });
  return { code, out, err };
}

function datadirWith(conf: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-cli-'));
  writeFileSync(join(dir, 'ACDEV.conf'), conf);
  return dir;
}

test('switches end at the first non-switch; -noX; --X', () => {
  const s = splitArgs(['-rpcwait', '--datadir=/x', '-nostdin', 'generate', '-1', '-rpcport=5']);
  assert.deepEqual(s.args, ['generate', '-1', '-rpcport=5']);
  assert.deepEqual(s.flags.get('datadir'), ['/x']);
  assert.deepEqual(s.flags.get('stdin'), ['0']);
  assert.deepEqual(s.flags.get('rpcwait'), ['']);
  assert.deepEqual(stdinLines('a\n\nb\n'), ['a', '', 'b']);
  assert.deepEqual(stdinLines('a\nb'), ['a', 'b']);
  assert.deepEqual(stdinLines(''), []);
});

test('conf discovery: -ac_name in ~/.acnode/<NAME>/, -datadir, -conf, command line over conf', (t) => {
  const home = mkdtempSync(join(tmpdir(), 'acnode-home-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  mkdirSync(join(home, '.acnode', 'DUKE'), { recursive: true });
  writeFileSync(join(home, '.acnode', 'DUKE', 'DUKE.conf'), 'rpcuser=u1\nrpcpassword=p1\nrpcport=12345\nrpcport=999\n');
  mkdirSync(join(home, '.acnode', 'ACDEV'), { recursive: true });
  writeFileSync(join(home, '.acnode', 'ACDEV', 'ACDEV.conf'), 'rpcuser=dev\nrpcpassword=devpass\nrpcport=23456\n');
  writeFileSync(join(home, 'other.conf'), 'rpcuser=o\nrpcpassword=op\n');

  const duke = loadSettings(splitArgs(['-ac_name=DUKE']).flags, { homedir: home });
  assert.equal(duke.confPath, join(home, '.acnode', 'DUKE', 'DUKE.conf'));
  assert.equal(duke.port, 12345); // the conf's first value
  assert.equal(duke.credentials, 'u1:p1');
  const dev = loadSettings(splitArgs([]).flags, { homedir: home });
  assert.equal(dev.chainName, 'ACDEV');
  assert.equal(dev.port, 23456);
  assert.equal(dev.credentials, 'dev:devpass');
  const over = loadSettings(splitArgs(['-ac_name=DUKE', '-rpcport=777', '-rpcuser=x', '-rpcpassword=y']).flags, { homedir: home });
  assert.equal(over.port, 777);
  assert.equal(over.credentials, 'x:y');
  const dd = loadSettings(splitArgs([`-datadir=${join(home, '.acnode', 'DUKE')}`, '-ac_name=DUKE']).flags, { homedir: '/nowhere' });
  assert.equal(dd.port, 12345);
  const conf = loadSettings(splitArgs([`-datadir=${home}`, '-conf=other.conf']).flags);
  assert.equal(conf.credentials, 'o:op');
  assert.equal(conf.port, 7771); // no rpcport: BaseParams().RPCPort()
  assert.equal(loadSettings(splitArgs([`-datadir=${home}`, '-conf=other.conf', '-regtest']).flags).port, 18232);

  assert.throws(() => loadSettings(splitArgs(['-datadir=/no/such/dir']).flags), (e: unknown) => e instanceof CliStartError && e.message === 'Error: Specified data directory "/no/such/dir" does not exist.');
  assert.throws(() => loadSettings(splitArgs(['-ac_name=NOPE']).flags, { homedir: home }), /Missing .*NOPE\.conf[^]*start acnoded -ac_name=NOPE/);
});

test('every converted param of the table reaches the server as JSON, the others as strings', async (t) => {
  const server = await new FakeServer().start();
  t.after(() => server.stop());
  const dir = datadirWith(`rpcuser=u\nrpcpassword=p\nrpcport=${server.port}\n`);
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const byMethod = new Map<string, Set<number>>();
  for (const [m, i] of RPC_CONVERT_PARAMS) (byMethod.get(m) ?? byMethod.set(m, new Set()).get(m)!).add(i);
  for (const [method, idxs] of byMethod) {
    const n = Math.max(...idxs) + 2; // one unconverted param past the last converted one
    const args: string[] = [];
    const expected: string[] = [];
    for (let i = 0; i < n; i++) {
      if (idxs.has(i)) {
        const v = ['7', '[1,"a"]', '{"k":0.10000000}', 'true', 'null', '"s"'][i % 6]!;
        args.push(v);
        expected.push(v);
      } else {
        args.push(`7${i}`);
        expected.push(`"7${i}"`);
      }
    }
    const r = await cli([`-datadir=${dir}`, method, ...args]);
    assert.equal(r.code, 0, `${method}: ${r.err}`);
    const sent = server.requests.at(-1)!;
    assert.equal(sent.body, `{"method":"${method}","params":[${expected.join(',')}],"id":1}\n`, method);
  }
  const last = server.requests.at(-1)!;
  assert.equal(last.url, '/');
  assert.equal(last.headers.authorization, `Basic ${Buffer.from('u:p').toString('base64')}`);
  assert.equal(last.headers.connection, 'close');
});

test('output: strings raw, null nothing, others UniValue write(2); errors on stderr with |code|', async (t) => {
  const server = await new FakeServer().start();
  t.after(() => server.stop());
  const dir = datadirWith(`rpcuser=u\nrpcpassword=p\nrpcport=${server.port}\n`);
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const reply = (body: string, status = 200) => (server.answer = () => ({ status, body }));

  reply('{"result":"line1\\nline2","error":null,"id":1}');
  assert.deepEqual(await cli([`-datadir=${dir}`, 'help']), { code: 0, out: 'line1\nline2\n', err: '' });
  reply('{"result":null,"error":null,"id":1}');
  assert.deepEqual(await cli([`-datadir=${dir}`, 'setgenerate', 'false']), { code: 0, out: '', err: '' });
  reply('{"result":{"amount":1.00000000,"list":[],"n":1},"error":null,"id":1}');
  assert.deepEqual(await cli([`-datadir=${dir}`, 'x']), { code: 0, out: '{\n  "amount": 1.00000000,\n  "list": [\n  ],\n  "n": 1\n}\n', err: '' });
  reply('{"result":12,"error":null,"id":1}');
  assert.equal((await cli([`-datadir=${dir}`, 'getblockcount'])).out, '12\n');

  reply('{"result":null,"error":{"code":-32601,"message":"Method not found"},"id":1}', 404);
  assert.deepEqual(await cli([`-datadir=${dir}`, 'nosuch']), { code: 32601, out: '', err: 'error code: -32601\nerror message:\nMethod not found\n' });
  reply('{"result":null,"error":{"code":-8,"message":"Block height out of range"},"id":1}', 500);
  assert.deepEqual(await cli([`-datadir=${dir}`, 'getblockhash', '99']), { code: 8, out: '', err: 'error code: -8\nerror message:\nBlock height out of range\n' });
  reply('{"result":null,"error":{"code":-1,"message":"generate numblocks\\n\\nMine blocks"},"id":1}', 500);
  assert.deepEqual(await cli([`-datadir=${dir}`, 'generate']), { code: 1, out: '', err: 'error code: -1\nerror message:\ngenerate numblocks\n\nMine blocks\n' });
  // An error object without a string message prints only the code line (then komodo-cli's newline).
  reply('{"result":null,"error":{"code":-5},"id":1}', 500);
  assert.deepEqual(await cli([`-datadir=${dir}`, 'x']), { code: 5, out: '', err: 'error code: -5\n\n' });

  reply('', 401);
  assert.deepEqual(await cli([`-datadir=${dir}`, 'x']), { code: 1, out: '', err: 'error: incorrect rpcuser or rpcpassword (authorization failed)\n' });
  reply('', 403);
  assert.deepEqual(await cli([`-datadir=${dir}`, 'x']), { code: 1, out: '', err: 'error: server returned HTTP error 403\n' });
  reply('', 500);
  assert.deepEqual(await cli([`-datadir=${dir}`, 'x']), { code: 1, out: '', err: 'error: no response from server\n' });
  reply('not json', 200);
  assert.deepEqual(await cli([`-datadir=${dir}`, 'x']), { code: 1, out: '', err: "error: couldn't parse reply from server\n" });
  reply('{}', 200);
  assert.deepEqual(await cli([`-datadir=${dir}`, 'x']), { code: 1, out: '', err: 'error: expected reply to have result, error and id properties\n' });

  const before = server.requests.length;
  assert.deepEqual(await cli([`-datadir=${dir}`, 'generate', 'two']), { code: 1, out: '', err: 'error: Error JSON:two\n' });
  assert.equal(server.requests.length, before, 'nothing sent when a param does not convert');
  assert.deepEqual(await cli([`-datadir=${dir}`]), { code: 1, out: '', err: 'error: too few parameters (need at least command)\n' });
});

test('-stdin appends one param per line; conf discovery failures; the daemon not running', async (t) => {
  const server = await new FakeServer().start();
  t.after(() => server.stop());
  const dir = datadirWith(`rpcuser=u\nrpcpassword=p\nrpcport=${server.port}\n`);
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const r = await cli([`-datadir=${dir}`, '-stdin', 'createrawtransaction'], { stdin: '[]\n{"data":"00"}\n' });
  assert.equal(r.code, 0);
  assert.equal(server.requests.at(-1)!.body, '{"method":"createrawtransaction","params":[[],{"data":"00"}],"id":1}\n');
  await cli([`-datadir=${dir}`, '-stdin'], { stdin: 'tokencreate\nDUKE\n1987.420\nDuke\'s token' });
  assert.equal(server.requests.at(-1)!.body, '{"method":"tokencreate","params":["DUKE","1987.420","Duke\'s token"],"id":1}\n');

  const none = await cli(['-ac_name=NOSUCH', 'getinfo'], { home: dir });
  assert.equal(none.code, 1);
  assert.match(none.err, /^Error reading configuration file: Missing .*NOSUCH\.conf\n/);

  // Nothing listens on a closed port: komodo-cli's message, plus where acnode-cli looked.
  const closed = await new FakeServer().start();
  const port = closed.port;
  await closed.stop();
  const down = await cli([`-datadir=${dir}`, `-rpcport=${port}`, 'getinfo']);
  assert.equal(down.code, 1);
  assert.equal(
    down.err,
    "error: couldn't connect to server: unknown (code -1)\n(make sure server is running and you are connecting to the correct RPC port)\n" +
      `(acnode-cli tried 127.0.0.1:${port}, the port from -rpcport)\n`,
  );
  const nopass = datadirWith(`rpcport=${server.port}\n`);
  t.after(() => rmSync(nopass, { recursive: true, force: true }));
  const np = await cli([`-datadir=${nopass}`, 'getinfo']);
  assert.equal(np.code, 1);
  assert.equal(np.err, `error: Could not locate RPC credentials. No authentication cookie could be found,\nand no rpcpassword is set in the configuration file (${join(nopass, 'ACDEV.conf')}).\n`);
  writeFileSync(join(nopass, '.cookie'), '__cookie__:secret\n');
  assert.equal((await cli([`-datadir=${nopass}`, 'getinfo'])).code, 0);
  assert.equal(server.requests.at(-1)!.headers.authorization, `Basic ${Buffer.from('__cookie__:secret').toString('base64')}`);
});

test('-rpcwait retries until the server answers, through warm-up (-28)', async (t) => {
  const probe = await new FakeServer().start();
  const port = probe.port;
  await probe.stop();
  const dir = datadirWith(`rpcuser=u\nrpcpassword=p\nrpcport=${port}\n`);
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const server = new FakeServer();
  let warm = 2;
  server.answer = () =>
    warm-- > 0
      ? { status: 500, body: '{"result":null,"error":{"code":-28,"message":"Loading block index..."},"id":1}' }
      : { status: 200, body: '{"result":["h"],"error":null,"id":1}' };
  let sleeps = 0;
  // The first sleep starts the server: the client has failed to connect once by then.
  const sleep = async () => {
    sleeps++;
    if (sleeps === 1) await server.start(port);
  };
  t.after(() => server.stop());
  const r = await cli([`-datadir=${dir}`, '-rpcwait', 'generate', '1'], { sleep });
  assert.deepEqual(r, { code: 0, out: '[\n  "h"\n]\n', err: '' });
  assert.equal(sleeps, 3); // one refused connection, two warm-up answers
  // Without -rpcwait, warm-up is an error like any other.
  warm = 1;
  assert.deepEqual(await cli([`-datadir=${dir}`, 'generate', '1']), { code: 28, out: '', err: 'error code: -28\nerror message:\nLoading block index...\n' });
});

test('-help, -version and no arguments', async () => {
  const h = await cli(['-help']);
  assert.equal(h.code, 0);
  assert.match(h.out, /^Acnode RPC client version v\d+\.\d+\.\d+\n\nUsage:\n  acnode-cli \[options\] <command> \[params\]/);
  assert.match(h.out, /-rpcwait\n\s+Wait for RPC server to start/);
  const v = await cli(['-version']);
  assert.equal(v.code, 0);
  assert.match(v.out, /^Acnode RPC client version v[\d.]+\n$/);
  const none = await cli([]);
  assert.equal(none.code, 1);
  assert.equal(none.err, 'Error: too few parameters\n');
});
