import { AddrMessage, MAX_ADDR_TO_SEND, type TimedNetAddress } from '../../chain/p2p/messages.js';
import { ipToString } from './banlist.js';
import type { Bans } from './bans.js';
import { hostPort, type Peer } from './peer.js';

/** addr and getaddr: the addresses peers tell us of, remembered (bounded) and told to inbound peers. */
export class AddrBook {
  private readonly addrs = new Map<string, TimedNetAddress>();

  constructor(private readonly bans: Bans) {}

  onGetAddr(p: Peer): void {
    // Answered only on inbound connections, once per connection (main.cpp:7618-7632).
    if (!p.inbound || p.gotGetaddr) return;
    p.gotGetaddr = true;
    const list = [...this.addrs.values()].slice(0, MAX_ADDR_TO_SEND);
    if (list.length) p.send('addr', new AddrMessage(list).toRaw());
  }

  onAddr(p: Peer, payload: Uint8Array): void {
    const m = AddrMessage.fromRaw(payload);
    if (m.addrs.length > MAX_ADDR_TO_SEND) {
      this.bans.misbehaving(p, 20, `message addr size() = ${m.addrs.length}`);
      return;
    }
    // Kept minimal: remembered (bounded) and served to getaddr; acnode never dials them on its own.
    for (const a of m.addrs) {
      p.addrProcessed++;
      const key = hostPort(ipToString(a.ip), a.port);
      if (this.addrs.size < MAX_ADDR_TO_SEND || this.addrs.has(key)) this.addrs.set(key, a);
    }
  }
}
