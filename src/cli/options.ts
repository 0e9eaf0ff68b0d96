import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir as osHomedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { Flags, parseConfText, type FlagMap } from '../node/config-args.js';

/**
 * komodo-cli's start (src/bitcoin-cli.cpp AppInitRPC, util.cpp ParseParameters/GetDataDir/
 * GetConfigFile/ReadConfigFile at 0adeeab), with acnode's directories: the switches before the method,
 * the data directory (`-datadir`, else `~/.acnode/<NAME>/`, NAME = -ac_name or the dev chain ACDEV),
 * the conf file (`-conf`, relative to the data directory, else `<datadir>/<NAME>.conf`) and the
 * settings in force (command line first, then the conf file's first value).
 */

/** The dev chain acnoded runs without -ac_name (design.md). */
export const DEV_CHAIN_NAME = 'ACDEV';

/** A start-up failure, printed as komodo-cli prints it (the message is the whole line). */
export class CliStartError extends Error {
  override readonly name = 'CliStartError';
}

export interface SplitArgs {
  /** The switches (ParseParameters reads up to the first argument that is not a switch). */
  readonly flags: FlagMap;
  /** The method and its params: everything after the switches. */
  readonly args: string[];
}

/**
 * ParseParameters + CommandLineRPC's "skip switches": `-name=value`, `-name`, `--name` as `-name`,
 * repeats kept, `-noX` meaning `-X=0` unless -X is set; the first argument whose name part does not
 * start with `-` ends the switches, so `generate -1` keeps `-1` as a param.
 */
export function splitArgs(argv: readonly string[]): SplitArgs {
  const flags: FlagMap = new Map();
  let i = 0;
  for (; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    let name = eq < 0 ? arg : arg.slice(0, eq);
    const value = eq < 0 ? '' : arg.slice(eq + 1);
    if (!name.startsWith('-')) break;
    if (name.length > 1 && name[1] === '-') name = name.slice(1);
    const key = name.slice(1);
    const list = flags.get(key);
    if (list) list.push(value);
    else flags.set(key, [value]);
  }
  // InterpretNegativeSetting: -nofoo means -foo=0 (and -nofoo=0 -foo=1) as long as -foo is not set.
  for (const [key, values] of [...flags]) {
    if (!key.startsWith('no') || key.length <= 2) continue;
    const positive = key.slice(2);
    if (flags.has(positive)) continue;
    flags.set(positive, [interpretBool(values[values.length - 1]!) ? '0' : '1']);
  }
  return { flags, args: argv.slice(i) };
}

/** InterpretBool: "" is true, else atoi(value) != 0 (so "yes" is false, as in komodod). */
export function interpretBool(value: string): boolean {
  if (value === '') return true;
  return atoi(value) !== 0;
}

/** C atoi/atoi64: leading whitespace, an optional sign, then digits; anything else stops it (0 if none). */
export function atoi(value: string): number {
  const m = /^[ \t\n\v\f\r]*([+-]?\d+)/.exec(value);
  return m ? Number(m[1]) : 0;
}

export interface CliSettings {
  readonly chainName: string;
  readonly datadir: string;
  readonly confPath: string;
  readonly host: string;
  readonly port: number;
  /** Where the port came from, for the "couldn't connect" hint. */
  readonly portSource: string;
  /** `user:password` for basic auth (rpcuser/rpcpassword, else the .cookie file); null when neither
   *  exists, and `credentialsError` says so when the call is made (CallRPC's order). */
  readonly credentials: string | null;
  readonly credentialsError: string;
  readonly wait: boolean;
  readonly stdin: boolean;
  /** -rpcclienttimeout in seconds (0: none). */
  readonly timeoutSec: number;
  readonly flags: Flags;
}

export interface SettingsEnv {
  readonly homedir?: string;
  readonly cwd?: string;
}

/** komodod's BaseParams().RPCPort(): main 7771, testnet 17771, regtest 18232 (chainparamsbase.cpp). */
function basePort(flags: Flags): { port: number; source: string } {
  const b = (name: string) => flags.has(name) && interpretBool(flags.get(name)!);
  if (b('regtest')) return { port: 18232, source: 'the regtest default' };
  if (b('testnet')) return { port: 17771, source: 'the testnet default' };
  return { port: 7771, source: 'the default' };
}

/**
 * AppInitRPC's data directory and conf file checks, then the settings CallRPC and CommandLineRPC read.
 * Departure: komodo-cli creates a missing default data directory; acnode-cli creates nothing and says
 * which conf file it looked for.
 */
export function loadSettings(cmd: FlagMap, env: SettingsEnv = {}): CliSettings {
  const last = (name: string) => cmd.get(name)?.at(-1);
  const acName = last('ac_name');
  const chainName = acName !== undefined && acName !== '' ? acName : DEV_CHAIN_NAME;
  const datadirArg = last('datadir');
  let datadir: string;
  if (datadirArg !== undefined) {
    datadir = resolve(env.cwd ?? process.cwd(), datadirArg);
    if (!isDir(datadir)) throw new CliStartError(`Error: Specified data directory "${datadirArg}" does not exist.`);
  } else {
    datadir = join(env.homedir ?? osHomedir(), '.acnode', chainName);
  }
  const confArg = last('conf');
  const confName = confArg !== undefined ? confArg : `${chainName}.conf`;
  const confPath = isAbsolute(confName) ? confName : join(datadir, confName);
  if (!existsSync(confPath)) {
    throw new CliStartError(
      `Error reading configuration file: Missing ${confPath}\n` +
        `(acnoded writes it on the chain's first start: start acnoded${acName ? ` -ac_name=${acName}` : ''}, ` +
        'or point acnode-cli at it with -datadir or -conf)',
    );
  }
  let pairs: [string, string][];
  try {
    pairs = parseConfText(readFileSync(confPath, 'utf8'), confPath);
  } catch (e) {
    throw new CliStartError(`Error reading configuration file: ${(e as Error).message}`);
  }
  const flags = new Flags(cmd, pairs);
  if (flags.has('regtest') && flags.has('testnet') && interpretBool(flags.get('regtest')!) && interpretBool(flags.get('testnet')!))
    throw new CliStartError('Error: Invalid combination of -regtest and -testnet.');
  if (flags.has('rpcssl') && interpretBool(flags.get('rpcssl')!))
    throw new CliStartError('Error: SSL mode for RPC (-rpcssl) is no longer supported.');

  const bool = (name: string) => flags.has(name) && interpretBool(flags.get(name)!);
  let port: number;
  let portSource: string;
  if (flags.get('rpcport') !== undefined) {
    port = atoi(flags.get('rpcport')!);
    portSource = cmd.has('rpcport') ? '-rpcport' : `rpcport in ${confPath}`;
  } else {
    ({ port, source: portSource } = basePort(flags));
  }
  const password = flags.get('rpcpassword') ?? '';
  let credentials: string | null;
  const credentialsError =
    'Could not locate RPC credentials. No authentication cookie could be found,\n' +
    `and no rpcpassword is set in the configuration file (${confPath}).`;
  if (password === '') {
    // Cookie authentication when no password is set (GetAuthCookie: first line of <datadir>/.cookie).
    const cookieArg = flags.get('rpccookiefile') ?? '.cookie';
    const cookiePath = isAbsolute(cookieArg) ? cookieArg : join(datadir, cookieArg);
    try {
      credentials = readFileSync(cookiePath, 'utf8').split('\n')[0]!;
    } catch {
      credentials = null;
    }
  } else {
    credentials = `${flags.get('rpcuser') ?? ''}:${password}`;
  }
  const timeoutText = flags.get('rpcclienttimeout');
  return {
    chainName,
    datadir,
    confPath,
    host: flags.get('rpcconnect') ?? '127.0.0.1',
    port,
    portSource,
    credentials,
    credentialsError,
    wait: bool('rpcwait'),
    stdin: bool('stdin'),
    timeoutSec: timeoutText === undefined ? 900 : atoi(timeoutText),
    flags,
  };
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
