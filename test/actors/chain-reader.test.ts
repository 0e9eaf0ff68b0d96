import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { ChainStoreLogic } from '../../src/actors/chainstore/logic.js';
import { LmdbChainReader } from '../../src/actors/chainstore/chain-reader.js';
import type { Outpoint as ReadOutpoint } from '../../src/actors/chainstore/protocol.js';
import { fanOut, mine, newRules, P2PKH, params, sign } from '../helpers/signed-chain.js';

/**
 * The chain reader reads through one LMDB snapshot kept across event-loop turns (ChainDb.heldRead),
 * let go at each of the chain store's commits: kept, it must never hide a block the store connected.
 */

test('the reader keeps its snapshot across turns and reads each block the chain store connects, from the commit on', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-chain-reader-'));
  const s = new ChainStoreLogic({ dir, rules: newRules(), baseParams: params });
  try {
    await s.load();
    const fan = await fanOut(s, 2);
    const src = s.readSource()!;
    const reader = new LmdbChainReader(() => s.readSource());
    const before = reader.tip()!;
    assert.equal(before, s.index.tip.hash);
    const held = src.db.heldRead();
    await nextTurn();
    assert.equal(src.db.heldRead(), held, 'the same snapshot on the next turn: no block was committed');
    const lane = (n: number) => ({ txid: fan.txid(), outpoints: [[fan.txid(), n] as ReadOutpoint], outputs: fan.vout.length });
    assert.notEqual(reader.coins(before, [lane(0)])![0]!.coins[0], null, 'lane 0 unspent');
    // The coins read are the outputs, each over bytes of its own (a coin's script is a view of what
    // LMDB's get copied out for it: a later read must not overwrite an earlier one's).
    const both = reader.coins(before, [{ txid: fan.txid(), outpoints: [[fan.txid(), 0], [fan.txid(), 1]], outputs: fan.vout.length }])![0]!.coins;
    for (const n of [0, 1]) {
      assert.deepEqual([both[n]!.value, [...both[n]!.script], both[n]!.coinbase], [fan.vout[n]!.value, [...fan.vout[n]!.script], false], `lane ${n}'s coin`);
    }
    assert.notEqual(both[0]!.script.buffer, both[1]!.script.buffer, 'each coin over its own bytes');

    // A block spending lane 0: the store's commit lets the snapshot go, and the reader reads the block.
    const height = s.index.height + 1;
    const tx = Transaction.ofFormat(params.txFormat(height), 0);
    tx.vin.push(new TxIn(new Outpoint(fan.hash(), 0)));
    tx.vout.push(new TxOut(fan.vout[0]!.value - 10_000n, P2PKH));
    sign(tx, 0, fan.vout[0]!.script, fan.vout[0]!.value, height);
    await mine(s, [tx]);
    const after = s.index.tip.hash;
    assert.notEqual(after, before);
    assert.notEqual(src.db.heldRead(), held, 'a new snapshot after the commit');
    assert.equal(reader.tip(), after);
    assert.equal(reader.coins(before, [lane(0)]), undefined, 'the old tip is not the snapshot\'s');
    assert.equal(reader.coins(after, [lane(0)])![0]!.coins[0], null, 'lane 0 spent by the block');
    assert.notEqual(reader.coins(after, [lane(1)])![0]!.coins[0], null, 'lane 1 still unspent');
    assert.equal(reader.coins(after, [{ txid: tx.txid(), outpoints: [], outputs: 1 }])![0]!.hasUnspentOutputs, true, 'the block\'s transaction is read');
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
