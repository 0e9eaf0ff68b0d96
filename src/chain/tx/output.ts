import type { BufferReader } from '../encoding/reader.js';
import type { BufferWriter } from '../encoding/writer.js';

/** CTxOut: value in satoshis (int64, so -1 can stand for the "null" output of SIGHASH_SINGLE). */
export class TxOut {
  constructor(
    public value: bigint,
    public script: Uint8Array,
  ) {}

  /** `views`: the script is a view into the reader's bytes (see Transaction.read). */
  static read(r: BufferReader, views = false): TxOut {
    const value = r.i64();
    const script = r.varBytes();
    return new TxOut(value, views ? script : script.slice());
  }

  write(w: BufferWriter): void {
    w.i64(this.value).varBytes(this.script);
  }

  clone(): TxOut {
    return new TxOut(this.value, this.script.slice());
  }
}
