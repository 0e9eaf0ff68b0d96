/**
 * The wallet's protocol: what it answers (keys, balances, unspent outputs, history, building and
 * signing), what the node forwards to it (the chain store's and the mempool's notices, the resend
 * timer), what it announces (walletTx for -walletnotify, relayTxs for the rebroadcast), and the
 * records the RPC layer sees.
 */
import type { Block } from '../../chain/block/block.js';
import type { Transaction } from '../../chain/tx/transaction.js';
import type { Protocol } from '../../machines/messages.js';
import type { RelayItem } from '../p2p/protocol.js';
import type { Secret } from '../../chain/crypto/secret.js';
import type { InputError, PrevOut } from '../../chain/tx/sign.js';
import type { AssembledTokenTx, BuildContext, BuildResult } from '../../chain/tokens/index.js';
import type { AssembledAssetsTx } from '../../chain/assets/index.js';

export type { InputError, PrevOut } from '../../chain/tx/sign.js';

// ---- records ---------------------------------------------------------------------------------

/** isminetype (wallet_ismine.h): what the wallet's IsMine answers for a script (watchonly.ts). */
export const ISMINE_NO = 0;
export const ISMINE_WATCH_ONLY = 1;
export const ISMINE_SPENDABLE = 2;
export const ISMINE_ALL = ISMINE_WATCH_ONLY | ISMINE_SPENDABLE;

/** A key as the wallet's key store hands it out. */
export interface WalletKey {
  /** The public key as the wallet serialises it (compressed or not, as `compressed` says). */
  pubkey: Uint8Array;
  /** The private key of an unencrypted wallet; absent in an encrypted one (KeyStore.secretOf opens it while unlocked). */
  secret?: Uint8Array;
  compressed: boolean;
  time?: number;
  origin?: string;
  account?: string;
}

/**
 * A CC module transaction (tokens or assets), assembled by the RPC layer, for the wallet to sign
 * with the key of its -pubkey (`assembled.mypk`) as FinalizeCCTx does, at the height `ctx` gives.
 */
export type CCSignRequest = { ctx: BuildContext } & ({ module: 'tokens'; assembled: AssembledTokenTx } | { module: 'assets'; assembled: AssembledAssetsTx });

/** An output the wallet owns: confirmed (height > 0) or in the mempool (height 0). */
export interface WalletCoin {
  txid: string;
  n: number;
  value: bigint;
  script: Uint8Array;
  /** Block height, or 0 while the creating transaction is in the mempool. */
  height: number;
  coinbase: boolean;
  /** nLockTime of the creating transaction (listunspent prints `interest` when it is not 0). */
  lockTime: number;
}

/** One output as ListTransactions lists it (COutputEntry), with the account of a received one's address. */
export interface Entry {
  address: string | null;
  amount: bigint;
  vout: number;
  /** The address-book account of the address ("" when none): what a "receive" entry prints. */
  account: string;
  /** ListTransactions' involvesWatchonly: the transaction spends a watch-only output, or this destination is watched. */
  involvesWatchonly?: boolean;
}

/**
 * A wallet transaction as gettransaction, listtransactions and listsinceblock read it: its metadata and
 * CWalletTx::GetAmounts (credits, debits, fee, the sent and received entries), with the wallet's keys
 * as they are when asked. Built for the transactions an answer holds, never for the whole wallet.
 */
export interface TxDetail {
  txid: string;
  coinbase: boolean;
  /** nTimeReceived. */
  timeReceived: number;
  /** sendtoaddress/sendmany comments (mapValue). */
  mapValue?: Record<string, string>;
  expiryHeight: number;
  /** The serialised size. */
  size: number;
  /** strFromAccount: the account sendfrom/sendmany sent it from ("" otherwise). */
  fromAccount?: string;
  /** The raw transaction, hex (asked for by gettransaction). */
  hex?: string;
  /** GetCredit: the outputs paying the wallet. */
  credit: bigint;
  /** GetDebit: the wallet outputs it spends. */
  debit: bigint;
  valueOut: bigint;
  received: Entry[];
  sent: Entry[];
  /** GetAmounts' nFee: debit minus the outputs when the wallet paid, else 0. */
  fee: bigint;
  /** GetConflicts: the wallet's other transactions spending one of its inputs, in txid order. */
  conflicts: string[];
}

/** An accounting entry (CAccountingEntry) as listtransactions prints it: one half of a `move`. */
export interface MoveEntry {
  kind: 'move';
  account: string;
  /** nCreditDebit: negative for the debit half. */
  amount: bigint;
  time: number;
  otherAccount: string;
  comment: string;
}

/** listaccounts: an account and its GetAccountBalance. */
export interface AccountTotal {
  account: string;
  amount: bigint;
}

/** ListReceived's row: by address (address, txids) or by account; confirmations max-int when nothing was received. */
export interface ReceivedRow {
  address?: string;
  account: string;
  amount: bigint;
  confirmations: number;
  watchOnly: boolean;
  txids?: string[];
}

/** listaddressgroupings: an address, its GetAddressBalances figure and its address-book name when listed. */
export interface GroupedAddress {
  address: string;
  amount: bigint;
  account?: string;
}

export interface Recipient {
  script: Uint8Array;
  value: bigint;
  subtractFee: boolean;
}

/** A coin as the wallet's readers see it, with its depth at the current tip. */
export interface CoinView extends WalletCoin {
  confirmations: number;
  /** The creating transaction spends wallet coins (trusted while unconfirmed). */
  fromMe: boolean;
  /** Immature coinbase outputs are not spendable yet. */
  mature: boolean;
  address: string | null;
  account: string | undefined;
}

/** Unspent wallet outputs as listunspent reads them. */
export interface UnspentView extends WalletCoin {
  confirmations: number;
  /** ExtractDestination's address (null for a watched script with none). */
  address: string | null;
  account: string | undefined;
  /** COutput::fSpendable: false for a watch-only coin. */
  spendable: boolean;
  /** The redeem script of a P2SH coin the wallet holds it for. */
  redeemScript?: Uint8Array;
}

export interface ImportEntry {
  secret: Secret;
  compressed: boolean;
  label?: string;
  /** importprivkey: set the label on a key already held (importwallet skips such keys). */
  relabel?: boolean;
  time?: number;
}

/** A key the wallet holds, as dumpwallet reads it. */
export interface KeyDump {
  secret: Secret;
  compressed: boolean;
  pubkey: Uint8Array;
  time: number;
  origin: string;
  account: string | undefined;
}

/** An outpoint by its display-order txid. */
export interface OutpointRef {
  txid: string;
  n: number;
}

/** getwalletinfo's figures. */
export interface WalletInfo {
  balance: bigint;
  unconfirmed: bigint;
  immature: bigint;
  txcount: number;
  pool: { oldest: number; size: number };
  /** payTxFee's per-kB rate (settxfee), 0 when unset. */
  payTxFee: bigint;
  /** nWalletUnlockTime, present when the wallet is encrypted (getwalletinfo and getinfo print it then). */
  unlockedUntil?: number;
}

/** The encryption state getwalletinfo, getinfo and the encryption methods read. */
export interface CryptState {
  /** IsCrypted. */
  crypted: boolean;
  /** IsLocked. */
  locked: boolean;
  /** nWalletUnlockTime: when the unlock ends (seconds since the epoch), 0 once locked by walletlock or the timer. */
  unlockedUntil: number;
}

/** komodod's wallet-state errors, as the wallet fails its operations and the RPC methods check them. */
export const WALLET_UNLOCK_NEEDED = 'Error: Please enter the wallet passphrase with walletpassphrase first.';
export const WALLET_PASSPHRASE_INCORRECT = 'Error: The wallet passphrase entered was incorrect.';
export const WALLET_KEYPOOL_RAN_OUT = 'Error: Keypool ran out, please call keypoolrefill first';

// ---- requests and replies ------------------------------------------------------------------

export type WalletRequest =
  // Reads.
  | { op: 'coins' }
  | { op: 'ccCoins' }
  | { op: 'tip' }
  /** GetBalance: account undefined is every account ("*"); untrusted counts untrusted mempool coins. */
  | { op: 'balance'; minConf: number; account?: string; untrusted?: boolean; watchOnly?: boolean }
  /** listunspent: addresses narrow it to those key ids (hex), or P2SH addresses (`p2sh`: the address). */
  | { op: 'unspent'; minDepth: number; maxDepth: number; addresses?: { idHex: string; p2sh?: string }[] }
  /** `watchOnly` on the history reads: includeWatchonly (isminefilter ISMINE_SPENDABLE | ISMINE_WATCH_ONLY). */
  | { op: 'txDetail'; txid: string; hex?: boolean; watchOnly?: boolean }
  /** listtransactions: `count` from `from`, newest last; account "*" is every account. */
  | { op: 'listTxs'; count: number; from: number; account: string; watchOnly?: boolean }
  | { op: 'txDetails'; watchOnly?: boolean }
  /** listsinceblock's candidates: the transactions in blocks above this height and those in none. */
  | { op: 'sinceHeight'; height: number; watchOnly?: boolean }
  /** validateaddress: IsMine's level of a destination's script, its address-book name, its redeem script. */
  | { op: 'describe'; script: Uint8Array; address: string }
  | { op: 'conflicts'; txid: string }
  | { op: 'isMine'; script: Uint8Array }
  | { op: 'keyById'; keyId: Uint8Array }
  | { op: 'secret'; keyId: Uint8Array }
  | { op: 'allKeys' }
  | { op: 'info' }
  /** getreceivedbyaddress: the P2PKH outputs paying key `keyId` (hex) at least minConf deep; null when not the wallet's. */
  | { op: 'receivedByKey'; keyId: string; minConf: number }
  /** The same for a P2SH address: the outputs paying the script with id `scriptId` (hex); null when not IsMine. */
  | { op: 'receivedByScriptId'; scriptId: string; minConf: number }
  /** getunconfirmedbalance: GetUnconfirmedBalance, the mempool coins not from the wallet. */
  | { op: 'unconfirmedBalance' }
  /** signmessage: the compact signature of `message` by the key `keyId` (hex), null when the wallet has no such key. */
  | { op: 'signMessage'; keyId: string; message: string }
  /** listlockunspent: the locked outpoints in komodod's std::set order. */
  | { op: 'lockedCoins' }
  /** FinalizeCCTx's signing with the -pubkey's key (-13 while locked): only the signed transaction leaves; null when the wallet has no such key. */
  | { op: 'signCC'; cc: CCSignRequest }
  /** signrawtransaction with the wallet's keys: each variant signed, then combined. */
  | { op: 'sign'; variants: Transaction[]; coins: (PrevOut | null)[]; hashType: number; branchId: number }
  /** The accounts family (src/actors/wallet/accounts.ts): GetAccountBalance, listaccounts, ListReceived, groupings, the address book. */
  /** watchOnly: isminefilter ISMINE_SPENDABLE | ISMINE_WATCH_ONLY (getbalance's includeWatchonly). */
  | { op: 'accountBalance'; account: string; minConf: number; watchOnly?: boolean }
  /** getbalance "*": receipts minconf deep less sends and fees over every wallet transaction. */
  | { op: 'balanceAll'; minConf: number; watchOnly?: boolean }
  | { op: 'listAccounts'; minConf: number; watchOnly: boolean }
  | { op: 'listReceived'; minConf: number; includeEmpty: boolean; watchOnly: boolean; byAccount: boolean }
  | { op: 'receivedByAccount'; account: string; minConf: number }
  | { op: 'addressesByAccount'; account: string }
  | { op: 'addressGroupings' }
  /** The rebroadcast timer's turn (ResendWalletTransactions): answers the milliseconds until the next. */
  | { op: 'resend' }
  // Writes (serialised behind the notices already queued).
  | { op: 'blockConnected'; block: Block; txids: string[]; height: number }
  | { op: 'blockDisconnected'; txids: string[] }
  | { op: 'txsAccepted'; items: { txid: string; tx: Transaction }[] }
  | { op: 'txsRemoved'; txids: string[] }
  | { op: 'newAddress'; account: string }
  | { op: 'accountAddress'; account: string }
  /** importprivkey (rescan unless false). */
  | ({ op: 'importKey'; rescan?: boolean } & Omit<ImportEntry, 'relabel'>)
  /** importwallet (rescan unless false). */
  | { op: 'importKeys'; entries: ImportEntry[]; rescan?: boolean }
  /** fundrawtransaction */
  | { op: 'fund'; tx: Transaction }
  /**
   * sendtoaddress / sendmany / sendfrom: mapValue holds their comments; fromAccount is strFromAccount.
   * checkBalance: SendMoney's own check, after the unlock check, in the same call (sendtoaddress):
   * an amount over GetBalance() fails -6 "Insufficient funds" before any building.
   */
  | { op: 'send'; recipients: Recipient[]; mapValue?: Record<string, string>; fromAccount?: string; checkBalance?: boolean }
  /** setaccount: SetAddressBook of a wallet key (false when the key is not the wallet's). */
  | { op: 'setAccount'; keyId: string; account: string }
  /** move: two accounting entries, persisted. */
  | { op: 'move'; from: string; to: string; amount: bigint; comment: string }
  | { op: 'rescan' }
  /** -pubkey set at run time (setpubkey). */
  | { op: 'setPubkey'; pubkey: Uint8Array }
  /** backupwallet */
  | { op: 'backup'; path: string }
  | { op: 'walletInfo' }
  /** lockunspent: lock or unlock these outpoints; unlock with none given unlocks every one. */
  | { op: 'lockCoins'; unlock: boolean; outpoints?: OutpointRef[] }
  /** settxfee: payTxFee per kB from now on (0: back to the default rate). */
  | { op: 'setTxFee'; perK: bigint }
  /** getrawchangeaddress: a pool key kept (CReserveKey::KeepKey) with no address-book entry. */
  | { op: 'rawChangeAddress' }
  /** keypoolrefill: TopUpKeyPool(size), 0 for -keypool; answers the pool's size after. */
  | { op: 'keypoolRefill'; size: number }
  /** resendwallettransactions: ResendWalletTransactionsBefore(now), relayed; answers their txids. */
  | { op: 'resendNow' }
  // Encryption (walletcrypt.ts): passphrases travel as Secret, which every renderer shows as [secret].
  | { op: 'cryptState' }
  | { op: 'encryptWallet'; passphrase: Secret }
  | { op: 'walletPassphrase'; passphrase: Secret; timeout: number }
  | { op: 'walletPassphraseChange'; oldPassphrase: Secret; newPassphrase: Secret }
  | { op: 'walletLock' }
  /** importaddress: watch `script` (`address` when given as one: its address-book entry gets `label`). */
  | { op: 'importAddress'; script: Uint8Array; address?: string; label: string; rescan: boolean }
  /** addmultisigaddress: hold the redeem script, its P2SH's address-book entry named `account`; answers the P2SH address. */
  | { op: 'addMultisig'; redeemScript: Uint8Array; account: string }
  /** cleanwallettransactions: `keep` (a transaction found by the caller) keeps only it; none removes the spent history. */
  | { op: 'cleanTxs'; keep?: { txid: string; tx: Transaction } };

export interface WalletReplies {
  coins: (UnspentView & { fromMe: boolean; mature: boolean })[];
  ccCoins: WalletCoin[];
  tip: { height: number; mtp: number };
  balance: bigint;
  unspent: UnspentView[];
  txDetail: TxDetail | null;
  listTxs: (TxDetail | MoveEntry)[];
  txDetails: TxDetail[];
  sinceHeight: TxDetail[];
  conflicts: string[];
  isMine: boolean;
  keyById: { pubkey: Uint8Array; compressed: boolean; account: string | undefined } | null;
  secret: { secret: Secret; compressed: boolean } | null;
  allKeys: KeyDump[];
  info: { keys: number; txCount: number; externalPubkey: Uint8Array | null };
  sign: { tx: Transaction; errors: InputError[] };
  resend: number;
  blockConnected: null;
  blockDisconnected: null;
  txsAccepted: null;
  txsRemoved: null;
  newAddress: string;
  accountAddress: string;
  importKey: { added: number };
  importKeys: { added: number };
  fund: { tx: Transaction; fee: bigint; changePos: number };
  send: string;
  /** how many transactions the rescan found */
  rescan: number;
  setPubkey: null;
  backup: null;
  walletInfo: WalletInfo;
  signMessage: Uint8Array | null;
  signCC: BuildResult | null;
  unconfirmedBalance: bigint;
  receivedByKey: bigint | null;
  receivedByScriptId: bigint | null;
  rawChangeAddress: string;
  keypoolRefill: number;
  resendNow: string[];
  describe: { level: number; account: string | undefined; redeemScript: Uint8Array | undefined };
  importAddress: null;
  addMultisig: string;
  cleanTxs: { total: number; remaining: number };
  lockedCoins: OutpointRef[];
  lockCoins: true;
  setTxFee: true;
  cryptState: CryptState;
  encryptWallet: null;
  walletPassphrase: null;
  walletPassphraseChange: null;
  walletLock: null;
  accountBalance: bigint;
  balanceAll: bigint;
  listAccounts: AccountTotal[];
  listReceived: ReceivedRow[];
  receivedByAccount: bigint;
  addressesByAccount: string[];
  addressGroupings: GroupedAddress[][];
  setAccount: boolean;
  move: true;
}

// ---- notices -------------------------------------------------------------------------------

/** A wallet transaction entered the mempool or a block (-walletnotify). */
export interface WalletTxNotice {
  type: 'walletTx';
  txid: string;
}

/** The rebroadcast's transactions, for the p2p actor. */
export interface RelayTxs {
  type: 'relayTxs';
  items: RelayItem[];
}

export type WalletNotice = WalletTxNotice | RelayTxs;

export type WalletProtocol = Protocol<WalletRequest, WalletReplies, WalletNotice>;
