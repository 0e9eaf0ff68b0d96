/**
 * The envelope every service actor speaks: a request is a `request` event carrying a request id and
 * a body (an operation and its fields); the reply comes back as an emitted `reply` event with the
 * same id. Errors travel as data (code and message in komodod's terms), never as exceptions across
 * actors. What each actor's bodies, replies and notices are is said in its own protocol.ts.
 */

/** The least a request body is: its operation's name. */
export interface Request {
  op: string;
}

/** A request body of no declared protocol (tests and generic tooling). */
export interface Op {
  op: string;
  [k: string]: unknown;
}

/** A notification a service emits to whoever listens (e.g. blockConnected), after a write. */
export interface Notice {
  type: string;
  [k: string]: unknown;
}

/**
 * An actor's protocol: the union of its request bodies, a map from each op to its reply, and the
 * notices it emits. Rep must name every op of Req, so a new op without a reply type does not compile.
 */
export interface Protocol<Req extends Request = Request, Rep extends { [K in Req['op']]: unknown } = { [K in Req['op']]: unknown }, N extends { type: string } = Notice> {
  request: Req;
  replies: Rep;
  notice: N;
}

/** Any protocol (the constraint of generic askers and logics). */
export interface AnyProtocol {
  request: Request;
  replies: object;
  notice: { type: string };
}

/**
 * A protocol of no declared ops: any op, any fields, an unknown reply (the generic machine's tests
 * and tools; every actor of the node has its own protocol).
 */
export interface OpenProtocol {
  request: Op;
  replies: Record<string, unknown>;
  notice: Notice;
}

/** The body of op K of protocol P (any Op for an OpenProtocol, whose op is any string). */
export type RequestOf<P extends AnyProtocol, K extends P['request']['op'] = P['request']['op']> = string extends P['request']['op'] ? P['request'] : Extract<P['request'], { op: K }>;

/** The reply to op K of protocol P. */
export type ReplyOf<P extends AnyProtocol, K extends P['request']['op']> = P['replies'][K & keyof P['replies']];

export interface RequestEvent<Req extends Request = Request> {
  type: 'request';
  /** The caller's id for the reply; TOLD when no reply is awaited (a notice delivered to a service). */
  reqId: number;
  body: Req;
}

/**
 * The request id of a request sent without waiting for its reply (Asker.tell): its success is not
 * emitted (one reply event, and the caller's promise and timer, less per notice delivered); its
 * failure is, with this id, for the sender to log.
 */
export const TOLD = 0;

/** Whether a reply goes out: every one but the success of a told request. */
export function isAwaited(r: Reply): boolean {
  return r.reqId !== TOLD || !r.ok;
}

export interface ServiceError {
  /** komodod's RPC error code the failure maps to (e.g. -5, -8, -25, -26). */
  code: number;
  message: string;
}

export type Reply =
  | { type: 'reply'; reqId: number; ok: true; result: unknown }
  | { type: 'reply'; reqId: number; ok: false; error: ServiceError };

/** A failure a service reports to its caller with komodod's code. */
export class ServiceFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** Maps anything thrown inside a service to a reply error; unknown failures are internal errors. */
export function toServiceError(e: unknown): ServiceError {
  if (e instanceof ServiceFailure) return { code: e.code, message: e.message };
  return { code: -32603, message: e instanceof Error ? e.message : String(e) };
}

/**
 * The answer to an op a service does not have. Its switch has narrowed the body to `never` by then,
 * so this takes the body as it came (a caller outside the type system, e.g. a test's stand-in).
 */
export function noSuchOp(service: string, body: Request): ServiceFailure {
  return new ServiceFailure(-32601, `${service} has no operation ${body.op}`);
}
