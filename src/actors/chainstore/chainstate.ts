import type { Database, GetOptions } from 'lmdb';
import type { Transaction } from '../../chain/tx/transaction.js';
import type { ChainDb } from './chaindb.js';
import { pageOf } from './lmdb-pages.js';
import { hashKey, outpointKey as outpointBytes } from './lmdb-keys.js';
import { isP2PKH, isUnspendable } from '../../chain/script/script.js';
import type { OutputPage, OutputRef } from './ordered-outputs.js';
import { addressKeysOf } from '../../chain/address/index-key.js';
import { outpointKey, type Outpoint } from '../../chain/tx/input.js';
import type { AddressDelta, AddressUnspent, BlockUndo, Coin, SpentInfo, TxLocation } from './coins.js';
import { toHexReversed } from '../../chain/encoding/hex.js';
import { compactSizeBytes } from '../../chain/encoding/writer.js';
import { createHash } from 'node:crypto';
import { SnapshotIndex } from './snapshotindex.js';
import { ccoinsSize, varIntBytes, type UnspentOut } from '../../chain/tx/coins-size.js';

/** A coin as stored (its bytes, get's own copy) and decoded over those bytes. */
export interface StoredCoin {
  coin: Coin;
  raw: Buffer;
}

/**
 * The chain state's indexes in LMDB, each a named database of the chain's environment, with keys
 * laid out so that LMDB's byte order is komodod's leveldb order:
 *
 * - coins: outpoint (txid internal 32 | n u32 BE) → coinbase u8 | height u32 | tx version i32 | value u64 | script
 * - undo: block hash (internal) → the coins the block spent, in input order (what disconnecting it restores)
 * - txs: txid (internal) → block hash | height u32 | position u32 | offset u32 | length u32 (the transaction's bytes within its block's)
 * - staleTxs: txid (internal) → its txs row when its block was last disconnected (komodod's txindex
 *   keeps that entry: only ConnectBlock writes it, DisconnectBlock never erases it); a row whose
 *   transaction is back in the active chain is shadowed by txs, so a connect writes nothing here
 * - spent: outpoint → spending txid (internal) | input u32 | height u32
 * - addressUnspent: type u8 | hash160 | txid (internal) | n u32 LE (CAddressUnspentKey) → value u64 | height u32 | coinbase u8 | script
 * - addressBalance: type u8 | hash160 → Σ value of its addressUnspent rows, i64, then how many are nonzero, u32 (running totals: CCaddress_balance reads one row),
 *   then, with -addressindex, its addressHistory's Σ credits i64 and Σ debits i64 (getaddressbalance's received and balance: one row, not the history)
 * - richlist, snapshotTotals: getsnapshot's order and counters (snapshotindex.ts)
 * - addressHistory: type u8 | hash160 | height u32 BE | position u32 BE | txid (internal) | index u32 BE | spending u8 (CAddressIndexKey) → satoshis i64
 *
 * connect() and disconnect() change them for one block and must run inside the chain store's write
 * transaction, which also records the new tip: a block's effects are committed together, or not at
 * all. Reads see the last committed state (or, inside the write transaction, its own changes).
 */
export class ChainIndexes {
  private readonly coins: Database<Buffer, Buffer>;
  private readonly undo: Database<Buffer, Buffer>;
  private readonly txs: Database<Buffer, Buffer>;
  private readonly staleTxs: Database<Buffer, Buffer>;
  private readonly spent: Database<Buffer, Buffer>;
  private readonly addrUnspent: Database<Buffer, Buffer>;
  private readonly addrBalance: Database<Buffer, Buffer>;
  private readonly addrHistory: Database<Buffer, Buffer>;
  private readonly pools: Database<Buffer, Buffer>;
  /** getsnapshot's rich list and counters, kept with the balances. */
  readonly snapshot: SnapshotIndex;

  constructor(
    db: ChainDb,
    /** -addressindex: keep the address history (the unspent index, which the token code reads, is always kept). */
    readonly addressIndex = true,
  ) {
    this.coins = db.index('coins');
    this.undo = db.index('undo');
    this.txs = db.index('txs');
    this.staleTxs = db.index('staleTxs');
    this.spent = db.index('spent');
    this.addrUnspent = db.index('addressUnspent');
    this.addrBalance = db.index('addressBalance');
    this.addrHistory = db.index('addressHistory');
    this.pools = db.index('pools');
    this.snapshot = new SnapshotIndex(db);
  }

  /**
   * A connected block's value pools (komodod keeps them in CBlockIndex): its deltas and the chain's
   * totals up to it, five amounts each (supply, transparent, sprout, sapling, burned), null where a
   * value could not be known.
   */
  poolsOf(blockHash: string): { delta: bigint[] | null; total: bigint[] | null } | undefined {
    const v = this.pools.get(hashKey(blockHash));
    if (!v) return undefined;
    const read = (at: number) => (v[at] === 1 ? [0, 1, 2, 3, 4].map((k) => v.readBigInt64LE(at + 1 + 8 * k)) : null);
    return { delta: read(0), total: read(41) };
  }

  /** Inside a write transaction. */
  putPools(blockHash: string, delta: readonly bigint[] | null, total: readonly bigint[] | null): void {
    const v = Buffer.alloc(82);
    const write = (at: number, xs: readonly bigint[] | null) => {
      if (!xs) return;
      v[at] = 1;
      xs.forEach((x, k) => v.writeBigInt64LE(x, at + 1 + 8 * k));
    };
    write(0, delta);
    write(41, total);
    this.pools.putSync(hashKey(blockHash), v);
  }

  // ---- reads -----------------------------------------------------------------------------------

  /** `read` (here and in hasCoin, hasTx): ChainDb.heldRead()'s snapshot; without it, this turn's. */
  coin(txid: string, n: number, read?: GetOptions): Coin | undefined {
    const v = this.coins.get(readOutpoint(txid, n), read);
    // A view of `v`, get's own copy (getBinary slices the shared read buffer): the script copied out of
    // it again was two more objects and a copy per input of every accept's coin view.
    return v ? decodeCoinView(v) : undefined;
  }

  /** A coin with its stored bytes (what connect() files as undo data when the coin is spent). */
  coinEntry(txid: string, n: number): StoredCoin | undefined {
    const raw = this.coins.get(readOutpoint(txid, n));
    // A view of `raw`: get's own copy.
    return raw ? { coin: decodeCoinView(raw), raw } : undefined;
  }

  hasCoin(txid: string, n: number, read?: GetOptions): boolean {
    return read ? this.coins.get(readOutpoint(txid, n), read) !== undefined : this.coins.doesExist(readOutpoint(txid, n));
  }

  /** HaveCoins(txid): some output of the transaction is unspent (one range step over its outpoints, no transaction read). */
  hasCoinsOf(txid: string): boolean {
    // Output 0xffffffff (the range's end, excluded) cannot exist: no transaction fits that many.
    for (const _ of this.coins.getKeys({ start: outpoint(txid, 0), end: outpoint(txid, 0xffffffff), limit: 1 })) return true;
    return false;
  }

  /** The number of unspent outputs (LMDB's entry count: no walk). */
  get coinCount(): number {
    return (this.coins.getStats() as { entryCount: number }).entryCount;
  }

  /** Every unspent output, in outpoint order (the wallet's scan at start; the tests' key-by-key comparisons). */
  *allCoins(): Generator<{ txid: string; n: number; coin: Coin }> {
    for (const { key, value } of this.coins.getRange({})) yield { txid: displayOf(key, 0), n: key.readUInt32BE(32), coin: decodeCoin(value) };
  }

  txLocation(txid: string): TxLocation | undefined {
    const v = this.txs.get(readHash(txid));
    if (!v) return undefined;
    return decodeTxLocation(v);
  }

  /** Where a transaction was when its block last left the active chain (see staleTxs above). */
  staleTxLocation(txid: string): TxLocation | undefined {
    const v = this.staleTxs.get(readHash(txid));
    return v ? decodeTxLocation(v) : undefined;
  }

  /**
   * A block disconnected before staleTxs was kept: its transactions' rows, as its disconnect writes
   * them (`txStarts`: where each transaction starts in its bytes). Inside a write transaction.
   */
  putStaleBlock(txids: readonly string[], blockHash: string, height: number, txStarts: ArrayLike<number>): void {
    const hashBytes = hashKey(blockHash);
    for (let i = 0; i < txids.length; i++) this.staleTxs.putSync(hashKey(txids[i]!), txValue(hashBytes, height, i, txStarts[i]!, txStarts[i + 1]! - txStarts[i]!));
  }

  hasTx(txid: string, read?: GetOptions): boolean {
    return read ? this.txs.get(readHash(txid), read) !== undefined : this.txs.doesExist(readHash(txid));
  }

  spentBy(txid: string, n: number): SpentInfo | undefined {
    const v = this.spent.get(readOutpoint(txid, n));
    return v ? { txid: displayOf(v, 0), vin: v.readUInt32LE(32), height: v.readUInt32LE(36) } : undefined;
  }

  /** The undo data of a connected block. */
  undoOf(blockHash: string): BlockUndo | undefined {
    const v = this.undo.get(hashKey(blockHash));
    return v ? decodeUndo(v) : undefined;
  }

  /** GetAddressUnspent for one address, in leveldb key order. Costs the number of its unspent outputs. */
  unspentAt(address: string): AddressUnspent[] {
    const out: AddressUnspent[] = [];
    const prefix = addressPrefix(address);
    for (const { key, value } of this.addrUnspent.getRange({ start: prefix, end: after(prefix) })) out.push(decodeUnspent(key, value));
    return out;
  }

  /**
   * GetAddressUnspent read a page at a time: up to `limit` outputs worth at least `minValue`, in key
   * order after the cursor `after`. Costs what it walks, not the address's whole set.
   */
  unspentPageAt(address: string, after: OutputRef | undefined, limit: number, minValue = 0n): OutputPage<AddressUnspent> {
    return pageOf(this.addrUnspent, addressPrefix(address), after, limit, minValue, (v) => v.readBigUInt64LE(0), decodeUnspent);
  }

  /** Σ of the unspent outputs at one address (CCaddress_balance): a running total, one read. */
  balanceAt(address: string): bigint {
    const v = this.addrBalance.get(addressPrefix(address));
    return v ? v.readBigInt64LE(0) : 0n;
  }

  /**
   * getaddressbalance's sums over the address history of one address, from its running totals (one
   * read): received = Σ of its positive deltas (every output paid to it), balance = Σ of all its
   * deltas. The balance is credits − debits rather than the unspent total: an output the unspent set
   * never holds (a script over MAX_SCRIPT_SIZE that still names an address) is in the history.
   */
  historyTotalsAt(address: string): { balance: bigint; received: bigint } {
    const v = this.addrBalance.get(addressPrefix(address));
    if (!v || v.length < ROW_WITH_HISTORY) return { balance: 0n, received: 0n };
    const received = v.readBigInt64LE(12);
    return { balance: received - v.readBigInt64LE(20), received };
  }

  /**
   * GetAddressIndex (ReadAddressIndex): the deltas of one address in key order; with start > 0 and
   * end > 0 only heights start..end (a range of the index: cost grows with the answer, not the history).
   */
  historyAt(address: string, start = 0, end = 0): AddressDelta[] {
    const prefix = addressPrefix(address);
    const ranged = start > 0 && end > 0;
    if (ranged && start > end) return [];
    const from = ranged ? Buffer.concat([prefix, u32be(start)]) : prefix;
    const to = ranged && end < 0xffffffff ? Buffer.concat([prefix, u32be(end + 1)]) : after(prefix);
    const out: AddressDelta[] = [];
    for (const { key, value } of this.addrHistory.getRange({ start: from, end: to })) {
      out.push({
        height: key.readUInt32BE(21),
        blockindex: key.readUInt32BE(25),
        txid: displayOf(key, 29),
        index: key.readUInt32BE(61),
        spending: key[65] === 1,
        satoshis: value.readBigInt64LE(0),
      });
    }
    return out;
  }

  /** Every address-index row (tests: whole-state comparisons). */
  *allAddressRows(): Generator<string> {
    for (const { key, value } of this.addrUnspent.getRange({})) yield `u ${key.toString('hex')} ${value.toString('hex')}`;
    for (const { key, value } of this.addrHistory.getRange({})) yield `h ${key.toString('hex')} ${value.toString('hex')}`;
    for (const { key, value } of this.addrBalance.getRange({})) yield `b ${key.toString('hex')} ${value.toString('hex')}`;
  }

  /** Every spent-index and tx-index row (tests: whole-state comparisons). */
  *allIndexRows(): Generator<string> {
    for (const { key, value } of this.spent.getRange({})) yield `s ${key.toString('hex')} ${value.toString('hex')}`;
    for (const { key, value } of this.txs.getRange({})) yield `t ${key.toString('hex')} ${value.toString('hex')}`;
  }

  /**
   * CCoinsViewDB::GetStats: one walk of the coins in key order, which is komodod's leveldb order
   * ('c' | txid), grouped by transaction as its CCoins records are. hash_serialized is SHA256d of the
   * best block hash, then per transaction each unspent output as VARINT(n + 1) | CTxOut, then
   * VARINT(0): a hash over the whole set in order, which no running total can give, so komodod walks
   * ("Note this call may take some time") and so does this.
   */
  utxoStats(bestBlock: string): { transactions: number; txouts: number; bytesSerialized: number; hashSerialized: Uint8Array; totalAmount: bigint } {
    const h = createHash('sha256');
    h.update(hashKey(bestBlock));
    let transactions = 0;
    let txouts = 0;
    let bytesSerialized = 0;
    let totalAmount = 0n;
    const cur = Buffer.alloc(32);
    let open = false;
    let outs: UnspentOut[] = [];
    let head = { coinbase: false, height: 0, txVersion: 0 };
    // The hashed stream is gathered in a chunk and hashed a chunk at a time.
    let chunk = Buffer.allocUnsafe(1 << 16);
    let at = 0;
    const put = (b: Uint8Array) => {
      if (at + b.length > chunk.length) {
        h.update(chunk.subarray(0, at));
        at = 0;
        if (b.length > chunk.length) chunk = Buffer.allocUnsafe(b.length * 2);
      }
      chunk.set(b, at);
      at += b.length;
    };
    const end = varIntBytes(0);
    const flush = () => {
      if (!open) return;
      transactions++;
      bytesSerialized += 32 + ccoinsSize(outs, head.txVersion, head.coinbase, head.height);
      put(end);
    };
    for (const { key, value } of this.coins.getRange({})) {
      const n = key.readUInt32BE(32);
      if (!open || cur.compare(key, 0, 32) !== 0) {
        flush();
        key.copy(cur, 0, 0, 32);
        open = true;
        outs = [];
        head = { coinbase: value[0] === 1, height: value.readUInt32LE(1), txVersion: value.readInt32LE(5) };
      }
      const amount = value.readBigUInt64LE(9);
      const script = value.subarray(17);
      // a copy: the walk may hand out its value buffers again
      outs.push({ n, value: amount, script: Uint8Array.prototype.slice.call(script) });
      txouts++;
      totalAmount += amount;
      put(varIntBytes(n + 1));
      // CTxOut: nValue (int64), then the script with its compact size
      put(value.subarray(9, 17));
      put(compactSizeBytes(script.length));
      put(script);
    }
    flush();
    h.update(chunk.subarray(0, at));
    const hashSerialized = createHash('sha256').update(h.digest()).digest();
    return { transactions, txouts, bytesSerialized, hashSerialized: new Uint8Array(hashSerialized), totalAmount };
  }

  // ---- writes (inside the chain store's write transaction) ------------------------------------

  /**
   * Applies a block's transactions: spends their inputs (recorded as the block's undo data), adds
   * their outputs, files them in the tx, spent and address indexes. Inputs must have been validated.
   * `txStarts`: where each transaction starts in the block's bytes (Block.read's). `readBefore`: a
   * chain coin the block's checks read already (coinEntry: its stored bytes and their decoding), so
   * it is neither read nor decoded again.
   */
  connect(txs: readonly Transaction[], txids: readonly string[], blockHash: string, height: number, txStarts?: ArrayLike<number>, readBefore?: (prevout: Outpoint) => StoredCoin | undefined): BlockUndo {
    // Every row's key and value is built in a scratch buffer (ROW_*): a write inside a write
    // transaction copies both into the page before putSync/removeSync returns.
    const spent: Coin[] = [];
    // The undo record, built as the coins are read: count u32, then per coin outpoint | coin length | the coin's stored bytes.
    const undoRec = UNDO_RECORD;
    undoRec.reset(4);
    const opAt: number[] = [];
    const history = this.addressIndex;
    const hashBytes = hashKey(blockHash);
    const txidBytes = ROW_TXID;
    const op = ROW_OUTPOINT;
    this.balanceDeltas = new Map();
    try {
      for (let i = 0; i < txs.length; i++) {
        const tx = txs[i]!;
        writeHash(txidBytes, txids[i]!);
        const coinbase = tx.isCoinbase();
        if (!coinbase) {
          for (let n = 0; n < tx.vin.length; n++) {
            const prevout = tx.vin[n]!.prevout;
            op.set(prevout.hash, 0);
            op.writeUInt32BE(prevout.index, 32);
            const before = readBefore?.(prevout);
            const raw = before?.raw ?? this.coins.get(op);
            if (!raw) throw new Error(`connect ${blockHash}: missing coin ${outpointKey(prevout.txid(), prevout.index)}`);
            // A view of `raw` (get's own copy, kept whole in the undo record).
            const coin = before?.coin ?? decodeCoinView(raw);
            spent.push(coin);
            opAt.push(undoRec.length);
            undoRec.put(op);
            undoRec.u32le(raw.length);
            undoRec.put(raw);
            this.coins.removeSync(op);
            // The script's address prefixes, solved once for both address indexes.
            // The debit's history total rides on the row's removal: one per address (a repeated one's second finds no row).
            for (const a of addressPrefixesOf(coin.script)) {
              this.removeUnspentRow(a, op, coin.value, history ? coin.value : 0n);
              if (history) this.addrHistory.putSync(historyKey(a, height, i, txidBytes, n, true), i64(-coin.value));
            }
            this.spent.putSync(op, spentValue(txidBytes, n, height));
          }
        }
        for (let n = 0; n < tx.vout.length; n++) {
          const out = tx.vout[n]!;
          const prefixes = addressPrefixesOf(out.script);
          if (history) for (const a of prefixes) this.addrHistory.putSync(historyKey(a, height, i, txidBytes, n, false), i64(out.value));
          if (isUnspendable(out.script)) {
            // Never unspent, yet in the history (an over-long script naming an address).
            if (history) this.addHistoryTotals(prefixes, out.value, 0n);
            continue;
          }
          op.set(txidBytes, 0);
          op.writeUInt32BE(n, 32);
          // The credit's history total rides on the unspent rows' balance update (one per address).
          this.putUnspentRows(prefixes, op, out.value, height, coinbase, out.script, history ? out.value : 0n);
          this.coins.putSync(op, encodeCoinRow(out.value, out.script, height, coinbase, tx.version));
        }
        this.txs.putSync(txidBytes, txValue(hashBytes, height, i, txStarts ? txStarts[i]! : 0, txStarts ? txStarts[i + 1]! - txStarts[i]! : 0));
      }
      // The record is the caller's too (each spent coin's outpoint a view of it): its own copy.
      const record = Buffer.from(undoRec.finish(spent.length));
      this.undo.putSync(hashBytes, record);
      this.flushBalances();
      return { spent: spent.map((coin, k) => ({ op: record.subarray(opAt[k]!, opAt[k]! + 36), coin })) };
    } finally {
      this.balanceDeltas = null;
    }
  }

  /** Reverses connect() from the block's undo data: removes its outputs and index rows, restores what it spent. */
  disconnect(txs: readonly Transaction[], txids: readonly string[], blockHash: string, height: number): void {
    const hashBytes = hashKey(blockHash);
    const raw = this.undo.get(hashBytes);
    if (!raw) throw new Error(`disconnect ${blockHash}: no undo data`);
    const undo = decodeUndo(raw);
    this.balanceDeltas = new Map();
    try {
      this.disconnectRows(txs, txids, hashBytes, height, undo);
      this.flushBalances();
    } finally {
      this.balanceDeltas = null;
    }
  }

  private disconnectRows(txs: readonly Transaction[], txids: readonly string[], hashBytes: Buffer, height: number, undo: BlockUndo): void {
    if (this.addressIndex) {
      // The block's rows of the address history: each output's credit and each input's debit.
      let u = 0;
      for (let i = 0; i < txs.length; i++) {
        const tx = txs[i]!;
        const txidBytes = hashKey(txids[i]!);
        if (!tx.isCoinbase()) {
          for (let n = 0; n < tx.vin.length; n++) {
            const spent = undo.spent[u]!.coin;
            const prefixes = addressPrefixesOf(spent.script);
            for (const a of prefixes) this.addrHistory.removeSync(historyKey(a, height, i, txidBytes, n, true));
            this.addHistoryTotals(prefixes, 0n, -spent.value);
            u++;
          }
        }
        tx.vout.forEach((out, n) => {
          const prefixes = addressPrefixesOf(out.script);
          for (const a of prefixes) this.addrHistory.removeSync(historyKey(a, height, i, txidBytes, n, false));
          this.addHistoryTotals(prefixes, -out.value, 0n);
        });
      }
    }
    for (let i = txs.length - 1; i >= 0; i--) {
      const tx = txs[i]!;
      const txidBytes = hashKey(txids[i]!);
      tx.vout.forEach((out, n) => {
        const key = outpointBytes(txidBytes, n);
        if (this.coins.removeSync(key)) for (const a of addressPrefixesOf(out.script)) this.removeUnspentRow(a, key, out.value);
      });
      // Its row moves to staleTxs (komodod's txindex keeps a disconnected block's entries).
      const row = this.txs.get(txidBytes);
      if (row) this.staleTxs.putSync(txidBytes, row);
      this.txs.removeSync(txidBytes);
    }
    const own = new Set(txids);
    for (const { op, coin } of undo.spent) {
      const txid = displayOf(op, 0);
      this.spent.removeSync(op);
      // An output created and spent inside this block leaves with the block (DisconnectBlock's reverse walk).
      if (own.has(txid)) continue;
      this.coins.putSync(op, encodeCoin(coin));
      this.putUnspentRows(addressPrefixesOf(coin.script), op, coin.value, coin.height, coin.coinbase, coin.script);
    }
    this.undo.removeSync(hashBytes);
  }

  /**
   * An output's rows of the address unspent index, and its addresses' running totals. A script naming
   * one address twice (a multisig repeating a key) files one row, counted once.
   */
  private putUnspentRows(prefixes: readonly Buffer[], op: Buffer, value: bigint, height: number, coinbase: boolean, script: Uint8Array, received = 0n): void {
    const unique = prefixes.length > 1 ? uniquePrefixes(prefixes) : prefixes;
    // One value for every row of the output (a scratch buffer: each put copies it).
    const v = unique.length > 0 ? unspentValue(value, height, coinbase, script) : undefined;
    for (const a of unique) {
      this.addrUnspent.putSync(unspentKey(a, op), v!);
      this.addBalance(a, value, value > 0n ? 1 : 0, received);
    }
  }

  private removeUnspentRow(prefix: Buffer, op: Buffer, value: bigint, sent = 0n): void {
    if (!this.addrUnspent.removeSync(unspentKey(prefix, op))) return;
    const d = this.pendingOf(prefix);
    if (!d) return this.writeBalance({ prefix, delta: -value, dCount: value > 0n ? -1 : 0, dReceived: 0n, dSent: sent });
    // Subtracted, not added negated: each bigint operation makes a new bigint (see addBalance).
    d.delta -= value;
    if (value > 0n) d.dCount--;
    if (sent !== 0n) d.dSent += sent;
  }

  /**
   * While a block connects or disconnects: its net change to each address's total and count (written
   * once per address at its end, flushBalances, not read and written again per output).
   */
  private balanceDeltas: Map<string, BalanceDelta> | null = null;

  /** `dCount`: the change in its count of nonzero outputs (kept after the total: getsnapshot's utxos). */
  private addBalance(prefix: Buffer, delta: bigint, dCount: number, dReceived = 0n, dSent = 0n): void {
    const d = this.pendingOf(prefix);
    if (!d) return this.writeBalance({ prefix, delta, dCount, dReceived, dSent });
    // Each bigint sum is a new bigint on the heap: zeros (the history's totals when it is off, a
    // credit's debit and a debit's credit) are not added.
    d.delta += delta;
    d.dCount += dCount;
    if (dReceived !== 0n) d.dReceived += dReceived;
    if (dSent !== 0n) d.dSent += dSent;
  }

  /**
   * The history rows of one output (`received`) or one spent coin (`sent`) added to or taken from
   * its addresses' history totals: once per address, as a script naming one twice files one row.
   */
  private addHistoryTotals(prefixes: readonly Buffer[], received: bigint, sent: bigint): void {
    if (received === 0n && sent === 0n) return;
    for (const prefix of prefixes.length > 1 ? uniquePrefixes(prefixes) : prefixes) {
      const d = this.pendingOf(prefix);
      if (!d) {
        this.writeBalance({ prefix, delta: 0n, dCount: 0, dReceived: received, dSent: sent });
        continue;
      }
      if (received !== 0n) d.dReceived += received;
      if (sent !== 0n) d.dSent += sent;
    }
  }

  /** The block's pending change of an address (null outside a block's connect or disconnect). */
  private pendingOf(prefix: Buffer): BalanceDelta | null {
    const pending = this.balanceDeltas;
    if (!pending) return null;
    const id = prefix.toString('latin1');
    let d = pending.get(id);
    // A copy of the prefix: it may be a scratch buffer (addressPrefixesOf's P2PKH one).
    if (!d) pending.set(id, (d = { prefix: Buffer.from(prefix), delta: 0n, dCount: 0, dReceived: 0n, dSent: 0n }));
    return d;
  }

  private flushBalances(): void {
    const deltas = this.balanceDeltas!;
    if (deltas.size === 0) return;
    this.snapshot.batch(() => {
      for (const d of deltas.values()) {
        if (d.delta !== 0n || d.dCount !== 0 || d.dReceived !== 0n || d.dSent !== 0n) this.writeBalance(d);
      }
    });
  }

  private writeBalance({ prefix: k, delta, dCount, dReceived, dSent }: BalanceDelta): void {
    const v = this.addrBalance.get(k);
    const before = v ? v.readBigInt64LE(0) : 0n;
    const total = before + delta;
    const count = (v && v.length >= 12 ? v.readUInt32LE(8) : 0) + dCount;
    const withHistory = v !== undefined && v.length >= ROW_WITH_HISTORY;
    const received = (withHistory ? v.readBigInt64LE(12) : 0n) + dReceived;
    const sent = (withHistory ? v.readBigInt64LE(20) : 0n) + dSent;
    // An address with nothing unspent and no history has no row (nor does one whose outputs are all
    // worth 0); without the history's totals the row is the unspent total and count alone.
    if (total === 0n && received === 0n && sent === 0n) this.addrBalance.removeSync(k);
    else {
      const b = Buffer.allocUnsafe(received === 0n && sent === 0n ? 12 : ROW_WITH_HISTORY);
      b.writeBigInt64LE(total, 0);
      b.writeUInt32LE(count, 8);
      if (b.length === ROW_WITH_HISTORY) {
        b.writeBigInt64LE(received, 12);
        b.writeBigInt64LE(sent, 20);
      }
      this.addrBalance.putSync(k, b);
    }
    if (dCount !== 0 || delta !== 0n) this.snapshot.changed(k, before, total, dCount);
  }

  /** Empties every index (-reindex, a migration). Inside a write transaction. */
  clear(): void {
    for (const d of [this.coins, this.undo, this.txs, this.staleTxs, this.spent, this.addrUnspent, this.addrBalance, this.addrHistory, this.pools]) d.clearSync();
    this.snapshot.clear();
  }
}

/** A block's net change to one address's row: its unspent total and count, its history's credits and debits. */
interface BalanceDelta {
  prefix: Buffer;
  delta: bigint;
  dCount: number;
  dReceived: bigint;
  dSent: bigint;
}

/** An addressBalance row with the history's totals: total i64 | count u32 | received i64 | sent i64. */
const ROW_WITH_HISTORY = 28;

// ---- encodings -----------------------------------------------------------------------------------

/** The display hex of the 32 internal bytes at `at`. */
function displayOf(b: Buffer, at: number): string {
  return toHexReversed(b.subarray(at, at + 32));
}

function outpoint(txid: string, n: number): Buffer {
  return outpointBytes(hashKey(txid), n);
}

/**
 * The key of a read (coin, hasCoin, spentBy: an outpoint; txLocation, hasTx: a txid) built in one
 * buffer kept for reads: lmdb copies a key into its own key buffer on every get, so nothing keeps it,
 * and the mempool's view of every accepted transaction reads a coin per input and its txid's location
 * (two buffers each before). Writes keep keys of their own. A txid that is not 64 hex digits takes the
 * allocating path, so its key is exactly hashKey's (a short decode leaves no earlier key's bytes).
 */
const READ_KEY = Buffer.alloc(36);
const READ_HASH = READ_KEY.subarray(0, 32);

function readHash(txid: string): Buffer {
  if (txid.length !== 64 || READ_HASH.write(txid, 'hex') !== 32) return hashKey(txid);
  return READ_HASH.reverse();
}

function readOutpoint(txid: string, n: number): Buffer {
  if (txid.length !== 64 || READ_HASH.write(txid, 'hex') !== 32) return outpoint(txid, n);
  READ_HASH.reverse();
  READ_KEY.writeUInt32BE(n, 32);
  return READ_KEY;
}

function u32be(n: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32BE(n, 0);
  return b;
}

/**
 * Scratch buffers for the rows connect() and disconnect() write, one per part of a row, each
 * overwritten by the next row: inside a write transaction lmdb-js hands a put's or remove's key and
 * value to mdb_put/mdb_del at once, which copy them, so nothing keeps them (a block of 500
 * transactions made some 8,000 small buffers otherwise). A helper returning one (i64, historyKey,
 * unspentKey, unspentValue, spentValue, txValue, encodeCoinRow, addressPrefixesOf's P2PKH prefix)
 * gives a value good until that helper's next call: each is passed straight to one write.
 */
const ROW_I64 = Buffer.alloc(8);
/**
 * The amounts of rows are written through DataViews: Buffer's writeBig(U)Int64LE splits the bigint
 * with BigInt arithmetic (~110 B of temporaries and ~100 ns a call, four calls per transaction of a
 * block), DataView's setBig(U)int64 neither allocates nor takes a fifth of the time. Amounts are
 * validated before they are written, so its wrapping where Buffer's would throw is never reached.
 */
const ROW_I64_VIEW = new DataView(ROW_I64.buffer, ROW_I64.byteOffset, 8);
const ROW_HISTORY_KEY = Buffer.alloc(66);
const ROW_UNSPENT_KEY = Buffer.alloc(57);
const ROW_SPENT = Buffer.alloc(40);
const ROW_TX = Buffer.alloc(48);
/** connect()'s own: the transaction's txid (internal bytes) and the outpoint of the row being written. */
const ROW_TXID = Buffer.alloc(32);
const ROW_OUTPOINT = Buffer.alloc(36);
const ROW_P2PKH_PREFIX = Buffer.alloc(21);
const ROW_P2PKH_PREFIXES: readonly Buffer[] = [ROW_P2PKH_PREFIX];

/** A scratch buffer that grows to the largest value written through it (scripts vary in length). */
class RowBuffer {
  private buf: Buffer = Buffer.alloc(256);
  /** A view of `buf` (the amounts' writes, see ROW_I64_VIEW). */
  view: DataView = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.length);
  private at = 0;

  /** Empty, with `skip` bytes reserved at its start. */
  reset(skip = 0): void {
    this.at = skip;
  }

  private room(n: number): Buffer {
    if (this.at + n > this.buf.length) {
      const grown = Buffer.alloc(Math.max(this.buf.length * 2, this.at + n));
      this.buf.copy(grown, 0, 0, this.at);
      this.setBuf(grown);
    }
    return this.buf;
  }

  put(b: Uint8Array): void {
    this.room(b.length).set(b, this.at);
    this.at += b.length;
  }

  u32le(n: number): void {
    this.room(4).writeUInt32LE(n, this.at);
    this.at += 4;
  }

  get length(): number {
    return this.at;
  }

  /** The bytes written (a view, good until the next reset), the count u32 LE written first if given. */
  finish(count?: number): Buffer {
    if (count !== undefined) this.buf.writeUInt32LE(count, 0);
    const out = this.buf.subarray(0, this.at);
    // A huge block's record is not kept alive by the scratch.
    if (this.buf.length > 1 << 22) this.setBuf(Buffer.alloc(256));
    return out;
  }

  private setBuf(b: Buffer): void {
    this.buf = b;
    this.view = new DataView(b.buffer, b.byteOffset, b.length);
  }

  /** `n` bytes at the start, to be filled by the caller: a row's value of known size. */
  fixed(n: number): Buffer {
    this.at = 0;
    return this.room(n).subarray(0, n);
  }
}

const UNDO_RECORD = new RowBuffer();
const ROW_VALUE = new RowBuffer();

/** A display txid's internal bytes into `target` (32 bytes). */
function writeHash(target: Buffer, display: string): void {
  if (display.length !== 64 || target.write(display, 'hex') !== 32) throw new Error(`${display} is not a txid (64 hex digits)`);
  target.reverse();
}

function i64(v: bigint): Buffer {
  ROW_I64_VIEW.setBigInt64(0, v, true);
  return ROW_I64;
}

/** The first key after every key that starts with `prefix`. */
function after(prefix: Buffer): Buffer {
  return Buffer.concat([prefix, Buffer.alloc(64, 0xff)]);
}

/** An address key (`<type>:<hash160 hex>`) as the index's prefix: type u8 | hash160. */
function addressPrefix(address: string): Buffer {
  const sep = address.indexOf(':');
  const b = Buffer.allocUnsafe(21);
  b[0] = Number(address.slice(0, sep));
  b.write(address.slice(sep + 1), 1, 20, 'hex');
  return b;
}

/**
 * The index prefixes (type u8 | hash160) of the addresses a script pays: addressKeysOf's, with
 * P2PKH (nearly every output) read off its template into the prefix directly.
 */
function addressPrefixesOf(script: Uint8Array): readonly Buffer[] {
  if (isP2PKH(script)) {
    // Scratch (see ROW_I64): used by the caller's writes before the next call.
    const b = ROW_P2PKH_PREFIX;
    b[0] = 1;
    for (let j = 0; j < 20; j++) b[1 + j] = script[3 + j]!;
    return ROW_P2PKH_PREFIXES;
  }
  return addressKeysOf(script).map(addressPrefix);
}

function uniquePrefixes(prefixes: readonly Buffer[]): Buffer[] {
  const seen = new Set<string>();
  return prefixes.filter((p) => {
    const id = p.toString('latin1');
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/*
 * The row builders below fill their scratch with TypedArray set, not Buffer's copy, which checks its
 * arguments at length and makes a view of the source for a part of it (an outpoint's txid).
 */

function unspentKey(prefix: Buffer, op: Buffer): Buffer {
  const k = ROW_UNSPENT_KEY;
  k.set(prefix, 0);
  // The whole outpoint (txid | n BE), its n then overwritten:
  k.set(op, 21);
  // CAddressUnspentKey's index is serialised little-endian: leveldb orders it so.
  k.writeUInt32LE(op.readUInt32BE(32), 53);
  return k;
}

function decodeUnspent(key: Buffer, value: Buffer): AddressUnspent {
  return {
    txid: displayOf(key, 21),
    index: key.readUInt32LE(53),
    value: value.readBigUInt64LE(0),
    height: value.readUInt32LE(8),
    coinbase: value[12] === 1,
    script: new Uint8Array(value.subarray(13)),
  };
}

function unspentValue(value: bigint, height: number, coinbase: boolean, script: Uint8Array): Buffer {
  const v = ROW_VALUE.fixed(13 + script.length);
  ROW_VALUE.view.setBigUint64(0, value, true);
  v.writeUInt32LE(height, 8);
  v[12] = coinbase ? 1 : 0;
  v.set(script, 13);
  return v;
}

function historyKey(prefix: Buffer, height: number, blockindex: number, txid: Buffer, index: number, spending: boolean): Buffer {
  const k = ROW_HISTORY_KEY;
  k.set(prefix, 0);
  k.writeUInt32BE(height, 21);
  k.writeUInt32BE(blockindex, 25);
  k.set(txid, 29);
  k.writeUInt32BE(index, 61);
  k[65] = spending ? 1 : 0;
  return k;
}

function spentValue(txid: Buffer, vin: number, height: number): Buffer {
  const v = ROW_SPENT;
  v.set(txid, 0);
  v.writeUInt32LE(vin, 32);
  v.writeUInt32LE(height, 36);
  return v;
}

function decodeTxLocation(v: Buffer): TxLocation {
  return { blockHash: displayOf(v, 0), height: v.readUInt32LE(32), index: v.readUInt32LE(36), offset: v.readUInt32LE(40), length: v.readUInt32LE(44) };
}

function txValue(blockHash: Buffer, height: number, index: number, offset: number, length: number): Buffer {
  const v = ROW_TX;
  v.set(blockHash, 0);
  v.writeUInt32LE(height, 32);
  v.writeUInt32LE(index, 36);
  v.writeUInt32LE(offset, 40);
  v.writeUInt32LE(length, 44);
  return v;
}

function encodeCoin(c: Coin): Buffer {
  const v = Buffer.allocUnsafe(17 + c.script.length);
  v[0] = c.coinbase ? 1 : 0;
  v.writeUInt32LE(c.height, 1);
  v.writeInt32LE(c.txVersion, 5);
  v.writeBigUInt64LE(c.value, 9);
  v.set(c.script, 17);
  return v;
}

/** encodeCoin into ROW_VALUE's scratch (see ROW_I64), from the output's parts. */
function encodeCoinRow(value: bigint, script: Uint8Array, height: number, coinbase: boolean, txVersion: number): Buffer {
  const v = ROW_VALUE.fixed(17 + script.length);
  v[0] = coinbase ? 1 : 0;
  v.writeUInt32LE(height, 1);
  v.writeInt32LE(txVersion, 5);
  ROW_VALUE.view.setBigUint64(9, value, true);
  v.set(script, 17);
  return v;
}

/**
 * The u64 LE at `at`: Buffer's readBigUInt64LE builds it from two halves with BigInt arithmetic (four
 * bigints for one); an amount below 2^53 (every one a chain holds unless its supply is over 90
 * million coins) is one, from a Number.
 */
function u64At(v: Buffer, at: number): bigint {
  const hi = v.readUInt32LE(at + 4);
  return hi < 0x200000 ? BigInt(hi * 0x100000000 + v.readUInt32LE(at)) : v.readBigUInt64LE(at);
}

function decodeCoin(v: Buffer): Coin {
  return { coinbase: v[0] === 1, height: v.readUInt32LE(1), txVersion: v.readInt32LE(5), value: u64At(v, 9), script: new Uint8Array(v.subarray(17)) };
}

/** decodeCoin over a buffer the caller owns: the script is a view of it, not a copy. */
function decodeCoinView(v: Buffer): Coin {
  return { coinbase: v[0] === 1, height: v.readUInt32LE(1), txVersion: v.readInt32LE(5), value: u64At(v, 9), script: new Uint8Array(v.buffer, v.byteOffset + 17, v.length - 17) };
}

/** The undo record (connect writes it): count u32, then per spent coin: outpoint (36) | coin length u32 | coin. */
function decodeUndo(v: Buffer): BlockUndo {
  const n = v.readUInt32LE(0);
  const spent: BlockUndo['spent'] = [];
  let at = 4;
  for (let i = 0; i < n; i++) {
    const len = v.readUInt32LE(at + 36);
    spent.push({ op: v.subarray(at, at + 36), coin: decodeCoinView(v.subarray(at + 40, at + 40 + len)) });
    at += 40 + len;
  }
  return { spent };
}

