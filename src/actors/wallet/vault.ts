import { keyAad, newMasterKey, open, seal, unwrapMasterKey, wrapMasterKey, type MasterKeyRecord } from './crypter.js';

/**
 * CCryptoKeyStore's state for the key store: the master key record (present once the wallet is
 * encrypted), the master key while unlocked, and the private keys opened since the unlock. Locking
 * overwrites the master key and every opened key with zeros and forgets them, so no plaintext key
 * outlives the unlock in this process's buffers.
 */
export class KeyVault {
  private record: MasterKeyRecord | null = null;
  private master: Uint8Array | null = null;
  /** Opened private keys by compressed public key (hex), while unlocked. */
  private readonly opened = new Map<string, Uint8Array>();

  /** IsCrypted. */
  get crypted(): boolean {
    return this.record !== null;
  }

  /** IsLocked: encrypted and the master key not in memory. */
  get locked(): boolean {
    return this.record !== null && this.master === null;
  }

  /** The record to store (null while unencrypted). */
  get masterRecord(): MasterKeyRecord | null {
    return this.record;
  }

  /** The stored record, at load: the wallet starts locked. */
  load(record: MasterKeyRecord): void {
    this.lock();
    this.record = record;
  }

  /**
   * EncryptWallet's first step: a new random master key, sealed under the passphrase. The vault is
   * unlocked with it (the caller seals the keys, then locks). Answers the record to store.
   */
  async create(passphrase: Uint8Array): Promise<MasterKeyRecord> {
    if (this.record) throw new Error('the wallet is encrypted already');
    const master = newMasterKey();
    const record = await wrapMasterKey(master, passphrase);
    this.record = record;
    this.master = master;
    return record;
  }

  /** Forgets an encryption that was not stored (the write failed): back to an unencrypted vault. */
  abandon(): void {
    this.lock();
    this.record = null;
  }

  /** CWallet::Unlock: true when the passphrase opens the master key (the vault is then unlocked). */
  async unlock(passphrase: Uint8Array): Promise<boolean> {
    if (!this.record) return false;
    const master = await unwrapMasterKey(this.record, passphrase);
    if (!master) return false;
    if (this.master) master.fill(0);
    else this.master = master;
    return true;
  }

  /**
   * ChangeWalletPassphrase's record: the master key the old passphrase opens, sealed under the new one
   * with a fresh salt; null when the old passphrase is wrong. The private keys' boxes stay as they are.
   * With `stayUnlocked` (and the vault locked now) the opened master key is kept: the vault is unlocked.
   */
  async rewrap(oldPassphrase: Uint8Array, newPassphrase: Uint8Array, stayUnlocked: boolean): Promise<MasterKeyRecord | null> {
    if (!this.record) return null;
    const master = await unwrapMasterKey(this.record, oldPassphrase);
    if (!master) return null;
    let keep = false;
    try {
      const record = await wrapMasterKey(master, newPassphrase);
      keep = stayUnlocked && this.master === null;
      if (keep) this.master = master;
      return record;
    } finally {
      if (!keep) master.fill(0);
    }
  }

  /** The new record is stored: it replaces the old one. */
  replace(record: MasterKeyRecord): void {
    this.record = record;
  }

  /** CCryptoKeyStore::Lock: the master key and every opened key overwritten and forgotten. */
  lock(): void {
    this.master?.fill(0);
    this.master = null;
    for (const k of this.opened.values()) k.fill(0);
    this.opened.clear();
  }

  /** A private key's plaintext while unlocked (opened once per unlock), undefined while locked or when the box does not open. */
  openKey(hex: string, pubkeyCompressed: Uint8Array, box: Uint8Array): Uint8Array | undefined {
    if (!this.master) return undefined;
    let k = this.opened.get(hex);
    if (!k) {
      const plain = open(this.master, box, keyAad(pubkeyCompressed));
      if (!plain) return undefined;
      this.opened.set(hex, (k = plain));
    }
    return k;
  }

  /** A private key sealed under the master key (the vault must be unlocked). */
  sealKey(pubkeyCompressed: Uint8Array, secret: Uint8Array): Uint8Array {
    if (!this.master) throw new Error('the wallet is locked');
    return seal(this.master, secret, keyAad(pubkeyCompressed));
  }
}
