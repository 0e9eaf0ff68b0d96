import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync, writeFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, Flags, loadConfig, parseArgv, parseConfText, ACTED_FLAGS } from '../../src/node/config.js';

function home(): string {
  return mkdtempSync(join(tmpdir(), 'acnode-config-'));
}
const fixed = { randomBytes: (n: number) => new Uint8Array(n).fill(0xab), now: () => 1_700_000_000_123 };

test('parseArgv: komodod forms, repeats in order, -noX, --X', () => {
  const m = parseArgv(['-ac_name=A', '-gen', '--rpcport=5', '-addnode=a', '-addnode=b', '-nolisten', '-notxindex=0', '-x=1=2']);
  assert.deepEqual(m.get('ac_name'), ['A']);
  assert.deepEqual(m.get('gen'), ['']);
  assert.deepEqual(m.get('rpcport'), ['5']);
  assert.deepEqual(m.get('addnode'), ['a', 'b']);
  assert.deepEqual(m.get('listen'), ['0']);
  assert.deepEqual(m.get('txindex'), ['1']);
  assert.deepEqual(m.get('x'), ['1=2']);
  // -noX does not override an explicit -X (util.cpp:341-353).
  assert.deepEqual(parseArgv(['-gen=1', '-nogen']).get('gen'), ['1']);
  assert.throws(() => parseArgv(['getinfo']), ConfigError);
});

test('parseConfText: key=value, comments, blank lines; command line wins, conf fills in, lists merge', () => {
  const pairs = parseConfText('# c\nrpcuser = u \n\naddnode=1.2.3.4 # note\naddnode=5.6.7.8\nrpcuser=second\nnogen=1\n');
  assert.deepEqual(pairs, [['rpcuser', 'u'], ['addnode', '1.2.3.4'], ['addnode', '5.6.7.8'], ['rpcuser', 'second'], ['nogen', '1']]);
  assert.throws(() => parseConfText('justaword\n'), ConfigError);
  const f = new Flags(parseArgv(['-rpcuser=cmd', '-addnode=9.9.9.9']), pairs);
  assert.equal(f.get('rpcuser'), 'cmd');
  assert.deepEqual(f.all('addnode'), ['9.9.9.9', '1.2.3.4', '5.6.7.8']);
  assert.equal(f.get('gen'), '0');
  // The conf's first value wins among conf values (ReadConfigFile keeps the first).
  assert.equal(new Flags(new Map(), pairs).get('rpcuser'), 'u');
});

test('first start: datadir and a komodod-style conf with mode 0600, rpcport = p2p + 1', () => {
  const h = home();
  const c = loadConfig(['-ac_name=TESTAC', '-ac_supply=1000000'], { homedir: h, ...fixed });
  assert.equal(c.datadir, join(h, '.acnode', 'TESTAC'));
  assert.equal(c.confPath, join(h, '.acnode', 'TESTAC', 'TESTAC.conf'));
  assert.equal(c.confCreated, true);
  // rawtx.md §7.3: TESTAC with supply 1000000 -> p2p 10743.
  assert.equal(c.chain.p2pPort, 10743);
  assert.equal(c.port, 10743);
  assert.equal(c.rpcport, 10744);
  const text = readFileSync(c.confPath, 'utf8');
  // rawtx.md §7.5 layout.
  assert.match(
    text,
    /^rpcuser=user\d+\nrpcpassword=pass(ab){33}\nrpcport=10744\nserver=1\ntxindex=1\nrpcworkqueue=256\nrpcallowip=127\.0\.0\.1\nrpcbind=127\.0\.0\.1\n$/,
  );
  assert.equal(statSync(c.confPath).mode & 0o777, 0o600);
  assert.equal(c.rpcuser, /rpcuser=(\S+)/.exec(text)![1]);
  assert.equal(c.rpcpassword, 'pass' + 'ab'.repeat(33));
  assert.deepEqual(c.rpcallowip, ['127.0.0.1']);
  assert.deepEqual(c.rpcEndpoints, [{ host: '127.0.0.1', port: 10744 }]);
  // The generated conf's server/txindex/rpcworkqueue: server and txindex are acted on, rpcworkqueue not.
  assert.deepEqual(c.ignored, ['rpcworkqueue']);
  assert.equal(c.txindex, true);
  assert.equal(c.datacarriersize, 208);
  // Second start reads the same file and does not rewrite it.
  const again = loadConfig(['-ac_name=TESTAC', '-ac_supply=1000000'], { homedir: h, randomBytes: () => new Uint8Array(33) });
  assert.equal(again.confCreated, false);
  assert.equal(again.rpcpassword, c.rpcpassword);
  rmSync(h, { recursive: true });
});

test('command line over conf; -datadir and -conf; ports 0 are valid', () => {
  const h = home();
  const dd = join(h, 'data');
  mkdirSync(dd);
  writeFileSync(join(dd, 'MYCHAIN.conf'), 'rpcport=7000\nrpcuser=alice\nrpcpassword=secret\nport=7001\ngen=1\nac_supply=5\nfoo=bar\n');
  const c = loadConfig(['-ac_name=MYCHAIN', `-datadir=${dd}`, '-rpcport=0', '-nogen'], { homedir: h });
  assert.equal(c.datadir, dd);
  assert.equal(c.confCreated, false);
  assert.equal(c.rpcport, 0);
  assert.equal(c.port, 7001);
  assert.equal(c.gen, false);
  assert.equal(c.rpcuser, 'alice');
  assert.equal(c.rpcpassword, 'secret');
  // -ac_* in the conf is ignored (komodod reads them before the conf): supply stays 10.
  assert.equal(c.chain.ac.supply, 10n);
  assert.ok(c.ignored.some((s) => s.startsWith('ac_supply')));
  assert.ok(c.ignored.includes('foo'));
  assert.ok(!existsSync(join(h, '.acnode')));
  // -port=0 binds an OS-chosen port; the chain's ports are still the derived ones.
  const z = loadConfig(['-ac_name=MYCHAIN', `-datadir=${dd}`, '-port=0'], { homedir: h });
  assert.equal(z.port, 0);
  assert.equal(z.chain.p2pPort, z.chain.defaultP2pPort);
  // -conf relative to the datadir, created there if missing.
  const c2 = loadConfig(['-ac_name=MYCHAIN', `-datadir=${dd}`, '-conf=other.conf'], { homedir: h, ...fixed });
  assert.equal(c2.confPath, join(dd, 'other.conf'));
  assert.equal(c2.confCreated, true);
  assert.equal(c2.rpcport, c2.chain.p2pPort + 1);
  // A missing -datadir is created.
  const c3 = loadConfig(['-ac_name=MYCHAIN', `-datadir=${join(h, 'new', 'dir')}`], { homedir: h, ...fixed });
  assert.ok(statSync(c3.datadir).isDirectory());
  rmSync(h, { recursive: true });
});

test('the dev chain when no -ac_name is given', () => {
  const h = home();
  const c = loadConfig(['-rpcport=0'], { homedir: h, ...fixed });
  assert.equal(c.devChain, true);
  assert.equal(c.chain.name, 'ACDEV');
  assert.equal(c.regtest, true);
  assert.equal(c.chain.regtest, true);
  assert.equal(c.gen, true);
  assert.equal(c.rpcport, 0);
  assert.equal(c.datadir, join(h, '.acnode', 'ACDEV'));
  assert.equal(c.chain.ac.supply, 10_000_000n);
  assert.equal(c.chain.ac.blocktime, 5);
  assert.equal(c.chain.cc, 2);
  assert.equal(c.addressindex, true);
  assert.equal(loadConfig(['-nogen'], { homedir: h }).gen, false);
  assert.throws(() => loadConfig(['-ac_supply=5'], { homedir: h }), (e: unknown) => e instanceof ConfigError && e.flag === 'ac_supply');
  rmSync(h, { recursive: true });
});

test('malformed values of known flags are errors naming the flag; unknown flags are reported', () => {
  const h = home();
  const bad: [string[], string][] = [
    [['-rpcport=abc'], 'rpcport'],
    [['-rpcport=70000'], 'rpcport'],
    [['-port=-1'], 'port'],
    [['-ac_name=X', '-ac_supply=-5'], 'ac_supply'],
    [['-ac_name=KMD'], 'ac_name'],
    [['-txindex=0'], 'txindex'],
    [['-notxindex'], 'txindex'],
    [['-gen=yes'], 'gen'],
    [['-pubkey=02abcd'], 'pubkey'],
    [['-sigbackend=gpu'], 'sigbackend'],
    [['-addnode'], 'addnode'],
    [['-keypool=many'], 'keypool'],
    [['-keypool=5000000'], 'keypool'],
    [['-walletresendtimes=5'], 'walletresendtimes'],
    [['-walletresendtimes=0,0'], 'walletresendtimes'],
  ];
  for (const [argv, flag] of bad) {
    assert.throws(
      () => loadConfig(argv, { homedir: h, ...fixed }),
      (e: unknown) => e instanceof ConfigError && e.flag === flag && e.message.includes(flag),
      argv.join(' '),
    );
  }
  const c = loadConfig(['-maxorphantx=8', '-notary=x', '-exportdir=/tmp', '-pubkey=02' + '11'.repeat(32)], { homedir: h, ...fixed });
  assert.deepEqual([...c.ignored].sort(), ['exportdir', 'maxorphantx', 'notary', 'rpcworkqueue']);
  assert.equal(c.pubkey, '02' + '11'.repeat(32));
  assert.equal(c.keypool, 100);
  assert.equal(loadConfig(['-keypool=7'], { homedir: h, ...fixed }).keypool, 7);
  assert.equal(loadConfig(['-keypool=-3'], { homedir: h, ...fixed }).keypool, 0);
  // komodod's rebroadcast timing unless the internal test flag shortens it.
  assert.equal(c.walletResendTimes, null);
  assert.deepEqual(loadConfig(['-walletresendtimes=2,0'], { homedir: h, ...fixed }).walletResendTimes, { maxDelay: 2, minAge: 0 });
  assert.ok(ACTED_FLAGS.includes('rpcport') && ACTED_FLAGS.includes('ac_cc'));
  // -sigbackend: auto unless one of the three is named.
  assert.equal(c.sigbackend, 'auto');
  for (const b of ['auto', 'native', 'wasm', 'noble']) assert.equal(loadConfig([`-sigbackend=${b}`], { homedir: h, ...fixed }).sigbackend, b);
  assert.throws(() => loadConfig(['-sigbackend=Native'], { homedir: h, ...fixed }), { message: "Invalid value for -sigbackend: 'Native' (expected auto, native, wasm, noble)" });
  rmSync(h, { recursive: true });
});

test('rpc endpoints follow komodod: loopback without -rpcallowip, -rpcbind with it', () => {
  const h = home();
  const dd = join(h, 'd');
  mkdirSync(dd);
  writeFileSync(join(dd, 'EP.conf'), '');
  const base = ['-ac_name=EP', `-datadir=${dd}`, '-rpcport=9000'];
  assert.deepEqual(loadConfig(base, { homedir: h }).rpcEndpoints, [{ host: '::1', port: 9000 }, { host: '127.0.0.1', port: 9000 }]);
  const warned = loadConfig([...base, '-rpcbind=1.2.3.4'], { homedir: h });
  assert.equal(warned.rpcEndpoints.length, 2);
  assert.equal(warned.warnings.length, 1);
  assert.deepEqual(loadConfig([...base, '-rpcallowip=10.0.0.0/8', '-rpcbind=127.0.0.1:9100', '-rpcbind=[::1]'], { homedir: h }).rpcEndpoints, [
    { host: '127.0.0.1', port: 9100 },
    { host: '::1', port: 9000 },
  ]);
  assert.deepEqual(loadConfig([...base, '-rpcallowip=10.0.0.0/8'], { homedir: h }).rpcEndpoints, [
    { host: '::', port: 9000 },
    { host: '0.0.0.0', port: 9000 },
  ]);
  rmSync(h, { recursive: true });
});

test('-dbcache: MiB, 450 by default, clamped to komodod bounds (4..16384) as its init does; not a number is refused', () => {
  const h = home();
  const dd = join(h, 'data');
  mkdirSync(dd);
  const at = (...args: string[]) => loadConfig(['-ac_name=DBC', `-datadir=${dd}`, ...args], { homedir: h, ...fixed }).dbcache;
  assert.equal(at(), 450);
  assert.equal(at('-dbcache=100'), 100);
  assert.equal(at('-dbcache=1'), 4);
  assert.equal(at('-dbcache=-5'), 4);
  assert.equal(at('-dbcache=99999'), 16384);
  assert.throws(() => at('-dbcache=lots'), (e: unknown) => e instanceof ConfigError && e.flag === 'dbcache');
  rmSync(h, { recursive: true, force: true });
});
