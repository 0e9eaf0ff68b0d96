import { ServiceFailure } from '../protocol.js';
import type { Secret } from '../../chain/crypto/secret.js';
import type { KeyStore } from './keystore.js';
import { KDF_PARAMS } from './crypter.js';
import { WALLET_PASSPHRASE_INCORRECT as PASSPHRASE_INCORRECT, WALLET_UNLOCK_NEEDED as UNLOCK_NEEDED, type CryptState } from './protocol.js';

/** setTimeout's longest delay; a longer unlock re-arms the timer. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The wallet's side of komodod's encryption RPCs (encryptwallet, walletpassphrase,
 * walletpassphrasechange, walletlock) over the key store: nWalletUnlockTime and the relock timer
 * (RPCRunLater("lockwallet")), and the unlocked check the key-using operations make.
 *
 * The timer never locks the wallet under an operation that started unlocked (komodod's LockWallet
 * waits for cs_wallet, which the running call holds): such an operation runs inside whileUnlocked,
 * and a relock due meanwhile happens as it ends.
 */
export class WalletCrypt {
  private unlockUntil = 0;
  /** When the relock is due (ms), while an unlock is running. */
  private deadlineMs: number | null = null;
  private timer: NodeJS.Timeout | undefined;
  /** Operations running inside whileUnlocked. */
  private busy = 0;

  constructor(
    private readonly keys: KeyStore,
    private readonly now: () => number,
    private readonly log: (msg: string) => void,
  ) {}

  state(): CryptState {
    this.expire();
    return { crypted: this.keys.crypted, locked: this.keys.locked, unlockedUntil: this.unlockUntil };
  }

  /** EnsureWalletIsUnlocked: -13 while locked. */
  requireUnlocked(): void {
    this.expire();
    if (this.keys.locked) throw new ServiceFailure(-13, UNLOCK_NEEDED);
  }

  /** Runs an operation that needs the keys (-13 while locked); the wallet stays unlocked until it ends. */
  async whileUnlocked<T>(run: () => Promise<T>): Promise<T> {
    this.requireUnlocked();
    this.busy++;
    try {
      return await run();
    } finally {
      this.busy--;
      this.expire();
    }
  }

  /** EncryptWallet: -15 when encrypted already, -16 when it fails. */
  async encrypt(passphrase: Secret): Promise<void> {
    if (this.keys.crypted) throw new ServiceFailure(-15, 'Error: running with an encrypted wallet, but encryptwallet was called.');
    try {
      await this.keys.encrypt(passphrase.bytes);
    } catch (e) {
      this.log(`wallet: encryption failed: ${e instanceof Error ? e.message : String(e)}`);
      throw new ServiceFailure(-16, 'Error: Failed to encrypt the wallet.');
    } finally {
      wipe(passphrase);
    }
    this.log(`wallet: encrypted (scrypt N=${KDF_PARAMS.N} r=${KDF_PARAMS.r} p=${KDF_PARAMS.p}, AES-256-GCM)`);
  }

  /**
   * walletpassphrase: Unlock (-14 for a wrong passphrase, the wallet as it was), TopUpKeyPool, and the
   * relock `timeout` seconds from now, replacing an earlier one.
   */
  async unlock(passphrase: Secret, timeout: number): Promise<void> {
    this.wrongState('walletpassphrase');
    let ok: boolean;
    try {
      ok = await this.keys.unlock(passphrase.bytes);
    } finally {
      wipe(passphrase);
    }
    if (!ok) throw new ServiceFailure(-14, PASSPHRASE_INCORRECT);
    // The relock is set before anything else can fail.
    this.unlockUntil = this.now() + timeout;
    this.arm(Date.now() + Math.max(0, timeout) * 1000);
    await this.keys.topUp();
  }

  /**
   * walletpassphrasechange: -14 for a wrong old passphrase. As komodod's ChangeWalletPassphrase, the
   * wallet is locked first and unlocked again only when the change succeeds and it was unlocked;
   * nWalletUnlockTime is left as it was either way.
   */
  async change(oldPassphrase: Secret, newPassphrase: Secret): Promise<void> {
    this.wrongState('walletpassphrasechange');
    let ok: boolean;
    try {
      ok = await this.keys.changePassphrase(oldPassphrase.bytes, newPassphrase.bytes);
    } finally {
      wipe(oldPassphrase);
      wipe(newPassphrase);
    }
    if (!ok) throw new ServiceFailure(-14, PASSPHRASE_INCORRECT);
  }

  /** walletlock. */
  lock(): void {
    this.wrongState('walletlock');
    this.relock();
  }

  /** At shutdown: no timer left, no key left in memory. */
  close(): void {
    this.disarm();
    this.keys.lock();
  }

  /** RPC_WALLET_WRONG_ENC_STATE for the methods of an encrypted wallet called on an unencrypted one. */
  private wrongState(method: string): void {
    if (!this.keys.crypted) throw new ServiceFailure(-15, `Error: running with an unencrypted wallet, but ${method} was called.`);
  }

  /** LockWallet: nWalletUnlockTime = 0 and the keys wiped. */
  private relock(): void {
    this.disarm();
    this.unlockUntil = 0;
    this.keys.lock();
  }

  /** The relock, when it is due and no key-using operation is running. */
  private expire(): void {
    if (this.deadlineMs !== null && this.busy === 0 && Date.now() >= this.deadlineMs) this.relock();
  }

  private arm(deadlineMs: number): void {
    this.disarm();
    this.deadlineMs = deadlineMs;
    const tick = () => {
      this.timer = undefined;
      const left = deadlineMs - Date.now();
      if (left > 0) this.timer = setTimeout(tick, Math.min(left, MAX_TIMER_MS)).unref();
      // Under a running operation the relock waits for its end (whileUnlocked).
      else this.expire();
    };
    this.timer = setTimeout(tick, Math.min(Math.max(0, deadlineMs - Date.now()), MAX_TIMER_MS)).unref();
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.deadlineMs = null;
  }
}

/** A passphrase's bytes overwritten once used (the RPC's JSON string itself cannot be wiped: komodod notes the same of params[0]). */
function wipe(s: Secret): void {
  s.bytes.fill(0);
}
