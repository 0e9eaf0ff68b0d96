import type { BufferReader } from '../encoding/reader.js';
import type { BufferWriter } from '../encoding/writer.js';
import { GROTH_PROOF_SIZE, PHGR_PROOF_SIZE, ZC_NOTECIPHERTEXT_SIZE } from '../consensus/tx.js';

/**
 * JSDescription: a Sprout JoinSplit. acnode never creates one, but parses, re-serialises and hashes
 * them exactly (sighash and txid cover them). The proof is 192 bytes (Groth) in v4, else 296 (PHGR).
 */
export class JoinSplit {
  constructor(
    public vpubOld: bigint,
    public vpubNew: bigint,
    public anchor: Uint8Array,
    public nullifiers: [Uint8Array, Uint8Array],
    public commitments: [Uint8Array, Uint8Array],
    public ephemeralKey: Uint8Array,
    public randomSeed: Uint8Array,
    public macs: [Uint8Array, Uint8Array],
    public proof: Uint8Array,
    public ciphertexts: [Uint8Array, Uint8Array],
  ) {}

  static size(useGroth: boolean): number {
    return 8 + 8 + 32 + 64 + 64 + 32 + 32 + 64 + (useGroth ? GROTH_PROOF_SIZE : PHGR_PROOF_SIZE) + 2 * ZC_NOTECIPHERTEXT_SIZE;
  }

  static read(r: BufferReader, useGroth: boolean): JoinSplit {
    const b = (n: number) => r.bytes(n).slice();
    const vpubOld = r.i64();
    const vpubNew = r.i64();
    return new JoinSplit(
      vpubOld,
      vpubNew,
      b(32),
      [b(32), b(32)],
      [b(32), b(32)],
      b(32),
      b(32),
      [b(32), b(32)],
      b(useGroth ? GROTH_PROOF_SIZE : PHGR_PROOF_SIZE),
      [b(ZC_NOTECIPHERTEXT_SIZE), b(ZC_NOTECIPHERTEXT_SIZE)],
    );
  }

  write(w: BufferWriter): void {
    w.i64(this.vpubOld).i64(this.vpubNew).bytes(this.anchor);
    w.bytes(this.nullifiers[0]).bytes(this.nullifiers[1]);
    w.bytes(this.commitments[0]).bytes(this.commitments[1]);
    w.bytes(this.ephemeralKey).bytes(this.randomSeed);
    w.bytes(this.macs[0]).bytes(this.macs[1]);
    w.bytes(this.proof);
    w.bytes(this.ciphertexts[0]).bytes(this.ciphertexts[1]);
  }
}
