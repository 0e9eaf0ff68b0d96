import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, appendFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { Block } from '../../src/chain/block/block.js';
import { BlockHeader } from '../../src/chain/block/header.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { TxIn, Outpoint } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { fromHexReversed } from '../../src/chain/encoding/hex.js';
import { hash160 } from '../../src/chain/crypto/hash.js';
import { p2pkhScript } from '../../src/chain/script/script.js';
import { ChainStoreLogic } from '../../src/actors/chainstore/logic.js';
import { ChainDb } from '../../src/actors/chainstore/chaindb.js';
import { BlockFiles, MAX_BLOCKFILE_SIZE } from '../../src/actors/chainstore/blockfiles.js';
import type { ChainRules } from '../../src/actors/chainstore/rules.js';
import { fanOut, mine, newRules, P2PKH, params as signedParams, sign } from '../helpers/signed-chain.js';

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

/** The message start the store writes when given no chain parameters (KMD's). */
const KMD_MAGIC = Uint8Array.of(0xf9, 0xee, 0xe4, 0x8d);

async function open(dir: string, logs?: string[]): Promise<ChainStoreLogic> {
  const logic = new ChainStoreLogic({ dir, rules, now: () => 1_700_000_000, ...(logs ? { log: (m: string) => logs.push(m) } : {}) });
  await logic.load();
  return logic;
}
/** The UTXO set's outpoints, sorted. */
const utxoKeys = (s: ChainStoreLogic) => [...s.indexes.allCoins()].map((c) => `${c.txid}:${c.n}`).sort();
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
  const coinsBefore = s.indexes.coinCount;

  // A longer branch from height 2 overtakes: blocks 3..5 are disconnected, 3'..7' connected.
  const b = extend(a[1]!.hashHex(), 2, 5, 2, 1_600_000_200);
  const out = [];
  for (const blk of b) out.push((await submit(s, blk)).result as { status: string });
  assert.deepEqual(out.map((o) => o.status), ['stored', 'stored', 'stored', 'connected', 'connected']);
  assert.equal(s.index.tip.hash, b[4]!.hashHex());
  assert.equal(s.index.height, 7);
  // Coinbase outputs of the dead branch are gone, the new ones are there.
  assert.equal(s.indexes.hasCoin(a[4]!.txs[0]!.txid(), 0), false);
  assert.equal(s.indexes.hasCoin(b[4]!.txs[0]!.txid(), 0), true);
  assert.equal(s.indexes.coinCount, coinsBefore + 2);
  await s.close();

  // Restart: same tip, same coins, derived from the stored blocks.
  s = await open(dir);
  assert.equal(s.index.tip.hash, b[4]!.hashHex());
  assert.equal(s.indexes.coinCount, coinsBefore + 2);

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

test('chain store reads: coins and tx locations by txid through the shared read key, interleaved; a malformed txid finds nothing an earlier read left', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-chain-'));
  const s = await open(dir);
  const a = extend(genesis.hashHex(), 0, 4, 3, 1_600_000_100);
  for (const b of a) await submit(s, b);
  const ids = a.map((b) => b.txs[0]!.txid());
  for (let round = 0; round < 2; round++) {
    for (const [h, txid] of ids.entries()) {
      // Coin, location, existence and a missing output, one after the other: each builds its key anew.
      assert.equal(s.indexes.coin(txid, 0)?.value, a[h]!.txs[0]!.vout[0]!.value);
      assert.equal(s.indexes.txLocation(txid)?.height, h + 1);
      assert.equal(s.indexes.hasCoin(txid, 1), false);
      assert.equal(s.indexes.hasTx(txid), true);
      assert.equal(s.indexes.coin(txid, 7), undefined);
    }
  }
  // A txid whose hex stops early (or is not 64 digits) is its own key (as hashKey makes it), never the
  // previous read's bytes: found nowhere.
  const last = ids[ids.length - 1]!;
  assert.ok(s.indexes.coin(last, 0));
  for (const bad of [last.slice(0, 62) + 'zz', 'zz' + last.slice(2), last.slice(0, 62), last + '00', last.slice(0, 60) + '\u0130\u0130' + last.slice(62)]) {
    assert.equal(s.indexes.coin(bad, 0), undefined, bad);
    assert.equal(s.indexes.hasCoin(bad, 0), false, bad);
    // (One decoding to no byte at all is a zero-length key, which LMDB refuses, as it did before.)
    if (bad.startsWith('zz')) continue;
    assert.equal(s.indexes.txLocation(bad), undefined, bad);
    assert.equal(s.indexes.hasTx(bad), false, bad);
  }
  await s.close();
  rmSync(dir, { recursive: true, force: true });
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
  assert.equal((s as unknown as { store: { parsed: Map<string, unknown> } }).store.parsed.has(b2.hashHex()), false);
  assert.equal(((await submit(s, b2)).result as { status: string }).status, 'duplicate-invalid');
});

test('chain store: a block file cut short (killed mid-write) is truncated at start; a whole block written but not indexed is taken up', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-chain-'));
  const logs: string[] = [];
  let s = await open(dir, logs);
  const a = extend(genesis.hashHex(), 0, 4, 1, 1_600_000_100);
  for (const b of a.slice(0, 3)) await submit(s, b);
  await s.close();
  // komodod's layout: genesis first, then each block as message start, length (LE), bytes.
  const file = join(dir, 'blocks', 'blk00000.dat');
  const before = readFileSync(file);
  const record = (b: Block) => {
    const raw = b.toRaw();
    const h = Buffer.alloc(8);
    h.set(KMD_MAGIC, 0);
    h.writeUInt32LE(raw.length, 4);
    return Buffer.concat([h, raw]);
  };
  assert.equal(before.length, [genesis, ...a.slice(0, 3)].reduce((n, b) => n + record(b).length, 0));
  assert.deepEqual(before.subarray(0, record(genesis).length), record(genesis));
  assert.deepEqual(before.subarray(before.length - record(a[2]!).length), record(a[2]!));
  // A crash while block 4 was being appended: its record is cut in half, nothing indexes it.
  const rec4 = record(a[3]!);
  appendFileSync(file, rec4.subarray(0, rec4.length >> 1));
  s = await open(dir, logs);
  assert.equal(s.index.height, 3);
  assert.equal(s.index.tip.hash, a[2]!.hashHex());
  assert.equal(readFileSync(file).length, before.length, 'the torn tail is cut off');
  assert.ok(logs.some((l) => l === `blk00000.dat: cut off a torn tail of ${rec4.length >> 1} bytes at ${before.length} (a write cut short when the process was killed)`), logs.join('\n'));
  await s.close();
  // A crash after block 4 was fsynced but before the transaction indexing it committed: taken up.
  appendFileSync(file, rec4);
  logs.length = 0;
  s = await open(dir, logs);
  assert.equal(s.index.height, 4);
  assert.equal(s.index.tip.hash, a[3]!.hashHex());
  assert.ok(logs.some((l) => l.startsWith(`took up block ${a[3]!.hashHex()}`)), logs.join('\n'));
  await s.close();
  // Indexed for good: the next start neither takes it up again nor cuts anything.
  logs.length = 0;
  s = await open(dir, logs);
  assert.equal(s.index.height, 4);
  assert.ok(!logs.some((l) => /took up|cut off/.test(l)), logs.join('\n'));
  await s.close();
});

test('block files: a record that would take a file to 128 MiB goes to the next file, as FindBlockPos does', () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-blk-'));
  const files = new BlockFiles(dir, KMD_MAGIC);
  const raw = genesis.toRaw();
  // Just below the limit (a sparse file): this record still fits, the next does not.
  files.setAppendPoint(0, MAX_BLOCKFILE_SIZE - 2 * (raw.length + 8));
  const p1 = files.append(raw);
  assert.deepEqual(p1, { file: 0, pos: MAX_BLOCKFILE_SIZE - 2 * (raw.length + 8) + 8, size: raw.length });
  const p2 = files.append(raw);
  assert.deepEqual(p2, { file: 1, pos: 8, size: raw.length }, 'nSize + nAddSize >= MAX_BLOCKFILE_SIZE: a new file');
  files.sync();
  assert.deepEqual(files.list(), [0, 1]);
  assert.deepEqual(files.readBlock(p1), raw);
  assert.deepEqual(files.readBlock(p2), raw);
  assert.ok(files.recordMatches(p2));
  files.close();
  rmSync(dir, { recursive: true, force: true });
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
  const utxo = utxoKeys(s);

  // A heavier branch from height 5: 95 blocks disconnected (most not parsed any more), 96 connected.
  const b = build(a[4]!, 5, 96, 2, 1_600_000_900);
  for (const blk of b) await submit(s, blk);
  assert.equal(s.index.tip.hash, b[95]!.hashHex());
  check(s, b, true);
  check(s, a.slice(5), false);
  const reorged = utxoKeys(s);
  await s.close();

  // Restart: the same tip, coins and lookups, from the stored bytes.
  s = await open(dir);
  assert.deepEqual(utxoKeys(s), reorged);
  check(s, [...a.slice(0, 5), ...b], true);
  // And back: the first branch's blocks reconnect from their bytes, its coins exactly as before.
  await s.write({ op: 'invalidateBlock', hash: b[0]!.hashHex() });
  assert.equal(s.index.tip.hash, a[99]!.hashHex());
  assert.deepEqual(utxoKeys(s), utxo);
  check(s, a, true);
});

test('chain store: a reorg of 200 blocks disconnects them with their undo data and reconnects to an identical state, key by key', async () => {
  const dirs = [mkdtempSync(join(tmpdir(), 'acnode-reorg-')), mkdtempSync(join(tmpdir(), 'acnode-reorg-'))];
  const pay = (tag: number) => p2pkhScript(hash160(Uint8Array.of(tag, 1, 2, 3)));
  // Each block: a coinbase paying an address, and a spend of the previous block's coinbase into two
  // outputs at two addresses (so the UTXO set, spent, tx and both address indexes all change).
  // A branch's first block spends nothing: what the fork point's block made and the other branch
  // spent must be restored by the undo data and stay unspent.
  const build = (from: Block, fromHeight: number, n: number, tag: number, t0: number, spendFirst: boolean): Block[] => {
    const out: Block[] = [];
    let prev = from;
    for (let i = 1; i <= n; i++) {
      const h = fromHeight + i;
      const cb = coinbase(h, 1000n, tag);
      cb.vout[0]!.script = pay(h % 7);
      const txs = [cb];
      if (prev !== genesis && (i > 1 || spendFirst)) {
        const spend = new Transaction();
        spend.vin.push(new TxIn(new Outpoint(prev.txs[0]!.hash(), 0), Uint8Array.of(0x51, tag), 0xffffffff));
        spend.vout.push(new TxOut(600n, pay(h % 5)), new TxOut(399n, pay((h + tag) % 3)));
        txs.push(spend);
      }
      const b = makeBlock(prev.hashHex(), h, txs, t0 + i);
      out.push(b);
      prev = b;
    }
    return out;
  };
  /** The whole chain state: every coin, every address, spent and tx index row. */
  const state = (st: ChainStoreLogic) => ({
    coins: [...st.indexes.allCoins()].map(({ txid, n, coin }) => `${txid}:${n} ${coin.value} ${coin.height} ${coin.coinbase} ${Buffer.from(coin.script).toString('hex')}`),
    address: [...st.indexes.allAddressRows()],
    index: [...st.indexes.allIndexRows()],
  });
  const s = await open(dirs[0]!);
  const a = build(genesis, 0, 201, 1, 1_600_000_100, true);
  for (const blk of a) await submit(s, blk);
  const onA = state(s);
  assert.equal(onA.coins.length, 1 + 2 * 200);
  // A heavier branch from block 1: the 200 blocks after it are disconnected.
  const b = build(a[0]!, 1, 201, 2, 1_600_100_000, false);
  const notices: string[] = [];
  for (const blk of b) for (const n of (await submit(s, blk)).notices ?? []) notices.push(n.type);
  assert.equal(s.index.tip.hash, b[200]!.hashHex());
  assert.equal(notices.filter((n) => n === 'blockDisconnected').length, 200);
  // The same as a store that only ever saw that branch.
  const fresh = await open(dirs[1]!);
  for (const blk of [a[0]!, ...b]) await submit(fresh, blk);
  assert.deepEqual(state(s), state(fresh));
  await fresh.close();
  // And back: invalidating the branch reconnects the first one to exactly its state.
  await s.write({ op: 'invalidateBlock', hash: b[0]!.hashHex() });
  assert.equal(s.index.tip.hash, a[200]!.hashHex());
  assert.deepEqual(state(s), onA);
  // The wallet's scan (coinsByScript) through the address index finds what a pass over the UTXO set finds, in its order.
  const scripts = [pay(0), pay(1), pay(4)].map((x) => Buffer.from(x).toString('hex'));
  const scanned = [...s.indexes.allCoins()].filter((c) => scripts.includes(Buffer.from(c.coin.script).toString('hex'))).map((c) => `${c.txid}:${c.n}`);
  const viaIndex = (s.read({ op: 'coinsByScript', scripts }) as { coins: { txid: string; n: number }[] }).coins.map((c) => `${c.txid}:${c.n}`);
  assert.ok(scanned.length > 100);
  assert.deepEqual(viaIndex, scanned);
  await s.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test('chain store: value pools are kept with each connected block, so a restarted store answers them without reading old blocks', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-pools-'));
  let s = await open(dir);
  const a = extend(genesis.hashHex(), 0, 30, 1, 1_600_000_100);
  for (const b of a) await submit(s, b);
  type Pools = { delta: { supply: bigint } | null; total: { supply: bigint; transparent: bigint } | null };
  const before = s.read({ op: 'valuePools', hash: a[29]!.hashHex() }) as Pools;
  // Each block's coinbase pays 1001: the supply is genesis's 50 and 30 × 1001.
  assert.equal(before.total!.supply, 50n + 30n * 1001n);
  assert.equal(before.delta!.supply, 1001n);
  await s.close();
  // Block 3's bytes damaged in the block file: the tip's pools must not need them.
  const file = join(dir, 'blocks', 'blk00000.dat');
  const data = readFileSync(file);
  const raw3 = Buffer.from(a[2]!.toRaw());
  const at = data.indexOf(raw3) + raw3.length - 6;
  data[at] = data[at]! ^ 0xff;
  writeFileSync(file, data);
  s = await open(dir);
  assert.deepEqual(s.read({ op: 'valuePools', hash: a[29]!.hashHex() }), before);
  assert.throws(() => s.read({ op: 'block', hash: a[2]!.hashHex() }), /is damaged/);
  await s.close();
  rmSync(dir, { recursive: true, force: true });
});

test('chain store: reads answered while a block commits see the chain before it, tip and indexes alike; after the answer, the block', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-chain-'));
  const s = await open(dir);
  try {
    const [b1, b2] = extend(genesis.hashHex(), 0, 2, 1, 1_600_000_100);
    await submit(s, b1!);
    const cb1 = b1!.txs[0]!.txid();
    const cb2 = b2!.txs[0]!.txid();
    const state = () => ({
      tip: (s.read({ op: 'tip' }) as { hash: string }).hash,
      tx: (s.read({ op: 'tx', txid: cb2 }) as { blockHash: string } | null)?.blockHash ?? null,
      coins: (s.read({ op: 'coins', outpoints: [[cb1, 0], [cb2, 0]] }) as (object | null)[]).map((c) => c !== null),
    });
    const before = { tip: b1!.hashHex(), tx: null, coins: [true, false] };
    // The connect's write transaction runs in a later turn of the event loop (ChainDb.writeVisible):
    // a read answered meanwhile sees block 1's chain, in memory and in LMDB.
    const pending = submit(s, b2!);
    assert.deepEqual(state(), before);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(state(), before);
    assert.equal(((await pending).result as { status: string }).status, 'connected');
    // Once answered, every read sees the block (getblock, gettxout right after submitblock).
    assert.deepEqual(state(), { tip: b2!.hashHex(), tx: b2!.hashHex(), coins: [true, true] });
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('chain store: -reindex commits its blocks one synchronous transaction each; a block received after it commits visible first, synced after', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-chain-'));
  let s = await open(dir);
  const blocks = extend(genesis.hashHex(), 0, 6, 1, 1_600_000_100);
  for (const b of blocks) await submit(s, b);
  await s.close();
  // Every commit, by the way it was made and whether it moved the tip, in order.
  const seen: string[] = [];
  const write = ChainDb.prototype.write;
  const writeVisible = ChainDb.prototype.writeVisible;
  ChainDb.prototype.write = function <T>(this: ChainDb, fn: () => T): T {
    const tip = this.getMeta<string>('tip');
    const out = write.call(this, fn) as T;
    seen.push(`write${this.getMeta<string>('tip') !== tip ? ' tip' : ''}`);
    return out;
  };
  ChainDb.prototype.writeVisible = async function <T>(this: ChainDb, fn: () => T, visible: () => boolean): Promise<T> {
    const tip = this.getMeta<string>('tip');
    const out = (await writeVisible.call(this, fn, visible)) as T;
    seen.push(`visible${this.getMeta<string>('tip') !== tip ? ' tip' : ''}`);
    return out;
  };
  try {
    s = new ChainStoreLogic({ dir, rules, now: () => 1_700_000_000, reindex: true });
    await s.load();
    assert.equal(s.index.tip.hash, blocks[5]!.hashHex());
    // The six blocks: six transactions, each moving the tip, connected as the file is read (a
    // synchronous walk), then the file's commit and the one ending the reindex; before them, only
    // synchronous commits too (the one emptying the chain state among them).
    assert.deepEqual(seen.slice(-8), [...Array(6).fill('write tip'), 'write', 'write']);
    assert.ok(seen.every((c) => c.startsWith('write')), seen.join(', '));
    // A block after the reindex: one commit, visible when the connect answers.
    seen.length = 0;
    const next = extend(blocks[5]!.hashHex(), 6, 1, 1, 1_600_000_200)[0]!;
    await submit(s, next);
    assert.deepEqual(seen, ['visible tip']);
    const db = (s as unknown as { store: { db: ChainDb } }).store.db;
    assert.equal(db.getMeta<string>('tip'), next.hashHex());
    await db.synced();
    await s.close();
  } finally {
    ChainDb.prototype.write = write;
    ChainDb.prototype.writeVisible = writeVisible;
  }
  rmSync(dir, { recursive: true, force: true });
});

/**
 * getrawtransaction of a transaction off the active chain: komodod's txindex is written by
 * ConnectBlock alone and never erased by DisconnectBlock, so it names the block the transaction was
 * in when that block was last disconnected; a block never connected is not in it. acnode keeps those
 * rows as blocks are disconnected (a lookup, not a pass over the block index), and fills them once
 * for a chain state written before it kept them.
 */
test('chain store: staleTx names the block a transaction left last, never a block never connected, and survives restart and an older chain state', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-stale-'));
  let s = await open(dir);
  const p1 = makeBlock(genesis.hashHex(), 1, [coinbase(1, 1000n)], 1_600_000_001);
  const x = new Transaction();
  x.vin.push(new TxIn(new Outpoint(p1.txs[0]!.hash(), 0), Uint8Array.of(0x51), 0xffffffff));
  x.vout.push(new TxOut(999n, Uint8Array.of(0x51)));
  const chain = (from: Block, fromHeight: number, n: number, tag: number, withX: boolean): Block[] => {
    const out: Block[] = [];
    let prev = from;
    for (let i = 1; i <= n; i++) {
      const b = makeBlock(prev.hashHex(), fromHeight + i, [coinbase(fromHeight + i, 1000n, tag), ...(withX && i === 1 ? [x] : [])], 1_600_000_010 * tag + i);
      out.push(b);
      prev = b;
    }
    return out;
  };
  const a = chain(p1, 1, 1, 1, true);
  const b = chain(p1, 1, 2, 2, true);
  const c = chain(p1, 1, 3, 3, false);
  const stale = (st: ChainStoreLogic, txid: string) => (st.read({ op: 'staleTx', txid }) as { tx: Transaction; blockHash: string } | null);
  const where = (st: ChainStoreLogic, txid: string) => {
    const f = stale(st, txid);
    if (f) assert.equal(f.tx.txid(), txid);
    return f?.blockHash ?? null;
  };
  for (const blk of [p1, a[0]!, b[0]!]) await submit(s, blk);
  assert.equal(s.index.tip.hash, a[0]!.hashHex(), 'b[0] has no more work: stored, never connected');
  assert.equal(where(s, b[0]!.txs[0]!.txid()), null, 'a block never connected is not in the txindex');
  assert.equal(where(s, x.txid()), null, 'x is on the active chain');
  await submit(s, b[1]!);
  assert.equal(s.index.tip.hash, b[1]!.hashHex());
  assert.equal(where(s, a[0]!.txs[0]!.txid()), a[0]!.hashHex());
  for (const blk of c) await submit(s, blk);
  assert.equal(s.index.tip.hash, c[2]!.hashHex());
  const answers = () => [x, a[0]!.txs[0]!, b[0]!.txs[0]!, b[1]!.txs[0]!, c[0]!.txs[0]!].map((t) => where(s, t.txid()));
  // x left a[0] first, then b[0]: its txindex entry is b[0]'s.
  const expected = [b[0]!.hashHex(), a[0]!.hashHex(), b[0]!.hashHex(), b[1]!.hashHex(), null];
  assert.deepEqual(answers(), expected);
  assert.equal(where(s, '22'.repeat(32)), null);
  await s.close();

  s = await open(dir);
  assert.deepEqual(answers(), expected, 'after a restart');
  await s.close();

  // A chain state written before the rows were kept: filled once at start, the later block winning.
  const db = ChainDb.open(join(dir, 'chaindb'));
  const rows = db.index('staleTxs');
  db.write(() => {
    rows.clearSync();
    db.removeMeta('staleTxs');
  });
  await db.close();
  s = await open(dir);
  assert.deepEqual(answers(), expected, 'filled from an older chain state');

  // Back to b: x is on the active chain again (its row is shadowed), c's blocks are stale now.
  await s.write({ op: 'invalidateBlock', hash: c[0]!.hashHex() });
  assert.equal(s.index.tip.hash, b[1]!.hashHex());
  assert.deepEqual(answers(), [null, a[0]!.hashHex(), null, null, c[0]!.hashHex()]);
  await s.close();
  rmSync(dir, { recursive: true, force: true });
});

test('haveCoins (p2p AlreadyHave\'s pcoinsTip->HaveCoins): a transaction with an unspent output, not one fully spent nor one unknown, as the outpoints say', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-havecoins-'));
  const s = new ChainStoreLogic({ dir, rules: newRules(), baseParams: signedParams });
  try {
    await s.load();
    const fan = await fanOut(s, 1);
    const premine = (s.read({ op: 'block', hash: s.read({ op: 'blockHash', height: 1 }) as string }) as { block: Block } | null)?.block.txs[0];
    // Both of the fan's outputs spent in block 3: none left.
    const spend = Transaction.ofFormat(signedParams.txFormat(3), 0);
    spend.vin.push(new TxIn(new Outpoint(fan.hash(), 0)), new TxIn(new Outpoint(fan.hash(), 1)));
    const value = fan.vout[0]!.value + fan.vout[1]!.value;
    spend.vout.push(new TxOut(value - 10_000n, P2PKH));
    sign(spend, 0, fan.vout[0]!.script, fan.vout[0]!.value, 3);
    sign(spend, 1, fan.vout[1]!.script, fan.vout[1]!.value, 3);
    await mine(s, [spend]);
    const unknown = '11'.repeat(32);
    const txids = [fan.txid(), spend.txid(), unknown, ...(premine ? [premine.txid()] : [])];
    const have = s.read({ op: 'haveCoins', txids }) as boolean[];
    assert.deepEqual(have.slice(0, 3), [false, true, false], 'the fan fully spent, its spend unspent, an unknown txid');
    // The oracle for any transaction: one of its outpoints in the UTXO set.
    for (const tx of [fan, spend, ...(premine ? [premine] : [])]) {
      const coins = s.read({ op: 'coins', outpoints: tx.vout.map((_, n) => [tx.txid(), n] as [string, number]) }) as unknown[];
      assert.equal(have[txids.indexOf(tx.txid())], coins.some((c) => c !== null), tx.txid());
    }
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
