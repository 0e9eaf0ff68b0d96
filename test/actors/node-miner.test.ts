import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/node/config.js';
import { startNode } from '../../src/node/node.js';
import { assembleBlock, solveBlock } from '../../src/chain/block/assemble.js';
import { removeDir } from '../helpers/daemon.js';
import { waitUntil } from '../helpers/wait.js';

/**
 * `generate` faster than one block a second runs block times (at least MTP+1) ahead of the clock.
 * Past now + min(60 s, nMaxFutureBlockTime = 7 blocktimes) a block would be refused as time-too-new
 * (CheckBlockHeader's 60 s, ContextualCheckBlockHeader's 7 blocktimes) and generate would fail; the
 * miner waits for the clock instead. A regtest chain whose median time past sits at the edge of the
 * allowed future shows it at once.
 */
async function generateAtTheEdge(t: TestContext, blocktime: number, slack: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-miner-'));
  const lines: string[] = [];
  const config = loadConfig([`-datadir=${dir}`, '-regtest', '-ac_name=MINERT', `-ac_blocktime=${blocktime}`, '-rpcport=0', '-port=0', '-gen=0']);
  assert.equal(config.chain.maxFutureBlockTime, 7 * blocktime);
  const node = await startNode(config, { log: (m) => lines.push(m) });
  t.after(async () => {
    await node.stop();
    removeDir(dir);
  });
  // The node's clock (GetTime, which setmocktime sets on regtest) stands still while the test moves
  // it: how long building and mining take on this machine does not matter.
  const clock = node.services.clock!;
  let now = Math.floor(Date.now() / 1000);
  clock.setMockTime(now);
  // Blocks stamped at the edge of the allowed future (now + slack) until the median time past is
  // now + slack: so the next block must carry now + slack + 1 at least, one second too far ahead.
  const chain = node.services.chainStore;
  const edge = now + slack;
  let built = 0;
  for (let i = 0; i < 11; i++) {
    const tpl = await chain.ask({ op: 'template' });
    if (tpl.mtp >= edge) break;
    built++;
    // The node runs with chain parameters: the chain store always has them.
    const params = (await chain.ask({ op: 'params' }))!;
    const { block } = assembleBlock({ prevHash: tpl.hash, height: tpl.height + 1, bits: tpl.nextBits, mtp: tpl.mtp, params, txs: [], payTo: node.services.minerPubkey, now: edge });
    assert.ok(solveBlock(block, params));
    const r = await chain.ask({ op: 'submitBlock', raw: block.toRaw() });
    assert.equal(r.status, 'connected', `block ${i + 1}: ${'reason' in r ? r.reason : undefined}`);
  }
  const before = await chain.ask({ op: 'tip' });
  assert.equal(before.mtp, edge);
  const generating = node.services.miner.ask({ op: 'generate', n: 8 }, 120_000);
  const waitLine = new RegExp(`ahead of the clock \\(at most ${slack} s allowed\\): mining waits for it`);
  await waitUntil('the miner says it waits for the clock', () => lines.some((l) => waitLine.test(l)));
  // Past its first wait (a second) it is still waiting: no block while the clock stands still.
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal((await chain.ask({ op: 'tip' })).height, built, 'the miner waited for the clock');
  // Three seconds later the eight blocks fit: the sixth one past the edge moves the median time past.
  now += 3;
  clock.setMockTime(now);
  const hashes = await generating;
  assert.equal(hashes.length, 8);
  const tip = await chain.ask({ op: 'tip' });
  assert.equal(tip.height, built + 8);
  assert.equal(tip.hash, hashes.at(-1));
  assert.ok(tip.time <= now + slack, `the last block is within ${slack} s of the clock`);
  const waits = lines.filter((l) => waitLine.test(l));
  assert.equal(waits.length, 1, 'said once, not once per block');
  assert.ok(!lines.some((l) => /time-too-new/.test(l)), 'no block was refused as time-too-new');
  clock.setMockTime(0);
}

test('generate keeps going when block times run 7 blocktimes ahead of the clock (-ac_blocktime=1): the miner waits', { timeout: 120_000 }, (t) =>
  generateAtTheEdge(t, 1, 7),
);

// With -ac_blocktime of 9 or more, 7 blocktimes exceed CheckBlockHeader's 60 s: that rule binds.
test('generate keeps going when block times run 60 s ahead of the clock (-ac_blocktime=10): the miner waits', { timeout: 120_000 }, (t) =>
  generateAtTheEdge(t, 10, 60),
);
