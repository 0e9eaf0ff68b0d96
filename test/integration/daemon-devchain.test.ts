import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, removeDir, type Daemon } from '../helpers/daemon.js';
import { waitUntil } from '../helpers/wait.js';
import { readBlockFiles } from '../helpers/blockfiles.js';
import { Block } from '../../src/chain/block/block.js';
import { regtestGenesisBlock } from '../../src/chain/block/genesis.js';
import { toHex, toHexReversed } from '../../src/chain/encoding/hex.js';
import { devChainParams } from '../../src/chain/params/chain-params.js';
import { p2pkScript } from '../../src/chain/script/script.js';

/**
 * `npm start` (acnoded with no chain flags): the dev chain mines its premine block at once and then
 * a block every ac_blocktime (5 s) with its default -gen; block 1 pays the premine, 10,000,000 coins
 * plus the magic's low 24 bits (komodo_ac_block_subsidy), to the node's own key, P2PK.
 */

const COIN = 100_000_000n;

/** The blocks of the active chain, read from the stopped node's block files. */
function storedChain(dir: string): Block[] {
  const byPrev = new Map<string, Block>();
  for (const r of readBlockFiles(dir, devChainParams().messageStart)) {
    const block = Block.fromRaw(r.raw);
    byPrev.set(toHexReversed(block.header.prevHash), block);
  }
  const chain: Block[] = [];
  for (let at = regtestGenesisBlock().hashHex(), b = byPrev.get(at); b; at = b.hashHex(), b = byPrev.get(at)) chain.push(b);
  return chain;
}

test('npm start: the dev chain mines its premine block, then a block every ac_blocktime with -gen', { timeout: 120_000 }, async (t) => {
  let d: Daemon | undefined;
  t.after(async () => {
    await d?.stop().catch(() => {});
    if (d) removeDir(d.datadir);
  });
  const started = Date.now();
  // No flags but the harness's datadir and ports 0: exactly `npm start`'s chain.
  d = await startDaemon([]);
  // The lines after "RPC server listening" (the harness's readiness line) follow at once.
  await waitUntil('the dev chain ready line', () => d!.log.some((l) => /dev chain ready/.test(l)));
  assert.ok(d.log.some((l) => /chain ACDEV \(dev chain\)/.test(l)), d.log.join('\n'));
  assert.ok(d.log.some((l) => /dev chain ready: JSON-RPC at http:\/\/127\.0\.0\.1:\d+\/ — credentials \(rpcuser\/rpcpassword\) in .*ACDEV\.conf/.test(l)));
  const nodeKey = /node pubkey ([0-9a-f]{66})/.exec(d.log.join('\n'))?.[1];
  assert.ok(nodeKey, 'the log names the node key');
  assert.deepEqual(await d.rpc('getgenerate'), { staking: false, generate: true, numthreads: -1 });

  // Three blocks come at t≈0, 5 and 10 s after the start: waited for (a slower machine takes longer
  // to start and to mine), the node's whole life bounding how many the pacer may have made.
  await waitUntil('the node mined three blocks', async () => (await d!.rpc<number>('getblockcount')) >= 3, 60_000, 250);
  assert.equal(await d.stop(), 0);
  const elapsed = (Date.now() - started) / 1000;

  const chain = storedChain(d.datadir);
  t.diagnostic(`${chain.length} blocks in ${elapsed.toFixed(1)} s; times ${chain.map((b) => b.header.time).join(', ')}`);
  assert.ok(chain.length >= 3 && chain.length <= Math.ceil(elapsed / 5) + 1, `3 blocks or more, one per 5 s at most, in ${elapsed.toFixed(1)} s: got ${chain.length}`);
  for (let i = 1; i < chain.length; i++) {
    const gap = chain[i]!.header.time - chain[i - 1]!.header.time;
    // 5 s apart, give or take the time a loaded machine takes to mine one.
    assert.ok(gap >= 3 && gap <= 8, `blocks ${i} and ${i + 1} are ac_blocktime (5 s) apart: ${gap} s`);
  }

  // Block 1: the premine to the node key, P2PK.
  const params = devChainParams();
  const premine = 10_000_000n * COIN + BigInt(params.magic & 0xffffff);
  const cb = chain[0]!.txs[0]!;
  assert.ok(cb.isCoinbase());
  assert.equal(cb.vout.length, 1);
  assert.equal(cb.vout[0]!.value, premine, 'block 1 pays 10,000,000 coins plus the magic extra');
  assert.equal(toHex(cb.vout[0]!.script), toHex(p2pkScript(Buffer.from(nodeKey!, 'hex'))), 'to the node key, P2PK');
  // Later blocks pay ac_reward (1 coin) to the same key.
  for (const b of chain.slice(1)) {
    assert.equal(b.txs[0]!.vout[0]!.value, 1n * COIN);
    assert.equal(toHex(b.txs[0]!.vout[0]!.script), toHex(p2pkScript(Buffer.from(nodeKey!, 'hex'))));
  }
});
