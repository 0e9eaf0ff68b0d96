import { randomBytes } from 'node:crypto';
import { openStore, type Store } from '../storage/datastore.js';
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
  /** 'node' for the node's own key (the -pubkey / premine key); 'new' or 'imported' otherwise. */
  origin: string;
}

export interface WalletKey {
  pubkey: Uint8Array;
  secret: Uint8Array;
  compressed: boolean;
}

/**
 * The node's key store: created with the node, it holds the key the premine and coinbases pay
 * (the `-pubkey`, or a key the node makes on a fresh dev chain). The wallet builds on it.
 * Keys never appear in logs.
 */
export class KeyStore {
  private readonly keys = new Map<string, WalletKey & { time: number; origin: string }>();

  private constructor(private readonly db: Store<KeyDoc>) {}

  static async open(dir: string): Promise<KeyStore> {
    const ks = new KeyStore(await openStore<KeyDoc>(dir, 'wallet', { secret: true }));
    for (const d of await ks.db.find({})) {
      ks.keys.set(d.pubkey, { pubkey: Buffer.from(d.pubkey, 'hex'), secret: Buffer.from(d.secret, 'hex'), compressed: d.compressed, time: d.time, origin: d.origin });
    }
    return ks;
  }

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

  async add(secret: Uint8Array, origin: string, compressed = true): Promise<WalletKey> {
    if (!isValidPrivateKey(secret)) throw new Error('invalid private key');
    const pubkey = publicKeyFromPrivate(secret, true);
    const hex = toHex(pubkey);
    const existing = this.keys.get(hex);
    if (existing) return existing;
    const time = Math.floor(Date.now() / 1000);
    await this.db.insert({ _id: hex, pubkey: hex, secret: toHex(secret), compressed, time, origin });
    const k = { pubkey, secret, compressed, time, origin };
    this.keys.set(hex, k);
    return k;
  }

  private freshSecret(): Uint8Array {
    for (;;) {
      const s = new Uint8Array(randomBytes(32));
      if (isValidPrivateKey(s)) return s;
    }
  }
}
