import { existsSync, readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Block } from '../../src/chain/block/block.js';

/**
 * komodod's block files read and written by the tests on their own (not through the node's code):
 * `<dir>/blocks/blk00000.dat`…, each a run of records: the network's 4 message-start bytes, the
 * block's length (4 bytes little-endian), the block.
 */

export interface FileRecord {
  file: number;
  /** where the block's bytes start (komodod's nPos) */
  pos: number;
  raw: Uint8Array;
}

const fileNames = (blocksDir: string): string[] =>
  existsSync(blocksDir) ? readdirSync(blocksDir).filter((f) => /^blk\d{5}\.dat$/.test(f)).sort() : [];

/**
 * Every record of the block files in order. Only the end of the last file may be a record cut short
 * (a write a kill interrupted): it is skipped; zeros to the end of a file are komodod's pre-allocated
 * space. Anything else that is not a record throws.
 */
export function readBlockFiles(datadir: string, magic: Uint8Array): FileRecord[] {
  const blocksDir = join(datadir, 'blocks');
  const names = fileNames(blocksDir);
  const out: FileRecord[] = [];
  names.forEach((name, k) => {
    const data = readFileSync(join(blocksDir, name));
    const file = Number(name.slice(3, 8));
    let at = 0;
    while (at < data.length) {
      if (data.subarray(at).every((b) => b === 0)) break;
      const whole = at + 8 <= data.length && at + 8 + data.readUInt32LE(at + 4) <= data.length;
      if (!whole && k === names.length - 1) break;
      if (!whole || !data.subarray(at, at + 4).equals(Buffer.from(magic))) throw new Error(`${name}: no record at ${at} of ${data.length}`);
      const len = data.readUInt32LE(at + 4);
      out.push({ file, pos: at + 8, raw: new Uint8Array(data.subarray(at + 8, at + 8 + len)) });
      at += 8 + len;
    }
  });
  return out;
}

/** The stored blocks by hash (a block stored twice keeps its first record). */
export function storedBlocksByHash(datadir: string, magic: Uint8Array): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  for (const r of readBlockFiles(datadir, magic)) {
    const hash = Block.fromRaw(r.raw).hashHex();
    if (!out.has(hash)) out.set(hash, r.raw);
  }
  return out;
}

/** Writes blocks as komodod lays them out: records appended to blk00000.dat, a new file past `maxFileSize`. */
export function writeBlockFiles(datadir: string, magic: Uint8Array, blocks: Uint8Array[], maxFileSize = 0x8000000): void {
  const blocksDir = join(datadir, 'blocks');
  mkdirSync(blocksDir, { recursive: true });
  let file = 0;
  let parts: Buffer[] = [];
  let size = 0;
  const flush = () => writeFileSync(join(blocksDir, `blk${String(file).padStart(5, '0')}.dat`), Buffer.concat(parts));
  for (const raw of blocks) {
    if (size > 0 && size + 8 + raw.length >= maxFileSize) {
      flush();
      file++;
      parts = [];
      size = 0;
    }
    const h = Buffer.alloc(8);
    h.set(magic, 0);
    h.writeUInt32LE(raw.length, 4);
    parts.push(h, Buffer.from(raw));
    size += 8 + raw.length;
  }
  flush();
}
