import { setup, fromPromise, fromCallback, assign, enqueueActions, sendTo } from 'xstate';
import { isAwaited, toServiceError, TOLD, type Notice, type Op, type Reply, type Request, type RequestEvent } from './messages.js';

/** The least a notice is (each protocol names its own). */
type AnyNotice = { type: string };

export type { Notice } from './messages.js';

/** What a write returns: its result for the caller, and the notices to emit after it, in order. */
export interface WriteOutcome<N extends AnyNotice = Notice> {
  result: unknown;
  notices?: N[];
}

/** One write's outcome in a batch: its result or its error. */
export type BatchOutcome<R = unknown> = { ok: true; result: R } | { ok: false; error: unknown };

/**
 * The domain object a service machine drives. Reads answer at once from memory; writes run one at
 * a time, in arrival order, and may touch storage. Big indexes live here, not in machine context
 * (XState copies context on every assign). Req is the union of the service's request bodies, so a
 * `switch (body.op)` in read and write narrows each body to its op's fields.
 */
export interface ServiceLogic<Req extends Request = Op, N extends AnyNotice = Notice> {
  readonly name: string;
  load(): Promise<void>;
  isWrite(body: Req): boolean;
  read(body: Req): unknown;
  write(body: Req): Promise<WriteOutcome<N>>;
  /**
   * Optional: consecutive writes this answers true for are handed to writeBatch together, which
   * answers each one as write would have, in order (the mempool verifies a burst in parallel).
   */
  batchable?(body: Req): boolean;
  /**
   * Applies the writes in order, reporting their outcomes in order as they settle (each exactly once,
   * possibly in several reports, with the notices of the reported ones). It may resolve before all are
   * reported (the next batch is then taken meanwhile); the rest must be reported before close() ends.
   */
  writeBatch?(bodies: Req[], report: (outcomes: BatchOutcome[], notices: N[]) => void): Promise<void>;
  /**
   * Optional: a batchable write that is a batch already (the mempool's acceptMany, gathered by its
   * sender): it starts at once instead of waiting a turn for company.
   */
  gathered?(body: Req): boolean;
  /**
   * Optional: the writes that need no waiting (nothing stored, nothing asked). With nothing queued
   * or running, such a write is applied by writeNow inside the step that received it: one machine
   * step, not a round trip through the writer (the wallet's and p2p's share of every accepted burst).
   */
  writesNow?(body: Req): boolean;
  /** Applies a write writesNow answered true for, synchronously, as write would have. */
  writeNow?(body: Req): WriteOutcome<N>;
  /**
   * Optional: the gathered batches (gathered) whose taking needs no waiting (their inputs read at
   * once). With nothing queued or running, such a batch is taken by postNow inside the step that
   * received it, and its answer comes later as writeBatch's would: no working state, no `drained`
   * step, on every burst of sendrawtransaction calls in flight.
   */
  postsNow?(body: Req): boolean;
  /**
   * Takes a batch postsNow answered true for, synchronously, as writeBatch would have taken it alone;
   * its outcome (one, for the body) is reported later, with its notices, before close() ends.
   */
  postNow?(body: Req, report: (outcomes: BatchOutcome[], notices: N[]) => void): void;
  /**
   * A small summary (counts, tip) for inspection: never whole indexes. Read when the node is inspected
   * (serviceSummary), not kept in context: an assign per write would copy the snapshot for nothing.
   */
  summary(): Record<string, unknown>;
  close(): Promise<void>;
}

/** A service logic of any protocol: what the generic machine drives. */
export type AnyServiceLogic = ServiceLogic<Request, AnyNotice>;

interface Context {
  logic: AnyServiceLogic;
  /** Writes waiting for the running batch to finish. */
  queue: RequestEvent[];
  /** The batch being written now. */
  inflight: RequestEvent[];
  error?: string;
  /** A stop that arrived while a batch was being written: close once the batch is done. */
  stopRequested: boolean;
}

interface Drained {
  replies: Reply[];
  notices: AnyNotice[];
}

type WriterEvent = { type: 'drain'; batch: RequestEvent[] } | { type: 'gather' } | { type: 'post'; req: RequestEvent };
type WriterReply =
  | { type: 'drained'; output: Drained }
  | { type: 'settled'; output: Drained }
  | { type: 'drainFailed'; error: unknown }
  | { type: 'gathered' };

function replyTo(req: RequestEvent, run: () => unknown): Reply {
  try {
    return { type: 'reply', reqId: req.reqId, ok: true, result: run() };
  } catch (e) {
    return { type: 'reply', reqId: req.reqId, ok: false, error: toServiceError(e) };
  }
}

/** A service's summary as inspection shows it (a failing summary() is shown, not thrown). */
export function serviceSummary(logic: AnyServiceLogic): Record<string, unknown> {
  try {
    return logic.summary();
  } catch (e) {
    return { summaryError: String(e) };
  }
}

/** A write the logic takes together with its neighbours (ServiceLogic.batchable). */
function isBatchableWrite(logic: AnyServiceLogic, body: Request): boolean {
  return !!logic.writeBatch && !!logic.batchable?.(body) && logic.isWrite(body);
}

/** A batchable write that needs no turn to gather company (ServiceLogic.gathered). */
function isGatheredBatch(logic: AnyServiceLogic, body: Request): boolean {
  return isBatchableWrite(logic, body) && !!logic.gathered?.(body);
}

function toReply(req: RequestEvent, o: BatchOutcome): Reply {
  return o.ok ? { type: 'reply', reqId: req.reqId, ok: true, result: o.result } : { type: 'reply', reqId: req.reqId, ok: false, error: toServiceError(o.error) };
}

/**
 * Runs a batch of queued requests in order: reads answered, writes applied, a run of batchable writes
 * handed to writeBatch together. What a batchable run settles is sent out as it settles (`early`),
 * so its callers need not wait for the rest of the run.
 */
async function drain(logic: AnyServiceLogic, batch: RequestEvent[], early: (out: Drained) => void): Promise<Drained> {
  const replies: Reply[] = [];
  const notices: AnyNotice[] = [];
  for (let i = 0; i < batch.length; i++) {
    const req = batch[i]!;
    // Reads queued while the store loaded are answered in their turn, after earlier writes.
    if (!logic.isWrite(req.body)) {
      replies.push(replyTo(req, () => logic.read(req.body)));
      continue;
    }
    if (isBatchableWrite(logic, req.body)) {
      let end = i + 1;
      while (end < batch.length && isBatchableWrite(logic, batch[end]!.body)) end++;
      const run = batch.slice(i, end);
      i = end - 1;
      // What came before the run goes out first, so that answers keep their order.
      if (replies.length || notices.length) early({ replies: replies.splice(0), notices: notices.splice(0) });
      let reported = 0;
      try {
        await logic.writeBatch!(
          run.map((r) => r.body),
          (outcomes, runNotices) => early({ replies: outcomes.map((o) => toReply(run[reported++]!, o)), notices: runNotices }),
        );
      } catch (e) {
        for (const r of run.slice(reported)) replies.push(toReply(r, { ok: false, error: e }));
      }
      // Not reported yet: the logic reports them later (the mempool, once the workers have checked them).
      continue;
    }
    try {
      const out = await logic.write(req.body);
      replies.push(toReply(req, { ok: true, result: out.result }));
      if (out.notices) notices.push(...out.notices);
    } catch (e) {
      replies.push(toReply(req, { ok: false, error: e }));
    }
  }
  return { replies, notices };
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
    input: {} as { logic: AnyServiceLogic },
    // Any protocol's bodies: the machine is generic, each logic's own type narrows them.
    events: {} as RequestEvent<Op> | { type: 'stop' } | WriterReply,
    emitted: {} as Reply | AnyNotice,
  },
  actors: {
    load: fromPromise<void, { logic: AnyServiceLogic }>(({ input }) => input.logic.load()),
    // One writer for the service's life, not an actor per write: it runs each batch it is sent and
    // sends back `drained` (a write costs two machine steps, no actor creation).
    writer: fromCallback<WriterEvent, { logic: AnyServiceLogic }>(({ input, receive, sendBack }) => {
      receive((e) => {
        if (e.type === 'gather') {
          // Requests read in this turn of the event loop join the batch.
          setImmediate(() => sendBack({ type: 'gathered' }));
          return;
        }
        if (e.type === 'post') {
          // Taken now, in the step that received it (the machine stays idle); its outcome goes out
          // as a `settled` when it settles. A throw is the request's error reply, as in a drain.
          const req = e.req;
          let answered = false;
          try {
            input.logic.postNow!(req.body, (outcomes, notices) => {
              if (outcomes.length > 0) answered = true;
              sendBack({ type: 'settled', output: { replies: outcomes.map((o) => toReply(req, o)), notices } });
            });
          } catch (error) {
            if (!answered) sendBack({ type: 'settled', output: { replies: [toReply(req, { ok: false, error })], notices: [] } });
          }
          return;
        }
        // What settles while the drain runs is held until the promise jobs of this callback have run
        // (process.nextTick runs after them): if the drain has ended by then (a lone accept, verified
        // at once), it goes out with `drained`, one machine step instead of a `settled` and a
        // `drained`; if not, it goes out then. What settles once the drain has ended goes out at once.
        // Either way in the order it settled. (A setImmediate here cost every lone call one more
        // iteration of the event loop, a poll included, only to find nothing held.)
        let held: Drained | undefined;
        let running = true;
        const flush = () => {
          if (!held) return;
          const output = held;
          held = undefined;
          sendBack({ type: 'settled', output });
        };
        const early = (output: Drained) => {
          if (!running) return sendBack({ type: 'settled', output });
          if (!held) {
            held = { replies: [], notices: [] };
            process.nextTick(flush);
          }
          held.replies.push(...output.replies);
          held.notices.push(...output.notices);
        };
        drain(input.logic, e.batch, early).then(
          (output) => {
            running = false;
            const before = held;
            held = undefined;
            sendBack({ type: 'drained', output: before ? { replies: [...before.replies, ...output.replies], notices: [...before.notices, ...output.notices] } : output });
          },
          (error: unknown) => {
            running = false;
            flush();
            sendBack({ type: 'drainFailed', error });
          },
        );
      });
    }),
    close: fromPromise<void, { logic: AnyServiceLogic }>(({ input }) => input.logic.close()),
  },
  actions: {
    answerRead: enqueueActions(({ context, event, enqueue }) => {
      const req = event as RequestEvent;
      const reply = replyTo(req, () => context.logic.read(req.body));
      if (isAwaited(reply)) enqueue.emit(reply);
    }),
    writeNow: enqueueActions(({ context, event, enqueue }) => {
      const req = event as RequestEvent;
      // replyTo written out: no closure (and its context) on every lone accept and every notice
      // applied at once, and no reply made for a told request that succeeded (none goes out).
      let out: WriteOutcome<AnyNotice>;
      try {
        out = context.logic.writeNow!(req.body);
      } catch (e) {
        enqueue.emit({ type: 'reply', reqId: req.reqId, ok: false, error: toServiceError(e) });
        return;
      }
      // As `publish`: the caller's reply first, then the notices.
      if (req.reqId !== TOLD) enqueue.emit({ type: 'reply', reqId: req.reqId, ok: true, result: out.result });
      if (out.notices) for (const n of out.notices) enqueue.emit(n);
    }),
    enqueue: assign({ queue: ({ context, event }) => [...context.queue, event as RequestEvent] }),
    takeBatch: assign({ inflight: ({ context }) => context.queue, queue: () => [] }),
    startDrain: sendTo('writer', ({ context }): WriterEvent => ({ type: 'drain', batch: context.inflight })),
    startGather: sendTo('writer', (): WriterEvent => ({ type: 'gather' })),
    // Delivered to the writer within this step (XState runs a step's sends before its next event).
    postNow: sendTo('writer', ({ event }): WriterEvent => ({ type: 'post', req: event as RequestEvent })),
    publish: enqueueActions(({ event, enqueue }) => {
      const out = (event as unknown as { output: Drained }).output;
      // Replies first, then notices: a caller learns its own write's result before the broadcast.
      for (const r of out.replies) if (isAwaited(r)) enqueue.emit(r);
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
    isBatchable: ({ context, event }) => {
      try {
        return isBatchableWrite(context.logic, (event as RequestEvent).body);
      } catch {
        return false;
      }
    },
    isGatheredBatch: ({ context, event }) => {
      try {
        return isGatheredBatch(context.logic, (event as RequestEvent).body);
      } catch {
        return false;
      }
    },
    writesNow: ({ context, event }) => {
      try {
        const body = (event as RequestEvent).body;
        return !!context.logic.writeNow && !!context.logic.writesNow?.(body) && context.logic.isWrite(body);
      } catch {
        return false;
      }
    },
    postsNow: ({ context, event }) => {
      try {
        const body = (event as RequestEvent).body;
        return !!context.logic.postNow && !!context.logic.postsNow && isGatheredBatch(context.logic, body) && context.logic.postsNow(body);
      } catch {
        return false;
      }
    },
    hasQueue: ({ context }) => context.queue.length > 0,
    stopRequested: ({ context }) => context.stopRequested,
  },
}).createMachine({
  id: 'service',
  context: ({ input }) => ({ logic: input.logic, queue: [], inflight: [], stopRequested: false }),
  initial: 'loading',
  // The writer lives as long as the service: a batch's outcomes may be reported after its drain ended,
  // up to the close (which waits for them).
  invoke: { id: 'writer', src: 'writer', input: ({ context }) => ({ logic: context.logic }) },
  on: {
    // Part of a batch settled: its replies and notices go out now.
    settled: { actions: 'publish' },
  },
  states: {
    loading: {
      // Requests that arrive while the store loads wait for it, reads included. A stop waits for it
      // too (ready closes at once, refusing what queued): a load writes as it goes (the wallet opens
      // its stores, records what its rescan finds, re-accepts), and a stopped service has finished
      // writing, so its data directory can go or be copied once the node's stop returns.
      on: { request: { actions: 'enqueue' }, stop: { actions: 'requestStop' } },
      invoke: {
        src: 'load',
        input: ({ context }) => ({ logic: context.logic }),
        onDone: { target: 'ready' },
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
            request: [
              // Nothing queued or running here, so applying it now keeps the arrival order. First: a
              // batchable write may need no waiting either (the mempool's lone accept, writesNow).
              { guard: 'writesNow', actions: 'writeNow' },
              // A gathered batch that needs no waiting is taken now, the machine left idle: the logic
              // orders it after the batches it took before (the mempool's bursts being verified).
              { guard: 'postsNow', actions: 'postNow' },
              { guard: 'isGatheredBatch', target: 'working', actions: 'enqueue' },
              { guard: 'isBatchable', target: 'gathering', actions: 'enqueue' },
              { guard: 'isWrite', target: 'working', actions: 'enqueue' },
              { actions: 'answerRead' },
            ],
            stop: '#service.closing',
          },
        },
        // A batchable write (the mempool's accepts) waits one turn of the event loop for company.
        gathering: {
          entry: 'startGather',
          on: {
            request: [{ guard: 'isWrite', actions: 'enqueue' }, { actions: 'answerRead' }],
            gathered: 'working',
            stop: { actions: 'requestStop' },
          },
        },
        working: {
          entry: ['takeBatch', 'startDrain'],
          on: {
            request: [{ guard: 'isWrite', actions: 'enqueue' }, { actions: 'answerRead' }],
            // A write in progress finishes (and is flushed) before the service closes.
            stop: { actions: 'requestStop' },
            drained: { target: 'idle', actions: 'publish' },
            drainFailed: { target: 'idle', actions: ['recordError', 'failInflight'] },
          },
        },
      },
    },
    failed: {
      always: { guard: 'stopRequested', target: 'stopped' },
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
