import { type AnyActorRef, type InspectionEvent } from 'xstate';
import { serviceMachine } from '../machines/service.js';
import { pacerMachine } from '../machines/pacer.js';
import { fromHex, toHex } from '../chain/encoding/hex.js';
import type { Transaction } from '../chain/tx/transaction.js';
import { ScriptExecutionCache, SignatureCache } from '../chain/validation/index.js';
import { selectSecp256k1Backend, type Secp256k1Selection } from './verify/sig-backend.js';
import { VerifyPool, scriptCheckThreads } from './verify/pool.js';
import { ConfigError, type NodeConfig } from './config.js';
import { Asker } from './ask.js';
import { ChainStoreLogic, type BlockConnected, type BlockDisconnected } from './chainstore/logic.js';
import type { ChainStoreProtocol } from './chainstore/protocol.js';
import type { MempoolProtocol } from './mempool/protocol.js';
import type { MinerProtocol } from './miner/protocol.js';
import type { TokensProtocol } from './tokens/protocol.js';
import type { P2PProtocol, P2PRequest } from './p2p/protocol.js';
import type { RelayTxs, WalletProtocol, WalletRequest } from './wallet/protocol.js';
import { consensusRules, ccEvalChecker } from './chainstore/consensus.js';
import { TokenRegistryLogic } from './tokens/registry.js';
import { MempoolLogic } from './mempool/logic.js';
import { MinerLogic } from './miner/logic.js';
import { P2PLogic } from './p2p/logic.js';
import { KeyStore } from './wallet/keystore.js';
import { WalletLogic } from './wallet/logic.js';
import type { TxAccepted, TxRemoved } from './mempool/logic.js';
import type { NodeServices } from './services.js';
import { CommandNotifier } from './notify.js';
import { createRpcServer, type RpcServer } from '../rpc/index.js';
import { nodeMethods } from '../rpc/methods/index.js';
import { trackingCreateActor, type InspectHub } from './inspect.js';

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
 * Starts acnode: the key store, the service actors (chainStore, mempool, miner, the -gen pacer),
 * the notices between them, and the JSON-RPC server. Actors only talk through messages: requests
 * with replies (Asker) and the chain store's blockConnected/blockDisconnected notices.
 */
export async function startNode(config: NodeConfig, opts: StartOptions = {}): Promise<NodeHandle> {
  const log = opts.log ?? (() => {});
  const inspect = opts.inspect ?? opts.inspector?.observe;
  const actorOpts = (systemId: string) => ({ systemId, ...(inspect ? { inspect } : {}) });
  // Every actor created below with a systemId is listed here, for getactorstates (shadows xstate's createActor).
  const actorRegistry = new Map<string, AnyActorRef>();
  const createActor = trackingCreateActor(actorRegistry);
  // -sigbackend: the secp256k1 backend, chosen once, first (a backend that cannot be loaded stops the
  // start before anything is opened); the script-check workers load the same one.
  let sig: Secp256k1Selection;
  try {
    sig = selectSecp256k1Backend(config.sigbackend);
  } catch (e) {
    throw new ConfigError(e instanceof Error ? e.message : String(e), 'sigbackend');
  }
  log(`secp256k1 backend: ${sig.report}`);
  const keys = await KeyStore.open(config.datadir, { keypool: config.keypool });
  const minerPubkey = config.pubkey ? fromHex(config.pubkey) : (await keys.nodeKey()).pubkey;
  // -dbcache bounds the caches (komodod sizes its coin caches from it): the signature and script
  // caches get about 200 and 450 entries per MiB (100,000 and 200,000 at the default 450), the chain
  // store's recent blocks a sixteenth of it.
  const sigCache = new SignatureCache(config.dbcache * 220);
  const scriptCache = new ScriptExecutionCache(config.dbcache * 450);
  // -par: the script-check workers, started with the node (blocks are checked serially until they are up).
  const verifyPool = VerifyPool.create({ threads: scriptCheckThreads(config.par), backend: sig.backend.name, log });

  // The rules read the parameters in force at the chain store's tip (they change on auto-activation).
  let chainLogic: ChainStoreLogic | undefined;
  // CC eval dispatch (Tokens validator) for blocks and the mempool.
  const ccChecks = ccEvalChecker(() => chainLogic?.currentParams ?? config.chain);
  chainLogic = new ChainStoreLogic({
    dir: config.datadir,
    baseParams: config.chain,
    addressIndex: config.addressindex,
    reindex: config.reindex,
    cacheBytes: Math.floor((config.dbcache * 2 ** 20) / 16),
    rules: consensusRules({ params: () => chainLogic?.currentParams ?? config.chain, sigCache, scriptCache, ccChecker: ccChecks, verifyPool }),
    log,
  });
  const chainActor = createActor(serviceMachine, { input: { logic: chainLogic }, ...actorOpts('chainStore') });
  const chain = new Asker<ChainStoreProtocol>('chainStore', chainActor);

  // CC validators (Tokens) read the mempool's transactions and, synchronously, the chain store's tx
  // index: transactions are immutable, and whatever the mempool admits is validated again when its
  // block connects.
  const mempoolLogic = new MempoolLogic({
    chain,
    dataCarrierSize: config.datacarriersize,
    addressIndex: config.addressindex,
    sigCache,
    scriptCache,
    verifyPool,
    ccChecker: (view) =>
      ccChecks(
        { tx: (txid) => view.tx(txid) ?? (chainLogic?.read({ op: 'tx', txid }) as { tx: Transaction } | null)?.tx },
        (chainLogic?.index.height ?? 0) + 1,
      ),
  });
  const mempoolActor = createActor(serviceMachine, { input: { logic: mempoolLogic }, ...actorOpts('mempool') });
  const mempool = new Asker<MempoolProtocol>('mempool', mempoolActor);

  const minerLogic = new MinerLogic({ chain, mempool, payTo: minerPubkey, log });
  const minerActor = createActor(serviceMachine, { input: { logic: minerLogic }, ...actorOpts('miner') });
  // Mining a block can take a while on large Equihash parameters: a generous timeout.
  const miner = new Asker<MinerProtocol>('miner', minerActor, 10 * 60_000);

  const intervalMs = Math.max(1, config.chain.ac.blocktime) * 1000;
  const pacer = createActor(pacerMachine, { input: { intervalMs, on: false }, ...actorOpts('pacer') });

  // The chain store's notices reach the mempool in the order they were emitted.
  chainActor.on('blockConnected', (e) => {
    const n = e as unknown as BlockConnected;
    mempool.ask({ op: 'blockConnected', block: n.block, txids: n.txids, height: n.height }).catch((err) => log(`mempool: ${String(err)}`));
  });
  chainActor.on('blockDisconnected', (e) => {
    const n = e as unknown as BlockDisconnected;
    mempool.ask({ op: 'blockDisconnected', block: n.block }).catch((err) => log(`mempool: ${String(err)}`));
  });
  const notifiers: CommandNotifier[] = [];
  if (config.blocknotify) {
    const blockNotify = new CommandNotifier(config.blocknotify, log);
    notifiers.push(blockNotify);
    chainActor.on('tipChanged', (e) => blockNotify.notify((e as unknown as { hash: string }).hash));
  }
  // The wallet follows the chain and the mempool through their notices (after the chain store's own).
  const walletLogic = new WalletLogic({
    chain,
    mempool,
    keys,
    dir: config.datadir,
    params: () => chainLogic?.currentParams ?? config.chain,
    expiryDelta: config.txexpirydelta,
    // GetBoolArg("-rescan"): a bare flag is true, else atoi(value) != 0.
    rescanBlocks: ((v) => v !== undefined && (v === '' || (parseInt(v, 10) || 0) !== 0))(config.flags.get('rescan')),
    ...(config.pubkey ? { externalPubkey: fromHex(config.pubkey) } : {}),
    ...(config.walletResendTimes ? { resendTimes: config.walletResendTimes } : {}),
    log,
  });
  const walletActor = createActor(serviceMachine, { input: { logic: walletLogic }, ...actorOpts('wallet') });
  if (config.walletnotify) {
    // -walletnotify: komodod's AddToWallet runs it when a wallet transaction enters the mempool and when it is mined.
    const walletNotify = new CommandNotifier(config.walletnotify, log);
    notifiers.push(walletNotify);
    walletActor.on('walletTx', (e) => walletNotify.notify((e as unknown as { txid: string }).txid));
  }
  const wallet = new Asker<WalletProtocol>('wallet', walletActor, 10 * 60_000);
  const toWallet = (body: WalletRequest) => wallet.ask(body).catch((err) => log(`wallet: ${String(err)}`));
  chainActor.on('blockConnected', (e) => {
    const n = e as unknown as BlockConnected;
    void toWallet({ op: 'blockConnected', block: n.block, txids: n.txids, height: n.height });
  });
  // The wallet rescans after a disconnection: it needs nothing of the block.
  chainActor.on('blockDisconnected', () => void toWallet({ op: 'blockDisconnected' }));
  // The mempool's notices reach the wallet in their order, a run of txAccepted (or of txRemoved) as
  // one message: one machine step, not one per transaction. txAccepted runs reach the p2p actor too.
  // A mined transaction's txRemoved matters to the wallet: the block may have reached it before the
  // transaction's txAccepted did (the transaction was still being verified in a burst).
  let run: { kind: 'accepted'; items: TxAccepted[] } | { kind: 'removed'; items: TxRemoved[] } | undefined;
  const forwardRun = () => {
    if (!run) return;
    const r = run;
    run = undefined;
    if (r.kind === 'removed') {
      void toWallet({ op: 'txsRemoved', txids: r.items.map((n) => n.txid) });
      return;
    }
    void toWallet({ op: 'txsAccepted', items: r.items.map((n) => ({ txid: n.txid, tx: n.tx })) });
    // The wallet's re-accept at start is not announced (relay: false): its rebroadcast does that.
    const relayed = r.items.filter((n) => n.relay !== false);
    if (relayed.length > 0) void toP2p({ op: 'txsAccepted', items: relayed.map((n) => ({ txid: n.txid, raw: n.raw })) });
  };
  const queueNotice = (next: { kind: 'accepted'; n: TxAccepted } | { kind: 'removed'; n: TxRemoved }) => {
    if (run && run.kind !== next.kind) forwardRun();
    if (!run) {
      run = next.kind === 'accepted' ? { kind: 'accepted', items: [] } : { kind: 'removed', items: [] };
      // Not later than this microtask: the wallet must have the transaction before sendrawtransaction
      // answers (komodod's AcceptToMemoryPool syncs the wallet first); forwarding a turn later let a
      // sendtoaddress right after it pick the coins it had just spent.
      queueMicrotask(forwardRun);
    }
    (run.items as unknown[]).push(next.n);
  };
  mempoolActor.on('txAccepted', (e) => queueNotice({ kind: 'accepted', n: e as unknown as TxAccepted }));
  mempoolActor.on('txRemoved', (e) => queueNotice({ kind: 'removed', n: e as unknown as TxRemoved }));
  // The token registry answers from the chain store's token index (kept with each block's write transaction).
  const tokensLogic = new TokenRegistryLogic({ chain, log });
  const tokensActor = createActor(serviceMachine, { input: { logic: tokensLogic }, ...actorOpts('tokenRegistry') });
  const tokens = new Asker<TokensProtocol>('tokenRegistry', tokensActor, 10 * 60_000);
  // The p2p actor: relays what the mempool accepts and what the chain store connects (src/actors/p2p).
  const p2pLogic = new P2PLogic({
    params: config.chain,
    chain,
    mempool,
    port: config.port,
    listen: config.listen && !(config.connect.length > 0 && !config.flags.has('listen') && !config.flags.has('bind')),
    bind: config.flags.all('bind'),
    addnode: config.addnode,
    connect: config.connect,
    whitelist: config.flags.all('whitelist'),
    maxConnections: Number(config.flags.get('maxconnections') ?? 384),
    banScore: Number(config.flags.get('banscore') ?? 101),
    banTime: Number(config.flags.get('bantime') ?? 86400),
    debug: config.debug.includes('net') || config.debug.includes('1'),
    log,
  });
  const p2pActor = createActor(serviceMachine, { input: { logic: p2pLogic }, ...actorOpts('p2p') });
  const p2p = new Asker<P2PProtocol>('p2p', p2pActor);
  const toP2p = (body: P2PRequest) => p2p.ask(body).catch((err) => log(`p2p: ${String(err)}`));
  chainActor.on('blockConnected', (e) => void toP2p({ op: 'tipChanged', hash: (e as unknown as BlockConnected).hash, connected: true }));
  chainActor.on('blockDisconnected', () => void toP2p({ op: 'tipChanged', connected: false }));
  // The wallet's rebroadcast (RelayWalletTransaction) goes out by the p2p actor's relay, as accepted transactions do.
  walletActor.on('relayTxs', (e) => void toP2p({ op: 'relayTxs', items: (e as unknown as RelayTxs).items }));
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
  walletActor.start();
  tokensActor.start();
  p2pActor.start();
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
    wallet,
    tokens,
    p2p,
    keys,
    minerPubkey,
    requestStop: () => void stop(),
    log,
    actors: actorRegistry,
    inspectorUrl: () => opts.inspector?.url ?? null,
  };

  const auth = { user: config.rpcuser ?? '', password: config.rpcpassword ?? '' };
  const first = config.rpcEndpoints[0];
  const rpc = await createRpcServer({
    methods: opts.inspector ? opts.inspector.wrapRpcMethods(nodeMethods(services)) : nodeMethods(services),
    env: { chainName: config.chain.name, rpcPort: config.rpcport || config.chain.rpcPort },
    auth,
    ...(config.rpcallowip.length ? { allowIps: [...config.rpcallowip] } : {}),
    ...(config.rpcbind.length ? { bind: [...config.rpcbind] } : {}),
    port: first?.port ?? config.rpcport,
    log,
  });
  rpc.setWarmup('Loading block index...');

  // Wait for the chain to load (every request queues behind it), then open for business.
  const tip = await chain.ask({ op: 'tip' }, 10 * 60_000);
  rpc.setWarmup(null);
  log(`chain ${config.chain.name} loaded at height ${tip.height} (${tip.hash})`);
  // The P2P listener is bound (its port logged) before the RPC server announces itself.
  await p2p.ask({ op: 'local' }, 10 * 60_000);
  log(`RPC server listening on ${rpc.addresses.map((a) => `${a.host.includes(':') ? `[${a.host}]` : a.host}:${a.port}`).join(', ')} (rpcport=${rpc.port})`);
  log(`node pubkey ${toHex(minerPubkey)}`);
  if (config.gen) await miner.ask({ op: 'setGenerate', on: true, procs: config.genproclimit });

  // ResendWalletTransactions: komodod calls it from every SendMessages round and it acts only when its
  // random time has come; here the wallet answers when that is, and is asked again then.
  let resendTimer: NodeJS.Timeout | undefined;
  const scheduleResend = (ms: number) => {
    if (stopping) return;
    resendTimer = setTimeout(() => {
      wallet.ask({ op: 'resend' }).then(
        (next) => scheduleResend(next),
        (err) => {
          log(`wallet: ${String(err)}`);
          scheduleResend(60_000);
        },
      );
    }, ms);
    resendTimer.unref();
  };
  scheduleResend(0);

  async function stop(): Promise<void> {
    if (stopping) return stopping;
    stopping = (async () => {
      log('shutting down');
      clearTimeout(resendTimer);
      pacer.stop();
      minerLogic.abort();
      for (const n of notifiers) n.close();
      await rpc.close();
      for (const actor of [p2pActor, minerActor, tokensActor, walletActor, mempoolActor, chainActor]) {
        actor.send({ type: 'stop' });
        await whenDone(actor);
      }
      await verifyPool.stop();
      log('stopped');
      resolveStopped();
    })();
    return stopping;
  }

  return { services, rpc, stopped, stop };
}
