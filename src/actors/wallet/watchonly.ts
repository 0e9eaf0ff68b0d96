import { copyStore, openStore, type Store } from '../storage/datastore.js';
import { hash160 } from '../../chain/crypto/hash.js';
import { toHex } from '../../chain/encoding/hex.js';
import { solver } from '../../chain/script/standard.js';
import { p2shScript } from '../../chain/script/script.js';

/**
 * Watch-only support, as komodod's CBasicKeyStore (setWatchOnly, mapScripts), the address-book
 * entries of destinations the wallet holds no key for (CWallet::mapAddressBook), and IsMine's levels
 * (wallet/wallet_ismine.cpp). Everything is kept in memory as it is added and persisted in the
 * wallet's directory (watchonly.db, 0600), one record per script or label: nothing is rebuilt.
 */

import { ISMINE_NO, ISMINE_SPENDABLE, ISMINE_WATCH_ONLY } from './protocol.js';

export { ISMINE_ALL, ISMINE_NO, ISMINE_SPENDABLE, ISMINE_WATCH_ONLY } from './protocol.js';
export type IsMineType = typeof ISMINE_NO | typeof ISMINE_WATCH_ONLY | typeof ISMINE_SPENDABLE;
/** isminefilter: a bit set of the levels above. */
export type IsMineFilter = number;

interface WatchDoc {
  /** 'w' + script hex (a watched script), 's' + script id hex (a redeem script), 'a' + address (a label). */
  _id: string;
  /** The script, hex (watched and redeem scripts). */
  hex?: string;
  /** The address-book entry: its name (account) and purpose. */
  address?: string;
  label?: string;
  purpose?: string;
}

/** What IsMine asks of the key store: whether it holds the private key of a key id (CKeyStore::HaveKey). */
export type HaveKey = (keyId: Uint8Array) => boolean;

export class WatchBook {
  /** setWatchOnly, by script hex. */
  private readonly watched = new Map<string, Uint8Array>();
  /** mapScripts: script id (hash160 of the script), hex → the redeem script. */
  private readonly scripts = new Map<string, Uint8Array>();
  /** mapAddressBook for destinations without a wallet key (watched addresses, P2SH scripts): address → name. */
  private readonly labels = new Map<string, string>();

  private constructor(private readonly db: Store<WatchDoc>) {}

  static async open(dir: string): Promise<WatchBook> {
    const book = new WatchBook(await openStore<WatchDoc>(dir, 'watchonly', { secret: true }));
    for (const d of await book.db.find({})) {
      const kind = d._id[0];
      if (kind === 'w' && typeof d.hex === 'string') book.watched.set(d.hex, Uint8Array.from(Buffer.from(d.hex, 'hex')));
      else if (kind === 's' && typeof d.hex === 'string') book.scripts.set(d._id.slice(1), Uint8Array.from(Buffer.from(d.hex, 'hex')));
      else if (kind === 'a' && typeof d.address === 'string') book.labels.set(d.address, d.label ?? '');
    }
    return book;
  }

  /** Copies the book's file (backupwallet). */
  async persistTo(path: string): Promise<void> {
    await copyStore(this.db as unknown as Store<{ _id?: string }>, path);
  }

  /** HaveWatchOnly(script). */
  isWatched(script: Uint8Array): boolean {
    return this.watched.size > 0 && this.watched.has(toHex(script));
  }

  /** AddWatchOnly: false when it was watched already. */
  async addWatch(script: Uint8Array): Promise<boolean> {
    const hex = toHex(script);
    if (this.watched.has(hex)) return false;
    this.watched.set(hex, script);
    await this.db.update({ _id: `w${hex}` }, { _id: `w${hex}`, hex }, { upsert: true });
    return true;
  }

  /** GetCScript: the redeem script with this id (hash160), or undefined. */
  redeemScript(scriptId: Uint8Array): Uint8Array | undefined {
    return this.scripts.size > 0 ? this.scripts.get(toHex(scriptId)) : undefined;
  }

  /** AddCScript: false when it was held already. */
  async addScript(script: Uint8Array): Promise<boolean> {
    const id = toHex(hash160(script));
    if (this.scripts.has(id)) return false;
    this.scripts.set(id, script);
    await this.db.update({ _id: `s${id}` }, { _id: `s${id}`, hex: toHex(script) }, { upsert: true });
    return true;
  }

  /** The address-book name of a destination without a wallet key, or undefined when it has no entry. */
  labelOf(address: string): string | undefined {
    return this.labels.size > 0 ? this.labels.get(address) : undefined;
  }

  /** The addresses with a keyless address-book entry. */
  labelled(): IterableIterator<string> {
    return this.labels.keys();
  }

  /** SetAddressBook(dest, name, purpose) for a destination without a wallet key. */
  async setLabel(address: string, label: string, purpose: string): Promise<void> {
    this.labels.set(address, label);
    await this.db.update({ _id: `a${address}` }, { _id: `a${address}`, address, label, purpose }, { upsert: true });
  }

  /** The scripts a rescan looks for beyond the keys': every watched script, and the P2SH of every redeem script. */
  scanScripts(): string[] {
    const out = [...this.watched.keys()];
    for (const s of this.scripts.values()) out.push(toHex(p2shScript(hash160(s))));
    return out;
  }

  /** Nothing watched and no redeem script held: IsMine is the keys' alone. */
  get empty(): boolean {
    return this.watched.size === 0 && this.scripts.size === 0;
  }
}

/**
 * IsMine (wallet_ismine.cpp IsMineInner): P2PK and P2PKH are spendable when the wallet holds the key;
 * a P2SH when the wallet holds its redeem script and that script is spendable; a multisig only inside
 * a P2SH and only when the wallet holds every key of it (bare multisig is never the wallet's, as
 * komodod's "spend-out-from-under-you" rule); anything not spendable is watch-only when the exact
 * script is watched. CC outputs are tracked apart by the wallet (its CC coins).
 */
export function isMineLevel(script: Uint8Array, haveKey: HaveKey, book: WatchBook, p2sh = false): IsMineType {
  const s = solver(script, { ccEnabled: false });
  switch (s.type) {
    case 'pubkey':
      if (haveKey(hash160(s.solutions[0]!))) return ISMINE_SPENDABLE;
      break;
    case 'pubkeyhash':
      if (haveKey(s.solutions[0]!)) return ISMINE_SPENDABLE;
      break;
    case 'scripthash': {
      const sub = book.redeemScript(s.solutions[0]!);
      if (sub && isMineLevel(sub, haveKey, book, true) === ISMINE_SPENDABLE) return ISMINE_SPENDABLE;
      break;
    }
    case 'multisig': {
      if (!p2sh) break;
      const keys = s.solutions.slice(1, -1);
      if (keys.every((k) => haveKey(hash160(k)))) return ISMINE_SPENDABLE;
      break;
    }
    default:
      break;
  }
  return book.isWatched(script) ? ISMINE_WATCH_ONLY : ISMINE_NO;
}
