import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Daemon, startDaemon, removeDir } from '../helpers/daemon.js';
import { readBlockFiles, writeBlockFiles } from '../helpers/blockfiles.js';
import { Block } from '../../src/chain/block/block.js';
import { regtestGenesisBlock } from '../../src/chain/block/genesis.js';
import { toHexReversed } from '../../src/chain/encoding/hex.js';
import { devChainParams } from '../../src/chain/params/chain-params.js';

/**
 * The chain's storage layout across versions and tools: a data directory written in the schema-1
 * layout (nedb blocks.db/chainstate.db, test/fixtures/schema1, made by acnoded at 1289efe) is
 * upgraded on first start to block files and LMDB; and `acnoded -reindex` on block files laid out as
 * komodod writes them (written here, by the test, from its own chain) imports that chain.
 */

const MAGIC = devChainParams().messageStart;
const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'schema1');

const loadedAt = (d: Daemon) => {
  const m = d.log.map((l) => / loaded at height (\d+) \(([0-9a-f]{64})\)/.exec(l)).find((x) => x);
  return m ? { height: Number(m[1]), hash: m[2]! } : undefined;
};

/** The fixture as its files say, read here from the nedb lines themselves. */
function schema1(dir: string) {
  const blocks = new Map<string, Uint8Array>();
  for (const line of readFileSync(join(dir, 'blocks.db'), 'utf8').split('\n')) {
    if (line === '') continue;
    const doc = JSON.parse(line) as { _id: string; raw: string };
    blocks.set(doc._id, new Uint8Array(Buffer.from(doc.raw, 'base64')));
  }
  const state = new Map<string, unknown>();
  for (const line of readFileSync(join(dir, 'chainstate.db'), 'utf8').split('\n')) {
    if (line === '') continue;
    const doc = JSON.parse(line) as { _id: string; value?: unknown; version?: unknown };
    state.set(doc._id, doc.value ?? doc.version);
  }
  const tip = state.get('tip') as string;
  // The active chain: from the tip back to genesis.
  const chain: string[] = [];
  for (let h: string | undefined = tip; h && blocks.has(h); h = toHexReversed(Block.fromRaw(blocks.get(h)!).header.prevHash)) chain.unshift(h);
  chain.unshift(regtestGenesisBlock().hashHex());
  return { blocks, tip, chain, failed: state.get('failed') as string[], schema: state.get('schema') };
}

test('upgrade: a schema-1 data directory (nedb) becomes block files and LMDB on first start', async (t) => {
  const dirs: string[] = [];
  const daemons: Daemon[] = [];
  t.after(async () => {
    for (const d of daemons) await d.stop().catch(() => {});
    for (const dir of dirs) removeDir(dir);
  });
  const old = schema1(FIXTURE);
  assert.equal(old.schema, 1);
  assert.equal(old.chain.length, 10, 'the fixture: 9 blocks on the active chain');
  assert.equal(old.blocks.size, 11, 'and two more, invalidated, on a stale branch');
  const copy = (prepare?: (dir: string) => void) => {
    const dir = mkdtempSync(join(tmpdir(), 'acnode-upgrade-'));
    dirs.push(dir);
    cpSync(FIXTURE, dir, { recursive: true });
    prepare?.(dir);
    return dir;
  };
  const start = async (dir: string) => {
    const d = new Daemon(dir, ['-gen=0']);
    daemons.push(d);
    await d.start(30_000);
    return d;
  };

  await t.test('blocks, tip and failed blocks carried over; the old files removed once the new state is committed', async () => {
    const dir = copy();
    const d = await start(dir);
    assert.deepEqual(loadedAt(d), { height: 9, hash: old.tip });
    assert.ok(d.log.some((l) => /^.*upgrading the chain data from nedb \(blocks\.db, chainstate\.db; schema 1\)/.test(l)), d.log.join('\n'));
    assert.ok(d.log.some((l) => /upgrade: 12 blocks in 1 block files, tip [0-9a-f]{64}; blocks\.db and chainstate\.db removed/.test(l)), d.log.join('\n'));
    assert.ok(!existsSync(join(dir, 'blocks.db')) && !existsSync(join(dir, 'chainstate.db')));
    // Every stored block is in the block files, genesis first, each once.
    const records = readBlockFiles(dir, MAGIC).map((r) => Block.fromRaw(r.raw).hashHex());
    assert.equal(records[0], regtestGenesisBlock().hashHex());
    assert.deepEqual(records.slice(1).sort(), [...old.blocks.keys()].sort());
    // The active chain, every transaction on it, and the failed branch as komodod sees it.
    for (let h = 1; h < old.chain.length; h++) assert.equal(await d.rpc('getblockhash', h), old.chain[h]);
    let txs = 0;
    for (const hash of old.chain.slice(1)) {
      for (const tx of Block.fromRaw(old.blocks.get(hash)!).txs) {
        const got = await d.rpc<{ hex: string; blockhash: string }>('getrawtransaction', tx.txid(), 1);
        assert.equal(got.hex, tx.toHex());
        assert.equal(got.blockhash, hash);
        txs++;
      }
    }
    assert.ok(txs > 15, `${txs} transactions on the fixture's chain`);
    for (const h of old.failed) assert.equal(await d.rpc('submitblock', Buffer.from(old.blocks.get(h)!).toString('hex')), 'duplicate-invalid', `block ${h} is still failed`);
    // The chain goes on, and the next start is an ordinary one.
    await d.rpc('generate', 1);
    await d.stop();
    await d.start();
    assert.equal(loadedAt(d)?.height, 10);
    assert.ok(!d.log.some((l) => /upgrading the chain data|upgrade: /.test(l)), d.log.join('\n'));
    await d.stop();
  });

  await t.test('an upgrade killed before its commit starts over (what it had written is dropped)', async () => {
    // What a killed upgrade leaves: the old files, and block files with part of what it wrote.
    const dir = copy((dir) => {
      mkdirSync(join(dir, 'blocks'));
      writeFileSync(join(dir, 'blocks', 'blk00000.dat'), Buffer.concat([Buffer.from(MAGIC), Buffer.alloc(300, 7)]));
    });
    const d = await start(dir);
    assert.deepEqual(loadedAt(d), { height: 9, hash: old.tip });
    assert.equal(readBlockFiles(dir, MAGIC).length, 12);
    await d.stop();
  });

  await t.test('an upgrade killed after its commit, before removing the old files: they are removed at the next start', async () => {
    const dir = copy();
    const d = await start(dir);
    await d.stop();
    // The old files back, as a kill between the commit and their removal leaves them.
    cpSync(join(FIXTURE, 'blocks.db'), join(dir, 'blocks.db'));
    cpSync(join(FIXTURE, 'chainstate.db'), join(dir, 'chainstate.db'));
    await d.start();
    assert.deepEqual(loadedAt(d), { height: 9, hash: old.tip });
    assert.ok(d.log.some((l) => /removed blocks\.db and chainstate\.db, left by an upgrade whose new chain state had committed/.test(l)), d.log.join('\n'));
    assert.ok(!existsSync(join(dir, 'blocks.db')));
    assert.equal(readBlockFiles(dir, MAGIC).length, 12, 'nothing written twice');
    await d.stop();
  });

  await t.test('a schema-1 file damaged before its last line is refused, naming the file and line, and kept', async () => {
    const dir = copy((dir) => {
      const ls = readFileSync(join(dir, 'blocks.db'), 'utf8').split('\n').filter((l) => l !== '');
      ls[1] = ls[1]!.slice(0, ls[1]!.length >> 1);
      writeFileSync(join(dir, 'blocks.db'), ls.join('\n') + '\n');
    });
    const d = new Daemon(dir, ['-gen=0']);
    await assert.rejects(d.start(30_000), /blocks\.db is damaged: record on line 2 of 11 cannot be read/);
    assert.ok(existsSync(join(dir, 'blocks.db')) && existsSync(join(dir, 'chainstate.db')), 'the old files are kept');
  });
});

test('upgrade: a schema-2 data directory (LMDB block index, indexes replayed at start) has its indexes built once, then kept', async (t) => {
  // test/fixtures/schema2, made by acnoded at e087486 (make-schema2.ts): 9 blocks, a failed branch of 2.
  const TIP = { height: 9, hash: '0a76a1a6d37c6bf01ace4dc7492c6a665397bebfe4ba6eeef2b1dece18a91305' };
  const FAILED = '0912a66fe52896e8b1977a8741d8ae2a3aa580195e43993e0b839ab2ebe7aafa';
  const dir = mkdtempSync(join(tmpdir(), 'acnode-upgrade2-'));
  cpSync(join(import.meta.dirname, '..', 'fixtures', 'schema2'), dir, { recursive: true });
  const d = new Daemon(dir, ['-gen=0']);
  t.after(async () => {
    await d.stop().catch(() => {});
    removeDir(dir);
  });
  // The fixture's blocks, read here from its block files.
  const blocks = new Map(readBlockFiles(dir, MAGIC).map((r) => [Block.fromRaw(r.raw).hashHex(), Block.fromRaw(r.raw)]));
  assert.equal(blocks.size, 12);
  const chain: Block[] = [];
  for (let h: string | undefined = TIP.hash; h !== regtestGenesisBlock().hashHex(); h = toHexReversed(chain[0]!.header.prevHash)) chain.unshift(blocks.get(h!)!);
  assert.equal(chain.length, 9);
  await d.start(30_000);
  assert.deepEqual(loadedAt(d), TIP);
  assert.ok(d.log.some((l) => /upgrading the chain state to schema 8: the UTXO set and the indexes are built once from the block files/.test(l)), d.log.join('\n'));
  assert.ok(d.log.some((l) => l.endsWith(`upgrade: 9 blocks indexed, tip ${TIP.hash}`)), d.log.join('\n'));
  // Every transaction and every output of the chain as the block files say; spent outputs are gone.
  const spent = new Set(chain.flatMap((b) => b.txs.slice(1).flatMap((tx) => tx.vin.map((i) => `${i.prevout.txid()}:${i.prevout.index}`))));
  // The fixture's wallet holds a transaction no block of the active chain has: the wallet re-accepts it
  // into the mempool at start (ReacceptWalletTransactions, in the background), where it spends a chain
  // output, so gettxout reads the chain alone (includemempool false).
  for (const b of chain) {
    for (const tx of b.txs) {
      assert.equal((await d.rpc<{ hex: string }>('getrawtransaction', tx.txid(), 1)).hex, tx.toHex());
      for (const [n, out] of tx.vout.entries()) {
        const got = await d.rpc<{ value: number } | null>('gettxout', tx.txid(), n, false);
        if (spent.has(`${tx.txid()}:${n}`) || out.script[0] === 0x6a) assert.equal(got, null, `${tx.txid()}:${n} is spent`);
        else assert.equal(BigInt(Math.round(got!.value * 1e8)), out.value, `${tx.txid()}:${n}`);
      }
    }
  }
  assert.equal(await d.rpc('submitblock', blocks.get(FAILED)!.toHex()), 'duplicate-invalid');
  await d.rpc('generate', 1);
  await d.stop();
  await d.start(30_000);
  assert.equal(loadedAt(d)?.height, 10);
  assert.ok(!d.log.some((l) => /upgrading the chain state|upgrade: /.test(l)), d.log.join('\n'));
  await d.stop();
});

test('-reindex imports block files laid out as komodod writes them (several files, out-of-order blocks, pre-allocated zeros)', async (t) => {
  const dirs: string[] = [];
  const daemons: Daemon[] = [];
  t.after(async () => {
    for (const d of daemons) await d.stop().catch(() => {});
    for (const dir of dirs) removeDir(dir);
  });
  // A chain with transactions, made by a node.
  const a = await startDaemon(['-gen=0']);
  daemons.push(a);
  dirs.push(a.datadir);
  await a.rpc('generate', 2);
  const sent: string[] = [];
  for (let i = 0; i < 3; i++) {
    for (let k = 0; k < 4; k++) sent.push(await a.rpc<string>('sendtoaddress', await a.rpc<string>('getnewaddress'), 2 + k));
    await a.rpc('generate', 1);
  }
  const height = await a.rpc<number>('getblockcount');
  const tip = await a.rpc<string>('getbestblockhash');
  const raws: Uint8Array[] = [];
  for (let h = 0; h <= height; h++) raws.push(Buffer.from(await a.rpc<string>('getblock', await a.rpc<string>('getblockhash', h), 0), 'hex'));
  const outs = await Promise.all(sent.map((txid) => a.rpc<{ value: number } | null>('gettxout', txid, 0)));
  await a.stop();

  // komodod's layout: genesis first; blocks 3 and 4 stored after their child (a parallel
  // download), files small enough that each holds one block, each followed by pre-allocated zeros.
  const order = [0, 1, 2, 5, 3, 4];
  const b = mkdtempSync(join(tmpdir(), 'acnode-import-'));
  dirs.push(b);
  writeBlockFiles(b, MAGIC, order.map((h) => raws[h]!), Math.max(...raws.map((r) => r.length)) + 9);
  const files = readBlockFiles(b, MAGIC).map((r) => r.file);
  assert.ok(new Set(files).size >= 3, `the blocks span ${new Set(files).size} files`);
  for (const f of new Set(files)) appendFileSync(join(b, 'blocks', `blk0000${f}.dat`), Buffer.alloc(4096));

  // Without -reindex the block files are not taken for an index.
  const refused = new Daemon(b, ['-gen=0']);
  await assert.rejects(refused.start(30_000), /holds block files but there is no chain state indexing them .*: restart with -reindex/);

  const d = new Daemon(b, ['-gen=0', '-reindex']);
  daemons.push(d);
  await d.start(60_000);
  assert.deepEqual(loadedAt(d), { height, hash: tip });
  assert.ok(d.log.some((l) => l.endsWith(`reindex: blk0000${Math.max(...files)}.dat read, ${height + 1} blocks indexed`)), d.log.join('\n'));
  assert.ok(d.log.some((l) => l.endsWith(`reindex: blk0000${Math.max(...files)}.dat: cut off the 4096 bytes after its last block (komodod's pre-allocated space)`)), d.log.join('\n'));
  for (const [i, txid] of sent.entries()) {
    const got = await d.rpc<{ value: number } | null>('gettxout', txid, 0);
    assert.deepEqual(got?.value, outs[i]?.value, `gettxout ${txid} 0`);
    assert.equal((await d.rpc<{ txid: string }>('getrawtransaction', txid, 1)).txid, txid);
  }
  // New blocks go after the last one (the zeros after it cut off); a plain restart keeps everything.
  await d.rpc('generate', 1);
  await d.stop();
  const recs = readBlockFiles(b, MAGIC);
  assert.equal(recs.length, height + 2);
  const plain = new Daemon(b, ['-gen=0']);
  daemons.push(plain);
  await plain.start(30_000);
  assert.equal(loadedAt(plain)?.height, height + 1);
  await plain.stop();
});
