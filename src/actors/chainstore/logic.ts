import { Block, txHashesOf, txSizesOf } from '../../chain/block/block.js';
import type { BlockHeader } from '../../chain/block/header.js';
import { medianTimePast } from '../../chain/block/pow.js';
import { DecodeError } from '../../chain/encoding/errors.js';
import { toHexReversed } from '../../chain/encoding/hex.js';
import { Transaction } from '../../chain/tx/transaction.js';
import type { ChainParams } from '../../chain/params/chain-params.js';
import { ServiceFailure, type Op } from '../protocol.js';
import type { Notice, ServiceLogic, WriteOutcome } from '../../machines/service.js';
import { BlockIndex, type BlockEntry } from './blockindex.js';
import { ChainIndexes, outpointKey, type BlockUndo, type Coin } from './coins.js';
import type { ChainRules, ConnectView, PrevContext } from './rules.js';
import { ChainDisk } from './store.js';

/**
 * A block held in memory: its bytes, its txids and where each transaction starts in the bytes. The
 * parsed form is kept for the newest blocks only (PARSED_BLOCKS): a chain's parsed transactions took
 * several times the memory of its bytes, and an old block's transaction is read alone from its bytes.
 */
interface Held {
  raw: Uint8Array;
  txids: string[];
  /** Transaction i is raw[txStarts[i], txStarts[i + 1]). */
  txStarts: Uint32Array;
  undo?: BlockUndo;
}

/**
 * Parsed blocks kept, the most recently used (the tip's neighbourhood, where connects, reorgs and
 * fresh reads are): at most this many, and at most this many bytes of them (a parsed transaction
 * takes several times its bytes).
 */
const PARSED_BLOCKS = 8;
const PARSED_BYTES = 2_000_000;

export type SubmitResult =
  | { status: 'connected' | 'stored'; hash: string; height: number }
  | { status: 'duplicate' | 'duplicate-invalid' | 'inconclusive'; hash: string }
  | { status: 'rejected'; hash?: string; rejectCode: number; reason: string; /** the DoS score komodod's state carries (p2p misbehaviour) */ dos?: number };

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
  /** -addressindex (komodod: on for every ac_cc chain): keep the address history index. Default on. */
  addressIndex?: boolean;
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
  readonly indexes: ChainIndexes;
  private readonly held = new Map<string, Held>();
  /** Parsed forms of the most recently used held blocks, oldest first. */
  private readonly parsed = new Map<string, Block>();
  private parsedBytes = 0;
  /** The parameters in force at the tip (komodod activates Sapling automatically at 61). */
  currentParams: ChainParams | undefined;
  private readonly now: () => number;
  private readonly log: (msg: string) => void;

  constructor(private readonly opts: ChainStoreOptions) {
    this.now = opts.now ?? (() => Math.floor(Date.now() / 1000));
    this.log = opts.log ?? (() => {});
    this.currentParams = opts.baseParams;
    this.indexes = new ChainIndexes(opts.addressIndex ?? true);
  }

  /** The address history of address keys (null when -addressindex is off), with the tip and the start/end block hashes. */
  private addressHistory(addresses: string[], start: number, end: number) {
    const tip = this.index.tip!;
    if (!this.indexes.addressIndex) return null;
    const deltas = addresses.flatMap((a) => this.indexes.historyAt(a, start, end).map((d) => ({ ...d, address: a })));
    const hashAt = (h: number): string | null => (h >= 0 && h <= tip.height ? (this.index.atHeight(h)?.hash ?? null) : null);
    return { deltas, tip: { hash: tip.hash, height: tip.height }, startHash: hashAt(start), endHash: hashAt(end) };
  }

  /** The unspent outputs of address keys (null when -addressindex is off), with the tip. */
  private addressUtxos(addresses: string[]) {
    const tip = this.index.tip!;
    if (!this.indexes.addressIndex) return null;
    const utxos = addresses.flatMap((a) => this.indexes.unspentAt(a).map((u) => ({ ...u, address: a })));
    return { utxos, tip: { hash: tip.hash, height: tip.height } };
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
    this.disk = await ChainDisk.open(this.opts.dir, this.log);
    const genesis = this.opts.rules.genesis;
    const genesisRaw = genesis.toRaw();
    const genesisHash = genesis.hashHex();
    const genesisStarts: number[] = [];
    Block.fromRaw(genesisRaw, genesisStarts);
    this.hold(genesisHash, genesisRaw, genesisStarts, genesis);
    const g = this.index.add(genesis.header, genesisRaw.length, genesis.txs.length);
    this.index.setActiveTip(g);

    // Every stored block joins the index; a block whose parent is missing (a torn write) is skipped.
    // Each is read whole here (so an unreadable one is skipped) but only its header and where its
    // transactions start are kept: every parsed transaction of a long chain at once was the peak of a
    // restart's memory.
    const stored = await this.disk.allBlocks();
    const byPrev = new Map<string, { hash: string; raw: Uint8Array; header: BlockHeader; txCount: number; txStarts: number[] }[]>();
    for (const { hash, raw } of stored) {
      if (hash === genesisHash) continue;
      let block: Block;
      const txStarts: number[] = [];
      try {
        block = Block.fromRaw(raw, txStarts);
      } catch {
        this.log(`skipping unreadable stored block ${hash}`);
        continue;
      }
      // A record whose bytes do not hash to its key is damaged: never taken for the block it names.
      if (block.hashHex() !== hash) {
        this.log(`skipping damaged stored block ${hash} (its bytes hash to ${block.hashHex()})`);
        continue;
      }
      const prev = Buffer.from(block.header.prevHash).reverse().toString('hex');
      const list = byPrev.get(prev) ?? [];
      list.push({ hash, raw, header: block.header, txCount: block.txs.length, txStarts });
      byPrev.set(prev, list);
    }
    const failed = new Set(await this.disk.getState<string[]>('failed') ?? []);
    const queue = [genesisHash];
    while (queue.length) {
      const parent = queue.shift()!;
      for (const child of byPrev.get(parent) ?? []) {
        this.hold(child.hash, child.raw, child.txStarts);
        this.index.add(child.header, child.raw.length, child.txCount, failed.has(child.hash));
        queue.push(child.hash);
      }
    }
    byPrev.clear();

    // Replay the recorded active chain; the tip record is written last, so it never runs ahead.
    const tipHash = (await this.disk.getState<string>('tip')) ?? genesisHash;
    const tip = this.index.get(tipHash);
    if (!tip) throw new Error(`chain tip ${tipHash} is not among the stored blocks: the data directory is damaged: restore it from a backup or start on a new -datadir`);
    // Parsed again one block at a time, and let go.
    for (const entry of this.index.path(g, tip)) {
      const h = this.held.get(entry.hash)!;
      h.undo = this.indexes.connect(this.peekBlock(entry.hash, h).txs, h.txids, entry.hash, entry.height);
      this.index.setActiveTip(entry);
    }
    this.trackParams();
    this.log(`chain loaded: height ${this.index.height}, tip ${this.index.tip.hash}, ${this.index.size} blocks known`);
    // A stored branch with more work than the recorded tip (a crash between its write and the tip
    // record, or a reconsidered branch) is taken up now, with full validation.
    await this.activateBestChain([]);
  }

  /** Holds a block's bytes; its parsed form, when given, joins the recent ones. */
  private hold(hash: string, raw: Uint8Array, txStarts: readonly number[], block?: Block, hashes?: readonly Uint8Array[]): Held {
    const txids = (hashes ?? txHashesOf(raw, txStarts)).map((h) => toHexReversed(h));
    const h: Held = { raw, txids, txStarts: Uint32Array.from(txStarts) };
    this.held.set(hash, h);
    if (block) this.keepParsed(hash, block);
    return h;
  }

  /** A held block, parsed: from the recent ones, else from its bytes (and then kept among the recent). */
  private blockOf(hash: string): Block {
    const kept = this.parsed.get(hash);
    if (kept) {
      // Most recently used last.
      this.parsed.delete(hash);
      this.parsed.set(hash, kept);
      return kept;
    }
    const block = Block.fromRaw(this.held.get(hash)!.raw);
    this.keepParsed(hash, block);
    return block;
  }

  private keepParsed(hash: string, block: Block): void {
    this.parsed.set(hash, block);
    this.parsedBytes += this.held.get(hash)!.raw.length;
    // The newest stays even alone over the byte bound: it is the one being used.
    while (this.parsed.size > 1 && (this.parsed.size > PARSED_BLOCKS || this.parsedBytes > PARSED_BYTES)) {
      const oldest = this.parsed.keys().next().value!;
      this.parsed.delete(oldest);
      this.parsedBytes -= this.held.get(oldest)!.raw.length;
    }
  }

  /** A held block, parsed, without keeping it among the recent ones (passes over many blocks). */
  private peekBlock(hash: string, h: Held): Block {
    return this.parsed.get(hash) ?? Block.fromRaw(h.raw);
  }

  /** Transaction i of a held block, read alone from the block's bytes unless the block is parsed already. */
  private txAt(hash: string, i: number): Transaction {
    const kept = this.parsed.get(hash);
    if (kept) return kept.txs[i]!;
    const h = this.held.get(hash)!;
    return Transaction.fromRaw(h.raw.subarray(h.txStarts[i], h.txStarts[i + 1]));
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
      case 'rawBlock': {
        // A block's entry and bytes, not parsed (a peer's getdata).
        const info = this.entryInfo(body.hash as string);
        const h = this.held.get(body.hash as string);
        return info && h ? { ...info, raw: h.raw } : null;
      }
      case 'tx':
        return this.txInfo(body.txid as string);
      case 'txs':
        // Several lookups in one message (the token registry's rounds of missing transactions).
        return (body.txids as string[]).map((txid) => this.txInfo(txid));
      case 'inChain':
        // Whether each transaction is in the active chain (the tx index only, no transaction read).
        return (body.txids as string[]).map((txid) => this.indexes.txIndex.has(txid));
      case 'coins':
        return (body.outpoints as [string, number][]).map(([txid, n]) => this.indexes.coins.get(outpointKey(txid, n)) ?? null);
      case 'spent':
        return this.indexes.spent.get(outpointKey(body.txid as string, body.n as number)) ?? null;
      case 'addressUnspent':
        // body.address: addressKey(type, hash160) of coins.ts
        return this.indexes.unspentAt(body.address as string);
      case 'addressBalance':
        return this.indexes.balanceAt(body.address as string);
      case 'addressHistory':
        // body.addresses: address keys; GetAddressIndex per address, concatenated in the order asked.
        return this.addressHistory(body.addresses as string[], (body.start as number | undefined) ?? 0, (body.end as number | undefined) ?? 0);
      case 'addressUtxos':
        // GetAddressUnspent per address, concatenated, with the tip they were read at (chainInfo).
        return this.addressUtxos(body.addresses as string[]);
      case 'template':
        return this.templateContext();
      case 'view':
        return this.mempoolView(body.txid as string, body.outpoints as [string, number][]);
      case 'views': {
        // One view per transaction of a burst, all at the same tip (its part computed once).
        const tipPart = this.tipView();
        return (body.items as { txid: string; outpoints: [string, number][] }[]).map((i) => this.mempoolView(i.txid, i.outpoints, tipPart));
      }
      // P2P reads (the p2p actor): locators, headers/blocks after a locator, what is known of hashes.
      case 'locator':
        return this.locator(body.from as string | undefined);
      case 'headersAfter':
        return this.headersAfter(body.locator as string[], body.stop as string, body.max as number);
      case 'known':
        return (body.hashes as string[]).map((h) => {
          const e = this.index.get(h);
          return e ? { height: e.height, chainWork: e.chainWork, active: this.index.isActive(e), failed: e.failed } : null;
        });
      case 'coinsByScript':
        return this.coinsByScript(body.scripts as string[], body.ccSubScripts as string[] | undefined);
      case 'txsByScript':
        return this.txsByScript(body.scripts as string[]);
      // RPC reads (getrawtransaction, getblock, getblockchaininfo).
      case 'spentMany':
        return this.spentMany(body.outpoints as [string, number][]);
      case 'outputsOf':
        return this.outputsOf(body.outpoints as [string, number][]);
      case 'valuePools':
        return this.valuePools(body.hash as string);
      case 'bestHeader':
        return this.bestHeader();
      case 'staleTx':
        return this.staleTx(body.txid as string);
      case 'networkHashPS':
        return this.networkHashPS(body.lookup as number, body.height as number);
      case 'recentVersions': {
        // nVersion of the tip and its ancestors, newest first (SoftForkMajorityDesc's window).
        const out: number[] = [];
        for (let h = this.index.height; h >= 0 && out.length < (body.count as number); h--) out.push(this.index.atHeight(h)!.header.version);
        return out;
      }
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
    return { ...info, raw: h.raw, block: this.blockOf(hash), txids: h.txids };
  }

  private txInfo(txid: string) {
    const loc = this.indexes.txIndex.get(txid);
    if (!loc) return null;
    const e = this.index.get(loc.blockHash)!;
    return { tx: this.txAt(loc.blockHash, loc.index), blockHash: loc.blockHash, height: loc.height, index: loc.index, time: e.header.time, confirmations: this.index.height - loc.height + 1 };
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

  /** The tip's part of a mempool view (one per burst: every view of a burst is at the same tip). */
  private tipView() {
    const tip = this.index.tip;
    return { height: tip.height, hash: tip.hash, time: tip.header.time, mtp: this.mtp(tip), params: this.currentParams };
  }

  /**
   * What the mempool needs to judge a transaction against the chain, read in one step so it is
   * consistent: the tip, the coins its inputs name, whether each missing input's transaction is
   * confirmed (spent, rather than unknown), and whether the transaction itself has unspent outputs.
   */
  mempoolView(txid: string, outpoints: [string, number][], tipPart = this.tipView()) {
    const coins = outpoints.map(([t, n]) => this.indexes.coins.get(outpointKey(t, n)) ?? null);
    const confirmed = outpoints.map(([t], i) => coins[i] !== null || this.indexes.txIndex.has(t));
    const own = this.txInfo(txid);
    const hasUnspentOutputs = !!own && own.tx.vout.some((_, n) => this.indexes.coins.has(outpointKey(txid, n)));
    return { ...tipPart, coins, confirmed, hasUnspentOutputs };
  }

  /**
   * The unspent outputs paying any of `scripts` (hex scriptPubKeys), or a CC script whose
   * `<condition> OP_CHECKCRYPTOCONDITION` part is among `ccSubScripts`, with the tip they were read
   * at: one pass over the in-memory UTXO set (the wallet's load and rescan), never over blocks.
   */
  /**
   * The wallet's -rescan (ScanForWalletTransactions): every active-chain transaction that pays one of
   * `scripts` or spends an output found so far, oldest first. One pass over the held blocks, asked
   * once at start, never per request.
   */
  txsByScript(scripts: string[]) {
    const want = new Set(scripts);
    const ours = new Set<string>();
    const out: { txid: string; tx: Transaction; height: number; time: number }[] = [];
    for (let h = 0; h <= this.index.height; h++) {
      const e = this.index.atHeight(h)!;
      const held = this.held.get(e.hash);
      if (!held) continue;
      // A pass over the whole chain: it does not churn the recent blocks.
      this.peekBlock(e.hash, held).txs.forEach((tx, i) => {
        const txid = held.txids[i]!;
        let hit = !tx.isCoinbase() && tx.vin.some((input) => ours.has(outpointKey(input.prevout.txid(), input.prevout.index)));
        tx.vout.forEach((o, n) => {
          if (want.has(Buffer.from(o.script.buffer, o.script.byteOffset, o.script.byteLength).toString('hex'))) {
            ours.add(outpointKey(txid, n));
            hit = true;
          }
        });
        if (hit) out.push({ txid, tx, height: h, time: e.header.time });
      });
    }
    return out;
  }

  coinsByScript(scripts: string[], ccSubScripts: string[] = []) {
    const want = new Set(scripts);
    const wantCC = new Set(ccSubScripts);
    const out: { txid: string; n: number; coin: Coin }[] = [];
    for (const [key, coin] of this.indexes.coins) {
      const hex = Buffer.from(coin.script.buffer, coin.script.byteOffset, coin.script.byteLength).toString('hex');
      let match = want.has(hex);
      if (!match && wantCC.size > 0) {
        // A direct push of the condition, then OP_CHECKCRYPTOCONDITION (0xcc).
        const len = coin.script[0]!;
        if (len > 0 && len < 0x4c && coin.script[len + 1] === 0xcc) match = wantCC.has(hex.slice(0, (len + 2) * 2));
      }
      if (!match) continue;
      const colon = key.lastIndexOf(':');
      out.push({ txid: key.slice(0, colon), n: Number(key.slice(colon + 1)), coin });
    }
    const tip = this.index.tip;
    return { height: tip.height, hash: tip.hash, mtp: this.mtp(tip), coins: out };
  }

  // ---- RPC reads -----------------------------------------------------------------------------

  /** The spent index for each outpoint, with the spent output's value and script (from the txindex). */
  spentMany(outpoints: [string, number][]) {
    return outpoints.map(([txid, n]) => {
      const s = this.indexes.spent.get(outpointKey(txid, n));
      if (!s) return null;
      const out = this.txInfo(txid)?.tx.vout[n];
      return { ...s, value: out?.value ?? null, script: out?.script ?? null };
    });
  }

  /** Outputs of confirmed transactions (spent or not), by the txindex. */
  outputsOf(outpoints: [string, number][]) {
    return outpoints.map(([txid, n]) => {
      const out = this.txInfo(txid)?.tx.vout[n];
      return out ? { value: out.value, script: out.script } : null;
    });
  }

  /** GetNetworkHashPS (rpc/mining.cpp): work over the time span of the last `lookup` blocks. */
  networkHashPS(lookup: number, height: number, averagingWindow = 17): number {
    let pb = this.index.tip;
    if (height >= 0 && height < this.index.height) pb = this.index.atHeight(height)!;
    if (pb.height === 0) return 0;
    if (lookup <= 0) lookup = averagingWindow;
    if (lookup > pb.height) lookup = pb.height;
    let pb0 = pb;
    let minTime = pb0.header.time;
    let maxTime = minTime;
    for (let i = 0; i < lookup; i++) {
      pb0 = this.index.parent(pb0)!;
      minTime = Math.min(pb0.header.time, minTime);
      maxTime = Math.max(pb0.header.time, maxTime);
    }
    if (minTime === maxTime) return 0;
    // (int64_t)(workDiff.getdouble() / timeDiff)
    return Math.trunc(Number(pb.chainWork - pb0.chainWork) / (maxTime - minTime));
  }

  /**
   * A transaction found only in a block off the active chain (komodod's txindex keeps the entry of a
   * disconnected block): the transaction and that block, or null.
   */
  staleTx(txid: string) {
    // Nothing off the active chain: no walk over the index.
    if (this.index.size === this.index.height + 1) return null;
    for (const e of this.index.all()) {
      if (this.index.isActive(e)) continue;
      const h = this.held.get(e.hash);
      const i = h ? h.txids.indexOf(txid) : -1;
      if (h && i >= 0) return { tx: this.txAt(e.hash, i), blockHash: e.hash };
    }
    return null;
  }

  /** The valid entry with most work (pindexBestHeader). */
  bestHeader() {
    let best = this.index.tip;
    for (const e of this.index.all()) if (!e.failed && e.chainWork > best.chainWork) best = e;
    return { hash: best.hash, height: best.height };
  }

  private readonly poolDeltas = new Map<string, PoolValues | null>();
  private readonly poolTotals = new Map<string, PoolValues | null>();

  /**
   * komodod's per-block value pools (ConnectBlock/ReceivedBlockTransactions): this block's deltas and
   * the chain totals up to it (chain supply, transparent, sprout, sapling, burned), or null where a
   * spent value cannot be known (komodod's boost::none: "monitored": false).
   */
  valuePools(hash: string): { delta: PoolValues | null; total: PoolValues | null } | null {
    const entry = this.index.get(hash);
    if (!entry) return null;
    // Walk back to the first block with known totals, then forward.
    const path: BlockEntry[] = [];
    let e: BlockEntry | undefined = entry;
    while (e && !this.poolTotals.has(e.hash)) {
      path.push(e);
      e = this.index.parent(e);
    }
    let prev: PoolValues | null = e ? this.poolTotals.get(e.hash)! : null;
    for (let i = path.length - 1; i >= 0; i--) {
      const b = path[i]!;
      const d = this.poolDelta(b);
      const total = b.prev === null ? d : prev && d ? addPools(prev, d) : null;
      this.poolTotals.set(b.hash, total);
      prev = total;
    }
    return { delta: this.poolDelta(entry), total: this.poolTotals.get(hash) ?? null };
  }

  private poolDelta(entry: BlockEntry): PoolValues | null {
    if (this.poolDeltas.has(entry.hash)) return this.poolDeltas.get(entry.hash)!;
    const h = this.held.get(entry.hash);
    if (!h) return null;
    const d: PoolValues = { supply: 0n, transparent: 0n, sprout: 0n, sapling: 0n, burned: 0n };
    const undo = h.undo?.spent;
    let u = 0;
    const earlier = new Map<string, Transaction>();
    let known = true;
    this.peekBlock(entry.hash, h).txs.forEach((tx, i) => {
      let shieldedOut = 0n;
      let shieldedIn = 0n;
      for (const js of tx.joinSplits) {
        d.sprout += js.vpubOld - js.vpubNew;
        shieldedOut += js.vpubOld;
        shieldedIn += js.vpubNew;
      }
      d.sapling -= tx.valueBalance;
      if (tx.valueBalance < 0n) shieldedOut -= tx.valueBalance;
      else shieldedIn += tx.valueBalance;
      let out = shieldedOut;
      for (const o of tx.vout) {
        out += o.value;
        if (isUnspendable(o.script)) d.burned += o.value;
        else d.transparent += o.value;
      }
      if (entry.prev === null) {
        d.supply = out; // the genesis block: its outputs (komodod assigns, per transaction)
      } else if (tx.isCoinbase()) {
        d.supply += out;
      } else {
        let valueIn = shieldedIn;
        for (const input of tx.vin) {
          const ptxid = toHexReversedBytes(input.prevout.hash);
          let v: bigint | undefined;
          if (undo) v = undo[u++]?.coin.value;
          else v = (earlier.get(ptxid) ?? this.txInfo(ptxid)?.tx)?.vout[input.prevout.index]?.value;
          if (v === undefined) {
            known = false;
            continue;
          }
          valueIn += v;
          d.transparent -= v;
        }
        d.supply -= valueIn - out;
      }
      earlier.set(h.txids[i]!, tx);
    });
    const result = known ? d : null;
    this.poolDeltas.set(entry.hash, result);
    return result;
  }

  templateContext(): PrevContext & { time: number } {
    const tip = this.index.tip;
    return { ...this.prevContext(tip), time: tip.header.time };
  }

  /**
   * CChain::GetLocator (chain.cpp:49-74): from an entry (the tip by default) back to genesis, ten
   * single steps and then doubling steps, always ending with genesis. Display-order hashes.
   */
  locator(from?: string): string[] {
    let e: BlockEntry | undefined = from ? this.index.get(from) : this.index.tip;
    if (!e) e = this.index.tip;
    const out: string[] = [];
    let step = 1;
    while (e) {
      out.push(e.hash);
      if (e.height === 0) break;
      const h = Math.max(e.height - step, 0);
      e = this.index.ancestor(e, h);
      if (out.length > 10) step *= 2;
    }
    return out;
  }

  /**
   * The active-chain headers after the last locator hash found on it (FindForkInGlobalIndex), up to
   * hashStop (inclusive) or `max`; an empty locator gives just the hashStop block (main.cpp:7768-7819).
   */
  headersAfter(locator: string[], stop: string, max: number): { hashes: string[]; headers: BlockHeader[] } {
    const hashes: string[] = [];
    const headers: BlockHeader[] = [];
    let e: BlockEntry | undefined;
    if (locator.length === 0) {
      e = this.index.get(stop);
      if (e) {
        hashes.push(e.hash);
        headers.push(e.header);
      }
      return { hashes, headers };
    }
    let fork: BlockEntry = this.index.atHeight(0)!;
    for (const h of locator) {
      const known = this.index.get(h);
      if (known && this.index.isActive(known)) {
        fork = known;
        break;
      }
    }
    for (e = this.index.atHeight(fork.height + 1); e && hashes.length < max; e = this.index.atHeight(e.height + 1)) {
      hashes.push(e.hash);
      headers.push(e.header);
      if (e.hash === stop) break;
    }
    return { hashes, headers };
  }

  // ---- writes --------------------------------------------------------------------------------

  private async submitBlock(raw: Uint8Array, notices: Notice[]): Promise<SubmitResult> {
    let block: Block;
    const txStarts: number[] = [];
    try {
      block = Block.fromRaw(raw, txStarts);
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
    // Each transaction is hashed once, here, from the block's bytes: the merkle check and the indexes reuse it.
    const txHashes = txHashesOf(raw, txStarts);
    try {
      this.opts.rules.checkBlock(block, height, { size: raw.length, txHashes, txSizes: txSizesOf(txStarts) });
      this.opts.rules.checkHeader(block.header, this.prevContext(prev), this.now());
    } catch (e) {
      return this.rejection(e, hash);
    }
    if (prev.failed) return { status: 'rejected', hash, rejectCode: 16, reason: 'bad-prevblk' };

    await this.disk.putBlock(hash, raw);
    this.hold(hash, raw, txStarts, block, txHashes);
    const entry = this.index.add(block.header, raw.length, block.txs.length);
    const failure = await this.activateBestChain(notices);
    if (entry.failed) {
      return { status: 'rejected', hash, rejectCode: failure?.rejectCode ?? 16, reason: failure?.reason ?? 'invalid block' };
    }
    return this.index.isActive(entry) ? { status: 'connected', hash, height } : { status: 'stored', hash, height };
  }

  private rejection(e: unknown, hash?: string): SubmitResult {
    const v = e as { rejectCode?: number; reason?: string; dos?: number };
    if (typeof v?.rejectCode === 'number' && typeof v.reason === 'string') {
      return { status: 'rejected', ...(hash ? { hash } : {}), rejectCode: v.rejectCode, reason: v.reason, ...(typeof v.dos === 'number' ? { dos: v.dos } : {}) };
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
    const before = this.index.tip;
    try {
      lastFailure = await this.activateBestChainSteps(notices);
    } finally {
      // komodod's NotifyBlockTip: once per activation that moved the tip, naming the new tip.
      const tip = this.index.tip;
      if (tip !== before) notices.push({ type: 'tipChanged', hash: tip.hash, height: tip.height, time: tip.header.time });
    }
    return lastFailure;
  }

  private async activateBestChainSteps(notices: Notice[]): Promise<{ rejectCode: number; reason: string } | undefined> {
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
    const block = this.blockOf(entry.hash);
    try {
      this.opts.rules.connect(block, entry.height, this.connectView(), h.txids);
    } catch (e) {
      const v = e as { rejectCode?: number; reason?: string };
      if (typeof v?.rejectCode === 'number' && typeof v.reason === 'string') return { rejectCode: v.rejectCode, reason: v.reason };
      return { rejectCode: 16, reason: e instanceof Error ? e.message : String(e) };
    }
    h.undo = this.indexes.connect(block.txs, h.txids, entry.hash, entry.height);
    this.index.setActiveTip(entry);
    this.trackParams();
    notices.push({ type: 'blockConnected', hash: entry.hash, height: entry.height, block, txids: h.txids } satisfies BlockConnected);
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
    const block = this.blockOf(tip.hash);
    this.indexes.disconnect(block.txs, h.txids, h.undo!);
    h.undo = undefined;
    this.index.setActiveTip(parent);
    this.trackParams();
    notices.push({ type: 'blockDisconnected', hash: tip.hash, height: tip.height, block, txids: h.txids } satisfies BlockDisconnected);
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

/** komodod's value pools of a block or a chain (satoshis). */
export interface PoolValues {
  supply: bigint;
  transparent: bigint;
  sprout: bigint;
  sapling: bigint;
  burned: bigint;
}

function addPools(a: PoolValues, b: PoolValues): PoolValues {
  return { supply: a.supply + b.supply, transparent: a.transparent + b.transparent, sprout: a.sprout + b.sprout, sapling: a.sapling + b.sapling, burned: a.burned + b.burned };
}

/** CScript::IsUnspendable: OP_RETURN first, or longer than MAX_SCRIPT_SIZE. */
function isUnspendable(script: Uint8Array): boolean {
  return (script.length > 0 && script[0] === 0x6a) || script.length > 10_000;
}

function toHexReversedBytes(b: Uint8Array): string {
  return Buffer.from(b).reverse().toString('hex');
}
