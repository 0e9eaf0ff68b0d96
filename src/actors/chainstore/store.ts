import { Block, txHashesOf } from '../../chain/block/block.js';
import { buildMerkleTree } from '../../chain/block/merkle.js';
import { equalBytes, toHexReversed } from '../../chain/encoding/hex.js';
import { Transaction } from '../../chain/tx/transaction.js';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { BlockFiles, blockFileName, type BlockPos } from './blockfiles.js';
import { ChainDb, ChainStateDamaged, CHAIN_SCHEMA_VERSION, type BlockRecord } from './chaindb.js';
import { BackgroundFsync } from './background-fsync.js';

export { CHAIN_SCHEMA_VERSION } from './chaindb.js';

/** A block's bytes with its txids and where each transaction starts in them. */
export interface Held {
  raw: Uint8Array;
  /** Transaction i is raw[txStarts[i], txStarts[i + 1]). */
  txStarts: Uint32Array;
  txids: string[];
}

/** What the block files' append point is recorded as: the last file and its committed size. */
interface AppendPoint {
  file: number;
  size: number;
}

/**
 * Recent blocks kept, most recently used last: their bytes and txids (at most RECENT_BLOCKS, and the
 * cache's bytes), and the newest of them parsed (at most PARSED_BLOCKS, and an eighth of the bytes:
 * a parsed transaction takes several times its bytes). Everything older is read back from the block
 * files when asked for.
 */
const RECENT_BLOCKS = 256;
const PARSED_BLOCKS = 8;
const DEFAULT_CACHE_BYTES = 16_000_000;

/**
 * The chain's durable part: raw blocks in komodod's block files (`blocks/blk*.dat`) and the block
 * index, tip and failed blocks in the LMDB environment (`chaindb/`). A block's bytes are appended
 * and fsynced before the transaction that indexes them commits, so the index never points at bytes
 * that are not there; bytes written after the last commit (a kill in between) are taken up again at
 * start when they are whole, and cut off when torn.
 */
export class BlockStore {
  private readonly recent = new Map<string, Held>();
  private recentBytes = 0;
  private readonly parsed = new Map<string, { block: Block; bytes: number }>();
  private parsedBytes = 0;

  private readonly recentMax: number;
  private readonly parsedMax: number;
  /** Appended blocks are fsynced here while they are checked and indexed; every commit waits for it. */
  private readonly fsync = new BackgroundFsync();

  private constructor(
    readonly db: ChainDb,
    readonly files: BlockFiles,
    cacheBytes: number,
  ) {
    this.recentMax = cacheBytes;
    this.parsedMax = Math.floor(cacheBytes / 8);
    db.beforeCommit = () => this.fsync.wait();
  }

  static dbPath(dir: string): string {
    return join(dir, 'chaindb');
  }

  static blocksDir(dir: string): string {
    return join(dir, 'blocks');
  }

  /**
   * Opens the environment and the block files; a damaged environment is refused (ChainStateDamaged).
   * `reindex`: the environment is about to be rebuilt, so one that cannot be opened is removed and
   * made anew (one that opens is emptied by the reindex's first write transaction, so a kill before it
   * leaves the old state whole).
   */
  static open(dir: string, magic: Uint8Array, reindex = false, cacheBytes = DEFAULT_CACHE_BYTES): BlockStore {
    let db: ChainDb;
    try {
      db = ChainDb.open(BlockStore.dbPath(dir));
    } catch (e) {
      if (!reindex || !(e instanceof ChainStateDamaged)) throw e;
      rmSync(BlockStore.dbPath(dir), { recursive: true, force: true });
      db = ChainDb.open(BlockStore.dbPath(dir));
    }
    const files = new BlockFiles(BlockStore.blocksDir(dir), magic);
    const store = new BlockStore(db, files, cacheBytes);
    const schema = db.getMeta<number>('schema');
    if (schema !== undefined && schema > CHAIN_SCHEMA_VERSION) {
      throw new Error(`chain data schema ${schema} is newer than this acnode understands (${CHAIN_SCHEMA_VERSION}): upgrade acnode`);
    }
    if (!reindex && schema === undefined && db.blockCount > 0) throw new ChainStateDamaged(`the chain state ${db.path} is damaged: it has no schema record`);
    const point = db.getMeta<AppendPoint>('blockFile');
    if (point) files.setAppendPoint(point.file, point.size);
    return store;
  }

  get schema(): number | undefined {
    return this.db.getMeta<number>('schema');
  }

  // ---- writing -------------------------------------------------------------------------------

  /**
   * Appends a block to the block files and starts its fsync, which the next write transaction waits
   * for before it commits (so nothing that indexes it commits before its bytes are on the disk).
   */
  append(raw: Uint8Array): BlockPos {
    const pos = this.files.append(raw);
    this.fsync.start(this.files.takeUnsynced());
    return pos;
  }

  /** Inside db.write(): the block-index record of a stored block, and the files' new append point. */
  putRecord(r: BlockRecord): void {
    this.db.putBlock(r);
    this.db.putMeta('blockFile', { file: this.files.appendFile, size: this.files.appendSize } satisfies AppendPoint);
  }

  /**
   * Inside db.write(): the schema this layout is. Every caller starts the indexes afresh, so they keep
   * the stale transactions' rows from here on (ChainIndexes' staleTxs): none is to be filled in.
   */
  putSchema(): void {
    this.db.putMeta('schema', CHAIN_SCHEMA_VERSION);
    this.db.putMeta('staleTxs', true);
  }

  // ---- the tail after the last commit --------------------------------------------------------

  /**
   * The records written after the last committed one (a kill between a block's fsync and its
   * commit, or a write cut short), in order, each offered to `take` as its position and bytes;
   * the first place that is not a whole record ends the files there (a torn tail is truncated).
   * Returns what was cut off, if anything.
   */
  recoverTail(take: (pos: BlockPos, raw: Uint8Array) => void): { file: number; at: number; bytes: number }[] {
    const point = this.db.getMeta<AppendPoint>('blockFile') ?? { file: 0, size: 0 };
    const cut: { file: number; at: number; bytes: number }[] = [];
    const present = this.files.list().filter((n) => n >= point.file);
    for (const n of present) {
      const from = n === point.file ? point.size : 0;
      const size = this.files.sizeOf(n);
      if (size < from) {
        throw new ChainStateDamaged(
          `block file ${this.files.path(n)} is ${size} bytes, shorter than the ${from} bytes the chain state ${this.db.path} says were written to it`,
        );
      }
      const it = this.files.records(n, from);
      let r = it.next();
      while (!r.done) {
        take(r.value, this.files.readBlock(r.value));
        r = it.next();
      }
      const end = r.value.end;
      if (end < size) {
        this.files.truncate(n, end);
        cut.push({ file: n, at: end, bytes: size - end });
      }
      this.files.setAppendPoint(n, end);
    }
    if (present.length === 0 && point.size > 0) {
      throw new ChainStateDamaged(`block file ${this.files.path(point.file)} is missing (the chain state ${this.db.path} says ${point.size} bytes were written to it)`);
    }
    return cut;
  }

  // ---- reading -------------------------------------------------------------------------------

  /** Keeps a block just received among the recent ones (its bytes, txids and parsed form are at hand). */
  remember(hash: string, raw: Uint8Array, txStarts: readonly number[], txHashes: readonly Uint8Array[], block?: Block): Held {
    const h: Held = { raw, txStarts: Uint32Array.from(txStarts), txids: txHashes.map((x) => toHexReversed(x)) };
    this.keepRecent(hash, h);
    if (block) this.keepParsed(hash, block, raw.length);
    return h;
  }

  /** A block's bytes and txids: from the recent ones, else read from its block file (and kept). */
  held(hash: string, pos: BlockPos): Held {
    const kept = this.recent.get(hash);
    if (kept) {
      this.recent.delete(hash);
      this.recent.set(hash, kept);
      return kept;
    }
    const raw = this.files.readBlock(pos);
    const txStarts: number[] = [];
    const { block, txHashes } = this.readChecked(hash, pos, raw, txStarts);
    return this.remember(hash, raw, txStarts, txHashes, block);
  }

  /** A block, parsed: from the recent ones, else from its bytes (and kept among the recent). */
  block(hash: string, pos: BlockPos): Block {
    const kept = this.parsed.get(hash);
    if (kept) {
      this.parsed.delete(hash);
      this.parsed.set(hash, kept);
      return kept.block;
    }
    const h = this.held(hash, pos);
    const block = Block.fromRaw(h.raw);
    this.keepParsed(hash, block, h.raw.length);
    return block;
  }

  /** A block, parsed, with its txids and transaction starts, without keeping it (passes over many blocks must not churn the recent ones). */
  peek(hash: string, pos: BlockPos): { block: Block; raw: Uint8Array; txids: string[]; txStarts: ArrayLike<number> } {
    const kept = this.parsed.get(hash)?.block;
    const recent = this.recent.get(hash);
    if (kept && recent) return { block: kept, raw: recent.raw, txids: recent.txids, txStarts: recent.txStarts };
    if (recent) return { block: Block.fromRaw(recent.raw), raw: recent.raw, txids: recent.txids, txStarts: recent.txStarts };
    const raw = this.files.readBlock(pos);
    const txStarts: number[] = [];
    const { block, txHashes } = this.readChecked(hash, pos, raw, txStarts);
    return { block, raw, txids: txHashes.map((x) => toHexReversed(x)), txStarts };
  }

  /**
   * A block read back from its file, parsed and checked to be the indexed block: its header hashes to
   * the hash, and its transactions to the header's merkle root (bytes changed anywhere in it are
   * found, not served). Damage is ChainStateDamaged, pointing at -reindex.
   */
  private readChecked(hash: string, pos: BlockPos, raw: Uint8Array, txStarts: number[]): { block: Block; txHashes: Uint8Array[] } {
    const where = `block ${hash} in ${blockFileName(pos.file)} at ${pos.pos}`;
    let block: Block;
    try {
      block = Block.fromRaw(raw, txStarts);
    } catch (e) {
      throw new ChainStateDamaged(`${where} is damaged (${(e as Error).message})`);
    }
    if (block.hashHex() !== hash) throw new ChainStateDamaged(`${where} is damaged (its bytes hash to ${block.hashHex()})`);
    const txHashes = txHashesOf(raw, txStarts);
    if (!equalBytes(buildMerkleTree(txHashes).root, block.header.merkleRoot)) {
      throw new ChainStateDamaged(`${where} is damaged (its transactions do not hash to its merkle root)`);
    }
    return { block, txHashes };
  }

  /** Transaction i of a block, read alone (from the parsed block when it is at hand). */
  txAt(hash: string, pos: BlockPos, i: number): Transaction {
    const kept = this.parsed.get(hash)?.block;
    if (kept) return kept.txs[i]!;
    const h = this.held(hash, pos);
    return Transaction.fromRaw(h.raw.subarray(h.txStarts[i], h.txStarts[i + 1]));
  }

  /** A transaction read alone from the block files: `offset` and `length` within its block's bytes. */
  readTx(hash: string, pos: BlockPos, offset: number, length: number, i: number): Transaction {
    const kept = this.parsed.get(hash)?.block;
    if (kept) return kept.txs[i]!;
    const recent = this.recent.get(hash);
    if (recent) return Transaction.fromRaw(recent.raw.subarray(offset, offset + length));
    return Transaction.fromRaw(this.files.read(pos.file, pos.pos + offset, length));
  }

  private keepRecent(hash: string, h: Held): void {
    const old = this.recent.get(hash);
    if (old) {
      this.recent.delete(hash);
      this.recentBytes -= old.raw.length;
    }
    this.recent.set(hash, h);
    this.recentBytes += h.raw.length;
    while (this.recent.size > 1 && (this.recent.size > RECENT_BLOCKS || this.recentBytes > this.recentMax)) {
      const [oldest, o] = this.recent.entries().next().value!;
      this.recent.delete(oldest);
      this.recentBytes -= o.raw.length;
    }
  }

  private keepParsed(hash: string, block: Block, bytes: number): void {
    const old = this.parsed.get(hash);
    if (old) {
      this.parsed.delete(hash);
      this.parsedBytes -= old.bytes;
    }
    this.parsed.set(hash, { block, bytes });
    this.parsedBytes += bytes;
    // The newest stays even alone over the byte bound: it is the one being used.
    while (this.parsed.size > 1 && (this.parsed.size > PARSED_BLOCKS || this.parsedBytes > this.parsedMax)) {
      const [oldest, o] = this.parsed.entries().next().value!;
      this.parsed.delete(oldest);
      this.parsedBytes -= o.bytes;
    }
  }

  /** Drops a block's parsed form (an invalid block is not read again unless reconsidered); its bytes may stay among the recent. */
  forgetParsed(hash: string): void {
    const kept = this.parsed.get(hash);
    if (!kept) return;
    this.parsed.delete(hash);
    this.parsedBytes -= kept.bytes;
  }

  /** Forgets what is cached (-reindex starts over). */
  forget(): void {
    this.recent.clear();
    this.parsed.clear();
    this.recentBytes = this.parsedBytes = 0;
  }

  async close(): Promise<void> {
    try {
      this.fsync.close();
    } finally {
      this.files.close();
      await this.db.close();
    }
  }
}
