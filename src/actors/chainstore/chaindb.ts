import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database, type GetOptions, type RootDatabase, type Transaction as ReadTxn } from 'lmdb';
import { BlockHeader } from '../../chain/block/header.js';
import { fromHexReversed, toHexReversed } from '../../chain/encoding/hex.js';
import type { BlockPos } from './blockfiles.js';

/**
 * Bump when the stored layout changes; older layouts are migrated or refused, never misread.
 * 1: nedb blocks.db + chainstate.db (every index rebuilt by replay); 2: block files + LMDB block
 * index (the other indexes rebuilt by replay); 3: every chain index in LMDB, kept with the tip; 4:
 * the token registry too; 5: each connected block's value pools too; 6: address balances as running
 * totals (addressBalance); 7: komodo_coinsupply's running totals per block (supply).
 */
export const CHAIN_SCHEMA_VERSION = 7;

/** What -reindex is for: every message about damaged chain state ends with it. */
export const REINDEX_HINT = 'restart with -reindex to rebuild the chain state from the block files';

/** The chain state cannot be read as written: the node refuses to start rather than misread it. */
export class ChainStateDamaged extends Error {
  override readonly name = 'ChainStateDamaged';
  constructor(what: string) {
    super(`${what}: ${REINDEX_HINT}`);
  }
}

/** One block-index record: komodod's CDiskBlockIndex reduced to what acnode keeps. */
export interface BlockRecord {
  /** display hex */
  hash: string;
  /** arrival order (the first-received tie rule), and an order in which every parent comes first */
  seq: number;
  pos: BlockPos;
  txCount: number;
  header: BlockHeader;
}

/** The LMDB meta-page magic (MDB_MAGIC), after the page header, in both meta pages (pages 0 and 1). */
const MDB_MAGIC = 0xbeefc0de;
const META_MAGIC_AT = 24;
const META_PAGESIZE_AT = 48;

/**
 * LMDB reads its two meta pages on open and trusts what they point to (a garbled meta page crashed
 * the process rather than fail): both are checked here first, so a damaged environment is refused
 * with a message. (Pages after them are LMDB's to judge.)
 */
function checkMetaPages(path: string): void {
  const file = join(path, 'data.mdb');
  if (!existsSync(file)) return;
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const head = Buffer.alloc(64);
    const damaged = (what: string) => new ChainStateDamaged(`the chain state ${path} is damaged: ${what}`);
    if (size === 0) return;
    if (readSync(fd, head, 0, 64, 0) < 64 || head.readUInt32LE(META_MAGIC_AT) !== MDB_MAGIC) throw damaged('data.mdb does not start with an LMDB meta page');
    const pageSize = head.readUInt32LE(META_PAGESIZE_AT);
    if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0 || size < 2 * pageSize) throw damaged(`data.mdb's meta page gives a page size of ${pageSize} for a file of ${size} bytes`);
    if (readSync(fd, head, 0, 64, pageSize) < 64 || head.readUInt32LE(META_MAGIC_AT) !== MDB_MAGIC) throw damaged('the second LMDB meta page of data.mdb is not one');
  } finally {
    closeSync(fd);
  }
}

/** seq, file, pos, size, txCount (u32 LE each), then the serialised header. */
const FIXED = 20;

/** A block-index record as stored: what putBlock writes, and what another thread is handed to write (putEncodedBlock). */
export function encodeRecord(r: BlockRecord): Buffer {
  const header = r.header.toRaw();
  const b = Buffer.allocUnsafe(FIXED + header.length);
  b.writeUInt32LE(r.seq, 0);
  b.writeUInt32LE(r.pos.file, 4);
  b.writeUInt32LE(r.pos.pos, 8);
  b.writeUInt32LE(r.pos.size, 12);
  b.writeUInt32LE(r.txCount, 16);
  b.set(header, FIXED);
  return b;
}

/**
 * lmdb-js's TransactionFlags: ABORTABLE | SYNCHRONOUS_COMMIT (its default), and with NO_SYNC_FLUSH
 * (MDB_NOSYNC for the transaction).
 *
 * Why a connecting block still waits for an fdatasync of data.mdb (measured with strace on the
 * connect bench: one per 500-transaction block, 1.7–22 ms on the loaded 2-core machine, a few ms
 * typical, beside ~10 ms of index writes): in lmdb-js's overlappingSync mode a NO_SYNC_FLUSH commit
 * writes its pages and meta, releases the write lock and then syncs inside mdb_txn_commit, on the
 * committing thread, before it returns (UNSYNCED_COMMIT is not cheaper here: strace counts the same
 * fdatasync per commit); its asynchronous transactions commit on lmdb-js's write thread but resolve
 * only after that sync too, with no signal when the commit became visible; and `noSync` without
 * overlappingSync leaves integrity to the file system keeping write order, which ext4 does not
 * (LMDB: "a system crash can corrupt the database"). komodod's LevelDB writes are unsynced with a
 * periodic flush; matching that needs the commit off this thread with a visibility signal.
 */
const SYNCED_COMMIT = 3;
const UNSYNCED_COMMIT = 3 | 0x10000;

/**
 * The chain's LMDB environment (`<datadir>/chaindb/`): named databases in one environment, so that
 * what one block changes is committed in one write transaction. `meta` holds the schema, the tip,
 * the failed blocks and the block files' committed sizes; `blocks` the block index, keyed by the
 * block hash (internal byte order).
 */
export class ChainDb {
  private constructor(
    readonly path: string,
    private readonly env: RootDatabase,
    private readonly meta: Database<unknown, string>,
    private readonly blocks: Database<Buffer, Buffer>,
  ) {}

  static open(path: string): ChainDb {
    checkMetaPages(path);
    let env: RootDatabase;
    let meta: Database<unknown, string>;
    let blocks: Database<Buffer, Buffer>;
    try {
      // Durability: each block's commit fdatasyncs its data pages, then writes its meta page
      // unsynced (noMetaSync). A kill -9 leaves exactly the last commit (the kernel keeps written
      // pages); a power loss may undo the last commit (its meta page not yet on the disk) but never
      // breaks the environment: a commit never overwrites the pages of the two commits before it,
      // so whichever meta page survives points at synced pages. The block files are fsynced before
      // the commit (beforeCommit), so a block whose record is undone that way is still in them,
      // taken up again at start (recoverTail). lmdb-js's overlappingSync (its default on Linux, in
      // force here) also keeps a flushed meta and, after a reboot, rolls back a commit made without
      // its sync (the reindex's); it does not take the sync off the committing thread (SYNCED_COMMIT).
      env = open({ path, maxDbs: 32, noMetaSync: true });
      meta = env.openDB<unknown, string>({ name: 'meta' });
      blocks = env.openDB<Buffer, Buffer>({ name: 'blocks', keyEncoding: 'binary', encoding: 'binary' });
      // A first read: a damaged environment often opens and fails here.
      meta.get('schema');
    } catch (e) {
      throw new ChainStateDamaged(`the chain state ${path} cannot be opened (${e instanceof Error ? e.message : String(e)})`);
    }
    return new ChainDb(path, env, meta, blocks);
  }

  /** A named database of binary keys and values in this environment (the chain state's indexes). */
  index(name: string): Database<Buffer, Buffer> {
    return this.env.openDB<Buffer, Buffer>({ name, keyEncoding: 'binary', encoding: 'binary' });
  }

  /**
   * Whether each commit syncs before its meta page is written. A reindex catching up turns it off
   * for its blocks and flushes once at the end (flush): a process killed meanwhile loses nothing (the
   * kernel holds every committed page), only a system crash could, and a reindex is run again. Each
   * block is still one transaction. In lmdb-js's overlappingSync mode the unsynced commit still
   * fdatasyncs, after releasing the write lock and before it returns (SYNCED_COMMIT's note): what it
   * saves is the lock held across the sync, not the sync.
   */
  flushEachCommit = true;

  /**
   * Called in every write transaction after its puts, before it commits (a throw aborts it): the
   * block store waits there for the fsync of block bytes appended before (background-fsync.ts).
   */
  beforeCommit: (() => void) | undefined;

  /** Runs `fn` in one write transaction: all of its puts are committed together, or none. */
  write<T>(fn: () => T): T {
    const before = this.beforeCommit;
    const body = before
      ? () => {
          const out = fn();
          before();
          return out;
        }
      : fn;
    try {
      return this.env.transactionSync(body, this.flushEachCommit ? SYNCED_COMMIT : UNSYNCED_COMMIT) as T;
    } finally {
      // Committed (or not): the held snapshot predates it.
      this.releaseHeld();
    }
  }

  /**
   * Read options naming one read snapshot kept across event-loop turns until the next commit (write,
   * refresh, close release it). lmdb-js renews its shared read transaction once a turn (a timer, a
   * renew and a reset per turn): in the running node, one lone sendrawtransaction a turn, the
   * mempool reader's three reads took a median of 41 µs that way, 15 µs on a kept snapshot (the
   * two alternated call by call in the running-node bench). Released at each commit, a snapshot
   * never pins the pages later commits free, and reads through it see every commit made here; a
   * commit made by another thread (the reindex's writer) is seen after refresh().
   */
  heldRead(): GetOptions {
    return (this.held ??= { transaction: this.env.useReadTransaction() });
  }

  private held: { transaction: ReadTxn } | undefined;

  /** Lets heldRead()'s snapshot go: the next heldRead() takes one at the last commit. */
  releaseHeld(): void {
    const held = this.held;
    this.held = undefined;
    held?.transaction.done();
  }

  /** Waits until every commit so far is on the disk (mdb_env_sync, forced). */
  flush(): void {
    // lmdb-js's RootDatabase.sync takes a callback (a worker thread); its native env syncs in place without one.
    (this.env as unknown as { env: { sync(): void } }).env.sync();
  }

  /**
   * Reads from here on see every commit so far, another thread's included (lmdb-js keeps a read
   * snapshot until the next event-loop turn, which a synchronous pass over many blocks never reaches).
   */
  refresh(): void {
    this.releaseHeld();
    this.env.resetReadTxn();
  }

  /** Where the block-file record of an indexed block is (its block-index record's position). */
  blockPos(hash: string): BlockPos | undefined {
    const v = this.blocks.get(Buffer.from(fromHexReversed(hash)));
    return v && v.length > FIXED ? { file: v.readUInt32LE(4), pos: v.readUInt32LE(8), size: v.readUInt32LE(12) } : undefined;
  }

  /** `read`: heldRead()'s snapshot; without it, lmdb-js's shared read transaction of this turn. */
  getMeta<T>(key: string, read?: GetOptions): T | undefined {
    return this.meta.get(key, read) as T | undefined;
  }

  /** Inside write(). */
  putMeta(key: string, value: unknown): void {
    this.meta.putSync(key, value);
  }

  /** Inside write(). */
  removeMeta(key: string): void {
    this.meta.removeSync(key);
  }

  /** Inside write(). */
  putBlock(r: BlockRecord): void {
    this.blocks.putSync(Buffer.from(fromHexReversed(r.hash)), encodeRecord(r));
  }

  /** Inside write(): a record encodeRecord encoded (the reindex's write thread writes those the chain store's thread indexed). */
  putEncodedBlock(hash: string, value: Uint8Array): void {
    this.blocks.putSync(Buffer.from(fromHexReversed(hash)), Buffer.from(value.buffer, value.byteOffset, value.length));
  }

  /** Whether nothing was ever committed here. */
  isEmpty(): boolean {
    return this.getMeta('schema') === undefined && this.blocks.getKeysCount() === 0;
  }

  get blockCount(): number {
    return this.blocks.getKeysCount();
  }

  /** Every block-index record, parents before children (arrival order). Throws ChainStateDamaged on a record that does not decode. */
  allBlocks(): BlockRecord[] {
    const out: BlockRecord[] = [];
    for (const { key, value } of this.blocks.getRange({})) {
      const hash = toHexReversed(key);
      let header: BlockHeader;
      try {
        if (key.length !== 32 || value.length <= FIXED) throw new Error('wrong length');
        header = BlockHeader.fromRaw(value.subarray(FIXED));
      } catch (e) {
        throw new ChainStateDamaged(`the chain state ${this.path} is damaged: block index record ${hash} cannot be read (${(e as Error).message})`);
      }
      if (header.hashHex() !== hash) {
        throw new ChainStateDamaged(`the chain state ${this.path} is damaged: block index record ${hash} holds the header of ${header.hashHex()}`);
      }
      out.push({
        hash,
        seq: value.readUInt32LE(0),
        pos: { file: value.readUInt32LE(4), pos: value.readUInt32LE(8), size: value.readUInt32LE(12) },
        txCount: value.readUInt32LE(16),
        header,
      });
    }
    return out.sort((a, b) => a.seq - b.seq);
  }

  /** Empties the meta and block-index databases (the start of a migration; the indexes are the caller's). Inside write(). */
  clear(): void {
    this.meta.clearSync();
    this.blocks.clearSync();
  }

  async close(): Promise<void> {
    this.releaseHeld();
    await this.env.close();
  }
}
