import { BufferReader } from '../encoding/reader.js';
import { BufferWriter } from '../encoding/writer.js';
import { DecodeError } from '../encoding/errors.js';
import { fromHex, toHex, toHexReversed } from '../encoding/hex.js';
import { sha256d } from '../crypto/hash.js';
import { OUTPUT_DESCRIPTION_SIZE, OVERWINTER_TX_VERSION, OVERWINTER_VERSION_GROUP_ID, SAPLING_TX_VERSION, SAPLING_VERSION_GROUP_ID, SPEND_DESCRIPTION_SIZE } from '../consensus/tx.js';
import { TxIn } from './input.js';
import { TxOut } from './output.js';
import { JoinSplit } from './joinsplit.js';
import { OutputDescription, SpendDescription } from './sapling.js';

/** Smallest serialised TxIn (36-byte prevout, empty script, sequence) and TxOut: bounds hostile counts. */
const MIN_TXIN_SIZE = 41;
const MIN_TXOUT_SIZE = 9;

/**
 * CTransaction in all the formats komodod reads: v1/v2 (Sprout, with JoinSplits from v2), v3
 * (Overwinter) and v4 (Sapling). Fields are public and mutable so builders can fill them in;
 * `hash()` is computed from the current fields on each call.
 */
export class Transaction {
  overwintered = false;
  version = 1;
  versionGroupId = 0;
  vin: TxIn[] = [];
  vout: TxOut[] = [];
  lockTime = 0;
  expiryHeight = 0;
  valueBalance = 0n;
  shieldedSpends: SpendDescription[] = [];
  shieldedOutputs: OutputDescription[] = [];
  joinSplits: JoinSplit[] = [];
  // The JoinSplit and Sapling signature fields exist only in transactions with JoinSplits or Sapling
  // spends/outputs (next to none here): made (zeroed) when first read, not with every transaction —
  // three buffers each were about a quarter of what a parsed transaction held.
  #joinSplitPubKey?: Uint8Array;
  #joinSplitSig?: Uint8Array;
  #bindingSig?: Uint8Array;

  get joinSplitPubKey(): Uint8Array {
    return (this.#joinSplitPubKey ??= new Uint8Array(32));
  }
  set joinSplitPubKey(v: Uint8Array) {
    this.#joinSplitPubKey = v;
  }
  get joinSplitSig(): Uint8Array {
    return (this.#joinSplitSig ??= new Uint8Array(64));
  }
  set joinSplitSig(v: Uint8Array) {
    this.#joinSplitSig = v;
  }
  get bindingSig(): Uint8Array {
    return (this.#bindingSig ??= new Uint8Array(64));
  }
  set bindingSig(v: Uint8Array) {
    this.#bindingSig = v;
  }

  get isOverwinterV3(): boolean {
    return this.overwintered && this.versionGroupId === OVERWINTER_VERSION_GROUP_ID && this.version === OVERWINTER_TX_VERSION;
  }

  get isSaplingV4(): boolean {
    return this.overwintered && this.versionGroupId === SAPLING_VERSION_GROUP_ID && this.version === SAPLING_TX_VERSION;
  }

  /** JoinSplit proofs are Groth in v4+ overwintered transactions, PHGR otherwise. */
  get useGroth(): boolean {
    return this.overwintered && this.version >= SAPLING_TX_VERSION;
  }

  /** The 4-byte header: nVersion with the overwintered flag in the top bit. */
  get header(): number {
    return ((this.overwintered ? 0x80000000 : 0) | (this.version & 0x7fffffff)) >>> 0;
  }

  isCoinbase(): boolean {
    return this.vin.length === 1 && this.vin[0]!.prevout.isNull();
  }

  /**
   * Reads one transaction. `views`: its inputs' prevout hashes and scriptSigs and its outputs' scripts
   * are views into the reader's bytes instead of copies (three allocations an input or output fewer),
   * for a caller whose bytes outlive the transaction and are never written again: the mempool keeps
   * an entry's raw bytes beside its transaction, and a script-check batch's transaction dies with the
   * batch. Nothing writes into these arrays in place (signing and builders assign new ones), but the
   * transaction then holds the whole buffer the reader reads.
   */
  static read(r: BufferReader, views = false): Transaction {
    const tx = new Transaction();
    const header = r.u32();
    tx.overwintered = header >>> 31 === 1;
    tx.version = header & 0x7fffffff;
    if (tx.overwintered) tx.versionGroupId = r.u32();
    const v3 = tx.isOverwinterV3;
    const v4 = tx.isSaplingV4;
    if (tx.overwintered && !(v3 || v4)) throw new DecodeError('Unknown transaction format');

    // Arrays of their exact length (bounded by the bytes left): grown by push, each had room for 17.
    const nIn = r.count(MIN_TXIN_SIZE);
    const vin = new Array<TxIn>(nIn);
    for (let i = 0; i < nIn; i++) vin[i] = TxIn.read(r, views);
    tx.vin = vin;
    const nOut = r.count(MIN_TXOUT_SIZE);
    const vout = new Array<TxOut>(nOut);
    for (let i = 0; i < nOut; i++) vout[i] = TxOut.read(r, views);
    tx.vout = vout;
    tx.lockTime = r.u32();
    if (v3 || v4) tx.expiryHeight = r.u32();
    if (v4) {
      tx.valueBalance = r.i64();
      const nSpends = r.count(SPEND_DESCRIPTION_SIZE);
      for (let i = 0; i < nSpends; i++) tx.shieldedSpends.push(SpendDescription.read(r));
      const nOutputs = r.count(OUTPUT_DESCRIPTION_SIZE);
      for (let i = 0; i < nOutputs; i++) tx.shieldedOutputs.push(OutputDescription.read(r));
    }
    if (tx.version >= 2) {
      const groth = tx.useGroth;
      const nJs = r.count(JoinSplit.size(groth));
      for (let i = 0; i < nJs; i++) tx.joinSplits.push(JoinSplit.read(r, groth));
      if (nJs > 0) {
        tx.joinSplitPubKey = r.bytes(32).slice();
        tx.joinSplitSig = r.bytes(64).slice();
      }
    }
    if (v4 && (tx.shieldedSpends.length > 0 || tx.shieldedOutputs.length > 0)) {
      tx.bindingSig = r.bytes(64).slice();
    }
    return tx;
  }

  /**
   * An empty transaction in a consensus format (ChainParams.txFormat: CreateNewContextualCMutableTransaction's
   * header fields), its expiry height the format's unless given.
   */
  static ofFormat(f: { overwintered: boolean; version: number; versionGroupId: number; expiryHeight: number }, expiryHeight = f.expiryHeight): Transaction {
    const tx = new Transaction();
    tx.overwintered = f.overwintered;
    tx.version = f.version;
    tx.versionGroupId = f.versionGroupId;
    tx.expiryHeight = expiryHeight;
    return tx;
  }

  /**
   * Parses exactly one transaction; trailing bytes are an error (komodod's RPC rule, which ignores them,
   * is rpc/methods/rawtransactions.ts decodeHexTxBytes). `views`: as read's.
   */
  static fromRaw(data: Uint8Array, views = false): Transaction {
    const r = new BufferReader(data);
    const tx = Transaction.read(r, views);
    if (r.left !== 0) throw new DecodeError(`${r.left} trailing bytes after transaction`);
    return tx;
  }

  static fromHex(hex: string): Transaction {
    return Transaction.fromRaw(fromHex(hex));
  }

  write(w: BufferWriter): void {
    w.u32(this.header);
    if (this.overwintered) w.u32(this.versionGroupId);
    w.compactSize(this.vin.length);
    for (const input of this.vin) input.write(w);
    w.compactSize(this.vout.length);
    for (const output of this.vout) output.write(w);
    w.u32(this.lockTime);
    const v4 = this.isSaplingV4;
    if (this.isOverwinterV3 || v4) w.u32(this.expiryHeight);
    if (v4) {
      w.i64(this.valueBalance);
      w.compactSize(this.shieldedSpends.length);
      for (const s of this.shieldedSpends) s.write(w);
      w.compactSize(this.shieldedOutputs.length);
      for (const o of this.shieldedOutputs) o.write(w);
    }
    if (this.version >= 2) {
      w.compactSize(this.joinSplits.length);
      for (const js of this.joinSplits) js.write(w);
      if (this.joinSplits.length > 0) w.bytes(this.joinSplitPubKey).bytes(this.joinSplitSig);
    }
    if (v4 && (this.shieldedSpends.length > 0 || this.shieldedOutputs.length > 0)) w.bytes(this.bindingSig);
  }

  toRaw(): Uint8Array {
    const w = new BufferWriter(256);
    this.write(w);
    return w.finish();
  }

  toHex(): string {
    return toHex(this.toRaw());
  }

  /** Double SHA-256 of the serialisation, internal byte order. */
  hash(): Uint8Array {
    return sha256d(this.toRaw());
  }

  /** The txid as komodod shows it (byte-reversed hex). */
  txid(): string {
    return toHexReversed(this.hash());
  }

  clone(): Transaction {
    return Transaction.fromRaw(this.toRaw());
  }
}
