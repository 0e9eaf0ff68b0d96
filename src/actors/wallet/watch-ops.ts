import type { Transaction } from '../../chain/tx/transaction.js';
import { decodeAddress, p2shAddress, PUBKEY_ADDRESS } from '../../chain/address/address.js';
import { toHex } from '../../chain/encoding/hex.js';
import { hash160 } from '../../chain/crypto/hash.js';
import { p2shScript } from '../../chain/script/script.js';
import { ServiceFailure } from '../protocol.js';
import { ISMINE_SPENDABLE, type IsMineType, type WatchBook } from './watchonly.js';

/** What the watch-only operations need of the wallet (src/actors/wallet/logic.ts). */
export interface WatchHost {
  /** The wallet's WatchBook (opened with the wallet). */
  book(): WatchBook;
  mineLevel(script: Uint8Array): IsMineType;
  /** A keyless destination's address-book entry or IsMine level changed: the accounts sums follow (Accounts.keylessChanged). */
  keylessChanged(script: Uint8Array): void;
  /** The address-book name of a destination (a wallet key's account, else a keyless entry's). */
  accountOfAddress(address: string, keyIdHex: string | null): string | undefined;
  /** A keyless destination's coins move to a new account (CoinBook.relabelOwner). */
  relabelOwner(idx: string, account: string): void;
  markDirty(): void;
  /** The recorded transactions paying a script that just became the wallet's count it at once (no rescan needed). */
  refigurePaying(script: Uint8Array): Promise<void>;
  /** The existing rescan path (the chain's address index for the wallet's scripts, then the mempool). */
  rescan(): Promise<number>;
  /** CWallet::IsMine(tx): an output of any IsMine level, CC outputs of the wallet's keys included. */
  ownsAnOutput(tx: Transaction): boolean;
  /** The number of wallet transactions (mapWallet.size()). */
  txCount(): number;
  /** Every wallet transaction's txid but `keep`. */
  txidsBut(keep: string): string[];
  /** The wallet transactions in active-chain blocks at or below `height`. */
  txidsUpTo(height: number): string[];
  tipHeight(): number;
  /** The lowest height of a mature unspent wallet coin (AvailableCoins' deepest output), or null. */
  oldestCoinHeight(): number | null;
  /** EraseFromWallet for each: the record, its indexes and its coins. */
  erase(txids: string[]): Promise<void>;
  log(msg: string): void;
}

/** The index a keyless destination's coins are filed under (CoinOwner.idx). */
function ownerIdx(address: string): string {
  const d = decodeAddress(address)!;
  return d.version === PUBKEY_ADDRESS ? toHex(d.hash) : `s${address}`;
}

/**
 * importaddress (rpcdump.cpp), addmultisigaddress (rpcwallet.cpp), validateaddress's wallet part
 * (misc.cpp) and cleanwallettransactions (rpcwallet.cpp), over the wallet's WatchBook.
 */
export class WatchOps {
  constructor(private readonly host: WatchHost) {}

  /** SetAddressBook for a destination without a wallet key: stored, and its coins change account. */
  private async setAddressBook(address: string, label: string, purpose: string): Promise<void> {
    await this.host.book().setLabel(address, label, purpose);
    this.host.relabelOwner(ownerIdx(address), label);
  }

  /**
   * importaddress: refused when the wallet can spend the script already; an address gets its
   * address-book entry (label) even when it is watched already, which then answers at once; else
   * the script is watched from now on (MarkDirty) and, unless told not to, the wallet rescans.
   */
  async importAddress(script: Uint8Array, address: string | undefined, label: string, rescan: boolean): Promise<null> {
    if (this.host.mineLevel(script) === ISMINE_SPENDABLE) {
      throw new ServiceFailure(-4, 'The wallet already contains the private key for this address or script');
    }
    if (address !== undefined) await this.setAddressBook(address, label, 'receive');
    // "Don't throw error in case an address is already there".
    if (this.host.book().isWatched(script)) {
      this.host.keylessChanged(script);
      return null;
    }
    await this.host.book().addWatch(script);
    // What was computed without the script (outputs, debits) is redone when read.
    this.host.markDirty();
    this.host.keylessChanged(script);
    // komodod reads IsMine afresh: a wallet transaction already paying the script counts it now, rescan or not.
    await this.host.refigurePaying(script);
    if (rescan) await this.host.rescan();
    return null;
  }

  /**
   * addmultisigaddress: AddCScript (the P2SH becomes the wallet's when it holds every key) and the
   * address-book entry (purpose "send") named `account`; answers the P2SH address. No rescan, as komodod.
   */
  async addMultisig(redeemScript: Uint8Array, account: string): Promise<string> {
    const added = await this.host.book().addScript(redeemScript);
    if (added) this.host.markDirty();
    const address = p2shAddress(redeemScript);
    await this.setAddressBook(address, account, 'send');
    this.host.keylessChanged(p2shScript(hash160(redeemScript)));
    if (added) await this.host.refigurePaying(p2shScript(hash160(redeemScript)));
    return address;
  }

  /** validateaddress's wallet part for a destination: IsMine's level, the address-book name, a P2SH's redeem script. */
  describe(script: Uint8Array, address: string): { level: number; account: string | undefined; redeemScript: Uint8Array | undefined } {
    const d = decodeAddress(address);
    const keyIdHex = d && d.version === PUBKEY_ADDRESS ? toHex(d.hash) : null;
    const redeemScript = d && d.version !== PUBKEY_ADDRESS ? this.host.book().redeemScript(d.hash) : undefined;
    return { level: this.host.mineLevel(script), account: this.host.accountOfAddress(address, keyIdHex), redeemScript };
  }

  /**
   * cleanwallettransactions: with a transaction to keep (one paying the wallet, else komodod's "not
   * yours"), every other wallet transaction is erased; without one, every transaction deeper than the
   * deepest unspent wallet output plus one block ("add extra block just for safety"). Answers the counts
   * before and after. Costs the transactions erased (komodod's own loop is over the whole wallet).
   */
  async clean(keep: { txid: string; tx: Transaction } | undefined): Promise<{ total: number; remaining: number }> {
    const total = this.host.txCount();
    let remove: string[];
    if (keep) {
      // komodod throws runtime_error("\nThe transaction is not yours!\n") (RPC_MISC_ERROR).
      if (!this.host.ownsAnOutput(keep.tx)) throw new ServiceFailure(-1, '\nThe transaction is not yours!\n');
      remove = this.host.txidsBut(keep.txid);
    } else {
      const tip = this.host.tipHeight();
      const low = this.host.oldestCoinHeight();
      // AvailableCoins' deepest output (0 with none: only the transactions of the tip's block stay), plus one.
      const oldestTxDepth = (low === null ? 0 : tip - low + 1) + 1;
      // GetDepthInMainChain() > oldestTxDepth: the blocks at or below tip - oldestTxDepth.
      remove = this.host.txidsUpTo(tip - oldestTxDepth);
    }
    await this.host.erase(remove);
    // komodod logs each one ("Erased %s from wallet.").
    for (const txid of remove) this.host.log(`Erased ${txid} from wallet.`);
    return { total, remaining: this.host.txCount() };
  }
}
