import { closeSync, existsSync, fstatSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readSync, readdirSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_BLOCK_SIZE_SAPLING } from '../../chain/params/upgrades.js';

/** main.h MAX_BLOCKFILE_SIZE: a block file is left for the next one before it would reach 128 MiB. */
export const MAX_BLOCKFILE_SIZE = 0x8000000;
/** The record header: the network's 4 message-start bytes, then the block's length (4 bytes LE). */
export const RECORD_HEADER = 8;
/** LoadExternalBlockFile's bounds on a record's length: at least a header, at most MAX_BLOCK_SIZE. */
const MIN_RECORD = 80;
const MAX_RECORD = MAX_BLOCK_SIZE_SAPLING;

/** Where a block's bytes are: komodod's CDiskBlockPos (nPos is the block's first byte, after the record header) and its length. */
export interface BlockPos {
  file: number;
  pos: number;
  size: number;
}

export const blockFileName = (n: number): string => `blk${String(n).padStart(5, '0')}.dat`;

/**
 * komodod's block files: `blocks/blk00000.dat`, `blk00001.dat`…, each a run of records (message
 * start, length, block) appended in arrival order, a new file begun when the next record would take
 * the current one to MAX_BLOCKFILE_SIZE (FindBlockPos). komodod pre-allocates files in 16 MiB chunks
 * of zeros; acnode does not, and reads either (a scan looks for the message start, as
 * LoadExternalBlockFile does). Only the chain store writes here; reads are positioned reads.
 */
export class BlockFiles {
  private readonly fds = new Map<number, number>();
  /** The file appended to and its size (what has been written to it). */
  private last = 0;
  private lastSize = 0;
  /** Written since the last sync: the files to fsync. */
  private readonly dirty = new Set<number>();

  constructor(
    readonly dir: string,
    private readonly magic: Uint8Array,
  ) {
    mkdirSync(dir, { recursive: true });
  }

  path(n: number): string {
    return join(this.dir, blockFileName(n));
  }

  /** The block files present, by number (blk00000.dat…), in order. */
  list(): number[] {
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir)
      .map((f) => /^blk(\d{5})\.dat$/.exec(f))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
  }

  /** The size of a file on disk (0 when absent). */
  sizeOf(n: number): number {
    if (!existsSync(this.path(n))) return 0;
    return fstatSync(this.fd(n)).size;
  }

  private fd(n: number): number {
    let fd = this.fds.get(n);
    if (fd === undefined) {
      fd = openSync(this.path(n), existsSync(this.path(n)) ? 'r+' : 'w+');
      this.fds.set(n, fd);
    }
    return fd;
  }

  /** Where the next record goes: after `size` bytes of file `file` (what the chain state says was written). */
  setAppendPoint(file: number, size: number): void {
    this.last = file;
    this.lastSize = size;
  }

  get appendFile(): number {
    return this.last;
  }

  get appendSize(): number {
    return this.lastSize;
  }

  /** Appends one record; not durable until sync(). */
  append(raw: Uint8Array): BlockPos {
    if (this.lastSize > 0 && this.lastSize + RECORD_HEADER + raw.length >= MAX_BLOCKFILE_SIZE) {
      this.last++;
      this.lastSize = 0;
    }
    const fd = this.fd(this.last);
    const header = Buffer.alloc(RECORD_HEADER);
    header.set(this.magic, 0);
    header.writeUInt32LE(raw.length, 4);
    writeFully(fd, header, this.lastSize);
    writeFully(fd, raw, this.lastSize + RECORD_HEADER);
    const pos = { file: this.last, pos: this.lastSize + RECORD_HEADER, size: raw.length };
    this.lastSize += RECORD_HEADER + raw.length;
    this.dirty.add(this.last);
    return pos;
  }

  /** fsyncs what was appended (before the chain state that points at it is committed). */
  sync(): void {
    for (const n of this.dirty) fsyncSync(this.fd(n));
    this.dirty.clear();
  }

  /** The descriptors of the files written since the last sync, handed over to be fsynced elsewhere (they count as synced here). */
  takeUnsynced(): number[] {
    const fds = [...this.dirty].map((n) => this.fd(n));
    this.dirty.clear();
    return fds;
  }

  /** `length` bytes at `offset` of file `n`; throws when the file is shorter. */
  read(n: number, offset: number, length: number): Uint8Array {
    if (!existsSync(this.path(n)) && !this.fds.has(n)) throw new Error(`block file ${this.path(n)} is missing`);
    const buf = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const got = readSync(this.fd(n), buf, done, length - done, offset + done);
      if (got === 0) throw new Error(`block file ${this.path(n)} ends at ${offset + done}, before the ${length} bytes at ${offset}`);
      done += got;
    }
    return new Uint8Array(buf.buffer, buf.byteOffset, length);
  }

  readBlock(p: BlockPos): Uint8Array {
    return this.read(p.file, p.pos, p.size);
  }

  /** Whether the record header before a block's bytes is this network's, with the block's length. */
  recordMatches(p: BlockPos): boolean {
    if (p.pos < RECORD_HEADER) return false;
    const h = Buffer.from(this.read(p.file, p.pos - RECORD_HEADER, RECORD_HEADER));
    return h.subarray(0, 4).equals(this.magic) && h.readUInt32LE(4) === p.size;
  }

  truncate(n: number, size: number): void {
    ftruncateSync(this.fd(n), size);
    fsyncSync(this.fd(n));
  }

  /**
   * The complete records of file `n` laid end to end from `from`: stops at the first place that is
   * not one (a record cut short, or bytes that are not a record header), and says where that is.
   * This is how the tail written after the last committed block is read back at start.
   */
  *records(n: number, from: number): Generator<BlockPos, { end: number }> {
    const size = this.sizeOf(n);
    let at = from;
    while (at + RECORD_HEADER <= size) {
      const h = Buffer.from(this.read(n, at, RECORD_HEADER));
      const len = h.readUInt32LE(4);
      if (!h.subarray(0, 4).equals(this.magic) || len < MIN_RECORD || len > MAX_RECORD || at + RECORD_HEADER + len > size) break;
      yield { file: n, pos: at + RECORD_HEADER, size: len };
      at += RECORD_HEADER + len;
    }
    return { end: at };
  }

  /**
   * LoadExternalBlockFile's reading of a file: look for the message start, read the length, and
   * offer the record; `accept` says whether it held a block (if not, the search goes on one byte
   * after the message start, as komodod's nRewind does). Zeros (komodod's pre-allocated tail) and
   * other bytes between records are skipped.
   */
  scan(n: number, accept: (p: BlockPos) => boolean): void {
    const size = this.sizeOf(n);
    const CHUNK = 1 << 20;
    let at = 0;
    while (at + RECORD_HEADER <= size) {
      // Find the next message start at or after `at`.
      const chunk = Buffer.from(this.read(n, at, Math.min(CHUNK, size - at)));
      const i = chunk.indexOf(Buffer.from(this.magic));
      if (i < 0) {
        // A message start may straddle the chunk's end: keep its last 3 bytes.
        at += Math.max(1, chunk.length - 3);
        continue;
      }
      const start = at + i;
      if (start + RECORD_HEADER > size) break;
      const len = Buffer.from(this.read(n, start + 4, 4)).readUInt32LE(0);
      if (len >= MIN_RECORD && len <= MAX_RECORD && start + RECORD_HEADER + len <= size && accept({ file: n, pos: start + RECORD_HEADER, size: len })) {
        at = start + RECORD_HEADER + len;
      } else {
        at = start + 1;
      }
    }
  }

  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }
}

function writeFully(fd: number, data: Uint8Array, position: number): void {
  let done = 0;
  while (done < data.length) done += writeSync(fd, data, done, data.length - done, position + done);
}
