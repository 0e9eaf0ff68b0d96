import Datastore from 'nedb-promises';
import { join } from 'node:path';

export type Store<T extends { _id?: string }> = Datastore<T>;

/**
 * Opens one nedb datastore in the data directory. Only the last appended line can be torn by a
 * killed process, and every writer here makes its final record idempotent and last, so a torn line
 * is dropped rather than refusing to start (nedb's default refuses above 10 % bad lines, which a
 * three-line file trips at once). Secret stores (the wallet) are created 0600 in a 0700 directory.
 */
export async function openStore<T extends { _id?: string }>(dir: string, name: string, opts: { secret?: boolean } = {}): Promise<Store<T>> {
  const db = Datastore.create({
    filename: join(dir, `${name}.db`),
    autoload: false,
    corruptAlertThreshold: 1,
    ...(opts.secret ? { modes: { fileMode: 0o600, dirMode: 0o700 } } : {}),
  }) as unknown as Store<T>;
  await db.load();
  return db;
}

/** Rewrites the datafile one line per live document (the Proxy forwards to seald's instance). */
export async function compactStore(db: Store<{ _id?: string }>): Promise<void> {
  await (db as unknown as { compactDatafileAsync(): Promise<void> }).compactDatafileAsync();
}
