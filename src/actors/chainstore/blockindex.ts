import type { BlockHeader } from '../../chain/block/header.js';
import { getBlockProof } from '../../chain/block/pow.js';
import { toHexReversed } from '../../chain/encoding/hex.js';
import type { BlockPos } from './blockfiles.js';

/** komodod's CBlockIndex, reduced to what acnode needs. */
export interface BlockEntry {
  hash: string;
  prev: string | null;
  height: number;
  header: BlockHeader;
  /** Cumulative work up to and including this block. */
  chainWork: bigint;
  /** Set by invalidateblock or a failed connect; children of a failed block are failed too. */
  failed: boolean;
  size: number;
  txCount: number;
  /** Transactions in the chain up to and including this block (komodod's nChainTx). */
  chainTx: number;
  /** Where its bytes are in the block files. */
  pos: BlockPos;
}

/**
 * Every block header the node holds, and the active chain (height → entry). The best chain is the
 * valid one with the most cumulative work; ties go to the first received (komodod's rule).
 */
export class BlockIndex {
  private readonly entries = new Map<string, BlockEntry>();
  readonly active: BlockEntry[] = [];
  /** Arrival order, for the first-received tie rule. */
  private readonly order = new Map<string, number>();
  private seq = 0;
  /** Entries no other entry builds on (komodod's getchaintips walks mapBlockIndex for them; kept here as blocks arrive). */
  private readonly leaves = new Set<string>();
  /**
   * The entries built on each entry that has any (by its hash), kept as blocks arrive: marking or
   * clearing a failed block walks its subtree, not every entry.
   */
  private readonly children = new Map<string, BlockEntry | BlockEntry[]>();
  /**
   * The failed entries. A failed entry's descendants are all failed (add inherits the flag,
   * markFailed marks the whole subtree, clearFailed clears a subtree with its ancestors), which the
   * walks below rely on.
   */
  private readonly failedSet = new Set<BlockEntry>();
  /** komodod's pindexBestHeader, kept as entries are added (see add). */
  private best: BlockEntry | undefined;

  get tip(): BlockEntry {
    return this.active[this.active.length - 1]!;
  }

  get height(): number {
    return this.active.length - 1;
  }

  get(hash: string): BlockEntry | undefined {
    return this.entries.get(hash);
  }

  has(hash: string): boolean {
    return this.entries.has(hash);
  }

  atHeight(height: number): BlockEntry | undefined {
    return this.active[height];
  }

  isActive(entry: BlockEntry): boolean {
    return this.active[entry.height] === entry;
  }

  /** `seq`: the arrival order a stored record keeps (a new entry gets the next one). */
  add(header: BlockHeader, pos: BlockPos, txCount: number, failed = false, seq?: number): BlockEntry {
    const hash = header.hashHex();
    const existing = this.entries.get(hash);
    if (existing) return existing;
    const prevHash = toHexReversed(header.prevHash);
    const parent = this.entries.get(prevHash);
    const entry: BlockEntry = {
      hash,
      prev: parent ? prevHash : null,
      height: parent ? parent.height + 1 : 0,
      header,
      chainWork: (parent ? parent.chainWork : 0n) + getBlockProof(header.bits),
      failed: failed || (parent?.failed ?? false),
      size: pos.size,
      txCount,
      chainTx: (parent ? parent.chainTx : 0) + txCount,
      pos,
    };
    this.entries.set(hash, entry);
    if (entry.failed) this.failedSet.add(entry);
    if (parent) {
      this.leaves.delete(prevHash);
      // Most entries have one child, held as itself (an array per block would cost ~10^6 arrays).
      const siblings = this.children.get(prevHash);
      if (siblings === undefined) this.children.set(prevHash, entry);
      else if (Array.isArray(siblings)) siblings.push(entry);
      else this.children.set(prevHash, [siblings, entry]);
    }
    this.leaves.add(hash);
    // pindexBestHeader: raised by an entry with strictly more work (AddToBlockIndex; ties keep the
    // first received), never by a failed one (LoadBlockIndexDB skips them; at run time komodod
    // refuses a header on a failed parent: bad-prevblk).
    if (!entry.failed && (this.best === undefined || entry.chainWork > this.best.chainWork)) this.best = entry;
    const order = seq ?? this.seq;
    this.order.set(hash, order);
    this.seq = Math.max(this.seq, order + 1);
    return entry;
  }

  /**
   * komodod's pindexBestHeader (getblockchaininfo's "headers"): the entry with most work added since
   * start, the most-work valid entry at start. komodod's InvalidateBlock and ReconsiderBlock leave it
   * alone, and so do markFailed and clearFailed: an invalidated best block stays the best header
   * until a restart or a block with more work.
   */
  get bestHeader(): BlockEntry {
    return this.best!;
  }

  /** The arrival order of an entry (stored with its record). */
  orderOf(hash: string): number {
    return this.order.get(hash)!;
  }

  parent(entry: BlockEntry): BlockEntry | undefined {
    return entry.prev ? this.entries.get(entry.prev) : undefined;
  }

  /** The entry `height` on the branch ending at `entry`. */
  ancestor(entry: BlockEntry, height: number): BlockEntry | undefined {
    if (height > entry.height || height < 0) return undefined;
    if (this.isActive(entry)) return this.active[height];
    let e: BlockEntry | undefined = entry;
    while (e && e.height > height) e = this.parent(e);
    return e;
  }

  /** The last block common to the active chain and the branch ending at `entry`. */
  fork(entry: BlockEntry): BlockEntry {
    let e: BlockEntry | undefined = entry;
    while (e && !this.isActive(e)) e = this.parent(e);
    return e ?? this.active[0]!;
  }

  /**
   * Valid tips (entries no valid entry builds on) with more work than the active tip, best first.
   * Found from the leaves, not by a pass over every entry (it runs twice per block submitted): such a
   * tip is a leaf, or the first valid entry below a failed leaf (descendants of a failed block are
   * failed), and an entry has less work than any leaf above it, so a leaf with no more work than the
   * tip is passed over at once. The cost is the number of leaves (stale tips), not of blocks.
   */
  betterTips(): BlockEntry[] {
    const tipWork = this.tip.chainWork;
    const below = new Set<BlockEntry>();
    for (const h of this.leaves) {
      let e: BlockEntry | undefined = this.entries.get(h)!;
      if (e.chainWork <= tipWork) continue;
      while (e && e.failed) e = this.parent(e);
      if (e && e.chainWork > tipWork) below.add(e);
    }
    // One found below a failed leaf may have a valid child on another branch: then a leaf of that
    // branch led to a valid descendant of it, also found.
    const candidates = [...below];
    const found = candidates.filter((e) => !candidates.some((d) => d.height > e.height && this.ancestor(d, e.height) === e));
    return found.sort((a, b) => (a.chainWork === b.chainWork ? this.order.get(a.hash)! - this.order.get(b.hash)! : a.chainWork > b.chainWork ? -1 : 1));
  }

  /** Every entry no other entry builds on, in arrival order. */
  *leafEntries(): IterableIterator<BlockEntry> {
    for (const h of this.leaves) yield this.entries.get(h)!;
  }

  /** The branch from just after `from` up to `to`, oldest first. */
  path(from: BlockEntry, to: BlockEntry): BlockEntry[] {
    const out: BlockEntry[] = [];
    let e: BlockEntry | undefined = to;
    while (e && e !== from) {
      out.push(e);
      e = this.parent(e);
    }
    return out.reverse();
  }

  setActiveTip(entry: BlockEntry): void {
    this.active.length = entry.height + 1;
    let e: BlockEntry | undefined = entry;
    while (e) {
      if (this.active[e.height] === e && e !== entry) break;
      this.active[e.height] = e;
      e = this.parent(e);
    }
  }

  /**
   * invalidateblock, or a block that failed to connect: the block and its descendants are failed
   * (komodod marks them BLOCK_FAILED_CHILD). A child already failed has its subtree failed already.
   */
  markFailed(entry: BlockEntry): void {
    const todo = [entry];
    for (let e = todo.pop(); e; e = todo.pop()) {
      e.failed = true;
      this.failedSet.add(e);
      for (const c of this.childrenOf(e)) if (!c.failed) todo.push(c);
    }
  }

  /**
   * reconsiderblock (komodod's ReconsiderBlock): the block and every descendant lose their failed
   * flags, and so do its ancestors. The subtree is walked whole (a valid entry may have failed
   * children); above the first valid ancestor every ancestor is valid already.
   */
  clearFailed(entry: BlockEntry): void {
    const todo = [entry];
    for (let e = todo.pop(); e; e = todo.pop()) {
      e.failed = false;
      this.failedSet.delete(e);
      todo.push(...this.childrenOf(e));
    }
    for (let a = this.parent(entry); a && a.failed; a = this.parent(a)) {
      a.failed = false;
      this.failedSet.delete(a);
    }
  }

  private childrenOf(e: BlockEntry): readonly BlockEntry[] {
    const cs = this.children.get(e.hash);
    return cs === undefined ? [] : Array.isArray(cs) ? cs : [cs];
  }

  /** The failed entries (what the chain store records), without a pass over the valid ones. */
  failedEntries(): IterableIterator<BlockEntry> {
    return this.failedSet.values();
  }

  get size(): number {
    return this.entries.size;
  }

  *all(): IterableIterator<BlockEntry> {
    yield* this.entries.values();
  }
}
