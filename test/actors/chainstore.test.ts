import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { Block } from '../../src/chain/block/block.js';
import { BlockHeader } from '../../src/chain/block/header.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { TxIn, Outpoint } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { fromHexReversed } from '../../src/chain/encoding/hex.js';
import { ChainStoreLogic } from '../../src/actors/chainstore/logic.js';
import type { ChainRules } from '../../src/actors/chainstore/rules.js';

/**
 * Stand-in rules: the chain store's bookkeeping (storage, best chain, reorgs, replay) is tested here
 * on its own; consensus rules have their own tests. A block is "invalid" when its coinbase pays 666.
 */
const BITS = 0x200f0f0f;
function coinbase(height: number, value: bigint, tag = 0): Transaction {
  const tx = new Transaction();
  tx.vin.push(new TxIn(Outpoint.null(), Uint8Array.of(0x03, height & 0xff, (height >> 8) & 0xff, tag), 0xffffffff));
  tx.vout.push(new TxOut(value, Uint8Array.of(0x51)));
  return tx;
}
function makeBlock(prev: string, height: number, txs: Transaction[], time: number): Block {
  const h = new BlockHeader();
  h.prevHash = fromHexReversed(prev);
  h.time = time;
  h.bits = BITS;
  const b = new Block(h, txs);
  b.updateMerkleRoot();
  return b;
}
const genesis = makeBlock('00'.repeat(32), 0, [coinbase(0, 50n)], 1_600_000_000);
const rules: ChainRules = {
  genesis,
  nextBits: () => BITS,
  checkBlock: () => {},
  checkHeader: () => {},
  checkContextual: (block) => {
    if (block.txs[0]!.vout[0]!.value === 667n) throw Object.assign(new Error('ctx'), { rejectCode: 16, reason: 'tx-overwinter-active', dos: 100 });
  },
  connect: (block, _h, view) => {
    if (block.txs[0]!.vout[0]!.value === 666n) throw Object.assign(new Error('bad'), { rejectCode: 16, reason: 'bad-cb-amount' });
    block.txs.forEach((tx, n) => {
      if (n > 0) {
        for (const i of tx.vin) {
          if (!view.coin(i.prevout.txid(), i.prevout.index)) {
            throw Object.assign(new Error('missing'), { rejectCode: 16, reason: 'bad-txns-inputs-missingorspent' });
          }
        }
      }
      view.apply(tx, tx.txid(), _h);
    });
    return { fees: 0n };
  },
};

async function open(dir: string): Promise<ChainStoreLogic> {
  const logic = new ChainStoreLogic({ dir, rules, now: () => 1_700_000_000 });
  await logic.load();
  return logic;
}
const submit = (s: ChainStoreLogic, b: Block) => s.write({ op: 'submitBlock', raw: b.toRaw() });

function extend(from: string, fromHeight: number, n: number, tag: number, t0: number): Block[] {
  const out: Block[] = [];
  let prev = from;
  for (let i = 1; i <= n; i++) {
    const b = makeBlock(prev, fromHeight + i, [coinbase(fromHeight + i, 1000n + BigInt(tag), tag)], t0 + i);
    out.push(b);
    prev = b.hashHex();
  }
  return out;
}

test('chain store: connects, survives restart, reorganises to the most work and back', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-chain-'));
  let s = await open(dir);
  assert.equal(s.index.height, 0);
  const a = extend(genesis.hashHex(), 0, 5, 1, 1_600_000_100);
  for (const b of a) assert.equal(((await submit(s, b)).result as { status: string }).status, 'connected');
  assert.equal(s.index.height, 5);
  assert.equal((await submit(s, a[2]!)).result && ((await submit(s, a[2]!)).result as { status: string }).status, 'duplicate');
  const coinsBefore = s.indexes.coins.size;

  // A longer branch from height 2 overtakes: blocks 3..5 are disconnected, 3'..7' connected.
  const b = extend(a[1]!.hashHex(), 2, 5, 2, 1_600_000_200);
  const out = [];
  for (const blk of b) out.push((await submit(s, blk)).result as { status: string });
  assert.deepEqual(out.map((o) => o.status), ['stored', 'stored', 'stored', 'connected', 'connected']);
  assert.equal(s.index.tip.hash, b[4]!.hashHex());
  assert.equal(s.index.height, 7);
  // Coinbase outputs of the dead branch are gone, the new ones are there.
  assert.equal(s.indexes.coins.has(`${a[4]!.txs[0]!.txid()}:0`), false);
  assert.equal(s.indexes.coins.has(`${b[4]!.txs[0]!.txid()}:0`), true);
  assert.equal(s.indexes.coins.size, coinsBefore + 2);
  await s.close();

  // Restart: same tip, same coins, derived from the stored blocks.
  s = await open(dir);
  assert.equal(s.index.tip.hash, b[4]!.hashHex());
  assert.equal(s.indexes.coins.size, coinsBefore + 2);

  // invalidateblock on the winning branch goes back to the other one; reconsiderblock returns.
  const notices: string[] = [];
  const inv = await s.write({ op: 'invalidateBlock', hash: b[0]!.hashHex() });
  for (const n of inv.notices ?? []) notices.push(`${n.type} ${(n as unknown as { height: number }).height}`);
  // One tipChanged closes the activation (komodod's NotifyBlockTip), naming the final tip.
  assert.equal(notices.pop(), 'tipChanged 5');
  assert.equal(s.index.tip.hash, a[4]!.hashHex());
  assert.deepEqual(notices, [
    'blockDisconnected 7', 'blockDisconnected 6', 'blockDisconnected 5', 'blockDisconnected 4', 'blockDisconnected 3',
    'blockConnected 3', 'blockConnected 4', 'blockConnected 5',
  ]);
  await s.close();
  s = await open(dir);
  assert.equal(s.index.tip.hash, a[4]!.hashHex(), 'the invalidation is remembered across a restart');
  await s.write({ op: 'reconsiderBlock', hash: b[0]!.hashHex() });
  assert.equal(s.index.tip.hash, b[4]!.hashHex());
});

test('chain store: an invalid block is refused and the chain stays on the valid branch', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-chain-'));
  const s = await open(dir);
  const a = extend(genesis.hashHex(), 0, 3, 1, 1_600_000_100);
  for (const b of a) await submit(s, b);
  const bad = makeBlock(a[2]!.hashHex(), 4, [coinbase(4, 666n)], 1_600_000_500);
  const r = (await submit(s, bad)).result as { status: string; reason: string };
  assert.deepEqual([r.status, r.reason], ['rejected', 'bad-cb-amount']);
  assert.equal(s.index.tip.hash, a[2]!.hashHex());
  const child = makeBlock(bad.hashHex(), 5, [coinbase(5, 1n)], 1_600_000_501);
  const rc = (await submit(s, child)).result as { status: string; reason: string };
  assert.deepEqual([rc.status, rc.reason], ['rejected', 'bad-prevblk']);
  // A spend of a coin that does not exist fails to connect.
  const spend = new Transaction();
  spend.vin.push(new TxIn(new Outpoint(new Uint8Array(32).fill(9), 0)));
  spend.vout.push(new TxOut(1n, Uint8Array.of(0x51)));
  const b2 = makeBlock(a[2]!.hashHex(), 4, [coinbase(4, 5n), spend], 1_600_000_600);
  const r2 = (await submit(s, b2)).result as { status: string; reason: string };
  assert.deepEqual([r2.status, r2.reason], ['rejected', 'bad-txns-inputs-missingorspent']);
  const orphan = makeBlock('11'.repeat(32), 9, [coinbase(9, 5n)], 1_600_000_700);
  assert.equal(((await submit(s, orphan)).result as { status: string }).status, 'inconclusive');
  const garbage = (await s.write({ op: 'submitBlock', raw: Uint8Array.of(1, 2, 3) })).result as { status: string; reason: string };
  assert.equal(garbage.status, 'rejected');
  assert.match(garbage.reason, /Block decode failed/);
});

test('chain store: a block failing ContextualCheckBlock is refused before it is stored, one failing to connect is not kept parsed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-chain-'));
  let s = await open(dir);
  const a = extend(genesis.hashHex(), 0, 2, 1, 1_600_000_100);
  for (const b of a) await submit(s, b);
  const bad = makeBlock(a[1]!.hashHex(), 3, [coinbase(3, 667n)], 1_600_000_500);
  const r = (await submit(s, bad)).result as { status: string; reason: string; dos: number };
  assert.deepEqual([r.status, r.reason, r.dos], ['rejected', 'tx-overwinter-active', 100]);
  assert.equal(s.index.get(bad.hashHex()), undefined, 'not in the block index');
  assert.equal((await s.read({ op: 'rawBlock', hash: bad.hashHex() })) ?? null, null, 'its bytes are not held');
  // Not remembered as failed (komodod's "future block" window): submitted again, it is checked again.
  const again = (await submit(s, bad)).result as { status: string; reason: string };
  assert.deepEqual([again.status, again.reason], ['rejected', 'tx-overwinter-active']);
  // A child of it is an orphan: its parent is unknown.
  const child = makeBlock(bad.hashHex(), 4, [coinbase(4, 1n)], 1_600_000_501);
  assert.equal(((await submit(s, child)).result as { status: string }).status, 'inconclusive');
  await s.close();
  s = await open(dir);
  assert.equal(s.index.get(bad.hashHex()), undefined, 'nor after a restart');
  assert.equal(s.index.tip.hash, a[1]!.hashHex());

  // A block that passes those checks is stored, then fails to connect: marked failed, its parsed form let go.
  const spend = new Transaction();
  spend.vin.push(new TxIn(new Outpoint(new Uint8Array(32).fill(9), 0)));
  spend.vout.push(new TxOut(1n, Uint8Array.of(0x51)));
  const b2 = makeBlock(a[1]!.hashHex(), 3, [coinbase(3, 5n), spend], 1_600_000_600);
  const r2 = (await submit(s, b2)).result as { status: string; reason: string };
  assert.deepEqual([r2.status, r2.reason], ['rejected', 'bad-txns-inputs-missingorspent']);
  assert.equal(s.index.get(b2.hashHex())?.failed, true);
  assert.equal((s as unknown as { parsed: Map<string, unknown> }).parsed.has(b2.hashHex()), false);
  assert.equal(((await submit(s, b2)).result as { status: string }).status, 'duplicate-invalid');
});

test('chain store: a torn last line (killed mid-write) restarts consistent', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-chain-'));
  let s = await open(dir);
  const a = extend(genesis.hashHex(), 0, 4, 1, 1_600_000_100);
  for (const b of a.slice(0, 3)) await submit(s, b);
  // Simulate a crash while block 4 was being written: its line is cut in half, no tip record.
  const blocksFile = join(dir, 'blocks.db');
  const before = readFileSync(blocksFile, 'utf8');
  const line = JSON.stringify({ _id: a[3]!.hashHex(), raw: Buffer.from(a[3]!.toRaw()).toString('base64') });
  appendFileSync(blocksFile, line.slice(0, line.length / 2));
  s = await open(dir);
  assert.equal(s.index.height, 3);
  assert.equal(s.index.tip.hash, a[2]!.hashHex());
  // And a crash after the block was written but before the tip record: the block is taken up.
  writeFileSync(blocksFile, before + line + '\n');
  s = await open(dir);
  assert.equal(s.index.height, 4);
  assert.equal(s.index.tip.hash, a[3]!.hashHex());
});

test('chain store: old blocks are read from their bytes (tx, block, stale tx), and a reorg deeper than the parsed ones is exact', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-chain-'));
  let s = await open(dir);
  // 100 blocks, each with a coinbase and a transaction spending the previous block's coinbase.
  const build = (from: Block, fromHeight: number, n: number, tag: number, t0: number): Block[] => {
    const out: Block[] = [];
    let prev = from;
    for (let i = 1; i <= n; i++) {
      const txs = [coinbase(fromHeight + i, 1000n, tag)];
      // The genesis coinbase is not spendable.
      if (prev !== genesis) {
        const spend = new Transaction();
        spend.vin.push(new TxIn(new Outpoint(prev.txs[0]!.hash(), 0), Uint8Array.of(0x51, tag), 0xffffffff));
        spend.vout.push(new TxOut(BigInt(i), Uint8Array.of(0x51)));
        txs.push(spend);
      }
      const b = makeBlock(prev.hashHex(), fromHeight + i, txs, t0 + i);
      out.push(b);
      prev = b;
    }
    return out;
  };
  const a = build(genesis, 0, 100, 1, 1_600_000_100);
  for (const b of a) assert.equal(((await submit(s, b)).result as { status: string }).status, 'connected');
  const check = (store: ChainStoreLogic, blocks: Block[], active: boolean) => {
    for (const b of blocks) {
      for (const tx of b.txs) {
        const found = (active ? store.read({ op: 'tx', txid: tx.txid() }) : store.read({ op: 'staleTx', txid: tx.txid() })) as { tx: Transaction; blockHash: string } | null;
        assert.ok(found, `${active ? 'tx' : 'staleTx'} ${tx.txid()}`);
        assert.equal(found.tx.toHex(), tx.toHex());
        assert.equal(found.blockHash, b.hashHex());
      }
      const info = store.read({ op: 'block', hash: b.hashHex() }) as { block: Block; txids: string[] };
      assert.equal(info.block.toHex(), b.toHex());
      assert.deepEqual(info.txids, b.txs.map((tx) => tx.txid()));
    }
  };
  check(s, a, true);
  const utxo = [...s.indexes.coins.keys()].sort();

  // A heavier branch from height 5: 95 blocks disconnected (most not parsed any more), 96 connected.
  const b = build(a[4]!, 5, 96, 2, 1_600_000_900);
  for (const blk of b) await submit(s, blk);
  assert.equal(s.index.tip.hash, b[95]!.hashHex());
  check(s, b, true);
  check(s, a.slice(5), false);
  const reorged = [...s.indexes.coins.keys()].sort();
  await s.close();

  // Restart: the same tip, coins and lookups, from the stored bytes.
  s = await open(dir);
  assert.deepEqual([...s.indexes.coins.keys()].sort(), reorged);
  check(s, [...a.slice(0, 5), ...b], true);
  // And back: the first branch's blocks reconnect from their bytes, its coins exactly as before.
  await s.write({ op: 'invalidateBlock', hash: b[0]!.hashHex() });
  assert.equal(s.index.tip.hash, a[99]!.hashHex());
  assert.deepEqual([...s.indexes.coins.keys()].sort(), utxo);
  check(s, a, true);
});
