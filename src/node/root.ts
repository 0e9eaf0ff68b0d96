import { setup, fromPromise, enqueueActions, stopChild, type ActorRefFrom, type ActorSystem, type AnyActorRef } from 'xstate';
import { serviceMachine, type AnyServiceLogic } from '../machines/service.js';
import { pacerMachine } from '../machines/pacer.js';

/** The node's services by systemId, in start order: each may ask only those before it. */
export const SERVICE_IDS = ['chainStore', 'mempool', 'miner', 'wallet', 'tokenRegistry', 'p2p'] as const;
export type ServiceId = (typeof SERVICE_IDS)[number];
export type ServiceRef = ActorRefFrom<typeof serviceMachine>;
export type PacerRef = ActorRefFrom<typeof pacerMachine>;
/** The node's actor system (xstate's AnyActorSystem: its systemIds are SERVICE_IDS and 'pacer'). */
export type NodeSystem = ActorSystem<any>;

export interface NodeRootInput {
  /**
   * Each service's logic, made when its actor is spawned (in SERVICE_IDS order): a maker finds the
   * services it asks, spawned before it, with system.get.
   */
  services: { readonly [K in ServiceId]: (system: NodeSystem) => AnyServiceLogic };
  /** -gen's pace (ac_blocktime). */
  pacerIntervalMs: number;
  /** Quiets the node before its services stop: the RPC server closed, a running solve aborted. */
  quiesce: () => Promise<void>;
}

interface Context {
  services: { readonly [K in ServiceId]: ServiceRef };
  pacer: PacerRef;
  quiesce: () => Promise<void>;
}

/** A running service's actor, found by its systemId (a node without it is a wiring bug). */
export function serviceRef(system: NodeSystem, id: ServiceId): ServiceRef {
  const ref: ServiceRef | undefined = system.get(id);
  if (!ref) throw new Error(`no ${id} actor in the node`);
  return ref;
}

export function pacerRef(system: NodeSystem): PacerRef {
  const ref: PacerRef | undefined = system.get('pacer');
  if (!ref) throw new Error('no pacer actor in the node');
  return ref;
}

/** Every actor of the node by its systemId, in start order: the services, then the pacer. */
export function nodeActors(system: NodeSystem): Map<string, AnyActorRef> {
  return new Map<string, AnyActorRef>([...SERVICE_IDS.map((id) => [id, serviceRef(system, id)] as const), ['pacer', pacerRef(system)]]);
}

/** Whether a service has stopped: reached its final state (store flushed and closed) or failed. */
const ended = (ref: AnyActorRef) => ref.getSnapshot().status !== 'active';

/** A spawned service's failure event, whichever it is (unhandled, it would fail the root and stop them all). */
const ANY_CHILD_FAILED: string = 'xstate.error.actor.*';

/** One step of the stop sequence: the service is asked to stop, and the next step waits for its final state. */
function stopStep(id: ServiceId, next: string) {
  return {
    entry: { type: 'stopService' as const, params: { id } },
    always: { guard: { type: 'ended' as const, params: { id } }, target: next },
    on: { [`xstate.done.actor.${id}`]: next, [`xstate.error.actor.${id}`]: next },
  };
}

/**
 * The node as one actor system: the root spawns the services (each with its systemId) and the -gen
 * pacer, and stops them. Stopping is ordered: the pacer, then whatever quiets the node (the RPC
 * server), then each service in turn, waiting for its final state (a stopped service has flushed its
 * store) before the next: who asks stops before whom it asks, the chain store (which asks no one) last.
 */
export const nodeMachine = setup({
  types: {
    context: {} as Context,
    input: {} as NodeRootInput,
    events: {} as { type: 'stop' },
  },
  actors: {
    service: serviceMachine,
    pacer: pacerMachine,
    quiesce: fromPromise<void, { quiesce: () => Promise<void> }>(({ input }) => input.quiesce()),
  },
  actions: {
    stopService: enqueueActions(({ context, enqueue }, { id }: { id: ServiceId }) => {
      const ref = context.services[id];
      if (!ended(ref)) enqueue.sendTo(ref, { type: 'stop' });
    }),
  },
  guards: {
    ended: ({ context }, { id }: { id: ServiceId }) => ended(context.services[id]),
  },
}).createMachine({
  id: 'node',
  context: ({ input, spawn, self }) => {
    // Spawned one by one, in order: a maker's system.get finds the services spawned before it.
    const spawnService = (id: ServiceId) => spawn('service', { id, systemId: id, input: { logic: input.services[id](self.system) } });
    const services = {
      chainStore: spawnService('chainStore'),
      mempool: spawnService('mempool'),
      miner: spawnService('miner'),
      wallet: spawnService('wallet'),
      tokenRegistry: spawnService('tokenRegistry'),
      p2p: spawnService('p2p'),
    };
    const pacer = spawn('pacer', { id: 'pacer', systemId: 'pacer', input: { intervalMs: input.pacerIntervalMs, on: false } });
    return { services, pacer, quiesce: input.quiesce };
  },
  // A service that fails stays failed (getactorstates shows it); the node and the others run on.
  on: { [ANY_CHILD_FAILED]: {} },
  initial: 'running',
  states: {
    running: { on: { stop: 'stopping' } },
    stopping: {
      entry: stopChild(({ context }) => context.pacer),
      initial: 'quiesce',
      states: {
        quiesce: {
          invoke: { src: 'quiesce', input: ({ context }) => ({ quiesce: context.quiesce }), onDone: 'p2p', onError: 'p2p' },
        },
        p2p: stopStep('p2p', 'miner'),
        miner: stopStep('miner', 'tokenRegistry'),
        tokenRegistry: stopStep('tokenRegistry', 'wallet'),
        wallet: stopStep('wallet', 'mempool'),
        mempool: stopStep('mempool', 'chainStore'),
        chainStore: stopStep('chainStore', '#node.stopped'),
      },
    },
    stopped: { type: 'final' },
  },
});
