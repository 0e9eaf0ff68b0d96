import { createHash } from 'node:crypto';

/**
 * An oracle for tests, written apart from src/chain: base58check of a payload (version byte included),
 * with node:crypto's sha256 and a BigInt base conversion.
 */
const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest();

export function base58check(payload: Uint8Array): string {
  const b = Buffer.concat([payload, sha256(sha256(payload)).subarray(0, 4)]);
  let n = BigInt('0x' + b.toString('hex'));
  let s = '';
  while (n > 0n) {
    s = B58[Number(n % 58n)] + s;
    n /= 58n;
  }
  for (const x of b) {
    if (x !== 0) break;
    s = '1' + s;
  }
  return s;
}
