import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/node/config.js';
import { startNode } from '../../src/node/node.js';
import { assembleBlock, solveBlock } from '../../src/chain/block/assemble.js';
import { hash160, sha256 } from '../../src/chain/crypto/hash.js';
import { publicKeyFromPrivate } from '../../src/chain/crypto/secp256k1.js';
import { equalBytes, fromHexReversed, toHex } from '../../src/chain/encoding/hex.js';
import { p2pkhScript } from '../../src/chain/script/script.js';
import { produceScriptSig } from '../../src/chain/script/sign.js';
import { SIGHASH_ALL } from '../../src/chain/script/sighash.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { removeDir } from '../helpers/daemon.js';

const key = sha256(new TextEncoder().encode('script cache test key'));
const pub = publicKeyFromPrivate(key, true);
const keyId = hash160(pub);

/**
 * The script execution cache skips the scripts of a transaction the mempool verified, at block
 * connection. A hit needs the same txid (which commits to every scriptSig) at the same branch, and
 * skips the scripts only: a block holding a transaction the mempool never saw (the same spend with
 * another signature) has its scripts run, and one the mempool did verify still has its inputs checked.
 */
test('a block is checked in full whatever the mempool verified: a re-signed copy of a pooled spend, or a pooled spend whose coin an earlier transaction took, is refused', { timeout: 120_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-scriptcache-'));
  const node = await startNode(loadConfig([`-datadir=${dir}`, '-rpcport=0', '-port=0', '-gen=0', `-pubkey=${toHex(pub)}`]));
  t.after(async () => {
    await node.stop();
    removeDir(dir);
  });
  const { chainStore, mempool, miner } = node.services;
  await miner.ask({ op: 'generate', n: 1 });
  const premine = (await chainStore.ask({ op: 'block', hash: (await chainStore.ask({ op: 'blockHash', height: 1 }))! }))!.block.txs[0]!;
  const params = (await chainStore.ask({ op: 'params' }))!;
  const height = 2;
  const spend = (tag: bigint, sequence = 0xffffffff) => {
    const tx = Transaction.ofFormat(params.txFormat(height), 0);
    tx.vin.push(new TxIn(new Outpoint(fromHexReversed(premine.txid()), 0), new Uint8Array(0), sequence));
    tx.vout.push(new TxOut(premine.vout[0]!.value - 10_000n - tag, p2pkhScript(keyId)));
    const keys = (id: Uint8Array) => (equalBytes(id, keyId) ? { key, compressed: true } : undefined);
    const sig = produceScriptSig(premine.vout[0]!.script, { tx, nIn: 0, amount: premine.vout[0]!.value, branchId: params.currentEpochBranchId(height), hashType: SIGHASH_ALL, keys });
    assert.ok(sig.complete);
    tx.vin[0]!.scriptSig = sig.scriptSig;
    return tx;
  };
  const pooled = spend(0n);
  assert.equal(await mempool.ask({ op: 'accept', raw: pooled.toRaw(), allowHighFees: false }), pooled.txid());

  const submit = async (txs: Transaction[]) => {
    const tpl = await chainStore.ask({ op: 'template' });
    const { block } = assembleBlock({ prevHash: tpl.hash, height: tpl.height + 1, bits: tpl.nextBits, mtp: tpl.mtp, params, txs: txs.map((tx) => ({ tx, fee: 10_000n, size: tx.toRaw().length })), payTo: pub, now: Math.floor(Date.now() / 1000) });
    assert.equal(block.txs.length, txs.length + 1, 'the template kept every transaction');
    assert.ok(solveBlock(block, params));
    return chainStore.ask({ op: 'submitBlock', raw: block.toRaw() });
  };

  // The pooled spend with its signature's last byte of S changed: the same coin, outputs and
  // version, another txid. Its scripts run, and fail.
  const forged = Transaction.fromRaw(pooled.toRaw());
  const ss = forged.vin[0]!.scriptSig.slice();
  const sigLen = ss[0]!;
  ss[sigLen - 1] ^= 0x01; // the byte before the hash type: the signature's S
  forged.vin[0]!.scriptSig = ss;
  assert.notEqual(forged.txid(), pooled.txid());
  const r1 = await submit([forged]);
  assert.equal(r1.status, 'rejected');
  assert.match(r1.status === 'rejected' ? r1.reason : '', /^mandatory-script-verify-flag-failed/);

  // The pooled spend itself (its scripts known good), after another valid spend of the same coin in
  // the same block: the inputs are still checked, the block is refused.
  const other = spend(1n);
  const r2 = await submit([other, pooled]);
  assert.equal(r2.status, 'rejected');
  assert.equal(r2.status === 'rejected' ? r2.reason : '', 'bad-txns-inputs-missingorspent');

  // The pooled spend alone connects, and leaves the mempool.
  const r3 = await submit([pooled]);
  assert.equal(r3.status, 'connected');
  assert.equal((await chainStore.ask({ op: 'tip' })).height, 2);
});
