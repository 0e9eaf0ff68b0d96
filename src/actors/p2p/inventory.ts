import { toHexReversed } from '../../chain/encoding/hex.js';
import { InvMessage, InvReader, LocatorMessage, MAX_INV_SZ, MSG_BLOCK, MSG_FILTERED_BLOCK, MSG_TX, type InvItem } from '../../chain/p2p/messages.js';
import type { Bans } from './bans.js';
import { P2PPart, hashKey, type Known, type P2PCore } from './context.js';
import type { Peer } from './peer.js';
import { INV_SLICE, type TxRelay } from './relay.js';
import { MAX_BLOCKS_IN_TRANSIT_PER_PEER, type BlockSync } from './sync.js';

/** SendBufferSize(): -maxsendbuffer's default of 1,000 (kB) (net.cpp:2096). */
const SEND_BUFFER_SIZE = 1000 * 1000;

/**
 * Inventory both ways: a peer's inv (what it has: transactions to ask for, blocks to fetch) and its
 * getdata (what it wants of ours: blocks from the chain store, transactions relayed or in the mempool).
 */
export class Inventory extends P2PPart {
  constructor(
    core: P2PCore,
    private readonly bans: Bans,
    private readonly sync: BlockSync,
    private readonly relay: TxRelay,
  ) {
    super(core);
  }

  /**
   * AlreadyHave for a slice of an inv, with what the chain store knows of its blocks (for
   * UpdateBlockAvailability). An entry of another type counts as had ("Don't know what it is").
   */
  private async alreadyHave(types: readonly number[], hexes: readonly string[]): Promise<{ have: boolean[]; blocks: Map<string, Known | null> }> {
    const blockHashes = hexes.filter((_, i) => types[i] === MSG_BLOCK);
    const known = blockHashes.length ? await this.opts.chain.ask({ op: 'known', hashes: blockHashes }) : [];
    const blocks = new Map(blockHashes.map((h, i) => [h, known[i] ?? null]));
    const txHexes = hexes.filter((_, i) => types[i] === MSG_TX);
    const txHave = txHexes.length ? await this.relay.haveTxs(txHexes) : [];
    let t = 0;
    const have = types.map((type, i) => {
      if (type === MSG_TX) return txHave[t++]!;
      if (type === MSG_BLOCK) return blocks.get(hexes[i]!) !== null || this.sync.orphanBlocks.has(hexes[i]!);
      return true;
    });
    return { have, blocks };
  }

  /**
   * ProcessMessage "inv" (main.cpp:7650-7707). The entries are read in place and looked up a slice at
   * a time; what the node keeps of them is komodod's: the peer's recent inventory (setInventoryKnown,
   * 1,000), the transactions it will ask for (AskFor's bounded sets), the blocks it fetches.
   */
  async onInv(p: Peer, payload: Uint8Array): Promise<void> {
    const inv = InvReader.fromRaw(payload);
    if (inv.count > MAX_INV_SZ) {
      this.bans.misbehaving(p, 20, `message inv size() = ${inv.count}`);
      return;
    }
    const fetch: InvItem[] = [];
    const ibd = this.sync.isInitialBlockDownload();
    let locator: Uint8Array[] | undefined;
    for (let start = 0; start < inv.count; start += INV_SLICE) {
      const end = Math.min(inv.count, start + INV_SLICE);
      const types: number[] = [];
      const hexes: string[] = [];
      for (let i = start; i < end; i++) {
        types.push(inv.type(i));
        hexes.push(toHexReversed(inv.hash(i)));
      }
      const { have, blocks } = await this.alreadyHave(types, hexes);
      if (p.disconnected) return;
      const nowUs = Date.now() * 1000;
      for (let j = 0; j < types.length; j++) {
        const type = types[j]!;
        const h = hexes[j]!;
        p.known.add(hashKey(type, h));
        // Relayed transactions are ignored in initial download; asking for them would be wasted.
        if (!have[j] && type === MSG_TX && !ibd) this.relay.askFor(p, inv.hash(start + j), nowUs);
        if (type === MSG_BLOCK) {
          // UpdateBlockAvailability: an announced block we hold is the peer's best known block if it has more work.
          const k = blocks.get(h);
          if (k) {
            this.sync.updateBestKnown(p, h, k.height, k.chainWork);
            if (k.active) p.commonHeight = Math.max(p.commonHeight, k.height);
          }
          if (!have[j] && !this.sync.inflight.has(h)) {
            // The headers leading to it first; the block itself too when the tip is recent.
            locator ??= await this.sync.locatorFrom(this.sync.bestHeaderHash());
            p.send('getheaders', new LocatorMessage(locator, inv.hash(start + j)).toRaw());
            const spacing = this.opts.params.powTargetSpacing;
            if (this.sync.tip.time > Math.floor(Date.now() / 1000) - spacing * 20 && p.inflight.size < MAX_BLOCKS_IN_TRANSIT_PER_PEER) {
              fetch.push({ type: MSG_BLOCK, hash: inv.hash(start + j).slice() });
              this.sync.markInflight(p, h);
            }
          }
        }
        // A peer whose announcements make us queue more than twice the send buffer is scored and dropped from here.
        if (p.socket.writableLength > 2 * SEND_BUFFER_SIZE) {
          this.bans.misbehaving(p, 50, `send buffer size() = ${p.socket.writableLength}`);
          return;
        }
      }
    }
    if (fetch.length) p.send('getdata', new InvMessage(fetch).toRaw());
    // SendMessages follows the message: the transactions just queued are asked for.
    await this.relay.sendAskedFor(p);
  }

  /**
   * ProcessGetData (main.cpp:7068-7180): each entry answered in order, the misses in one notfound.
   * The entries are read in place, and like komodod it pauses while a send buffer's worth of answers
   * waits for the peer to read them, so a getdata cannot make the node queue more than that.
   */
  async onGetData(p: Peer, payload: Uint8Array): Promise<void> {
    const inv = InvReader.fromRaw(payload);
    if (inv.count > MAX_INV_SZ) {
      this.bans.misbehaving(p, 20, `message getdata size() = ${inv.count}`);
      return;
    }
    const notFound: number[] = [];
    for (let i = 0; i < inv.count; i++) {
      await p.drained(SEND_BUFFER_SIZE);
      if (p.disconnected) return;
      const type = inv.type(i);
      const h = toHexReversed(inv.hash(i));
      if (type === MSG_BLOCK || type === MSG_FILTERED_BLOCK) {
        const b = await this.opts.chain.ask({ op: 'rawBlock', hash: h });
        // komodod serves main-chain blocks (and recent valid side blocks); filtered blocks are not offered.
        if (b && type === MSG_BLOCK) {
          p.send('block', b.raw);
          p.known.add(hashKey(MSG_BLOCK, h));
        }
      } else if (type === MSG_TX) {
        let raw = this.relay.relayed(h);
        if (!raw) {
          const e = await this.opts.mempool.ask({ op: 'get', txid: h });
          raw = e?.raw;
        }
        if (raw) {
          p.send('tx', raw);
          p.known.add(hashKey(MSG_TX, h));
        } else notFound.push(i);
      } else notFound.push(i);
    }
    if (notFound.length) p.send('notfound', new InvMessage(notFound.map((i) => ({ type: inv.type(i), hash: inv.hash(i) }))).toRaw());
  }
}
