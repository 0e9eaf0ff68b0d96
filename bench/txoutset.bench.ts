/**
 * gettxoutsetinfo (issue 30, Benchmarks): the chain store's GetStats walk over ChainIndexes in LMDB,
 * in process, on a UTXO set of 10^5 outputs against one of 10^3, as the cost per output (ratio ≤ 1.5).
 * komodod's hash_serialized is one hash over the whole set in key order, so the call walks the set
 * (as komodod does); what must hold is that each output costs the same however big the set is.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hash160 } from '../src/chain/crypto/hash.js';
import { toHex } from '../src/chain/encoding/hex.js';
import { p2pkhScript } from '../src/chain/script/script.js';
import { Transaction } from '../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../src/chain/tx/input.js';
import { TxOut } from '../src/chain/tx/output.js';
import { ChainDb } from '../src/actors/chainstore/chaindb.js';
import { ChainIndexes } from '../src/actors/chainstore/chainstate.js';
import { opsPerSecond, type Row } from './lib.js';

/** A UTXO set of `outputs` outputs, two per transaction, in blocks of 1,000 transactions. */
function utxoSet(outputs: number) {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-bench-utxo-'));
  const db = ChainDb.open(join(dir, 'chaindb'));
  const ix = new ChainIndexes(db, false);
  const txCount = outputs / 2;
  for (let b = 0; b * 1000 < txCount; b++) {
    const txs: Transaction[] = [];
    const txids: string[] = [];
    for (let i = b * 1000; i < Math.min(txCount, (b + 1) * 1000); i++) {
      const tx = new Transaction();
      tx.vin.push(new TxIn(Outpoint.null(), Uint8Array.of(0x01, 0x01), 0xffffffff));
      tx.vout = [new TxOut(1000n + BigInt(i), p2pkhScript(hash160(randomBytes(33)))), new TxOut(5000n, p2pkhScript(hash160(randomBytes(33))))];
      txs.push(tx);
      txids.push(toHex(randomBytes(32)));
    }
    db.write(() => ix.connect(txs, txids, toHex(randomBytes(32)), b + 1));
  }
  return {
    ix,
    close: async () => {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function txoutsetBenchmarks(): Promise<Row[]> {
  const best = '00'.repeat(32);
  const perOutput = (ix: ChainIndexes, n: number, ms: number) => 1e6 / (opsPerSecond(() => void ix.utxoStats(best), ms) * n);
  const small = utxoSet(1_000);
  const large = utxoSet(100_000);
  if (small.ix.utxoStats(best).txouts !== 1_000 || large.ix.utxoStats(best).txouts !== 100_000) throw new Error('bench setup: wrong set sizes');
  const s = perOutput(small.ix, 1_000, 700);
  const l = perOutput(large.ix, 100_000, 3000);
  await small.close();
  await large.close();
  return [{ name: 'gettxoutsetinfo (GetStats walk): per output, 10^5 outputs', value: l, unit: 'µs', limitName: 'per output, 10^3 outputs', limit: s, target: { kind: 'max', ratio: 1.5 } }];
}
