import type { BufferReader } from '../encoding/reader.js';
import type { BufferWriter } from '../encoding/writer.js';
import { toHexReversed } from '../encoding/hex.js';

/** The map key of an outpoint: display txid and index. */
export const outpointKey = (txid: string, n: number): string => `${txid}:${n}`;

/** A reference to one output of an earlier transaction; `hash` is in internal byte order. */
export class Outpoint {
  constructor(
    public hash: Uint8Array,
    public index: number,
  ) {}

  static null(): Outpoint {
    return new Outpoint(new Uint8Array(32), 0xffffffff);
  }

  isNull(): boolean {
    return this.index === 0xffffffff && this.hash.every((b) => b === 0);
  }

  /** The display txid of `hash`, kept once made (two fields, no object): validation asks it of every input several times. */
  #shownOf?: Uint8Array;
  #shown = '';

  txid(): string {
    // Computed again if `hash` was replaced (nothing writes into a hash array in place).
    if (this.#shownOf !== this.hash) {
      this.#shown = toHexReversed(this.hash);
      this.#shownOf = this.hash;
    }
    return this.#shown;
  }

  /** A map key for this outpoint: display txid and index. */
  key(): string {
    return outpointKey(this.txid(), this.index);
  }

  /** `views`: the hash is a view into the reader's bytes, not a copy (see Transaction.read). */
  static read(r: BufferReader, views = false): Outpoint {
    const hash = r.bytes(32);
    return new Outpoint(views ? hash : hash.slice(), r.u32());
  }

  write(w: BufferWriter): void {
    w.bytes(this.hash).u32(this.index);
  }
}

/** CTxIn. */
export class TxIn {
  constructor(
    public prevout: Outpoint,
    public scriptSig: Uint8Array = new Uint8Array(0),
    public sequence = 0xffffffff,
  ) {}

  /** `views`: the prevout hash and scriptSig are views into the reader's bytes (see Transaction.read). */
  static read(r: BufferReader, views = false): TxIn {
    const prevout = Outpoint.read(r, views);
    const scriptSig = r.varBytes();
    return new TxIn(prevout, views ? scriptSig : scriptSig.slice(), r.u32());
  }

  write(w: BufferWriter): void {
    this.prevout.write(w);
    w.varBytes(this.scriptSig).u32(this.sequence);
  }

  clone(): TxIn {
    return new TxIn(new Outpoint(this.prevout.hash.slice(), this.prevout.index), this.scriptSig.slice(), this.sequence);
  }
}
