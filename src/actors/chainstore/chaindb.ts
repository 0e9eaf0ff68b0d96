import { closeSync, existsSync, fdatasyncSync, fstatSync, openSync, readSync } from 'node:fs';
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
 * 8: the address history's totals in addressBalance, token holders' totals (tokenTotals) and the open
 *   Assets orders by address, token and owner (orderindex.ts).
 */
export const CHAIN_SCHEMA_VERSION = 8;

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
    // Whatever an earlier process wrote is on the disk before this one commits (ChainDb.open).
    fdatasyncSync(fd);
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
 * lmdb-js's TransactionFlags for write(): ABORTABLE | SYNCHRONOUS_COMMIT | NO_SYNC_FLUSH (MDB_NOSYNC
 * for the transaction). In lmdb-js's overlappingSync mode such a commit writes its pages and meta
 * page (marked "not flushed"), releases the write lock, then fdatasyncs data.mdb and writes the
 * flushed meta (lmdb-js's third meta record) before mdb_txn_commit returns: durable on return, one
 * fdatasync (strace on the connect bench: one per 500-transaction block, 1.7–22 ms on the loaded
 * 2-core machine). Every commit of the environment is of this kind (ChainDb.open says why), so the
 * sync is on the committing thread; a connecting block commits through writeVisible instead, whose
 * transaction commits and syncs on lmdb-js's write thread.
 */
export const NOSYNC_COMMIT = 3 | 0x10000;

/**
 * How long writeVisible waits, blocking, for its commit to become visible once its writes are made
 * (the commit's page writes, without any sync: well under a millisecond to a few). Past it the wait
 * goes on asynchronously, until the commit and its sync have ended: only a commit that failed, or a
 * disk stalled for this long, gets there.
 */
const VISIBLE_SPIN_MS = 2000;
/** Between two looks at whether the commit is visible. */
const VISIBLE_POLL_MS = 0.05;
const pollWait = new Int32Array(new SharedArrayBuffer(4));

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
      // Durability, from lmdb-js's overlappingSync (its default on Linux; it also sets
      // MDB_PREVSNAPSHOT), with every commit MDB_NOSYNC (NOSYNC_COMMIT, writeVisible):
      // - A commit writes its pages, then its meta page marked "not flushed" with the boot id: from
      //   then on it is visible and survives a kill -9 (the kernel holds written pages; reopened in
      //   the same boot, LMDB takes the newest meta page). Then data.mdb is fdatasynced and a flushed
      //   meta record naming the commit is written synchronously (no noMetaSync: its write is
      //   O_DSYNC), and only then does LMDB count the commit as synced.
      // - After a power loss (another boot id) LMDB passes over a newest meta page marked "not
      //   flushed" for the older one, and the flushed record over any unflushed page newer than it
      //   (mdb_pick_meta): it opens at the last commit whose sync ended, or a later one. The pages of
      //   that commit are on the disk (fdatasynced before its flushed record) and intact: a commit
      //   reuses only pages freed by commits before the last synced one (mdb_find_oldest counts that
      //   one as a reader), which no snapshot from the one before it on uses.
      // - A commit begins only once the one before it has synced: write() syncs before it returns,
      //   and writeVisible waits for every earlier sync first. So a kill leaves at most one commit
      //   without its flushed record; the next start counts the newest commit as synced, and the
      //   flushed record one behind it still names pages no later commit reuses (with two unsynced,
      //   it could be two behind). Nor is any commit made without MDB_NOSYNC: its meta page counts as
      //   flushed but no flushed record is written for it, so once a later unflushed page overwrote
      //   it, a power loss would open at an older record whose pages may have been reused.
      // - A power loss thus loses the last commits whose sync had not ended, never more, and never
      //   leaves a half-applied block. The block files are fsynced before the commit that indexes
      //   them is even visible (beforeCommit), so a block whose commit was lost is still whole in
      //   them, past the append point the surviving commit records, and taken up at start (recoverTail).
      // checkMetaPages fdatasynced data.mdb: a meta page that an earlier process wrote without its
      // sync (acnode before this layout wrote them with noMetaSync, or a kill before a sync ended) is
      // on the disk before this process's first commit overwrites the other meta page.
      env = open({ path, maxDbs: 32 });
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
   * Called in every write transaction after its puts, before it commits (a throw aborts it): the
   * block store waits there for the fsync of block bytes appended before (background-fsync.ts).
   */
  beforeCommit: (() => void) | undefined;

  /** A writeVisible between its start and its commit becoming visible (or failing): nothing else may write meanwhile. */
  private visiblePending = false;
  /** The syncs of writeVisible commits not known to have ended (settles once they have; never rejects). */
  private syncs: Promise<void> = Promise.resolve();
  private syncsPending = 0;
  /** Why a commit or its sync failed after its transaction had run: every later write fails with it. */
  private failure: Error | undefined;

  private usable(): void {
    if (this.failure) throw this.failure;
    if (this.visiblePending) throw new Error('the chain state is written while a commit of it is in flight');
  }

  /** The body of a write transaction: `fn`, then beforeCommit. */
  private body<T>(fn: () => T): () => T {
    const before = this.beforeCommit;
    return before
      ? () => {
          const out = fn();
          before();
          return out;
        }
      : fn;
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

  /**
   * Runs `fn` in one write transaction: all of its puts are committed together, or none; on return
   * the commit is visible and on the disk (NOSYNC_COMMIT).
   */
  write<T>(fn: () => T): T {
    this.usable();
    // Begins once every earlier sync has ended (ChainDb.open): a writeVisible's may still be running.
    if (this.syncsPending > 0) this.flush();
    try {
      return this.env.transactionSync(this.body(fn), NOSYNC_COMMIT) as T;
    } finally {
      // Committed (or not): the held snapshot predates it.
      this.releaseHeld();
    }
  }

  /**
   * Runs `fn` in one write transaction committed on lmdb-js's write thread, and resolves with what
   * it returned once the commit is visible to every reader, while data.mdb's sync for it may still
   * be running there: the commit survives a kill of the process from then on, and a power loss once
   * that sync ends (ChainDb.open). `seen` reads what `fn` wrote (say, the tip it moves to) and must
   * be false before the commit: nothing is stored to tell. A throw in `fn` (or beforeCommit) aborts
   * the whole transaction and is rethrown. `fn` runs on this thread, in a later turn of the event
   * loop: nothing else writes meanwhile (write() refuses to), and readers see the state before it
   * until it is visible. (komodod's submitblock answers once ActivateBestChain has connected the
   * block to its coins cache, which FlushStateToDisk writes out later.)
   */
  async writeVisible<T>(fn: () => T, seen: () => boolean): Promise<T> {
    this.usable();
    this.visiblePending = true;
    try {
      // Every earlier sync ends before this commit begins (ChainDb.open).
      if (this.syncsPending > 0) await this.syncs;
      if (this.failure) throw this.failure;
      let outcome: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
      let ran!: () => void;
      const hasRun = new Promise<void>((resolve) => (ran = resolve));
      const body = this.body(fn);
      // A child transaction: abortable (a throw undoes every put of it), which lmdb-js's batch transaction is not.
      const done = this.env.childTransaction(() => {
        try {
          outcome = { ok: true, value: body() };
        } catch (e) {
          outcome = { ok: false, error: e };
          throw e;
        } finally {
          ran();
        }
      });
      this.syncsPending++;
      this.syncs = Promise.all([this.syncs, done]).then(
        () => {
          this.syncsPending--;
        },
        (e: unknown) => {
          this.syncsPending--;
          // A commit or sync that failed after `fn` ran: what readers saw may not be on the disk.
          if (outcome?.ok) this.failure ??= new Error(`the chain state's commit could not be written to the disk (${e instanceof Error ? e.message : String(e)}): restart the node`);
        },
      );
      // Resumed in the microtasks after lmdb-js's callback, once it has handed the transaction back
      // to its write thread, and before any other event: no reader runs between the commit becoming
      // visible and the caller going on from here.
      await hasRun;
      if (!outcome?.ok) {
        await this.syncs;
        throw outcome ? outcome.error : new Error("the chain state's write transaction did not run");
      }
      if (!this.waitVisible(seen)) {
        // Failed, or a disk stalled: the commit's end settles it.
        await done;
        if (!this.isVisible(seen)) throw new Error("the chain state's commit is not visible after it ended");
      }
      return outcome.value;
    } finally {
      this.visiblePending = false;
      // Visible (or failed): the held snapshot predates it, and reads from here on see the commit.
      this.releaseHeld();
    }
  }

  /** Whether a read now sees what `seen` looks for (a read snapshot taken now). */
  private isVisible(seen: () => boolean): boolean {
    this.env.resetReadTxn();
    return seen();
  }

  /** Waits here (blocking, up to VISIBLE_SPIN_MS) until `seen` finds the commit; whether it did. */
  private waitVisible(seen: () => boolean): boolean {
    const until = performance.now() + VISIBLE_SPIN_MS;
    for (;;) {
      if (this.isVisible(seen)) return true;
      if (performance.now() > until) return false;
      Atomics.wait(pollWait, 0, 0, VISIBLE_POLL_MS);
    }
  }

  /** writeVisible commits whose sync is not known to have ended yet. */
  get unsynced(): number {
    return this.syncsPending;
  }

  /** Settles once the syncs of every writeVisible commit so far have ended; throws if one failed. */
  async synced(): Promise<void> {
    await this.syncs;
    if (this.failure) throw this.failure;
  }

  /** Waits until every commit so far is on the disk (mdb_env_sync: lmdb-js's sync of the last commit, if it has not ended). */
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
    await this.syncs;
    await this.env.close();
  }
}
