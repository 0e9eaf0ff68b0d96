import { Subnet, parseAddress } from '../../chain/p2p/subnet.js';

/** net.cpp CNode::Ban default: 24 hours (-bantime). */
export const DEFAULT_MISBEHAVING_BANTIME = 60 * 60 * 24;

function ipv4Mapped(b: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (b[i] !== 0) return false;
  return b[10] === 0xff && b[11] === 0xff;
}

/** CNetAddr::ToString: dotted IPv4, or compressed IPv6 as getnameinfo prints it. */
export function ipToString(b: Uint8Array): string {
  if (ipv4Mapped(b)) return `${b[12]}.${b[13]}.${b[14]}.${b[15]}`;
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((b[i]! << 8) | b[i + 1]!);
  // The longest run (≥2) of zero groups becomes "::".
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestLen < 2) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

/** CNetAddr::IsLocal: 127.x, 0.x or ::1. */
export function isLocalIp(b: Uint8Array): boolean {
  if (ipv4Mapped(b)) return b[12] === 127 || b[12] === 0;
  for (let i = 0; i < 15; i++) if (b[i] !== 0) return false;
  return b[15] === 1;
}

/** CSubNet::ToString: network "/" netmask (dotted for IPv4, eight hex groups for IPv6). */
export function subnetToString(s: Subnet): string {
  const m = s.netmask;
  if (ipv4Mapped(s.network)) return `${ipToString(s.network)}/${m[12]}.${m[13]}.${m[14]}.${m[15]}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((m[i]! << 8) | m[i + 1]!).toString(16));
  return `${ipToString(s.network)}/${groups.join(':')}`;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

interface BanEntry {
  subnet: Subnet;
  until: number;
}

/**
 * komodod's setBanned (net.cpp:469-541): subnet → banned-until (unix seconds). An entry stays in the
 * map after it expires (this komodod has no SweepBanned: listbanned keeps showing it) but no longer
 * bans. Entries are ordered as std::map<CSubNet> orders them (network bytes, then netmask bytes).
 */
export class BanList {
  private readonly map = new Map<string, BanEntry>();

  constructor(
    private readonly now: () => number = () => Math.floor(Date.now() / 1000),
    private readonly defaultBanTime = DEFAULT_MISBEHAVING_BANTIME,
  ) {}

  /** A single address ("1.2.3.4") or a subnet ("1.2.3.0/24"); null when invalid. */
  static parse(text: string): Subnet | null {
    if (!text.includes('/')) {
      const ip = parseAddress(text);
      if (!ip) return null;
      return Subnet.parse(text);
    }
    return Subnet.parse(text);
  }

  private key(s: Subnet): string {
    return subnetToString(s);
  }

  /** CNode::Ban: offset 0 means the default ban time; `absolute` makes it a unix time. */
  ban(subnet: Subnet, banTimeOffset = 0, absolute = false): void {
    let until = this.now() + this.defaultBanTime;
    if (banTimeOffset > 0) until = (absolute ? 0 : this.now()) + banTimeOffset;
    const k = this.key(subnet);
    const cur = this.map.get(k);
    if (!cur || cur.until < until) this.map.set(k, { subnet, until });
  }

  unban(subnet: Subnet): boolean {
    return this.map.delete(this.key(subnet));
  }

  clear(): void {
    this.map.clear();
  }

  /** CNode::IsBanned(CNetAddr): some unexpired entry matches. */
  isBanned(ip: Uint8Array): boolean {
    const t = this.now();
    for (const e of this.map.values()) if (e.subnet.match(ip) && t < e.until) return true;
    return false;
  }

  /** CNode::IsBanned(CSubNet): this exact subnet has an unexpired entry. */
  isSubnetBanned(subnet: Subnet): boolean {
    const e = this.map.get(this.key(subnet));
    return !!e && this.now() < e.until;
  }

  /** listbanned's rows, in std::map order. */
  list(): { address: string; banned_until: number }[] {
    return [...this.map.values()]
      .sort((a, b) => compareBytes(a.subnet.network, b.subnet.network) || compareBytes(a.subnet.netmask, b.subnet.netmask))
      .map((e) => ({ address: subnetToString(e.subnet), banned_until: e.until }));
  }
}
