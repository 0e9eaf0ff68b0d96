import { hash160 } from '../crypto/hash.js';
import { p2pkhScript, p2shScript } from '../script/script.js';
import { base58CoreLength, decodeBase58Check, encodeBase58Check } from './base58check.js';

/**
 * Transparent addresses: Base58Check(version ‖ 20-byte hash). Asset chains use KMD's prefixes
 * (chainparams.cpp Base58Prefix): R… for keys, b… for scripts.
 */
export const PUBKEY_ADDRESS = 60;
export const SCRIPT_ADDRESS = 85;
export const SECRET_KEY = 188;

/** 25 decoded bytes take at most 35 Base58 digits; anything much longer is not an address. */
const MAX_ADDRESS_DIGITS = 64;

export function encodeAddress(version: number, hash20: Uint8Array): string {
  if (!Number.isInteger(version) || version < 0 || version > 255) throw new RangeError('address version must be one byte');
  if (hash20.length !== 20) throw new RangeError('address hash must be 20 bytes');
  const payload = new Uint8Array(21);
  payload[0] = version;
  payload.set(hash20, 1);
  return encodeBase58Check(payload);
}

/**
 * komodod's DecodeDestination: a Base58Check string of 21 bytes whose version is PUBKEY_ADDRESS or
 * SCRIPT_ADDRESS; anything else (other versions, wrong sizes, bad checksum) is null.
 */
export function decodeAddress(s: string): { version: number; hash: Uint8Array } | null {
  if (base58CoreLength(s) > MAX_ADDRESS_DIGITS) return null;
  const data = decodeBase58Check(s);
  if (!data || data.length !== 21) return null;
  const version = data[0]!;
  if (version !== PUBKEY_ADDRESS && version !== SCRIPT_ADDRESS) return null;
  return { version, hash: data.slice(1) };
}

/** The R-address of a public key (CPubKey::GetID, Hash160 of the key as serialised). */
export function pubkeyToAddress(pub: Uint8Array): string {
  return encodeAddress(PUBKEY_ADDRESS, hash160(pub));
}

/** The P2SH address of a redeem script (CScriptID). */
export function p2shAddress(script: Uint8Array): string {
  return encodeAddress(SCRIPT_ADDRESS, hash160(script));
}

/** GetScriptForDestination: the P2PKH or P2SH scriptPubKey an address pays, or null. */
export function addressToScript(s: string): Uint8Array | null {
  const dest = decodeAddress(s);
  if (!dest) return null;
  return dest.version === PUBKEY_ADDRESS ? p2pkhScript(dest.hash) : p2shScript(dest.hash);
}
