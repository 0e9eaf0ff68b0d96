import { randomBytes } from 'node:crypto';
import { Block } from './block.js';
import { BlockHeader } from './header.js';
import { checkProofOfWork } from './pow.js';
import { buildMerkleTree } from './merkle.js';
import { solveEquihash } from './equihash-solver.js';
import { fromHexReversed } from '../encoding/hex.js';
import type { ChainParams } from '../params/chain-params.js';
import { concatScript, pushData, pushNumber, p2pkScript } from '../script/script.js';
import { Transaction } from '../tx/transaction.js';
import { Outpoint, TxIn } from '../tx/input.js';
import { TxOut } from '../tx/output.js';
import { EMPTY_SAPLING_ROOT } from '../consensus/block.js';

export interface TemplateInput {
  /** The tip the block builds on. */
  prevHash: string;
  height: number;
  bits: number;
  mtp: number;
  params: ChainParams;
  /**
   * Transactions to include, parents before children, with their fees; and each one's txid where the
   * caller has it (a mempool entry's, hashed from its bytes on entry): otherwise each is serialised and
   * hashed here.
   */
  txs: { tx: Transaction; fee: bigint; size: number; txid?: string }[];
  payTo: Uint8Array;
  now: number;
}

/** Block size the miner fills up to: MAX_BLOCK_SIZE(h) less komodod's 1000-byte margin (miner.cpp:236-238). */
function maxTemplateSize(params: ChainParams, height: number): number {
  return params.maxBlockSize(height) - 1000;
}

/**
 * The coinbase komodod's miner writes (miner.cpp:690-722): the contextual version, a null input whose
 * scriptSig starts with the BIP34 height push, one output paying subsidy plus fees to the miner's
 * pubkey (P2PK), nLockTime max(MTP+1, now) and no expiry.
 */
export function coinbaseFor(height: number, value: bigint, payTo: Uint8Array, params: ChainParams, lockTime: number, extraNonce: number): Transaction {
  const tx = Transaction.ofFormat(params.txFormat(height), 0);
  const nonce = Uint8Array.of(extraNonce & 0xff, (extraNonce >> 8) & 0xff, (extraNonce >> 16) & 0xff, (extraNonce >> 24) & 0xff);
  // The extranonce is pushed as data, trimmed like CScriptNum but at least one byte (scriptSig ≥ 2 bytes).
  let n = 4;
  while (n > 1 && nonce[n - 1] === 0) n--;
  tx.vin.push(new TxIn(Outpoint.null(), concatScript(pushNumber(height), pushData(nonce.subarray(0, n))), 0xffffffff));
  tx.vout.push(new TxOut(value, p2pkScript(payTo)));
  tx.lockTime = lockTime;
  return tx;
}

/** A block template: coinbase first, then as many transactions as fit, merkle root set; not yet solved. */
export function assembleBlock(t: TemplateInput): { block: Block; fees: bigint; txCount: number; chosen: number[] } {
  const time = Math.max(t.mtp + 1, t.now);
  const limit = maxTemplateSize(t.params, t.height);
  const chosen: Transaction[] = [];
  let size = 1000;
  let fees = 0n;
  // Each transaction's txid once: for the parents below and the merkle root (three hashes of each were
  // a block template's main cost after the mempool read).
  const ids = t.txs.map((e) => e.txid ?? e.tx.txid());
  const pending = new Set(ids);
  const included = new Set<string>();
  const chosenIdx: number[] = [];
  for (const [k, e] of t.txs.entries()) {
    if (size + e.size > limit) continue;
    // A child is taken only with its parents (the list is parents first).
    if (e.tx.vin.some((i) => pending.has(i.prevout.txid()) && !included.has(i.prevout.txid()))) continue;
    const txid = ids[k]!;
    chosen.push(e.tx);
    chosenIdx.push(k);
    included.add(txid);
    size += e.size;
    fees += e.fee;
  }
  const coinbase = coinbaseFor(t.height, t.params.blockSubsidy(t.height) + fees, t.payTo, t.params, time, 1);
  const header = new BlockHeader();
  header.version = 4;
  header.prevHash = fromHexReversed(t.prevHash);
  header.finalSaplingRoot = EMPTY_SAPLING_ROOT.slice();
  header.time = time;
  header.bits = t.bits;
  const block = new Block(header, [coinbase, ...chosen]);
  // updateMerkleRoot's tree, over the txids in hand (a wrong one only makes a block the chain store refuses: bad-txnmrklroot).
  header.merkleRoot = buildMerkleTree([coinbase.hash(), ...chosenIdx.map((k) => fromHexReversed(ids[k]!))]).root;
  return { block, fees, txCount: chosen.length, chosen: chosenIdx };
}

/**
 * Finds a nonce and Equihash solution whose header hash meets nBits. The nonce starts random with its
 * top and bottom 16 bits clear, as komodod's miner does, and counts up. On regtest komodod does not
 * check the solution, but the hash must still meet the target, so a real (48,5) solution is found
 * there too (a few ms a try). Returns false when `maxTries` nonces found nothing. `onCheck` is called
 * for every solution checked against the target.
 */
export function solveBlock(block: Block, params: ChainParams, maxTries = 100_000, onCheck?: () => void): boolean {
  const header = block.header;
  const start = new Uint8Array(randomBytes(32));
  start[0] = 0;
  start[1] = 0;
  start[30] = 0;
  start[31] = 0;
  header.nonce = start;
  const eq = { n: params.equihash.n, k: params.equihash.k, acNk: params.equihash.personalization === 'NandKPoW' };
  for (let i = 0; i < maxTries; i++) {
    let found = false;
    solveEquihash(eq, header.equihashInput(), {
      onSolution: (solution) => {
        header.solution = solution;
        // One solution checked against the target: komodod's solutionTargetChecks.
        onCheck?.();
        found = checkProofOfWork(header.hash(), header.bits);
        return found;
      },
    });
    if (found) return true;
    // Next nonce: increment the 256-bit little-endian counter from byte 2.
    for (let b = 2; b < 30; b++) {
      header.nonce[b] = (header.nonce[b]! + 1) & 0xff;
      if (header.nonce[b] !== 0) break;
    }
  }
  return false;
}
