import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { type ActorRefLike, type AnyActorRef, type InspectionEvent } from 'xstate';
import { WebSocketServer, WebSocket } from 'ws';
import type { RpcMethod } from '../rpc/table.js';
import type { JsonValue } from '../rpc/json-value.js';
import { writeJson } from '../rpc/json-write.js';
import { serviceSummary, type ServiceLogic } from '../machines/service.js';
import { redactParams, redactText } from './inspect-redact.js';
import type { ActorStateView } from '../actors/services.js';

/**
 * The inspection hub of `acnoded -inspect`: an XState `inspect` observer given to every actor, a
 * bounded ring of recent messages, and a WebSocket endpoint on loopback that streams them.
 *
 * Each message is a Stately inspection event (`@xstate.actor`, `@xstate.event`, `@xstate.snapshot`,
 * the shapes @statelyai/inspect's createWebSocketInspector sends, so a Stately inspector page
 * connected to the endpoint draws the actors), or one of acnode's own (`@acnode.emit`: an event an
 * actor emitted, such as a reply or blockConnected; `@acnode.rpc`: a JSON-RPC call and its outcome).
 * Every message also carries `acnode`, a flat summary (actor, event type, request id, op, state) that
 * `acnode-cli inspect` prints as one line. Contexts and events are cut down before they are sent: a
 * service's context becomes its summary and queue sizes, never its indexes.
 *
 * Without -inspect the node creates no hub and passes no observer: nothing is paid.
 */

export type InspectKind = 'actor' | 'event' | 'state' | 'emit' | 'rpc';

/** The flat summary of one inspection message. */
export interface InspectRecord {
  seq: number;
  /** milliseconds since the epoch */
  time: number;
  kind: InspectKind;
  /** the actor (its system id), or `rpc` */
  actor: string;
  /** the sender of an event, when it is an actor (absent: sent from outside, e.g. the RPC server) */
  source?: string;
  /** event type, emitted event type, RPC method, or the machine id of a new actor */
  type: string;
  reqId?: number;
  op?: string;
  ok?: boolean;
  /** state value as dotted path (ready.working) */
  state?: string;
  status?: string;
  detail?: string;
}

export interface InspectMessage {
  type: string;
  acnode: InspectRecord;
  [k: string]: unknown;
}

/** The protocol version @statelyai/inspect 0.7 puts in `_version`. */
const STATELY_VERSION = '0.7.2';

const MAX_STRING = 200;
const MAX_ITEMS = 20;
const MAX_DEPTH = 4;

/** A JSON-safe, size-bounded copy: long strings and arrays cut, bytes as hex, class instances named. */
export function sanitize(v: unknown, depth = 0): unknown {
  if (v === null || v === undefined) return v ?? null;
  switch (typeof v) {
    case 'string': {
      const text = redactText(v);
      return text.length > MAX_STRING ? `${text.slice(0, MAX_STRING)}…(${text.length} chars)` : text;
    }
    case 'number':
    case 'boolean':
      return Number.isFinite(v as number) || typeof v === 'boolean' ? v : String(v);
    case 'bigint':
      return v.toString();
    case 'function':
      return `[function ${(v as { name?: string }).name || 'anonymous'}]`;
    case 'symbol':
      return v.toString();
  }
  // 32 bytes may be a private key (a hash in internal order tells a reader little anyway).
  if (v instanceof Uint8Array) return v.length === 32 ? '[32 bytes]' : sanitize(Buffer.from(v).toString('hex'), depth);
  if (depth >= MAX_DEPTH) return Array.isArray(v) ? `[array(${v.length})]` : '[object]';
  if (Array.isArray(v)) {
    const out = v.slice(0, MAX_ITEMS).map((x) => sanitize(x, depth + 1));
    if (v.length > MAX_ITEMS) out.push(`…${v.length - MAX_ITEMS} more`);
    return out;
  }
  if (v instanceof Map) return `[Map(${v.size})]`;
  if (v instanceof Set) return `[Set(${v.size})]`;
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) {
    const json = (v as { toJSON?: () => unknown }).toJSON;
    if (typeof json === 'function') {
      try {
        return sanitize(json.call(v), depth);
      } catch {
        // fall through to the name
      }
    }
    const text = typeof (v as { toString?: unknown }).toString === 'function' && (v as object).toString !== Object.prototype.toString ? String(v) : '';
    const name = (proto?.constructor as { name?: string } | undefined)?.name ?? 'object';
    return text && text.length <= MAX_STRING ? text : `[${name}]`;
  }
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (n++ >= MAX_ITEMS * 2) {
      out['…'] = 'more keys';
      break;
    }
    out[k] = sanitize(x, depth + 1);
  }
  return out;
}

/** A service machine's context holds the ServiceLogic (and its indexes): show only sizes and the summary. */
function sanitizeContext(ctx: unknown, value: unknown): unknown {
  if (ctx && typeof ctx === 'object' && 'logic' in ctx && 'queue' in ctx) {
    const c = ctx as { logic: ServiceLogic; queue?: unknown[]; inflight?: unknown[]; error?: string; stopRequested?: boolean };
    return {
      // Read now from the logic: the machine does not copy it into context on every write.
      summary: sanitize(serviceSummary(c.logic)),
      queued: c.queue?.length ?? 0,
      // The machine keeps its last batch in `inflight` after it is done: it counts only while working.
      inflight: stateText(value).endsWith('working') ? (c.inflight?.length ?? 0) : 0,
      ...(c.error !== undefined ? { error: c.error } : {}),
      stopRequested: !!c.stopRequested,
    };
  }
  return sanitize(ctx);
}

/** A state value as a dotted path: {ready: 'working'} → "ready.working" (parallel regions joined by ","). */
export function stateText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => {
        const inner = stateText(v);
        return inner === '' ? k : `${k}.${inner}`;
      })
      .join(',');
  }
  return '';
}

/** The small view of one actor that getactorstates returns. */
export type { ActorStateView } from '../actors/services.js';

/** An actor's state value, status and context summary, read from its current snapshot. */
export function actorState(actor: AnyActorRef): ActorStateView {
  const snap = actor.getSnapshot() as { status?: string; value?: unknown; context?: unknown };
  return {
    status: snap.status ?? 'active',
    state: stateText(snap.value),
    value: sanitize(snap.value ?? null),
    context: sanitizeContext(snap.context ?? {}, snap.value),
  };
}

interface Announced {
  name: string;
  message: string;
}

export interface InspectHubOptions {
  /** messages kept for clients that connect later (default 1000) */
  ringSize?: number;
  /** a client further behind than this many bytes is skipped until it catches up (default 4 MiB) */
  maxBuffered?: number;
  /** the node's log, for refused origins */
  log?: (msg: string) => void;
  /** false (acnoded -explorer without -inspect): the page only, no actor stream and no Stately bridge */
  stream?: boolean;
}

/** Serves a request that passed the token, Origin and Host checks; false when it is not its path. */
export type PageHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * The hub: `observe` is the XState inspection observer; `wrapRpcMethods` records each JSON-RPC call;
 * `listen` opens the WebSocket endpoint. Every failure inside the observer is swallowed: inspection
 * must never break an actor.
 */
export class InspectHub {
  private seq = 0;
  private readonly ring: string[] = [];
  private readonly ringSize: number;
  private readonly maxBuffered: number;
  private readonly names = new WeakMap<ActorRefLike, Announced>();
  /** announcements in creation order, replayed to every new client before the ring */
  private readonly announced: Announced[] = [];
  private readonly lastState = new WeakMap<ActorRefLike, string>();
  private readonly listeners = new Set<(msg: string, rec: InspectRecord) => void>();
  private http: Server | undefined;
  private wss: WebSocketServer | undefined;
  /** `ws://127.0.0.1:<port>/?token=<this start's token>` once listening */
  url: string | null = null;
  dropped = 0;

  /** This start's secret: every request to the endpoint must carry it. */
  private readonly token = randomBytes(24).toString('hex');
  /** Origins already logged as refused (bounded: a hostile page could send many). */
  private readonly refusedOrigins = new Set<string>();
  private readonly log: ((msg: string) => void) | undefined;
  private readonly stream: boolean;
  /** the local explorer page (src/node/explorer), set once the node's methods exist */
  private page: PageHandler | undefined;

  constructor(opts: InspectHubOptions = {}) {
    this.stream = opts.stream ?? true;
    this.ringSize = opts.ringSize ?? 1000;
    this.maxBuffered = opts.maxBuffered ?? 4 * 1024 * 1024;
    this.log = opts.log;
  }

  /** The XState `inspect` option. */
  readonly observe = (e: InspectionEvent): void => {
    try {
      this.handle(e);
    } catch {
      // Inspection never breaks an actor.
    }
  };

  /** Recent messages (JSON text), oldest first, announcements first. */
  recent(): string[] {
    return [...this.announced.map((a) => a.message), ...this.ring];
  }

  /** Calls `f` with every new message; returns the unsubscribe function. */
  subscribe(f: (msg: string, rec: InspectRecord) => void): () => void {
    this.listeners.add(f);
    return () => this.listeners.delete(f);
  }

  /** Serves the local page on this endpoint (requests reach it only after the checks). */
  setPage(page: PageHandler): void {
    this.page = page;
  }

  get clients(): number {
    return this.wss?.clients.size ?? 0;
  }

  /**
   * Actors with a system id only (the node's root and the services it spawns, announced with their
   * parent, so a Stately inspector draws the tree): a service's invoked actors (load, writer, close)
   * are internal steps, seen through their parent's events.
   */
  private nameOf(ref: ActorRefLike | undefined): string | undefined {
    if (!ref) return undefined;
    const known = this.names.get(ref);
    if (known) return known.name;
    const r = ref as ActorRefLike & { _parent?: AnyActorRef; systemId?: string; logic?: { config?: { id?: string } } };
    if (!r.systemId) return undefined;
    let root: ActorRefLike = ref;
    for (let p = r._parent; p; p = (p as { _parent?: AnyActorRef })._parent) root = p;
    const machineId = r.logic?.config?.id ?? 'actor';
    const rec = this.record({ kind: 'actor', actor: r.systemId, type: machineId });
    const message = JSON.stringify({
      type: '@xstate.actor',
      name: r.systemId,
      sessionId: ref.sessionId,
      createdAt: String(rec.time),
      _version: STATELY_VERSION,
      rootId: root.sessionId,
      parentId: r._parent?.sessionId,
      id: null,
      definition: definitionOf(r.logic?.config, r.systemId),
      snapshot: this.snapshotOf(ref),
      acnode: rec,
    });
    const a = { name: r.systemId, message };
    this.names.set(ref, a);
    this.announced.push(a);
    this.broadcast(message, rec);
    return a.name;
  }

  private snapshotOf(ref: ActorRefLike): unknown {
    const s = ref.getSnapshot() as { status?: string; value?: unknown; context?: unknown };
    return { status: s.status ?? 'active', value: sanitize(s.value ?? null), context: sanitizeContext(s.context ?? {}, s.value) };
  }

  private record(r: Omit<InspectRecord, 'seq' | 'time'>): InspectRecord {
    return { seq: ++this.seq, time: Date.now(), ...r };
  }

  private handle(e: InspectionEvent): void {
    switch (e.type) {
      case '@xstate.event': {
        const actor = this.nameOf(e.actorRef);
        if (!actor) return;
        const ev = e.event as { type: string; reqId?: unknown; body?: { op?: unknown } };
        const source = this.nameOf(e.sourceRef);
        const rec = this.record({
          kind: 'event',
          actor,
          ...(source ? { source } : {}),
          type: shortType(ev.type),
          ...(typeof ev.reqId === 'number' ? { reqId: ev.reqId } : {}),
          ...(ev.body && typeof ev.body.op === 'string' ? { op: ev.body.op } : {}),
        });
        this.push(
          {
            type: '@xstate.event',
            event: sanitize(e.event),
            sourceId: e.sourceRef?.sessionId,
            sessionId: e.actorRef.sessionId,
            _version: STATELY_VERSION,
            createdAt: String(rec.time),
            id: null,
            rootId: e.rootId,
          },
          rec,
        );
        return;
      }
      case '@xstate.snapshot': {
        const actor = this.nameOf(e.actorRef);
        if (!actor) return;
        const snap = e.snapshot as { status?: string; value?: unknown; context?: unknown };
        const state = stateText(snap.value);
        const status = snap.status ?? 'active';
        const key = `${state}|${status}`;
        const changed = this.lastState.get(e.actorRef) !== key;
        this.lastState.set(e.actorRef, key);
        const rec = this.record({ kind: 'state', actor, type: shortType((e.event as { type: string }).type), state, status, ...(changed ? {} : { detail: 'same' }) });
        this.push(
          {
            type: '@xstate.snapshot',
            event: sanitize(e.event),
            snapshot: { status, value: sanitize(snap.value ?? null), context: sanitizeContext(snap.context ?? {}, snap.value) },
            sessionId: e.actorRef.sessionId,
            _version: STATELY_VERSION,
            createdAt: String(rec.time),
            id: null,
            rootId: e.rootId,
          },
          rec,
        );
        return;
      }
      case '@xstate.action': {
        const action = (e as { action?: { type?: string; params?: { event?: unknown } } }).action;
        if (action?.type !== 'xstate.emit') return;
        const actor = this.nameOf(e.actorRef);
        if (!actor) return;
        const ev = (action.params?.event ?? {}) as {
          type?: string;
          reqId?: unknown;
          ok?: unknown;
          error?: { code?: number; message?: string };
          height?: unknown;
          hash?: unknown;
          txid?: unknown;
          items?: unknown;
        };
        let detail: string | undefined;
        if (ev.ok === false && ev.error) detail = `${ev.error.code}: ${ev.error.message}`;
        else if (typeof ev.height === 'number') detail = `height ${ev.height}${typeof ev.hash === 'string' ? ` ${ev.hash}` : ''}`;
        else if (typeof ev.txid === 'string') detail = ev.txid;
        // The mempool's txsAccepted and txsRemoved: the txids of the run, in order.
        else if (Array.isArray(ev.items)) detail = ev.items.map((i: { txid?: unknown }) => String(i?.txid)).join(' ');
        const rec = this.record({
          kind: 'emit',
          actor,
          type: ev.type ?? '?',
          ...(typeof ev.reqId === 'number' ? { reqId: ev.reqId } : {}),
          ...(typeof ev.ok === 'boolean' ? { ok: ev.ok } : {}),
          ...(detail ? { detail: detail.length > MAX_STRING ? detail.slice(0, MAX_STRING) + '…' : detail } : {}),
        });
        this.push({ type: '@acnode.emit', sessionId: e.actorRef.sessionId, event: sanitize(ev), createdAt: String(rec.time) }, rec);
        return;
      }
      default:
        return;
    }
  }

  /** Records a JSON-RPC call (`ok` undefined) or its outcome. */
  rpc(method: string, params: readonly JsonValue[] | undefined, outcome?: { ok: boolean; detail?: string }): void {
    try {
      const rec = this.record({
        kind: 'rpc',
        actor: 'rpc',
        type: method,
        ...(outcome ? { ok: outcome.ok } : {}),
        ...(outcome?.detail ? { detail: redactText(outcome.detail) } : params ? { detail: paramsText(redactParams(method, params)) } : {}),
      });
      this.push({ type: '@acnode.rpc', method, createdAt: String(rec.time) }, rec);
    } catch {
      // Inspection never breaks a call.
    }
  }

  /** The node's RPC methods with each call and its outcome recorded (never a result: dumpprivkey's is a key). */
  wrapRpcMethods(methods: RpcMethod[]): RpcMethod[] {
    return methods.map((m) => ({
      ...m,
      handler: async (params, ctx) => {
        this.rpc(ctx.method, params);
        try {
          const out = await m.handler(params, ctx);
          this.rpc(ctx.method, undefined, { ok: true });
          return out;
        } catch (e) {
          const code = (e as { code?: unknown }).code;
          const msg = e instanceof Error ? e.message.split('\n')[0]! : String(e);
          this.rpc(ctx.method, undefined, { ok: false, detail: `${typeof code === 'number' ? code : -1}: ${msg}` });
          throw e;
        }
      },
    }));
  }

  private push(body: Record<string, unknown>, rec: InspectRecord): void {
    const message = JSON.stringify({ ...body, acnode: rec });
    this.ring.push(message);
    if (this.ring.length > this.ringSize) this.ring.shift();
    this.broadcast(message, rec);
  }

  private broadcast(message: string, rec: InspectRecord): void {
    for (const f of this.listeners) {
      try {
        f(message, rec);
      } catch {
        // a listener's failure is its own
      }
    }
    if (!this.wss) return;
    for (const client of this.wss.clients) {
      if (client.readyState !== WebSocket.OPEN) continue;
      if (client.bufferedAmount > this.maxBuffered) {
        this.dropped++;
        continue;
      }
      client.send(message);
    }
  }

  /** The page URL a browser opens: the same endpoint over http, with the token. */
  get pageUrl(): string | null {
    return this.url ? this.url.replace(/^ws:/, 'http:') : null;
  }

  /**
   * Why a request to the endpoint is refused, or null. A web page in the developer's browser can
   * reach loopback ports, so every request must carry this start's token (a page elsewhere cannot
   * know it), come from no Origin or our own (browsers send a foreign page's Origin on WebSocket
   * upgrades), and name a loopback Host (a rebound DNS name is someone else's page).
   */
  private refusal(req: IncomingMessage, port: number): string | null {
    const origin = req.headers.origin;
    if (origin !== undefined && !loopbackAuthorities(port).some((a) => origin === `http://${a}`)) {
      if (this.refusedOrigins.size < 100 && !this.refusedOrigins.has(origin)) {
        this.refusedOrigins.add(origin);
        this.log?.(`inspector: refused a request from Origin ${JSON.stringify(origin.slice(0, 200))} (only this node's own page may connect)`);
      }
      return 'foreign Origin';
    }
    const host = req.headers.host;
    if (host === undefined || !loopbackAuthorities(port).includes(host)) return 'Host is not this loopback endpoint';
    let token: string | null = null;
    try {
      const u = new URL(req.url ?? '/', 'http://h');
      // The page's files carry it in their path (/t/<token>/...), so relative module imports keep it.
      token = u.searchParams.get('token') ?? /^\/t\/([^/]+)\//.exec(u.pathname)?.[1] ?? null;
    } catch {
      // an unparseable target carries no token
    }
    if (token === null || !sameSecret(token, this.token)) return 'missing or wrong token (use the URL the node logs, or getactorstates\'s "inspector")';
    return null;
  }

  /**
   * Opens the endpoint on 127.0.0.1 (port 0: OS-chosen) with this start's token in its URL: WebSocket
   * clients get the announcements and the ring, then every new message; a browser gets the bridge page.
   * Anything without the token, from a foreign Origin or to a foreign Host is answered 403.
   */
  async listen(port = 0, host = '127.0.0.1'): Promise<string> {
    let bound = 0;
    const http = createServer((req, res) => {
      const refused = this.refusal(req, bound);
      if (refused) {
        res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
        res.end(`Forbidden: ${refused}\n`);
        return;
      }
      if (this.page?.(req, res)) return;
      if (!this.stream || new URL(req.url ?? '/', 'http://h').pathname !== '/stately') {
        res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
        res.end('Not found\n');
        return;
      }
      // /stately, @statelyai/inspect's bridge page: Stately's inspector in a frame, fed from this endpoint
      // (the frame itself comes from stately.ai, so this view needs the internet; the local page does not).
      // No Referer leaves the page: the token is in its URL.
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
      res.end(bridgeHtml(this.url ?? ''));
    });
    // Clients only listen: whatever they send is small and ignored.
    const wss = new WebSocketServer({ noServer: true, maxPayload: 4096 });
    http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on('error', () => socket.destroy());
      const refused = this.stream ? this.refusal(req, bound) : 'no actor stream (started with -explorer, not -inspect)';
      if (refused) {
        const body = `Forbidden: ${refused}\n`;
        socket.end(`HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
    });
    wss.on('connection', (ws: WebSocket) => {
      ws.on('error', () => ws.terminate());
      for (const m of this.recent()) ws.send(m);
    });
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(port, host, () => resolve());
    });
    this.http = http;
    this.wss = wss;
    bound = (http.address() as AddressInfo).port;
    this.url = `ws://${host.includes(':') ? `[${host}]` : host}:${bound}/?token=${this.token}`;
    return this.url;
  }

  async close(): Promise<void> {
    const wss = this.wss;
    const http = this.http;
    this.wss = undefined;
    this.http = undefined;
    if (wss) {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
    }
    if (http) await new Promise<void>((r) => http.close(() => r()));
  }
}

/** The Host (and http Origin authority) values under which a browser on this machine reaches `port`. */
function loopbackAuthorities(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
}

/** Constant-time comparison of a presented token with ours. */
function sameSecret(given: string, ours: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(ours);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** xstate.done.actor.<id> → done.actor (the invoke id is internal). */
function shortType(type: string): string {
  if (type.startsWith('xstate.done.actor.')) return 'done.actor';
  if (type.startsWith('xstate.error.actor.')) return 'error.actor';
  return type;
}

function paramsText(params: readonly JsonValue[]): string {
  let s: string;
  try {
    s = redactText(writeJson([...params]));
  } catch {
    s = '[…]';
  }
  return s.length > MAX_STRING ? `${s.slice(0, MAX_STRING)}…` : s;
}

/** The machine definition as @statelyai/inspect sends it: its config as JSON, functions as {type: name}. */
function definitionOf(config: unknown, id: string): string {
  if (!config) return JSON.stringify({ id });
  try {
    const seen = new WeakSet<object>();
    return JSON.stringify(config, (_k, v: unknown) => {
      if (typeof v === 'function') return { type: (v as { name?: string }).name || 'anonymous' };
      if (v && typeof v === 'object') {
        if (seen.has(v)) return undefined;
        seen.add(v);
      }
      return v;
    });
  } catch {
    return JSON.stringify({ id });
  }
}

/** The page @statelyai/inspect's createInspectorServer serves, pointed at this endpoint. */
function bridgeHtml(url: string): string {
  return `<!DOCTYPE html>
<html>
<head>
  <title>acnode: Stately Inspector</title>
  <style>* { margin: 0; padding: 0; } html, body { height: 100%; } iframe { width: 100%; height: 100%; border: none; }</style>
</head>
<body>
  <iframe id="inspector" src="https://stately.ai/inspect" referrerpolicy="no-referrer"></iframe>
  <script>
    const iframe = document.getElementById('inspector');
    const buffer = [];
    let connected = false;
    window.addEventListener('message', (e) => {
      if (e.origin === 'https://stately.ai' && e.data && e.data.type === '@statelyai.connected') {
        connected = true;
        buffer.forEach((event) => iframe.contentWindow.postMessage(event, 'https://stately.ai'));
        buffer.length = 0;
      }
    });
    const ws = new WebSocket(${JSON.stringify(url)});
    ws.onmessage = (event) => {
      const data = JSON.parse(event.data);
      if (!data.type || !data.type.startsWith('@xstate.')) return;
      if (connected) iframe.contentWindow.postMessage(data, 'https://stately.ai');
      else buffer.push(data);
    };
  </script>
</body>
</html>
`;
}
