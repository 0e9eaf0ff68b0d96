/**
 * komodod's CValidationState outcomes as exceptions: reject codes (consensus/validation.h), the reject
 * reason komodod puts on the wire and in RPC errors, and the DoS score it gives the peer.
 */

export const REJECT_MALFORMED = 0x01;
export const REJECT_INVALID = 0x10;
export const REJECT_OBSOLETE = 0x11;
export const REJECT_DUPLICATE = 0x12;
export const REJECT_NONSTANDARD = 0x40;
export const REJECT_DUST = 0x41;
export const REJECT_INSUFFICIENTFEE = 0x42;
export const REJECT_CHECKPOINT = 0x43;

export interface ValidationErrorOptions {
  /**
   * komodod's `corruptionPossible` (state.DoS(..., true)): the block's data may have been damaged in
   * transit (merkle mismatch, mutation, sigops), so its hash must not be marked invalid for good.
   */
  corruptionPossible?: boolean;
  /**
   * 'error' for state.Error (an internal refusal such as the absurd-fee check): sendrawtransaction then
   * answers -25 with the reason instead of -26 "<code>: <reason>".
   */
  mode?: 'invalid' | 'error';
  /** The text komodod logs with error(...), for our logs only. */
  debug?: string;
}

/**
 * A rule failed. `message` is the reason (komodod's text exactly); where komodod sets no reason
 * (state.DoS(n, false) or a bare `return false`), reason is '' and message is the debug text.
 */
export class ValidationError extends Error {
  readonly rejectCode: number;
  readonly reason: string;
  readonly dos: number;
  readonly corruptionPossible: boolean;
  readonly mode: 'invalid' | 'error';
  readonly debug: string;

  constructor(rejectCode: number, reason: string, dos: number, opts: ValidationErrorOptions = {}) {
    super(reason !== '' ? reason : (opts.debug ?? 'validation failed'));
    this.name = 'ValidationError';
    this.rejectCode = rejectCode;
    this.reason = reason;
    this.dos = dos;
    this.corruptionPossible = opts.corruptionPossible ?? false;
    this.mode = opts.mode ?? 'invalid';
    this.debug = opts.debug ?? '';
  }
}

/**
 * A block header's time is more than 60 s past the node's clock (CheckBlockHeader). komodod sets no
 * reject reason here (its "time-too-new" line is commented out) and does not ban; a block less than
 * 300 s ahead is a "future block" it retries later (`retryLater`), anything further is dropped.
 */
export class FutureBlockError extends ValidationError {
  readonly retryLater: boolean;

  constructor(retryLater: boolean, debug: string) {
    super(REJECT_INVALID, 'time-too-new', 0, { debug });
    this.name = 'FutureBlockError';
    this.retryLater = retryLater;
  }
}

/** An input's previous output is not in the view (spent or never seen): sendrawtransaction's -25 "Missing inputs". */
export class MissingInputsError extends Error {
  /** The outpoints not found, as "txid:n" (display txid). */
  readonly missing: readonly string[];

  constructor(missing: readonly string[]) {
    super('Missing inputs');
    this.name = 'MissingInputsError';
    this.missing = missing;
  }
}

/** state.DoS(dos, false, code, reason) as a throw. */
export function reject(rejectCode: number, reason: string, dos: number, opts?: ValidationErrorOptions): never {
  throw new ValidationError(rejectCode, reason, dos, opts);
}
