import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { compactStore, openStore, type Store } from '../storage/datastore.js';
import { hash160 } from '../../chain/crypto/hash.js';
import { isValidPrivateKey, publicKeyFromPrivate } from '../../chain/crypto/secp256k1.js';
import { toHex } from '../../chain/encoding/hex.js';

interface KeyDoc {
  _id: string;
  /** Compressed public key, hex. */
  pubkey: string;
  /** Private key, hex. The file is 0600 in a 0700 directory. */
  secret: string;
  compressed: boolean;
  /** Unix time the key was made or imported. */
  time: number;
  /** 'node' for the node's own key (the -pubkey / premine key); 'new', 'imported' or 'pool' otherwise. */
  origin: string;
  /** The address-book account ("" for getnewaddress keys); absent for keys never handed out. */
  account?: string;
}

export interface WalletKey {
  /** The public key as the wallet serialises it (compressed or not, as `compressed` says). */
  pubkey: Uint8Array;
  secret: Uint8Array;
  compressed: boolean;
  time?: number;
  origin?: string;
  account?: string;
}

type Held = WalletKey & { time: number; origin: string };

/**
 * The node's key store: created with the node, it holds the key the premine and coinbases pay
 * (the `-pubkey`, or a key the node makes on a fresh dev chain). The wallet builds on it.
 * Keys never appear in logs.
 */
export class KeyStore {
  private readonly keys = new Map<string, Held>();
  /** Hash160 of the serialised public key (the key id) → key. */
  private readonly byId = new Map<string, Held>();

  private constructor(
    private readonly db: Store<KeyDoc>,
    private readonly filename: string,
  ) {}

  static async open(dir: string): Promise<KeyStore> {
    const ks = new KeyStore(await openStore<KeyDoc>(dir, 'wallet', { secret: true }), join(dir, 'wallet.db'));
    for (const d of await ks.db.find({})) {
      if (typeof d.secret !== 'string') continue;
      const secret = new Uint8Array(Buffer.from(d.secret, 'hex'));
      const k: Held = { pubkey: publicKeyFromPrivate(secret, d.compressed), secret, compressed: d.compressed, time: d.time, origin: d.origin, ...(d.account !== undefined ? { account: d.account } : {}) };
      ks.remember(d.pubkey, k);
    }
    return ks;
  }

  private remember(hex: string, k: Held): void {
    this.keys.set(hex, k);
    this.byId.set(toHex(hash160(k.pubkey)), k);
  }

  /** The key whose serialised public key hashes to `keyId` (CKeyStore::GetKey). */
  byKeyId(keyId: Uint8Array): WalletKey | undefined {
    return this.byId.get(toHex(keyId));
  }

  /** Sets a key's address-book account (SetAddressBook), persisted; a pool key becomes a used one. */
  async setAccount(pubkeyHex: string, account: string): Promise<void> {
    const k = this.keys.get(pubkeyHex);
    if (!k) return;
    k.account = account;
    const origin = k.origin === 'pool' ? 'new' : k.origin;
    k.origin = origin;
    await this.db.update({ _id: pubkeyHex }, { $set: { account, origin } });
  }

  /** The next key of the key pool (made when none is left); it stays in the pool until used. */
  async poolKey(): Promise<WalletKey> {
    for (const k of this.keys.values()) if (k.origin === 'pool') return k;
    return this.add(this.freshSecret(), 'pool');
  }

  /** Takes the pool key for use (GetKeyFromPool + KeepKey): it leaves the pool. */
  async takePoolKey(account?: string): Promise<WalletKey> {
    const k = await this.poolKey();
    const hex = toHex(publicKeyFromPrivate(k.secret, true));
    if (account !== undefined) await this.setAccount(hex, account);
    else {
      (k as Held).origin = 'new';
      await this.db.update({ _id: hex }, { $set: { origin: 'new' } });
    }
    return k;
  }

  get size(): number {
    return this.keys.size;
  }

  /** The oldest pool key's time (getwalletinfo's keypoololdest), or the newest key time when none. */
  poolInfo(): { oldest: number; size: number } {
    let oldest = 0;
    let size = 0;
    for (const k of this.keys.values()) {
      if (k.origin !== 'pool') continue;
      size++;
      if (oldest === 0 || k.time < oldest) oldest = k.time;
    }
    return { oldest, size };
  }

  /** Copies the datastore file (backupwallet). */
  async persistTo(path: string): Promise<void> {
    await compactStore(this.db as unknown as Store<{ _id?: string }>);
    copyFileSync(this.filename, path);
    chmodSync(path, 0o600);
  }

  /** By compressed public key, hex. */
  get(pubkeyHex: string): WalletKey | undefined {
    return this.keys.get(pubkeyHex);
  }

  all(): WalletKey[] {
    return [...this.keys.values()];
  }

  /** The node's own key, made on first start when the store has none. */
  async nodeKey(): Promise<WalletKey> {
    for (const k of this.keys.values()) if (k.origin === 'node') return k;
    return this.add(this.freshSecret(), 'node');
  }

  /** Adds a key (stored under its compressed public key); an existing key is returned as it is. */
  async add(secret: Uint8Array, origin: string, compressed = true, time = Math.floor(Date.now() / 1000), account?: string): Promise<WalletKey> {
    if (!isValidPrivateKey(secret)) throw new Error('invalid private key');
    const hex = toHex(publicKeyFromPrivate(secret, true));
    const existing = this.keys.get(hex);
    if (existing) return existing;
    await this.db.insert({ _id: hex, pubkey: hex, secret: toHex(secret), compressed, time, origin, ...(account !== undefined ? { account } : {}) });
    const k: Held = { pubkey: publicKeyFromPrivate(secret, compressed), secret, compressed, time, origin, ...(account !== undefined ? { account } : {}) };
    this.remember(hex, k);
    return k;
  }

  has(secret: Uint8Array): boolean {
    return this.keys.has(toHex(publicKeyFromPrivate(secret, true)));
  }

  private freshSecret(): Uint8Array {
    for (;;) {
      const s = new Uint8Array(randomBytes(32));
      if (isValidPrivateKey(s)) return s;
    }
  }
}
