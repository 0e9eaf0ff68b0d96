import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { request } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The one harness integration tests start real daemons with: a temporary data directory, OS-chosen
 * ports, readiness from the log line, a timeout on every wait, and teardown that kills the whole
 * process group even when a test failed, so no daemon outlives its test.
 */

const root = join(import.meta.dirname, '..', '..');
const live = new Set<Daemon>();
process.on('exit', () => {
  for (const d of live) d.kill('SIGKILL');
});
// Daemons run detached (their own process groups), so a test process ended by a signal (a timeout,
// Ctrl-C) would leave them running: every dev-chain daemon is on one network (ACDEV's magic and
// genesis), and one left behind keeps dialing its -addnode peers' ports, so a later test's daemon
// that binds such a port is joined to its longer chain (its own premine gone). The signal ends the
// process as before, after its daemons.
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(sig, () => {
    for (const d of live) d.kill('SIGKILL');
    process.kill(process.pid, sig);
  });
}

export interface RpcResult<T = unknown> {
  status: number;
  result: T;
  error: { code: number; message: string } | null;
  raw: string;
}

export class RpcCallError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** The error an RPC call fails with (the test fails if it succeeds). */
export async function rpcError(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof RpcCallError) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error('expected an RPC error');
}

export class Daemon {
  readonly log: string[] = [];
  private proc: ChildProcess | undefined;
  rpcPort = 0;
  user = '';
  password = '';
  private exited: Promise<number | null> = Promise.resolve(null);

  constructor(
    readonly datadir: string,
    readonly args: string[],
    /** Extra environment variables for the daemon (beside the test's own). */
    readonly env: Record<string, string> = {},
  ) {}

  /** Starts acnoded and waits for its "RPC server listening" line. */
  async start(timeoutMs = 60_000): Promise<this> {
    this.log.length = 0;
    const proc = spawn(process.execPath, ['--import', 'tsx', join(root, 'bin/acnoded.ts'), `-datadir=${this.datadir}`, '-rpcport=0', '-port=0', ...this.args], {
      cwd: root,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...this.env },
    });
    this.proc = proc;
    // Neither the child nor its pipes hold the test's event loop: a teardown that throws before
    // stopping it lets the test process end, and the 'exit' handler above kills it (a daemon kept
    // the process waiting on its pipes and outlived the run). stop() and kill() hold it again.
    proc.unref();
    (proc.stdout as Socket).unref();
    (proc.stderr as Socket).unref();
    live.add(this);
    // 'close', not 'exit': 'exit' may come before the last lines the daemon wrote (its error on a
    // refused start, its "stopped") have been read from its pipes, and tests read them from the log.
    this.exited = new Promise((resolve) => proc.on('close', (code) => resolve(code)));
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`acnoded not ready after ${timeoutMs} ms:\n${this.log.join('\n')}`)), timeoutMs);
      const onLine = (line: string) => {
        this.log.push(line);
        const m = /RPC server listening on .*\(rpcport=(\d+)\)/.exec(line);
        if (m) {
          this.rpcPort = Number(m[1]);
          clearTimeout(timer);
          resolve();
        }
      };
      // One line buffer per stream (a line written to stderr must not be spliced into a partial
      // stdout line), each decoding UTF-8 across chunk boundaries.
      for (const stream of [proc.stdout!, proc.stderr!]) {
        let buf = '';
        stream.setEncoding('utf8');
        stream.on('data', (chunk: string) => {
          buf += chunk;
          let nl;
          while ((nl = buf.indexOf('\n')) >= 0) {
            onLine(buf.slice(0, nl));
            buf = buf.slice(nl + 1);
          }
        });
      }
      proc.on('close', (code) => {
        clearTimeout(timer);
        reject(new Error(`acnoded exited with ${code} before it was ready:\n${this.log.join('\n')}`));
      });
    });
    await ready;
    const conf = readFileSync(this.confPath(), 'utf8');
    this.user = /^rpcuser=(.*)$/m.exec(conf)?.[1] ?? '';
    this.password = /^rpcpassword=(.*)$/m.exec(conf)?.[1] ?? '';
    return this;
  }

  /**
   * The first log line matching `re`, once it has come through the daemon's pipe: a line written
   * before an RPC reply or a socket event can still reach the test after it, so tests wait for it.
   */
  async logged(re: RegExp, timeoutMs = 30_000): Promise<string> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const line = this.log.find((l) => re.test(l));
      if (line !== undefined) return line;
      if (Date.now() > end) throw new Error(`acnoded did not log ${re} within ${timeoutMs} ms:\n${this.log.join('\n')}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** The node key acnoded logs at start (the line may follow the readiness line by a moment). */
  async nodePubkey(timeoutMs = 30_000): Promise<string> {
    return /node pubkey ([0-9a-f]{66})/.exec(await this.logged(/node pubkey [0-9a-f]{66}/, timeoutMs))![1]!;
  }

  confPath(): string {
    const name = /-ac_name=([^\s]+)/.exec(this.args.join(' '))?.[1] ?? 'ACDEV';
    return join(this.datadir, `${name}.conf`);
  }

  /** A raw JSON-RPC call; resolves with the HTTP status and the parsed envelope. */
  rpcRaw<T = unknown>(method: string, params: unknown[] = [], timeoutMs = 120_000): Promise<RpcResult<T>> {
    const body = JSON.stringify({ jsonrpc: '1.0', id: 'curltest', method, params });
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: this.rpcPort,
          method: 'POST',
          path: '/',
          headers: { 'content-type': 'text/plain;', authorization: `Basic ${Buffer.from(`${this.user}:${this.password}`).toString('base64')}` },
          timeout: timeoutMs,
        },
        (res) => {
          let raw = '';
          res.setEncoding('utf8');
          res.on('data', (c) => (raw += c));
          res.on('end', () => {
            try {
              const env = JSON.parse(raw) as { result: T; error: { code: number; message: string } | null };
              resolve({ status: res.statusCode ?? 0, result: env.result, error: env.error, raw });
            } catch {
              resolve({ status: res.statusCode ?? 0, result: undefined as T, error: null, raw });
            }
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} timed out after ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end(body);
    });
  }

  /** A JSON-RPC batch: the calls in one request; resolves with the envelopes, in order. */
  async rpcBatch(calls: [method: string, params: unknown[]][]): Promise<{ result: unknown; error: { code: number; message: string } | null; id: unknown }[]> {
    const body = JSON.stringify(calls.map(([method, params], id) => ({ jsonrpc: '1.0', id, method, params })));
    const res = await fetch(`http://127.0.0.1:${this.rpcPort}/`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain;', authorization: `Basic ${Buffer.from(`${this.user}:${this.password}`).toString('base64')}` },
      body,
    });
    return (await res.json()) as { result: unknown; error: { code: number; message: string } | null; id: unknown }[];
  }

  /** A JSON-RPC call that throws RpcCallError on an error reply. */
  async rpc<T = unknown>(method: string, ...params: unknown[]): Promise<T> {
    const r = await this.rpcRaw<T>(method, params);
    if (r.error) throw new RpcCallError(r.error.code, r.error.message, r.status);
    return r.result;
  }

  /** The child and its pipes hold the event loop again: its exit, and its last lines, are awaited. */
  private hold(): void {
    this.proc?.ref();
    (this.proc?.stdout as Socket | null | undefined)?.ref();
    (this.proc?.stderr as Socket | null | undefined)?.ref();
  }

  /** The process is running (started and not exited). */
  get running(): boolean {
    return !!this.proc && this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** Signals the daemon's process group; its exit is then waited for, so the child holds the event loop again. */
  kill(signal: NodeJS.Signals = 'SIGKILL'): void {
    if (!this.proc || this.proc.pid === undefined) return;
    this.hold();
    if (this.proc.exitCode !== null) return;
    try {
      process.kill(-this.proc.pid, signal);
    } catch {
      // Already gone.
    }
  }

  /** Stops the daemon: `stop` over RPC (or SIGTERM), then SIGKILL after the timeout. */
  async stop(timeoutMs = 60_000): Promise<number | null> {
    if (!this.proc || this.proc.exitCode !== null) return this.proc?.exitCode ?? null;
    await this.rpcRaw('stop').catch(() => this.kill('SIGTERM'));
    this.hold();
    const timer = setTimeout(() => this.kill('SIGKILL'), timeoutMs);
    const code = await this.exited;
    clearTimeout(timer);
    live.delete(this);
    return code;
  }

  /** Waits for the daemon to exit by itself (after encryptwallet, say); SIGKILL and a failure after the timeout. */
  async exitedBy(timeoutMs = 30_000): Promise<number | null> {
    if (!this.proc) return null;
    this.hold();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.kill('SIGKILL');
        reject(new Error(`acnoded still running ${timeoutMs} ms later`));
      }, timeoutMs);
    });
    try {
      return await Promise.race([this.exited, late]);
    } finally {
      clearTimeout(timer);
      live.delete(this);
    }
  }

  async crash(): Promise<void> {
    this.kill('SIGKILL');
    await this.exited;
    live.delete(this);
  }
}

/** A fresh daemon on a temporary data directory; `args` are extra acnoded flags (none: the dev chain). */
export async function startDaemon(
  args: string[] = ['-gen=0'],
  datadir = mkdtempSync(join(tmpdir(), 'acnode-it-')),
  env: Record<string, string> = {},
): Promise<Daemon> {
  return new Daemon(datadir, args, env).start();
}

/**
 * Removes a data directory (or a folder holding some). Refused while a daemon still runs on one:
 * whatever that daemon writes meanwhile (a wallet record, a store compaction) can land between
 * rmSync's listing and its rmdir, which then fails with ENOTEMPTY now and then; every daemon on a
 * directory stops before it goes. Such a daemon is killed (none outlives its test) and the call
 * fails, every time rather than now and then.
 */
export function removeDir(dir: string): void {
  const inside = (d: Daemon) => d.datadir === dir || d.datadir.startsWith(dir.endsWith(sep) ? dir : dir + sep);
  const users = [...live].filter((d) => d.running && inside(d));
  if (users.length > 0) {
    for (const d of users) d.kill('SIGKILL');
    throw new Error(`removeDir: a daemon still runs on ${dir} (${users[0]!.args.join(' ')}); stop it first`);
  }
  rmSync(dir, { recursive: true, force: true });
}
