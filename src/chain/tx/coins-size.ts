import { isValidPublicKey } from '../crypto/secp256k1.js';

/**
 * The size of komodod's CCoins serialisation (coins.h): what one transaction's unspent outputs take
 * in its coins database, and so gettxoutsetinfo's bytes_serialized (32 + this, per transaction).
 */

/** The length of Bitcoin's VARINT (serialize.h WriteVarInt: base 128, most significant group first, each continuation minus one). */
export function varIntLength(value: bigint | number): number {
  let n = BigInt(value);
  let len = 1;
  while (n > 0x7fn) {
    n = (n >> 7n) - 1n;
    len++;
  }
  return len;
}

/** CTxOutCompressor::CompressAmount. */
export function compressAmount(value: bigint): bigint {
  if (value === 0n) return 0n;
  let n = value;
  let e = 0n;
  while (n % 10n === 0n && e < 9n) {
    n /= 10n;
    e++;
  }
  if (e < 9n) {
    const d = n % 10n;
    n /= 10n;
    return 1n + (n * 9n + d - 1n) * 10n + e;
  }
  return 1n + (n - 1n) * 10n + 9n;
}

/** CScriptCompressor's serialised length: 21 for P2PKH and P2SH, 33 for a pay-to-pubkey (a valid point when uncompressed), else VARINT(size + 6) and the script. */
export function compressedScriptLength(s: Uint8Array): number {
  if (s.length === 25 && s[0] === 0x76 && s[1] === 0xa9 && s[2] === 20 && s[23] === 0x88 && s[24] === 0xac) return 21;
  if (s.length === 23 && s[0] === 0xa9 && s[1] === 20 && s[22] === 0x87) return 21;
  if (s.length === 35 && s[0] === 33 && s[34] === 0xac && (s[1] === 0x02 || s[1] === 0x03)) return 33;
  if (s.length === 67 && s[0] === 65 && s[66] === 0xac && s[1] === 0x04 && isValidPublicKey(s.subarray(1, 66))) return 33;
  return varIntLength(s.length + 6) + s.length;
}

/** One unspent output of a transaction: its index and what CTxOutCompressor writes of it. */
export interface UnspentOut {
  n: number;
  value: bigint;
  script: Uint8Array;
}

/**
 * CCoins::Serialize's length for a transaction's unspent outputs (`outs` in index order, at least one):
 * VARINT(nVersion), VARINT(nCode), the spentness bitmask of outputs 2.. (up to its last non-zero
 * byte), each output compressed, VARINT(nHeight). The outputs after the last unspent one are gone
 * (CCoins::Cleanup), so vout.size() is the last index plus one.
 */
export function ccoinsSize(outs: readonly UnspentOut[], version: number, coinbase: boolean, height: number): number {
  const size = outs[outs.length - 1]!.n + 1;
  const present = new Set(outs.map((o) => o.n));
  let maskBytes = 0;
  let nonZero = 0;
  for (let b = 0; 2 + b * 8 < size; b++) {
    let any = false;
    for (let i = 0; i < 8 && 2 + b * 8 + i < size; i++) if (present.has(2 + b * 8 + i)) any = true;
    if (any) {
      maskBytes = b + 1;
      nonZero++;
    }
  }
  const first = present.has(0);
  const second = present.has(1);
  const code = 8 * (nonZero - (first || second ? 0 : 1)) + (coinbase ? 1 : 0) + (first ? 2 : 0) + (second ? 4 : 0);
  let total = varIntLength(version) + varIntLength(code) + maskBytes + varIntLength(height);
  for (const o of outs) total += varIntLength(compressAmount(o.value)) + compressedScriptLength(o.script);
  return total;
}

/** Bitcoin's VARINT (serialize.h WriteVarInt) of a non-negative integer. */
export function varIntBytes(value: number): Uint8Array {
  let n = value;
  const tmp: number[] = [];
  for (let first = true; ; first = false) {
    tmp.push((n & 0x7f) | (first ? 0 : 0x80));
    if (n <= 0x7f) break;
    n = Math.floor(n / 128) - 1;
  }
  return Uint8Array.from(tmp.reverse());
}
