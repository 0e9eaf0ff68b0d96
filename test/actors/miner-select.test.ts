import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SAPLING_VERSION_GROUP_ID } from '../../src/chain/consensus/tx.js';
import { ChainParams } from '../../src/chain/params/chain-params.js';
import { p2pkhScript } from '../../src/chain/script/script.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { fromHexReversed } from '../../src/chain/encoding/hex.js';
import { validationContext, type Coin } from '../../src/chain/validation/index.js';
import { outpointKey } from '../../src/chain/tx/input.js';
import { chainOutpoints } from '../../src/actors/miner/select.js';
import { selectForBlock } from '../../src/actors/miner/priority.js';

/**
 * The miner's choice of mempool transactions (CreateNewBlock, selectForBlock): one that is not final,
 * expired, spends a missing, already-taken or immature coin, or more than its inputs hold is left
 * out, with its children, and the rest are taken. selectForBlock orders by priority and fee rate, so
 * the test asserts which are taken, not their order (beyond parents before children).
 */

const ctx = validationContext(ChainParams.fromArgs({ ac_name: 'SELTEST', ac_cbmaturity: '2' }));
const SCRIPT = p2pkhScript(new Uint8Array(20).fill(1));
const HEIGHT = 50;
const MTP = 1_700_000_000;

function txOf(inputs: [string, number][], value: bigint, opts: { lockTime?: number; expiry?: number; sequence?: number } = {}): { tx: Transaction; txid: string; size: number } {
  const tx = new Transaction();
  tx.overwintered = true;
  tx.version = 4;
  tx.versionGroupId = SAPLING_VERSION_GROUP_ID;
  tx.expiryHeight = opts.expiry ?? 0;
  tx.lockTime = opts.lockTime ?? 0;
  tx.vin = inputs.map(([t, n]) => new TxIn(new Outpoint(fromHexReversed(t), n), new Uint8Array(0), opts.sequence ?? 0xffffffff));
  tx.vout = [new TxOut(value, SCRIPT)];
  return { tx, txid: tx.txid(), size: tx.toRaw().length };
}

// Coins of 0.01 and fees of thousands of satoshis: every valid one pays well over the relay fee rate.
const coin = (height: number, coinbase = false): Coin => ({ value: 1_000_000n, script: SCRIPT, height, coinbase, txVersion: 4 });
const chainTx = (i: number) => String(i).padStart(64, 'a');

test('selectForBlock leaves out what komodod skips and takes the rest', () => {
  const coins = new Map<string, Coin>([
    [outpointKey(chainTx(1), 0), coin(10)],
    [outpointKey(chainTx(2), 0), coin(HEIGHT - 1, true)], // coinbase at depth 1 for block 50: immature (2)
    [outpointKey(chainTx(3), 0), coin(HEIGHT - 2, true)], // depth 2: mature
    [outpointKey(chainTx(4), 0), coin(10)],
    [outpointKey(chainTx(5), 0), coin(10)],
    [outpointKey(chainTx(6), 0), coin(10)],
  ]);
  const ok = txOf([[chainTx(1), 0]], 900_000n);
  const okChild = txOf([[ok.txid, 0]], 800_000n);
  const immature = txOf([[chainTx(2), 0]], 900_000n);
  const immatureChild = txOf([[immature.txid, 0]], 800_000n);
  const mature = txOf([[chainTx(3), 0]], 900_000n);
  const missing = txOf([[chainTx(9), 0]], 900_000n);
  const missingChild = txOf([[missing.txid, 0]], 800_000n);
  const nonFinal = txOf([[chainTx(4), 0]], 900_000n, { lockTime: HEIGHT, sequence: 0 });
  const expired = txOf([[chainTx(5), 0]], 900_000n, { expiry: HEIGHT - 1 });
  const overspend = txOf([[chainTx(6), 0]], 1_000_001n);
  // Spends the output `ok` spent already, at a lower fee rate: `ok` is served first and gets it.
  const double = txOf([[chainTx(1), 0]], 950_000n);
  const entries = [ok, okChild, immature, immatureChild, mature, missing, missingChild, nonFinal, expired, overspend, double];
  const select = (height: number) => {
    const taken = selectForBlock(entries, coins, height, MTP, ctx, new Map(), 2_000_000).map((t) => t.entry.txid);
    // Parents before children, whatever the order of the rest.
    for (const [parent, child] of [[ok, okChild], [immature, immatureChild]] as const) {
      if (taken.includes(child.txid)) assert.ok(taken.indexOf(parent.txid) < taken.indexOf(child.txid), 'a parent before its child');
    }
    return new Set(taken);
  };
  const names = new Map(Object.entries({ ok, okChild, immature, immatureChild, mature, missing, missingChild, nonFinal, expired, overspend, double }).map(([k, v]) => [v.txid, k]));
  const named = (set: Set<string>) => [...set].map((t) => names.get(t)).sort();
  assert.deepEqual(named(select(HEIGHT)), ['mature', 'ok', 'okChild']);
  // A block later the coinbase is mature and the lock time passed.
  assert.deepEqual(named(select(HEIGHT + 1)), ['immature', 'immatureChild', 'mature', 'nonFinal', 'ok', 'okChild']);
});

test('chainOutpoints names the inputs that are not outputs of other entries', () => {
  const a = txOf([[chainTx(1), 0], [chainTx(1), 1]], 900n);
  const b = txOf([[a.txid, 0], [chainTx(2), 3]], 800n);
  assert.deepEqual(chainOutpoints([a, b]), [[chainTx(1), 0], [chainTx(1), 1], [chainTx(2), 3]]);
});
