import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ScriptExecutionCache } from '../../src/chain/validation/index.js';
import { SAPLING_BRANCH_ID, OVERWINTER_BRANCH_ID } from '../../src/chain/consensus/upgrades.js';

test('script execution cache: a hit needs the same txid and branch; the oldest entry leaves first', () => {
  const c = new ScriptExecutionCache(2);
  const a = 'aa'.repeat(32);
  const b = 'bb'.repeat(32);
  const d = 'dd'.repeat(32);
  c.add(a, SAPLING_BRANCH_ID);
  assert.equal(c.has(a, SAPLING_BRANCH_ID), true);
  // Another branch hashes signatures differently: no hit.
  assert.equal(c.has(a, OVERWINTER_BRANCH_ID), false);
  assert.equal(c.has(b, SAPLING_BRANCH_ID), false);
  c.add(b, SAPLING_BRANCH_ID);
  c.add(d, SAPLING_BRANCH_ID);
  assert.equal(c.size, 2);
  assert.equal(c.has(a, SAPLING_BRANCH_ID), false);
  assert.equal(c.has(d, SAPLING_BRANCH_ID), true);
  // Admitted again at another branch: that branch hits, the older one no longer does (a miss costs only a script run).
  c.add(d, OVERWINTER_BRANCH_ID);
  assert.equal(c.has(d, OVERWINTER_BRANCH_ID), true);
  assert.equal(c.has(d, SAPLING_BRANCH_ID), false);
  assert.equal(c.size, 2);
});
