/**
 * What the benchmark groups build their transactions and chains with: a signing key, transactions in
 * the dev chain's format, P2PKH input signing, and blocks mined onto an in-process chain store.
 */
import type { Block } from '../src/chain/block/block.js';
import { hash160, sha256 } from '../src/chain/crypto/hash.js';
import { publicKeyFromPrivate } from '../src/chain/crypto/secp256k1.js';
import { equalBytes } from '../src/chain/encoding/hex.js';
import { devChainParams } from '../src/chain/params/chain-params.js';
import { p2pkhScript } from '../src/chain/script/script.js';
import { produceScriptSig } from '../src/chain/script/sign.js';
import { SIGHASH_ALL } from '../src/chain/script/sighash.js';
import { Transaction } from '../src/chain/tx/transaction.js';
import type { ChainStoreLogic } from '../src/actors/chainstore/logic.js';
import { assembleBlock, solveBlock } from '../src/chain/block/assemble.js';

export const params = devChainParams();

/** A bench's key: its secret, compressed public key, key id and P2PKH script. */
export interface BenchKey {
  key: Uint8Array;
  pub: Uint8Array;
  keyId: Uint8Array;
  p2pkh: Uint8Array;
}

/** A key derived from a label (each bench group signs with its own). */
export function benchKey(label: string): BenchKey {
  const key = sha256(new TextEncoder().encode(label));
  const pub = publicKeyFromPrivate(key, true);
  const keyId = hash160(pub);
  return { key, pub, keyId, p2pkh: p2pkhScript(keyId) };
}

/** An empty transaction in the format the dev chain expects at `height`. */
export function newTx(height: number): Transaction {
  return Transaction.ofFormat(params.txFormat(height), 0);
}

/** Signs input 0 of `tx`, which spends `script` worth `amount`, with `k`. */
export function signInput0(tx: Transaction, script: Uint8Array, amount: bigint, height: number, k: BenchKey): void {
  const keys = (id: Uint8Array) => (equalBytes(id, k.keyId) ? { key: k.key, compressed: true } : undefined);
  const sig = produceScriptSig(script, { tx, nIn: 0, amount, branchId: params.currentEpochBranchId(height), hashType: SIGHASH_ALL, keys });
  if (!sig.complete) throw new Error('bench key cannot sign');
  tx.vin[0]!.scriptSig = sig.scriptSig;
}

/**
 * Mines `txs` onto the chain store's tip in one block paying `payTo` (its proof of work solved when
 * the store's rules check it) and connects it; the block.
 */
export async function mineOnto(logic: ChainStoreLogic, txs: Transaction[], payTo: Uint8Array, solve: boolean): Promise<Block> {
  const tpl = logic.templateContext();
  const { block } = assembleBlock({
    prevHash: tpl.hash,
    height: tpl.height + 1,
    bits: tpl.nextBits,
    mtp: tpl.mtp,
    params,
    txs: txs.map((tx) => ({ tx, fee: 0n, size: tx.toRaw().length })),
    payTo,
    now: tpl.time + 5,
  });
  if (block.txs.length !== txs.length + 1) throw new Error(`block template dropped transactions (${block.txs.length - 1} of ${txs.length})`);
  if (solve && !solveBlock(block, params)) throw new Error('no solution');
  const r = (await logic.write({ op: 'submitBlock', raw: block.toRaw() })).result as { status: string; reason?: string };
  if (r.status !== 'connected') throw new Error(`bench block not connected: ${r.status} ${r.reason ?? ''}`);
  return block;
}

/**
 * The chain store as the wallet benches' wallets ask it: no coins by script at start, the tip at
 * `height()`, no confirmed transaction to look up.
 */
export function walletBenchChain(height: () => number): never {
  return {
    ask: async (body: { op: string }) => {
      if (body.op === 'coinsByScript') return { height: 1, hash: '00'.repeat(32), mtp: 0, coins: [] };
      if (body.op === 'tip') return { height: height(), mtp: 1_700_000_000, time: 1_700_000_000 };
      if (body.op === 'tx') return null;
      throw new Error(`stub chain: ${body.op}`);
    },
  } as never;
}
