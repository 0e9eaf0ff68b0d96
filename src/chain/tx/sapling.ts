import type { BufferReader } from '../encoding/reader.js';
import type { BufferWriter } from '../encoding/writer.js';
import { GROTH_PROOF_SIZE, SAPLING_ENC_CIPHERTEXT_SIZE, SAPLING_OUT_CIPHERTEXT_SIZE } from '../consensus/tx.js';

/** SpendDescription (384 bytes): cv, anchor, nullifier, rk, zkproof, spendAuthSig. */
export class SpendDescription {
  constructor(
    public cv: Uint8Array,
    public anchor: Uint8Array,
    public nullifier: Uint8Array,
    public rk: Uint8Array,
    public zkproof: Uint8Array,
    public spendAuthSig: Uint8Array,
  ) {}

  static read(r: BufferReader): SpendDescription {
    const b = (n: number) => r.bytes(n).slice();
    return new SpendDescription(b(32), b(32), b(32), b(32), b(GROTH_PROOF_SIZE), b(64));
  }

  /** Everything but spendAuthSig: what ZIP-243's hashShieldedSpends covers. */
  writeWithoutSig(w: BufferWriter): void {
    w.bytes(this.cv).bytes(this.anchor).bytes(this.nullifier).bytes(this.rk).bytes(this.zkproof);
  }

  write(w: BufferWriter): void {
    this.writeWithoutSig(w);
    w.bytes(this.spendAuthSig);
  }
}

/** OutputDescription (948 bytes): cv, cmu, ephemeralKey, encCiphertext, outCiphertext, zkproof. */
export class OutputDescription {
  constructor(
    public cv: Uint8Array,
    public cmu: Uint8Array,
    public ephemeralKey: Uint8Array,
    public encCiphertext: Uint8Array,
    public outCiphertext: Uint8Array,
    public zkproof: Uint8Array,
  ) {}

  static read(r: BufferReader): OutputDescription {
    const b = (n: number) => r.bytes(n).slice();
    return new OutputDescription(
      b(32),
      b(32),
      b(32),
      b(SAPLING_ENC_CIPHERTEXT_SIZE),
      b(SAPLING_OUT_CIPHERTEXT_SIZE),
      b(GROTH_PROOF_SIZE),
    );
  }

  write(w: BufferWriter): void {
    w.bytes(this.cv).bytes(this.cmu).bytes(this.ephemeralKey);
    w.bytes(this.encCiphertext).bytes(this.outCiphertext).bytes(this.zkproof);
  }
}
