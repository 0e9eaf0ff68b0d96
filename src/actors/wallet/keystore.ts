import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { compactStore, openStore, type Store } from '../storage/datastore.js';
import { hash160 } from '../../chain/crypto/hash.js';
import { isValidPrivateKey, publicKeyFromPrivate, secp256k1Backend } from '../../chain/crypto/secp256k1.js';
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
  /** A pool key's place in the pool (komodod's keypool index nIndex); the pool hands out the lowest first. */
  pool?: number;
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

/** A key as the store holds it. */
export interface HeldKey extends WalletKey {
  time: number;
  origin: string;
  /** The compressed public key, hex (the store's key). */
  readonly hex: string;
  /** Hash160 of `pubkey` (the key id), hex. */
  readonly idHex: string;
  /** The order keys entered this store (this run's Map order). */
  readonly ord: number;
  pool?: number;
  /** Some wallet transaction pays this key's P2PKH script (GetAccountAddress's bKeyUsed). */
  used?: boolean;
}

export interface KeyStoreOptions {
  /** -keypool: the pool is topped up to this many keys plus one (TopUpKeyPool). */
  keypool?: number;
}

/** The number of keys TopUpKeyPool fills the pool to: max(-keypool, 0) + 1 (wallet.cpp). */
const poolTarget = (keypool: number) => Math.max(keypool, 0) + 1;

/**
 * The node's key store: created with the node, it holds the key the premine and coinbases pay
 * (the `-pubkey`, or a key the node makes on a fresh dev chain). The wallet builds on it.
 * Keys never appear in logs. Every index (by key id, by account, the pool in its order) is kept as
 * keys come and change, so nothing here costs more because the wallet holds more keys.
 */
export class KeyStore {
  private readonly keys = new Map<string, HeldKey>();
  /** Hash160 of the serialised public key (the key id) → key. */
  private readonly byId = new Map<string, HeldKey>();
  /** komodod's setKeyPool: the pool keys, lowest index first. */
  private readonly pool = new Set<HeldKey>();
  /** Per account, its keys no wallet transaction pays yet, in key order (GetAccountAddress's candidates). */
  private readonly unusedByAccount = new Map<string, { keys: Set<HeldKey>; maxOrd: number }>();
  private node: HeldKey | undefined;
  private nextOrd = 0;
  private nextPoolIndex = 1;
  private readonly listeners: ((k: HeldKey) => void)[] = [];
  private readonly relabelListeners: ((k: HeldKey) => void)[] = [];
  private readonly keypool: number;

  private constructor(
    private readonly db: Store<KeyDoc>,
    private readonly filename: string,
    opts: KeyStoreOptions,
  ) {
    this.keypool = opts.keypool ?? 100;
  }

  /**
   * Loads the keys with the public keys stored beside them (no EC multiplication per key: an
   * uncompressed key's point is decompressed from the stored compressed one). A new store gets its
   * key pool at once, as komodod's first run (GetKeyFromPool → TopUpKeyPool).
   */
  static async open(dir: string, opts: KeyStoreOptions = {}): Promise<KeyStore> {
    const ks = new KeyStore(await openStore<KeyDoc>(dir, 'wallet', { secret: true }), join(dir, 'wallet.db'), opts);
    const docs = await ks.db.find({});
    const pooled: HeldKey[] = [];
    for (const d of docs) {
      if (typeof d.secret !== 'string') continue;
      const secret = new Uint8Array(Buffer.from(d.secret, 'hex'));
      const k = ks.remember(secret, storedPubkey(d, secret), d.compressed, d.time, d.origin, d.account, d.pool);
      if (k.origin === 'pool') pooled.push(k);
    }
    // Keys pooled before pool indexes were stored come first, oldest first.
    pooled.sort((a, b) => (a.pool ?? 0) - (b.pool ?? 0) || a.time - b.time || a.ord - b.ord);
    for (const k of pooled) ks.pool.add(k);
    ks.nextPoolIndex = pooled.reduce((m, k) => Math.max(m, (k.pool ?? 0) + 1), 1);
    if (docs.length === 0) await ks.topUp();
    return ks;
  }

  private remember(secret: Uint8Array, pubkey: Uint8Array, compressed: boolean, time: number, origin: string, account: string | undefined, pool: number | undefined): HeldKey {
    const hex = toHex(compressed ? pubkey : (publicKeyCompressed(pubkey) ?? pubkey));
    const k: HeldKey = { pubkey, secret, compressed, time, origin, hex, idHex: toHex(hash160(pubkey)), ord: this.nextOrd++, ...(account !== undefined ? { account } : {}), ...(pool !== undefined ? { pool } : {}) };
    this.keys.set(hex, k);
    this.byId.set(k.idHex, k);
    if (origin === 'node' && !this.node) this.node = k;
    if (account !== undefined) this.addUnused(k);
    for (const f of this.listeners) f(k);
    return k;
  }

  /** Called with every key the store holds now and with each key it gains from now on. */
  watch(f: (k: HeldKey) => void): void {
    this.listeners.push(f);
    for (const k of this.keys.values()) f(k);
  }

  /** Called with each key whose address-book account changes, once it has changed. */
  onRelabel(f: (k: HeldKey) => void): void {
    this.relabelListeners.push(f);
  }

  private addUnused(k: HeldKey): void {
    if (k.used || k.account === undefined) return;
    let acc = this.unusedByAccount.get(k.account);
    if (!acc) this.unusedByAccount.set(k.account, (acc = { keys: new Set(), maxOrd: -1 }));
    acc.keys.add(k);
    // A key relabelled into the account keeps its place in key order (rare: rebuild the set sorted).
    if (acc.maxOrd > k.ord) {
      const sorted = [...acc.keys].sort((a, b) => a.ord - b.ord);
      acc.keys.clear();
      for (const x of sorted) acc.keys.add(x);
    }
    acc.maxOrd = Math.max(acc.maxOrd, k.ord);
  }

  private dropUnused(k: HeldKey): void {
    if (k.account === undefined) return;
    const acc = this.unusedByAccount.get(k.account);
    if (!acc) return;
    acc.keys.delete(k);
    if (acc.keys.size === 0) this.unusedByAccount.delete(k.account);
  }

  /** The key whose serialised public key hashes to `keyId` (CKeyStore::GetKey). */
  byKeyId(keyId: Uint8Array): HeldKey | undefined {
    return this.byId.get(toHex(keyId));
  }

  /** By key id, hex. */
  byIdHex(idHex: string): HeldKey | undefined {
    return this.byId.get(idHex);
  }

  /** Marks a key as paid by a wallet transaction (it stops being its account's fresh address). */
  markUsed(k: HeldKey): void {
    if (k.used) return;
    this.dropUnused(k);
    k.used = true;
  }

  /** The first key of the account no wallet transaction pays yet, in key order (GetAccountAddress). */
  unusedAccountKey(account: string): HeldKey | undefined {
    return this.unusedByAccount.get(account)?.keys.values().next().value;
  }

  /** Sets a key's address-book account (SetAddressBook), persisted; a pool key becomes a used one. */
  async setAccount(pubkeyHex: string, account: string): Promise<void> {
    const k = this.keys.get(pubkeyHex);
    if (!k) return;
    this.dropUnused(k);
    const before = k.account;
    k.account = account;
    this.addUnused(k);
    if (before !== account) for (const f of this.relabelListeners) f(k);
    const origin = k.origin === 'pool' ? 'new' : k.origin;
    k.origin = origin;
    this.pool.delete(k);
    await this.db.update({ _id: pubkeyHex }, { $set: { account, origin } });
  }

  /**
   * TopUpKeyPool: new keys until the pool holds max(-keypool, 0) + 1 (or kpSize + 1), each with the next index after
   * the highest one in the pool (written in one append).
   */
  async topUp(kpSize = 0): Promise<void> {
    // keypoolrefill's newsize replaces -keypool when above 0 (TopUpKeyPool(kpSize)).
    const want = poolTarget(kpSize > 0 ? kpSize : this.keypool) - this.pool.size;
    if (want <= 0) return;
    const time = Math.floor(Date.now() / 1000);
    const made: { secret: Uint8Array; pubkey: Uint8Array; doc: KeyDoc }[] = [];
    for (let i = 0; i < want; i++) {
      const secret = this.freshSecret();
      const pubkey = publicKeyFromPrivate(secret, true);
      const hex = toHex(pubkey);
      if (this.keys.has(hex)) continue;
      const pool = this.nextPoolIndex++;
      made.push({ secret, pubkey, doc: { _id: hex, pubkey: hex, secret: toHex(secret), compressed: true, time, origin: 'pool', pool } });
    }
    await this.db.insert(made.map((m) => m.doc));
    for (const m of made) this.pool.add(this.remember(m.secret, m.pubkey, true, time, 'pool', undefined, m.doc.pool));
  }

  /** The pool key ReserveKeyFromKeyPool would hand out (the pool topped up first); it stays in the pool. */
  async poolKey(): Promise<WalletKey> {
    await this.topUp();
    return this.pool.values().next().value!;
  }

  /** Takes the pool key for use (GetKeyFromPool + KeepKey): it leaves the pool. */
  async takePoolKey(account?: string): Promise<WalletKey> {
    const k = (await this.poolKey()) as HeldKey;
    this.pool.delete(k);
    if (account !== undefined) await this.setAccount(k.hex, account);
    else {
      k.origin = 'new';
      await this.db.update({ _id: k.hex }, { $set: { origin: 'new' } });
    }
    return k;
  }

  get size(): number {
    return this.keys.size;
  }

  /** The oldest pool key's time (keypoololdest) and the pool's size, after TopUpKeyPool as GetOldestKeyPoolTime does. */
  async poolInfo(): Promise<{ oldest: number; size: number }> {
    await this.topUp();
    const first = this.pool.values().next().value;
    return { oldest: first ? first.time : 0, size: this.pool.size };
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

  all(): HeldKey[] {
    return [...this.keys.values()];
  }

  /** The node's own key, made on first start when the store has none (the first key of the pool, as komodod's default key). */
  async nodeKey(): Promise<WalletKey> {
    if (this.node) return this.node;
    const k = (await this.poolKey()) as HeldKey;
    this.pool.delete(k);
    k.origin = 'node';
    this.node = k;
    await this.db.update({ _id: k.hex }, { $set: { origin: 'node' } });
    return k;
  }

  /** Adds a key (stored under its compressed public key); an existing key is returned as it is. */
  async add(secret: Uint8Array, origin: string, compressed = true, time = Math.floor(Date.now() / 1000), account?: string): Promise<WalletKey> {
    if (!isValidPrivateKey(secret)) throw new Error('invalid private key');
    const pub = publicKeyFromPrivate(secret, true);
    const hex = toHex(pub);
    const existing = this.keys.get(hex);
    if (existing) return existing;
    await this.db.insert({ _id: hex, pubkey: hex, secret: toHex(secret), compressed, time, origin, ...(account !== undefined ? { account } : {}) });
    return this.remember(secret, compressed ? pub : publicKeyFromPrivate(secret, false), compressed, time, origin, account, undefined);
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

/**
 * The public key of a stored key as it serialises (compressed or not): read from the stored compressed
 * key, decompressed for an uncompressed one; derived from the secret only when the stored one is missing.
 */
function storedPubkey(d: KeyDoc, secret: Uint8Array): Uint8Array {
  if (typeof d.pubkey === 'string' && /^(02|03)[0-9a-f]{64}$/.test(d.pubkey)) {
    const pub = new Uint8Array(Buffer.from(d.pubkey, 'hex'));
    if (d.compressed) return pub;
    const full = secp256k1Backend().pointUncompressed(pub);
    if (full) return full;
  }
  return publicKeyFromPrivate(secret, d.compressed);
}

/** The compressed form of an uncompressed (04) key. */
function publicKeyCompressed(pub: Uint8Array): Uint8Array | null {
  if (pub.length !== 65 || pub[0] !== 4) return null;
  const out = new Uint8Array(33);
  out[0] = 2 | (pub[64]! & 1);
  out.set(pub.subarray(1, 33), 1);
  return out;
}
