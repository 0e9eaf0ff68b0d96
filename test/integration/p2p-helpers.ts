import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { RpcCallError, removeDir, startDaemon, type Daemon } from '../helpers/daemon.js';
import { Block } from '../../src/chain/block/block.js';
import { hash160, sha256 } from '../../src/chain/crypto/hash.js';
import { publicKeyFromPrivate } from '../../src/chain/crypto/secp256k1.js';
import { fromHexReversed, toHex } from '../../src/chain/encoding/hex.js';
import { devChainParams } from '../../src/chain/params/chain-params.js';
import { p2pkhScript } from '../../src/chain/script/script.js';
import { produceScriptSig } from '../../src/chain/script/sign.js';
import { SIGHASH_ALL } from '../../src/chain/script/sighash.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { TestPeer, p2pPort } from './p2p-testpeer.js';

/** What the p2p integration tests share: the test key, its premine spend, and how a tx reaches a node. */

export const params = devChainParams();
export const MAGIC = Buffer.from(params.messageStart);
export const KEY = sha256(new TextEncoder().encode('acnode p2p test key'));
export const PUB = publicKeyFromPrivate(KEY, true);
const KEY_ID = toHex(hash160(PUB));
const FEE = 10_000n;

/** A v4 spend of the test key's P2PK output (the premine of block 1) to a P2PKH of the same key. */
export function spendCoinbase(block1: Buffer, nextHeight: number): { raw: Uint8Array; txid: string } {
  const b = Block.fromRaw(block1);
  const cb = b.txs[0]!;
  const coin = cb.vout[0]!;
  const tx = Transaction.ofFormat(params.txFormat(nextHeight), 0);
  tx.vin.push(new TxIn(new Outpoint(fromHexReversed(cb.txid()), 0), new Uint8Array(0), 0xffffffff));
  tx.vout.push(new TxOut(coin.value - FEE, p2pkhScript(hash160(PUB))));
  const sig = produceScriptSig(coin.script, {
    tx,
    nIn: 0,
    amount: coin.value,
    branchId: params.currentEpochBranchId(nextHeight),
    hashType: SIGHASH_ALL,
    keys: (id) => (toHex(id) === KEY_ID ? { key: KEY, compressed: true } : undefined),
  });
  assert.ok(sig.complete, 'the test key signs the premine');
  tx.vin[0]!.scriptSig = sig.scriptSig;
  return { raw: tx.toRaw(), txid: tx.txid() };
}

/** sendrawtransaction when the node serves it, else the tx message of a test peer (both reach AcceptToMemoryPool). */
export async function submitTx(d: Daemon, raw: Uint8Array): Promise<void> {
  try {
    await d.rpc('sendrawtransaction', toHex(raw));
    return;
  } catch (e) {
    if (!(e instanceof RpcCallError) || e.code !== -32601) throw e;
  }
  const p = await TestPeer.handshake(p2pPort(d.log), MAGIC);
  p.send('tx', Buffer.from(raw));
  await p.ping();
  p.close();
}

/**
 * One daemon for a test and the raw test peers talking to it (`peers`: push any made by hand),
 * closed, stopped and removed when the test ends.
 */
export async function p2pDaemon(t: TestContext, args: string[]): Promise<{ d: Daemon; port: number; peers: TestPeer[] }> {
  const peers: TestPeer[] = [];
  let d: Daemon | undefined;
  t.after(async () => {
    for (const p of peers) p.close();
    await d?.stop();
    if (d) removeDir(d.datadir);
  });
  d = await startDaemon(args);
  return { d, port: p2pPort(d.log), peers };
}
