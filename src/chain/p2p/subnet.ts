import { isIPv4, isIPv6 } from 'node:net';

/**
 * komodod's addresses and subnets (src/netbase.cpp CNetAddr/CSubNet), for the p2p ban list and the
 * RPC allow list (src/httpserver.cpp ClientAllowed/InitHTTPAllowList). Addresses are 16 bytes, IPv4
 * as ::ffff:a.b.c.d, so an IPv4 client seen on a dual-stack socket matches IPv4 subnets. Loopback
 * (127.0.0.0/8 and ::1) is always allowed.
 */

const IPV4_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

/** inet_aton forms, which getaddrinfo(AI_NUMERICHOST) accepts: a, a.b, a.b.c, a.b.c.d; each part
 *  decimal, octal (leading 0) or hex (0x). */
function parseIPv4Aton(s: string): number[] | null {
  const parts = s.split('.');
  if (parts.length < 1 || parts.length > 4) return null;
  const nums: number[] = [];
  for (const p of parts) {
    let n: number;
    if (/^0[xX][0-9a-fA-F]*$/.test(p)) n = p.length > 2 ? parseInt(p.slice(2), 16) : 0;
    else if (/^0[0-7]*$/.test(p)) n = parseInt(p, 8);
    else if (/^[1-9][0-9]*$/.test(p)) n = parseInt(p, 10);
    else return null;
    if (!Number.isFinite(n)) return null;
    nums.push(n);
  }
  const last = nums.pop()!;
  for (const n of nums) if (n > 255) return null;
  if (last >= 2 ** (8 * (4 - nums.length))) return null;
  const out = [...nums];
  for (let i = 4 - nums.length - 1; i >= 0; i--) out.push(Math.floor(last / 2 ** (8 * i)) % 256);
  return out;
}

function parseIPv6(s: string): number[] | null {
  if (!isIPv6(s)) return null;
  let text = s;
  const pct = text.indexOf('%');
  if (pct !== -1) text = text.slice(0, pct);
  // an embedded dotted IPv4 tail becomes two groups
  const m = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (m) {
    const v4 = m[2]!.split('.').map(Number);
    text = m[1]! + ((v4[0]! << 8) | v4[1]!).toString(16) + ':' + ((v4[2]! << 8) | v4[3]!).toString(16);
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const h = head ? head.split(':') : [];
  const t = tail === undefined ? [] : tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  if (groups.length !== 8) return null;
  const out: number[] = [];
  for (const g of groups) {
    const n = parseInt(g, 16);
    out.push(n >> 8, n & 0xff);
  }
  return out;
}

/** LookupHost without name lookup: an IPv4 or IPv6 literal (brackets allowed) as 16 bytes. */
export function parseAddress(text: string): Uint8Array | null {
  let s = text;
  if (s.length === 0) return null;
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  if (isIPv6(s)) {
    const b = parseIPv6(s);
    return b ? Uint8Array.from(b) : null;
  }
  const v4 = isIPv4(s) ? s.split('.').map(Number) : parseIPv4Aton(s);
  return v4 ? Uint8Array.from([...IPV4_PREFIX, ...v4]) : null;
}

function isIPv4Mapped(ip: Uint8Array): boolean {
  for (let i = 0; i < 12; i++) if (ip[i] !== IPV4_PREFIX[i]) return false;
  return true;
}

/** CNetAddr::IsValid as it applies to a peer: not ::, not 2001:db8::/32 (RFC 3849), not 0.0.0.0 or
 *  255.255.255.255, and not the "3-byte shifted" legacy pattern. */
export function isValidAddress(ip: Uint8Array): boolean {
  // memcmp(ip, pchIPv4+3, 9): the IPv4 prefix shifted by three bytes
  const shifted = IPV4_PREFIX.slice(3);
  if (shifted.every((b, i) => ip[i] === b)) return false;
  if (ip.every((b) => b === 0)) return false;
  if (ip[0] === 0x20 && ip[1] === 0x01 && ip[2] === 0x0d && ip[3] === 0xb8) return false;
  if (isIPv4Mapped(ip)) {
    const v4 = ip.subarray(12);
    if (v4.every((b) => b === 0xff) || v4.every((b) => b === 0)) return false;
  }
  return true;
}

/** ParseInt32 semantics for a CIDR length: strtol must take the whole text, no padding. */
function parseCidr(s: string): number | null {
  if (!/^[+-]?[0-9]+$/.test(s)) return null;
  const n = Number(s);
  return n >= -(2 ** 31) && n < 2 ** 31 ? n : null;
}

export class Subnet {
  private constructor(
    readonly network: Uint8Array,
    readonly netmask: Uint8Array,
  ) {}

  /**
   * CSubNet(string): "1.2.3.4", "1.2.3.4/24", "1.2.3.4/255.255.255.0", "::1", "fe80::/10", ... Returns
   * null where komodod's subnet is invalid (then komodod refuses to start with
   * "Invalid -rpcallowip subnet specification: ...").
   */
  static parse(spec: string): Subnet | null {
    const slash = spec.lastIndexOf('/');
    const network = parseAddress(slash === -1 ? spec : spec.slice(0, slash));
    if (!network) return null;
    const netmask = new Uint8Array(16).fill(0xff);
    if (slash !== -1) {
      const maskText = spec.slice(slash + 1);
      const start = isIPv4Mapped(network) ? 12 : 0;
      const n = parseCidr(maskText);
      if (n !== null) {
        if (n < 0 || n > 128 - start * 8) return null;
        for (let bit = n + start * 8; bit < 128; bit++) netmask[bit >> 3]! &= ~(1 << (7 - (bit & 7)));
      } else {
        const mask = parseAddress(maskText);
        if (!mask) return null;
        // only the last four bytes of an IPv4 mask: the ::ffff prefix must still match exactly
        for (let i = start; i < 16; i++) netmask[i] = mask[i]!;
      }
    }
    for (let i = 0; i < 16; i++) network[i]! &= netmask[i]!;
    return new Subnet(network, netmask);
  }

  /** CSubNet::Match */
  match(ip: Uint8Array): boolean {
    if (!isValidAddress(ip)) return false;
    for (let i = 0; i < 16; i++) if ((ip[i]! & this.netmask[i]!) !== this.network[i]) return false;
    return true;
  }
}

/** The allow list: loopback always, then each -rpcallowip. Throws on an invalid spec, with komodod's text. */
export class AllowList {
  readonly subnets: Subnet[];

  constructor(allowIps: string[] = []) {
    this.subnets = [Subnet.parse('127.0.0.0/8')!, Subnet.parse('::1')!];
    for (const spec of allowIps) {
      const s = Subnet.parse(spec);
      if (!s) {
        throw new Error(
          `Invalid -rpcallowip subnet specification: ${spec}. Valid are a single IP (e.g. 1.2.3.4), ` +
            'a network/netmask (e.g. 1.2.3.4/255.255.255.0) or a network/CIDR (e.g. 1.2.3.4/24).',
        );
      }
      this.subnets.push(s);
    }
  }

  /** ClientAllowed: the peer's address (as Node reports it) matches some subnet. */
  allows(remoteAddress: string | undefined): boolean {
    if (!remoteAddress) return false;
    const ip = parseAddress(remoteAddress);
    if (!ip || !isValidAddress(ip)) return false;
    return this.subnets.some((s) => s.match(ip));
  }
}
