import type { Notice } from '../machines/service.js';
import type { Op } from '../actors/protocol.js';
import type { Asker } from '../actors/ask.js';
import type { BlockConnected, BlockDisconnected } from '../actors/chainstore/logic.js';
import type { TxAccepted, TxRemoved } from '../actors/mempool/logic.js';
import type { CommandNotifier } from './notify.js';
import type { PacerRef, ServiceRef } from './root.js';

/** The chain store's tip moved (after the blockConnected/blockDisconnected notices of the move). */
interface TipChanged extends Notice {
  type: 'tipChanged';
  hash: string;
}
/** A wallet transaction entered the mempool or was mined (komodod's AddToWallet). */
interface WalletTx extends Notice {
  type: 'walletTx';
  txid: string;
}
/** The wallet's rebroadcast (RelayWalletTransaction). */
interface RelayTxs extends Notice {
  type: 'relayTxs';
  items: { txid: string; raw: Uint8Array }[];
}
/** setgenerate turned mining on or off. */
interface GenerateChanged extends Notice {
  type: 'generateChanged';
  on: boolean;
}

/**
 * A service's notices of one type, as its logic declares them. The service machine emits them as
 * untyped Notices (until each actor has its protocol file): the one downcast of the routing is here.
 */
function onNotice<N extends Notice>(ref: ServiceRef, type: N['type'], handler: (n: N) => void): void {
  ref.on(type, (e) => handler(e as N));
}

export interface Routed {
  chainStore: ServiceRef;
  mempool: ServiceRef;
  miner: ServiceRef;
  wallet: ServiceRef;
  pacer: PacerRef;
  /** The askers of the services notices are delivered to. */
  ask: { mempool: Asker; miner: Asker; wallet: Asker; p2p: Asker };
  /** -blocknotify, -walletnotify */
  blockNotify?: CommandNotifier;
  walletNotify?: CommandNotifier;
  log: (msg: string) => void;
}

/**
 * The node's notice routing: every notice a service emits is subscribed once, here, and delivered to
 * its recipients in the order written below (each recipient's mailbox keeps the order of the notices).
 *
 *   chainStore blockConnected    → mempool, wallet, p2p (tipChanged)
 *   chainStore blockDisconnected → mempool, wallet, p2p (tipChanged)
 *   chainStore tipChanged        → -blocknotify
 *   mempool    txAccepted (runs) → wallet, p2p (relayed ones)
 *   mempool    txRemoved  (runs) → wallet
 *   wallet     walletTx          → -walletnotify
 *   wallet     relayTxs          → p2p
 *   miner      generateChanged   → pacer (on/off)
 *   pacer      tick              → miner (generate 1, one at a time)
 *
 * The chain store's notices reach the mempool before the wallet: the wallet then sees the mempool's
 * txRemoved of a block after the block itself.
 */
export function routeNotices(r: Routed): void {
  const deliver = (to: keyof Routed['ask'], body: Op) => void r.ask[to].ask(body).catch((err) => r.log(`${to}: ${String(err)}`));

  onNotice<BlockConnected>(r.chainStore, 'blockConnected', (n) => {
    const block = { block: n.block, txids: n.txids, height: n.height };
    deliver('mempool', { op: 'blockConnected', ...block });
    deliver('wallet', { op: 'blockConnected', ...block });
    deliver('p2p', { op: 'tipChanged', hash: n.hash, connected: true });
  });
  onNotice<BlockDisconnected>(r.chainStore, 'blockDisconnected', (n) => {
    const block = { block: n.block, txids: n.txids, height: n.height };
    deliver('mempool', { op: 'blockDisconnected', ...block });
    deliver('wallet', { op: 'blockDisconnected', ...block });
    deliver('p2p', { op: 'tipChanged', connected: false });
  });
  const blockNotify = r.blockNotify;
  if (blockNotify) onNotice<TipChanged>(r.chainStore, 'tipChanged', (n) => blockNotify.notify(n.hash));

  const runs = new NoticeRuns((run) => {
    if (run.kind === 'removed') return deliver('wallet', { op: 'txsRemoved', txids: run.items.map((n) => n.txid) });
    deliver('wallet', { op: 'txsAccepted', items: run.items.map((n) => ({ txid: n.txid, tx: n.tx })) });
    // The wallet's re-accept at start is not announced (relay: false): its rebroadcast does that.
    const relayed = run.items.filter((n) => n.relay !== false);
    if (relayed.length > 0) deliver('p2p', { op: 'txsAccepted', items: relayed.map((n) => ({ txid: n.txid, raw: n.raw })) });
  });
  onNotice<TxAccepted>(r.mempool, 'txAccepted', (n) => runs.accepted(n));
  onNotice<TxRemoved>(r.mempool, 'txRemoved', (n) => runs.removed(n));

  const walletNotify = r.walletNotify;
  if (walletNotify) onNotice<WalletTx>(r.wallet, 'walletTx', (n) => walletNotify.notify(n.txid));
  onNotice<RelayTxs>(r.wallet, 'relayTxs', (n) => deliver('p2p', { op: 'relayTxs', items: n.items }));

  onNotice<GenerateChanged>(r.miner, 'generateChanged', (n) => r.pacer.send(n.on ? { type: 'on' } : { type: 'off' }));
  let pacedBlockInFlight = false;
  r.pacer.on('tick', () => {
    if (pacedBlockInFlight) return;
    pacedBlockInFlight = true;
    r.ask.miner
      .ask({ op: 'generate', n: 1 })
      .catch((err) => r.log(`miner: ${String(err)}`))
      .finally(() => (pacedBlockInFlight = false));
  });
}

type Run = { kind: 'accepted'; items: TxAccepted[] } | { kind: 'removed'; items: TxRemoved[] };

/**
 * The mempool's notices in their order, a run of txAccepted (or of txRemoved) as one message: one
 * machine step for the recipient, not one per transaction. A mined transaction's txRemoved matters to
 * the wallet: the block may have reached it before the transaction's txAccepted did (the transaction
 * was still being verified in a burst).
 */
class NoticeRuns {
  private run: Run | undefined;
  constructor(private readonly forward: (run: Run) => void) {}

  accepted(n: TxAccepted): void {
    if (this.run?.kind !== 'accepted') this.start({ kind: 'accepted', items: [] });
    if (this.run?.kind === 'accepted') this.run.items.push(n);
  }

  removed(n: TxRemoved): void {
    if (this.run?.kind !== 'removed') this.start({ kind: 'removed', items: [] });
    if (this.run?.kind === 'removed') this.run.items.push(n);
  }

  private start(run: Run): void {
    this.flush();
    this.run = run;
    // Not later than this microtask: the wallet must have the transaction before sendrawtransaction
    // answers (komodod's AcceptToMemoryPool syncs the wallet first); forwarding a turn later let a
    // sendtoaddress right after it pick the coins it had just spent.
    queueMicrotask(() => this.flush());
  }

  private readonly flush = (): void => {
    const r = this.run;
    if (!r) return;
    this.run = undefined;
    this.forward(r);
  };
}
