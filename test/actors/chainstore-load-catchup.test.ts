import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Block } from '../../src/chain/block/block.js';
import { BlockHeader } from '../../src/chain/block/header.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { TxIn, Outpoint } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { fromHexReversed } from '../../src/chain/encoding/hex.js';
import { ChainStoreLogic } from '../../src/actors/chainstore/logic.js';
import { permissiveRules } from '../helpers/stub-rules.js';

/**
 * A start that catches up from the block files without -reindex (blocks written but not indexed,
 * taken up and connected in load()) keeps no connected block once it is connected: what the heap
 * holds at the last block of a long catch-up is what it held a quarter of the way in, give or take
 * the store's bounded caches, not every block connected since (load() collected a notice, with the
 * parsed block, per block, that nobody read).
 */

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heldBytes = () => {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

const BITS = 0x200f0f0f;
const KMD_MAGIC = Uint8Array.of(0xf9, 0xee, 0xe4, 0x8d);
/** Outputs per block and the bytes of each output's script: about 200 KB a block. */
const OUTPUTS = 200;
const SCRIPT_BYTES = 1000;
const BLOCKS = 120;

function makeBlock(prev: string, height: number): Block {
  const cb = new Transaction();
  cb.vin.push(new TxIn(Outpoint.null(), Uint8Array.of(0x03, height & 0xff, (height >> 8) & 0xff, 0), 0xffffffff));
  for (let i = 0; i < (height === 0 ? 1 : OUTPUTS); i++) cb.vout.push(new TxOut(1000n, new Uint8Array(height === 0 ? 1 : SCRIPT_BYTES).fill(0x51)));
  const h = new BlockHeader();
  h.prevHash = fromHexReversed(prev);
  h.time = 1_600_000_000 + height;
  h.bits = BITS;
  const b = new Block(h, [cb]);
  b.updateMerkleRoot();
  return b;
}

test('chain store load: a catch-up from the block files without -reindex holds no connected block', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-catchup-'));
  try {
    const genesis = makeBlock('00'.repeat(32), 0);
    // What the heap holds as each height connects (measured at a few of them).
    const at = new Map<number, number>();
    const measureAt = new Set([BLOCKS / 4, BLOCKS]);
    const rules = permissiveRules(genesis, BITS, (_block, height) => {
      if (measureAt.has(height)) at.set(height, heldBytes());
    });
    const open = async () => {
      const logic = new ChainStoreLogic({ dir, rules, now: () => 1_700_000_000, cacheBytes: 1 << 20, log: () => {} });
      await logic.load();
      return logic;
    };
    let s = await open();
    await s.close();
    // BLOCKS blocks written to the block file after the last commit (as a kill before the commits would leave them).
    let prev = genesis.hashHex();
    const records: Buffer[] = [];
    for (let h = 1; h <= BLOCKS; h++) {
      const b = makeBlock(prev, h);
      prev = b.hashHex();
      const raw = b.toRaw();
      const head = Buffer.alloc(8);
      head.set(KMD_MAGIC, 0);
      head.writeUInt32LE(raw.length, 4);
      records.push(head, Buffer.from(raw));
    }
    appendFileSync(join(dir, 'blocks', 'blk00000.dat'), Buffer.concat(records));
    records.length = 0;
    s = await open();
    assert.equal(s.index.height, BLOCKS, 'every block taken up and connected');
    await s.close();
    const grew = at.get(BLOCKS)! - at.get(BLOCKS / 4)!;
    // Holding the 90 blocks connected in between would take 90 × ~200 KB of raw and parsed bytes.
    const blockBytes = OUTPUTS * SCRIPT_BYTES;
    assert.ok(grew < 20 * blockBytes, `the heap grew by ${(grew / 1e6).toFixed(1)} MB over ${BLOCKS - BLOCKS / 4} connected blocks of ${blockBytes / 1000} KB`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
