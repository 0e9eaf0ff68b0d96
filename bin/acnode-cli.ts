#!/usr/bin/env node
// acnode-cli: the command-line client (komodo-cli's flags and output). Thin: all of it is src/cli.
import { runCli } from '../src/cli/main.js';

function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    process.stdin.on('data', (c: Buffer) => chunks.push(c));
    process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', reject);
  });
}

function write(stream: NodeJS.WriteStream, text: string): void {
  stream.write(text);
}

runCli(process.argv.slice(2), {
  stdout: (t) => write(process.stdout, t),
  stderr: (t) => write(process.stderr, t),
  readStdin,
}).then(
  // komodo-cli returns |error code|; the operating system keeps the low 8 bits (-32601 exits with 89).
  (code) => {
    process.exitCode = code & 0xff;
  },
  (e: unknown) => {
    process.stderr.write(`acnode-cli: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  },
);
