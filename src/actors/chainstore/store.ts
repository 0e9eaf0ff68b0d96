import { compactStore, openStore, type Store } from '../storage/datastore.js';

/** Bump when the stored layout changes; older layouts are migrated or refused, never misread. */
export const CHAIN_SCHEMA_VERSION = 1;

interface BlockDoc {
  _id: string;
  /** The raw block, base64 (a third smaller in memory than hex; nedb holds every document in memory). */
  raw: string;
}

interface StateDoc {
  _id: string;
  [k: string]: unknown;
}

/**
 * The chain's durable part: raw blocks and the tip record. Every index is derived from these by
 * replay at start, so a crash can only lose a block whose write had not finished, and then the
 * tip record (written after the block) still names the previous block.
 */
export class ChainDisk {
  private constructor(
    private readonly blocks: Store<BlockDoc>,
    private readonly state: Store<StateDoc>,
  ) {}

  static async open(dir: string, log?: (msg: string) => void): Promise<ChainDisk> {
    const blocks = await openStore<BlockDoc>(dir, 'blocks', log ? { log } : {});
    const state = await openStore<StateDoc>(dir, 'chainstate', log ? { log } : {});
    const disk = new ChainDisk(blocks, state);
    await disk.checkSchema();
    return disk;
  }

  private async checkSchema(): Promise<void> {
    const doc = await this.state.findOne({ _id: 'schema' });
    const version = doc ? Number(doc.version) : undefined;
    if (version === undefined) {
      const anyBlock = await this.blocks.findOne({});
      if (anyBlock) throw new Error('chain data has no schema record: refusing to guess its layout (start on a new -datadir)');
      await this.state.update({ _id: 'schema' }, { _id: 'schema', version: CHAIN_SCHEMA_VERSION }, { upsert: true });
      return;
    }
    if (version > CHAIN_SCHEMA_VERSION) {
      throw new Error(`chain data schema ${version} is newer than this acnode understands (${CHAIN_SCHEMA_VERSION}): upgrade acnode`);
    }
    // Version 1 is the only layout so far; a migration from an older one goes here.
  }

  async putBlock(hash: string, raw: Uint8Array): Promise<void> {
    await this.blocks.update({ _id: hash }, { _id: hash, raw: Buffer.from(raw).toString('base64') }, { upsert: true });
  }

  async allBlocks(): Promise<{ hash: string; raw: Uint8Array }[]> {
    const docs = await this.blocks.find({});
    return docs.map((d) => ({ hash: d._id, raw: new Uint8Array(Buffer.from(d.raw, 'base64')) }));
  }

  async getState<T>(key: string): Promise<T | undefined> {
    const doc = await this.state.findOne({ _id: key });
    return doc ? (doc.value as T) : undefined;
  }

  async setState(key: string, value: unknown): Promise<void> {
    await this.state.update({ _id: key }, { _id: key, value }, { upsert: true });
  }

  /** Rewrites both files compactly (nedb appends every update as a new line). */
  async compact(): Promise<void> {
    await compactStore(this.blocks);
    await compactStore(this.state);
  }
}
