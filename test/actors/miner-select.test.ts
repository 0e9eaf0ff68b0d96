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
import { blockCandidates, chainOutpoints } from '../../src/actors/miner/select.js';

/**
 * The miner's choice of mempool transactions (CreateNewBlock): one that is not final, expired, spends
 * a missing, already-taken or immature coin is left out, with its children, and the rest are taken.
 */

const ctx = validationContext(ChainParams.fromArgs({ ac_name: 'SELTEST', ac_cbmaturity: '2' }));
const SCRIPT = p2pkhScript(new Uint8Array(20).fill(1));
const HEIGHT = 50;
const MTP = 1_700_000_000;

function txOf(inputs: [string, number][], value: bigint, opts: { lockTime?: number; expiry?: number; sequence?: number } = {}): { tx: Transaction; txid: string } {
  const tx = new Transaction();
  tx.overwintered = true;
  tx.version = 4;
  tx.versionGroupId = SAPLING_VERSION_GROUP_ID;
  tx.expiryHeight = opts.expiry ?? 0;
  tx.lockTime = opts.lockTime ?? 0;
  tx.vin = inputs.map(([t, n]) => new TxIn(new Outpoint(fromHexReversed(t), n), new Uint8Array(0), opts.sequence ?? 0xffffffff));
  tx.vout = [new TxOut(value, SCRIPT)];
  return { tx, txid: tx.txid() };
}

const coin = (height: number, coinbase = false): Coin => ({ value: 1000n, script: SCRIPT, height, coinbase, txVersion: 4 });
const chainTx = (i: number) => String(i).padStart(64, 'a');

test('blockCandidates leaves out what komodod skips and takes the rest', () => {
  const coins = new Map<string, Coin>([
    [outpointKey(chainTx(1), 0), coin(10)],
    [outpointKey(chainTx(2), 0), coin(HEIGHT - 1, true)], // coinbase at depth 1 for block 50: immature (2)
    [outpointKey(chainTx(3), 0), coin(HEIGHT - 2, true)], // depth 2: mature
    [outpointKey(chainTx(4), 0), coin(10)],
    [outpointKey(chainTx(5), 0), coin(10)],
    [outpointKey(chainTx(6), 0), coin(10)],
  ]);
  const ok = txOf([[chainTx(1), 0]], 900n);
  const okChild = txOf([[ok.txid, 0]], 800n);
  const immature = txOf([[chainTx(2), 0]], 900n);
  const immatureChild = txOf([[immature.txid, 0]], 800n);
  const mature = txOf([[chainTx(3), 0]], 900n);
  const missing = txOf([[chainTx(9), 0]], 900n);
  const missingChild = txOf([[missing.txid, 0]], 800n);
  const nonFinal = txOf([[chainTx(4), 0]], 900n, { lockTime: HEIGHT, sequence: 0 });
  const expired = txOf([[chainTx(5), 0]], 900n, { expiry: HEIGHT - 1 });
  const overspend = txOf([[chainTx(6), 0]], 1001n);
  // Spends the output `ok` spent already: only the first one taken gets it.
  const double = txOf([[chainTx(1), 0]], 700n);
  const entries = [ok, okChild, immature, immatureChild, mature, missing, missingChild, nonFinal, expired, overspend, double];

  const taken = blockCandidates(entries, coins, HEIGHT, MTP, ctx).map((e) => e.txid);
  assert.deepEqual(taken, [ok.txid, okChild.txid, mature.txid]);
  // A block later the coinbase is mature and the lock time passed.
  const later = blockCandidates(entries, coins, HEIGHT + 1, MTP, ctx).map((e) => e.txid);
  assert.deepEqual(later, [ok.txid, okChild.txid, immature.txid, immatureChild.txid, mature.txid, nonFinal.txid]);
});

test('chainOutpoints names the inputs that are not outputs of other entries', () => {
  const a = txOf([[chainTx(1), 0], [chainTx(1), 1]], 900n);
  const b = txOf([[a.txid, 0], [chainTx(2), 3]], 800n);
  assert.deepEqual(chainOutpoints([a, b]), [[chainTx(1), 0], [chainTx(1), 1], [chainTx(2), 3]]);
});
