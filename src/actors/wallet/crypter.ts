import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { scryptAsync } from '@noble/hashes/scrypt.js';

/**
 * The wallet's encryption at rest, in komodod's shape (crypter.cpp: CMasterKey, CCrypter) with today's
 * primitives: a random 32-byte master key encrypts every private key; the passphrase only encrypts the
 * master key, so changing the passphrase rewrites one record (komodod's ChangeWalletPassphrase).
 *
 * - KDF: scrypt (RFC 7914) where komodod uses PBKDF-SHA512 calibrated to ~0.1 s. scrypt is memory-hard,
 *   so a guessing rig pays in memory as well as time. N = 2^15, r = 8, p = 1: 32 MiB and about 0.4 s
 *   per guess on this machine (the scrypt paper's interactive setting is 2^14; the wallet is unlocked
 *   rarely, so twice that). The parameters are stored in the record, so a wallet keeps working if the
 *   defaults rise later.
 * - Cipher: AES-256-GCM (an AEAD: a wrong key or a changed byte fails the tag, never decrypts to
 *   garbage) where komodod uses AES-256-CBC. A fresh random 96-bit nonce per encryption; each box is
 *   nonce ‖ ciphertext ‖ 16-byte tag. The additional data binds a box to its use: a private key's box
 *   to its public key (a box moved onto another key's record fails), the master key's box to its KDF
 *   parameters.
 */

/** scrypt's cost: N (CPU/memory, a power of two), r (block size), p (parallelism). See above for why. */
export const KDF_PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;

/** The largest costs a stored record may ask for: a damaged or hostile file cannot make a load allocate gigabytes. */
const MAX_N = 2 ** 20;
const MAX_R = 32;
const MAX_P = 16;

const KEY_LEN = 32;
const SALT_LEN = 16;
const NONCE_LEN = 12;
const TAG_LEN = 16;

export interface KdfParams {
  N: number;
  r: number;
  p: number;
}

/** CMasterKey as stored: the KDF's salt and costs, and the master key sealed under the derived key (hex). */
export interface MasterKeyRecord {
  salt: string;
  N: number;
  r: number;
  p: number;
  /** nonce ‖ AES-256-GCM(master key) ‖ tag, hex. */
  box: string;
}

const MASTER_AAD = new TextEncoder().encode('acnode wallet master key v1');
const KEY_AAD = new TextEncoder().encode('acnode wallet key v1:');

function masterAad(p: KdfParams): Uint8Array {
  return Buffer.concat([MASTER_AAD, Buffer.from(`:${p.N}:${p.r}:${p.p}`)]);
}

/** The additional data of a private key's box: its compressed public key. */
export function keyAad(pubkeyCompressed: Uint8Array): Uint8Array {
  return Buffer.concat([KEY_AAD, pubkeyCompressed]);
}

/** The record's costs are within what a load may spend (powers of two, bounded). */
export function validKdfParams(p: Partial<KdfParams>): p is KdfParams {
  const { N, r, p: par } = p;
  return (
    Number.isSafeInteger(N) && N! >= 2 && N! <= MAX_N && (N! & (N! - 1)) === 0 &&
    Number.isSafeInteger(r) && r! >= 1 && r! <= MAX_R &&
    Number.isSafeInteger(par) && par! >= 1 && par! <= MAX_P
  );
}

/** scrypt(passphrase, salt): the key that seals the master key. Async: it yields to the event loop as it runs. */
export async function deriveKey(passphrase: Uint8Array, salt: Uint8Array, p: KdfParams): Promise<Uint8Array> {
  return scryptAsync(passphrase, salt, { N: p.N, r: p.r, p: p.p, dkLen: KEY_LEN });
}

/** AES-256-GCM: nonce ‖ ciphertext ‖ tag. */
export function seal(key: Uint8Array, plain: Uint8Array, aad: Uint8Array): Uint8Array {
  const nonce = randomBytes(NONCE_LEN);
  const c = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_LEN });
  c.setAAD(aad);
  const body = Buffer.concat([c.update(plain), c.final()]);
  return new Uint8Array(Buffer.concat([nonce, body, c.getAuthTag()]));
}

/** The plaintext of a box, or null when the key is wrong or any byte of the box or the additional data changed. */
export function open(key: Uint8Array, box: Uint8Array, aad: Uint8Array): Uint8Array | null {
  if (box.length < NONCE_LEN + TAG_LEN) return null;
  const nonce = box.subarray(0, NONCE_LEN);
  const tag = box.subarray(box.length - TAG_LEN);
  try {
    const d = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_LEN });
    d.setAAD(aad);
    d.setAuthTag(tag);
    const out = Buffer.concat([d.update(box.subarray(NONCE_LEN, box.length - TAG_LEN)), d.final()]);
    const copy = new Uint8Array(out);
    out.fill(0);
    return copy;
  } catch {
    return null;
  }
}

/** A new random master key (EncryptWallet's vMasterKey). */
export function newMasterKey(): Uint8Array {
  return new Uint8Array(randomBytes(KEY_LEN));
}

/** The master key sealed under a passphrase with a fresh salt (a new CMasterKey). */
export async function wrapMasterKey(master: Uint8Array, passphrase: Uint8Array, p: KdfParams = KDF_PARAMS): Promise<MasterKeyRecord> {
  const salt = new Uint8Array(randomBytes(SALT_LEN));
  const kek = await deriveKey(passphrase, salt, p);
  try {
    const box = seal(kek, master, masterAad(p));
    return { salt: Buffer.from(salt).toString('hex'), N: p.N, r: p.r, p: p.p, box: Buffer.from(box).toString('hex') };
  } finally {
    kek.fill(0);
  }
}

/** The master key a passphrase opens, or null when it is the wrong passphrase (or the record was changed). */
export async function unwrapMasterKey(record: MasterKeyRecord, passphrase: Uint8Array): Promise<Uint8Array | null> {
  if (!validKdfParams(record)) return null;
  const kek = await deriveKey(passphrase, Buffer.from(record.salt, 'hex'), record);
  try {
    const master = open(kek, Buffer.from(record.box, 'hex'), masterAad(record));
    return master && master.length === KEY_LEN ? master : null;
  } finally {
    kek.fill(0);
  }
}

/** A stored record has the fields a master key record needs. */
export function isMasterKeyRecord(v: unknown): v is MasterKeyRecord {
  if (!v || typeof v !== 'object') return false;
  const r = v as Record<string, unknown>;
  return typeof r.salt === 'string' && typeof r.box === 'string' && typeof r.N === 'number' && typeof r.r === 'number' && typeof r.p === 'number';
}
