import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hash160, sha256 } from '../../src/chain/crypto/hash.js';
import { toHex } from '../../src/chain/encoding/hex.js';
import { p2pkhScript } from '../../src/chain/script/script.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import type { Transaction } from '../../src/chain/tx/transaction.js';
import { Block } from '../../src/chain/block/block.js';
import { BlockHeader } from '../../src/chain/block/header.js';
import { devChainParams } from '../../src/chain/params/chain-params.js';
import { KeyStore } from '../../src/actors/wallet/keystore.js';
import { WalletLogic } from '../../src/actors/wallet/logic.js';
import { saplingTx } from '../helpers/wallet-model.js';

/**
 * The wallet's transaction records hold the raw bytes in base64 (nedb keeps every record in memory;
 * base64 takes two thirds of hex's room). Records written by earlier versions hold them in hex
 * (`raw`) and are still read: gettransaction answers the same hex and size from either.
 */

async function openWallet(dir: string): Promise<{ wallet: WalletLogic; keys: KeyStore }> {
  const keys = await KeyStore.open(dir, { keypool: 2 });
  const chain = {
    ask: async (b: { op: string; txids?: string[] }) => {
      if (b.op === 'coinsByScript') return { height: 3, hash: '00'.repeat(32), mtp: 0, coins: [] };
      if (b.op === 'tip') return { height: 3, time: 1 };
      if (b.op === 'txHeights' || b.op === 'inChain') return b.txids!.map(() => 2);
      throw new Error(`stub chain: ${b.op}`);
    },
  } as never;
  const mempool = { ask: async (b: { op: string }) => (b.op === 'entries' ? [] : null) } as never;
  const wallet = new WalletLogic({ chain, mempool, keys, dir, params: () => devChainParams(), now: () => 1_700_000_000 });
  await wallet.load();
  return { wallet, keys };
}

test('wallet transaction records: base64 on disk, hex records of earlier versions read alike', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-wallet-txstore-'));
  try {
    let { wallet, keys } = await openWallet(dir);
    const tx: Transaction = saplingTx();
    tx.vin.push(new TxIn(new Outpoint(sha256(Uint8Array.of(1)), 0), new Uint8Array(107).fill(1)));
    tx.vout.push(new TxOut(5000n, p2pkhScript(hash160(keys.all()[0]!.pubkey))));
    const txid = tx.txid();
    const hex = toHex(tx.toRaw());
    await wallet.write({ op: 'blockConnected', block: new Block(new BlockHeader(), [tx]), txids: [txid], height: 2 });
    const detail = (w: WalletLogic) => w.read({ op: 'txDetail', txid, hex: true }) as { hex: string; size?: number } | null;
    const before = detail(wallet)!;
    assert.equal(before.hex, hex);
    await wallet.close();

    // On disk: base64 of the bytes, no hex.
    const file = join(dir, 'wallettx.db');
    const docs = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    const mine = docs.filter((d) => d._id === txid);
    assert.ok(mine.length > 0);
    for (const d of mine) {
      assert.equal(d.b64, Buffer.from(tx.toRaw()).toString('base64'));
      assert.equal(d.raw, undefined);
    }

    // A record as earlier versions wrote it (hex in `raw`) loads and answers the same.
    writeFileSync(file, mine.map((d) => JSON.stringify({ _id: d._id, raw: hex, time: d.time, seq: d.seq })).join('\n') + '\n');
    ({ wallet, keys } = await openWallet(dir));
    assert.deepEqual(detail(wallet), before);
    await wallet.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
