import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hash160 } from '../../src/chain/crypto/hash.js';
import { p2pkhScript } from '../../src/chain/script/script.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { Block } from '../../src/chain/block/block.js';
import { ChainStoreLogic } from '../../src/actors/chainstore/logic.js';
import { LmdbChainReader, type ReadSource } from '../../src/actors/chainstore/chain-reader.js';
import { snapshotOf } from '../helpers/chain-snapshot.js';
import type { ChainReader, ChainStoreProtocol, ChainStoreRequest } from '../../src/actors/chainstore/protocol.js';
import { MempoolLogic } from '../../src/actors/mempool/logic.js';
import type { MempoolProtocol, MempoolRequest } from '../../src/actors/mempool/protocol.js';
import { MinerLogic } from '../../src/actors/miner/logic.js';
import type { BlockTemplate } from '../../src/actors/miner/protocol.js';
import type { Asker } from '../../src/actors/ask.js';
import { fanOut, mine, newRules, P2PKH, params, sign } from '../helpers/signed-chain.js';

/**
 * The miner reads the coins of the block it builds through the chain reader (the chain store's LMDB
 * environment), at the tip its template was read at, instead of asking the chain store; a snapshot at
 * another tip, or no reader, and it asks as before. The blocks are the same either way.
 */

const PAY_TO = Uint8Array.from({ length: 33 }, (_, i) => (i === 0 ? 2 : i));
// A fixed clock: the templates built each way carry the same time.
const CLOCK_MS = 1_900_000_000_000;

function spend(from: Transaction, n: number, height: number, fee: bigint): Transaction {
  const tx = Transaction.ofFormat(params.txFormat(height), 0);
  const value = from.vout[n]!.value;
  tx.vin.push(new TxIn(new Outpoint(from.hash(), n)));
  tx.vout.push(new TxOut(value - fee, P2PKH), new TxOut(0n, p2pkhScript(hash160(Uint8Array.of(height, n)))));
  sign(tx, 0, from.vout[n]!.script, value, height);
  return tx;
}

/** Askers answering from the logics directly, counting the chain store's asks by op. */
function askers(s: ChainStoreLogic, m: MempoolLogic): { chain: Asker<ChainStoreProtocol>; mempool: Asker<MempoolProtocol>; asked: string[] } {
  const asked: string[] = [];
  const chain = {
    ask: async (body: ChainStoreRequest) => {
      asked.push(body.op);
      return s.read(body);
    },
  } as unknown as Asker<ChainStoreProtocol>;
  const mempool = { ask: async (body: MempoolRequest) => m.read(body) } as unknown as Asker<MempoolProtocol>;
  return { chain, mempool, asked };
}


async function template(s: ChainStoreLogic, m: MempoolLogic, reader?: ChainReader): Promise<{ tpl: BlockTemplate; asked: string[]; read: unknown }> {
  const { chain, mempool, asked } = askers(s, m);
  const miner = new MinerLogic({ chain, mempool, payTo: PAY_TO, clockMs: () => CLOCK_MS, ...(reader ? { reader } : {}) });
  const tpl = (await miner.write({ op: 'template' })).result as BlockTemplate;
  return { tpl, asked, read: miner.summary().coinsRead };
}

test('the miner reads its block\'s coins through the reader at the template\'s tip; a snapshot at another tip, or none, and it asks: the same block', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-miner-reader-'));
  const s = new ChainStoreLogic({ dir, rules: newRules(), baseParams: params });
  await s.load();
  let old: { source: ReadSource; close: () => Promise<void> } | undefined;
  try {
    const fan = await fanOut(s, 4);
    old = snapshotOf(dir, join(dir, 'snapshot'));
    // A block after the snapshot: the snapshot is at the tip before it.
    await mine(s, [spend(fan, 3, s.index.height + 1, 10_000n)]);
    const m = new MempoolLogic({ chain: { ask: async (body: ChainStoreRequest) => s.read(body) } as unknown as Asker<ChainStoreProtocol>, dataCarrierSize: 80 });
    const h = s.index.height + 1;
    const txs = [spend(fan, 0, h, 10_000n), spend(fan, 1, h, 20_000n), spend(fan, 2, h, 30_000n)];
    for (const tx of txs) await m.accept(tx.toRaw(), false, [], tx);

    const asked = await template(s, m);
    assert.deepEqual(asked.asked, ['template', 'params', 'view'], 'no reader: the coins are asked');
    const block = Block.fromRaw(asked.tpl.block);
    assert.deepEqual(block.txs.slice(1).map((t) => t.txid()).sort(), txs.map((t) => t.txid()).sort(), 'the block takes the mempool\'s transactions');
    // Their fees, read from the coins they spend (10,000, 20,000 and 30,000), the coinbase's -total first.
    assert.deepEqual([asked.tpl.fees[0], ...asked.tpl.fees.slice(1).sort()], [-60_000n, 10_000n, 20_000n, 30_000n]);

    const read = await template(s, m, new LmdbChainReader(() => s.readSource()));
    assert.deepEqual(read.asked, ['template', 'params'], 'read through the reader: no view asked');
    assert.equal(read.read, 1);
    assert.deepEqual(read.tpl, asked.tpl);

    // Held at the tip before the last block: not the template's tip, so its coins are not used.
    const stale = await template(s, m, new LmdbChainReader(old.source));
    assert.deepEqual(stale.asked, ['template', 'params', 'view'], 'a snapshot at another tip: asked');
    assert.equal(stale.read, 0);
    assert.deepEqual(stale.tpl, asked.tpl);
  } finally {
    await old?.close();
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
