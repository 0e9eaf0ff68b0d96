import { NodeClock } from '../actors/clock.js';
import { createActor, type ActorRefFrom, type AnyActorRef, type InspectionEvent } from 'xstate';
import { fromHex, toHex } from '../chain/encoding/hex.js';
import { ScriptExecutionCache, SignatureCache } from '../chain/validation/index.js';
import { selectSecp256k1Backend, type Secp256k1Selection } from '../actors/verify/sig-backend.js';
import { VerifyPool, scriptCheckThreads } from '../actors/verify/pool.js';
import { ccEvalChecker } from '../chain/consensus/cc-eval.js';
import { ChainStoreLogic } from '../actors/chainstore/logic.js';
import { TokenRegistryLogic } from '../actors/tokenregistry/logic.js';
import { MempoolLogic } from '../actors/mempool/logic.js';
import { MinerLogic } from '../actors/miner/logic.js';
import { P2PLogic } from '../actors/p2p/logic.js';
import { KeyStore } from '../actors/wallet/keystore.js';
import { WalletLogic } from '../actors/wallet/logic.js';
import type { NodeServices } from '../actors/services.js';
import type { Asker } from '../actors/ask.js';
import type { WalletProtocol } from '../actors/wallet/protocol.js';
import { createRpcServer, type HelpEnv, type RpcServer } from '../rpc/index.js';
import { nodeMethods } from '../rpc/methods/index.js';
import { ConfigError, type NodeConfig } from './config.js';
import { CommandNotifier } from './notify.js';
import { actorState, type InspectHub } from './inspect.js';
import { nodeActors, nodeMachine, pacerRef, serviceRef, type NodeSystem, type ServiceId } from './root.js';
import { Askers, type ServiceProtocols } from './askers.js';
import { routeNotices } from './routes.js';
import { PublishedParams, type Asks, type NodeParts } from './services/parts.js';
import { chainStoreOptions } from './services/chainstore.js';
import { chainReader, mempoolOptions } from './services/mempool.js';
import { minerOptions, pacerIntervalMs } from './services/miner.js';
import { walletOptions } from './services/wallet.js';
import { tokenRegistryOptions } from './services/tokens.js';
import { p2pOptions } from './services/p2p.js';

export interface NodeHandle {
  readonly services: NodeServices;
  /** What help texts read of the node (the RPC server's, and the explorer page's): the wallet's IsCrypted from the key store this root opened. */
  readonly helpEnv: HelpEnv;
  readonly rpc: RpcServer;
  /** Resolves when the node has stopped (after stop() or the `stop` RPC). */
  readonly stopped: Promise<void>;
  stop(): Promise<void>;
}

export interface StartOptions {
  log?: (msg: string) => void;
  /** XState inspection observer for every actor (acnoded -inspect); absent, nothing is paid. */
  inspect?: (e: InspectionEvent) => void;
  /** acnoded -inspect: the inspection hub (its observer goes to every actor, it records RPC calls). */
  inspector?: InspectHub;
}

/** Waits until an actor reached its final state (its store flushed and closed). */
function whenDone(actor: AnyActorRef): Promise<void> {
  return new Promise((resolve) => {
    if (actor.getSnapshot().status !== 'active') return resolve();
    const sub = actor.subscribe({
      next: (s) => {
        if (s.status !== 'active') {
          sub.unsubscribe();
          resolve();
        }
      },
      complete: () => resolve(),
      error: () => resolve(),
    });
  });
}

/**
 * Starts acnode, in this order: the stores and what the services share (openStores: the secp256k1
 * backend, the key store, caches, script-check workers, the parameters in force), the services as one
 * actor system under a root actor (startActors: src/node/root.ts, the routing of their notices in
 * src/node/routes.ts), what the RPC layer sees of them (nodeServices), then the JSON-RPC server once
 * the chain has loaded (startServers) and the wallet's rebroadcast timer. Actors only talk through
 * messages: requests with replies (Asker) and notices. Stopping stops the root, which stops the
 * services in order.
 */
export async function startNode(config: NodeConfig, opts: StartOptions = {}): Promise<NodeHandle> {
  const log = opts.log ?? (() => {});
  const parts = await openStores(config, log);
  const node = startActors(config, parts, opts.inspect ?? opts.inspector?.observe, log);

  let resend: ResendTimer | undefined;
  let stopping: Promise<void> | undefined;
  let resolveStopped!: () => void;
  const stopped = new Promise<void>((r) => (resolveStopped = r));
  async function stop(): Promise<void> {
    if (stopping) return stopping;
    stopping = (async () => {
      log('shutting down');
      resend?.stop();
      // The root stops the pacer, quiets the node (startActors' quiesce), then each service in order.
      node.root.send({ type: 'stop' });
      await whenDone(node.root);
      await parts.verifyPool.stop();
      log('stopped');
      resolveStopped();
    })();
    return stopping;
  }

  const services = nodeServices(config, parts, node, { requestStop: () => void stop(), inspector: opts.inspector, log });
  const helpEnv: HelpEnv = { chainName: config.chain.name, rpcPort: config.rpcport || config.chain.rpcPort, walletCrypted: () => parts.keys.crypted };
  const rpc = await startServers(config, services, helpEnv, node, opts.inspector, log);
  // A stop asked for during the start (the `stop` RPC, once the server is up) leaves no timer running.
  if (!stopping) resend = startResend(node.ask('wallet'), log);
  return { services, helpEnv, rpc, stopped, stop };
}

/**
 * The stores and what the services share. The secp256k1 backend (-sigbackend) is chosen once, first:
 * a backend that cannot be loaded stops the start before anything is opened; the script-check
 * workers load the same one.
 */
async function openStores(config: NodeConfig, log: (msg: string) => void): Promise<NodeParts> {
  let sig: Secp256k1Selection;
  try {
    sig = selectSecp256k1Backend(config.sigbackend);
  } catch (e) {
    throw new ConfigError(e instanceof Error ? e.message : String(e), 'sigbackend');
  }
  log(`secp256k1 backend: ${sig.report}`);
  const keys = await KeyStore.open(config.datadir, { keypool: config.keypool, log });
  return nodeParts(config, keys, sig, log);
}

/** The running actor system, and what is wired to it from outside. */
interface RunningActors {
  readonly root: ActorRefFrom<typeof nodeMachine>;
  /** The asker of a service (one per service, its actor found by systemId in src/node/root.ts). */
  ask<K extends ServiceId>(id: K): Asker<ServiceProtocols[K]>;
  /** Every actor of the node by its systemId, in start order (getactorstates reads their snapshots). */
  readonly actors: ReadonlyMap<string, AnyActorRef>;
  /** Set once the RPC server is up: the root's quiesce closes it. */
  rpc?: RpcServer;
}

/**
 * The services as one actor system under the root actor (which spawns each with its systemId), their
 * notices routed (with -blocknotify and -walletnotify), then started.
 */
function startActors(config: NodeConfig, parts: NodeParts, inspect: ((e: InspectionEvent) => void) | undefined, log: (msg: string) => void): RunningActors {
  const askers = new Askers();
  const asks = (system: NodeSystem): Asks => ({ chain: askers.of(system, 'chainStore'), mempool: askers.of(system, 'mempool') });
  let minerLogic: MinerLogic | undefined;
  let chainLogic: ChainStoreLogic | undefined;
  const notifiers: CommandNotifier[] = [];

  const root = createActor(nodeMachine, {
    systemId: 'node',
    ...(inspect ? { inspect } : {}),
    input: {
      services: {
        chainStore: () => (chainLogic = new ChainStoreLogic(chainStoreOptions(parts))),
        mempool: (system) => new MempoolLogic(mempoolOptions(parts, askers.of(system, 'chainStore'), chainReader(() => chainLogic))),
        miner: (system) => (minerLogic = new MinerLogic(minerOptions(parts, asks(system), chainReader(() => chainLogic)))),
        wallet: (system) => new WalletLogic(walletOptions(parts, asks(system))),
        tokenRegistry: (system) => new TokenRegistryLogic(tokenRegistryOptions(parts, asks(system))),
        p2p: (system) => new P2PLogic(p2pOptions(parts, asks(system))),
      },
      pacerIntervalMs: pacerIntervalMs(parts),
      // Before the services stop: a solve in progress gives up, the notifiers and the RPC server close.
      quiesce: async () => {
        minerLogic?.abort();
        for (const n of notifiers) n.close();
        await running.rpc?.close();
        // The mempool's notices held for more (routes' RUN_WINDOW_MS) reach the wallet and p2p before they stop.
        routed.flush();
      },
    },
  });
  const system = root.system;
  const ask = <K extends ServiceId>(id: K) => askers.of(system, id);

  const notifier = (command: string | null | undefined) => {
    if (!command) return undefined;
    const n = new CommandNotifier(command, log);
    notifiers.push(n);
    return n;
  };
  const blockNotify = notifier(config.blocknotify);
  // -walletnotify: komodod's AddToWallet runs it when a wallet transaction enters the mempool and when it is mined.
  const walletNotify = notifier(config.walletnotify);
  const routed = routeNotices({
    chainStore: serviceRef(system, 'chainStore'),
    mempool: serviceRef(system, 'mempool'),
    miner: serviceRef(system, 'miner'),
    wallet: serviceRef(system, 'wallet'),
    pacer: pacerRef(system),
    ask: { mempool: ask('mempool'), miner: ask('miner'), wallet: ask('wallet'), p2p: ask('p2p') },
    ...(blockNotify ? { blockNotify } : {}),
    ...(walletNotify ? { walletNotify } : {}),
    log,
  });
  const running: RunningActors = { root, ask, actors: nodeActors(system) };

  root.start();
  return running;
}

/** What the RPC layer sees of the node: its settings, an asker per service, its controls (never the key store: the wallet signs). */
function nodeServices(
  config: NodeConfig,
  parts: NodeParts,
  node: RunningActors,
  o: { requestStop: () => void; inspector: InspectHub | undefined; log: (msg: string) => void },
): NodeServices {
  const { actors } = node;
  return {
    config,
    baseParams: config.chain,
    chainStore: node.ask('chainStore'),
    mempool: node.ask('mempool'),
    miner: node.ask('miner'),
    wallet: node.ask('wallet'),
    tokenRegistry: node.ask('tokenRegistry'),
    p2p: node.ask('p2p'),
    minerPubkey: parts.minerPubkey,
    requestStop: o.requestStop,
    log: o.log,
    clock: parts.clock,
    actors,
    actorStates: () => new Map([...actors].map(([name, ref]) => [name, actorState(ref)])),
    inspectorUrl: () => o.inspector?.url ?? null,
  };
}

/**
 * The JSON-RPC server, answering "Loading block index..." until the chain has loaded (every request
 * queues behind it), then open for business once the P2P listener is bound (its port logged before
 * the RPC server announces itself); -gen starts the miner last.
 */
async function startServers(
  config: NodeConfig,
  services: NodeServices,
  env: HelpEnv,
  node: RunningActors,
  inspector: InspectHub | undefined,
  log: (msg: string) => void,
): Promise<RpcServer> {
  const auth = { user: config.rpcuser ?? '', password: config.rpcpassword ?? '' };
  const first = config.rpcEndpoints[0];
  const server = await createRpcServer({
    methods: inspector ? inspector.wrapRpcMethods(nodeMethods(services)) : nodeMethods(services),
    env,
    auth,
    ...(config.rpcallowip.length ? { allowIps: [...config.rpcallowip] } : {}),
    ...(config.rpcbind.length ? { bind: [...config.rpcbind] } : {}),
    port: first?.port ?? config.rpcport,
    log,
  });
  node.rpc = server;
  server.setWarmup('Loading block index...');

  const tip = await services.chainStore.ask({ op: 'tip' }, 10 * 60_000);
  server.setWarmup(null);
  log(`chain ${config.chain.name} loaded at height ${tip.height} (${tip.hash})`);
  await services.p2p.ask({ op: 'local' }, 10 * 60_000);
  log(`RPC server listening on ${server.addresses.map((a) => `${a.host.includes(':') ? `[${a.host}]` : a.host}:${a.port}`).join(', ')} (rpcport=${server.port})`);
  log(`node pubkey ${toHex(services.minerPubkey)}`);
  if (config.gen) await services.miner.ask({ op: 'setGenerate', on: true, procs: config.genproclimit });
  return server;
}

interface ResendTimer {
  stop(): void;
}

/**
 * ResendWalletTransactions: komodod calls it from every SendMessages round and it acts only when its
 * random time has come; here the wallet answers when that is, and is asked again then.
 */
function startResend(wallet: Asker<WalletProtocol>, log: (msg: string) => void): ResendTimer {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      wallet.ask({ op: 'resend' }).then(
        (next) => schedule(next),
        (err) => {
          log(`wallet: ${String(err)}`);
          schedule(60_000);
        },
      );
    }, ms);
    timer.unref();
  };
  schedule(0);
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/**
 * What the services share: -dbcache bounds the caches (komodod sizes its coin caches from it: the
 * signature and script caches get about 220 and 450 entries per MiB), -par the script-check workers
 * (started with the node; blocks are checked serially until they are up).
 */
async function nodeParts(config: NodeConfig, keys: KeyStore, sig: Secp256k1Selection, log: (msg: string) => void): Promise<NodeParts> {
  const params = new PublishedParams(config.chain);
  return {
    config,
    log,
    keys,
    minerPubkey: config.pubkey ? fromHex(config.pubkey) : (await keys.nodeKey()).pubkey,
    sigCache: new SignatureCache(config.dbcache * 220),
    scriptCache: new ScriptExecutionCache(config.dbcache * 450),
    verifyPool: VerifyPool.create({ threads: scriptCheckThreads(config.par), backend: sig.backend.name, log }),
    params,
    ccChecks: ccEvalChecker(params.get),
    clock: new NodeClock(),
  };
}
