import { decodeBase58Check } from '../chain/address/base58check.js';

/**
 * What the -inspect recorder must never carry: private keys, passphrases and wallet file paths.
 * Redaction happens at the source — before a call's params or an actor's event enter the recorder —
 * so neither the ring, the WebSocket stream nor `acnode-cli inspect` can show them.
 */

export const REDACTED = '[redacted]';

/**
 * Params that hold a secret, by method (komodod's positional order): a private key, a passphrase, or
 * the path of a wallet dump (which names where every key is written or read).
 */
const SECRET_PARAMS: ReadonlyMap<string, readonly number[]> = new Map<string, readonly number[]>([
  ['importprivkey', [0]],
  ['convertpassphrase', [0]],
  ['importwallet', [0]],
  ['dumpwallet', [0]],
  ['signrawtransaction', [2]],
  ['walletpassphrase', [0]],
  ['walletpassphrasechange', [0, 1]],
  ['encryptwallet', [0]],
  ['z_importkey', [0]],
  ['z_importviewingkey', [0]],
  ['z_importwallet', [0]],
  ['z_exportwallet', [0]],
]);

/** Whole base58 runs of a WIF's length (33 or 34 bytes + checksum: 50–52 characters). */
const BASE58_RUN = /(?<![1-9A-HJ-NP-Za-km-z])[1-9A-HJ-NP-Za-km-z]{49,53}(?![1-9A-HJ-NP-Za-km-z])/g;
/** Sapling spending and viewing keys in Bech32 (zcash key_io: secret-extended-key-…, zxview…). */
const SAPLING_KEY = /\b(?:secret-extended-key-[a-z]+|zxview[a-z]*|zivk[a-z]*)1[02-9ac-hj-np-z]{20,}/gi;

/** A WIF of any chain: base58check of version ‖ 32-byte key [‖ 0x01] (key_io DecodeSecret's shape). */
export function isWif(s: string): boolean {
  const payload = decodeBase58Check(s);
  if (!payload) return false;
  return payload.length === 33 || (payload.length === 34 && payload[33] === 0x01);
}

/** `s` with every WIF-shaped run and Sapling key inside it replaced by [redacted]. */
export function redactText(s: string): string {
  if (s.length < 20) return s;
  const out = s.length >= 49 ? s.replace(BASE58_RUN, (run) => (isWif(run) ? REDACTED : run)) : s;
  return out.replace(SAPLING_KEY, REDACTED);
}

/** A call's params with the positions that hold a secret replaced (strings are scanned when written). */
export function redactParams<T>(method: string, params: readonly T[]): (T | string)[] {
  const secret = SECRET_PARAMS.get(method);
  if (!secret) return [...params];
  return params.map((p, i) => (secret.includes(i) ? REDACTED : p));
}
