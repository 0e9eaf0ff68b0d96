import { setup, fromPromise, assign, enqueueActions } from 'xstate';
import { toServiceError, type Op, type Reply, type RequestEvent } from '../actors/protocol.js';

/** A notification a service emits to whoever listens (e.g. blockConnected), after a write. */
export interface Notice {
  type: string;
  [k: string]: unknown;
}

/** What a write returns: its result for the caller, and the notices to emit after it, in order. */
export interface WriteOutcome {
  result: unknown;
  notices?: Notice[];
}

/**
 * The domain object a service machine drives. Reads answer at once from memory; writes run one at
 * a time, in arrival order, and may touch storage. Big indexes live here, not in machine context
 * (XState copies context on every assign).
 */
export interface ServiceLogic {
  readonly name: string;
  load(): Promise<void>;
  isWrite(body: Op): boolean;
  read(body: Op): unknown;
  write(body: Op): Promise<WriteOutcome>;
  /** A small summary (counts, tip) for inspection: never whole indexes. */
  summary(): Record<string, unknown>;
  close(): Promise<void>;
}

interface Context {
  logic: ServiceLogic;
  /** Writes waiting for the running batch to finish. */
  queue: RequestEvent[];
  /** The batch being written now. */
  inflight: RequestEvent[];
  summary: Record<string, unknown>;
  error?: string;
  /** A stop that arrived while a batch was being written: close once the batch is done. */
  stopRequested: boolean;
}

interface Drained {
  replies: Reply[];
  notices: Notice[];
}

function replyTo(req: RequestEvent, run: () => unknown): Reply {
  try {
    return { type: 'reply', reqId: req.reqId, ok: true, result: run() };
  } catch (e) {
    return { type: 'reply', reqId: req.reqId, ok: false, error: toServiceError(e) };
  }
}

function summarise(logic: ServiceLogic): Record<string, unknown> {
  try {
    return logic.summary();
  } catch (e) {
    return { summaryError: String(e) };
  }
}

/**
 * The serial request machine shared by the stateful services (chainStore, mempool, wallet,
 * tokenRegistry): loading → ready.idle ⇄ ready.working → closing → stopped. Reads are answered at
 * once; a write that arrives while another runs is queued, so writes apply in arrival order and
 * never interleave. Every failure becomes a reply: an action that threw would stop the actor.
 */
export const serviceMachine = setup({
  types: {
    context: {} as Context,
    input: {} as { logic: ServiceLogic },
    events: {} as RequestEvent | { type: 'stop' },
    emitted: {} as Reply | Notice,
  },
  actors: {
    load: fromPromise<void, { logic: ServiceLogic }>(({ input }) => input.logic.load()),
    drain: fromPromise<Drained, { logic: ServiceLogic; batch: RequestEvent[] }>(async ({ input }) => {
      const replies: Reply[] = [];
      const notices: Notice[] = [];
      for (const req of input.batch) {
        // Reads queued while the store loaded are answered in their turn, after earlier writes.
        if (!input.logic.isWrite(req.body)) {
          replies.push(replyTo(req, () => input.logic.read(req.body)));
          continue;
        }
        try {
          const out = await input.logic.write(req.body);
          replies.push({ type: 'reply', reqId: req.reqId, ok: true, result: out.result });
          if (out.notices) notices.push(...out.notices);
        } catch (e) {
          replies.push({ type: 'reply', reqId: req.reqId, ok: false, error: toServiceError(e) });
        }
      }
      return { replies, notices };
    }),
    close: fromPromise<void, { logic: ServiceLogic }>(({ input }) => input.logic.close()),
  },
  actions: {
    answerRead: enqueueActions(({ context, event, enqueue }) => {
      const req = event as RequestEvent;
      enqueue.emit(replyTo(req, () => context.logic.read(req.body)));
    }),
    enqueue: assign({ queue: ({ context, event }) => [...context.queue, event as RequestEvent] }),
    takeBatch: assign({ inflight: ({ context }) => context.queue, queue: () => [] }),
    publish: enqueueActions(({ event, enqueue }) => {
      const out = (event as unknown as { output: Drained }).output;
      // Replies first, then notices: a caller learns its own write's result before the broadcast.
      for (const r of out.replies) enqueue.emit(r);
      for (const n of out.notices) enqueue.emit(n);
    }),
    failInflight: enqueueActions(({ context, event, enqueue }) => {
      const message = String((event as { error?: unknown }).error);
      for (const req of context.inflight) {
        enqueue.emit({ type: 'reply', reqId: req.reqId, ok: false, error: { code: -32603, message } });
      }
    }),
    failQueued: enqueueActions(({ context, enqueue }) => {
      const message = context.error ?? `${context.logic.name} is not running`;
      for (const req of context.queue) {
        enqueue.emit({ type: 'reply', reqId: req.reqId, ok: false, error: { code: -32603, message } });
      }
      enqueue.assign({ queue: [] });
    }),
    refuse: enqueueActions(({ context, event, enqueue }) => {
      const req = event as RequestEvent;
      const message = context.error ?? `${context.logic.name} is not running`;
      enqueue.emit({ type: 'reply', reqId: req.reqId, ok: false, error: { code: -32603, message } });
    }),
    requestStop: assign({ stopRequested: true }),
    refreshSummary: assign({ summary: ({ context }) => summarise(context.logic) }),
    recordError: assign({ error: ({ event }) => String((event as { error?: unknown }).error) }),
  },
  guards: {
    isWrite: ({ context, event }) => {
      try {
        return context.logic.isWrite((event as RequestEvent).body);
      } catch {
        return false;
      }
    },
    hasQueue: ({ context }) => context.queue.length > 0,
    stopRequested: ({ context }) => context.stopRequested,
  },
}).createMachine({
  id: 'service',
  context: ({ input }) => ({ logic: input.logic, queue: [], inflight: [], summary: {}, stopRequested: false }),
  initial: 'loading',
  states: {
    loading: {
      // Requests that arrive while the store loads wait for it, reads included.
      on: { request: { actions: 'enqueue' }, stop: 'closing' },
      invoke: {
        src: 'load',
        input: ({ context }) => ({ logic: context.logic }),
        onDone: { target: 'ready', actions: 'refreshSummary' },
        onError: { target: 'failed', actions: ['recordError', 'failQueued'] },
      },
    },
    ready: {
      initial: 'idle',
      states: {
        idle: {
          always: [
            { guard: 'stopRequested', target: '#service.closing' },
            { guard: 'hasQueue', target: 'working' },
          ],
          on: {
            request: [{ guard: 'isWrite', target: 'working', actions: 'enqueue' }, { actions: 'answerRead' }],
            stop: '#service.closing',
          },
        },
        working: {
          entry: 'takeBatch',
          on: {
            request: [{ guard: 'isWrite', actions: 'enqueue' }, { actions: 'answerRead' }],
            // A write in progress finishes (and is flushed) before the service closes.
            stop: { actions: 'requestStop' },
          },
          invoke: {
            src: 'drain',
            input: ({ context }) => ({ logic: context.logic, batch: context.inflight }),
            onDone: { target: 'idle', actions: ['publish', 'refreshSummary'] },
            onError: { target: 'idle', actions: ['recordError', 'failInflight'] },
          },
        },
      },
    },
    failed: {
      on: { request: { actions: 'refuse' }, stop: 'stopped' },
    },
    closing: {
      entry: 'failQueued',
      on: { request: { actions: 'refuse' } },
      invoke: {
        src: 'close',
        input: ({ context }) => ({ logic: context.logic }),
        onDone: 'stopped',
        onError: 'stopped',
      },
    },
    stopped: { type: 'final' },
  },
});
