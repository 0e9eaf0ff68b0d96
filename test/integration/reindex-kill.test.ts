import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Daemon, removeDir } from '../helpers/daemon.js';
import { prng } from '../helpers/prng.js';
import { ChainStoreLogic } from '../../src/actors/chainstore/logic.js';
import { dump, newRules, params, signedChain } from '../helpers/signed-chain.js';

/**
 * kill -9 while acnoded -reindex connects the chain with its write thread (the chain store's thread
 * verifying a block while the thread writes the one before; blocks connect as the block files are
 * read): whatever moment the kill comes, the next start (which reindexes again when the kill came
 * before every file was read, else goes on from the last committed block) ends with the chain state
 * a whole serial reindex builds, every database equal key by key.
 */
const SEED = Number(process.env.ACNODE_CRASH_SEED ?? 0x5e1d);

test('kill -9 during a -reindex with its write thread: the next start ends with the serial reindex\'s chain state', { timeout: 300_000 }, async (t) => {
  const built = mkdtempSync(join(tmpdir(), 'acnode-rxkill-'));
  const { tip } = await signedChain(built, 40);
  // The reference: a serial reindex of a copy, in process.
  const refDir = mkdtempSync(join(tmpdir(), 'acnode-rxkill-'));
  cpSync(built, refDir, { recursive: true });
  const ref = new ChainStoreLogic({ dir: refDir, rules: newRules(), baseParams: params, reindex: true });
  await ref.load();
  assert.equal(ref.index.tip.hash, tip);
  await ref.close();
  const want = dump(refDir);
  const rnd = prng(SEED);
  t.diagnostic(`seed ${SEED} (ACNODE_CRASH_SEED reproduces a run)`);
  let killedConnecting = 0;
  for (let round = 0; round < 4; round++) {
    const dir = mkdtempSync(join(tmpdir(), 'acnode-rxkill-'));
    cpSync(built, dir, { recursive: true });
    const d = new Daemon(dir, ['-gen=0', '-reindex', '-par=1']);
    const started = d.start(120_000).then(
      () => true,
      () => false,
    );
    // Killed once blocks are being connected (the first one committed), a moment later.
    const until = Date.now() + 120_000;
    while (!d.log.some((l) => / connected block \d+ /.test(l)) && Date.now() < until) await sleep(2);
    await sleep(Math.floor(rnd() * 40 * round));
    const connected = d.log.filter((l) => / connected block \d+ /.test(l)).length;
    await d.crash();
    const ready = await started;
    if (!ready && connected < 38) killedConnecting++;
    t.diagnostic(`round ${round}: killed ${ready ? 'after ready' : `with ${connected} blocks logged connected`}, last line: ${d.log.at(-1)?.replace(/^\S+ /, '') ?? '(none)'}`);
    // The next start (no -reindex) goes on connecting from the last commit, and ends on the serial reindex's state.
    const scanEnded = d.log.some((l) => / reindex: \d+ blocks indexed, \d+ connected/.test(l));
    const logs: string[] = [];
    const again = new ChainStoreLogic({ dir, rules: newRules(), baseParams: params, log: (m) => logs.push(m) });
    await again.load();
    assert.equal(again.index.tip.hash, tip, `round ${round}`);
    // Blocks connect while the files are read: a kill before the last file was read means a reindex again (komodod's fReindex).
    if (!scanEnded) assert.ok(logs.some((l) => l.includes('the last -reindex was interrupted; reindexing again')), `round ${round}: ${logs.join('\n')}`);
    await again.close();
    const got = dump(dir);
    for (const [name, rows] of want) assert.deepEqual(got.get(name), rows, `round ${round}: database ${name}`);
    removeDir(dir);
  }
  t.diagnostic(`${killedConnecting} of 4 kills came while blocks were being connected`);
  assert.ok(killedConnecting > 0, 'no kill came while the blocks were being connected');
  removeDir(built);
  removeDir(refDir);
});
