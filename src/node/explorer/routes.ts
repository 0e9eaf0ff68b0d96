import type { IncomingMessage, ServerResponse } from 'node:http';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { RpcTable } from '../../rpc/table.js';
import { answer } from './data.js';

/**
 * The local explorer page's routes on the inspection port. The hub calls them only for requests that
 * carried this start's token, came from no Origin or the node's own, and named a loopback Host.
 *
 *   /?token=T          → redirect to /t/T/ (the URL the node logs)
 *   /t/T/              → the page (src/web/index.html)
 *   /t/T/<file>        → the page's own files (src/web/*.js, *.css)
 *   /t/T/vendor/<name> → the few library files it uses, from node_modules
 *   /t/T/api (POST)    → the data endpoint: read-only JSON-RPC methods (data.ts)
 *
 * The token sits in the path so that the page's relative module imports carry it. Every answer has a
 * Content-Security-Policy of `default-src 'self'`: the page cannot load or send anything elsewhere.
 */

const WEB_DIR = fileURLToPath(new URL('../../web/', import.meta.url));
const MODULES = fileURLToPath(new URL('../../../node_modules/', import.meta.url));

/** The library files the page may load, by the name it asks for (nothing else under node_modules). */
const VENDOR: ReadonlyMap<string, string> = new Map([
  ['preact.js', 'preact/dist/preact.module.js'],
  ['htm.js', 'htm/dist/htm.module.js'],
  ['uplot.js', 'uplot/dist/uPlot.esm.js'],
  ['uplot.css', 'uplot/dist/uPlot.min.css'],
  ['dagre.js', '@dagrejs/dagre/dist/dagre.min.js'],
]);

const TYPES: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
};

/** At most this much request body reaches the data endpoint (a decoderawtransaction of a big tx fits). */
const MAX_BODY = 4 * 1024 * 1024;

export const CSP = "default-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function headers(type: string): Record<string, string> {
  return {
    'Content-Type': type,
    'Content-Security-Policy': CSP,
    'X-Content-Type-Options': 'nosniff',
    // The token is in every URL of the page: no Referer may carry it anywhere.
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  };
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, headers(type));
  res.end(body);
}

export interface ExplorerOptions {
  /** the read-only method table (explorerTable) */
  table: RpcTable;
  /** true with -inspect: the page may open the actor stream and link to /stately */
  stream: boolean;
}

/** The page's files as they are at start (the list is fixed; the content is read per request). */
function webFiles(): Set<string> {
  return new Set(readdirSync(WEB_DIR).filter((f) => /^[a-z0-9-]+\.(?:html|js|css|svg)$/.test(f)));
}

export function explorerRoutes(opts: ExplorerOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  const files = webFiles();
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://h');
    if (url.pathname === '/') {
      const token = url.searchParams.get('token') ?? '';
      res.writeHead(302, { ...headers('text/plain; charset=utf-8'), Location: `/t/${encodeURIComponent(token)}/` });
      res.end();
      return true;
    }
    const m = /^\/t\/[^/]+\/(.*)$/.exec(url.pathname);
    if (!m) return false;
    const rest = m[1]!;
    if (rest === 'api') {
      if (req.method !== 'POST') {
        send(res, 405, 'text/plain; charset=utf-8', 'POST only\n');
        return true;
      }
      readBody(req).then(
        async (body) => send(res, 200, 'application/json', await answer(opts.table, body)),
        () => send(res, 413, 'text/plain; charset=utf-8', 'Request body too large\n'),
      );
      return true;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, 'text/plain; charset=utf-8', 'GET only\n');
      return true;
    }
    if (rest === 'mode.json') {
      send(res, 200, 'application/json', JSON.stringify({ stream: opts.stream }));
      return true;
    }
    const vendor = rest.startsWith('vendor/') ? VENDOR.get(rest.slice(7)) : undefined;
    const file = rest === '' ? 'index.html' : rest;
    let path: string | undefined;
    if (vendor) path = join(MODULES, vendor);
    else if (files.has(file)) path = join(WEB_DIR, file);
    if (!path) {
      send(res, 404, 'text/plain; charset=utf-8', 'Not found\n');
      return true;
    }
    let body: Buffer;
    try {
      body = readFileSync(path);
    } catch {
      send(res, 404, 'text/plain; charset=utf-8', 'Not found\n');
      return true;
    }
    send(res, 200, TYPES[path.slice(path.lastIndexOf('.') + 1)] ?? 'application/octet-stream', body);
    return true;
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    // Past the limit the rest is read and dropped, so the answer still reaches the client.
    req.on('data', (d: Buffer) => {
      size += d.length;
      if (size <= MAX_BODY) parts.push(d);
    });
    req.on('end', () => (size > MAX_BODY ? reject(new Error('too large')) : resolve(Buffer.concat(parts))));
    req.on('error', reject);
  });
}
