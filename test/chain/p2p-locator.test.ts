import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BlockHeader } from '../../src/chain/block/header.js';
import { sha256 } from '../../src/chain/crypto/hash.js';
import { publicKeyFromPrivate } from '../../src/chain/crypto/secp256k1.js';
import { devChainParams } from '../../src/chain/params/chain-params.js';
import { HeadersMessage } from '../../src/chain/p2p/messages.js';
import { ChainStoreLogic } from '../../src/actors/chainstore/logic.js';
import { consensusRules } from '../../src/actors/chainstore/consensus.js';
import { assembleBlock, solveBlock } from '../../src/chain/block/assemble.js';

/**
 * The chain store's P2P reads: CChain::GetLocator (chain.cpp:49-74: the tip, ten single steps, then
 * doubling steps, always ending with genesis) and getheaders' answer (main.cpp:7768-7819: after the
 * first locator hash on the active chain, up to hashStop inclusive or 160 headers; an empty locator
 * gives just the hashStop block), on a 170-block dev chain built in process.
 */

const params = devChainParams();
const PUB = publicKeyFromPrivate(sha256(new TextEncoder().encode('acnode locator test')), true);

test('locator and headers after a locator, as komodod answers getheaders', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-locator-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const logic = new ChainStoreLogic({ dir, rules: consensusRules({ params: () => params }), baseParams: params });
  await logic.load();
  const hashes: string[] = [logic.tipInfo().hash];
  for (let h = 1; h <= 170; h++) {
    const tpl = logic.templateContext();
    const { block } = assembleBlock({ prevHash: tpl.hash, height: tpl.height + 1, bits: tpl.nextBits, mtp: tpl.mtp, params, txs: [], payTo: PUB, now: tpl.time + 5 });
    assert.ok(solveBlock(block, params));
    const r = (await logic.write({ op: 'submitBlock', raw: block.toRaw() })).result as { status: string };
    assert.equal(r.status, 'connected');
    hashes.push(block.hashHex());
  }
  const heightOf = new Map(hashes.map((h, i) => [h, i]));

  const loc = logic.read({ op: 'locator' }) as string[];
  // Push, step, then double once more than ten are held: 170..159 one by one, then 2, 4, 8, ... and genesis.
  assert.deepEqual(
    loc.map((h) => heightOf.get(h)),
    [170, 169, 168, 167, 166, 165, 164, 163, 162, 161, 160, 159, 157, 153, 145, 129, 97, 33, 0],
  );
  const fromMid = logic.read({ op: 'locator', from: hashes[5] }) as string[];
  assert.deepEqual(fromMid.map((h) => heightOf.get(h)), [5, 4, 3, 2, 1, 0]);

  const zero = '00'.repeat(32);
  type After = { hashes: string[]; headers: BlockHeader[] };
  // From genesis: exactly 160 headers (1..160), which encode with the trailing 0x00 each.
  const first = logic.read({ op: 'headersAfter', locator: [hashes[0]], stop: zero, max: 160 }) as After;
  assert.deepEqual(first.hashes, hashes.slice(1, 161));
  const wire = new HeadersMessage(first.headers).toRaw();
  assert.equal(HeadersMessage.fromRaw(wire).headers.length, 160);
  // Unknown locator entries are skipped; the first one on the active chain counts.
  const unknown = 'ff'.repeat(32);
  const rest = logic.read({ op: 'headersAfter', locator: [unknown, hashes[160], hashes[100]], stop: zero, max: 160 }) as After;
  assert.deepEqual(rest.hashes, hashes.slice(161));
  // hashStop is inclusive.
  const stopped = logic.read({ op: 'headersAfter', locator: [hashes[10]], stop: hashes[13], max: 160 }) as After;
  assert.deepEqual(stopped.hashes, hashes.slice(11, 14));
  // An empty locator: just the hashStop block (any known one); unknown → nothing.
  assert.deepEqual((logic.read({ op: 'headersAfter', locator: [], stop: hashes[42], max: 160 }) as After).hashes, [hashes[42]]);
  assert.deepEqual((logic.read({ op: 'headersAfter', locator: [], stop: unknown, max: 160 }) as After).hashes, []);
  // A locator with nothing known starts after genesis (FindForkInGlobalIndex → genesis).
  assert.deepEqual((logic.read({ op: 'headersAfter', locator: [unknown], stop: zero, max: 3 }) as After).hashes, hashes.slice(1, 4));
  // What the chain store knows of hashes: height, work, active, failed.
  const known = logic.read({ op: 'known', hashes: [hashes[7], unknown] }) as ({ height: number; active: boolean } | null)[];
  assert.equal(known[0]!.height, 7);
  assert.equal(known[0]!.active, true);
  assert.equal(known[1], null);
  await logic.close();
});
