import { Block, txHashesOf, txSizesOf } from '../../chain/block/block.js';
import { isUnspendable } from '../../chain/script/script.js';
import type { Transaction } from '../../chain/tx/transaction.js';
import { outpointKey } from '../../chain/tx/input.js';
import type { BlockEntry } from './blockindex.js';
import type { BlockUndo, Coin } from './coins.js';
import type { ChainRules, ConnectView } from './rules.js';

/** What CVerifyDB reads: the active chain, the block files, the undo data, the coins and the rules. */
export interface VerifySource {
  tipHeight: number;
  atHeight(height: number): BlockEntry;
  /** The block's bytes from its file (throws when they cannot be read). */
  readRaw(entry: BlockEntry): Uint8Array;
  undoOf(hash: string): BlockUndo | undefined;
  coin(txid: string, n: number): Coin | undefined;
  tx(txid: string): Transaction | undefined;
  rules: ChainRules;
  /** How many coins the in-memory view may hold before level 3 stops (komodod's nCoinCacheUsage). */
  maxOverlayCoins: number;
  log(msg: string): void;
}

/** Coins changed in memory only, over the chain's UTXO set (CCoinsViewCache over pcoinsTip). */
class Overlay {
  readonly changed = new Map<string, Coin | null>();
  constructor(private readonly base: VerifySource) {}
  coin(txid: string, n: number): Coin | undefined {
    const k = outpointKey(txid, n);
    if (this.changed.has(k)) return this.changed.get(k) ?? undefined;
    return this.base.coin(txid, n);
  }
  set(txid: string, n: number, c: Coin | null): void {
    this.changed.set(outpointKey(txid, n), c);
  }
}

function sameCoin(a: Coin, b: Coin): boolean {
  return a.value === b.value && a.height === b.height && a.coinbase === b.coinbase && Buffer.from(a.script).equals(Buffer.from(b.script));
}

/**
 * DisconnectBlock on the overlay: each transaction from the last, its outputs must be there as the
 * block made them (else unclean), then its inputs come back from the undo data (an input already
 * present is unclean). Returns null when the undo data does not fit the block (irrecoverable).
 */
function disconnectInMemory(block: Block, txids: readonly string[], height: number, undo: BlockUndo, view: Overlay): boolean | null {
  const inputs = block.txs.reduce((s, tx) => s + (tx.isCoinbase() ? 0 : tx.vin.length), 0);
  if (inputs !== undo.spent.length) return null;
  let clean = true;
  let u = undo.spent.length;
  for (let i = block.txs.length - 1; i >= 0; i--) {
    const tx = block.txs[i]!;
    const txid = txids[i]!;
    tx.vout.forEach((out, n) => {
      if (isUnspendable(out.script)) return;
      const c = view.coin(txid, n);
      if (!c || !sameCoin(c, { value: out.value, script: out.script, height, coinbase: tx.isCoinbase(), txVersion: tx.version })) clean = false;
      view.set(txid, n, null);
    });
    if (tx.isCoinbase()) continue;
    u -= tx.vin.length;
    tx.vin.forEach((input, j) => {
      const t = input.prevout.txid();
      if (view.coin(t, input.prevout.index)) clean = false;
      view.set(t, input.prevout.index, undo.spent[u + j]!.coin);
    });
  }
  return clean;
}

/**
 * CVerifyDB::VerifyDB (main.cpp): from the tip back over `depth` blocks (0 or less: all), at `level`
 * 0..4: 0 reads each block from its file, 1 runs CheckBlock, 2 reads its undo data, 3 disconnects the
 * tip blocks in memory and checks the coins agree (while the memory view is within the cache), 4
 * connects them again with every check. False at the first failure, true otherwise (and for a chain
 * of genesis alone). Costs the blocks checked, never the whole chain unless asked.
 */
export function verifyDB(src: VerifySource, level: number, depth: number): boolean {
  const height = src.tipHeight;
  if (height === 0) return true;
  if (depth <= 0) depth = 1_000_000_000;
  if (depth > height) depth = height;
  level = Math.max(0, Math.min(4, level));
  src.log(`Verifying last ${depth} blocks at level ${level}`);
  const view = new Overlay(src);
  let stateHeight = height;
  let failure: number | null = null;
  let good = 0;
  for (let h = height; h > 0; h--) {
    if (h < height - depth) break;
    const entry = src.atHeight(h);
    let block: Block;
    const txStarts: number[] = [];
    let raw: Uint8Array;
    try {
      raw = src.readRaw(entry);
      block = Block.fromRaw(raw, txStarts);
      if (block.hashHex() !== entry.hash) throw new Error('wrong block');
    } catch {
      src.log(`ERROR: VerifyDB(): *** ReadBlockFromDisk failed at ${h}, hash=${entry.hash}`);
      return false;
    }
    if (level >= 1) {
      try {
        src.rules.checkBlock(block, h, { size: raw.length, txHashes: txHashesOf(raw, txStarts), txSizes: txSizesOf(txStarts) });
      } catch {
        src.log(`ERROR: VerifyDB(): *** found bad block at ${h}, hash=${entry.hash}`);
        return false;
      }
    }
    let undo: BlockUndo | undefined;
    if (level >= 2) {
      try {
        undo = src.undoOf(entry.hash);
      } catch {
        undo = undefined;
      }
      if (!undo) {
        src.log(`ERROR: VerifyDB(): *** found bad undo data at ${h}, hash=${entry.hash}`);
        return false;
      }
    }
    if (level >= 3 && h === stateHeight && view.changed.size <= src.maxOverlayCoins) {
      const txids = txHashesOf(raw, txStarts).map((x) => Buffer.from(x).reverse().toString('hex'));
      const clean = disconnectInMemory(block, txids, h, undo!, view);
      if (clean === null) {
        src.log(`ERROR: VerifyDB(): *** irrecoverable inconsistency in block data at ${h}, hash=${entry.hash}`);
        return false;
      }
      stateHeight = h - 1;
      if (!clean) {
        good = 0;
        failure = h;
      } else good += block.txs.length;
    }
  }
  if (failure !== null) {
    src.log(`ERROR: VerifyDB(): *** coin database inconsistencies found (last ${height - failure + 1} blocks, ${good} good transactions before that)`);
    return false;
  }
  if (level >= 4) {
    for (let h = stateHeight + 1; h <= height; h++) {
      const entry = src.atHeight(h);
      let block: Block;
      let txids: string[];
      try {
        const raw = src.readRaw(entry);
        const txStarts: number[] = [];
        block = Block.fromRaw(raw, txStarts);
        txids = txHashesOf(raw, txStarts).map((x) => Buffer.from(x).reverse().toString('hex'));
      } catch {
        src.log(`ERROR: VerifyDB(): *** ReadBlockFromDisk failed at ${h}, hash=${entry.hash}`);
        return false;
      }
      const earlier = new Map<string, Transaction>();
      const cv: ConnectView = {
        coin: (t, n) => view.coin(t, n),
        tx: (t) => earlier.get(t) ?? src.tx(t),
        apply: (tx, txid, at) => {
          if (!tx.isCoinbase()) for (const i of tx.vin) view.set(i.prevout.txid(), i.prevout.index, null);
          tx.vout.forEach((out, n) => {
            if (!isUnspendable(out.script)) view.set(txid, n, { value: out.value, script: out.script, height: at, coinbase: tx.isCoinbase(), txVersion: tx.version });
          });
          earlier.set(txid, tx);
        },
      };
      try {
        src.rules.connect(block, h, cv, txids);
      } catch {
        src.log(`ERROR: VerifyDB(): *** found unconnectable block at ${h}, hash=${entry.hash}`);
        return false;
      }
    }
  }
  src.log(`No coin database inconsistencies in last ${height - stateHeight} blocks (${good} transactions)`);
  return true;
}
