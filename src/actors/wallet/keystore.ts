import { randomBytes } from 'node:crypto';
import { compactStore, copyStore, openStore, type Store } from '../storage/datastore.js';
import { hash160 } from '../../chain/crypto/hash.js';
import { isValidPrivateKey, publicKeyFromPrivate, secp256k1Backend } from '../../chain/crypto/secp256k1.js';
import { toHex } from '../../chain/encoding/hex.js';
import { ServiceFailure } from '../../machines/messages.js';
import { isMasterKeyRecord, type MasterKeyRecord } from './crypter.js';
import { KeyVault } from './vault.js';
import { RankedSet } from './rankedset.js';
import { WALLET_KEYPOOL_RAN_OUT, type WalletKey } from './protocol.js';

export type { WalletKey } from './protocol.js';

interface KeyDoc {
  _id: string;
  /** Compressed public key, hex. */
  pubkey: string;
  /** Private key, hex, in an unencrypted wallet. The file is 0600 in a 0700 directory. */
  secret?: string;
  /** The private key sealed under the master key (crypter.ts), hex, in an encrypted wallet. */
  csecret?: string;
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
  /** The private key sealed under the master key, in an encrypted wallet. */
  sealed?: Uint8Array;
}

export interface KeyStoreOptions {
  /** -keypool: the pool is topped up to this many keys plus one (TopUpKeyPool). */
  keypool?: number;
  log?: (msg: string) => void;
}

/** The _id of the master key record (CMasterKey) in wallet.db, present once the wallet is encrypted. */
const MASTER_ID = 'masterkey';
interface MasterDoc {
  _id: string;
  masterKey: MasterKeyRecord;
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
  /** komodod's setKeyPool (std::set<int64_t>): the pool keys ranked by pool index, the lowest taken first. */
  private readonly pool = new RankedSet<HeldKey>();
  /** Per account, its keys no wallet transaction pays yet, ranked in key order (GetAccountAddress's candidates). */
  private readonly unusedByAccount = new Map<string, RankedSet<HeldKey>>();
  private node: HeldKey | undefined;
  private nextOrd = 0;
  private nextPoolIndex = 1;
  private readonly listeners: ((k: HeldKey) => void)[] = [];
  private readonly relabelListeners: ((k: HeldKey) => void)[] = [];
  private readonly keypool: number;
  /** The encryption state: the master key record, and the master key while unlocked. */
  private readonly vault = new KeyVault();
  private readonly log: (msg: string) => void;

  private constructor(
    private readonly db: Store<KeyDoc>,
    opts: KeyStoreOptions,
  ) {
    this.keypool = opts.keypool ?? 100;
    this.log = opts.log ?? (() => {});
  }

  /**
   * Loads the keys with the public keys stored beside them (no EC multiplication per key: an
   * uncompressed key's point is decompressed from the stored compressed one). A new store gets its
   * key pool at once, as komodod's first run (GetKeyFromPool → TopUpKeyPool).
   */
  static async open(dir: string, opts: KeyStoreOptions = {}): Promise<KeyStore> {
    const ks = new KeyStore(await openStore<KeyDoc>(dir, 'wallet', { secret: true }), opts);
    const docs = await ks.db.find({});
    const masterDoc = docs.find((d) => d._id === MASTER_ID) as unknown as MasterDoc | undefined;
    if (masterDoc && isMasterKeyRecord(masterDoc.masterKey)) ks.vault.load(masterDoc.masterKey);
    const crypted = ks.vault.crypted;
    const pooled: HeldKey[] = [];
    /** Keys of an encrypted wallet still holding their plaintext: an encryption cut short after its master key was stored. */
    const unfinished: string[] = [];
    for (const d of docs) {
      // An encrypted wallet reads the sealed key; an unencrypted one the plain key (a sealed one is from an encryption never finished).
      const sealed = crypted && typeof d.csecret === 'string' ? new Uint8Array(Buffer.from(d.csecret, 'hex')) : undefined;
      const secret = !sealed && typeof d.secret === 'string' ? new Uint8Array(Buffer.from(d.secret, 'hex')) : undefined;
      if (!sealed && !secret) continue;
      if (sealed && typeof d.secret === 'string') unfinished.push(d._id);
      const pubkey = storedPubkey(d, secret);
      if (!pubkey) continue;
      const k = ks.remember(secret, pubkey, d.compressed, d.time, d.origin, d.account, d.pool, sealed);
      if (k.origin === 'pool') pooled.push(k);
    }
    if (crypted && unfinished.length > 0) await ks.finishEncryption(unfinished);
    // Keys pooled before pool indexes were stored come first, oldest first.
    pooled.sort((a, b) => (a.pool ?? 0) - (b.pool ?? 0) || a.time - b.time || a.ord - b.ord);
    // Keys without an index rank 0, in the order sorted (equal ranks come out as added).
    for (const k of pooled) ks.pool.add(k, k.pool ?? 0);
    ks.nextPoolIndex = pooled.reduce((m, k) => Math.max(m, (k.pool ?? 0) + 1), 1);
    if (docs.length === 0) await ks.topUp();
    return ks;
  }

  private remember(secret: Uint8Array | undefined, pubkey: Uint8Array, compressed: boolean, time: number, origin: string, account: string | undefined, pool: number | undefined, sealed?: Uint8Array): HeldKey {
    const hex = toHex(compressed ? pubkey : (publicKeyCompressed(pubkey) ?? pubkey));
    const k: HeldKey = { pubkey, compressed, time, origin, hex, idHex: toHex(hash160(pubkey)), ord: this.nextOrd++, ...(secret ? { secret } : {}), ...(sealed ? { sealed } : {}), ...(account !== undefined ? { account } : {}), ...(pool !== undefined ? { pool } : {}) };
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
    if (!acc) this.unusedByAccount.set(k.account, (acc = new RankedSet()));
    // A key relabelled into the account takes its place in key order.
    acc.add(k, k.ord);
  }

  private dropUnused(k: HeldKey): void {
    if (k.account === undefined) return;
    const acc = this.unusedByAccount.get(k.account);
    if (!acc) return;
    acc.delete(k);
    if (acc.size === 0) this.unusedByAccount.delete(k.account);
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
    return this.unusedByAccount.get(account)?.first();
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
    // A locked wallet makes no keys (TopUpKeyPool: `if (IsLocked()) return false;`).
    if (this.vault.locked) return;
    // keypoolrefill's newsize replaces -keypool when above 0 (TopUpKeyPool(kpSize)).
    const want = poolTarget(kpSize > 0 ? kpSize : this.keypool) - this.pool.size;
    if (want <= 0) return;
    await this.makePoolKeys(want);
  }

  /** New pool keys with the next indexes, written in one append (sealed in an encrypted wallet). */
  private async makePoolKeys(count: number): Promise<void> {
    const time = Math.floor(Date.now() / 1000);
    const made: { secret: Uint8Array; pubkey: Uint8Array; sealed?: Uint8Array; doc: KeyDoc }[] = [];
    for (let i = 0; i < count; i++) {
      const secret = this.freshSecret();
      const pubkey = publicKeyFromPrivate(secret, true);
      const hex = toHex(pubkey);
      if (this.keys.has(hex)) continue;
      const pool = this.nextPoolIndex++;
      const stored = this.storedSecret(pubkey, secret);
      made.push({ secret, pubkey, ...stored.mem, doc: { _id: hex, pubkey: hex, ...stored.doc, compressed: true, time, origin: 'pool', pool } });
    }
    await this.db.insert(made.map((m) => m.doc));
    for (const m of made) {
      this.pool.add(this.remember(m.sealed ? undefined : m.secret, m.pubkey, true, time, 'pool', undefined, m.doc.pool, m.sealed), m.doc.pool!);
      // A sealed key's plain bytes are not kept (the vault opens the box when the key is used).
      if (m.sealed) m.secret.fill(0);
    }
  }

  /** How a new key's secret is kept: plain in an unencrypted wallet, sealed under the master key in an encrypted one. */
  private storedSecret(pubkeyCompressed: Uint8Array, secret: Uint8Array): { doc: { secret: string } | { csecret: string }; mem: { sealed?: Uint8Array } } {
    if (!this.vault.crypted) return { doc: { secret: toHex(secret) }, mem: {} };
    const sealed = this.vault.sealKey(pubkeyCompressed, secret);
    return { doc: { csecret: toHex(sealed) }, mem: { sealed } };
  }

  /**
   * The pool key ReserveKeyFromKeyPool would hand out (the pool topped up first); it stays in the pool.
   * A locked wallet whose pool is empty has none to give: komodod's -12 (GetKeyFromPool fails).
   */
  async poolKey(): Promise<WalletKey> {
    await this.topUp();
    const k = this.pool.first();
    if (!k) throw new ServiceFailure(-12, WALLET_KEYPOOL_RAN_OUT);
    return k;
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
    const first = this.pool.first();
    // GetOldestKeyPoolTime: the current time when the pool is empty (a locked wallet cannot refill it).
    return { oldest: first ? first.time : Math.floor(Date.now() / 1000), size: this.pool.size };
  }

  /** Copies the datastore file (backupwallet). */
  async persistTo(path: string): Promise<void> {
    await copyStore(this.db as unknown as Store<{ _id?: string }>, path);
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
    const stored = this.storedSecret(pub, secret);
    await this.db.insert({ _id: hex, pubkey: hex, ...stored.doc, compressed, time, origin, ...(account !== undefined ? { account } : {}) });
    // A copy: encryption wipes the store's plain keys, never the caller's buffer.
    return this.remember(stored.mem.sealed ? undefined : new Uint8Array(secret), compressed ? pub : publicKeyFromPrivate(secret, false), compressed, time, origin, account, undefined, stored.mem.sealed);
  }

  has(secret: Uint8Array): boolean {
    return this.keys.has(toHex(publicKeyFromPrivate(secret, true)));
  }

  // ---- encryption (komodod's CCryptoKeyStore / CWallet::EncryptWallet) -------------------------

  /** IsCrypted: the keys are stored sealed under a master key. */
  get crypted(): boolean {
    return this.vault.crypted;
  }

  /** IsLocked: encrypted and the master key not in memory (an unencrypted wallet is never locked). */
  get locked(): boolean {
    return this.vault.locked;
  }

  /** A key's private key: the plain one of an unencrypted wallet, the opened one while unlocked, else undefined. */
  secretOf(k: WalletKey): Uint8Array | undefined {
    if (k.secret) return k.secret;
    const held = k as HeldKey;
    return held.sealed ? this.vault.openKey(held.hex, Buffer.from(held.hex, 'hex'), held.sealed) : undefined;
  }

  /** CWallet::Unlock: true when the passphrase is the wallet's. */
  unlock(passphrase: Uint8Array): Promise<boolean> {
    return this.vault.unlock(passphrase);
  }

  /** CCryptoKeyStore::Lock: the master key and every opened private key wiped from memory. */
  lock(): void {
    this.vault.lock();
  }

  /**
   * ChangeWalletPassphrase: the master key re-sealed under the new passphrase (one record rewritten,
   * the keys' boxes untouched). False when the old passphrase is wrong.
   */
  async changePassphrase(oldPassphrase: Uint8Array, newPassphrase: Uint8Array): Promise<boolean> {
    // komodod locks first and unlocks again only on success, when it was unlocked before: a wrong old
    // passphrase leaves the wallet locked.
    const wasLocked = this.vault.locked;
    this.vault.lock();
    const record = await this.vault.rewrap(oldPassphrase, newPassphrase, !wasLocked);
    if (!record) return false;
    await this.db.update({ _id: MASTER_ID }, { _id: MASTER_ID, masterKey: record } as unknown as KeyDoc, { upsert: true });
    this.vault.replace(record);
    // The old record's line stays in the file until nedb rewrites it: rewrite it now.
    await compactStore(this.db as unknown as Store<{ _id?: string }>);
    return true;
  }

  /**
   * EncryptWallet: a random master key sealed under the passphrase; every private key sealed under the
   * master key; the old pool keys leave the pool and -keypool new sealed keys replace them (NewKeyPool);
   * the file rewritten so no plaintext key is left in it (komodod's CDB::Rewrite); then locked.
   *
   * Crash-safe in two phases, as nedb has no multi-record transaction: (1) each record gains its sealed
   * key beside the plain one, then the master key record is written — a crash before that record leaves
   * an unencrypted wallet (the sealed copies are ignored at load); (2) the plain keys are removed — a
   * crash during that is finished at the next load (finishEncryption), as every key is sealed by then.
   */
  async encrypt(passphrase: Uint8Array): Promise<void> {
    const record = await this.vault.create(passphrase);
    const keys = [...this.keys.values()];
    try {
      for (const k of keys) {
        const secret = k.secret!;
        k.sealed = this.vault.sealKey(Buffer.from(k.hex, 'hex'), secret);
        await this.db.update({ _id: k.hex }, { $set: { csecret: toHex(k.sealed) } });
      }
      await this.db.update({ _id: MASTER_ID }, { _id: MASTER_ID, masterKey: record } as unknown as KeyDoc, { upsert: true });
    } catch (e) {
      for (const k of keys) delete k.sealed;
      this.vault.abandon();
      throw e;
    }
    // Phase 2: the plain keys go, on disk and in memory.
    for (const k of keys) {
      const wasPool = this.pool.has(k);
      await this.db.update({ _id: k.hex }, wasPool ? { $unset: { secret: true, pool: true }, $set: { origin: 'new' } } : { $unset: { secret: true } });
      if (wasPool) {
        k.origin = 'new';
        delete k.pool;
      }
      k.secret!.fill(0);
      delete k.secret;
    }
    // NewKeyPool: the pool starts again at index 1 with -keypool keys (not the +1 TopUpKeyPool keeps).
    this.pool.clear();
    this.nextPoolIndex = 1;
    await this.makePoolKeys(Math.max(this.keypool, 0));
    await compactStore(this.db as unknown as Store<{ _id?: string }>);
    this.vault.lock();
  }

  /** Removes the plain keys an encryption cut short left beside their sealed ones (phase 2 of encrypt). */
  private async finishEncryption(ids: string[]): Promise<void> {
    for (const id of ids) await this.db.update({ _id: id }, { $unset: { secret: true } });
    await compactStore(this.db as unknown as Store<{ _id?: string }>);
    this.log(`wallet: finished an encryption that was cut short (${ids.length} plain keys removed from wallet.db)`);
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
 * key, decompressed for an uncompressed one; derived from the secret only when the stored one is missing
 * (null for a sealed key without one: it cannot be derived while locked).
 */
function storedPubkey(d: KeyDoc, secret: Uint8Array | undefined): Uint8Array | null {
  if (typeof d.pubkey === 'string' && /^(02|03)[0-9a-f]{64}$/.test(d.pubkey)) {
    const pub = new Uint8Array(Buffer.from(d.pubkey, 'hex'));
    if (d.compressed) return pub;
    const full = secp256k1Backend().pointUncompressed(pub);
    if (full) return full;
  }
  return secret ? publicKeyFromPrivate(secret, d.compressed) : null;
}

/** The compressed form of an uncompressed (04) key. */
function publicKeyCompressed(pub: Uint8Array): Uint8Array | null {
  if (pub.length !== 65 || pub[0] !== 4) return null;
  const out = new Uint8Array(33);
  out[0] = 2 | (pub[64]! & 1);
  out.set(pub.subarray(1, 33), 1);
  return out;
}
