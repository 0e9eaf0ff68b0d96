import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Transaction } from '../../src/chain/tx/transaction.js';
import { ChainDb } from '../../src/actors/chainstore/chaindb.js';
import { ChainIndexes } from '../../src/actors/chainstore/chainstate.js';
import { removeDir } from './daemon.js';

/** The chain store's LMDB indexes on a temporary environment, each block connected or disconnected in its own write transaction. */
export function tempIndexes(addressIndex = true) {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-ix-'));
  const db = ChainDb.open(join(dir, 'chaindb'));
  const ix = new ChainIndexes(db, addressIndex);
  return {
    ix,
    connect: (txs: Transaction[], txids: string[], hash: string, height: number) => db.write(() => ix.connect(txs, txids, hash, height)),
    disconnect: (txs: Transaction[], txids: string[], hash: string, height: number) => db.write(() => ix.disconnect(txs, txids, hash, height)),
    close: async () => {
      await db.close();
      removeDir(dir);
    },
  };
}

/** A block hash (display hex) for tests that need only distinct ones. */
export const fakeHash = (n: number): string => n.toString(16).padStart(64, '0');
