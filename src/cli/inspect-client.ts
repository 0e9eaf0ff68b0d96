import WebSocket from 'ws';
import { JsonObject } from '../rpc/json-value.js';
import { CallFailed, ConnectionFailed, callRpc } from './http.js';
import type { CliSettings } from './options.js';
import type { CliIo } from './io.js';
import type { InspectRecord } from '../node/inspect.js';

/**
 * `acnode-cli inspect [actor...]`: asks the node (getactorstates) where its inspection endpoint is,
 * connects to it and prints every message as one line: time, actor, what happened (← an event it
 * received, → an event it emitted, = its new state, + a new actor), the request id and op, and the
 * sender when it is another actor. Naming actors prints only the lines that concern them.
 */

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 23);
}

/** One readable line for a record (the format `acnode-cli inspect` prints). */
export function formatRecord(r: InspectRecord): string {
  const head = `${clock(r.time)} ${pad(r.actor, 14)} `;
  const req = r.reqId !== undefined ? ` #${r.reqId}` : '';
  const op = r.op ? ` ${r.op}` : '';
  switch (r.kind) {
    case 'actor':
      return `${head}+ started (${r.type})`;
    case 'event':
      return `${head}← ${r.type}${req}${op}${r.source ? ` from ${r.source}` : ''}`;
    case 'emit':
      return `${head}→ ${r.type}${req}${r.ok === undefined ? '' : r.ok ? ' ok' : ' failed'}${r.detail ? ` ${r.detail}` : ''}`;
    case 'state':
      return `${head}= ${r.state}${r.status && r.status !== 'active' ? ` (${r.status})` : ''}`;
    case 'rpc':
      if (r.ok === undefined) return `${head}← ${r.type}${r.detail ? ` ${r.detail}` : ''}`;
      return `${head}→ ${r.type} ${r.ok ? 'ok' : 'failed'}${r.detail ? ` ${r.detail}` : ''}`;
  }
}

function interruptedDefault(): Promise<void> {
  return new Promise((resolve) => {
    const done = () => resolve();
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}

async function inspectorUrl(s: CliSettings, io: CliIo): Promise<string | null> {
  const sleep = io.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  for (;;) {
    try {
      if (s.credentials === null) throw new CallFailed(s.credentialsError);
      const reply = await callRpc({ host: s.host, port: s.port, credentials: s.credentials, timeoutSec: s.timeoutSec }, 'getactorstates', []);
      const error = reply.get('error');
      if (error instanceof JsonObject) {
        const code = error.get('code');
        if (s.wait && code !== null && String(code) === '-28') throw new ConnectionFailed('server in warmup');
        throw new CallFailed(`getactorstates failed: ${String(error.get('message'))}`);
      }
      const result = reply.get('result');
      const url = result instanceof JsonObject ? result.get('inspector') : null;
      return typeof url === 'string' ? url : null;
    } catch (e) {
      if (e instanceof ConnectionFailed && s.wait) {
        await sleep(1000);
        continue;
      }
      throw e;
    }
  }
}

export async function runInspect(s: CliSettings, filters: string[], io: CliIo): Promise<number> {
  let url: string | null;
  try {
    url = await inspectorUrl(s, io);
  } catch (e) {
    if (e instanceof ConnectionFailed) {
      io.stderr(`error: ${e.message}\n(acnode-cli tried ${s.host}:${s.port}, the port from ${s.portSource})\n`);
      return 1;
    }
    if (e instanceof CallFailed) {
      io.stderr(`error: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
  if (url === null) {
    io.stderr('error: the node is not running with -inspect (restart acnoded with -inspect to stream its actors)\n');
    return 1;
  }
  const wanted = new Set(filters);
  // The URL carries the node's per-start token (the endpoint refuses a client without it).
  const ws = new WebSocket(url);
  io.stderr(`inspecting ${url.replace(/\?.*$/, '')}${wanted.size ? ` (actors: ${[...wanted].join(', ')})` : ''}; Ctrl-C to stop\n`);
  return new Promise<number>((resolve) => {
    let finished = false;
    const finish = (code: number) => {
      if (finished) return;
      finished = true;
      ws.removeAllListeners();
      ws.on('error', () => {});
      ws.terminate();
      resolve(code);
    };
    ws.on('message', (data) => {
      let rec: InspectRecord | undefined;
      try {
        rec = (JSON.parse(String(data)) as { acnode?: InspectRecord }).acnode;
      } catch {
        return;
      }
      if (!rec) return;
      if (rec.kind === 'state' && rec.detail === 'same') return;
      if (wanted.size && !wanted.has(rec.actor) && !(rec.source && wanted.has(rec.source))) return;
      io.stdout(`${formatRecord(rec)}\n`);
    });
    ws.on('error', (e) => {
      io.stderr(`error: inspection stream: ${e.message}\n`);
      finish(1);
    });
    ws.on('close', () => {
      io.stderr('inspection stream closed by the node\n');
      finish(0);
    });
    void (io.interrupted ?? interruptedDefault()).then(() => finish(0));
  });
}
