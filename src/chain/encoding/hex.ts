import { DecodeError } from './errors.js';

const HEX_RE = /^(?:[0-9a-fA-F]{2})*$/;

/** True for an even-length string of hex digits (the empty string included), as komodod's IsHex plus empty. */
export function isHex(s: string): boolean {
  return HEX_RE.test(s);
}

export function fromHex(s: string): Uint8Array {
  if (!isHex(s)) throw new DecodeError('invalid hex string');
  return Uint8Array.from(Buffer.from(s, 'hex'));
}

export function toHex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

/** Two hex digits per byte value, for the short reversed strings below. */
const HEX_BYTE = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** uint256::GetHex(): internal byte order shown reversed (every txid and block hash shown goes through here). */
export function toHexReversed(b: Uint8Array): string {
  let s = '';
  for (let i = b.length - 1; i >= 0; i--) s += HEX_BYTE[b[i]!]!;
  return s;
}

export function fromHexReversed(s: string): Uint8Array {
  return fromHex(s).reverse();
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
