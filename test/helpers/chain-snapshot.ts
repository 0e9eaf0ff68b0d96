import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ChainDb } from '../../src/actors/chainstore/chaindb.js';
import { ChainIndexes } from '../../src/actors/chainstore/chainstate.js';
import type { ReadSource } from '../../src/actors/chainstore/chain-reader.js';

/**
 * A copy of a chain store's state as it is now (committed, nothing in flight), opened as a second
 * environment: a reader held at this tip while the store moves on.
 */
export function snapshotOf(dir: string, into: string): { source: ReadSource; close: () => Promise<void> } {
  mkdirSync(into, { recursive: true });
  copyFileSync(join(dir, 'chaindb', 'data.mdb'), join(into, 'data.mdb'));
  const db = ChainDb.open(into);
  const indexes = new ChainIndexes(db);
  return { source: () => ({ db, indexes }), close: () => db.close() };
}
