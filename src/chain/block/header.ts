import { BufferReader } from '../encoding/reader.js';
import { BufferWriter } from '../encoding/writer.js';
import { DecodeError } from '../encoding/errors.js';
import { fromHex, toHex, toHexReversed } from '../encoding/hex.js';
import { sha256d } from '../crypto/hash.js';

/** CBlockHeader::HEADER_SIZE: the fixed fields, without the Equihash solution. */
export const HEADER_SIZE = 4 + 32 + 32 + 32 + 4 + 4 + 32;
/** CEquihashInput: version..bits, what Equihash hashes before the nonce. */
export const EQUIHASH_INPUT_SIZE = 4 + 32 + 32 + 32 + 4 + 4;
/** CBlockHeader::CURRENT_VERSION; every non-genesis block must have at least this (consensus.h MIN_BLOCK_VERSION). */
export const CURRENT_BLOCK_VERSION = 4;
export const MIN_BLOCK_VERSION = 4;

/**
 * CBlockHeader (primitives/block.h): the Zcash header with a 32-byte Sapling root, a 256-bit nonce and
 * the Equihash solution. Hashes and the nonce are kept in internal byte order. The block hash is SHA256d
 * over the whole serialisation, solution included.
 */
export class BlockHeader {
  version = CURRENT_BLOCK_VERSION;
  prevHash: Uint8Array = new Uint8Array(32);
  merkleRoot: Uint8Array = new Uint8Array(32);
  /** hashFinalSaplingRoot (Zcash's hashReserved before Sapling). */
  finalSaplingRoot: Uint8Array = new Uint8Array(32);
  time = 0;
  bits = 0;
  nonce: Uint8Array = new Uint8Array(32);
  solution: Uint8Array = new Uint8Array(0);

  static read(r: BufferReader): BlockHeader {
    const h = new BlockHeader();
    h.version = r.i32();
    h.prevHash = r.bytes(32).slice();
    h.merkleRoot = r.bytes(32).slice();
    h.finalSaplingRoot = r.bytes(32).slice();
    h.time = r.u32();
    h.bits = r.u32();
    h.nonce = r.bytes(32).slice();
    h.solution = r.varBytes().slice();
    return h;
  }

  /** Exactly one header; trailing bytes are an error. */
  static fromRaw(data: Uint8Array): BlockHeader {
    const r = new BufferReader(data);
    const h = BlockHeader.read(r);
    if (r.left !== 0) throw new DecodeError(`${r.left} trailing bytes after block header`);
    return h;
  }

  static fromHex(hex: string): BlockHeader {
    return BlockHeader.fromRaw(fromHex(hex));
  }

  /** version..bits (CEquihashInput). */
  writeEquihashInput(w: BufferWriter): void {
    w.i32(this.version).bytes(this.prevHash).bytes(this.merkleRoot).bytes(this.finalSaplingRoot).u32(this.time).u32(this.bits);
  }

  write(w: BufferWriter): void {
    this.writeEquihashInput(w);
    w.bytes(this.nonce).varBytes(this.solution);
  }

  toRaw(): Uint8Array {
    const w = new BufferWriter(HEADER_SIZE + 3 + this.solution.length);
    this.write(w);
    return w.finish();
  }

  toHex(): string {
    return toHex(this.toRaw());
  }

  /** The 140 bytes Equihash is computed over: CEquihashInput (108 bytes) then the nonce (pow.cpp CheckEquihashSolution). */
  equihashInput(): Uint8Array {
    const w = new BufferWriter(HEADER_SIZE);
    this.writeEquihashInput(w);
    w.bytes(this.nonce);
    return w.finish();
  }

  /** Block hash, internal byte order: SHA256d of the full header including the solution. */
  hash(): Uint8Array {
    return sha256d(this.toRaw());
  }

  /** The block hash as komodod shows it (byte-reversed hex). */
  hashHex(): string {
    return toHexReversed(this.hash());
  }

  clone(): BlockHeader {
    return BlockHeader.fromRaw(this.toRaw());
  }

  toJSON(): Record<string, unknown> {
    return {
      hash: this.hashHex(),
      version: this.version,
      previousblockhash: toHexReversed(this.prevHash),
      merkleroot: toHexReversed(this.merkleRoot),
      finalsaplingroot: toHexReversed(this.finalSaplingRoot),
      time: this.time,
      nonce: toHexReversed(this.nonce),
      solution: toHex(this.solution),
      bits: this.bits.toString(16).padStart(8, '0'),
    };
  }
}
