import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { ChainStoreLogic } from '../../src/actors/chainstore/logic.js';
import { ChainDb } from '../../src/actors/chainstore/chaindb.js';
import { newRules, params, signedChain } from '../helpers/signed-chain.js';

/**
 * -reindex keeps the record of the -addressindex setting the chain state was built with, so that a
 * start with the index switched on after a reindex without it rebuilds the index (komodod's "set
 * addressindex, will reindex"). The reindex used to clear that record with the rest of the chain
 * state and write it back only when the setting had changed: a reindex with the index still off
 * left no record, and the next start with it on took the missing record for no switch at all.
 */

const recorded = async (dir: string): Promise<unknown> => {
  const db = ChainDb.open(join(dir, 'chaindb'));
  try {
    return db.getMeta('addressIndex');
  } finally {
    await db.close();
  }
};

test('-reindex records the -addressindex setting it built with; switched on after a reindex without it, the next start reindexes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-rxmeta-'));
  try {
    const { tip } = await signedChain(dir, 4);
    const start = async (o: { addressIndex: boolean; reindex?: boolean }) => {
      const logs: string[] = [];
      const s = new ChainStoreLogic({ dir, rules: newRules(), baseParams: params, ...o, log: (m) => logs.push(m) });
      await s.load();
      assert.equal(s.index.tip.hash, tip);
      await s.close();
      return logs;
    };
    await start({ addressIndex: true, reindex: true });
    assert.equal(await recorded(dir), true, 'recorded by the reindex itself');
    // Switched off: recorded by the start; a reindex with it still off keeps that record.
    await start({ addressIndex: false });
    assert.equal(await recorded(dir), false);
    await start({ addressIndex: false, reindex: true });
    assert.equal(await recorded(dir), false, 'kept by a reindex with the same setting');
    // Switched on: the history kept while it was off is missing, so the start reindexes.
    const logs = await start({ addressIndex: true });
    assert.ok(logs.includes('set addressindex, will reindex. could take a while.'), logs.join('\n'));
    assert.equal(await recorded(dir), true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
