import type { AnyActorRef } from 'xstate';
import type { AnyProtocol, OpenProtocol, Reply, ReplyOf, RequestOf } from '../machines/messages.js';
import { ServiceFailure, TOLD } from '../machines/messages.js';

/** Raised when a service does not answer in time; maps to komodod's internal-error code. */
export class AskTimeout extends ServiceFailure {
  constructor(service: string, op: string, ms: number) {
    super(-32603, `${service} did not answer ${op} within ${ms} ms`);
  }
}

let nextReqId = 1;

/** Where an answer goes: its result, or the service's failure (a timeout included). */
export interface AskReceiver<T = unknown> {
  ok(result: T): void;
  fail(e: ServiceFailure): void;
}

interface Pending {
  to: AskReceiver;
  /** Armed once the request was not answered in the step that received it. */
  timer: NodeJS.Timeout | undefined;
}

/**
 * Request/response over an actor's emitted `reply` events: one listener per actor, a map of pending
 * requests keyed by request id, a timeout on every request. The timer and the map entry are cleared
 * on whichever comes first, so nothing leaks. P is the actor's protocol: a body names one of its ops
 * with that op's fields, and the reply has that op's type.
 */
export class Asker<P extends AnyProtocol = OpenProtocol> {
  private readonly pending = new Map<number, Pending>();

  constructor(
    readonly name: string,
    private readonly actor: AnyActorRef,
    private readonly timeoutMs = 30_000,
  ) {
    actor.on('reply', (r: Reply) => this.settle(r));
  }

  /** Where the failures of told requests go (none: they are dropped). */
  private toldFailed: ((e: ServiceFailure) => void) | undefined;

  private settle(r: Reply): void {
    if (r.reqId === TOLD) {
      if (!r.ok) this.toldFailed?.(new ServiceFailure(r.error.code, r.error.message));
      return;
    }
    const p = this.pending.get(r.reqId);
    if (!p) return;
    this.pending.delete(r.reqId);
    clearTimeout(p.timer);
    if (r.ok) p.to.ok(r.result);
    else p.to.fail(new ServiceFailure(r.error.code, r.error.message));
  }

  ask<K extends P['request']['op']>(body: RequestOf<P, K>, timeoutMs = this.timeoutMs): Promise<ReplyOf<P, K>> {
    // The actor answers op K with its reply type (its protocol says so; the reply event carries it as unknown).
    return new Promise<ReplyOf<P, K>>((resolve, reject) => this.askTo(body, { ok: resolve, fail: reject }, timeoutMs));
  }

  /**
   * ask() for a caller that has somewhere to put the answer already (sendrawtransaction's pending
   * call): no promise, and no promise job between the reply and `to`. A failure to send is thrown here.
   */
  askTo<K extends P['request']['op']>(body: RequestOf<P, K>, to: AskReceiver<ReplyOf<P, K>>, timeoutMs = this.timeoutMs): void {
    const reqId = nextReqId++;
    this.beforeSendHook?.();
    const entry: Pending = { to: to as AskReceiver, timer: undefined };
    this.pending.set(reqId, entry);
    try {
      this.actor.send({ type: 'request', reqId, body });
    } catch (e) {
      this.pending.delete(reqId);
      throw e;
    }
    // Answered in the step that received it (a read, or a write applied at once such as a lone
    // sendrawtransaction's accept): no timer armed only to be cleared, on every such call.
    if (!this.pending.has(reqId)) return;
    entry.timer = setTimeout(() => {
      this.pending.delete(reqId);
      to.fail(new AskTimeout(this.name, body.op, timeoutMs));
    }, timeoutMs);
  }

  /**
   * Sends a request without waiting for its answer (a notice delivered to the service): no promise,
   * no timer, and the service emits no reply unless it fails, which goes to `onFailure` (set with
   * onTellFailure). Requests told and asked reach the service in the order they were sent.
   */
  tell<K extends P['request']['op']>(body: RequestOf<P, K>): void {
    this.beforeSendHook?.();
    this.actor.send({ type: 'request', reqId: TOLD, body });
  }

  private beforeSendHook: (() => void) | undefined;

  /**
   * Runs `hook` before every request this asker sends: the node's routing delivers the notices it
   * still holds for this service first, so that the service's mailbox keeps the order they were emitted in.
   */
  beforeSend(hook: () => void): void {
    this.beforeSendHook = hook;
  }

  /** Where told requests' failures go (the node logs them). */
  onTellFailure(handler: (e: ServiceFailure) => void): void {
    this.toldFailed = handler;
  }

  get waiting(): number {
    return this.pending.size;
  }
}
