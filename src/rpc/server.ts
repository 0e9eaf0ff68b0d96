import http from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import polka, { type Request, type Response } from 'polka';
import bodyParser from 'body-parser';
import { BasicAuth } from './auth.js';
import { handleRpcBodyTo, type RpcReply } from './envelope.js';
import { RPC_INTERNAL_ERROR } from './errors.js';
import { AllowList } from '../chain/p2p/subnet.js';
import { MAX_SIZE } from '../chain/encoding/reader.js';
import { RpcTable, type HelpEnv, type RpcMethod } from './table.js';

/**
 * komodod's RPC HTTP server (src/httpserver.cpp over libevent 2.1.12, src/httprpc.cpp) on Polka +
 * body-parser. Every request goes through komodod's checks in komodod's order:
 *   libevent: body over 32 MiB -> 413 page; method other than GET/POST/HEAD/PUT/DELETE -> 501 page
 *   http_request_cb: peer not allowed -> 403; DELETE (unknown to komodod) -> 405; URI not exactly "/"
 *     -> 404; work queue full -> 500 "Work queue depth exceeded"
 *   HTTPReq_JSONRPC: not POST -> 405 "JSONRPC server handles only POST requests"; no Authorization
 *     -> 401; bad credentials -> 250 ms pause, 401; then the JSON-RPC body (envelope.ts).
 * Replies that are not JSON carry libevent's default Content-Type; libevent's own error pages are its
 * HTML, with Connection: close.
 */

/** MAX_SIZE (serialize.h), komodod's evhttp_set_max_body_size. */
export const MAX_BODY_SIZE = MAX_SIZE;
/** DEFAULT_HTTP_WORKQUEUE, DEFAULT_HTTP_THREADS, DEFAULT_HTTP_SERVER_TIMEOUT (httpserver.h) */
export const DEFAULT_HTTP_WORKQUEUE = 16;
export const DEFAULT_HTTP_THREADS = 4;
export const DEFAULT_HTTP_SERVER_TIMEOUT = 30;
/** The pause after a wrong password (httprpc.cpp MilliSleep(250)). */
export const AUTH_FAILURE_DELAY_MS = 250;

const LIBEVENT_CONTENT_TYPE = 'text/html; charset=ISO-8859-1';
const WWW_AUTH_HEADER_DATA = 'Basic realm="jsonrpc"';
/** evhttp_set_allowed_methods default; anything else is answered 501 by libevent itself. */
const LIBEVENT_METHODS = new Set(['GET', 'POST', 'HEAD', 'PUT', 'DELETE']);
/** HTTPRequest::GetRequestMethod knows these; DELETE comes out as UNKNOWN. */
const KOMODOD_METHODS = new Set(['GET', 'POST', 'HEAD', 'PUT']);

export interface Endpoint {
  host: string;
  port: number;
}

/**
 * HTTPBindAddresses: with no -rpcallowip, ::1 and 127.0.0.1 (any -rpcbind is ignored, with komodod's
 * warning); with -rpcallowip and -rpcbind, each -rpcbind ("host", "host:port", "[v6]:port"); with
 * -rpcallowip alone, :: and 0.0.0.0.
 */
export function rpcEndpoints(opts: {
  port: number;
  allowIps?: string[];
  rpcBind?: string[];
  log?: (line: string) => void;
}): Endpoint[] {
  const { port } = opts;
  if (!opts.allowIps?.length) {
    if (opts.rpcBind?.length) {
      opts.log?.(
        'WARNING: option -rpcbind was ignored because -rpcallowip was not specified, refusing to allow everyone to connect',
      );
    }
    return [
      { host: '::1', port },
      { host: '127.0.0.1', port },
    ];
  }
  if (opts.rpcBind?.length) return opts.rpcBind.map((b) => splitHostPort(b, port));
  return [
    { host: '::', port },
    { host: '0.0.0.0', port },
  ];
}

/** SplitHostPort (utilstrencodings.cpp): a trailing :port is taken when it parses; brackets removed. */
export function splitHostPort(text: string, defaultPort: number): Endpoint {
  let host = text;
  let port = defaultPort;
  const colon = text.lastIndexOf(':');
  // the port is split off only for "host:port", "[v6]:port", or a string with a single colon
  if (colon !== -1) {
    const bracketed = text.startsWith('[') && colon > 0 && text[colon - 1] === ']';
    const singleColon = text.indexOf(':') === colon;
    if (bracketed || singleColon) {
      const p = text.slice(colon + 1);
      if (/^[0-9]+$/.test(p) && Number(p) <= 65535) {
        host = text.slice(0, colon);
        port = Number(p);
      }
    }
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return { host, port };
}

export interface RpcServerOptions {
  /** the method table; or give `methods` and `env` and one is built */
  table?: RpcTable;
  methods?: Iterable<RpcMethod>;
  env?: HelpEnv;
  /** -rpcuser / -rpcpassword */
  auth: { user: string; password: string };
  /** -rpcallowip values; loopback is always allowed */
  allowIps?: string[];
  /** -rpcbind values (used only together with allowIps, as komodod) */
  bind?: string[];
  /** -rpcport; 0 lets the OS choose (every endpoint then shares the first one's port) */
  port: number;
  /** explicit endpoints instead of komodod's rule from allowIps/bind/port */
  endpoints?: Endpoint[];
  /** -rpcworkqueue (default 16) and -rpcthreads (default 4): requests past the auth stage at once */
  workQueue?: number;
  threads?: number;
  /** -rpcservertimeout in seconds (default 30): how long an idle keep-alive connection is kept */
  serverTimeout?: number;
  log?: (line: string) => void;
}

export interface RpcServer {
  /** the bound port (the first endpoint's) */
  readonly port: number;
  /** every endpoint that bound */
  readonly addresses: Endpoint[];
  readonly table: RpcTable;
  /** set the warm-up status (every method but help fails with -28 and this text), or null when done */
  setWarmup(status: string | null): void;
  /** stop listening, close idle connections and resolve once in-flight requests are answered */
  close(): Promise<void>;
}

/** libevent's evhttp_send_error page: its HTML, Content-Type text/html, Connection: close. */
function libeventErrorPage(status: number): string {
  const reason = http.STATUS_CODES[status] ?? 'Error';
  // libevent 2.1 still calls 413 by its old name
  const phrase = status === 413 ? 'Request Entity Too Large' : reason;
  return `<HTML><HEAD>\n<TITLE>${status} ${phrase}</TITLE>\n</HEAD><BODY>\n<H1>${phrase}</H1>\n</BODY></HTML>\n`;
}

function rawErrorResponse(status: number): string {
  const body = libeventErrorPage(status);
  const phrase = status === 413 ? 'Request Entity Too Large' : (http.STATUS_CODES[status] ?? 'Error');
  return (
    `HTTP/1.1 ${status} ${phrase}\r\nContent-Type: text/html\r\nConnection: close\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

function sendErrorPage(res: Response, status: number): void {
  const body = libeventErrorPage(status);
  if (status === 413) res.statusMessage = 'Request Entity Too Large';
  res.writeHead(status, {
    'Content-Type': 'text/html',
    Connection: 'close',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** WriteReply without an explicit Content-Type: libevent adds its default. */
function sendPlain(res: Response, status: number, body = '', headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    ...headers,
    'Content-Type': LIBEVENT_CONTENT_TYPE,
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

function sendJson(res: Response, status: number, body: string): void {
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

interface RpcRequest extends Request {
  /** the request target exactly as sent */
  rawUrl?: string;
  /** the body as read (absent when there was none) */
  body?: unknown;
  /** while readDeclared reads the body: what came so far, and where it goes once complete */
  bodyRead?: BodyRead;
}

/** What happens once a request's body is read (or could not be): the server's, one for all requests. */
type BodyDone = (req: RpcRequest, res: Response, err?: unknown) => void;

interface BodyRead {
  chunks: Buffer[];
  size: number;
  res: Response;
  done: BodyDone;
}

/**
 * body-parser's raw reader for a request whose length Node's parser already enforces (a declared
 * length over the limit is refused before): the chunks joined at 'end', then `done`. An aborted request
 * gets no reply (as body-parser's 'request.aborted'); another stream error body-parser's 400 (onError
 * sends none once the connection is gone). The listeners are module functions (`this` is the
 * request), so a request costs no closures.
 */
function readDeclared(req: RpcRequest, res: Response, done: BodyDone): void {
  req.bodyRead = { chunks: [], size: 0, res, done };
  req.on('data', onBodyData);
  req.on('end', onBodyEnd);
  req.on('aborted', stopReading);
  req.on('error', onBodyError);
  req.on('close', stopReading);
}

function onBodyData(this: RpcRequest, chunk: Buffer): void {
  const r = this.bodyRead!;
  r.chunks.push(chunk);
  r.size += chunk.length;
}

function onBodyEnd(this: RpcRequest): void {
  const r = this.bodyRead!;
  stopReading.call(this);
  this.body = r.chunks.length === 1 ? r.chunks[0] : Buffer.concat(r.chunks, r.size);
  r.done(this, r.res);
}

function onBodyError(this: RpcRequest, e: Error & { code?: string }): void {
  const r = this.bodyRead!;
  stopReading.call(this);
  if (e.code === 'ECONNRESET' || this.aborted) return;
  r.done(this, r.res, { status: 400 });
}

function stopReading(this: RpcRequest): void {
  this.bodyRead = undefined;
  this.off('data', onBodyData);
  this.off('end', onBodyEnd);
  this.off('aborted', stopReading);
  this.off('error', onBodyError);
  this.off('close', stopReading);
}

/** Starts the server on every endpoint; rejects if none could bind. */
export async function createRpcServer(opts: RpcServerOptions): Promise<RpcServer> {
  const log = opts.log ?? (() => {});
  let table: RpcTable;
  if (opts.table) table = opts.table;
  else if (opts.env) table = new RpcTable(opts.env, opts.methods ?? []);
  else throw new Error('createRpcServer needs a table, or methods and env');
  const allow = new AllowList(opts.allowIps ?? []);
  const auth = new BasicAuth(opts.auth.user, opts.auth.password);
  const queueLimit =
    Math.max(opts.workQueue ?? DEFAULT_HTTP_WORKQUEUE, 1) + Math.max(opts.threads ?? DEFAULT_HTTP_THREADS, 1);
  let inFlight = 0;
  /** the allow-list verdict per connection: a socket's peer address never changes */
  const socketVerdict = new WeakMap<Socket, boolean>();
  const allowedSocket = (socket: Socket): boolean => {
    let ok = socketVerdict.get(socket);
    if (ok === undefined) {
      ok = allow.allows(socket.remoteAddress);
      socketVerdict.set(socket, ok);
    }
    return ok;
  };

  const readBody = bodyParser.raw({ type: () => true, limit: MAX_BODY_SIZE, inflate: false });

  /** body-parser's failures, and anything a request's handling threw */
  const onError = (err: unknown, req: RpcRequest, res: Response): void => {
    if (res.headersSent || res.destroyed) return;
    const e = err as { type?: string; status?: number };
    if (e.type === 'request.aborted') return;
    if (e.type === 'entity.too.large') return sendErrorPage(res, 413);
    if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) return sendErrorPage(res, 400);
    log(`RPC internal error on ${req.method} ${req.rawUrl ?? ''}`);
    sendJson(
      res,
      500,
      `{"result":null,"error":{"code":${RPC_INTERNAL_ERROR},"message":"Internal error"},"id":null}\n`,
    );
  };

  /** A call answered asynchronously has ended (answered, or failed with `err`): its place in the queue is free. */
  const ended = (req: RpcRequest, res: Response, err?: unknown): void => {
    inFlight--;
    if (err !== undefined) onError(err, req, res);
  };

  /** A call's reply, written once it came (a failure to write it goes to onError, as a throw would). */
  const answer = (req: RpcRequest, res: Response, r: RpcReply): void => {
    try {
      if (!res.destroyed) sendJson(res, r.status, r.body);
    } catch (e) {
      return ended(req, res, e);
    }
    ended(req, res);
  };

  /** After the body is read: komodod's checks in order, then the JSON-RPC call. Nothing is returned
   *  to Polka: a call answered later ends itself (`ended`), so Polka's async step adopts no promise
   *  and no `finally` wraps it (four promise jobs less on every such call). */
  const respond = (req: RpcRequest, res: Response): void => {
    const method = req.method ?? '';
    if (!LIBEVENT_METHODS.has(method)) return sendErrorPage(res, 501);
    if (!allowedSocket(req.socket)) {
      log(`HTTP request from ${req.socket.remoteAddress} rejected: Client network is not allowed RPC access`);
      return sendPlain(res, 403);
    }
    if (!KOMODOD_METHODS.has(method)) return sendPlain(res, 405);
    if (req.rawUrl !== '/') return sendPlain(res, 404);
    if (inFlight >= queueLimit) return sendPlain(res, 500, 'Work queue depth exceeded');
    inFlight++;
    let later: boolean;
    try {
      later = jsonRpc(req, res, method);
    } catch (e) {
      inFlight--;
      throw e;
    }
    if (!later) inFlight--;
  };

  /** HTTPReq_JSONRPC: POST only, credentials, then the body. True when the answer comes later, in a
   *  promise job that calls `ended` (the wrong-password pause, a method that answers later). */
  const jsonRpc = (req: RpcRequest, res: Response, method: string): boolean => {
    if (method !== 'POST') {
      sendPlain(res, 405, 'JSONRPC server handles only POST requests');
      return false;
    }
    const header = req.headers.authorization;
    if (header === undefined) {
      sendPlain(res, 401, '', { 'WWW-Authenticate': WWW_AUTH_HEADER_DATA });
      return false;
    }
    if (!auth.check(header)) {
      log(`ThreadRPCServer incorrect password attempt from ${req.socket.remoteAddress}`);
      new Promise<void>((r) => setTimeout(r, AUTH_FAILURE_DELAY_MS))
        .then(() => sendPlain(res, 401, '', { 'WWW-Authenticate': WWW_AUTH_HEADER_DATA }))
        .then(
          () => ended(req, res),
          (e: unknown) => ended(req, res, e),
        );
      return true;
    }
    const body: unknown = req.body;
    const bytes = Buffer.isBuffer(body) ? body : Buffer.alloc(0);
    const reply = handleRpcBodyTo(
      table,
      bytes,
      (r) => answer(req, res, r),
      (e: unknown) => ended(req, res, e),
    );
    if (reply === undefined) return true;
    if (!res.destroyed) sendJson(res, reply.status, reply.body);
    return false;
  };

  /** The body read: komodod's checks and the call; or body-parser's refusal, or what the call threw. */
  const bodyDone: BodyDone = (req, res, err) => {
    if (err) return onError(err, req, res);
    try {
      respond(req, res);
    } catch (e) {
      onError(e, req, res);
    }
  };

  /** Polka's one step: libevent's checks on the declared body, the body read (or not), then bodyDone.
   *  Not a second Polka step after the read: that was one more async step and catch on every call. */
  const bodyStep = (req: RpcRequest, res: Response): void => {
    // libevent ignores Content-Encoding: the bytes are the body (body-parser would refuse or inflate)
    if (req.headers['content-encoding'] !== undefined) delete req.headers['content-encoding'];
    // libevent refuses a declared body over the limit before reading it
    const len = req.headers['content-length'];
    if (len !== undefined && /^[0-9]+$/.test(len) && Number(len) > MAX_BODY_SIZE) {
      return sendErrorPage(res, 413);
    }
    // libevent reads no body for HEAD or TRACE
    if (req.method === 'HEAD' || req.method === 'TRACE') return bodyDone(req, res);
    // A declared length within the limit and no chunked framing (every ordinary call): the bytes read
    // here, as body-parser would hand them over. Anything else goes through body-parser and its rules.
    if (len !== undefined && req.headers['transfer-encoding'] === undefined) return readDeclared(req, res, bodyDone);
    readBody(req, res, (err?: unknown) => bodyDone(req, res, err));
  };

  // The JSON-RPC layer is a Polka app: the body step, then komodod's checks and the call.
  const app = polka<RpcRequest>({ onError: (err, req, res) => onError(err, req, res) });
  app.use(bodyStep);

  let closing = false;
  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    // Shutting down: komodod's InterruptHTTPServer answers every new request 503 (http_reject_request_cb),
    // so a client that keeps a connection busy cannot hold the stop open.
    if (closing) {
      res.shouldKeepAlive = false;
      return sendErrorPage(res as Response, 503);
    }
    (req as RpcRequest).rawUrl = req.url;
    // Polka's handler makes its own `next` when given none
    (app.handler as (req: RpcRequest, res: http.ServerResponse) => void)(req as RpcRequest, res);
  };
  /** Expect: 100-continue: libevent refuses an oversized declared body with 413 instead of continuing */
  const onCheckContinue = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const len = req.headers['content-length'];
    if (len !== undefined && /^[0-9]+$/.test(len) && Number(len) > MAX_BODY_SIZE) {
      return sendErrorPage(res as Response, 413);
    }
    res.writeContinue();
    onRequest(req, res);
  };
  /** malformed HTTP: libevent answers a well-formed request line with an unknown method 501
   *  (evhttp_handle_request's allowed-methods check) and anything it cannot parse 400 */
  const onClientError = (err: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex): void => {
    if (socket.writable && !(socket as Socket).destroyed && err.code !== 'ECONNRESET') {
      const line = err.rawPacket?.toString('latin1').split('\r\n', 1)[0] ?? '';
      const unknownMethod = err.code === 'HPE_INVALID_METHOD' && /^[^ ]+ [^ ]+ HTTP\/1\.[01]$/.test(line);
      socket.end(rawErrorResponse(unknownMethod ? 501 : 400));
    } else socket.destroy();
  };
  /** CONNECT never reaches 'request' in Node; libevent refuses it as a disallowed method */
  const onConnect = (_req: http.IncomingMessage, socket: Duplex): void => {
    socket.on('error', () => {});
    socket.end(rawErrorResponse(501));
  };

  const endpoints =
    opts.endpoints ?? rpcEndpoints({ port: opts.port, allowIps: opts.allowIps, rpcBind: opts.bind, log });
  const servers: http.Server[] = [];
  const addresses: Endpoint[] = [];
  let chosenPort: number | null = null;
  for (const ep of endpoints) {
    const port = ep.port === 0 && chosenPort !== null ? chosenPort : ep.port;
    const server = http.createServer();
    server.keepAliveTimeout = (opts.serverTimeout ?? DEFAULT_HTTP_SERVER_TIMEOUT) * 1000;
    server.on('request', onRequest);
    server.on('checkContinue', onCheckContinue);
    server.on('clientError', onClientError);
    server.on('connect', onConnect);
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        // "::" only for IPv6, so that 0.0.0.0 can take the same port
        server.listen({ host: ep.host, port, ipv6Only: ep.host === '::' }, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (e) {
      log(`Binding RPC on address ${ep.host} port ${port} failed. (${(e as Error).message})`);
      continue;
    }
    server.on('error', (e) => log(`RPC server error on ${ep.host}: ${e.message}`));
    const bound = (server.address() as { port: number }).port;
    if (chosenPort === null) chosenPort = bound;
    servers.push(server);
    addresses.push({ host: ep.host, port: bound });
  }
  if (servers.length === 0) throw new Error('Unable to bind any endpoint for RPC server');

  return {
    port: addresses[0]!.port,
    addresses,
    table,
    setWarmup(status) {
      table.warmup = status;
    },
    async close() {
      closing = true;
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((resolve) => {
              s.close(() => resolve());
              s.closeIdleConnections();
            }),
        ),
      );
    },
  };
}
