import { createActor, type AnyActorRef, type InspectionEvent } from 'xstate';
import { serviceMachine } from '../machines/service.js';
import { pacerMachine } from '../machines/pacer.js';
import { fromHex, toHex } from '../chain/encoding/hex.js';
import { SignatureCache } from '../chain/validation/index.js';
import type { NodeConfig } from './config.js';
import { Asker } from './ask.js';
import { ChainStoreLogic, type BlockConnected, type BlockDisconnected } from './chainstore/logic.js';
import { consensusRules } from './chainstore/consensus.js';
import { MempoolLogic } from './mempool/logic.js';
import { MinerLogic } from './miner/logic.js';
import { KeyStore } from './wallet/keystore.js';
import type { NodeServices } from './services.js';
import { createRpcServer, type RpcServer } from '../rpc/index.js';
import { nodeMethods } from '../rpc/methods/index.js';

export interface NodeHandle {
  readonly services: NodeServices;
  readonly rpc: RpcServer;
  /** Resolves when the node has stopped (after stop() or the `stop` RPC). */
  readonly stopped: Promise<void>;
  stop(): Promise<void>;
}

export interface StartOptions {
  log?: (msg: string) => void;
  /** XState inspection observer for every actor (acnoded -inspect); absent, nothing is paid. */
  inspect?: (e: InspectionEvent) => void;
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
 * Starts acnode: the key store, the service actors (chainStore, mempool, miner, the -gen pacer),
 * the notices between them, and the JSON-RPC server. Actors only talk through messages: requests
 * with replies (Asker) and the chain store's blockConnected/blockDisconnected notices.
 */
export async function startNode(config: NodeConfig, opts: StartOptions = {}): Promise<NodeHandle> {
  const log = opts.log ?? (() => {});
  const actorOpts = (systemId: string) => ({ systemId, ...(opts.inspect ? { inspect: opts.inspect } : {}) });
  const keys = await KeyStore.open(config.datadir);
  const minerPubkey = config.pubkey ? fromHex(config.pubkey) : (await keys.nodeKey()).pubkey;
  const sigCache = new SignatureCache();

  // The rules read the parameters in force at the chain store's tip (they change on auto-activation).
  let chainLogic: ChainStoreLogic | undefined;
  chainLogic = new ChainStoreLogic({
    dir: config.datadir,
    baseParams: config.chain,
    rules: consensusRules({ params: () => chainLogic?.currentParams ?? config.chain, sigCache }),
    log,
  });
  const chainActor = createActor(serviceMachine, { input: { logic: chainLogic }, ...actorOpts('chainStore') });
  const chain = new Asker('chainStore', chainActor);

  const mempoolLogic = new MempoolLogic({ chain, dataCarrierSize: config.datacarriersize, sigCache });
  const mempoolActor = createActor(serviceMachine, { input: { logic: mempoolLogic }, ...actorOpts('mempool') });
  const mempool = new Asker('mempool', mempoolActor);

  const minerLogic = new MinerLogic({ chain, mempool, payTo: minerPubkey, log });
  const minerActor = createActor(serviceMachine, { input: { logic: minerLogic }, ...actorOpts('miner') });
  // Mining a block can take a while on large Equihash parameters: a generous timeout.
  const miner = new Asker('miner', minerActor, 10 * 60_000);

  const intervalMs = Math.max(1, config.chain.ac.blocktime) * 1000;
  const pacer = createActor(pacerMachine, { input: { intervalMs, on: false }, ...actorOpts('pacer') });

  // The chain store's notices reach the mempool in the order they were emitted.
  chainActor.on('blockConnected', (e) => {
    const n = e as unknown as BlockConnected;
    mempool.ask({ op: 'blockConnected', block: n.block, txids: n.txids, height: n.height }).catch((err) => log(`mempool: ${String(err)}`));
  });
  chainActor.on('blockDisconnected', (e) => {
    const n = e as unknown as BlockDisconnected;
    mempool.ask({ op: 'blockDisconnected', block: n.block, txids: n.txids, height: n.height }).catch((err) => log(`mempool: ${String(err)}`));
  });
  let pacedBlockInFlight = false;
  pacer.on('tick', () => {
    if (pacedBlockInFlight) return;
    pacedBlockInFlight = true;
    miner
      .ask({ op: 'generate', n: 1 })
      .catch((err) => log(`miner: ${String(err)}`))
      .finally(() => (pacedBlockInFlight = false));
  });
  minerActor.on('generateChanged', (e) => pacer.send((e as unknown as { on: boolean }).on ? { type: 'on' } : { type: 'off' }));

  chainActor.start();
  mempoolActor.start();
  minerActor.start();
  pacer.start();

  let resolveStopped!: () => void;
  const stopped = new Promise<void>((r) => (resolveStopped = r));
  let stopping: Promise<void> | undefined;

  const services: NodeServices = {
    config,
    baseParams: config.chain,
    chain,
    mempool,
    miner,
    keys,
    minerPubkey,
    requestStop: () => void stop(),
    log,
  };

  const auth = { user: config.rpcuser ?? '', password: config.rpcpassword ?? '' };
  const first = config.rpcEndpoints[0];
  const rpc = await createRpcServer({
    methods: nodeMethods(services),
    env: { chainName: config.chain.name, rpcPort: config.rpcport || config.chain.rpcPort },
    auth,
    ...(config.rpcallowip.length ? { allowIps: [...config.rpcallowip] } : {}),
    ...(config.rpcbind.length ? { bind: [...config.rpcbind] } : {}),
    port: first?.port ?? config.rpcport,
    log,
  });
  rpc.setWarmup('Loading block index...');

  // Wait for the chain to load (every request queues behind it), then open for business.
  const tip = await chain.ask<{ height: number; hash: string }>({ op: 'tip' }, 10 * 60_000);
  rpc.setWarmup(null);
  log(`chain ${config.chain.name} loaded at height ${tip.height} (${tip.hash})`);
  log(`RPC server listening on ${rpc.addresses.map((a) => `${a.host.includes(':') ? `[${a.host}]` : a.host}:${a.port}`).join(', ')} (rpcport=${rpc.port})`);
  log(`node pubkey ${toHex(minerPubkey)}`);
  if (config.gen) await miner.ask({ op: 'setGenerate', on: true, procs: config.genproclimit });

  async function stop(): Promise<void> {
    if (stopping) return stopping;
    stopping = (async () => {
      log('shutting down');
      pacer.stop();
      await rpc.close();
      for (const actor of [minerActor, mempoolActor, chainActor]) {
        actor.send({ type: 'stop' });
        await whenDone(actor);
      }
      log('stopped');
      resolveStopped();
    })();
    return stopping;
  }

  return { services, rpc, stopped, stop };
}
