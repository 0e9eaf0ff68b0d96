import { randomBytes as nodeRandomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir as osHomedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import {
  AC_FLAGS,
  ChainParams,
  DEV_CHAIN_AC_ARGS,
  DEV_CHAIN_ARGV,
  MAX_OP_RETURN_RELAY_AC,
  ParamsError,
  crc32,
} from '../chain/params/index.js';
import { ConfigError, Flags, boolValue, parseArgv, parseConfText, type FlagMap } from './config-args.js';
import { SECP256K1_BACKEND_CHOICES, type Secp256k1BackendChoice } from '../actors/verify/sig-backend.js';
import type { NodeSettings } from '../actors/services.js';

export { ConfigError, Flags, parseArgv, parseConfText } from './config-args.js';

/**
 * acnoded's configuration: komodod's command line and `<NAME>.conf`, the data directory, the conf
 * file komodod writes on first start, and the dev chain when no -ac_name is given.
 */

/** -sigbackend: the secp256k1 backend (src/actors/verify/sig-backend.ts). */
export type SigBackend = Secp256k1BackendChoice;

export interface RpcEndpoint {
  readonly host: string;
  readonly port: number;
}

/**
 * Everything acnoded was started with. The settings the RPC layer reads (the chain, -rpcport, -pubkey,
 * the indexes, the wallet's encryption switches...) are declared in NodeSettings, beside NodeServices
 * (src/actors/services.ts), so that nothing below the composition root imports this file.
 */
export interface NodeConfig extends NodeSettings {
  readonly regtest: boolean;
  readonly datadir: string;
  readonly confPath: string;
  /** The conf file was written by this start (first start of the chain). */
  readonly confCreated: boolean;

  /** null when neither the command line nor the conf file sets them. */
  readonly rpcuser: string | null;
  readonly rpcpassword: string | null;
  readonly rpcbind: readonly string[];
  readonly rpcallowip: readonly string[];
  /** Where the RPC server listens, by komodod's rule (httpserver.cpp:335-356). */
  readonly rpcEndpoints: readonly RpcEndpoint[];
  readonly server: boolean;

  /** P2P port to bind (0: OS-chosen). */
  readonly port: number;
  readonly listen: boolean;
  readonly addnode: readonly string[];
  readonly connect: readonly string[];

  readonly gen: boolean;
  readonly datacarriersize: number;
  /** -keypool: the key pool's target size (komodod: max(-keypool, 0), default 100). */
  readonly keypool: number;

  readonly reindex: boolean;
  /** Always true: acnode keeps the transaction index (-txindex=0 is refused). */
  readonly txindex: true;
  readonly timestampindex: boolean;

  readonly printtoconsole: boolean;
  readonly daemon: boolean;
  readonly inspect: boolean;
  /** acnode only: the local explorer page without the actor stream (-inspect serves it too) */
  readonly explorer: boolean;
  readonly debug: readonly string[];
  readonly blocknotify: string | null;
  readonly walletnotify: string | null;
  readonly par: number;
  /** -dbcache in MiB, clamped to komodod's bounds (nMinDbCache..nMaxDbCache): what the chain store's and the signature caches may hold. */
  readonly dbcache: number;
  readonly sigbackend: SigBackend;
  /**
   * -walletresendtimes=MAXDELAY,MINAGE (seconds; internal, for tests): the wallet's rebroadcast round
   * comes GetRand(MAXDELAY) after the last and resends what was received MINAGE before the last block.
   * null: komodod's 1800,300.
   */
  readonly walletResendTimes: { maxDelay: number; minAge: number } | null;
  readonly help: boolean;
  readonly version: boolean;

  /** Flags given that acnode does not act on (komodod flags or unknown), for the caller to log. */
  readonly ignored: readonly string[];
  /** Corrections komodod makes with a console message (ac_perc without ac_pubkey...). */
  readonly warnings: readonly string[];
  /** Every flag, for anything this object does not model. */
  readonly flags: Flags;
}

export interface ConfigOptions {
  /** The home directory (default os.homedir()); tests pass a temporary one. */
  readonly homedir?: string;
  /** Directory relative -datadir paths resolve against (default process.cwd()). */
  readonly cwd?: string;
  /** Random bytes for the generated rpcpassword (default crypto.randomBytes). */
  readonly randomBytes?: (n: number) => Uint8Array;
  /** Clock in milliseconds for the generated rpcuser (default Date.now). */
  readonly now?: () => number;
}

type Kind = 'bool' | 'int' | 'port' | 'string' | 'list';

/** The flags acnode acts on, besides the -ac_* flags. */
const FLAG_KINDS: ReadonlyMap<string, Kind> = new Map<string, Kind>([
  ['datadir', 'string'],
  ['conf', 'string'],
  ['regtest', 'bool'],
  ['rpcport', 'port'],
  ['rpcuser', 'string'],
  ['rpcpassword', 'string'],
  ['rpcbind', 'list'],
  ['rpcallowip', 'list'],
  ['server', 'bool'],
  ['port', 'port'],
  ['listen', 'bool'],
  ['addnode', 'list'],
  ['connect', 'list'],
  // P2P flags the p2p actor reads through `flags` (src/actors/p2p).
  ['bind', 'list'],
  ['whitelist', 'list'],
  ['maxconnections', 'int'],
  ['banscore', 'int'],
  ['bantime', 'int'],
  ['gen', 'bool'],
  ['genproclimit', 'int'],
  ['pubkey', 'string'],
  ['datacarriersize', 'int'],
  ['txexpirydelta', 'int'],
  ['keypool', 'int'],
  ['experimentalfeatures', 'bool'],
  ['developerencryptwallet', 'bool'],
  ['reindex', 'bool'],
  ['txindex', 'bool'],
  ['addressindex', 'bool'],
  ['spentindex', 'bool'],
  ['timestampindex', 'bool'],
  ['printtoconsole', 'bool'],
  ['daemon', 'bool'],
  ['inspect', 'bool'],
  ['explorer', 'bool'],
  ['debug', 'list'],
  ['blocknotify', 'string'],
  ['walletnotify', 'string'],
  ['par', 'int'],
  ['dbcache', 'int'],
  ['sigbackend', 'string'],
  ['walletresendtimes', 'string'],
  ['help', 'bool'],
  ['h', 'bool'],
  ['?', 'bool'],
  ['version', 'bool'],
]);

/** Every flag name acnode acts on (without dashes). */
export const ACTED_FLAGS: readonly string[] = [...FLAG_KINDS.keys(), ...AC_FLAGS];

const isActed = (name: string): boolean => FLAG_KINDS.has(name) || AC_FLAGS.includes(name);

const SIG_BACKENDS: readonly SigBackend[] = SECP256K1_BACKEND_CHOICES;

/** Flags that are read from the command line only, as komodod reads them before the conf file. */
const COMMAND_LINE_ONLY = new Set(['datadir', 'conf', 'regtest', ...AC_FLAGS]);

function intValue(flag: string, v: string, min: number, max: number): number {
  const t = v.trim();
  if (!/^[+-]?\d+$/.test(t)) throw new ConfigError(`Invalid value for -${flag}: '${v}' (expected a whole number)`, flag);
  const n = Number(t);
  if (n < min || n > max) throw new ConfigError(`Invalid value for -${flag}: '${v}' (must be ${min}..${max})`, flag);
  return n;
}

/**
 * The first-start conf komodod writes (komodo_utils.cpp:467-505): rpcuser is "user" + a CRC-32 of the
 * time and the chain name, rpcpassword "pass" + 33 random bytes in hex.
 */
export function generatedConfText(name: string, rpcport: number, random: Uint8Array, nowMs: number): string {
  const buf = new Uint8Array(8 + name.length * 3);
  const view = new DataView(buf.buffer);
  view.setUint32(0, Math.floor(nowMs / 1000) >>> 0, true);
  view.setUint32(4, Math.floor(nowMs) >>> 0, true);
  const nameBytes = new TextEncoder().encode(name);
  buf.set(nameBytes, 8);
  const crc = crc32(buf.subarray(0, 8 + nameBytes.length));
  const password = Buffer.from(random).toString('hex');
  return (
    `rpcuser=user${crc}\nrpcpassword=pass${password}\nrpcport=${rpcport}\nserver=1\ntxindex=1\n` +
    `rpcworkqueue=256\nrpcallowip=127.0.0.1\nrpcbind=127.0.0.1\n`
  );
}

/** SplitHostPort for -rpcbind entries: "host", "host:port", "[v6]:port". */
function splitHostPort(entry: string, dfltPort: number): RpcEndpoint {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (m) return { host: m[1]!, port: m[2] ? intValue('rpcbind', m[2], 0, 65535) : dfltPort };
  const colon = entry.lastIndexOf(':');
  if (colon > 0 && entry.indexOf(':') === colon && /^\d+$/.test(entry.slice(colon + 1)))
    return { host: entry.slice(0, colon), port: intValue('rpcbind', entry.slice(colon + 1), 0, 65535) };
  return { host: entry, port: dfltPort };
}

function rpcEndpoints(rpcbind: readonly string[], rpcallowip: readonly string[], port: number): RpcEndpoint[] {
  // Loopback only unless -rpcallowip is given; -rpcbind counts only with -rpcallowip.
  if (rpcallowip.length === 0) return [{ host: '::1', port }, { host: '127.0.0.1', port }];
  if (rpcbind.length > 0) return rpcbind.map((b) => splitHostPort(b, port));
  return [{ host: '::', port }, { host: '0.0.0.0', port }];
}

function wrap<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof ParamsError) throw new ConfigError(e.message, e.flag);
    throw e;
  }
}

/** The chain: from -ac_* on the command line, or the dev chain when -ac_name is absent. */
function chainFromArgs(cmd: FlagMap, warnings: string[]): { chain: ChainParams; devChain: boolean; regtest: boolean } {
  const devChain = !cmd.has('ac_name');
  if (devChain) {
    const stray = [...cmd.keys()].filter((k) => k.startsWith('ac_'));
    if (stray.length)
      throw new ConfigError(
        `-${stray[0]} needs -ac_name: without -ac_name acnoded runs the fixed dev chain (${DEV_CHAIN_ARGV.join(' ')})`,
        stray[0],
      );
    // The dev chain's -regtest and -gen are defaults: -regtest=0 or -nogen on the command line win.
    if (!cmd.has('regtest')) cmd.set('regtest', ['']);
    if (!cmd.has('gen')) cmd.set('gen', ['']);
  }
  const regtest = cmd.has('regtest') ? boolValue('regtest', cmd.get('regtest')!.at(-1)!) : false;
  const cmdPortText = cmd.get('port')?.at(-1);
  const cmdPort = cmdPortText === undefined ? 0 : intValue('port', cmdPortText, 0, 65535);
  const chain = wrap(() => ChainParams.fromArgs(devChain ? DEV_CHAIN_AC_ARGS : cmd, { regtest, port: cmdPort }));
  warnings.push(...chain.ac.warnings);
  return { chain, devChain, regtest };
}

/** Data directory: -datadir, else ~/.acnode/<NAME>/; created when missing. */
function dataDirectory(cmd: FlagMap, chain: ChainParams, opts: ConfigOptions): string {
  const cwd = opts.cwd ?? process.cwd();
  const datadirArg = cmd.get('datadir')?.at(-1);
  if (datadirArg === '') throw new ConfigError('-datadir needs a value', 'datadir');
  const datadir = datadirArg !== undefined ? resolve(cwd, datadirArg) : join(opts.homedir ?? osHomedir(), '.acnode', chain.name);
  try {
    mkdirSync(datadir, { recursive: true });
  } catch (e) {
    throw new ConfigError(`Cannot create data directory "${datadir}": ${(e as Error).message}`, 'datadir');
  }
  if (!statSync(datadir).isDirectory()) throw new ConfigError(`Specified data directory "${datadir}" is not a directory.`, 'datadir');
  return datadir;
}

/** Conf file: -conf (relative to the data directory), else <datadir>/<NAME>.conf; written on first start. */
function readConfFile(cmd: FlagMap, datadir: string, chain: ChainParams, opts: ConfigOptions): { confPath: string; confCreated: boolean; confPairs: [string, string][] } {
  const confArg = cmd.get('conf')?.at(-1);
  if (confArg === '') throw new ConfigError('-conf needs a value', 'conf');
  const confPath = confArg !== undefined ? (isAbsolute(confArg) ? confArg : join(datadir, confArg)) : join(datadir, `${chain.name}.conf`);
  let confCreated = false;
  if (!existsSync(confPath)) {
    if (!existsSync(dirname(confPath))) throw new ConfigError(`Cannot create ${confPath}: no such directory`, 'conf');
    const random = (opts.randomBytes ?? ((n: number) => new Uint8Array(nodeRandomBytes(n))))(33);
    const text = generatedConfText(chain.name, chain.rpcPort, random, (opts.now ?? Date.now)());
    writeFileSync(confPath, text, { mode: 0o600, flag: 'wx' });
    confCreated = true;
  }
  let confText: string;
  try {
    confText = readFileSync(confPath, 'utf8');
  } catch (e) {
    throw new ConfigError(`Error reading configuration file ${confPath}: ${(e as Error).message}`, 'conf');
  }
  return { confPath, confCreated, confPairs: parseConfText(confText, confPath) };
}

/** The command line over the conf file's pairs; the flags acnode does not act on are listed as ignored. */
function mergeFlags(cmd: FlagMap, confPairs: [string, string][]): { flags: Flags; ignored: string[] } {
  const ignored: string[] = [];
  const kept: [string, string][] = [];
  for (const [k, v] of confPairs) {
    if (COMMAND_LINE_ONLY.has(k)) {
      // komodod reads -ac_*, -regtest and -datadir before the conf file.
      ignored.push(`${k} (conf file; read from the command line only)`);
      continue;
    }
    kept.push([k, v]);
  }
  const flags = new Flags(cmd, kept, isActed);

  for (const name of flags.names()) {
    if (isActed(name)) continue;
    // -noX of a known flag was turned into X=0 above.
    if (name.startsWith('no') && isActed(name.slice(2))) continue;
    ignored.push(name);
  }
  return { flags, ignored };
}

/** Typed readers of the merged flags: a malformed value fails at start, naming its flag. */
function flagReaders(flags: Flags) {
  const bool = (name: string, dflt: boolean): boolean => {
    const v = flags.get(name);
    return v === undefined ? dflt : boolValue(name, v);
  };
  const int = (name: string, dflt: number, min: number, max: number): number => {
    const v = flags.get(name);
    return v === undefined ? dflt : intValue(name, v, min, max);
  };
  const str = (name: string): string | null => flags.get(name) ?? null;
  // Every value of a list flag must be non-empty; a bare -addnode is a mistake.
  const list = (name: string): string[] => {
    const vs = flags.all(name);
    for (const v of vs) if (v.trim() === '') throw new ConfigError(`-${name} needs a value`, name);
    return vs.map((v) => v.trim());
  };
  return { bool, int, str, list };
}

/**
 * The flags checked at start though used elsewhere or in a shape of their own: the p2p numbers,
 * -txindex, -pubkey, -sigbackend and -walletresendtimes.
 */
function checkedFlags(flags: Flags, { bool, int, str }: ReturnType<typeof flagReaders>) {
  // P2P numbers the p2p actor reads through `flags`: malformed values fail here, naming the flag.
  int('maxconnections', 384, 0, 1_000_000);
  int('banscore', 101, 0, 0x7fffffff);
  int('bantime', 86400, 0, 0x7fffffff);
  if (!bool('txindex', true))
    throw new ConfigError('-txindex=0 is not supported: acnode always keeps the transaction index', 'txindex');

  const pubkey = str('pubkey');
  if (pubkey !== null && pubkey !== '' && !/^(02|03)[0-9a-fA-F]{64}$/.test(pubkey))
    throw new ConfigError(`Invalid -pubkey: '${pubkey}' (expected a 33-byte compressed public key in hex)`, 'pubkey');

  const sig = flags.get('sigbackend') ?? 'auto';
  if (!SIG_BACKENDS.includes(sig as SigBackend))
    throw new ConfigError(`Invalid value for -sigbackend: '${sig}' (expected ${SIG_BACKENDS.join(', ')})`, 'sigbackend');

  const resendText = str('walletresendtimes');
  let walletResendTimes: NodeConfig['walletResendTimes'] = null;
  if (resendText !== null) {
    const m = /^\s*(\d+)\s*,\s*(\d+)\s*$/.exec(resendText);
    if (!m) throw new ConfigError(`Invalid value for -walletresendtimes: '${resendText}' (expected MAXDELAY,MINAGE in seconds)`, 'walletresendtimes');
    walletResendTimes = { maxDelay: intValue('walletresendtimes', m[1]!, 1, 0x7fffffff), minAge: intValue('walletresendtimes', m[2]!, 0, 0x7fffffff) };
  }
  return { pubkey, sig: sig as SigBackend, walletResendTimes };
}

/**
 * Reads acnoded's configuration from its arguments (argv without the program name), the conf file
 * and the environment. Creates the data directory and, on a chain's first start, its conf file.
 */
export function loadConfig(argv: readonly string[], opts: ConfigOptions = {}): NodeConfig {
  const cmd = parseArgv(argv, isActed);
  const warnings: string[] = [];
  const { chain, devChain, regtest } = chainFromArgs(cmd, warnings);
  const datadir = dataDirectory(cmd, chain, opts);
  const { confPath, confCreated, confPairs } = readConfFile(cmd, datadir, chain, opts);
  const { flags, ignored } = mergeFlags(cmd, confPairs);
  const readers = flagReaders(flags);
  const { bool, int, str, list } = readers;
  const { pubkey, sig, walletResendTimes } = checkedFlags(flags, readers);

  const rpcport = int('rpcport', chain.rpcPort, 0, 65535);
  const rpcbind = list('rpcbind');
  const rpcallowip = list('rpcallowip');
  const endpoints = rpcEndpoints(rpcbind, rpcallowip, rpcport);
  if (rpcallowip.length === 0 && rpcbind.length > 0)
    warnings.push('option -rpcbind was ignored because -rpcallowip was not specified, refusing to allow everyone to connect');

  // komodod's init: experimental options without the global flag fail the start (mapArgs.count: any value).
  const experimentalfeatures = bool('experimentalfeatures', true);
  if (!experimentalfeatures && flags.get('developerencryptwallet') !== undefined)
    throw new ConfigError('Wallet encryption requires -experimentalfeatures.', 'developerencryptwallet');

  const rpcuser = str('rpcuser');
  const rpcpassword = str('rpcpassword');

  const config: NodeConfig = {
    chain,
    devChain,
    regtest,
    datadir,
    confPath,
    confCreated,
    rpcport,
    rpcuser,
    rpcpassword,
    rpcbind,
    rpcallowip,
    rpcEndpoints: endpoints,
    server: bool('server', true),
    port: int('port', chain.p2pPort, 0, 65535),
    listen: bool('listen', true),
    addnode: list('addnode'),
    connect: list('connect'),
    gen: bool('gen', false),
    genproclimit: int('genproclimit', -1, -1, 1024),
    pubkey: pubkey === '' ? null : pubkey,
    datacarriersize: int('datacarriersize', MAX_OP_RETURN_RELAY_AC, 0, 0x7fffffff),
    txexpirydelta: int('txexpirydelta', 200, 0, 500_000_000),
    // TopUpKeyPool: max(GetArg("-keypool", 100), 0), so a negative size is an empty target.
    keypool: Math.max(int('keypool', 100, -0x80000000, 1_000_000), 0),
    experimentalfeatures,
    developerencryptwallet: flags.get('developerencryptwallet') === undefined ? null : bool('developerencryptwallet', false),
    reindex: bool('reindex', false),
    txindex: true,
    addressindex: bool('addressindex', chain.indexesByDefault),
    spentindex: bool('spentindex', chain.indexesByDefault),
    timestampindex: bool('timestampindex', false),
    printtoconsole: bool('printtoconsole', false),
    daemon: bool('daemon', false),
    inspect: bool('inspect', false),
    explorer: bool('explorer', false),
    debug: flags.all('debug'),
    blocknotify: str('blocknotify'),
    walletnotify: str('walletnotify'),
    par: int('par', 0, -1024, 1024),
    // komodod's init clamps -dbcache to [nMinDbCache, nMaxDbCache] (4 MiB..16 GiB) rather than refusing it.
    dbcache: Math.min(Math.max(int('dbcache', 450, -(2 ** 31), 2 ** 31 - 1), 4), 16384),
    sigbackend: sig,
    walletResendTimes,
    help: bool('help', false) || bool('h', false) || bool('?', false),
    version: bool('version', false),
    ignored,
    warnings,
    flags,
  };
  return config;
}
