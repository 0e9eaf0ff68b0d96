import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { Block } from '../../src/chain/block/block.js';
import { BlockHeader } from '../../src/chain/block/header.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { TxIn, Outpoint } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { fromHexReversed } from '../../src/chain/encoding/hex.js';
import { ChainStoreLogic } from '../../src/actors/chainstore/logic.js';
import { BackgroundFsync } from '../../src/actors/chainstore/background-fsync.js';
import { permissiveRules } from '../helpers/stub-rules.js';

/** Blocks of one coinbase each, under stand-in rules (the store's bookkeeping only). */
const BITS = 0x200f0f0f;
function coinbase(height: number): Transaction {
  const tx = new Transaction();
  tx.vin.push(new TxIn(Outpoint.null(), Uint8Array.of(0x03, height & 0xff, (height >> 8) & 0xff, 0), 0xffffffff));
  tx.vout.push(new TxOut(1000n, Uint8Array.of(0x51)));
  return tx;
}
function makeBlock(prev: string, height: number, time: number): Block {
  const h = new BlockHeader();
  h.prevHash = fromHexReversed(prev);
  h.time = time;
  h.bits = BITS;
  const b = new Block(h, [coinbase(height)]);
  b.updateMerkleRoot();
  return b;
}
const genesis = makeBlock('00'.repeat(32), 0, 1_600_000_000);
const rules = permissiveRules(genesis, BITS);
async function open(dir: string, logs?: string[]): Promise<ChainStoreLogic> {
  const logic = new ChainStoreLogic({ dir, rules, now: () => 1_700_000_000, ...(logs ? { log: (m: string) => logs.push(m) } : {}) });
  await logic.load();
  return logic;
}

test('background fsync: a wait returns once the fsyncs started are done; a failed one fails every later wait', () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-fsync-'));
  const fsync = new BackgroundFsync();
  const fd = openSync(join(dir, 'f'), 'w+');
  try {
    writeSync(fd, Buffer.alloc(4096, 1));
    fsync.start([fd]);
    fsync.wait();
    fsync.wait();
    // A descriptor that is not open: EBADF, as a failed fsync of a block file would be.
    const closed = openSync(join(dir, 'g'), 'w+');
    closeSync(closed);
    fsync.start([closed]);
    assert.throws(() => fsync.wait(), /fsync of a block file failed \(EBADF\)/);
    // Sticky: a later fsync that succeeds does not make the lost one good.
    fsync.start([fd]);
    assert.throws(() => fsync.wait(), /EBADF/);
  } finally {
    closeSync(fd);
    assert.throws(() => fsync.close(), /EBADF/);
    rmSync(dir, { recursive: true, force: true });
  }
});

test('chain store: a block whose bytes could not be fsynced is not committed; at the next start its whole record is taken up', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-fsync-chain-'));
  try {
    let s = await open(dir);
    const b1 = makeBlock(genesis.hashHex(), 1, 1_600_000_100);
    assert.equal(((await s.write({ op: 'submitBlock', raw: b1.toRaw() })).result as { status: string }).status, 'connected');
    // The store's fsync helper is asked to sync a descriptor that is not open: the next commit must
    // not happen (the block's bytes are not known to be on the disk).
    const fsync = (s as unknown as { store: { fsync: BackgroundFsync } }).store.fsync;
    const closed = openSync(join(dir, 'not-a-block-file'), 'w+');
    closeSync(closed);
    const start = fsync.start.bind(fsync);
    fsync.start = (fds) => start([...fds, closed]);
    const b2 = makeBlock(b1.hashHex(), 2, 1_600_000_200);
    await assert.rejects(s.write({ op: 'submitBlock', raw: b2.toRaw() }), /fsync of a block file failed/);
    assert.equal(s.index.tip.hash, b1.hashHex());
    // Every later commit fails too, until a restart.
    await assert.rejects(s.write({ op: 'invalidateBlock', hash: b1.hashHex() }), /fsync of a block file failed/);
    (s as unknown as { store: { fsync: BackgroundFsync } }).store.fsync = new BackgroundFsync();
    await s.close();
    // Nothing of block 2 was committed (its record is taken up from the block file at start, which a
    // committed block's is not), nor the invalidation; the whole record is connected now.
    const logs: string[] = [];
    s = await open(dir, logs);
    assert.ok(logs.some((l) => l.startsWith(`took up block ${b2.hashHex()}`)), logs.join('\n'));
    assert.equal(s.index.tip.hash, b2.hashHex());
    assert.equal(s.index.height, 2);
    await s.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
