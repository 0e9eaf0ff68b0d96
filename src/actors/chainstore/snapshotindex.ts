import type { Database } from 'lmdb';
import { PUBKEY_ADDRESS, SCRIPT_ADDRESS, decodeAddress, encodeAddress } from '../../chain/address/address.js';
import type { ChainDb } from './chaindb.js';

/** txdb.cpp's DECLARE_IGNORELIST: addresses Snapshot2 leaves out (counted as ignored, per output). */
const IGNORED = new Set([
  'RReUxSs5hGE39ELU23DfydX8riUuzdrHAE', 'RMUF3UDmzWFLSKV82iFbMaqzJpUnrWjcT4', 'RA5imhVyJa7yHhggmBytWuDr923j2P1bxx', 'RBM5LofZFodMeewUzoMWcxedm3L3hYRaWg',
  'RAdcko2d94TQUcJhtFHZZjMyWBKEVfgn4J', 'RLzUaZ934k2EFCsAiVjrJqM8uU1vmMRFzk', 'RMSZMWZXv4FhUgWhEo4R3AQXmRDJ6rsGyt', 'RUDrX1v5toCsJMUgtvBmScKjwCB5NaR8py',
  'RRvwmbkxR5YRzPGL5kMFHMe1AH33MeD8rN', 'RQLQvSgpPAJNPgnpc8MrYsbBhep95nCS8L', 'RK8JtBV78HdvEPvtV5ckeMPSTojZPzHUTe', 'RHVs2KaCTGUMNv3cyWiG1jkEvZjigbCnD2',
  'RE3SVaDgdjkRPYA6TRobbthsfCmxQedVgF', 'RW6S5Lw5ZCCvDyq4QV9vVy7jDHfnynr5mn', 'RTkJwAYtdXXhVsS3JXBAJPnKaBfMDEswF8', 'RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPVMY',
]);

/**
 * The ignored addresses as the index's prefixes (type u8 | hash160, latin1): an address whose balance
 * changed is looked up by its prefix, not base58-encoded first (a SHA256d per address of every block).
 */
const IGNORED_PREFIXES = new Set(
  [...IGNORED].map((a) => {
    const d = decodeAddress(a);
    if (!d || (d.version !== PUBKEY_ADDRESS && d.version !== SCRIPT_ADDRESS)) throw new Error(`snapshot ignore list: ${a} is not an address`);
    return String.fromCharCode(d.version === PUBKEY_ADDRESS ? 1 : 2) + Buffer.from(d.hash).toString('latin1');
  }),
);

/** Snapshot2's running figures over the address unspent index. */
export interface SnapshotTotals {
  /** Σ of the counted key/script outputs and of every CC output */
  total: bigint;
  /** nonzero outputs of counted key/script addresses */
  utxos: bigint;
  /** key/script addresses (not ignored) with something unspent */
  addresses: bigint;
  /** nonzero outputs of ignored addresses */
  ignored: bigint;
  ccUtxos: bigint;
  ccTotal: bigint;
}

const TOTALS_KEY = Buffer.from('totals');
const FIELDS = ['total', 'utxos', 'addresses', 'ignored', 'ccUtxos', 'ccTotal'] as const;

/**
 * getsnapshot's figures kept as the address balances change (komodod walks the whole unspent index
 * on every call): `richlist`: ~amount u64 BE | ~version u8 | ~hash160 → empty, so LMDB's order is
 * komodod's sort (amount, then address text, both descending: R- and b-addresses are all 34
 * characters, so the text orders as version then hash); `snapshotTotals`: Snapshot2's counters.
 */
export class SnapshotIndex {
  private readonly rich: Database<Buffer, Buffer>;
  private readonly totalsDb: Database<Buffer, Buffer>;

  constructor(db: ChainDb) {
    this.rich = db.index('richlist');
    this.totalsDb = db.index('snapshotTotals');
  }

  /** The totals while a block's balances are written (batch): read once, written once. */
  private pending: SnapshotTotals | undefined;
  private touched = false;

  totals(): SnapshotTotals {
    if (this.pending) return { ...this.pending };
    const v = this.totalsDb.get(TOTALS_KEY);
    const t = {} as Record<(typeof FIELDS)[number], bigint>;
    FIELDS.forEach((f, k) => (t[f] = v ? v.readBigInt64LE(8 * k) : 0n));
    return t;
  }

  /** The first `top` addresses by amount (0: all), as Snapshot lists them. Costs the answer. */
  top(top: number): { addr: string; amount: bigint }[] {
    const out: { addr: string; amount: bigint }[] = [];
    for (const { key } of this.rich.getRange(top > 0 ? { limit: top } : {})) {
      const amount = ~key.readBigUInt64BE(0) & 0xffffffffffffffffn;
      const version = 255 - key[8]!;
      const hash = Buffer.from(key.subarray(9, 29)).map((b) => 255 - b);
      out.push({ addr: encodeAddress(version, hash), amount });
    }
    return out;
  }

  private richKey(version: number, hash: Buffer, amount: bigint): Buffer {
    const k = Buffer.allocUnsafe(29);
    k.writeBigUInt64BE(~amount & 0xffffffffffffffffn, 0);
    k[8] = 255 - version;
    for (let i = 0; i < 20; i++) k[9 + i] = 255 - hash[i]!;
    return k;
  }

  /**
   * Inside the block's write transaction: an address's unspent total went from `before` to `after`
   * and its count of nonzero outputs changed by `dCount`. `prefix`: type u8 | hash160.
   */
  changed(prefix: Buffer, before: bigint, after: bigint, dCount: number): void {
    const type = prefix[0]!;
    if (type !== 1 && type !== 2 && type !== 3) return;
    this.touched = true;
    const t = this.pending ?? this.totals();
    const d = after - before;
    if (type === 3) {
      t.ccUtxos += BigInt(dCount);
      t.ccTotal += d;
      t.total += d;
    } else {
      const version = type === 1 ? PUBKEY_ADDRESS : SCRIPT_ADDRESS;
      const hash = prefix.subarray(1, 21);
      if (IGNORED_PREFIXES.has(prefix.toString('latin1', 0, 21))) t.ignored += BigInt(dCount);
      else {
        t.utxos += BigInt(dCount);
        t.total += d;
        if (before > 0n) this.rich.removeSync(this.richKey(version, hash, before));
        if (after > 0n) this.rich.putSync(this.richKey(version, hash, after), Buffer.alloc(0));
        t.addresses += BigInt((after > 0n ? 1 : 0) - (before > 0n ? 1 : 0));
      }
    }
    if (!this.pending) this.putTotals(t);
  }

  /**
   * Inside a write transaction: `fn` changes many balances (a block's, flushBalances), the totals
   * read before the first change and written after the last (one read and one write a block, not
   * one of each per address).
   */
  batch(fn: () => void): void {
    const t = this.totals();
    this.pending = t;
    this.touched = false;
    try {
      fn();
    } finally {
      this.pending = undefined;
    }
    // Written only when a balance it counts changed, as changed() alone writes.
    if (this.touched) this.putTotals(t);
  }

  private putTotals(t: SnapshotTotals): void {
    const v = Buffer.allocUnsafe(8 * FIELDS.length);
    FIELDS.forEach((f, k) => v.writeBigInt64LE(t[f], 8 * k));
    this.totalsDb.putSync(TOTALS_KEY, v);
  }

  clear(): void {
    this.rich.clearSync();
    this.totalsDb.clearSync();
  }
}
