import { BufferReader } from '../encoding/reader.js';
import { BufferWriter } from '../encoding/writer.js';
import { DecodeError } from '../encoding/errors.js';
import { fromHex, toHex } from '../encoding/hex.js';
import { sha256d } from '../crypto/hash.js';
import { Transaction } from '../tx/transaction.js';
import { BlockHeader } from './header.js';
import { buildMerkleTree, type MerkleTree } from './merkle.js';

/** The smallest serialised transaction (v1, no inputs, no outputs): bounds a hostile tx count. */
const MIN_TX_SIZE = 4 + 1 + 1 + 4;

/**
 * Each transaction's hash straight from the block's bytes, given where each one starts (`read`'s
 * txStarts): what `tx.hash()` gives without serialising it again. The reader takes only canonical
 * encodings (ReadCompactSize's rule), so a transaction's bytes are exactly its serialisation.
 */
export function txHashesOf(raw: Uint8Array, txStarts: readonly number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i + 1 < txStarts.length; i++) out.push(sha256d(raw.subarray(txStarts[i], txStarts[i + 1])));
  return out;
}

/** Each transaction's serialised size, from the same starts. */
export function txSizesOf(txStarts: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i + 1 < txStarts.length; i++) out.push(txStarts[i + 1]! - txStarts[i]!);
  return out;
}

/** CBlock: header, then a CompactSize count and the transactions. */
export class Block {
  constructor(
    public header: BlockHeader = new BlockHeader(),
    public txs: Transaction[] = [],
  ) {}

  /** `txStarts`, when given, receives where each transaction starts, then where the last one ends (from the block's start). */
  static read(r: BufferReader, txStarts?: number[]): Block {
    const start = r.offset;
    const header = BlockHeader.read(r);
    const n = r.count(MIN_TX_SIZE);
    const txs: Transaction[] = [];
    for (let i = 0; i < n; i++) {
      txStarts?.push(r.offset - start);
      txs.push(Transaction.read(r));
    }
    txStarts?.push(r.offset - start);
    return new Block(header, txs);
  }

  /** Exactly one block; trailing bytes are an error. */
  static fromRaw(data: Uint8Array, txStarts?: number[]): Block {
    const r = new BufferReader(data);
    const block = Block.read(r, txStarts);
    if (r.left !== 0) throw new DecodeError(`${r.left} trailing bytes after block`);
    return block;
  }

  /**
   * A serialised block's header, once every transaction has been decoded (the decoder fromRaw uses,
   * so the same bytes fail with the same error) one at a time and let go: a block the caller may not
   * keep is checked whole without all its transactions held in memory at once.
   */
  static headerOf(data: Uint8Array): BlockHeader {
    const r = new BufferReader(data);
    const header = BlockHeader.read(r);
    const n = r.count(MIN_TX_SIZE);
    for (let i = 0; i < n; i++) Transaction.read(r);
    if (r.left !== 0) throw new DecodeError(`${r.left} trailing bytes after block`);
    return header;
  }

  static fromHex(hex: string): Block {
    return Block.fromRaw(fromHex(hex));
  }

  write(w: BufferWriter): void {
    this.header.write(w);
    w.compactSize(this.txs.length);
    for (const tx of this.txs) tx.write(w);
  }

  toRaw(): Uint8Array {
    const w = new BufferWriter(2048);
    this.write(w);
    return w.finish();
  }

  toHex(): string {
    return toHex(this.toRaw());
  }

  hash(): Uint8Array {
    return this.header.hash();
  }

  hashHex(): string {
    return this.header.hashHex();
  }

  /** The merkle tree over the transactions' txids as komodod builds it (with the mutation flag). */
  merkleTree(): MerkleTree {
    return buildMerkleTree(this.txs.map((tx) => tx.hash()));
  }

  /** Recomputes the merkle root from the transactions and stores it in the header (miner templates). */
  updateMerkleRoot(): { root: Uint8Array; mutated: boolean } {
    const { root, mutated } = this.merkleTree();
    this.header.merkleRoot = root;
    return { root, mutated };
  }
}
