import { sha256 } from '@noble/hashes/sha2.js';
import type { Block } from '../../chain/block/block.js';
import { hash160 } from '../../chain/crypto/hash.js';
import { publicKeyFromPrivate } from '../../chain/crypto/secp256k1.js';
import type { ChainParams } from '../../chain/params/chain-params.js';
import { concatScript, p2pkhScript, p2pkScript, pushData } from '../../chain/script/script.js';
import { SIGHASH_ALL, PrecomputedTxData } from '../../chain/script/sighash.js';
import { signatureFor } from '../../chain/script/sign.js';
import { Outpoint, TxIn } from '../../chain/tx/input.js';
import { TxOut } from '../../chain/tx/output.js';
import { Transaction } from '../../chain/tx/transaction.js';
import type { Coin } from '../../chain/validation/coin.js';
import type { ConnectView } from '../../chain/validation/coin.js';
import { assembleBlock } from '../../chain/block/assemble.js';
import { COIN } from '../../chain/consensus/amount.js';

/**
 * Synthetic blocks of signed transactions over made-up coins, for the tests and benchmarks of block
 * script checks: each transaction spends its own coins (P2PKH, some P2PK), and with `chainEvery` some
 * spend an output of the transaction before them in the same block.
 */
export interface SampleBlockOptions {
  params: ChainParams;
  height: number;
  txCount: number;
  /** Inputs of transaction i (default 1). */
  inputs?: (i: number) => number;
  /** Every k-th transaction also spends output 0 of the one before it. */
  chainEvery?: number;
  seed?: number;
}

export interface SampleBlock {
  block: Block;
  height: number;
  /** A fresh view over the made-up coins (each connect needs its own: it applies the block). */
  view(): ConnectView;
  /**
   * Re-signs input `n` of block transaction `i` over another message: a valid DER signature that does
   * not verify. Returns the function that puts the good signature back.
   */
  breakSignature(i: number, n: number): () => void;
}

const FEE = 10_000n;

export function sampleBlock(o: SampleBlockOptions): SampleBlock {
  const seed = o.seed ?? 1;
  const fmt = o.params.txFormat(o.height);
  const branchId = o.params.currentEpochBranchId(o.height);
  const keys = Array.from({ length: 8 }, (_, k) => sha256(Uint8Array.of(0x5a, seed & 0xff, k)));
  const pubs = keys.map((k) => publicKeyFromPrivate(k, true));
  const coins = new Map<string, Coin>();
  const txs: { tx: Transaction; fee: bigint; size: number }[] = [];
  /** For each tx and input: the key and the spent script and value (to re-sign). */
  const signing: { key: Uint8Array; script: Uint8Array; value: bigint }[][] = [];
  let prev: Transaction | undefined;
  for (let i = 0; i < o.txCount; i++) {
    const tx = Transaction.ofFormat(fmt, fmt.overwintered ? o.height + 20 : 0);
    const spends: { key: Uint8Array; script: Uint8Array; value: bigint }[] = [];
    const nIn = o.inputs?.(i) ?? 1;
    for (let n = 0; n < nIn; n++) {
      const k = (i + n) % keys.length;
      const script = (i + n) % 5 === 4 ? p2pkScript(pubs[k]!) : p2pkhScript(hash160(pubs[k]!));
      const hash = sha256(Uint8Array.of(0xc0, seed & 0xff, i & 0xff, (i >> 8) & 0xff, (i >> 16) & 0xff, n));
      coins.set(new Outpoint(hash, 0).key(), { value: COIN, script, height: 1, coinbase: false, txVersion: fmt.version });
      tx.vin.push(new TxIn(new Outpoint(hash, 0), new Uint8Array(0), 0xffffffff));
      spends.push({ key: keys[k]!, script, value: COIN });
    }
    if (o.chainEvery && prev && i % o.chainEvery === 0) {
      tx.vin.push(new TxIn(new Outpoint(prev.hash(), 0), new Uint8Array(0), 0xffffffff));
      spends.push({ key: keys[0]!, script: prev.vout[0]!.script, value: prev.vout[0]!.value });
    }
    const total = spends.reduce((s, x) => s + x.value, 0n);
    tx.vout.push(new TxOut(total - FEE, p2pkhScript(hash160(pubs[0]!))));
    sign(tx, spends, branchId);
    txs.push({ tx, fee: FEE, size: tx.toRaw().length });
    signing.push(spends);
    prev = tx;
  }
  const { block } = assembleBlock({
    prevHash: '00'.repeat(32),
    height: o.height,
    bits: 0x200f0f0f,
    mtp: 1_700_000_000,
    params: o.params,
    txs,
    payTo: pubs[0]!,
    now: 1_700_000_100,
  });
  if (block.txs.length !== o.txCount + 1) throw new Error(`sample block holds ${block.txs.length - 1} of ${o.txCount} transactions`);

  return {
    block,
    height: o.height,
    view() {
      const live = new Map(coins);
      return {
        coin: (txid, n) => live.get(`${txid}:${n}`),
        tx: () => undefined,
        apply(tx, txid) {
          if (!tx.isCoinbase()) for (const i of tx.vin) live.delete(i.prevout.key());
          tx.vout.forEach((out, n) => live.set(`${txid}:${n}`, { value: out.value, script: out.script, height: o.height, coinbase: tx.isCoinbase(), txVersion: tx.version }));
        },
      };
    },
    breakSignature(i, n) {
      const tx = block.txs[i]!;
      const s = signing[i - 1]![n]!;
      const good = tx.vin[n]!.scriptSig;
      const other = tx.clone();
      other.lockTime += 1;
      const sig = signatureFor(other, n, s.script, s.value, branchId, s.key, SIGHASH_ALL);
      const pub = publicKeyFromPrivate(s.key, true);
      tx.vin[n]!.scriptSig = s.script.length === 35 ? pushData(sig) : concatScript(pushData(sig), pushData(pub));
      block.updateMerkleRoot();
      return () => {
        tx.vin[n]!.scriptSig = good;
        block.updateMerkleRoot();
      };
    },
  };
}

function sign(tx: Transaction, spends: { key: Uint8Array; script: Uint8Array; value: bigint }[], branchId: number): void {
  const txdata = new PrecomputedTxData(tx);
  spends.forEach((s, n) => {
    const sig = signatureFor(tx, n, s.script, s.value, branchId, s.key, SIGHASH_ALL, txdata);
    const pub = publicKeyFromPrivate(s.key, true);
    // P2PK (35 bytes: push 33, key, CHECKSIG) takes the signature alone.
    tx.vin[n]!.scriptSig = s.script.length === 35 ? pushData(sig) : concatScript(pushData(sig), pushData(pub));
  });
}
