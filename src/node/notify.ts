import { spawn } from 'node:child_process';

/**
 * Runs komodod's notification commands (-blocknotify, -walletnotify): `%s` replaced by a hash, run by
 * the shell as komodod's system() does. Only 64 hex digits are ever substituted, so chain data cannot
 * inject shell syntax. Commands run one at a time in arrival order (a script appending to a file sees
 * the hashes in order), off the actors' path, from a bounded queue; a command that hangs is killed
 * after a timeout, so it delays later notifications but never stalls the node.
 */
export class CommandNotifier {
  private readonly queue: string[] = [];
  private running = false;
  private current: ReturnType<typeof spawn> | undefined;
  dropped = 0;

  constructor(
    private readonly template: string,
    private readonly log: (msg: string) => void,
    private readonly opts: { maxQueue?: number; timeoutMs?: number } = {},
  ) {}

  notify(hash: string): void {
    if (!/^[0-9a-f]{64}$/.test(hash)) return;
    const max = this.opts.maxQueue ?? 1000;
    if (this.queue.length >= max) {
      this.queue.shift();
      this.dropped++;
      this.log(`notify queue full: dropped the oldest of ${max} pending notifications`);
    }
    this.queue.push(this.template.split('%s').join(hash));
    if (!this.running) void this.drain();
  }

  private async drain(): Promise<void> {
    this.running = true;
    while (this.queue.length) {
      const cmd = this.queue.shift()!;
      const code = await this.run(cmd);
      if (code !== 0) this.log(`runCommand error: system(${cmd}) returned ${code}`);
    }
    this.running = false;
  }

  private run(cmd: string): Promise<number | null> {
    return new Promise((resolve) => {
      const child = spawn('/bin/sh', ['-c', cmd], { stdio: 'ignore', detached: true });
      this.current = child;
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }, this.opts.timeoutMs ?? 60_000);
      child.on('error', () => {
        clearTimeout(timer);
        resolve(-1);
      });
      child.on('exit', (code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
  }

  /** Shutdown: pending notifications are dropped and a running command is killed. */
  close(): void {
    this.queue.length = 0;
    const child = this.current;
    if (child?.pid !== undefined && child.exitCode === null) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }

  /** Resolves when every queued command has run (shutdown, tests). */
  async idle(): Promise<void> {
    while (this.running || this.queue.length) await new Promise((r) => setTimeout(r, 20));
  }
}
