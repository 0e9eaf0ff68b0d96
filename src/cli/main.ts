import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { JsonNumber, JsonObject, type JsonValue } from '../rpc/json-value.js';
import { ConvertError, rpcConvertValues } from './convert.js';
import { writePretty } from './format.js';
import { CallFailed, ConnectionFailed, callRpc } from './http.js';
import { CliStartError, interpretBool, loadSettings, splitArgs, type CliSettings } from './options.js';
import { runInspect } from './inspect-client.js';
import type { CliIo } from './io.js';

/**
 * acnode-cli: komodo-cli's behaviour (src/bitcoin-cli.cpp at 0adeeab) against acnoded.
 * `acnode-cli [options] <method> [params...]`: the params are converted by komodo-cli's table,
 * the result printed raw when it is a string and as indented JSON otherwise, an error as
 * `error code: N` / `error message:` / the message on stderr with exit status |N|.
 * `acnode-cli [options] inspect [actor...]` prints the node's inspection stream (acnoded -inspect).
 */

const EXIT_SUCCESS = 0;
const EXIT_FAILURE = 1;
/** komodod's RPC_IN_WARMUP: -rpcwait waits through it. */
const RPC_IN_WARMUP = -28;

function version(): string {
  try {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version?: string };
    return `v${pkg.version ?? '0.0.0'}`;
  } catch {
    return 'v0.0.0';
  }
}

/** HelpMessageCli with acnode's names, defaults and the -ac_name and inspect additions. */
export function usageText(withOptions: boolean): string {
  let s = `Acnode RPC client version ${version()}\n`;
  if (!withOptions) return s;
  s +=
    '\nUsage:\n' +
    '  acnode-cli [options] <command> [params]  Send command to acnoded\n' +
    '  acnode-cli [options] help                List commands\n' +
    '  acnode-cli [options] help <command>      Get help for a command\n' +
    '  acnode-cli [options] inspect [actor...]  Print the live inspection stream of acnoded -inspect\n' +
    '\nOptions:\n' +
    '\n' +
    '  -?\n       This help message\n\n' +
    '  -ac_name=<name>\n       The asset chain: finds <datadir>/<name>.conf (default data directory\n' +
    '       ~/.acnode/<name>/; without -ac_name the dev chain ACDEV)\n\n' +
    '  -conf=<file>\n       Specify configuration file (default: <name>.conf in the data directory)\n\n' +
    '  -datadir=<dir>\n       Specify data directory\n\n' +
    '  -testnet\n       Use the test network\n\n' +
    '  -regtest\n       Enter regression test mode, which uses a special chain in which blocks can be\n' +
    '       solved instantly. This is intended for regression testing tools and app development.\n\n' +
    '  -rpcconnect=<ip>\n       Send commands to node running on <ip> (default: 127.0.0.1)\n\n' +
    '  -rpcport=<port>\n       Connect to JSON-RPC on <port> (default: rpcport in the conf file, else 7771)\n\n' +
    '  -rpcwait\n       Wait for RPC server to start\n\n' +
    '  -rpcuser=<user>\n       Username for JSON-RPC connections\n\n' +
    '  -rpcpassword=<pw>\n       Password for JSON-RPC connections\n\n' +
    '  -rpcclienttimeout=<n>\n       Timeout in seconds during HTTP requests, or 0 for no timeout. (default: 900)\n\n' +
    '  -stdin\n       Read extra arguments from standard input, one per line until EOF/Ctrl-D\n' +
    '       (recommended for sensitive information such as passphrases)\n';
  return s;
}

/** std::getline over standard input: one argument per line, no empty last line after a final newline. */
export function stdinLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function defaultSleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** UniValue::getValStr of the error code, as `error code: N` prints it. */
function valStr(v: JsonValue): string {
  if (v instanceof JsonNumber) return v.text;
  if (typeof v === 'string') return v;
  if (v === true) return '1';
  if (v === false) return '';
  return '';
}

/** A JSON integer as get_int reads it (komodod: "JSON value is not an integer as expected"). */
function getInt(v: JsonValue): number {
  if (!(v instanceof JsonNumber) || !/^-?\d+$/.test(v.text)) throw new CallFailed('JSON value is not an integer as expected');
  const n = Number(v.text);
  if (n < -2147483648 || n > 2147483647) throw new CallFailed('JSON integer out of range');
  return n;
}

/**
 * One RPC call with komodo-cli's printing rules; -rpcwait retries connection failures and warm-up
 * (-28) every second. Returns [text to print, exit status].
 */
async function commandLineRpc(s: CliSettings, method: string, params: JsonValue[], io: CliIo): Promise<[string, number]> {
  const sleep = io.sleep ?? defaultSleep;
  for (;;) {
    try {
      if (s.credentials === null) throw new CallFailed(s.credentialsError);
      const reply = await callRpc({ host: s.host, port: s.port, credentials: s.credentials, timeoutSec: s.timeoutSec }, method, params);
      const result = reply.get('result');
      const error = reply.get('error');
      if (error !== null) {
        const code = getInt(error instanceof JsonObject ? error.get('code') : null);
        if (s.wait && code === RPC_IN_WARMUP) throw new ConnectionFailed('server in warmup');
        let out = '';
        if (error instanceof JsonObject) {
          const errCode = error.get('code');
          const errMsg = error.get('message');
          out = errCode === null ? '' : `error code: ${valStr(errCode)}\n`;
          if (typeof errMsg === 'string') out += `error message:\n${errMsg}`;
        }
        return [out, Math.abs(code)];
      }
      if (result === null) return ['', EXIT_SUCCESS];
      if (typeof result === 'string') return [result, EXIT_SUCCESS];
      return [writePretty(result, 2), EXIT_SUCCESS];
    } catch (e) {
      if (e instanceof ConnectionFailed && s.wait) {
        await sleep(1000);
        continue;
      }
      if (e instanceof ConnectionFailed) {
        return [`error: ${e.message}\n(acnode-cli tried ${s.host}:${s.port}, the port from ${s.portSource})`, EXIT_FAILURE];
      }
      if (e instanceof CallFailed) return [`error: ${e.message}`, EXIT_FAILURE];
      throw e;
    }
  }
}

/**
 * The whole client: returns the exit status (komodo-cli returns |code| for an RPC error; the operating
 * system keeps its low 8 bits).
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const { flags: cmd, args: positional } = splitArgs(argv);
  const has = (n: string) => cmd.has(n);
  if (argv.length === 0 || has('?') || has('h') || has('help') || has('version')) {
    io.stdout(usageText(!has('version')));
    if (argv.length === 0) {
      io.stderr('Error: too few parameters\n');
      return EXIT_FAILURE;
    }
    return EXIT_SUCCESS;
  }
  let settings: CliSettings;
  try {
    settings = loadSettings(cmd, { ...(io.homedir ? { homedir: io.homedir } : {}), ...(io.cwd ? { cwd: io.cwd } : {}) });
  } catch (e) {
    if (e instanceof CliStartError) {
      io.stderr(`${e.message}\n`);
      return EXIT_FAILURE;
    }
    throw e;
  }

  let out: string;
  let ret: number;
  try {
    const args = [...positional];
    if (settings.stdin) args.push(...stdinLines(await io.readStdin()));
    if (args.length < 1) throw new CallFailed('too few parameters (need at least command)');
    const method = args[0]!;
    if (method === 'inspect') return await runInspect(settings, args.slice(1), io);
    const params = rpcConvertValues(method, args.slice(1));
    [out, ret] = await commandLineRpc(settings, method, params, io);
  } catch (e) {
    if (e instanceof ConvertError || e instanceof CallFailed) {
      out = `error: ${e.message}`;
      ret = EXIT_FAILURE;
    } else {
      out = `error: ${e instanceof Error ? e.message : String(e)}`;
      ret = EXIT_FAILURE;
    }
  }
  if (out !== '') (ret === 0 ? io.stdout : io.stderr)(`${out}\n`);
  return ret;
}

export { interpretBool };
