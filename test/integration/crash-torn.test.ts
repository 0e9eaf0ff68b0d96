import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { Daemon, startDaemon, removeDir } from '../helpers/daemon.js';
import { readBlockFiles } from '../helpers/blockfiles.js';
import { Block } from '../../src/chain/block/block.js';
import { devChainParams } from '../../src/chain/params/chain-params.js';
import { CHAIN_SCHEMA_VERSION } from '../../src/actors/chainstore/chaindb.js';

/**
 * Damaged data files: a kill -9 can only tear the end of the last block file (a record cut short),
 * which is cut off with a log line; a damaged chain state (the LMDB environment), or a block file
 * that no longer holds what the chain state indexes, makes the node refuse to start with a message
 * naming what is damaged and pointing at -reindex, which then rebuilds it from the block files. A
 * newer schema is refused; the wallet (nedb) still refuses a damaged record.
 */

const MAGIC = devChainParams().messageStart;

const loadedAt = (d: Daemon) => {
  const line = d.log.find((l) => / loaded at height \d+ \(/.test(l));
  const m = / loaded at height (\d+) \(([0-9a-f]{64})\)/.exec(line ?? '');
  return m ? { height: Number(m[1]), hash: m[2]! } : undefined;
};

test('data files: a torn block-file tail is cut off, damaged chain state is refused and -reindex rebuilds it, a newer schema is refused', async (t) => {
  const dirs: string[] = [];
  const daemons: Daemon[] = [];
  t.after(async () => {
    for (const d of daemons) await d.stop().catch(() => {});
    for (const dir of dirs) removeDir(dir);
  });
  const d = await startDaemon();
  daemons.push(d);
  dirs.push(d.datadir);
  const hashes = await d.rpc<string[]>('generate', 5);
  await d.stop();
  const tip = { height: 5, hash: hashes[4]! };
  const blk0 = (dir: string) => join(dir, 'blocks', 'blk00000.dat');

  /** A copy of the stopped node's data directory, damaged by `damage`, and the daemon's fate on it. */
  const variant = async (damage: (dir: string) => void | Promise<void>, args: string[] = []): Promise<{ daemon?: Daemon; error?: string; dir: string }> => {
    const dir = mkdtempSync(join(tmpdir(), 'acnode-damaged-'));
    dirs.push(dir);
    cpSync(d.datadir, dir, { recursive: true });
    await damage(dir);
    const v = new Daemon(dir, ['-gen=0', ...args]);
    try {
      await v.start(30_000);
      daemons.push(v);
      return { daemon: v, dir };
    } catch (e) {
      return { error: (e as Error).message, dir };
    }
  };
  /** The same directory started again with -reindex. */
  const reindexed = async (dir: string): Promise<Daemon> => {
    const v = new Daemon(dir, ['-gen=0', '-reindex']);
    daemons.push(v);
    await v.start(30_000);
    return v;
  };

  await t.test('a record cut short at the end of the last block file (killed mid-append) is cut off and logged; the chain is intact', async () => {
    const size = readFileSync(blk0(d.datadir)).length;
    const r = await variant((dir) => {
      const last = readBlockFiles(dir, MAGIC).at(-1)!;
      const record = readFileSync(blk0(dir)).subarray(last.pos - 8);
      appendFileSync(blk0(dir), record.subarray(0, record.length >> 1));
    });
    assert.ok(r.daemon, r.error);
    assert.deepEqual(loadedAt(r.daemon!), tip);
    assert.ok(r.daemon!.log.some((l) => new RegExp(`blk00000\\.dat: cut off a torn tail of \\d+ bytes at ${size} \\(a write cut short`).test(l)), r.daemon!.log.join('\n'));
    assert.equal((await r.daemon!.rpc<string[]>('generate', 1)).length, 1);
    await r.daemon!.stop();
    // Cut for good: the new block follows the last whole record, and a second start is clean.
    assert.equal(readBlockFiles(r.dir, MAGIC).length, 7);
    await r.daemon!.start();
    assert.deepEqual(loadedAt(r.daemon!)?.height, 6);
    assert.ok(!r.daemon!.log.some((l) => /cut off a torn tail/.test(l)), r.daemon!.log.join('\n'));
    await r.daemon!.stop();
  });

  await t.test('a chain state that is not an LMDB environment is refused, naming it and -reindex; -reindex rebuilds it', async () => {
    const r = await variant((dir) => {
      const file = join(dir, 'chaindb', 'data.mdb');
      const data = readFileSync(file);
      // Its first pages (the meta pages) overwritten.
      data.fill(0x5a, 0, 8192);
      writeFileSync(file, data);
    });
    assert.equal(r.daemon, undefined, 'the node must not start');
    assert.match(r.error!, /the chain state \S*chaindb is damaged: data\.mdb does not start with an LMDB meta page: restart with -reindex to rebuild the chain state from the block files/);
    assert.match(r.error!, /exited with 1/);
    const v = await reindexed(r.dir);
    assert.deepEqual(loadedAt(v), tip);
    assert.ok(v.log.some((l) => /reindex: blk00000\.dat read, 6 blocks indexed/.test(l)), v.log.join('\n'));
    assert.equal(await v.rpc('getbestblockhash'), tip.hash);
    await v.stop();
  });

  await t.test('a block file that no longer holds the tip the chain state indexes is refused, naming the block and -reindex; -reindex stops before it', async () => {
    const r = await variant((dir) => {
      // One byte of the tip block's coinbase changed (past its 80-byte header): the bytes no longer hash to the indexed block.
      const last = readBlockFiles(dir, MAGIC).at(-1)!;
      const data = readFileSync(blk0(dir));
      const at = last.pos + last.raw.length - 10;
      data[at] = data[at]! ^ 0xff;
      writeFileSync(blk0(dir), data);
    });
    assert.equal(r.daemon, undefined, 'the node must not start');
    assert.match(r.error!, new RegExp(`block ${tip.hash} in blk00000\\.dat at \\d+ is damaged \\(its transactions do not hash to its merkle root\\): restart with -reindex`));
    // The damaged block fails its merkle check: the rebuilt chain ends at its parent.
    const v = await reindexed(r.dir);
    assert.deepEqual(loadedAt(v), { height: 4, hash: hashes[3]! });
    assert.ok(v.log.some((l) => /is not taken: bad-txnmrklroot/.test(l)), v.log.join('\n'));
    await v.stop();
  });

  await t.test('a -reindex killed before it had read every block file starts again at the next start', async () => {
    const r = await variant(async (dir) => {
      // What a reindex killed while reading the block files leaves: its flag, and only part of the block index.
      const env = open({ path: join(dir, 'chaindb'), maxDbs: 16 });
      const blocks = env.openDB<Buffer, Buffer>({ name: 'blocks', keyEncoding: 'binary', encoding: 'binary' });
      const keys = [...blocks.getKeys({})];
      env.transactionSync(() => {
        for (const k of keys.slice(2)) blocks.removeSync(k as Buffer);
        env.openDB({ name: 'meta' }).putSync('reindexing', true);
      });
      await env.close();
    });
    assert.ok(r.daemon, r.error);
    assert.ok(r.daemon!.log.some((l) => /reindex: the last -reindex was interrupted; reindexing again/.test(l)), r.daemon!.log.join('\n'));
    assert.deepEqual(loadedAt(r.daemon!), tip);
    await r.daemon!.stop();
  });

  await t.test('a data directory written by a newer schema is refused', async () => {
    const r = await variant(async (dir) => {
      const env = open({ path: join(dir, 'chaindb') });
      env.openDB({ name: 'meta' }).putSync('schema', CHAIN_SCHEMA_VERSION + 1);
      await env.close();
    });
    assert.equal(r.daemon, undefined, 'the node must not start');
    assert.ok(r.error!.includes(`chain data schema ${CHAIN_SCHEMA_VERSION + 1} is newer than this acnode understands (${CHAIN_SCHEMA_VERSION}): upgrade acnode`), r.error);
    assert.match(r.error!, /exited with 1/);
  });

  await t.test('a record cut short inside wallet.db (line 1) is refused with a message naming the file and line', async () => {
    const r = await variant((dir) => {
      const ls = readFileSync(join(dir, 'wallet.db'), 'utf8').split('\n').filter((l) => l !== '');
      // wallet.db holds one key: a record after it makes line 1 an inner line.
      ls.push(ls[0]!.replace(/"_id":"[0-9a-f]{4}/, '"_id":"ffff'));
      ls[0] = ls[0]!.slice(0, ls[0]!.length >> 1);
      writeFileSync(join(dir, 'wallet.db'), ls.join('\n') + '\n');
    });
    assert.equal(r.daemon, undefined, 'the node must not start');
    assert.match(r.error!, /wallet\.db is damaged: record on line 1 of \d+ cannot be read/);
    assert.match(r.error!, /refusing to start rather than misread it/);
  });

  // The blocks the test reads back are the node's: each record hashes to a block the node mined.
  const stored = readBlockFiles(d.datadir, MAGIC).map((r) => Block.fromRaw(r.raw).hashHex());
  assert.deepEqual(stored.slice(1), hashes);
});
