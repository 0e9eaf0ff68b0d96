import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Block } from '../../chain/block/block.js';
import { toHexReversed } from '../../chain/encoding/hex.js';
import { openStore } from '../storage/datastore.js';

/**
 * Reading the chain layout of schema 1 (nedb: blocks.db holding every raw block, chainstate.db the
 * tip, the failed blocks and the schema record), to upgrade it to block files and LMDB.
 */

const SCHEMA1_FILES = ['blocks.db', 'chainstate.db'];

/** Whether the data directory holds the files of the schema-1 layout. */
export function hasSchema1(dir: string): boolean {
  return SCHEMA1_FILES.some((f) => existsSync(join(dir, f)));
}

/** Removes the schema-1 files (once the new layout holding their blocks is committed), with nedb's temporary copies. */
export function removeSchema1(dir: string): void {
  for (const f of SCHEMA1_FILES) {
    rmSync(join(dir, f), { force: true });
    rmSync(join(dir, `${f}~`), { force: true });
  }
}

export interface Schema1Chain {
  /** Every stored block that links to genesis (genesis excluded), parents first, in arrival order among siblings. */
  blocks: { hash: string; raw: Uint8Array }[];
  tip: string | undefined;
  failed: string[];
}

/**
 * The schema-1 chain as its own loader read it: files judged line by line (a torn last line dropped,
 * damage before it refused), a block whose bytes do not hash to its key skipped, blocks whose parent
 * is missing skipped.
 */
export async function readSchema1(dir: string, genesisHash: string, log: (msg: string) => void): Promise<Schema1Chain> {
  const blocksDb = await openStore<{ _id: string; raw: string }>(dir, 'blocks', { log });
  const state = await openStore<{ _id: string; value?: unknown; version?: unknown }>(dir, 'chainstate', { log });
  const schemaDoc = await state.findOne({ _id: 'schema' });
  const version = schemaDoc ? Number(schemaDoc.version) : undefined;
  const docs = await blocksDb.find({});
  if (version === undefined && docs.length > 0) throw new Error('chain data has no schema record: refusing to guess its layout (start on a new -datadir)');
  if (version !== undefined && version !== 1) {
    throw new Error(`chain data schema ${version} in chainstate.db is not the nedb layout (1) this acnode upgrades from: refusing to guess its layout`);
  }
  const byPrev = new Map<string, { hash: string; raw: Uint8Array }[]>();
  for (const d of docs) {
    if (d._id === genesisHash) continue;
    const raw = new Uint8Array(Buffer.from(d.raw, 'base64'));
    let block: Block;
    try {
      block = Block.fromRaw(raw);
    } catch {
      log(`skipping unreadable stored block ${d._id}`);
      continue;
    }
    if (block.hashHex() !== d._id) {
      log(`skipping damaged stored block ${d._id} (its bytes hash to ${block.hashHex()})`);
      continue;
    }
    const prev = toHexReversed(block.header.prevHash);
    const list = byPrev.get(prev) ?? [];
    list.push({ hash: d._id, raw });
    byPrev.set(prev, list);
  }
  const blocks: { hash: string; raw: Uint8Array }[] = [];
  const queue = [genesisHash];
  for (let i = 0; i < queue.length; i++) {
    for (const child of byPrev.get(queue[i]!) ?? []) {
      blocks.push(child);
      queue.push(child.hash);
    }
  }
  const tipDoc = await state.findOne({ _id: 'tip' });
  const failedDoc = await state.findOne({ _id: 'failed' });
  return { blocks, tip: tipDoc?.value as string | undefined, failed: (failedDoc?.value as string[] | undefined) ?? [] };
}
