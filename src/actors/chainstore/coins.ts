import type { Transaction } from '../../chain/tx/transaction.js';
import { toHex } from '../../chain/encoding/hex.js';
import { hash160 } from '../../chain/crypto/hash.js';
import { solver } from '../../chain/script/standard.js';
import { mayAcceptCryptoCondition } from '../../chain/cc/script.js';
import { AddressHistoryList } from './address-history.js';
import { OrderedOutputs, compareOutpoints, type OutputPage, type OutputRef } from './ordered-outputs.js';

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

/** komodod's address-index key types (main.cpp GetAddressType): 1 P2PKH/P2PK, 2 P2SH, 3 CC. */
export type AddressType = 1 | 2 | 3;

/** An entry of komodod's address unspent index (CAddressUnspentKey/Value). */
export interface AddressUnspent {
  /** display hex */
  txid: string;
  index: number;
  value: bigint;
  script: Uint8Array;
  height: number;
  /** created by a coinbase (subject to maturity) */
  coinbase: boolean;
}

/** An entry of komodod's address index (CAddressIndexKey → CAmount): one credit or debit of an address. */
export interface AddressDelta {
  /** display hex */
  txid: string;
  /** the output index (a credit) or the input index (a debit) */
  index: number;
  /** the transaction's position in its block (CAddressIndexKey::txindex) */
  blockindex: number;
  height: number;
  /** positive for an output, negative (the spent output's value) for an input */
  satoshis: bigint;
  spending: boolean;
}

/** The map key of an address: `<type>:<hash160 hex>`. */
export const addressKey = (type: AddressType, hash: Uint8Array | string): string => `${type}:${typeof hash === 'string' ? hash : toHex(hash)}`;

/**
 * GetAddressType + the addrHash loop of ConnectBlock: the address-index keys an output script is
 * filed under. Solver's solutions each give one key: a 20-byte solution is the hash itself, anything
 * else (a pubkey, and, as komodod does, multisig's m and n bytes) is hashed. OP_RETURN solves with no
 * solution, so it is filed nowhere; a nonstandard script neither. CC outputs are solved as with
 * -ac_cc on (the index serves CC chains).
 */
export function addressKeysOf(script: Uint8Array): string[] {
  // P2PKH, nearly every output, read off its template without the general solver.
  if (script.length === 25 && script[0] === 0x76 && script[1] === 0xa9 && script[2] === 0x14 && script[23] === 0x88 && script[24] === 0xac) {
    return [addressKey(1, script.subarray(3, 23))];
  }
  const s = solver(script, { ccEnabled: true, isSupportedCondition: mayAcceptCryptoCondition });
  if (s.type === 'nonstandard') return [];
  const type: AddressType = s.type === 'scripthash' ? 2 : s.type === 'cryptocondition' ? 3 : 1;
  return s.solutions.map((sol) => addressKey(type, sol.length === 20 ? sol : hash160(sol)));
}

/** leveldb's order of CAddressUnspentKey within one address: txid's internal bytes, then the index as 4 LE bytes. */
export function compareAddressUnspent(a: Pick<AddressUnspent, 'txid' | 'index'>, b: Pick<AddressUnspent, 'txid' | 'index'>): number {
  return compareOutpoints(a, b);
}

/**
 * The in-memory UTXO set, transaction index and spent index of the active chain. Everything here is
 * derived from the stored blocks (replayed at start), so it cannot disagree with them after a crash.
 */
export class ChainIndexes {
  readonly coins = new Map<string, Coin>();
  readonly txIndex = new Map<string, TxLocation>();
  readonly spent = new Map<string, SpentInfo>();
  /**
   * komodod's address unspent index (-addressindex): address key (addressKey()) → its unspent
   * outputs in key order, with their total. Kept with the UTXO set: connect adds a block's outputs
   * and removes what it spends, disconnect does the reverse from the undo data.
   */
  readonly addressUnspent = new Map<string, OrderedOutputs<AddressUnspent>>();
  /**
   * komodod's address index (CAddressIndexKey): address key → every credit and debit, in leveldb key
   * order. Off (-addressindex=0) when `addressIndex` is false.
   */
  readonly addressHistory = new Map<string, AddressHistoryList>();

  constructor(readonly addressIndex = true) {}

  private pushHistory(key: string, txid: string, index: number, blockindex: number, height: number, amount: bigint, spending: boolean): void {
    let l = this.addressHistory.get(key);
    if (!l) this.addressHistory.set(key, (l = new AddressHistoryList()));
    l.push(txid, index, blockindex, height, amount, spending);
  }

  // One transaction's debits (address key, input index, spent amount), buffered until its outputs
  // interleave with them; reused from one transaction to the next.
  private readonly debitKeys: string[] = [];
  private readonly debitIndexes: number[] = [];
  private readonly debitAmounts: bigint[] = [];
  private debitCount = 0;
  private debitsFlushed = 0;

  /**
   * Appends the buffered debits whose input index is below `index` (all of them when Infinity): the
   * history's key order puts, at each index, the output's credit before the input's debit.
   */
  private flushDebits(txid: string, blockindex: number, height: number, index: number): void {
    let i = this.debitsFlushed;
    for (; i < this.debitCount && this.debitIndexes[i]! < index; i++) {
      this.pushHistory(this.debitKeys[i]!, txid, this.debitIndexes[i]!, blockindex, height, this.debitAmounts[i]!, true);
    }
    this.debitsFlushed = i;
  }

  /** Removes the deltas of the block at `height` (the tip) from the addresses its scripts name. */
  private removeHistory(keys: Iterable<string>, height: number): void {
    for (const k of keys) {
      const l = this.addressHistory.get(k);
      if (!l) continue;
      l.popHeight(height);
      if (l.length === 0) this.addressHistory.delete(k);
    }
  }

  /**
   * GetAddressIndex (ReadAddressIndex): the deltas of one address in key order; with start > 0 and
   * end > 0 only heights start..end (binary search: cost grows with the answer, not the history).
   */
  historyAt(address: string, start = 0, end = 0): AddressDelta[] {
    const l = this.addressHistory.get(address);
    if (!l) return [];
    if (!(start > 0 && end > 0)) return l.slice();
    return l.slice(l.lowerBound(start), end >= 0x7fffffff ? l.length : l.lowerBound(end + 1));
  }

  private addUnspent(txid: string, index: number, value: bigint, script: Uint8Array, height: number, coinbase: boolean, keys = addressKeysOf(script)): void {
    this.addUnspentAt(txid, index, value, script, height, coinbase, keys);
  }

  private addUnspentAt(txid: string, index: number, value: bigint, script: Uint8Array, height: number, coinbase: boolean, keys: readonly string[]): void {
    for (const a of keys) {
      let m = this.addressUnspent.get(a);
      if (!m) this.addressUnspent.set(a, (m = new OrderedOutputs()));
      m.add({ txid, index, value, script, height, coinbase });
    }
  }

  private removeUnspent(txid: string, index: number, script: Uint8Array, keys = addressKeysOf(script)): void {
    for (const a of keys) {
      const m = this.addressUnspent.get(a);
      if (!m) continue;
      m.delete(txid, index);
      if (m.size === 0) this.addressUnspent.delete(a);
    }
  }

  /** Σ of the unspent outputs at one address (CCaddress_balance): a running total. */
  balanceAt(address: string): bigint {
    return this.addressUnspent.get(address)?.total ?? 0n;
  }

  /** GetAddressUnspent for one address, in leveldb key order. Costs the number of its unspent outputs. */
  unspentAt(address: string): AddressUnspent[] {
    return this.addressUnspent.get(address)?.toArray() ?? [];
  }

  /**
   * GetAddressUnspent read a page at a time: up to `limit` outputs worth at least `minValue`, in key
   * order after the cursor `after`. Costs what it walks, not the address's whole set.
   */
  unspentPageAt(address: string, after: OutputRef | undefined, limit: number, minValue = 0n): OutputPage<AddressUnspent> {
    return this.addressUnspent.get(address)?.page(after, limit, minValue) ?? { outputs: [], next: null };
  }

  /** Applies a block's transactions; returns the undo data. Inputs must have been validated. */
  connect(txs: readonly Transaction[], txids: readonly string[], blockHash: string, height: number): BlockUndo {
    const undo: BlockUndo = { spent: [] };
    const history = this.addressIndex;
    // Plain loops and each key built once: this runs for every input and output of every block.
    for (let i = 0; i < txs.length; i++) {
      const tx = txs[i]!;
      const txid = txids[i]!;
      const coinbase = tx.isCoinbase();
      if (history) this.debitCount = this.debitsFlushed = 0;
      if (!coinbase) {
        for (let n = 0; n < tx.vin.length; n++) {
          const prevout = tx.vin[n]!.prevout;
          const prevTxid = prevout.txid();
          const key = outpointKey(prevTxid, prevout.index);
          const coin = this.coins.get(key);
          if (!coin) throw new Error(`connect ${blockHash}: missing coin ${key}`);
          // The script's address keys, solved once for both address indexes.
          const keys = addressKeysOf(coin.script);
          if (history) {
            for (let k = 0; k < keys.length; k++) {
              const d = this.debitCount++;
              this.debitKeys[d] = keys[k]!;
              this.debitIndexes[d] = n;
              this.debitAmounts[d] = coin.value;
            }
          }
          undo.spent.push({ key, coin });
          this.coins.delete(key);
          this.removeUnspent(prevTxid, prevout.index, coin.script, keys);
          this.spent.set(key, { txid, vin: n, height });
        }
      }
      for (let n = 0; n < tx.vout.length; n++) {
        const out = tx.vout[n]!;
        const keys = addressKeysOf(out.script);
        if (history && keys.length) {
          this.flushDebits(txid, i, height, n);
          for (let k = 0; k < keys.length; k++) this.pushHistory(keys[k]!, txid, n, i, height, out.value, false);
        }
        if (isUnspendableScript(out.script)) continue;
        const key = outpointKey(txid, n);
        this.addUnspentAt(txid, n, out.value, out.script, height, coinbase, keys);
        this.coins.set(key, { value: out.value, script: out.script, height, coinbase, txVersion: tx.version });
      }
      if (history) this.flushDebits(txid, i, height, Infinity);
      this.txIndex.set(txid, { blockHash, height, index: i });
    }
    return undo;
  }

  /** Reverses connect(): removes the block's outputs and restores what it spent. */
  disconnect(txs: readonly Transaction[], txids: readonly string[], undo: BlockUndo): void {
    if (this.addressIndex) {
      // The block's deltas sit at the end of each address's list: the addresses its outputs and spent coins name.
      const keys = new Set<string>();
      for (const tx of txs) for (const out of tx.vout) for (const a of addressKeysOf(out.script)) keys.add(a);
      for (const { coin } of undo.spent) for (const a of addressKeysOf(coin.script)) keys.add(a);
      const height = txids.length ? this.txIndex.get(txids[0]!)?.height : undefined;
      if (height !== undefined) this.removeHistory(keys, height);
    }
    for (let i = txs.length - 1; i >= 0; i--) {
      const tx = txs[i]!;
      const txid = txids[i]!;
      tx.vout.forEach((out, n) => {
        const key = outpointKey(txid, n);
        if (this.coins.delete(key)) this.removeUnspent(txid, n, out.script);
      });
      this.txIndex.delete(txid);
    }
    const own = new Set(txids);
    for (const { key, coin } of undo.spent) {
      this.spent.delete(key);
      const sep = key.lastIndexOf(':');
      const txid = key.slice(0, sep);
      // An output created and spent inside this block leaves with the block (DisconnectBlock's reverse walk).
      if (own.has(txid)) continue;
      this.coins.set(key, coin);
      this.addUnspent(txid, Number(key.slice(sep + 1)), coin.value, coin.script, coin.height, coin.coinbase);
    }
  }
}

/** OP_RETURN outputs never enter the UTXO set (CScript::IsUnspendable). */
function isUnspendableScript(script: Uint8Array): boolean {
  return (script.length > 0 && script[0] === 0x6a) || script.length > 10_000;
}
