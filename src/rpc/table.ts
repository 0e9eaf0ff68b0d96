import { RpcError, RPC_IN_WARMUP, RPC_METHOD_NOT_FOUND, RPC_MISC_ERROR } from './errors.js';
import type { JsonOut, JsonValue } from './json-value.js';
import { getStr } from './params.js';

/** What help texts need to know to print their examples (komodod reads chainName and ASSETCHAINS_RPCPORT). */
export interface HelpEnv {
  /** the -ac_name of the chain */
  chainName: string;
  /** the RPC port the node was started with (the configured one, as komodod prints it) */
  rpcPort: number;
  /** pwalletMain->IsCrypted(): HelpRequiringPassphrase() and the encryption methods' help follow it (absent: never) */
  walletCrypted?: () => boolean;
}

/** komodod's HelpRequiringPassphrase(): a line in the help of the methods that need the keys, once the wallet is encrypted. */
export function helpRequiringPassphrase(env: HelpEnv): string {
  return env.walletCrypted?.() ? '\nRequires wallet passphrase to be set with walletpassphrase call.' : '';
}

/** What a handler receives besides its params. */
export interface RpcContext {
  readonly table: RpcTable;
  readonly env: HelpEnv;
  /** the method name as the client sent it */
  readonly method: string;
}

export interface RpcMethod {
  name: string;
  /** komodod's category ("control", "rawtransactions", ...); "hidden" keeps it out of the help list */
  category: string;
  /**
   * komodod's full help text: usage line, blank line, description, Arguments, Result, Examples. A
   * function receives the chain name and RPC port for HelpExampleCli/HelpExampleRpc lines.
   */
  help: string | ((env: HelpEnv) => string);
  /** argument count bounds; outside them the call fails with -1 and the help text, as komodod's
   *  `if (fHelp || params.size() < min || params.size() > max) throw runtime_error(help)` */
  minArgs?: number;
  maxArgs?: number;
  /** instead of (or besides) the bounds: false means "throw the help text" */
  checkArgs?: (params: JsonValue[]) => boolean;
  handler: (params: JsonValue[], ctx: RpcContext) => Promise<JsonOut> | JsonOut;
  /**
   * Consecutive calls of this method in a JSON-RPC batch start together instead of one after the
   * other: the service they reach applies them in the order they were sent and answers each as it
   * would answer it alone (sendrawtransaction: the mempool verifies them as a burst).
   */
  startTogetherInBatch?: boolean;
  /**
   * false: help neither lists nor shows the method now (komodod's encryption methods answer fHelp
   * without the help text in one wallet state: walletpassphrase while unencrypted, encryptwallet after;
   * getbalance64 computes instead of throwing its help, so it is never listed).
   */
  inHelp?: (env: HelpEnv) => boolean;
}

/** std::string operator< on the UTF-8 bytes, as komodod sorts category+name. */
function byteLess(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * komodod's CRPCTable: the method map, execute() with its warm-up and error rules, and help().
 */
export class RpcTable {
  private readonly methods = new Map<string, RpcMethod>();
  /** warm-up status text; while set, every method but help fails with -28 and this text */
  warmup: string | null = null;

  constructor(
    readonly env: HelpEnv,
    methods: Iterable<RpcMethod> = [],
  ) {
    for (const m of methods) this.register(m);
  }

  register(m: RpcMethod): void {
    if (this.methods.has(m.name)) throw new Error(`RPC method registered twice: ${m.name}`);
    this.methods.set(m.name, m);
  }

  get(name: string): RpcMethod | undefined {
    return this.methods.get(name);
  }

  names(): string[] {
    return [...this.methods.keys()];
  }

  helpText(m: RpcMethod): string {
    return typeof m.help === 'function' ? m.help(this.env) : m.help;
  }

  private argsOk(m: RpcMethod, params: JsonValue[]): boolean {
    if (m.minArgs !== undefined && params.length < m.minArgs) return false;
    if (m.maxArgs !== undefined && params.length > m.maxArgs) return false;
    if (m.checkArgs && !m.checkArgs(params)) return false;
    return true;
  }

  /**
   * CRPCTable::execute: warm-up (-28, help excepted), unknown method (-32601), the argument count (the
   * help text as -1), then the handler. An RpcError keeps its code; any other thrown value becomes -1
   * with its message (komodod's catch of std::exception). Only the message ever leaves, never a stack.
   */
  async execute(method: string, params: JsonValue[]): Promise<JsonOut> {
    return this.run(method, params);
  }

  /**
   * execute() without the extra promise when the handler answers synchronously: the same checks in
   * the same order, the value itself for a synchronous handler (its failure thrown here as an
   * RpcError), a promise for an asynchronous one (rejecting with an RpcError).
   */
  run(method: string, params: JsonValue[]): JsonOut | Promise<JsonOut> {
    const out = this.start(method, params);
    if (out instanceof Promise) return out.then(undefined, rethrowRpcError);
    return out;
  }

  /**
   * run() for a caller that passes every failure through toRpcError itself (the JSON-RPC envelope):
   * an asynchronous handler's promise as it is, its rejection not yet an RpcError (one promise and
   * one promise job less on every asynchronous call).
   */
  start(method: string, params: JsonValue[]): JsonOut | Promise<JsonOut> {
    if (this.warmup !== null && method !== 'help') throw new RpcError(RPC_IN_WARMUP, this.warmup);
    const m = this.methods.get(method);
    if (!m) throw new RpcError(RPC_METHOD_NOT_FOUND, 'Method not found');
    let out: Promise<JsonOut> | JsonOut;
    try {
      if (!this.argsOk(m, params)) throw new Error(this.helpText(m));
      out = m.handler(params, { table: this, env: this.env, method });
    } catch (e) {
      throw toRpcError(e);
    }
    return out;
  }

  /**
   * CRPCTable::help: with no command, each category's header `== Category ==` then the first line of
   * each help text, sorted by category+name, categories separated by a blank line, the "hidden" category
   * left out; with a command, its full text. Names containing "label" are skipped in both forms, a
   * handler shared by several names is shown once, and an unknown command gives
   * `help: unknown command: <cmd>`. The trailing newline is removed.
   */
  help(command: string): string {
    const sorted = [...this.methods.values()].sort((a, b) =>
      byteLess(a.category + a.name, b.category + b.name),
    );
    const done = new Set<RpcMethod['handler']>();
    let out = '';
    let category = '';
    for (const m of sorted) {
      if (m.name.includes('label')) continue;
      if ((command !== '' || m.category === 'hidden') && m.name !== command) continue;
      if (m.inHelp && !m.inHelp(this.env)) continue;
      if (done.has(m.handler)) continue;
      done.add(m.handler);
      let text = this.helpText(m);
      if (command === '') {
        const nl = text.indexOf('\n');
        if (nl !== -1) text = text.slice(0, nl);
        if (category !== m.category) {
          if (category !== '') out += '\n';
          category = m.category;
          out += `== ${category.slice(0, 1).toUpperCase()}${category.slice(1)} ==\n`;
        }
      }
      out += text + '\n';
    }
    if (out === '') out = `help: unknown command: ${command}\n`;
    return out.slice(0, -1);
  }
}

/** toRpcError for a promise's rejection (a module function: no closure made per call). */
function rethrowRpcError(e: unknown): never {
  throw toRpcError(e);
}

/** The std::exception rule: RpcError passes, anything else is -1 with its message. */
export function toRpcError(e: unknown): RpcError {
  if (e instanceof RpcError) return e;
  if (e instanceof Error) return new RpcError(RPC_MISC_ERROR, e.message);
  return new RpcError(RPC_MISC_ERROR, String(e));
}

/**
 * komodod's HelpExampleCli, naming our client: komodod prints `> komodo-cli -ac_name=<NAME> ...`;
 * acnode prints `> acnode-cli -ac_name=<NAME> ...` on purpose (deliberate naming departure: the
 * example must run with the client that ships with acnode, which takes the same flags).
 */
export function helpExampleCli(env: HelpEnv, method: string, args: string): string {
  return `> acnode-cli -ac_name=${env.chainName} ${method} ${args}\n`;
}

/** komodod's HelpExampleRpc, byte for byte: a curl line to 127.0.0.1:<rpcport>. */
export function helpExampleRpc(env: HelpEnv, method: string, args: string): string {
  return (
    `> curl --user myusername --data-binary '{"jsonrpc": "1.0", "id":"curltest", ` +
    `"method": "${method}", "params": [${args}] }' -H 'content-type: text/plain;' ` +
    `http://127.0.0.1:${env.rpcPort}/\n`
  );
}

/** komodod's `help` method (src/rpc/server.cpp), text byte for byte. */
export const helpMethod: RpcMethod = {
  name: 'help',
  category: 'control',
  help:
    'help ( "command" )\n' +
    '\nList all commands, or get help for a specified command.\n' +
    '\nArguments:\n' +
    '1. "command"     (string, optional) The command to get help on\n' +
    '\nResult:\n' +
    '"text"     (string) The help text\n',
  maxArgs: 1,
  handler(params, ctx) {
    const command = params.length > 0 ? getStr(params[0]!) : '';
    return ctx.table.help(command);
  },
};
