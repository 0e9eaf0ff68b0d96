import Datastore from 'nedb-promises';
import { chmodSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';

export type Store<T extends { _id?: string }> = Datastore<T>;

/** A datastore file that cannot be read without guessing: a damaged record before its last line. */
export class DamagedStoreError extends Error {
  override readonly name = 'DamagedStoreError';
}

export interface OpenStoreOptions {
  /** Created 0600 in a 0700 directory (the wallet). */
  secret?: boolean;
  /** Told when a torn last record (a write cut short by a crash) was dropped. */
  log?: (msg: string) => void;
}

/**
 * Opens one nedb datastore in the data directory. Only the last appended line can be torn by a
 * killed process (nedb appends one line per write and rewrites the file on load), and every writer
 * here makes its final record idempotent and last, so a torn last line is dropped. nedb itself drops
 * every unparsable line silently when told to tolerate one, so the lines are checked here as they are
 * read: a damaged record anywhere before the last line is not a crash's doing, and the store refuses
 * to open rather than run on a silently shortened file (an older tip or failed-block record would be
 * misread as current). Secret stores (the wallet) are created 0600 in a 0700 directory.
 */
export async function openStore<T extends { _id?: string }>(dir: string, name: string, opts: OpenStoreOptions = {}): Promise<Store<T>> {
  const filename = join(dir, `${name}.db`);
  let lines = 0;
  const damaged: number[] = [];
  const db = Datastore.create({
    filename,
    autoload: false,
    // Every line is judged by the hook below; nedb's own rate check would refuse a 3-line file with a torn tail.
    corruptAlertThreshold: 1,
    afterSerialization: (s: string) => s,
    beforeDeserialization: (s: string) => {
      if (s === '') return s;
      lines++;
      try {
        JSON.parse(s);
      } catch {
        damaged.push(lines);
      }
      return s;
    },
    ...(opts.secret ? { modes: { fileMode: 0o600, dirMode: 0o700 } } : {}),
  }) as unknown as Store<T>;
  // Judge the lines before nedb compacts the file on load (which would drop the damaged lines for good).
  const persistence = (db as unknown as { persistence: { persistCachedDatabaseAsync(): Promise<void> } }).persistence;
  const compact = persistence.persistCachedDatabaseAsync.bind(persistence);
  let firstLoad = true;
  persistence.persistCachedDatabaseAsync = async () => {
    if (firstLoad) {
      firstLoad = false;
      const inner = damaged.filter((n) => n !== lines);
      if (inner.length > 0) {
        throw new DamagedStoreError(
          `${filename} is damaged: record${inner.length > 1 ? 's' : ''} on line ${inner.join(', ')} of ${lines} cannot be read ` +
            `(not a write cut short by a crash, which only tears the last line); refusing to start rather than misread it. ` +
            `Restore the data directory from a backup, or start on a new -datadir`,
        );
      }
      if (damaged.length > 0) opts.log?.(`${filename}: dropped a torn last record (a write cut short when the process was killed)`);
    }
    return compact();
  };
  await db.load();
  return db;
}

/** Rewrites the datafile one line per live document (the Proxy forwards to seald's instance). */
export async function compactStore(db: Store<{ _id?: string }>): Promise<void> {
  await (db as unknown as { compactDatafileAsync(): Promise<void> }).compactDatafileAsync();
}

/**
 * A copy of a store's file at `path`, 0600 (backupwallet). Compacted first: the copy holds one line per
 * live record and no superseded one (nedb appends each update, so an old line could still hold what a
 * later write replaced, such as a key stored before the wallet was encrypted).
 */
export async function copyStore(db: Store<{ _id?: string }>, path: string): Promise<void> {
  await compactStore(db);
  copyFileSync((db as unknown as { __original: { filename: string } }).__original.filename, path);
  chmodSync(path, 0o600);
}

/**
 * The stored document with this _id as nedb holds it in memory, without the copy a find makes (one
 * index lookup). Read-only: changing it would change nedb's own record. nedb keeps every document in
 * memory anyway, so a reader that needs one field of a few documents now and then keeps no copy.
 */
export function peekDoc<T extends { _id?: string }>(db: Store<T>, id: string): Readonly<T> | undefined {
  const inner = (db as unknown as { __original: { indexes: { _id: { getMatching(v: string): T[] } } } }).__original;
  return inner.indexes._id.getMatching(id)[0];
}
