import type { Asker } from '../actors/ask.js';
import type { ChainStoreNotice } from '../actors/chainstore/protocol.js';
import type { MempoolNotice, MempoolProtocol, MempoolRequest, TxAccepted, TxRemoved } from '../actors/mempool/protocol.js';
import type { MinerNotice, MinerProtocol } from '../actors/miner/protocol.js';
import type { P2PProtocol, P2PRequest } from '../actors/p2p/protocol.js';
import type { WalletNotice, WalletProtocol, WalletRequest } from '../actors/wallet/protocol.js';
import type { CommandNotifier } from './notify.js';
import type { PacerRef, ServiceRef } from './root.js';

/**
 * A service's notices of one type, as its protocol declares them. The generic service machine emits
 * them as untyped notices: the one downcast of the routing is here, from the sender's declared union.
 */
function onNotice<U extends { type: string }, T extends U['type']>(ref: ServiceRef, type: T, handler: (n: Extract<U, { type: T }>) => void): void {
  ref.on(type, (e) => handler(e as unknown as Extract<U, { type: T }>));
}

export interface Routed {
  chainStore: ServiceRef;
  mempool: ServiceRef;
  miner: ServiceRef;
  wallet: ServiceRef;
  pacer: PacerRef;
  /** The askers of the services notices are delivered to. */
  ask: { mempool: Asker<MempoolProtocol>; miner: Asker<MinerProtocol>; wallet: Asker<WalletProtocol>; p2p: Asker<P2PProtocol> };
  /** -blocknotify, -walletnotify */
  blockNotify?: CommandNotifier;
  walletNotify?: CommandNotifier;
  log: (msg: string) => void;
  /** How long a run of the mempool's notices waits for more (ms; RUN_WINDOW_MS unless told). */
  runWindowMs?: number;
}

/**
 * How long a run of the mempool's accepted (or removed) transactions is held for more before it goes
 * to the wallet and p2p: a wallet submitting one sendrawtransaction at a time (a call every few
 * hundred µs) then costs the wallet and p2p one machine step per few dozen calls instead of two steps
 * per call (each ~5 KB of garbage and a few µs of the main thread). Measured one call at a time
 * (~2,000 calls/s): 2 ms still sent 0.19-0.22 runs a call to each, 10 ms 0.04-0.05 (1.8 KB less garbage a call).
 * Nothing waits on it: whatever is sent to the wallet or p2p forwards the run first (Asker.beforeSend),
 * and komodod's own relay trickles its tx invs over ~100 ms. A run is forwarded at once when it holds
 * RUN_MAX transactions.
 */
export const RUN_WINDOW_MS = 10;
const RUN_MAX = 1000;

/**
 * The node's notice routing: every notice a service emits is subscribed once, here, and delivered to
 * its recipients in the order written below (each recipient's mailbox keeps the order of the notices).
 *
 *   chainStore blockConnected    → mempool, wallet, p2p (tipChanged)
 *   chainStore blockDisconnected → mempool, wallet, p2p (tipChanged)
 *   chainStore tipChanged        → -blocknotify
 *   mempool    txsAccepted (runs) → wallet, p2p (relayed ones)
 *   mempool    txsRemoved (runs) → wallet
 *   wallet     walletTx          → -walletnotify
 *   wallet     relayTxs          → p2p
 *   miner      generateChanged   → pacer (on/off)
 *   pacer      tick              → miner (generate 1, one at a time)
 *
 * The chain store's notices reach the mempool before the wallet: the wallet then sees the mempool's
 * txsRemoved of a block after the block itself.
 */
export function routeNotices(r: Routed): { flush(): void } {
  const failed = (to: string) => (err: unknown) => r.log(`${to}: ${String(err)}`);
  const toMempool = (body: MempoolRequest) => void r.ask.mempool.ask(body).catch(failed('mempool'));
  const toWallet = (body: WalletRequest) => void r.ask.wallet.ask(body).catch(failed('wallet'));
  const toP2p = (body: P2PRequest) => void r.ask.p2p.ask(body).catch(failed('p2p'));
  // The mempool's runs come with every burst of accepted transactions: told, not asked (no reply,
  // promise or timer each), their failures logged as the asked ones'. A stuck recipient still shows
  // in the block notices' timeouts.
  r.ask.wallet.onTellFailure(failed('wallet'));
  r.ask.p2p.onTellFailure(failed('p2p'));

  onNotice<ChainStoreNotice, 'blockConnected'>(r.chainStore, 'blockConnected', (n) => {
    const block = { block: n.block, txids: n.txids, height: n.height };
    toMempool({ op: 'blockConnected', ...block });
    toWallet({ op: 'blockConnected', ...block });
    toP2p({ op: 'tipChanged', hash: n.hash, connected: true });
  });
  onNotice<ChainStoreNotice, 'blockDisconnected'>(r.chainStore, 'blockDisconnected', (n) => {
    toMempool({ op: 'blockDisconnected', block: n.block });
    toWallet({ op: 'blockDisconnected', txids: n.txids });
    toP2p({ op: 'tipChanged', connected: false });
  });
  const blockNotify = r.blockNotify;
  if (blockNotify) onNotice<ChainStoreNotice, 'tipChanged'>(r.chainStore, 'tipChanged', (n) => blockNotify.notify(n.hash));

  const runs = new NoticeRuns(r.runWindowMs ?? RUN_WINDOW_MS, (run) => {
    if (run.kind === 'removed') return r.ask.wallet.tell({ op: 'txsRemoved', txids: run.items.map((n) => n.txid) });
    // The accepted records as they came (each a txid, tx and raw): no copy per transaction.
    r.ask.wallet.tell({ op: 'txsAccepted', items: run.items });
    // The wallet's re-accept at start is not announced (relay: false): its rebroadcast does that.
    const relayed = run.items.every((n) => n.relay !== false) ? run.items : run.items.filter((n) => n.relay !== false);
    if (relayed.length > 0) r.ask.p2p.tell({ op: 'txsAccepted', items: relayed });
  });
  r.ask.wallet.beforeSend(runs.flush);
  r.ask.p2p.beforeSend(runs.flush);
  onNotice<MempoolNotice, 'txsAccepted'>(r.mempool, 'txsAccepted', (n) => runs.accepted(n.items));
  onNotice<MempoolNotice, 'txsRemoved'>(r.mempool, 'txsRemoved', (n) => runs.removed(n.items));

  const walletNotify = r.walletNotify;
  if (walletNotify) onNotice<WalletNotice, 'walletTx'>(r.wallet, 'walletTx', (n) => walletNotify.notify(n.txid));
  onNotice<WalletNotice, 'relayTxs'>(r.wallet, 'relayTxs', (n) => toP2p({ op: 'relayTxs', items: n.items }));

  onNotice<MinerNotice, 'generateChanged'>(r.miner, 'generateChanged', (n) => r.pacer.send(n.on ? { type: 'on' } : { type: 'off' }));
  let pacedBlockInFlight = false;
  r.pacer.on('tick', () => {
    if (pacedBlockInFlight) return;
    pacedBlockInFlight = true;
    r.ask.miner
      .ask({ op: 'generate', n: 1 })
      .catch((err) => r.log(`miner: ${String(err)}`))
      .finally(() => (pacedBlockInFlight = false));
  });
  return { flush: runs.flush };
}

type Run = { kind: 'accepted'; items: TxAccepted[] } | { kind: 'removed'; items: TxRemoved[] };

/**
 * The mempool's notices in their order, a run of accepted (or of removed) transactions as one message: one
 * machine step for the recipient, not one per transaction. A mined transaction's removal matters to
 * the wallet: the block may have reached it before the transaction's txAccepted did (the transaction
 * was still being verified in a burst).
 */
class NoticeRuns {
  private run: Run | undefined;
  /** Forwards the run RUN_WINDOW_MS after it started: one timer for the router's life, re-armed per run. */
  private timer: NodeJS.Timeout | undefined;
  constructor(
    private readonly windowMs: number,
    private readonly forward: (run: Run) => void,
  ) {}

  accepted(items: readonly TxAccepted[]): void {
    if (this.run?.kind !== 'accepted') this.start({ kind: 'accepted', items: [] });
    if (this.run?.kind === 'accepted') for (const n of items) this.run.items.push(n);
    if (this.run && this.run.items.length >= RUN_MAX) this.flush();
  }

  removed(items: readonly TxRemoved[]): void {
    if (this.run?.kind !== 'removed') this.start({ kind: 'removed', items: [] });
    if (this.run?.kind === 'removed') for (const n of items) this.run.items.push(n);
    if (this.run && this.run.items.length >= RUN_MAX) this.flush();
  }

  private start(run: Run): void {
    this.flush();
    this.run = run;
    // Forwarded after the window (RUN_WINDOW_MS), the runs of the calls that came meanwhile with it:
    // after the replies of this turn are written, so a lone sendrawtransaction's reply does not wait
    // for the wallet's and p2p's steps. The wallet still has the transaction before any request can
    // reach it after the reply (komodod's AcceptToMemoryPool syncs the wallet first; forwarding a turn
    // later let a sendtoaddress right after it pick the coins it had just spent): whatever is sent to
    // the wallet or p2p before then, a JSON-RPC batch's next call included, forwards the run first
    // (Asker.beforeSend), so each mailbox keeps the order of the notices.
    if (this.timer) this.timer.refresh();
    else this.timer = setTimeout(this.flush, this.windowMs).unref();
  }

  /** Forwards the run held, if any (before anything else is sent to its recipients). */
  readonly flush = (): void => {
    const r = this.run;
    if (!r) return;
    this.run = undefined;
    this.forward(r);
  };
}
