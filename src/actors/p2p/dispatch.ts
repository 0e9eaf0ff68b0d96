import { DecodeError } from '../../chain/encoding/errors.js';
import { toHexReversed } from '../../chain/encoding/hex.js';
import { REJECT_MALFORMED, RejectMessage, type Frame } from '../../chain/p2p/messages.js';
import type { AddrBook } from './addrs.js';
import type { Bans } from './bans.js';
import type { Connections } from './connections.js';
import { P2PPart, type P2PCore } from './context.js';
import type { Inventory } from './inventory.js';
import type { Peer } from './peer.js';
import type { TxRelay } from './relay.js';
import type { BlockSync } from './sync.js';

/** The parts a received message may go to. */
export interface Handlers {
  bans: Bans;
  connections: Connections;
  sync: BlockSync;
  relay: TxRelay;
  inventory: Inventory;
  addrs: AddrBook;
}

/**
 * ProcessMessages/ProcessMessage (main.cpp): each frame of a peer, one at a time, to the part that
 * handles its command; decode failures answered as komodod answers them.
 */
export class Dispatch extends P2PPart {
  constructor(
    core: P2PCore,
    private readonly h: Handlers,
  ) {
    super(core);
  }

  async onFrame(p: Peer, f: Frame): Promise<void> {
    if (p.disconnected) return;
    switch (f.kind) {
      case 'fatal':
        this.log(`PROCESSMESSAGE: ${f.reason} peer=${p.id}; disconnecting`);
        p.close();
        return;
      case 'badHeader':
        this.log(`PROCESSMESSAGE: ERRORS IN HEADER ${JSON.stringify(f.command)} peer=${p.id}`);
        return;
      case 'badChecksum':
        this.log(`ProcessMessages(${JSON.stringify(f.command)}, ${f.length} bytes): CHECKSUM ERROR peer=${p.id}`);
        return;
      case 'message':
        try {
          await this.processMessage(p, f.command, f.payload);
        } catch (e) {
          if (e instanceof DecodeError) {
            // A deserialisation failure: reject MALFORMED, no score (main.cpp:8320-8322).
            this.h.bans.reject(p, f.command, REJECT_MALFORMED, 'error parsing message');
            this.log(`ProcessMessages(${f.command}, ${f.payload.length} bytes): Exception '${e.message}' caught peer=${p.id}`);
          } else {
            this.log(`ProcessMessages(${f.command}) peer=${p.id}: ${e instanceof Error ? e.message : String(e)}`);
          }
        }
    }
  }

  private async processMessage(p: Peer, command: string, payload: Uint8Array): Promise<void> {
    const h = this.h;
    if (this.opts.debug === true) this.log(`p2p: received ${command} (${payload.length} bytes) peer=${p.id}`);
    if (command !== 'tx' && p.txInflight.size > 0) await Promise.all(p.txInflight);
    if (command === 'version') return h.connections.onVersion(p, payload);
    if (p.version === 0) {
      // Must have a version message before anything else.
      h.bans.misbehaving(p, 1, `${command} before version`);
      return;
    }
    switch (command) {
      case 'verack':
        p.gotVerack = true;
        return;
      case 'ping':
        return h.connections.onPing(p, payload);
      case 'pong':
        return h.connections.onPong(p, payload);
      case 'inv':
        return h.inventory.onInv(p, payload);
      case 'getdata':
        return h.inventory.onGetData(p, payload);
      case 'notfound':
        return;
      case 'getheaders':
        return h.sync.onGetHeaders(p, payload);
      case 'getblocks':
        return h.sync.onGetBlocks(p, payload);
      case 'headers':
        return h.sync.onHeaders(p, payload);
      case 'block':
        return h.sync.onBlock(p, payload);
      case 'tx':
        return h.relay.onTx(p, payload);
      case 'mempool':
        return h.relay.onMempool(p);
      case 'getaddr':
        return h.addrs.onGetAddr(p);
      case 'addr':
        return h.addrs.onAddr(p, payload);
      case 'reject': {
        const r = RejectMessage.fromRaw(payload);
        this.log(`Reject ${r.message} code ${r.code}: ${r.reason}${r.hash ? `: hash ${toHexReversed(r.hash)}` : ''} peer=${p.id}`);
        return;
      }
      default:
        // Unknown commands (sendheaders, feefilter, filter*, alert...) are ignored, as komodod does.
        return;
    }
  }
}
