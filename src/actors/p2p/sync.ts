import { Block } from '../../chain/block/block.js';
import { BlockHeader } from '../../chain/block/header.js';
import { BufferReader } from '../../chain/encoding/reader.js';
import { getBlockProof } from '../../chain/block/pow.js';
import { DEFAULT_MAX_TIP_AGE } from '../../chain/consensus/timing.js';
import { fromHexReversed, toHexReversed } from '../../chain/encoding/hex.js';
import { HeadersMessage, InvMessage, LocatorMessage, MAX_HEADERS_RESULTS, MSG_BLOCK, TooManyHeaders, type InvItem } from '../../chain/p2p/messages.js';
import type { Bans } from './bans.js';
import { P2PPart, hashKey, type P2PCore, type TipInfo } from './context.js';
import type { Peer } from './peer.js';

export const MAX_BLOCKS_IN_TRANSIT_PER_PEER = 16;
export const BLOCK_DOWNLOAD_WINDOW = 1024;
/** Orphan blocks held while their parents are fetched. */
export const MAX_ORPHAN_BLOCKS = 64;
export const MAX_ORPHAN_BLOCK_BYTES = 64 * 1024 * 1024;
/** Headers held ahead of their blocks. */
export const MAX_PENDING_HEADERS = 50_000;

/** A header whose block the chain store does not have yet. */
interface PendingHeader {
  hash: string;
  prev: string;
  height: number;
  chainWork: bigint;
  time: number;
  failed: boolean;
}

/**
 * Header sync and block download: the tip as the chain store last told it, the headers received ahead
 * of their blocks, the blocks asked of peers, and the orphan blocks waiting for their parents. It
 * answers getheaders and getblocks, and announces each new tip.
 */
export class BlockSync extends P2PPart {
  tip: TipInfo = { hash: '', height: 0, time: 0, chainWork: 0n };
  private ibdLatchedFalse = false;
  readonly pending = new Map<string, PendingHeader>();
  /** Hashes asked of some peer (global in-flight set). */
  readonly inflight = new Map<string, number>();
  readonly orphanBlocks = new Map<string, { raw: Uint8Array; prev: string; peer: number }>();
  private orphanBlockBytes = 0;
  private readonly bestKnownWork = new Map<number, bigint>();

  constructor(
    core: P2PCore,
    private readonly bans: Bans,
  ) {
    super(core);
  }

  // ---- chain state ----------------------------------------------------------------------------

  async refreshTip(timeoutMs?: number): Promise<void> {
    const t = await this.opts.chain.ask({ op: 'tip' }, timeoutMs);
    this.tip = { hash: t.hash, height: t.height, time: t.time, chainWork: t.chainWork };
  }

  /** IsInitialBlockDownload for an asset chain: tip older than 24 h; latches to false once left. */
  isInitialBlockDownload(): boolean {
    if (this.ibdLatchedFalse) return false;
    const ibd = this.tip.time < Math.floor(Date.now() / 1000) - DEFAULT_MAX_TIP_AGE;
    if (!ibd) this.ibdLatchedFalse = true;
    return ibd;
  }

  async onTipChanged(hash: string | undefined, connected: boolean): Promise<void> {
    const before = this.tip.hash;
    await this.refreshTip();
    if (hash) this.pending.delete(hash);
    // A new tip is announced to every peer that does not have it, unless in initial download.
    if (connected && this.tip.hash !== before && !this.isInitialBlockDownload()) {
      const inv = { type: MSG_BLOCK, hash: fromHexReversed(this.tip.hash) };
      for (const p of this.connected()) {
        if (!p.successfullyConnected) continue;
        // Only to peers not far ahead of us (main.cpp:4556-4558).
        if (!(this.tip.height > (p.startingHeight !== -1 ? p.startingHeight - 2000 : 0))) continue;
        const k = hashKey(MSG_BLOCK, this.tip.hash);
        if (p.known.has(k)) continue;
        p.known.add(k);
        p.send('inv', new InvMessage([inv]).toRaw());
      }
    }
  }

  /** A peer is gone: what it was asked for may be asked of the others. */
  peerClosed(p: Peer): void {
    this.bestKnownWork.delete(p.id);
    for (const h of p.inflight.keys()) this.inflight.delete(h);
  }

  /** The heights of the blocks asked of a peer (getpeerinfo's inflight). */
  inflightHeights(p: Peer): number[] {
    return [...p.inflight.keys()].map((h) => this.pending.get(h)?.height ?? -1).filter((h) => h >= 0);
  }

  /**
   * Block download timeout: 0.5 × spacing × (4 + queued) per request (main.cpp:381-384, 8562-8570):
   * komodod disconnects the peer; its blocks are then asked of the others. True when it was dropped.
   */
  dropIfLate(p: Peer, now: number): boolean {
    const spacingMs = this.opts.params.powTargetSpacing * 1000;
    const late = [...p.inflight].find(([, at]) => now - at > spacingMs * 0.5 * (4 + p.inflight.size));
    if (!late) return false;
    this.log(`Timeout downloading block ${late[0]} from peer=${p.id}, disconnecting`);
    p.close();
    return true;
  }

  // ---- headers --------------------------------------------------------------------------------

  /** The best header known: the best pending header with more work than the tip, else the tip. */
  bestHeaderHash(): string {
    let best: PendingHeader | undefined;
    for (const h of this.pending.values()) if (!h.failed && (!best || h.chainWork > best.chainWork)) best = h;
    return best && best.chainWork > this.tip.chainWork ? best.hash : this.tip.hash;
  }

  /** A locator from a header: pending ancestors first, then the chain store's locator. */
  async locatorFrom(hash: string): Promise<Uint8Array[]> {
    const out: string[] = [];
    let h: PendingHeader | undefined = this.pending.get(hash);
    let step = 0;
    while (h) {
      if (step++ < 10) out.push(h.hash);
      const prev: PendingHeader | undefined = this.pending.get(h.prev);
      if (!prev) {
        const rest = await this.opts.chain.ask({ op: 'locator', from: h.prev });
        out.push(...rest);
        return out.map((x) => fromHexReversed(x));
      }
      h = prev;
    }
    const rest = await this.opts.chain.ask({ op: 'locator', from: hash });
    return [...out, ...rest].map((x) => fromHexReversed(x));
  }

  async sendGetHeaders(p: Peer, from: string, hashStop: Uint8Array, fromParent: boolean): Promise<void> {
    let start = from;
    if (fromParent) {
      // komodod starts the initial sync from pindexBestHeader->pprev.
      const k = await this.opts.chain.ask({ op: 'entry', hash: from });
      if (k?.prev) start = k.prev;
    }
    const locator = await this.locatorFrom(start);
    p.send('getheaders', new LocatorMessage(locator, hashStop).toRaw());
  }

  async onGetHeaders(p: Peer, payload: Uint8Array): Promise<void> {
    const m = LocatorMessage.fromRaw(payload);
    const r = await this.opts.chain.ask({
      op: 'headersAfter',
      locator: m.locator.map((h) => toHexReversed(h)),
      stop: toHexReversed(m.hashStop),
      max: MAX_HEADERS_RESULTS,
    });
    p.send('headers', new HeadersMessage(r.headers).toRaw());
  }

  async onGetBlocks(p: Peer, payload: Uint8Array): Promise<void> {
    const m = LocatorMessage.fromRaw(payload);
    const stop = toHexReversed(m.hashStop);
    // An empty locator finds no fork: FindForkInGlobalIndex answers the genesis block (which the
    // chain store always holds, hence the `!`).
    const locator = m.locator.length ? m.locator.map((h) => toHexReversed(h)) : [(await this.opts.chain.ask({ op: 'blockHash', height: 0 }))!];
    const r = await this.opts.chain.ask({ op: 'headersAfter', locator, stop, max: 500 });
    // getblocks stops *before* hashStop (it is not sent), unlike getheaders.
    const items: InvItem[] = [];
    for (const h of r.hashes) {
      if (h === stop) break;
      const k = hashKey(MSG_BLOCK, h);
      if (p.known.has(k)) continue;
      items.push({ type: MSG_BLOCK, hash: fromHexReversed(h) });
    }
    if (items.length) p.send('inv', new InvMessage(items).toRaw());
  }

  async onHeaders(p: Peer, payload: Uint8Array): Promise<void> {
    let m: HeadersMessage;
    try {
      m = HeadersMessage.fromRaw(payload);
    } catch (e) {
      if (e instanceof TooManyHeaders) {
        this.bans.misbehaving(p, 20, e.message);
        return;
      }
      throw e;
    }
    if (m.headers.length === 0) return;
    const hashes = m.headers.map((h) => h.hashHex());
    const prevs = m.headers.map((h) => toHexReversed(h.prevHash));
    for (let i = 1; i < m.headers.length; i++) {
      if (prevs[i] !== hashes[i - 1]) {
        this.bans.misbehaving(p, 20, 'non-continuous headers sequence');
        return;
      }
    }
    const known = await this.opts.chain.ask({ op: 'known', hashes: [prevs[0]!, ...hashes] });
    const prevKnown = known[0];
    const prevPending = this.pending.get(prevs[0]!);
    if (!prevKnown && !prevPending) {
      // AcceptBlockHeader: prev block not found → Misbehaving(nDoS/nDoS) = 1.
      this.bans.misbehaving(p, 1, 'invalid header received (prev block not found)');
      return;
    }
    let parentWork = prevKnown ? prevKnown.chainWork : prevPending!.chainWork;
    let parentHeight = prevKnown ? prevKnown.height : prevPending!.height;
    let parentFailed = prevKnown ? prevKnown.failed : prevPending!.failed;
    let last: { hash: string; height: number; chainWork: bigint } | undefined;
    for (let i = 0; i < m.headers.length; i++) {
      const h = m.headers[i]!;
      const hash = hashes[i]!;
      const k = known[i + 1];
      const work = parentWork + getBlockProof(h.bits);
      const height = parentHeight + 1;
      if (k) {
        parentWork = k.chainWork;
        parentHeight = k.height;
        parentFailed = k.failed;
      } else {
        let e = this.pending.get(hash);
        if (!e) {
          if (this.pending.size >= MAX_PENDING_HEADERS) break;
          e = { hash, prev: prevs[i]!, height, chainWork: work, time: h.time, failed: parentFailed };
          this.pending.set(hash, e);
        }
        parentWork = e.chainWork;
        parentHeight = e.height;
        parentFailed = e.failed;
      }
      last = { hash, height: parentHeight, chainWork: parentWork };
    }
    if (last) this.updateBestKnown(p, last.hash, last.height, last.chainWork);
    if (m.headers.length === MAX_HEADERS_RESULTS && last) {
      // The peer may have more: ask from the last one.
      await this.sendGetHeaders(p, last.hash, new Uint8Array(32), false);
    }
    await this.scheduleDownloads(p);
  }

  updateBestKnown(p: Peer, hash: string, height: number, work: bigint): void {
    const cur = this.bestKnownWork.get(p.id);
    if (cur !== undefined && cur >= work) return;
    this.bestKnownWork.set(p.id, work);
    p.bestKnown = hash;
    p.bestKnownHeight = height;
  }

  // ---- block download -------------------------------------------------------------------------

  async scheduleAll(): Promise<void> {
    for (const p of this.connected()) await this.scheduleDownloads(p);
  }

  /** FindNextBlocksToDownload, reduced: the blocks of the peer's best chain we lack, oldest first. */
  async scheduleDownloads(p: Peer): Promise<void> {
    if (!p.successfullyConnected || p.disconnected || !p.bestKnown) return;
    const work = this.bestKnownWork.get(p.id) ?? 0n;
    // The peer's chain is behind or level with ours: its blocks are not needed.
    let best = this.pending.get(p.bestKnown);
    if (!best) {
      p.commonHeight = p.bestKnownHeight;
      return;
    }
    if (work <= this.tip.chainWork) return;
    const path: PendingHeader[] = [];
    while (best) {
      if (best.failed) return;
      path.push(best);
      best = this.pending.get(best.prev);
    }
    path.reverse();
    p.commonHeight = Math.max(-1, (path[0]?.height ?? 0) - 1);
    const want: InvItem[] = [];
    for (const h of path.slice(0, BLOCK_DOWNLOAD_WINDOW)) {
      if (p.inflight.size >= MAX_BLOCKS_IN_TRANSIT_PER_PEER) break;
      if (this.inflight.has(h.hash) || this.orphanBlocks.has(h.hash)) continue;
      this.markInflight(p, h.hash);
      want.push({ type: MSG_BLOCK, hash: fromHexReversed(h.hash) });
    }
    if (want.length) p.send('getdata', new InvMessage(want).toRaw());
  }

  markInflight(p: Peer, h: string): void {
    const now = Date.now();
    p.inflight.set(h, now);
    this.inflight.set(h, p.id);
  }

  async onBlock(p: Peer, payload: Uint8Array): Promise<void> {
    // komodod decodes the whole block first (a malformed one is answered "error parsing message");
    // only its header is kept here: the chain store parses what it will check.
    const header = Block.headerOf(payload);
    const hash = header.hashHex();
    const prev = toHexReversed(header.prevHash);
    p.known.add(hashKey(MSG_BLOCK, hash));
    const requested = p.inflight.has(hash);
    p.inflight.delete(hash);
    if (this.inflight.get(hash) === p.id) this.inflight.delete(hash);
    const [k, pk] = await this.opts.chain.ask({ op: 'known', hashes: [hash, prev] });
    if (k) {
      this.pending.delete(hash);
      this.updateBestKnown(p, hash, k.height, k.chainWork);
      return;
    }
    if (!pk) {
      // Its parent is still to come: hold it (bounded) until the parent connects.
      if (this.pending.has(hash) || requested || p.whitelisted) this.holdOrphanBlock(hash, payload, prev, p.id);
      return;
    }
    // An unrequested block is processed only if it would give the chain more work (AcceptBlock).
    if (!requested && !p.whitelisted && pk.chainWork + getBlockProof(header.bits) <= this.tip.chainWork) return;
    if (await this.submitBlock(p, payload, hash)) this.updateBestKnown(p, hash, pk.height + 1, pk.chainWork + getBlockProof(header.bits));
    await this.scheduleDownloads(p);
  }

  /** Holds a block whose parent is missing; the oldest go first beyond MAX_ORPHAN_BLOCKS or 64 MB. */
  private holdOrphanBlock(hash: string, raw: Uint8Array, prev: string, peer: number): void {
    if (this.orphanBlocks.has(hash)) return;
    this.orphanBlocks.set(hash, { raw, prev, peer });
    this.orphanBlockBytes += raw.length;
    while (this.orphanBlocks.size > MAX_ORPHAN_BLOCKS || this.orphanBlockBytes > MAX_ORPHAN_BLOCK_BYTES) {
      const [oldest, o] = this.orphanBlocks.entries().next().value as [string, { raw: Uint8Array }];
      this.orphanBlocks.delete(oldest);
      this.orphanBlockBytes -= o.raw.length;
    }
  }

  private takeOrphanBlock(hash: string): { raw: Uint8Array; prev: string; peer: number } | undefined {
    const o = this.orphanBlocks.get(hash);
    if (!o) return undefined;
    this.orphanBlocks.delete(hash);
    this.orphanBlockBytes -= o.raw.length;
    return o;
  }

  /** ProcessNewBlock for a received block; true when the chain store took it (connected or stored). */
  private async submitBlock(p: Peer | undefined, raw: Uint8Array, hash: string): Promise<boolean> {
    const res = await this.opts.chain.ask({ op: 'submitBlock', raw }, 5 * 60_000);
    switch (res.status) {
      case 'connected':
      case 'stored':
      case 'duplicate':
        this.pending.delete(hash);
        break;
      case 'duplicate-invalid':
        // A block already known invalid: komodod's state.Invalid(..., 0, "duplicate") scores nothing.
        return false;
      case 'inconclusive': {
        // The chain store decoded the block: its header is all that is needed here.
        this.holdOrphanBlock(hash, raw, toHexReversed(BlockHeader.read(new BufferReader(raw)).prevHash), p?.id ?? -1);
        return false;
      }
      default: {
        const e = this.pending.get(hash);
        if (e) e.failed = true;
        for (const x of this.pending.values()) if (this.descendsFrom(x, hash)) x.failed = true;
        if (p) {
          const code = res.rejectCode ?? 0x10;
          this.bans.reject(p, 'block', code, (res.reason ?? 'invalid').slice(0, 111), fromHexReversed(hash));
          // komodod scores the block's DoS value; a consensus failure at connect carries 100.
          this.bans.misbehaving(p, res.dos ?? (code === 0x10 ? 100 : 0), `invalid block ${hash}: ${res.reason}`);
        }
        return false;
      }
    }
    // Children waiting for this block.
    for (const [h, o] of [...this.orphanBlocks]) {
      if (o.prev !== hash || !this.takeOrphanBlock(h)) continue;
      await this.submitBlock(this.peers.get(o.peer), o.raw, h);
    }
    return true;
  }

  private descendsFrom(x: PendingHeader, hash: string): boolean {
    let e: PendingHeader | undefined = x;
    for (let i = 0; e && i < BLOCK_DOWNLOAD_WINDOW * 64; i++) {
      if (e.prev === hash) return true;
      e = this.pending.get(e.prev);
    }
    return false;
  }
}
