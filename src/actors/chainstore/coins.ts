import type { Transaction } from '../../chain/tx/transaction.js';
import { toHexReversed } from '../../chain/encoding/hex.js';

/** An unspent output as the chain knows it (komodod's Coin): amount, script, height, coinbase flag. */
export interface Coin {
  value: bigint;
  script: Uint8Array;
  height: number;
  coinbase: boolean;
  /** The version of the transaction that created it (gettxout's `version`). */
  txVersion: number;
}

/** Where a spent output went: komodod's spent index entry. */
export interface SpentInfo {
  txid: string;
  vin: number;
  height: number;
}

/** Where a confirmed transaction lives: its block and position. */
export interface TxLocation {
  blockHash: string;
  height: number;
  index: number;
}

/** What disconnecting a block needs to restore: the coins its transactions spent, in order. */
export interface BlockUndo {
  spent: { key: string; coin: Coin }[];
}

export const outpointKey = (txid: string, n: number): string => `${txid}:${n}`;

/**
 * The in-memory UTXO set, transaction index and spent index of the active chain. Everything here is
 * derived from the stored blocks (replayed at start), so it cannot disagree with them after a crash.
 */
export class ChainIndexes {
  readonly coins = new Map<string, Coin>();
  readonly txIndex = new Map<string, TxLocation>();
  readonly spent = new Map<string, SpentInfo>();

  /** Applies a block's transactions; returns the undo data. Inputs must have been validated. */
  connect(txs: readonly Transaction[], txids: readonly string[], blockHash: string, height: number): BlockUndo {
    const undo: BlockUndo = { spent: [] };
    txs.forEach((tx, i) => {
      const txid = txids[i]!;
      if (!tx.isCoinbase()) {
        tx.vin.forEach((input, n) => {
          const key = outpointKey(toHexReversed(input.prevout.hash), input.prevout.index);
          const coin = this.coins.get(key);
          if (!coin) throw new Error(`connect ${blockHash}: missing coin ${key}`);
          undo.spent.push({ key, coin });
          this.coins.delete(key);
          this.spent.set(key, { txid, vin: n, height });
        });
      }
      tx.vout.forEach((out, n) => {
        if (isUnspendableScript(out.script)) return;
        this.coins.set(outpointKey(txid, n), {
          value: out.value,
          script: out.script,
          height,
          coinbase: tx.isCoinbase(),
          txVersion: tx.version,
        });
      });
      this.txIndex.set(txid, { blockHash, height, index: i });
    });
    return undo;
  }

  /** Reverses connect(): removes the block's outputs and restores what it spent. */
  disconnect(txs: readonly Transaction[], txids: readonly string[], undo: BlockUndo): void {
    for (let i = txs.length - 1; i >= 0; i--) {
      const tx = txs[i]!;
      const txid = txids[i]!;
      tx.vout.forEach((_, n) => this.coins.delete(outpointKey(txid, n)));
      this.txIndex.delete(txid);
    }
    for (const { key, coin } of undo.spent) {
      this.coins.set(key, coin);
      this.spent.delete(key);
    }
  }
}

/** OP_RETURN outputs never enter the UTXO set (CScript::IsUnspendable). */
function isUnspendableScript(script: Uint8Array): boolean {
  return (script.length > 0 && script[0] === 0x6a) || script.length > 10_000;
}
