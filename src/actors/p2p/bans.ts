import { RejectMessage } from '../../chain/p2p/messages.js';
import { Subnet } from '../../rpc/subnet.js';
import { ServiceFailure } from '../protocol.js';
import { BanList, ipToString, isLocalIp } from './banlist.js';
import { P2PPart, type P2PCore } from './context.js';
import type { Peer } from './peer.js';

/**
 * Misbehaviour and bans: the peers' scores, the ban list (setban, listbanned, clearbanned), the
 * -whitelist subnets that are never punished, and reject messages.
 */
export class Bans extends P2PPart {
  private readonly bans: BanList;
  private readonly whitelist: Subnet[];

  constructor(core: P2PCore) {
    super(core);
    const opts = core.opts;
    const now = opts.now ?? (() => Math.floor(Date.now() / 1000));
    this.bans = new BanList(now, opts.banTime);
    this.whitelist = opts.whitelist.map((w) => {
      const s = Subnet.parse(w);
      if (!s) throw new Error(`Invalid netmask specified in -whitelist: '${w}'`);
      return s;
    });
  }

  isWhitelisted(ip: Uint8Array): boolean {
    return this.whitelist.some((s) => s.match(ip));
  }

  isBanned(ip: Uint8Array): boolean {
    return this.bans.isBanned(ip);
  }

  list(): ReturnType<BanList['list']> {
    return this.bans.list();
  }

  clear(): void {
    this.bans.clear();
  }

  setban(text: string, command: string, bantime: number, absolute: boolean): null {
    const subnet = BanList.parse(text);
    // komodod answers an invalid address with RPC_CLIENT_NODE_ALREADY_ADDED (-23).
    if (!subnet) throw new ServiceFailure(-23, 'Error: Invalid IP/Subnet');
    if (command === 'add') {
      if (this.bans.isSubnetBanned(subnet)) throw new ServiceFailure(-23, 'Error: IP/Subnet already banned');
      this.bans.ban(subnet, bantime, absolute);
      for (const p of this.connected()) if (subnet.match(p.ip)) p.close();
    } else if (command === 'remove') {
      if (!this.bans.unban(subnet)) throw new ServiceFailure(-1, 'Error: Unban failed');
    }
    return null;
  }

  /** Misbehaving (main.cpp:2597) and SendMessages' fShouldBan handling (main.cpp:8446-8460). */
  misbehaving(p: Peer, howmuch: number, why: string): void {
    if (howmuch <= 0) return;
    const before = p.banscore;
    p.banscore += howmuch;
    if (p.banscore >= this.opts.banScore && before < this.opts.banScore) {
      this.log(`Misbehaving: ${p.addrName} (${before} -> ${p.banscore}) BAN THRESHOLD EXCEEDED (${why})`);
      if (p.whitelisted) {
        this.log(`Warning: not punishing whitelisted peer ${p.addrName}!`);
        return;
      }
      if (isLocalIp(p.ip)) this.log(`Warning: not banning local peer ${p.addrName}!`);
      else this.bans.ban(Subnet.parse(ipToString(p.ip))!);
      p.close();
    } else {
      this.log(`Misbehaving: ${p.addrName} (${before} -> ${p.banscore}) (${why})`);
    }
  }

  reject(p: Peer, message: string, code: number, reason: string, hash?: Uint8Array): void {
    p.send('reject', new RejectMessage(message, code, reason, hash).toRaw());
  }
}
