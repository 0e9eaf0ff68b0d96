import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** Runs bin/acnode-cli.mjs (as `npx acnode-cli` does) and collects its output and exit status. */

const root = join(import.meta.dirname, '..', '..');

export interface CliRun {
  code: number | null;
  out: string;
  err: string;
}

export interface CliProc {
  proc: ChildProcess;
  /** output so far */
  readonly out: () => string;
  readonly err: () => string;
  done: Promise<CliRun>;
  /** resolves once stdout (or stderr) matches, rejects after the timeout */
  waitFor(re: RegExp, timeoutMs?: number, stream?: 'out' | 'err'): Promise<void>;
}

export function startCli(args: string[], opts: { env?: NodeJS.ProcessEnv; stdin?: string; timeoutMs?: number } = {}): CliProc {
  const proc = spawn(process.execPath, [join(root, 'bin/acnode-cli.mjs'), ...args], {
    cwd: root,
    env: { ...process.env, ...opts.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const waiters: (() => void)[] = [];
  proc.stdout!.setEncoding('utf8').on('data', (c: string) => {
    out += c;
    for (const w of [...waiters]) w();
  });
  proc.stderr!.setEncoding('utf8').on('data', (c: string) => {
    err += c;
    for (const w of [...waiters]) w();
  });
  if (opts.stdin !== undefined) proc.stdin!.end(opts.stdin);
  else proc.stdin!.end();
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
  const done = new Promise<CliRun>((resolve) =>
    proc.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    }),
  );
  return {
    proc,
    out: () => out,
    err: () => err,
    done,
    waitFor(re, ms = 30_000, stream = 'out') {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (re.test(stream === 'out' ? out : err)) {
            clearTimeout(t);
            waiters.splice(waiters.indexOf(check), 1);
            resolve();
          }
        };
        const t = setTimeout(() => {
          waiters.splice(waiters.indexOf(check), 1);
          reject(new Error(`no ${re} within ${ms} ms; stdout:\n${out}\nstderr:\n${err}`));
        }, ms);
        waiters.push(check);
        check();
      });
    },
  };
}

export function runCliProc(args: string[], opts: { env?: NodeJS.ProcessEnv; stdin?: string; timeoutMs?: number } = {}): Promise<CliRun> {
  return startCli(args, opts).done;
}

/** A loopback port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
