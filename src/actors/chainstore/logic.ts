import { Block } from '../../chain/block/block.js';
import { medianTimePast } from '../../chain/block/pow.js';
import { DecodeError } from '../../chain/encoding/errors.js';
import type { Transaction } from '../../chain/tx/transaction.js';
import type { ChainParams } from '../../chain/params/chain-params.js';
import { ServiceFailure, type Op } from '../protocol.js';
import type { Notice, ServiceLogic, WriteOutcome } from '../../machines/service.js';
import { BlockIndex, type BlockEntry } from './blockindex.js';
import { ChainIndexes, outpointKey, type BlockUndo, type Coin } from './coins.js';
import type { ChainRules, ConnectView, PrevContext } from './rules.js';
import { ChainDisk } from './store.js';

/** A block held in memory: its bytes, parsed form and txids (parsing once, at arrival or replay). */
interface Held {
  raw: Uint8Array;
  block: Block;
  txids: string[];
  undo?: BlockUndo;
}

export type SubmitResult =
  | { status: 'connected' | 'stored'; hash: string; height: number }
  | { status: 'duplicate' | 'duplicate-invalid' | 'inconclusive'; hash: string }
  | { status: 'rejected'; hash?: string; rejectCode: number; reason: string };

export interface BlockConnected extends Notice {
  type: 'blockConnected';
  hash: string;
  height: number;
  block: Block;
  txids: string[];
}

export interface BlockDisconnected extends Notice {
  type: 'blockDisconnected';
  hash: string;
  height: number;
  block: Block;
  txids: string[];
}

export interface ChainStoreOptions {
  dir: string;
  rules: ChainRules;
  /** The chain's parameters before any automatic activation; the store tracks them along its tip. */
  baseParams?: ChainParams;
  now?: () => number;
  log?: (msg: string) => void;
}

const WRITE_OPS = new Set(['submitBlock', 'invalidateBlock', 'reconsiderBlock']);

/**
 * The chain store: the single writer of chain state. Blocks are validated, stored, and connected
 * along the chain with most work (reorganising when another branch overtakes it); readers get the
 * tip, blocks, transactions and coins from memory.
 */
export class ChainStoreLogic implements ServiceLogic {
  readonly name = 'chainStore';
  private disk!: ChainDisk;
  readonly index = new BlockIndex();
  readonly indexes = new ChainIndexes();
  private readonly held = new Map<string, Held>();
  /** The parameters in force at the tip (komodod activates Sapling automatically at 61). */
  currentParams: ChainParams | undefined;
  private readonly now: () => number;
  private readonly log: (msg: string) => void;

  constructor(private readonly opts: ChainStoreOptions) {
    this.now = opts.now ?? (() => Math.floor(Date.now() / 1000));
    this.log = opts.log ?? (() => {});
    this.currentParams = opts.baseParams;
  }

  /** Re-derives the parameters after a tip change (komodo_activate_sapling on each connected tip). */
  private trackParams(): void {
    const base = this.opts.baseParams;
    if (!base) return;
    const tip = this.index.tip;
    this.currentParams = base.afterTip(tip.height, tip.header.time, (h) => this.index.atHeight(h)?.header.time ?? 0);
  }

  // ---- loading -------------------------------------------------------------------------------

  async load(): Promise<void> {
    this.disk = await ChainDisk.open(this.opts.dir);
    const genesis = this.opts.rules.genesis;
    const genesisRaw = genesis.toRaw();
    const genesisHash = genesis.hashHex();
    this.hold(genesisHash, genesisRaw, genesis);
    const g = this.index.add(genesis.header, genesisRaw.length, genesis.txs.length);
    this.index.setActiveTip(g);

    // Every stored block joins the index; a block whose parent is missing (a torn write) is skipped.
    const stored = await this.disk.allBlocks();
    const byPrev = new Map<string, { hash: string; raw: Uint8Array; block: Block }[]>();
    for (const { hash, raw } of stored) {
      if (hash === genesisHash) continue;
      let block: Block;
      try {
        block = Block.fromRaw(raw);
      } catch {
        this.log(`skipping unreadable stored block ${hash}`);
        continue;
      }
      const prev = Buffer.from(block.header.prevHash).reverse().toString('hex');
      const list = byPrev.get(prev) ?? [];
      list.push({ hash, raw, block });
      byPrev.set(prev, list);
    }
    const failed = new Set(await this.disk.getState<string[]>('failed') ?? []);
    const queue = [genesisHash];
    while (queue.length) {
      const parent = queue.shift()!;
      for (const child of byPrev.get(parent) ?? []) {
        this.hold(child.hash, child.raw, child.block);
        this.index.add(child.block.header, child.raw.length, child.block.txs.length, failed.has(child.hash));
        queue.push(child.hash);
      }
    }

    // Replay the recorded active chain; the tip record is written last, so it never runs ahead.
    const tipHash = (await this.disk.getState<string>('tip')) ?? genesisHash;
    const tip = this.index.get(tipHash);
    if (!tip) throw new Error(`chain tip ${tipHash} is not among the stored blocks: the data directory is damaged (-reindex rebuilds it)`);
    for (const entry of this.index.path(g, tip)) {
      const h = this.held.get(entry.hash)!;
      h.undo = this.indexes.connect(h.block.txs, h.txids, entry.hash, entry.height);
      this.index.setActiveTip(entry);
    }
    this.trackParams();
    this.log(`chain loaded: height ${this.index.height}, tip ${this.index.tip.hash}, ${this.index.size} blocks known`);
    // A stored branch with more work than the recorded tip (a crash between its write and the tip
    // record, or a reconsidered branch) is taken up now, with full validation.
    await this.activateBestChain([]);
  }

  private hold(hash: string, raw: Uint8Array, block: Block): Held {
    const txids = block.txs.map((tx) => tx.txid());
    const h: Held = { raw, block, txids };
    this.held.set(hash, h);
    return h;
  }

  async close(): Promise<void> {
    await this.disk?.compact();
  }

  // ---- requests ------------------------------------------------------------------------------

  isWrite(body: Op): boolean {
    return WRITE_OPS.has(body.op);
  }

  read(body: Op): unknown {
    switch (body.op) {
      case 'tip':
        return this.tipInfo();
      case 'params':
        return this.currentParams ?? null;
      case 'blockHash': {
        const e = this.index.atHeight(body.height as number);
        return e ? e.hash : null;
      }
      case 'entry':
        return this.entryInfo(body.hash as string);
      case 'block':
        return this.blockInfo(body.hash as string);
      case 'tx':
        return this.txInfo(body.txid as string);
      case 'coins':
        return (body.outpoints as [string, number][]).map(([txid, n]) => this.indexes.coins.get(outpointKey(txid, n)) ?? null);
      case 'spent':
        return this.indexes.spent.get(outpointKey(body.txid as string, body.n as number)) ?? null;
      case 'template':
        return this.templateContext();
      case 'view':
        return this.mempoolView(body.txid as string, body.outpoints as [string, number][]);
      default:
        throw new ServiceFailure(-32601, `chainStore has no operation ${body.op}`);
    }
  }

  async write(body: Op): Promise<WriteOutcome> {
    const notices: Notice[] = [];
    switch (body.op) {
      case 'submitBlock':
        return { result: await this.submitBlock(body.raw as Uint8Array, notices), notices };
      case 'invalidateBlock':
        await this.invalidateBlock(body.hash as string, notices);
        return { result: null, notices };
      case 'reconsiderBlock':
        await this.reconsiderBlock(body.hash as string, notices);
        return { result: null, notices };
      default:
        throw new ServiceFailure(-32601, `chainStore has no operation ${body.op}`);
    }
  }

  summary(): Record<string, unknown> {
    return { height: this.index.height, tip: this.index.tip.hash, blocksKnown: this.index.size, utxos: this.indexes.coins.size };
  }

  // ---- reads ---------------------------------------------------------------------------------

  tipInfo() {
    const tip = this.index.tip;
    return { hash: tip.hash, height: tip.height, time: tip.header.time, bits: tip.header.bits, chainWork: tip.chainWork, mtp: this.mtp(tip) };
  }

  private entryInfo(hash: string) {
    const e = this.index.get(hash);
    if (!e) return null;
    const next = this.index.isActive(e) ? this.index.atHeight(e.height + 1) : undefined;
    return {
      hash: e.hash,
      height: e.height,
      active: this.index.isActive(e),
      confirmations: this.index.isActive(e) ? this.index.height - e.height + 1 : -1,
      header: e.header,
      chainWork: e.chainWork,
      size: e.size,
      txCount: e.txCount,
      mtp: this.mtp(e),
      prev: e.prev,
      next: next?.hash ?? null,
      failed: e.failed,
    };
  }

  private blockInfo(hash: string) {
    const info = this.entryInfo(hash);
    const h = this.held.get(hash);
    if (!info || !h) return null;
    return { ...info, raw: h.raw, block: h.block, txids: h.txids };
  }

  private txInfo(txid: string) {
    const loc = this.indexes.txIndex.get(txid);
    if (!loc) return null;
    const h = this.held.get(loc.blockHash)!;
    const e = this.index.get(loc.blockHash)!;
    return { tx: h.block.txs[loc.index]!, blockHash: loc.blockHash, height: loc.height, index: loc.index, time: e.header.time, confirmations: this.index.height - loc.height + 1 };
  }

  /** Median time past at an entry (the previous 11 blocks' times). */
  mtp(entry: BlockEntry): number {
    const times: { time: number }[] = [];
    let e: BlockEntry | undefined = entry;
    for (let i = 0; i < 11 && e; i++, e = this.index.parent(e)) times.push({ time: e.header.time });
    return medianTimePast(times.reverse());
  }

  private prevContext(prev: BlockEntry): PrevContext {
    const ancestors: { time: number; bits: number }[] = [];
    let e: BlockEntry | undefined = prev;
    for (let i = 0; i < 28 && e; i++, e = this.index.parent(e)) ancestors.push({ time: e.header.time, bits: e.header.bits });
    return { height: prev.height, hash: prev.hash, mtp: this.mtp(prev), nextBits: this.opts.rules.nextBits(ancestors.reverse()) };
  }

  /**
   * What the mempool needs to judge a transaction against the chain, read in one step so it is
   * consistent: the tip, the coins its inputs name, whether each missing input's transaction is
   * confirmed (spent, rather than unknown), and whether the transaction itself has unspent outputs.
   */
  mempoolView(txid: string, outpoints: [string, number][]) {
    const tip = this.index.tip;
    const coins = outpoints.map(([t, n]) => this.indexes.coins.get(outpointKey(t, n)) ?? null);
    const confirmed = outpoints.map(([t], i) => coins[i] !== null || this.indexes.txIndex.has(t));
    const own = this.txInfo(txid);
    const hasUnspentOutputs = !!own && own.tx.vout.some((_, n) => this.indexes.coins.has(outpointKey(txid, n)));
    return { height: tip.height, hash: tip.hash, time: tip.header.time, mtp: this.mtp(tip), coins, confirmed, hasUnspentOutputs, params: this.currentParams };
  }

  templateContext(): PrevContext & { time: number } {
    const tip = this.index.tip;
    return { ...this.prevContext(tip), time: tip.header.time };
  }

  // ---- writes --------------------------------------------------------------------------------

  private async submitBlock(raw: Uint8Array, notices: Notice[]): Promise<SubmitResult> {
    let block: Block;
    try {
      block = Block.fromRaw(raw);
    } catch (e) {
      if (e instanceof DecodeError) return { status: 'rejected', rejectCode: 16, reason: `Block decode failed: ${e.message}` };
      throw e;
    }
    const hash = block.hashHex();
    const known = this.index.get(hash);
    if (known) return { status: known.failed ? 'duplicate-invalid' : 'duplicate', hash };
    const prevHash = Buffer.from(block.header.prevHash).reverse().toString('hex');
    const prev = this.index.get(prevHash);
    // An orphan: komodod's submitblock answers "inconclusive" when the block is not connected.
    if (!prev) return { status: 'inconclusive', hash };
    const height = prev.height + 1;
    try {
      this.opts.rules.checkBlock(block, height);
      this.opts.rules.checkHeader(block.header, this.prevContext(prev), this.now());
    } catch (e) {
      return this.rejection(e, hash);
    }
    if (prev.failed) return { status: 'rejected', hash, rejectCode: 16, reason: 'bad-prevblk' };

    await this.disk.putBlock(hash, raw);
    this.hold(hash, raw, block);
    const entry = this.index.add(block.header, raw.length, block.txs.length);
    const failure = await this.activateBestChain(notices);
    if (entry.failed) {
      return { status: 'rejected', hash, rejectCode: failure?.rejectCode ?? 16, reason: failure?.reason ?? 'invalid block' };
    }
    return this.index.isActive(entry) ? { status: 'connected', hash, height } : { status: 'stored', hash, height };
  }

  private rejection(e: unknown, hash?: string): SubmitResult {
    const v = e as { rejectCode?: number; reason?: string };
    if (typeof v?.rejectCode === 'number' && typeof v.reason === 'string') {
      return { status: 'rejected', ...(hash ? { hash } : {}), rejectCode: v.rejectCode, reason: v.reason };
    }
    throw e;
  }

  /**
   * Moves the active chain to the valid branch with most work: disconnect back to the fork,
   * connect forward. A block that fails to connect is marked failed (with its descendants) and the
   * next best branch is tried, so the node always ends on a fully valid chain.
   */
  private async activateBestChain(notices: Notice[]): Promise<{ rejectCode: number; reason: string } | undefined> {
    let lastFailure: { rejectCode: number; reason: string } | undefined;
    for (;;) {
      const best = this.index.betterTips()[0];
      if (!best) break;
      const fork = this.index.fork(best);
      const path = this.index.path(fork, best);
      while (this.index.tip !== fork) this.disconnectTip(notices);
      let failedAt: BlockEntry | undefined;
      for (const entry of path) {
        const problem = this.connectEntry(entry, notices);
        if (problem) {
          lastFailure = problem;
          failedAt = entry;
          break;
        }
      }
      if (failedAt) {
        this.index.markFailed(failedAt);
        this.log(`block ${failedAt.hash} at height ${failedAt.height} is invalid: ${lastFailure!.reason}`);
        await this.disk.setState('failed', this.failedHashes());
      }
      await this.disk.setState('tip', this.index.tip.hash);
    }
    return lastFailure;
  }

  private connectEntry(entry: BlockEntry, notices: Notice[]): { rejectCode: number; reason: string } | undefined {
    const h = this.held.get(entry.hash)!;
    try {
      this.opts.rules.connect(h.block, entry.height, this.connectView());
    } catch (e) {
      const v = e as { rejectCode?: number; reason?: string };
      if (typeof v?.rejectCode === 'number' && typeof v.reason === 'string') return { rejectCode: v.rejectCode, reason: v.reason };
      return { rejectCode: 16, reason: e instanceof Error ? e.message : String(e) };
    }
    h.undo = this.indexes.connect(h.block.txs, h.txids, entry.hash, entry.height);
    this.index.setActiveTip(entry);
    this.trackParams();
    notices.push({ type: 'blockConnected', hash: entry.hash, height: entry.height, block: h.block, txids: h.txids } satisfies BlockConnected);
    if (entry.height % 100 === 0 || entry.txCount > 1) this.log(`connected block ${entry.height} ${entry.hash} (${entry.txCount} txs)`);
    return undefined;
  }

  /** The UTXO set overlaid with the effects of the block's earlier transactions, in order. */
  private connectView(): ConnectView {
    const created = new Map<string, Coin>();
    const spent = new Set<string>();
    const earlier = new Map<string, Transaction>();
    return {
      coin: (txid, n) => {
        const key = outpointKey(txid, n);
        if (spent.has(key)) return undefined;
        return created.get(key) ?? this.indexes.coins.get(key);
      },
      tx: (txid) => earlier.get(txid) ?? this.txInfo(txid)?.tx,
      apply: (tx, txid, height) => {
        if (!tx.isCoinbase()) for (const i of tx.vin) spent.add(outpointKey(i.prevout.txid(), i.prevout.index));
        tx.vout.forEach((out, n) => {
          created.set(outpointKey(txid, n), { value: out.value, script: out.script, height, coinbase: tx.isCoinbase(), txVersion: tx.version });
        });
        earlier.set(txid, tx);
      },
    };
  }

  private disconnectTip(notices: Notice[]): void {
    const tip = this.index.tip;
    const parent = this.index.parent(tip);
    if (!parent) throw new Error('cannot disconnect the genesis block');
    const h = this.held.get(tip.hash)!;
    this.indexes.disconnect(h.block.txs, h.txids, h.undo!);
    h.undo = undefined;
    this.index.setActiveTip(parent);
    this.trackParams();
    notices.push({ type: 'blockDisconnected', hash: tip.hash, height: tip.height, block: h.block, txids: h.txids } satisfies BlockDisconnected);
    this.log(`disconnected block ${tip.height} ${tip.hash}`);
  }

  private failedHashes(): string[] {
    const out: string[] = [];
    for (const e of this.index.all()) if (e.failed) out.push(e.hash);
    return out;
  }

  private async invalidateBlock(hash: string, notices: Notice[]): Promise<void> {
    const entry = this.index.get(hash);
    if (!entry) throw new ServiceFailure(-5, 'Block not found');
    if (entry.height === 0) throw new ServiceFailure(-8, 'cannot invalidate the genesis block');
    if (this.index.isActive(entry)) {
      while (this.index.tip.height >= entry.height) this.disconnectTip(notices);
    }
    this.index.markFailed(entry);
    await this.disk.setState('failed', this.failedHashes());
    await this.disk.setState('tip', this.index.tip.hash);
    await this.activateBestChain(notices);
  }

  private async reconsiderBlock(hash: string, notices: Notice[]): Promise<void> {
    const entry = this.index.get(hash);
    if (!entry) throw new ServiceFailure(-5, 'Block not found');
    this.index.clearFailed(entry);
    await this.disk.setState('failed', this.failedHashes());
    await this.activateBestChain(notices);
  }
}
