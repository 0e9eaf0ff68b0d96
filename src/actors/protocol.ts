/**
 * The message protocol every service actor speaks: a request is a `request` event carrying a request
 * id and an operation; the reply comes back as an emitted `reply` event with the same id. Errors
 * travel as data (code and message in komodod's terms), never as exceptions across actors.
 */
export interface Op {
  op: string;
  [k: string]: unknown;
}

export interface RequestEvent {
  type: 'request';
  reqId: number;
  body: Op;
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
