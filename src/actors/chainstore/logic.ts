import { Block, txHashesOf, txSizesOf } from '../../chain/block/block.js';
import type { BlockHeader } from '../../chain/block/header.js';
import { medianTimePast } from '../../chain/block/pow.js';
import { DecodeError } from '../../chain/encoding/errors.js';
import { toHexReversed } from '../../chain/encoding/hex.js';
import { Transaction } from '../../chain/tx/transaction.js';
import type { ChainParams } from '../../chain/params/chain-params.js';
import { ServiceFailure, noSuchOp } from '../protocol.js';
import type { ServiceLogic, WriteOutcome } from '../../machines/service.js';
import { BlockIndex, type BlockEntry } from './blockindex.js';
import { blockFileName, type BlockPos } from './blockfiles.js';
import { CHAIN_SCHEMA_VERSION, ChainStateDamaged, encodeRecord, type ChainDb } from './chaindb.js';
import { SupplyIndex } from './supplyindex.js';
import { verifyDB } from './verifydb.js';
import { addressKey, addressKeysOf } from '../../chain/address/index-key.js';
import { outpointKey, type Outpoint as TxOutpoint } from '../../chain/tx/input.js';
import type {
  BlockConnected,
  BlockDisconnected,
  BlockInfo,
  ChainStoreNotice,
  ChainStoreReplies,
  ChainStoreRequest,
  ChainTip,
  ChainTx,
  ChainView,
  Coin,
  EntryInfo,
  Outpoint,
  PoolValues,
  ScriptCoins,
  SpentOutput,
  SubmitResult,
  TipInfo,
  TipView,
} from './protocol.js';
import { hash160 } from '../../chain/crypto/hash.js';
import { ChainIndexes, type StoredCoin } from './chainstate.js';
import { TokenIndex } from './tokenindex.js';
import { OrderIndex } from './orderindex.js';
import { hasSchema1, readSchema1, removeSchema1 } from './migrate.js';
import type { ChainRules, ConnectView, PrevContext } from './rules.js';
import { BlockStore } from './store.js';
import { ccReads } from '../../chain/assets/context.js';
import { writeBlockEffects, type ChainStateParts } from './block-effects.js';
import { PendingBlocks, blockView } from './pending-view.js';
import { WriteThread } from './write-thread.js';
import { addPools, lookupValues, poolDeltaOf, poolsArray, poolsFrom, undoValues } from './pools.js';

/** Blocks the write thread may have waiting or being written while the next one is verified (-reindex). */
const WRITE_AHEAD = 2;

/** The message start of block files when no chain parameters are given (tests with stand-in rules): KMD's. */
const DEFAULT_MAGIC = Uint8Array.of(0xf9, 0xee, 0xe4, 0x8d);

export type { BlockConnected, BlockDisconnected, PoolValues, SubmitResult } from './protocol.js';

export interface ChainStoreOptions {
  dir: string;
  rules: ChainRules;
  /** The chain's parameters before any automatic activation; the store tracks them along its tip. */
  baseParams?: ChainParams;
  /** -addressindex (komodod: on for every ac_cc chain): keep the address history index. Default on. */
  addressIndex?: boolean;
  /** -reindex: rebuild the chain state from the block files (komodod's, or acnode's own). */
  reindex?: boolean;
  /** What the recent blocks (bytes and parsed) may hold in memory, in bytes (-dbcache's share; 16 MB when not given). */
  cacheBytes?: number;
  /** The network's message start, which begins each block-file record (baseParams' when not given). */
  magic?: Uint8Array;
  /**
   * -reindex writes each verified block's effects on a write thread while this one verifies the next
   * (write-thread.ts); without it (or when the thread does not load) both happen here, in turn.
   */
  writeThread?: boolean;
  /**
   * Called with the parameters in force whenever the tip changes them: an immutable value the node
   * hands to the actors that build transactions for the next height (the wallet) and to the rules.
   */
  publishParams?: (params: ChainParams) => void;
  now?: () => number;
  log?: (msg: string) => void;
}

const WRITE_OPS = new Set(['submitBlock', 'invalidateBlock', 'reconsiderBlock']);

/**
 * The chain store: the single writer of chain state. Blocks are validated, stored, and connected
 * along the chain with most work (reorganising when another branch overtakes it); readers get the
 * tip, blocks, transactions and coins from memory.
 */
export class ChainStoreLogic implements ServiceLogic<ChainStoreRequest, ChainStoreNotice> {
  readonly name = 'chainStore';
  private store!: BlockStore;
  readonly index = new BlockIndex();
  /** Blocks stored (bytes fsynced) whose index records the next write transaction commits. */
  private readonly unrecorded: BlockEntry[] = [];
  /** The UTXO set, undo data and the tx, spent and address indexes (LMDB), opened by load(). */
  indexes!: ChainIndexes;
  /** The token registry (LMDB), kept in the same write transactions. */
  tokens!: TokenIndex;
  /** komodo_coinsupply's running totals, per connected block. */
  private supply!: SupplyIndex;
  /** The open Assets orders by address, token and owner (tokenorders, mytokenorders). */
  orders!: OrderIndex;
  /** The parameters in force at the tip (komodod activates Sapling automatically at 61). */
  currentParams: ChainParams | undefined;
  /** -reindex's write thread, while its blocks connect (load). */
  private writer: WriteThread | undefined;
  /** Blocks verified and handed to the write thread, not committed yet (at most WRITE_AHEAD + 1). */
  private readonly pending = new PendingBlocks();
  /** -reindex: the block the scan just read and indexed, parsed and hashed, for its connect (then dropped). */
  private justRead: { hash: string; block: Block; raw: Uint8Array; txids: string[]; txHashes: Uint8Array[]; txStarts: number[] } | undefined;
  private readonly now: () => number;
  private readonly log: (msg: string) => void;
  /** Loaded and not closing: readSource() hands out the environment. */
  private readable = false;

  constructor(private readonly opts: ChainStoreOptions) {
    this.now = opts.now ?? (() => Math.floor(Date.now() / 1000));
    this.log = opts.log ?? (() => {});
    this.currentParams = opts.baseParams;
  }

  /** The address history of address keys (null when -addressindex is off), with the tip and the start/end block hashes. */
  private addressHistory(addresses: string[], start: number, end: number): ChainStoreReplies['addressHistory'] {
    const tip = this.index.tip!;
    if (!this.indexes.addressIndex) return null;
    const deltas = addresses.flatMap((a) => this.indexes.historyAt(a, start, end).map((d) => ({ ...d, address: a })));
    const hashAt = (h: number): string | null => (h >= 0 && h <= tip.height ? (this.index.atHeight(h)?.hash ?? null) : null);
    return { deltas, tip: { hash: tip.hash, height: tip.height }, startHash: hashAt(start), endHash: hashAt(end) };
  }

  /**
   * getaddressbalance's balance and received over address keys (null when -addressindex is off), with
   * the tip: each address's running totals, added once per time it is listed (komodod appends each
   * listed address's GetAddressIndex rows to one vector, so an address given twice counts twice).
   */
  private addressTotals(addresses: string[]): ChainStoreReplies['addressTotals'] {
    const tip = this.index.tip!;
    if (!this.indexes.addressIndex) return null;
    let balance = 0n;
    let received = 0n;
    for (const a of addresses) {
      const t = this.indexes.historyTotalsAt(a);
      balance += t.balance;
      received += t.received;
    }
    return { balance, received, tip: { hash: tip.hash, height: tip.height } };
  }

  /** The unspent outputs of address keys (null when -addressindex is off), with the tip. */
  private addressUtxos(addresses: string[]): ChainStoreReplies['addressUtxos'] {
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
    const params = base.afterTip(tip.height, tip.header.time, (h) => this.index.atHeight(h)?.header.time ?? 0);
    if (params !== this.currentParams) this.opts.publishParams?.(params);
    this.currentParams = params;
  }

  // ---- loading -------------------------------------------------------------------------------

  async load(): Promise<void> {
    const dir = this.opts.dir;
    this.store = BlockStore.open(dir, this.opts.magic ?? this.opts.baseParams?.messageStart ?? DEFAULT_MAGIC, this.opts.reindex, this.opts.cacheBytes);
    this.indexes = new ChainIndexes(this.store.db, this.opts.addressIndex ?? true);
    this.tokens = new TokenIndex(this.store.db, this.log);
    this.supply = new SupplyIndex(this.store.db);
    this.orders = new OrderIndex(this.store.db);
    if (hasSchema1(dir)) {
      if ((this.store.schema ?? 0) >= 2) {
        // An upgrade committed and was killed before it removed the old files.
        removeSchema1(dir);
        this.log('removed blocks.db and chainstate.db, left by an upgrade whose new chain state had committed');
      } else {
        await this.migrateSchema1();
      }
    }
    let reindex = this.opts.reindex ?? false;
    if (!reindex && this.store.db.getMeta<boolean>('reindexing')) {
      // komodod's fReindex flag: a reindex stopped before it had read every block file starts again.
      this.log('reindex: the last -reindex was interrupted; reindexing again');
      reindex = true;
    }
    const storedAddressIndex = this.store.db.getMeta<boolean>('addressIndex');
    if (!reindex && storedAddressIndex === false && this.indexes.addressIndex) {
      // komodod's init: an address index switched on is built by a reindex.
      this.log('set addressindex, will reindex. could take a while.');
      reindex = true;
    }
    if (reindex) {
      // Loaded while the block files are read: it writes the blocks connected after that.
      if (this.opts.writeThread) {
        const magic = this.opts.magic ?? this.opts.baseParams?.messageStart ?? DEFAULT_MAGIC;
        this.writer = WriteThread.start({ dir, magic, addressIndex: this.indexes.addressIndex, ...(this.opts.cacheBytes !== undefined ? { cacheBytes: this.opts.cacheBytes } : {}) }, this.log);
      }
      try {
        this.reindex();
      } catch (e) {
        await this.stopWriter();
        throw e;
      }
    } else {
      if (this.store.db.isEmpty()) {
        if (this.store.files.list().some((n) => this.store.files.sizeOf(n) > 0)) {
          throw new ChainStateDamaged(`${this.store.files.dir} holds block files but there is no chain state indexing them (${this.store.db.path})`);
        }
        this.storeGenesis();
      }
      this.loadIndex();
      this.recoverTail();
      if ((this.store.schema ?? CHAIN_SCHEMA_VERSION) < CHAIN_SCHEMA_VERSION) this.startIndexUpgrade();
    }
    if (storedAddressIndex !== this.indexes.addressIndex) {
      // Recorded either way (komodod records only a switch on): history kept while it was off is missing, so switching it on again reindexes.
      this.store.db.write(() => this.store.db.putMeta('addressIndex', this.indexes.addressIndex));
    }

    const tipHash = this.store.db.getMeta<string>('tip');
    const tip = tipHash ? this.index.get(tipHash) : undefined;
    if (!tip) throw new ChainStateDamaged(`the chain state ${this.store.db.path} is damaged: its tip ${tipHash ?? '(none)'} is not in its block index`);
    // The tip's bytes are where the index says (one block read: the files and the index agree).
    this.store.held(tip.hash, tip.pos);
    this.index.setActiveTip(tip);
    this.trackParams();
    // An upgrade from an older layout indexes the chain it had (validated when it was received).
    const upgradeTip = this.store.db.getMeta<string>('upgradeTip');
    if (upgradeTip) this.finishIndexUpgrade(upgradeTip);
    if (!this.store.db.getMeta<boolean>('staleTxs')) this.fillStaleTxs();
    this.log(`chain loaded: height ${this.index.height}, tip ${this.index.tip.hash}, ${this.index.size} blocks known`);
    // A stored branch with more work than the recorded tip (a block taken up from the files' tail,
    // a reindex, or a reconsidered branch) is taken up now, with full validation.
    try {
      // Nobody reads a load's notices (the actor starts after it): a sink that keeps none, so a long
      // catch-up from the block files does not hold every connected block, parsed, until it ends.
      await this.activateBestChain(Object.assign([] as ChainStoreNotice[], { push: () => 0 }));
    } finally {
      await this.stopWriter();
    }
    this.readable = true;
  }

  /**
   * What a ChainReader reads (chain-reader.ts): the environment and the indexes, once loaded (no write
   * thread left, the tip recorded) and until the close starts.
   */
  readSource(): { db: ChainDb; indexes: ChainIndexes } | undefined {
    return this.readable ? { db: this.store.db, indexes: this.indexes } : undefined;
  }

  /**
   * Schema 2 (block index in LMDB, the other indexes replayed at every start), 3 (no token index),
   * 4 (no value pools), 5 (no address balances), 6 (no coin supply totals) or 7 (no history or token
   * holder totals, no order index) to 8: the indexes are built once from the active chain, from genesis, then kept.
   * Recorded first (tip back to genesis, the tip to reach as upgradeTip, the new schema) so that a
   * kill midway goes on from where it was.
   */
  private startIndexUpgrade(): void {
    const tip = this.store.db.getMeta<string>('tip')!;
    const genesis = this.opts.rules.genesis.hashHex();
    this.log(`upgrading the chain state to schema ${CHAIN_SCHEMA_VERSION}: the UTXO set and the indexes are built once from the block files, up to ${tip}`);
    this.store.db.write(() => {
      this.clearIndexes();
      this.store.db.putMeta('upgradeTip', tip);
      this.store.db.putMeta('tip', genesis);
      this.store.putSchema();
    });
  }

  /**
   * Connects the recorded active chain up to `target` into the indexes, one write transaction per
   * block with its tip, without running the scripts again (these blocks were validated when they
   * were received, by the layout being upgraded), progress logged.
   */
  private finishIndexUpgrade(target: string): void {
    const to = this.index.get(target);
    if (!to) throw new ChainStateDamaged(`the chain state ${this.store.db.path} is damaged: the upgrade's tip ${target} is not in its block index`);
    const path = this.index.path(this.index.fork(to), to);
    const step = Math.max(1000, Math.ceil(path.length / 10));
    path.forEach((entry, k) => {
      const { block, txids, txStarts } = this.store.peek(entry.hash, entry.pos);
      this.store.db.write(() => this.writeEffects(entry, block, txids, txStarts));
      this.index.setActiveTip(entry);
      if ((k + 1) % step === 0) this.log(`upgrade: ${k + 1} of ${path.length} blocks indexed`);
    });
    this.store.db.write(() => this.store.db.removeMeta('upgradeTip'));
    this.trackParams();
    this.log(`upgrade: ${path.length} blocks indexed, tip ${to.hash}`);
  }

  /** A new chain state: the genesis block, first in the first block file (as komodod writes it). */
  private storeGenesis(): void {
    const genesis = this.opts.rules.genesis;
    const raw = genesis.toRaw();
    const pos = this.store.append(raw);
    this.store.db.write(() => {
      this.store.putRecord({ hash: genesis.hashHex(), seq: 0, pos, txCount: genesis.txs.length, header: genesis.header });
      this.store.db.putMeta('tip', genesis.hashHex());
      this.store.db.putMeta('failed', []);
      this.store.putSchema();
    });
  }

  /** The block index from its records (headers only: no block is read). */
  private loadIndex(): void {
    const genesisHash = this.opts.rules.genesis.hashHex();
    const failed = new Set(this.store.db.getMeta<string[]>('failed') ?? []);
    for (const r of this.store.db.allBlocks()) {
      const isGenesis = this.index.size === 0;
      if (isGenesis && r.hash !== genesisHash) {
        throw new ChainStateDamaged(`the chain state ${this.store.db.path} starts at block ${r.hash}, not at this chain's genesis ${genesisHash}`);
      }
      if (!isGenesis && !this.index.has(toHexReversed(r.header.prevHash))) {
        throw new ChainStateDamaged(`the chain state ${this.store.db.path} is damaged: the parent of block ${r.hash} is not in its block index`);
      }
      this.index.add(r.header, r.pos, r.txCount, failed.has(r.hash), r.seq);
    }
    if (this.index.size === 0) throw new ChainStateDamaged(`the chain state ${this.store.db.path} is damaged: its block index is empty`);
    this.index.setActiveTip(this.index.atHeight(0) ?? this.index.get(genesisHash)!);
  }

  /** Whole blocks written after the last commit are taken up; a torn tail is cut off. */
  private recoverTail(): void {
    const cut = this.store.recoverTail((pos, raw) => {
      const taken = this.acceptStored(raw, pos);
      if (taken) this.log(`took up block ${taken} (written to ${blockFileName(pos.file)} before the process was stopped, not yet indexed)`);
    });
    for (const c of cut) {
      this.log(`${blockFileName(c.file)}: cut off a torn tail of ${c.bytes} bytes at ${c.at} (a write cut short when the process was killed)`);
    }
    if (cut.length > 0 || this.unrecorded.length > 0) this.commit(() => this.store.db.putMeta('blockFile', { file: this.store.files.appendFile, size: this.store.files.appendSize }));
  }

  /**
   * A block read from the block files (the tail after the last commit, or -reindex) joins the
   * index when its parent is known and it passes the checks a received block passes; returns its
   * hash, or undefined when it is not taken (unreadable, known already, or failing a check).
   */
  private acceptStored(raw: Uint8Array, pos: BlockPos, parsed?: { block: Block; txStarts: number[] }, keep = false): string | undefined {
    let block: Block;
    let txStarts: number[] = [];
    try {
      if (parsed) ({ block, txStarts } = parsed);
      else block = Block.fromRaw(raw, txStarts);
    } catch {
      return undefined;
    }
    const hash = block.hashHex();
    if (this.index.has(hash)) return undefined;
    const prev = this.index.get(toHexReversed(block.header.prevHash));
    if (!prev) return undefined;
    const txHashes = txHashesOf(raw, txStarts);
    try {
      this.opts.rules.checkBlock(block, prev.height + 1, { size: raw.length, txHashes, txSizes: txSizesOf(txStarts) });
      this.opts.rules.checkHeader(block.header, this.prevContext(prev), this.now());
    } catch (e) {
      // e: whatever the rules threw (a ValidationError carries komodod's reason).
      this.log(`block ${hash} in ${blockFileName(pos.file)} at ${pos.pos} is not taken: ${(e as { reason?: string }).reason ?? String(e)}`);
      return undefined;
    }
    this.unrecorded.push(this.index.add(block.header, pos, block.txs.length, prev.failed));
    // Checked against its merkle root just now: its connect uses these bytes and txids, not a second read.
    if (keep) this.justRead = { hash, block, raw, txStarts, txHashes, txids: txHashes.map((x) => toHexReversed(x)) };
    return hash;
  }

  /** An invalid block's parsed form goes (it is not read again unless reconsidered). */
  private forgetParsed(hash: string): void {
    this.store.forgetParsed(hash);
  }

  private recordOf(e: BlockEntry) {
    return { hash: e.hash, seq: this.index.orderOf(e.hash), pos: e.pos, txCount: e.txCount, header: e.header };
  }

  /**
   * One write transaction: the records of blocks stored since the last one (their bytes are
   * fsynced already), then what `fn` writes. A received block that connects at once is indexed in
   * the same transaction as its effects and the new tip.
   */
  private commit(fn?: () => void): void {
    this.store.db.write(() => this.recordAnd(fn));
  }

  /** commit() through ChainDb.writeVisible: settles once a read sees the tip `tip` it records, its data.mdb sync left running. */
  private async commitVisible(fn: () => void, tip: string): Promise<void> {
    await this.store.db.writeVisible(
      () => this.recordAnd(fn),
      () => this.store.db.getMeta<string>('tip') === tip,
    );
  }

  /** Inside a write transaction: the records of blocks stored since the last one, then `fn`. */
  private recordAnd(fn?: () => void): void {
    for (const e of this.unrecorded) this.store.putRecord(this.recordOf(e));
    this.unrecorded.length = 0;
    fn?.();
  }

  /**
   * -reindex (LoadExternalBlockFile over every block file): the chain state is emptied and every
   * record of the block files is read in order, a block whose parent is not known yet kept aside
   * (by position) until its parent comes. Each block indexed is connected at once, with full
   * validation, when it extends the active tip (komodod's LoadExternalBlockFile hands each block to
   * ProcessNewBlock, which connects it), from the bytes and txids its checks just used; a better
   * branch than the one connected so far is taken up by load() after the scan. A kill before the
   * scan ends starts the reindex again (the `reindexing` mark, komodod's fReindex).
   */
  private reindex(): void {
    const genesis = this.opts.rules.genesis;
    const genesisHash = genesis.hashHex();
    this.log(`reindex: rebuilding the chain state ${this.store.db.path} from the block files in ${this.store.files.dir}`);
    // Emptied and marked in one transaction: a kill from here on restarts the reindex. The
    // -addressindex setting is recorded again at once: the indexes are rebuilt with it.
    this.store.db.write(() => {
      this.store.db.clear();
      this.clearIndexes();
      this.store.db.putMeta('reindexing', true);
      this.store.db.putMeta('addressIndex', this.indexes.addressIndex);
      this.store.db.putMeta('failed', []);
      this.store.putSchema();
    });
    this.store.forget();
    const files = this.store.files.list();
    const waiting = new Map<string, BlockPos[]>();
    let lastEnd: { file: number; end: number } = { file: 0, end: 0 };
    let indexed = 0;
    const take = (raw: Uint8Array, pos: BlockPos): boolean => {
      // Parsed once: its header places it, and acceptStored checks the same parse.
      let parsed: { block: Block; txStarts: number[] };
      try {
        const txStarts: number[] = [];
        parsed = { block: Block.fromRaw(raw, txStarts), txStarts };
      } catch {
        return false;
      }
      const header = parsed.block.header;
      const hash = header.hashHex();
      if (this.index.size === 0 && hash === genesisHash) {
        this.unrecorded.push(this.index.add(genesis.header, pos, genesis.txs.length));
        this.index.setActiveTip(this.index.get(genesisHash)!);
      } else if (this.index.size === 0 || !this.index.has(toHexReversed(header.prevHash))) {
        if (!this.index.has(hash)) {
          const prev = toHexReversed(header.prevHash);
          waiting.set(prev, [...(waiting.get(prev) ?? []), pos]);
        }
        return true;
      } else if (!this.acceptStored(raw, pos, parsed, true)) {
        return true;
      } else {
        this.connectRead(hash);
      }
      indexed++;
      // Blocks that were waiting for this one, and for theirs.
      const queue = [hash];
      for (let i = 0; i < queue.length; i++) {
        const children = waiting.get(queue[i]!);
        if (!children) continue;
        waiting.delete(queue[i]!);
        for (const c of children) {
          const h = this.acceptStored(this.store.files.readBlock(c), c, undefined, true);
          if (h) {
            this.connectRead(h);
            indexed++;
            queue.push(h);
          }
        }
      }
      return true;
    };
    for (const n of files) {
      this.store.files.scan(n, (pos) => {
        const ok = take(this.store.files.readBlock(pos), pos);
        if (ok) lastEnd = { file: n, end: pos.pos + pos.size };
        return ok;
      });
      this.commit();
      this.log(`reindex: ${blockFileName(n)} read, ${indexed} blocks indexed`);
    }
    this.store.files.setAppendPoint(lastEnd.file, lastEnd.end);
    const after = this.store.files.sizeOf(lastEnd.file) - lastEnd.end;
    if (after > 0) {
      // komodod pre-allocates block files in 16 MiB chunks of zeros: new blocks go right after the last one.
      this.store.files.truncate(lastEnd.file, lastEnd.end);
      this.log(`reindex: ${blockFileName(lastEnd.file)}: cut off the ${after} bytes after its last block (komodod's pre-allocated space)`);
    }
    if (this.index.size === 0) {
      // No block file holds the genesis block: it is written first, as a new chain's is.
      const pos = this.store.append(genesis.toRaw());
      this.unrecorded.push(this.index.add(genesis.header, pos, genesis.txs.length));
      this.index.setActiveTip(this.index.get(genesisHash)!);
      for (const c of waiting.get(genesisHash) ?? []) take(this.store.files.readBlock(c), c);
    }
    let unlinked = 0;
    for (const list of waiting.values()) unlinked += list.length;
    if (unlinked > 0) this.log(`reindex: ${unlinked} blocks whose parent is in no block file were left out`);
    // What the write thread has is committed first: the tip recorded here is the last block it wrote.
    this.settleWriter(0);
    this.commit(() => {
      this.store.db.putMeta('blockFile', { file: this.store.files.appendFile, size: this.store.files.appendSize });
      this.store.db.putMeta('tip', this.index.tip.hash);
      // Every block file read: what remains is connecting a better branch, if any, which any start goes on with.
      this.store.db.removeMeta('reindexing');
    });
    this.log(`reindex: ${this.index.size} blocks indexed, ${this.index.height} connected`);
  }

  /**
   * -reindex: the block just indexed is connected now when it extends the active chain (with the
   * blocks between, indexed while the write thread was loading: the scan goes on meanwhile rather
   * than wait for it, keeping them among the recent blocks); any other is left to load()'s activateBestChain after the scan, which compares
   * whole branches. One that fails is marked failed, as activateBestChain marks it.
   */
  private connectRead(hash: string): void {
    const entry = this.index.get(hash)!;
    try {
      if (entry.failed) return;
      const read = this.justRead?.hash === hash ? this.justRead : undefined;
      if (this.writer?.loading) {
        // Kept among the recent blocks (bounded by the cache) for its connect once the thread has loaded: not hashed again.
        if (read) this.store.remember(hash, read.raw, read.txStarts, read.txHashes, read.block);
        return;
      }
      const tip = this.index.tip;
      if (entry.prev !== tip.hash && this.index.ancestor(entry, tip.height) !== tip) return;
      for (const e of entry.prev === tip.hash ? [entry] : this.index.path(tip, entry)) {
        const ahead = this.writeAhead();
        // Serially, the block just read is connectEntry's from the recent blocks, not read again.
        if (!ahead && read?.hash === e.hash) this.store.remember(e.hash, read.raw, read.txStarts, read.txHashes, read.block);
        const problem = ahead ? this.connectAhead(e, this.writer!) : this.connectEntry(e, []);
        if (problem) return this.connectFailed(e, problem);
      }
    } finally {
      this.justRead = undefined;
    }
  }

  /**
   * Upgrades a schema-1 data directory (nedb blocks.db/chainstate.db): its blocks are written to
   * block files and indexed, the tip and failed blocks carried over, all committed with the schema
   * record; only then are the old files removed. A kill midway leaves the old files and no schema
   * record, and the next start does it again from the beginning.
   */
  private async migrateSchema1(): Promise<void> {
    const dir = this.opts.dir;
    const genesis = this.opts.rules.genesis;
    const genesisHash = genesis.hashHex();
    this.log('upgrading the chain data from nedb (blocks.db, chainstate.db; schema 1) to block files and LMDB');
    const old = await readSchema1(dir, genesisHash, this.log);
    // What an interrupted upgrade wrote is started over.
    this.store.db.write(() => {
      this.store.db.clear();
      this.clearIndexes();
    });
    for (const n of this.store.files.list()) this.store.files.truncate(n, 0);
    this.store.files.setAppendPoint(0, 0);
    const index = new BlockIndex();
    const records: ReturnType<ChainStoreLogic['recordOf']>[] = [];
    const add = (raw: Uint8Array) => {
      const block = Block.fromRaw(raw);
      const pos = this.store.files.append(raw);
      const e = index.add(block.header, pos, block.txs.length);
      records.push({ hash: e.hash, seq: index.orderOf(e.hash), pos, txCount: e.txCount, header: e.header });
    };
    add(genesis.toRaw());
    const step = Math.max(1000, Math.ceil(old.blocks.length / 10));
    old.blocks.forEach((b, i) => {
      add(b.raw);
      if ((i + 1) % step === 0) this.log(`upgrade: ${i + 1} of ${old.blocks.length} blocks written to block files`);
    });
    const tip = old.tip ?? genesisHash;
    if (!index.has(tip)) {
      throw new Error(`chain tip ${tip} is not among the stored blocks: the data directory is damaged: restore it from a backup or start on a new -datadir`);
    }
    this.store.files.sync();
    // The indexes are built from genesis up to the old tip by load() (finishIndexUpgrade), a kill
    // midway going on from where it was.
    this.store.db.write(() => {
      for (const r of records) this.store.putRecord(r);
      this.store.db.putMeta('tip', genesisHash);
      this.store.db.putMeta('upgradeTip', tip);
      this.store.db.putMeta('failed', old.failed.filter((h) => index.has(h)));
      this.store.putSchema();
    });
    removeSchema1(dir);
    this.log(`upgrade: ${old.blocks.length + 1} blocks in ${this.store.files.list().length} block files, tip ${tip}; blocks.db and chainstate.db removed`);
  }

  /** A block's bytes, txids and transaction starts. */
  private held(entry: BlockEntry) {
    return this.store.held(entry.hash, entry.pos);
  }

  /** A block, parsed (kept among the recent ones). */
  private blockOf(entry: BlockEntry): Block {
    return this.store.block(entry.hash, entry.pos);
  }

  async close(): Promise<void> {
    this.readable = false;
    await this.store?.close();
  }

  // ---- requests ------------------------------------------------------------------------------

  isWrite(body: ChainStoreRequest): boolean {
    return WRITE_OPS.has(body.op);
  }

  read(body: ChainStoreRequest): ChainStoreReplies[keyof ChainStoreReplies] {
    switch (body.op) {
      case 'tip':
        return this.tipInfo();
      case 'params':
        return this.currentParams ?? null;
      case 'blockHash': {
        const e = this.index.atHeight(body.height);
        return e ? e.hash : null;
      }
      case 'entry':
        return this.entryInfo(body.hash);
      case 'block':
        return this.blockInfo(body.hash);
      case 'rawBlock': {
        // A block's entry and bytes, not parsed (a peer's getdata).
        const e = this.index.get(body.hash);
        return e ? { ...this.entryInfo(e.hash)!, raw: this.held(e).raw } : null;
      }
      case 'tx':
        return this.txInfo(body.txid);
      // The token registry's reads (tokeninfo, tokenlist, tokenbalance...).
      case 'tokenInfo':
        return this.tokens.info(body.tokenid);
      case 'tokenList':
        return this.tokens.list();
      case 'tokenOutputs':
        return this.tokens.outputsAt(body.tokenid, body.addressHash);
      case 'tokenOutputsPage':
        return { ...this.tokens.outputsPageAt(body.tokenid, body.addressHash, body.after, body.limit, body.minValue ?? 0n), tip: this.index.tip.hash };
      case 'tokenBalance': {
        let balance = this.tokens.totalAt(body.tokenid, body.addressHash);
        for (const v of this.tokens.valuesAt(body.tokenid, body.addressHash, body.spent)) balance -= v;
        return balance;
      }
      case 'assetOrders':
        return this.orders.ordersAt(body.addressHash, body.filter);
      case 'txs':
        // Several lookups in one message (the token registry's rounds of missing transactions).
        return body.txids.map((txid) => this.txInfo(txid));
      case 'ccContext':
        // The mempool's crypto-condition validation context, fetched in one message before it validates.
        return this.ccContext(body.txids, body.shallow);
      case 'haveCoins':
        return body.txids.map((txid) => this.indexes.hasCoinsOf(txid));
      case 'inChain':
        // Whether each transaction is in the active chain (the tx index only, no transaction read).
        return body.txids.map((txid) => this.indexes.hasTx(txid));
      case 'txHeights':
        // The active-chain height of each transaction, null when in none (the tx index only: the wallet's load).
        return body.txids.map((txid) => this.indexes.txLocation(txid)?.height ?? null);
      case 'coins':
        return body.outpoints.map(([txid, n]) => this.indexes.coin(txid, n) ?? null);
      case 'spent':
        return this.indexes.spentBy(body.txid, body.n) ?? null;
      case 'addressUnspent':
        // body.address: addressKey(type, hash160) of coins.ts
        return this.indexes.unspentAt(body.address);
      case 'addressUnspentPage':
        // A page of GetAddressUnspent's walk (key order from the cursor `after`, outputs ≥ minValue).
        return { ...this.indexes.unspentPageAt(body.address, body.after, body.limit, body.minValue ?? 0n), tip: this.index.tip.hash };
      case 'addressBalance':
        return this.indexes.balanceAt(body.address);
      case 'addressHistory':
        // body.addresses: address keys; GetAddressIndex per address, concatenated in the order asked.
        return this.addressHistory(body.addresses, body.start ?? 0, body.end ?? 0);
      case 'addressTotals':
        return this.addressTotals(body.addresses);
      case 'addressUtxos':
        // GetAddressUnspent per address, concatenated, with the tip they were read at (chainInfo).
        return this.addressUtxos(body.addresses);
      case 'template':
        return this.templateContext();
      case 'view':
        return this.mempoolView(body.txid, body.outpoints);
      case 'views': {
        // One view per transaction of a burst, all at the same tip (its part computed once).
        const tipPart = this.tipView();
        return body.items.map((i) => this.mempoolView(i.txid, i.outpoints, tipPart));
      }
      // P2P reads (the p2p actor): locators, headers/blocks after a locator, what is known of hashes.
      case 'locator':
        return this.locator(body.from);
      case 'headersAfter':
        return this.headersAfter(body.locator, body.stop, body.max);
      case 'known':
        return body.hashes.map((h) => {
          const e = this.index.get(h);
          return e ? { height: e.height, chainWork: e.chainWork, active: this.index.isActive(e), failed: e.failed } : null;
        });
      case 'coinsByScript':
        return this.coinsByScript(body.scripts, body.ccSubScripts);
      case 'txsByScript':
        return this.txsByScript(body.scripts);
      // RPC reads (getrawtransaction, getblock, getblockchaininfo).
      case 'spentMany':
        return this.spentMany(body.outpoints);
      case 'outputsOf':
        return this.outputsOf(body.outpoints);
      case 'valuePools':
        return this.valuePools(body.hash);
      case 'bestHeader':
        return this.bestHeader();
      case 'staleTx':
        return this.staleTx(body.txid);
      case 'networkHashPS':
        return this.networkHashPS(body.lookup, body.height);
      case 'recentVersions': {
        // nVersion of the tip and its ancestors, newest first (SoftForkMajorityDesc's window).
        const out: number[] = [];
        for (let h = this.index.height; h >= 0 && out.length < (body.count); h--) out.push(this.index.atHeight(h)!.header.version);
        return out;
      }
      case 'chainTips':
        return this.chainTips();
      case 'coinSupply': {
        // komodo_coinsupply sums heights 1..height: genesis alone gives 0 (and komodod's "couldnt calculate supply").
        const e = body.height > 0 ? this.index.atHeight(body.height) : undefined;
        const r = e ? this.supply.get(e.hash) : undefined;
        return r ? { supply: r.supply, zfunds: r.totalZfunds, sprout: r.totalSprout } : body.height === 0 ? { supply: 0n, zfunds: 0n, sprout: 0n } : null;
      }
      case 'timesAndBits': {
        const out: { time: number; bits: number }[] = [];
        for (let h = Math.max(0, body.from); h <= Math.min(body.to, this.index.height); h++) {
          const hd = this.index.atHeight(h)!.header;
          out.push({ time: hd.time, bits: hd.bits });
        }
        return out;
      }
      case 'snapshot':
        if (!this.indexes.addressIndex) return null;
        return { height: this.index.height, ...this.indexes.snapshot.totals(), top: this.indexes.snapshot.top(body.top) };
      case 'verifyChain':
        return verifyDB(
          {
            tipHeight: this.index.height,
            atHeight: (h) => this.index.atHeight(h)!,
            readRaw: (e) => this.store.files.readBlock(e.pos),
            undoOf: (h) => this.indexes.undoOf(h),
            coin: (t, n) => this.indexes.coin(t, n),
            tx: (t) => this.txInfo(t)?.tx,
            rules: this.opts.rules,
            // nCoinCacheUsage: -dbcache's share, at about 150 bytes per coin held in memory.
            maxOverlayCoins: Math.floor((this.opts.cacheBytes ?? 450 * 1024 * 1024) / 150),
            log: this.log,
          },
          body.level,
          body.depth,
        );
      case 'utxoStats': {
        const tip = this.index.tip;
        const st = this.indexes.utxoStats(tip.hash);
        return { height: tip.height, bestblock: tip.hash, transactions: st.transactions, txouts: st.txouts, bytesSerialized: st.bytesSerialized, hashSerialized: toHexReversed(st.hashSerialized), totalAmount: st.totalAmount };
      }
      default:
        throw noSuchOp('chainStore', body);
    }
  }

  async write(body: ChainStoreRequest): Promise<WriteOutcome<ChainStoreNotice>> {
    const notices: ChainStoreNotice[] = [];
    switch (body.op) {
      case 'submitBlock':
        return { result: await this.submitBlock(body.raw, notices), notices };
      case 'invalidateBlock':
        await this.invalidateBlock(body.hash, notices);
        return { result: null, notices };
      case 'reconsiderBlock':
        await this.reconsiderBlock(body.hash, notices);
        return { result: null, notices };
      default:
        throw noSuchOp('chainStore', body);
    }
  }

  summary(): Record<string, unknown> {
    return { height: this.index.height, tip: this.index.tip.hash, blocksKnown: this.index.size, utxos: this.indexes.coinCount };
  }

  // ---- reads ---------------------------------------------------------------------------------

  tipInfo(): TipInfo {
    const tip = this.index.tip;
    return { hash: tip.hash, height: tip.height, time: tip.header.time, bits: tip.header.bits, chainWork: tip.chainWork, mtp: this.mtp(tip) };
  }

  private entryInfo(hash: string): EntryInfo | null {
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
      chainTx: e.chainTx,
      mtp: this.mtp(e),
      prev: e.prev,
      next: next?.hash ?? null,
      failed: e.failed,
    };
  }

  private blockInfo(hash: string): BlockInfo | null {
    const e = this.index.get(hash);
    if (!e) return null;
    const h = this.held(e);
    return { ...this.entryInfo(hash)!, raw: h.raw, block: this.blockOf(e), txids: h.txids };
  }

  private txInfo(txid: string): ChainTx | null {
    const loc = this.indexes.txLocation(txid);
    if (!loc) return null;
    const e = this.index.get(loc.blockHash)!;
    const tx = loc.offset !== undefined ? this.store.readTx(e.hash, e.pos, loc.offset, loc.length!, loc.index) : this.store.txAt(e.hash, e.pos, loc.index);
    return { tx, blockHash: loc.blockHash, height: loc.height, index: loc.index, time: e.header.time, confirmations: this.index.height - loc.height + 1 };
  }

  /** Empties every index kept with the chain state (an upgrade, -reindex, a migration). Inside a write transaction. */
  private clearIndexes(): void {
    this.indexes.clear();
    this.tokens.clear();
    this.supply.clear();
    this.orders.clear();
  }

  private chainState(): ChainStateParts {
    return { db: this.store.db, indexes: this.indexes, tokens: this.tokens, supply: this.supply, orders: this.orders };
  }

  /**
   * The confirmed transactions a CC validation reads: each of `txids` with ccReads of it (one level
   * down), and each of `shallow` alone. Those not in the chain are left out: the validator's lookup
   * finds nothing, as it would have asked the tx index directly.
   */
  private ccContext(txids: string[], shallow: string[]): [string, Transaction][] {
    const found = new Map<string, Transaction | null>();
    const get = (txid: string): Transaction | null => {
      let tx = found.get(txid);
      if (tx === undefined) found.set(txid, (tx = this.txInfo(txid)?.tx ?? null));
      return tx;
    };
    for (const txid of txids) {
      const tx = get(txid);
      if (tx) for (const next of ccReads(tx)) get(next);
    }
    for (const txid of shallow) get(txid);
    return [...found].filter((e): e is [string, Transaction] => e[1] !== null);
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
  private tipView(): TipView {
    const tip = this.index.tip;
    return { height: tip.height, hash: tip.hash, time: tip.header.time, mtp: this.mtp(tip), params: this.currentParams };
  }

  /**
   * What the mempool needs to judge a transaction against the chain, read in one step so it is
   * consistent: the tip, the coins its inputs name, whether each missing input's transaction is
   * confirmed (spent, rather than unknown), and whether the transaction itself has unspent outputs.
   */
  mempoolView(txid: string, outpoints: Outpoint[], tipPart = this.tipView()): ChainView {
    const coins = outpoints.map(([t, n]) => this.indexes.coin(t, n) ?? null);
    const confirmed = outpoints.map(([t], i) => coins[i] !== null || this.indexes.hasTx(t));
    const own = this.txInfo(txid);
    const hasUnspentOutputs = !!own && own.tx.vout.some((_, n) => this.indexes.hasCoin(txid, n));
    // Built as the mempool's readViews builds a view read through the reader, these properties in this
    // order: one object shape for both, so the mempool's checks stay monomorphic (a spread made a second
    // shape, and V8 deoptimised checkContextFree on `view.time` when the first burst after a block met it).
    return { height: tipPart.height, hash: tipPart.hash, time: tipPart.time, mtp: tipPart.mtp, params: tipPart.params, coins, confirmed, hasUnspentOutputs };
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
  txsByScript(scripts: string[]): ChainStoreReplies['txsByScript'] {
    const want = new Set(scripts);
    const ours = new Set<string>();
    const out: { txid: string; tx: Transaction; height: number; time: number }[] = [];
    for (let h = 0; h <= this.index.height; h++) {
      const e = this.index.atHeight(h)!;
      // A pass over the whole chain: it does not churn the recent blocks.
      const { block, txids } = this.store.peek(e.hash, e.pos);
      block.txs.forEach((tx, i) => {
        const txid = txids[i]!;
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

  coinsByScript(scripts: string[], ccSubScripts: string[] = []): ScriptCoins {
    const want = new Set(scripts);
    const wantCC = new Set(ccSubScripts);
    const matches = (script: Uint8Array): boolean => {
      const hex = Buffer.from(script.buffer, script.byteOffset, script.byteLength).toString('hex');
      if (want.has(hex)) return true;
      if (wantCC.size === 0) return false;
      // A direct push of the condition, then OP_CHECKCRYPTOCONDITION (0xcc).
      const len = script[0]!;
      return len > 0 && len < 0x4c && script[len + 1] === 0xcc && wantCC.has(hex.slice(0, (len + 2) * 2));
    };
    const out: { txid: string; n: number; coin: Coin }[] = [];
    // Through the address unspent index (kept whatever -addressindex says): the addresses the
    // scripts and CC sub-scripts are filed under, so the cost is the wallet's coins, not the UTXO
    // set's. A script filed under no address (nonstandard) falls back to one pass over the set.
    const addresses = new Set<string>();
    let indexed = true;
    for (const hex of want) {
      const keys = addressKeysOf(Buffer.from(hex, 'hex'));
      if (keys.length === 0) indexed = false;
      for (const k of keys) addresses.add(k);
    }
    for (const hex of wantCC) addresses.add(addressKey(3, hash160(Buffer.from(hex, 'hex'))));
    if (indexed) {
      const seen = new Set<string>();
      for (const a of addresses) {
        for (const u of this.indexes.unspentAt(a)) {
          const k = outpointKey(u.txid, u.index);
          if (seen.has(k) || !matches(u.script)) continue;
          seen.add(k);
          const coin = this.indexes.coin(u.txid, u.index);
          if (coin) out.push({ txid: u.txid, n: u.index, coin });
        }
      }
      // The order of a pass over the UTXO set (outpoint key order).
      out.sort((x, y) => Buffer.from(x.txid, 'hex').reverse().compare(Buffer.from(y.txid, 'hex').reverse()) || x.n - y.n);
    } else {
      for (const { txid, n, coin } of this.indexes.allCoins()) if (matches(coin.script)) out.push({ txid, n, coin });
    }
    const tip = this.index.tip;
    return { height: tip.height, hash: tip.hash, mtp: this.mtp(tip), coins: out };
  }

  // ---- RPC reads -----------------------------------------------------------------------------

  /** The spent index for each outpoint, with the spent output's value and script (from the txindex). */
  spentMany(outpoints: Outpoint[]): (SpentOutput | null)[] {
    return outpoints.map(([txid, n]) => {
      const s = this.indexes.spentBy(txid, n);
      if (!s) return null;
      const out = this.txInfo(txid)?.tx.vout[n];
      return { ...s, value: out?.value ?? null, script: out?.script ?? null };
    });
  }

  /** Outputs of confirmed transactions (spent or not), by the txindex. */
  outputsOf(outpoints: Outpoint[]): ChainStoreReplies['outputsOf'] {
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
   * A transaction found only in a block off the active chain: the transaction and the block it was in
   * when that block was last disconnected (komodod's txindex keeps a disconnected block's entry), or
   * null. A block stored but never connected is not in komodod's txindex (only ConnectBlock writes
   * it): its transactions are not found.
   */
  staleTx(txid: string): ChainStoreReplies['staleTx'] {
    const loc = this.indexes.staleTxLocation(txid);
    if (!loc) return null;
    const e = this.index.get(loc.blockHash);
    // Its block connected again: the row is shadowed by the active chain's (the 'tx' read).
    if (!e || this.index.isActive(e)) return null;
    const tx = loc.length ? this.store.readTx(e.hash, e.pos, loc.offset!, loc.length, loc.index) : this.store.txAt(e.hash, e.pos, loc.index);
    return { tx, blockHash: e.hash };
  }

  /**
   * A chain state from before staleTxs was kept: the transactions of every block connected once (its
   * value pools are stored) and off the active chain now get their rows, once. Which of two such
   * blocks holding one transaction was disconnected last is not recorded: the later received wins.
   */
  private fillStaleTxs(): void {
    this.commit(() => {
      for (const e of this.index.all()) {
        if (this.index.isActive(e) || !this.indexes.poolsOf(e.hash)) continue;
        const h = this.held(e);
        this.indexes.putStaleBlock(h.txids, e.hash, e.height, h.txStarts);
      }
      this.store.db.putMeta('staleTxs', true);
    });
  }

  /**
   * getchaintips: the heads of the block tree (kept as blocks arrive) and the active tip, highest
   * first; komodod breaks height ties by CBlockIndex address, acnode by arrival order.
   */
  chainTips(): ChainTip[] {
    const heads = new Set(this.index.leafEntries());
    heads.add(this.index.tip);
    const sorted = [...heads].sort((a, b) => b.height - a.height || this.index.orderOf(a.hash) - this.index.orderOf(b.hash));
    return sorted.map((e) => {
      const fork = this.index.fork(e);
      let status: ChainTip['status'];
      if (this.index.isActive(e)) status = 'active';
      else if (e.failed) status = 'invalid';
      // acnode indexes a block only with its bytes (nChainTx is never 0: no 'headers-only'); a block
      // that was connected once has its value pools stored (BLOCK_VALID_SCRIPTS), any other was only
      // accepted (BLOCK_VALID_TREE).
      else if (this.indexes.poolsOf(e.hash)) status = 'valid-fork';
      else status = 'valid-headers';
      return { height: e.height, hash: e.hash, branchlen: e.height - fork.height, status };
    });
  }

  /** pindexBestHeader, kept by the block index as entries are added. */
  bestHeader(): ChainStoreReplies['bestHeader'] {
    const best = this.index.bestHeader;
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
    const stored = this.storedPools(entry);
    if (stored) return stored;
    // Not stored (genesis, a block not connected since): walk back to the first block with known
    // totals, then forward.
    const path: BlockEntry[] = [];
    let e: BlockEntry | undefined = entry;
    let prev: PoolValues | null = null;
    for (; e; e = this.index.parent(e)) {
      if (this.poolTotals.has(e.hash)) {
        prev = this.poolTotals.get(e.hash)!;
        break;
      }
      const s = this.storedPools(e);
      if (s) {
        prev = s.total;
        break;
      }
      path.push(e);
    }
    for (let i = path.length - 1; i >= 0; i--) {
      const b = path[i]!;
      const d = this.poolDelta(b);
      const total = b.prev === null ? d : prev && d ? addPools(prev, d) : null;
      this.poolTotals.set(b.hash, total);
      prev = total;
    }
    return { delta: this.poolDelta(entry), total: this.poolTotals.get(hash) ?? null };
  }

  /** The value pools stored when the block connected. */
  private storedPools(entry: BlockEntry): { delta: PoolValues | null; total: PoolValues | null } | undefined {
    const p = this.indexes.poolsOf(entry.hash);
    return p ? { delta: p.delta ? poolsFrom(p.delta) : null, total: p.total ? poolsFrom(p.total) : null } : undefined;
  }

  /** Inside the write transaction connecting `entry` on this thread: its effects on every index and the tip (writeBlockEffects). */
  private writeEffects(entry: BlockEntry, block: Block, txids: readonly string[], txStarts: ArrayLike<number>, readBefore?: (prevout: TxOutpoint) => StoredCoin | undefined): void {
    const parent = this.index.parent(entry);
    writeBlockEffects(
      this.chainState(),
      { hash: entry.hash, height: entry.height, prev: entry.prev, block, txids, txStarts },
      parent ? (this.valuePools(parent.hash)?.total ?? null) : null,
      (id) => this.txInfo(id)?.tx,
      readBefore,
    );
  }

  /** A block's value-pool change, figured from its stored bytes and undo data (or its inputs' transactions off the active chain), kept once figured. */
  private poolDelta(entry: BlockEntry): PoolValues | null {
    const known = this.poolDeltas.get(entry.hash);
    if (known !== undefined) return known;
    const undo = this.index.isActive(entry) ? this.indexes.undoOf(entry.hash)?.spent : undefined;
    const { block, txids } = this.store.peek(entry.hash, entry.pos);
    const result = poolDeltaOf(block, txids, entry.prev === null, undo ? undoValues(undo) : lookupValues((id) => this.txInfo(id)?.tx));
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

  private async submitBlock(raw: Uint8Array, notices: ChainStoreNotice[]): Promise<SubmitResult> {
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
    const prevHash = toHexReversed(block.header.prevHash);
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
    // AcceptBlock runs ContextualCheckBlock before it writes the block (main.cpp:5590-5615): a block
    // failing it is never stored. Nor is it remembered as failed: komodod treats a failure within
    // 50,000 blocks of Sapling's activation (any young chain) as a "future block", so a resubmission
    // is checked again.
    try {
      this.opts.rules.checkContextual(block, height);
    } catch (e) {
      return this.rejection(e, hash);
    }

    // The bytes are fsynced before the record that points at them commits.
    const pos = this.store.append(raw);
    const entry = this.index.add(block.header, pos, block.txs.length);
    this.unrecorded.push(entry);
    this.store.remember(hash, raw, txStarts, txHashes, block);
    let failure: { rejectCode: number; reason: string } | undefined;
    try {
      failure = await this.activateBestChain(notices);
    } finally {
      // Stored but not connected (a side branch), or connecting failed: indexed on its own.
      if (this.unrecorded.length > 0) this.commit();
    }
    if (entry.failed) {
      return { status: 'rejected', hash, rejectCode: failure?.rejectCode ?? 16, reason: failure?.reason ?? 'invalid block' };
    }
    return this.index.isActive(entry) ? { status: 'connected', hash, height } : { status: 'stored', hash, height };
  }

  private rejection(e: unknown, hash?: string): SubmitResult {
    // e: whatever was thrown; its fields are checked before use (a ValidationError carries them).
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
  private async activateBestChain(notices: ChainStoreNotice[]): Promise<{ rejectCode: number; reason: string } | undefined> {
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

  private async activateBestChainSteps(notices: ChainStoreNotice[]): Promise<{ rejectCode: number; reason: string } | undefined> {
    let lastFailure: { rejectCode: number; reason: string } | undefined;
    for (;;) {
      const best = this.index.betterTips()[0];
      if (!best) break;
      const fork = this.index.fork(best);
      const path = this.index.path(fork, best);
      while (this.index.tip !== fork) this.disconnectTip(notices);
      let failedAt: BlockEntry | undefined;
      for (const entry of path) {
        const problem = this.writeAhead() ? this.connectAhead(entry, this.writer!) : await this.connectTip(entry, notices);
        if (problem) {
          lastFailure = problem;
          failedAt = entry;
          break;
        }
      }
      // Everything handed to the write thread is committed before anything else is written.
      this.settleWriter(0);
      if (failedAt) this.connectFailed(failedAt, lastFailure!);
    }
    return lastFailure;
  }

  /** A block that failed to connect is marked failed, with its descendants, and recorded so. */
  private connectFailed(entry: BlockEntry, problem: { rejectCode: number; reason: string }): void {
    this.settleWriter(0);
    this.index.markFailed(entry);
    // An invalid block is not read again unless reconsidered: its parsed form goes now.
    this.forgetParsed(entry.hash);
    this.log(`block ${entry.hash} at height ${entry.height} is invalid: ${problem.reason}`);
    this.saveFailed();
  }

  /** -reindex's connect of a block on the tip (a synchronous walk over the block files): connectTip with a commit that syncs before it returns. */
  private connectEntry(entry: BlockEntry, notices: ChainStoreNotice[]): { rejectCode: number; reason: string } | undefined {
    const checked = this.checkConnect(entry);
    if ('reason' in checked) return checked;
    this.commit(checked.write);
    this.connected(entry, checked.block, checked.txids, notices);
    return undefined;
  }

  /**
   * Connects a block on the tip (ConnectTip): its checks, then its effects on every index and the
   * new tip in one write transaction, which is visible (to the next block's connect and every read)
   * when this settles, its sync to the disk still running (ChainDb.writeVisible). Reads answered
   * while it commits see the tip before it, in memory and in the chain state alike: the tip moves
   * here once the commit is visible, before any other event is handled.
   */
  private async connectTip(entry: BlockEntry, notices: ChainStoreNotice[]): Promise<{ rejectCode: number; reason: string } | undefined> {
    const checked = this.checkConnect(entry);
    if ('reason' in checked) return checked;
    // Its commit moves the tip to it (writeBlockEffects): a read that finds that tip sees the commit.
    await this.commitVisible(checked.write, entry.hash);
    this.connected(entry, checked.block, checked.txids, notices);
    return undefined;
  }

  /** ConnectBlock's checks of a block on the tip: what its commit writes, or why it does not connect. */
  private checkConnect(entry: BlockEntry): { rejectCode: number; reason: string } | { block: Block; txids: string[]; write: () => void } {
    const h = this.held(entry);
    const block = this.blockOf(entry);
    const view = this.connectView(entry.hash, entry.height);
    try {
      this.opts.rules.connect(block, entry.height, view, h.txids);
    } catch (e) {
      // e: whatever the rules threw; its fields are checked before use.
      const v = e as { rejectCode?: number; reason?: string };
      if (typeof v?.rejectCode === 'number' && typeof v.reason === 'string') return { rejectCode: v.rejectCode, reason: v.reason };
      return { rejectCode: 16, reason: e instanceof Error ? e.message : String(e) };
    }
    // The block's effects on every index and the new tip: one write transaction.
    return { block, txids: h.txids, write: () => this.writeEffects(entry, block, h.txids, h.txStarts, view.readBefore) };
  }

  /** A block's connect has committed: the tip moves to it. */
  private connected(entry: BlockEntry, block: Block, txids: string[], notices: ChainStoreNotice[]): void {
    this.index.setActiveTip(entry);
    this.trackParams();
    notices.push({ type: 'blockConnected', hash: entry.hash, height: entry.height, block, txids } satisfies BlockConnected);
    if (entry.height % 100 === 0 || entry.txCount > 1) this.log(`connected block ${entry.height} ${entry.hash} (${entry.txCount} txs)`);
  }

  /** Whether blocks connect through the write thread: it loaded (block records waiting for a commit go with its next block). */
  private writeAhead(): boolean {
    const w = this.writer;
    if (!w) return false;
    if (this.pending.size > 0 || w.ready()) return true;
    this.log('reindex: the write thread did not load; blocks are written on the chain store\'s thread');
    void this.stopWriter();
    return false;
  }

  /**
   * connectEntry with the write thread: the block is verified here, against the committed state and
   * the blocks still being written, then handed over; this thread goes on to verify the next one
   * while it is written. A block that fails is never handed over: what was is committed first.
   */
  private connectAhead(entry: BlockEntry, writer: WriteThread): { rejectCode: number; reason: string } | undefined {
    // The block the scan just read, else read once and not kept: a reindex reads each block once, and the recent blocks' cache would only churn.
    const h = this.justRead?.hash === entry.hash ? this.justRead : this.store.peek(entry.hash, entry.pos);
    const block = h.block;
    const { view, changes } = this.pending.view(entry.hash, entry.height, { coin: (txid, n) => this.indexes.coin(txid, n), tx: (txid) => this.txInfo(txid)?.tx });
    try {
      this.opts.rules.connect(block, entry.height, view, h.txids);
    } catch (e) {
      this.settleWriter(0);
      // e: whatever the rules threw; its fields are checked before use.
      const v = e as { rejectCode?: number; reason?: string };
      if (typeof v?.rejectCode === 'number' && typeof v.reason === 'string') return { rejectCode: v.rejectCode, reason: v.reason };
      return { rejectCode: 16, reason: e instanceof Error ? e.message : String(e) };
    }
    // The parent's value pools, when they are committed (nothing in flight); else the thread reads those it wrote.
    const parent = this.pending.size === 0 ? this.index.parent(entry) : undefined;
    const before = parent ? (this.valuePools(parent.hash)?.total ?? null) : null;
    writer.post({
      hash: entry.hash,
      height: entry.height,
      prev: entry.prev,
      raw: h.raw,
      txStarts: Uint32Array.from(h.txStarts),
      txids: h.txids,
      // Indexed since the last job (this block's own among them): written in its transaction.
      records: this.unrecorded.splice(0).map((e) => ({ hash: e.hash, value: encodeRecord(this.recordOf(e)) })),
      ...(this.pending.size === 0 ? { parentTotal: before && poolsArray(before) } : {}),
    });
    this.pending.push(changes);
    // The tip moves now, as connectEntry's does: the next block's rules follow it (Sapling's activation).
    this.index.setActiveTip(entry);
    this.trackParams();
    this.settleWriter(WRITE_AHEAD);
    return undefined;
  }

  /** Waits until at most `ahead` blocks are being written; those committed leave the pending view, and reads see them. */
  private settleWriter(ahead: number): void {
    const w = this.writer;
    if (!w) return;
    w.waitUntil(ahead);
    let moved = false;
    while (this.pending.size > w.inFlight) {
      const e = this.index.get(this.pending.shift()!.hash)!;
      if (e.height % 100 === 0 || e.txCount > 1) this.log(`connected block ${e.height} ${e.hash} (${e.txCount} txs)`);
      moved = true;
    }
    if (moved) this.store.db.refresh();
  }

  private async stopWriter(): Promise<void> {
    const w = this.writer;
    if (!w) return;
    this.writer = undefined;
    this.pending.clear();
    await w.stop();
  }

  /**
   * The UTXO set overlaid with the effects of the block's earlier transactions (blockView); and, once
   * the checks have run, the stored bytes of the chain coins they read (readBefore), which the
   * block's index writes file as undo data without reading or decoding them again.
   */
  private connectView(hash: string, height: number): ConnectView & { readBefore: (prevout: TxOutpoint) => StoredCoin | undefined } {
    // By txid, then n (blockView says why).
    const raws = new Map<string, StoredCoin[]>();
    const { view, changes } = blockView(hash, height, {
      coin: (txid, n) => {
        const e = this.indexes.coinEntry(txid, n);
        if (e) {
          let outs = raws.get(txid);
          if (outs === undefined) raws.set(txid, (outs = []));
          outs[n] = e;
        }
        return e?.coin;
      },
      tx: (txid) => this.txInfo(txid)?.tx,
    });
    // What coin() answered for the outpoint: an earlier transaction's output before the chain's.
    return {
      ...view,
      readBefore: (prevout) => {
        const txid = prevout.txid();
        // An output of the block's own transactions (createdCoin's): not the chain's.
        if (changes.txs.get(txid)?.vout[prevout.index]) return undefined;
        return raws.get(txid)?.[prevout.index];
      },
    };
  }

  private disconnectTip(notices: ChainStoreNotice[]): void {
    const tip = this.index.tip;
    const parent = this.index.parent(tip);
    if (!parent) throw new Error('cannot disconnect the genesis block');
    const h = this.held(tip);
    const block = this.blockOf(tip);
    this.commit(() => {
      this.tokens.disconnect(tip.hash, tip.height);
      this.indexes.disconnect(block.txs, h.txids, tip.hash, tip.height);
      this.supply.disconnect(tip.hash);
      this.orders.disconnect(tip.hash);
      this.store.db.putMeta('tip', parent.hash);
    });
    this.index.setActiveTip(parent);
    this.trackParams();
    notices.push({ type: 'blockDisconnected', hash: tip.hash, height: tip.height, block, txids: h.txids } satisfies BlockDisconnected);
    this.log(`disconnected block ${tip.height} ${tip.hash}`);
  }

  private saveFailed(): void {
    this.commit(() => this.store.db.putMeta('failed', this.failedHashes()));
  }

  private failedHashes(): string[] {
    const out: string[] = [];
    for (const e of this.index.failedEntries()) out.push(e.hash);
    return out;
  }

  private async invalidateBlock(hash: string, notices: ChainStoreNotice[]): Promise<void> {
    const entry = this.index.get(hash);
    if (!entry) throw new ServiceFailure(-5, 'Block not found');
    if (entry.height === 0) throw new ServiceFailure(-8, 'cannot invalidate the genesis block');
    if (this.index.isActive(entry)) {
      while (this.index.tip.height >= entry.height) this.disconnectTip(notices);
    }
    this.index.markFailed(entry);
    this.saveFailed();
    await this.activateBestChain(notices);
  }

  private async reconsiderBlock(hash: string, notices: ChainStoreNotice[]): Promise<void> {
    const entry = this.index.get(hash);
    if (!entry) throw new ServiceFailure(-5, 'Block not found');
    this.index.clearFailed(entry);
    this.saveFailed();
    await this.activateBestChain(notices);
  }
}
