/**
 * The chain store's protocol: what it answers (its request bodies and the reply to each), what it
 * announces (blockConnected, blockDisconnected), and the records other actors and the RPC layer see.
 */
import type { AssetFuncid } from '../../chain/assets/opret.js';
import type { Block } from '../../chain/block/block.js';
import type { BlockHeader } from '../../chain/block/header.js';
import type { ChainParams } from '../../chain/params/chain-params.js';
import type { Transaction } from '../../chain/tx/transaction.js';
import type { Coin } from '../../chain/validation/coin.js';
import type { Protocol } from '../../machines/messages.js';

/** An unspent output as the chain knows it (komodod's Coin): one declaration, in src/chain. */
export type { Coin } from '../../chain/validation/coin.js';

// ---- records ---------------------------------------------------------------------------------

/** An outpoint: its txid as displayed (lowercase hex, reversed) and its output index. */
export interface OutputRef {
  txid: string;
  index: number;
}

/** One page of a walk in key order, and the outpoint the next page starts after (null: nothing after it). */
export interface OutputPage<T> {
  outputs: T[];
  next: OutputRef | null;
}

/** A page read from the chain state, with the hash of the tip it was read at (the same tip, the same index). */
export interface TipPage<T> extends OutputPage<T> {
  tip: string;
}

/** An outpoint as a request names it: [txid (display hex), output index]. */
export type Outpoint = [txid: string, n: number];

/** Where a spent output went: komodod's spent index entry. */
export interface SpentInfo {
  txid: string;
  vin: number;
  height: number;
}

export type { AddressType } from '../../chain/address/index-key.js';

/** An entry of komodod's address unspent index (CAddressUnspentKey/Value). */
export interface AddressUnspent {
  /** display hex */
  txid: string;
  index: number;
  value: bigint;
  script: Uint8Array;
  height: number;
  /** created by a coinbase (subject to maturity) */
  coinbase: boolean;
}

/** An entry of komodod's address index (CAddressIndexKey → CAmount): one credit or debit of an address. */
export interface AddressDelta {
  /** display hex */
  txid: string;
  /** the output index (a credit) or the input index (a debit) */
  index: number;
  /** the transaction's position in its block (CAddressIndexKey::txindex) */
  blockindex: number;
  height: number;
  /** positive for an output, negative (the spent output's value) for an input */
  satoshis: bigint;
  spending: boolean;
}

/** A token's creation record (tokeninfo). */
export interface TokenRecord {
  /** display hex */
  tokenid: string;
  /** hex of the opret's origpubkey */
  owner: string;
  name: Uint8Array;
  description: Uint8Array;
  /** NFT data (empty for a fungible token) */
  data: Uint8Array;
  /** Σ IsTokensvout over the create tx's outputs */
  supply: bigint;
  height: number;
}

/** An unspent token output. */
export interface TokenOutput {
  /** display hex */
  txid: string;
  index: number;
  value: bigint;
  script: Uint8Array;
  height: number;
}

/** An open Assets order as AssetOrders lists it: the output and what its transaction's opret says (orderindex.ts). */
export interface AssetOrder {
  /** display hex */
  txid: string;
  index: number;
  funcid: AssetFuncid;
  /** the order output's value */
  value: bigint;
  /** the order transaction's vout[0] value */
  vout0: bigint;
  price: bigint;
  /** internal byte order (zero for a 'c' opret) */
  tokenid: Uint8Array;
  /** internal byte order */
  assetid2: Uint8Array;
  origpubkey: Uint8Array;
}

/** Which orders at an address: all, a token's (tokenid, display hex), or an owner's asks (owner, pubkey hex). */
export interface AssetOrderFilter {
  tokenid?: string;
  owner?: string;
}

/** komodod's value pools of a block or a chain (satoshis). */
export interface PoolValues {
  supply: bigint;
  transparent: bigint;
  sprout: bigint;
  sapling: bigint;
  burned: bigint;
}

/** What consensus needs to know about the block a new one builds on. */
export interface PrevContext {
  height: number;
  hash: string;
  /** Median time past of the previous block. */
  mtp: number;
  /** The nBits the next block must carry. */
  nextBits: number;
}

/** The active tip. */
export interface TipInfo {
  hash: string;
  height: number;
  time: number;
  bits: number;
  chainWork: bigint;
  mtp: number;
}

/** A block index entry (getblockheader's facts). */
export interface EntryInfo {
  hash: string;
  height: number;
  active: boolean;
  /** -1 off the active chain */
  confirmations: number;
  header: BlockHeader;
  chainWork: bigint;
  size: number;
  txCount: number;
  /** transactions in the chain up to and including this block (nChainTx) */
  chainTx: number;
  mtp: number;
  prev: string | null;
  next: string | null;
  failed: boolean;
}

/** A stored block: its entry, bytes, parsed form and txids. */
export interface BlockInfo extends EntryInfo {
  raw: Uint8Array;
  block: Block;
  txids: string[];
}

/** A confirmed transaction and where it is. */
export interface ChainTx {
  tx: Transaction;
  blockHash: string;
  height: number;
  index: number;
  time: number;
  confirmations: number;
}

/** What is known of a block hash (a peer's inv or headers). */
export interface KnownBlock {
  height: number;
  chainWork: bigint;
  active: boolean;
  failed: boolean;
}

/** The tip's part of a mempool view. */
export interface TipView {
  height: number;
  hash: string;
  time: number;
  mtp: number;
  /** The chain parameters in force at that tip (none with the tests' stand-in rules). */
  params: ChainParams | undefined;
}

/**
 * What the mempool needs to judge a transaction against the chain, read in one step: the tip, the
 * coins its inputs name, whether each input's transaction is confirmed, whether the transaction itself
 * has unspent outputs.
 */
export interface ChainView extends TipView {
  coins: (Coin | null)[];
  confirmed: boolean[];
  hasUnspentOutputs: boolean;
}

/** A ChainView's chain part without the tip's: what a ChainReader reads, with the tip it was read at. */
export interface ChainCoins {
  /** The block hash of the committed tip the coins were read at. */
  tip: string;
  coins: (Coin | null)[];
  confirmed: boolean[];
  hasUnspentOutputs: boolean;
}

/**
 * The chain store's committed state read directly, through an LMDB read transaction on its
 * environment (design.md, Storage: the chain store is the only writer, other actors read consistent
 * snapshots). The mempool reads its coins here instead of asking the chain store on every accept;
 * each answer names the tip it was read at, so the reader of it checks that tip against its own and
 * asks the chain store instead when they differ. A type here, in the protocol, so the mempool needs
 * nothing else of the chain store's folder; the composition root opens it (src/node).
 */
export interface ChainReader {
  /** The committed tip's hash, or undefined when the store cannot be read now (not loaded, closed). */
  tip(): string | undefined;
  /**
   * For each transaction (its txid, its inputs' outpoints, its output count): what mempoolView
   * answers, every one read in one read transaction at one tip; undefined when the store cannot be
   * read now, or its tip is not `expectTip` (the caller asks the chain store then).
   */
  coins(expectTip: string, items: readonly { txid: string; outpoints: readonly Outpoint[]; outputs: number }[]): ChainCoins[] | undefined;
}

/** The wallet's coins found by script, with the tip they were read at. */
export interface ScriptCoins {
  height: number;
  hash: string;
  mtp: number;
  coins: { txid: string; n: number; coin: Coin }[];
}

/** A spent index entry with the spent output's value and script (null when its transaction is not indexed). */
export interface SpentOutput extends SpentInfo {
  value: bigint | null;
  script: Uint8Array | null;
}

/** One head of the block tree (getchaintips), komodod's fields. */
export interface ChainTip {
  height: number;
  hash: string;
  /** blocks from the fork with the active chain up to this head (0 on the active chain) */
  branchlen: number;
  status: 'active' | 'invalid' | 'headers-only' | 'valid-fork' | 'valid-headers';
}

/** What submitting a block came to. */
export type SubmitResult =
  | { status: 'connected' | 'stored'; hash: string; height: number }
  | { status: 'duplicate' | 'duplicate-invalid' | 'inconclusive'; hash: string }
  | { status: 'rejected'; hash?: string; rejectCode: number; reason: string; /** the DoS score komodod's state carries (p2p misbehaviour) */ dos?: number };

// ---- requests and replies ------------------------------------------------------------------

export type ChainStoreRequest =
  | { op: 'tip' }
  | { op: 'params' }
  | { op: 'blockHash'; height: number }
  | { op: 'entry'; hash: string }
  | { op: 'block'; hash: string }
  /** A block's entry and bytes, not parsed (a peer's getdata). */
  | { op: 'rawBlock'; hash: string }
  | { op: 'tx'; txid: string }
  // The token registry's reads (tokeninfo, tokenlist, tokenbalance...).
  | { op: 'tokenInfo'; tokenid: string }
  | { op: 'tokenList' }
  | { op: 'tokenOutputs'; tokenid: string; addressHash: string }
  | { op: 'tokenOutputsPage'; tokenid: string; addressHash: string; after?: OutputRef | undefined; limit: number; minValue?: bigint }
  /** Σ of the token's unspent outputs at a CC address (a running total) less those of `spent` that are among them. */
  | { op: 'tokenBalance'; tokenid: string; addressHash: string; spent: Outpoint[] }
  /** The open Assets orders at a CC address (hash160 hex), in address-index order, filtered (orderindex.ts). */
  | { op: 'assetOrders'; addressHash: string; filter: AssetOrderFilter }
  /** Several lookups in one message (the token registry's rounds of missing transactions). */
  | { op: 'txs'; txids: string[] }
  /** Whether each transaction is in the active chain (the tx index only). */
  | { op: 'inChain'; txids: string[] }
  /** pcoinsTip->HaveCoins(txid) for each: the transaction has an unspent output (p2p's AlreadyHave). */
  | { op: 'haveCoins'; txids: string[] }
  /** The mempool's crypto-condition validation context: these transactions and what they read (shallow: no level down). */
  | { op: 'ccContext'; txids: string[]; shallow: string[] }
  /** The active-chain height of each transaction, null when in none (the wallet's load). */
  | { op: 'txHeights'; txids: string[] }
  | { op: 'coins'; outpoints: Outpoint[] }
  | { op: 'spent'; txid: string; n: number }
  /** address: addressKey(type, hash160) of coins.ts */
  | { op: 'addressUnspent'; address: string }
  /** A page of GetAddressUnspent's walk (key order from the cursor `after`, outputs ≥ minValue). */
  | { op: 'addressUnspentPage'; address: string; after?: OutputRef | undefined; limit: number; minValue?: bigint }
  | { op: 'addressBalance'; address: string }
  /** addresses: address keys; GetAddressIndex per address, concatenated in the order asked. */
  | { op: 'addressHistory'; addresses: string[]; start?: number; end?: number }
  /** getaddressbalance's sums of GetAddressIndex per address, added up in the order asked (running totals: one read per address). */
  | { op: 'addressTotals'; addresses: string[] }
  /** GetAddressUnspent per address, concatenated, with the tip they were read at. */
  | { op: 'addressUtxos'; addresses: string[] }
  | { op: 'template' }
  | { op: 'view'; txid: string; outpoints: Outpoint[] }
  /** One view per transaction of a burst, all at the same tip. */
  | { op: 'views'; items: { txid: string; outpoints: Outpoint[] }[] }
  // P2P reads: locators, headers/blocks after a locator, what is known of hashes.
  | { op: 'locator'; from?: string | undefined }
  | { op: 'headersAfter'; locator: string[]; stop: string; max: number }
  | { op: 'known'; hashes: string[] }
  | { op: 'coinsByScript'; scripts: string[]; ccSubScripts?: string[] }
  | { op: 'txsByScript'; scripts: string[] }
  // RPC reads (getrawtransaction, getblock, getblockchaininfo).
  | { op: 'spentMany'; outpoints: Outpoint[] }
  | { op: 'outputsOf'; outpoints: Outpoint[] }
  | { op: 'valuePools'; hash: string }
  | { op: 'bestHeader' }
  | { op: 'staleTx'; txid: string }
  | { op: 'networkHashPS'; lookup: number; height: number }
  /** nVersion of the tip and its ancestors, newest first (SoftForkMajorityDesc's window). */
  | { op: 'recentVersions'; count: number }
  /** Statistics of the UTXO set at the tip (gettxoutsetinfo: one walk of the coins, as komodod's GetStats). */
  | { op: 'utxoStats' }
  /** Every head of the block tree and the active tip, highest first (getchaintips). */
  | { op: 'chainTips' }
  /** komodo_coinsupply at an active-chain height: running totals, one read. */
  | { op: 'coinSupply'; height: number }
  /** CVerifyDB::VerifyDB over the last `depth` blocks at `level` (verifychain). */
  | { op: 'verifyChain'; level: number; depth: number }
  /** getsnapshot's figures and its first `top` addresses by amount (0: all). */
  | { op: 'snapshot'; top: number }
  /** nTime and nBits of the active chain's blocks `from`..`to` (genminingCSV), from the in-memory index. */
  | { op: 'timesAndBits'; from: number; to: number }
  // Writes.
  | { op: 'submitBlock'; raw: Uint8Array }
  | { op: 'invalidateBlock'; hash: string }
  | { op: 'reconsiderBlock'; hash: string };

export interface ChainStoreReplies {
  tip: TipInfo;
  /** null with the tests' stand-in rules (no chain parameters) */
  params: ChainParams | null;
  blockHash: string | null;
  entry: EntryInfo | null;
  block: BlockInfo | null;
  rawBlock: (EntryInfo & { raw: Uint8Array }) | null;
  tx: ChainTx | null;
  tokenInfo: TokenRecord | null;
  tokenList: string[];
  tokenOutputs: TokenOutput[];
  tokenOutputsPage: TipPage<TokenOutput>;
  tokenBalance: bigint;
  assetOrders: AssetOrder[];
  txs: (ChainTx | null)[];
  inChain: boolean[];
  haveCoins: boolean[];
  ccContext: [string, Transaction][];
  txHeights: (number | null)[];
  coins: (Coin | null)[];
  spent: SpentInfo | null;
  addressUnspent: AddressUnspent[];
  addressUnspentPage: TipPage<AddressUnspent>;
  addressBalance: bigint;
  /** null when -addressindex is off */
  addressHistory: { deltas: (AddressDelta & { address: string })[]; tip: { hash: string; height: number }; startHash: string | null; endHash: string | null } | null;
  /** null when -addressindex is off */
  addressTotals: { balance: bigint; received: bigint; tip: { hash: string; height: number } } | null;
  /** null when -addressindex is off */
  addressUtxos: { utxos: (AddressUnspent & { address: string })[]; tip: { hash: string; height: number } } | null;
  template: PrevContext & { time: number };
  view: ChainView;
  views: ChainView[];
  locator: string[];
  headersAfter: { hashes: string[]; headers: BlockHeader[] };
  known: (KnownBlock | null)[];
  coinsByScript: ScriptCoins;
  txsByScript: { txid: string; tx: Transaction; height: number; time: number }[];
  spentMany: (SpentOutput | null)[];
  outputsOf: ({ value: bigint; script: Uint8Array } | null)[];
  valuePools: { delta: PoolValues | null; total: PoolValues | null } | null;
  bestHeader: { hash: string; height: number };
  staleTx: { tx: Transaction; blockHash: string } | null;
  networkHashPS: number;
  recentVersions: number[];
  chainTips: ChainTip[];
  /** null: no block at that height, or one with no totals */
  coinSupply: { supply: bigint; zfunds: bigint; sprout: bigint } | null;
  verifyChain: boolean;
  timesAndBits: { time: number; bits: number }[];
  /** null when -addressindex is off */
  snapshot: { height: number; total: bigint; utxos: bigint; addresses: bigint; ignored: bigint; ccUtxos: bigint; ccTotal: bigint; top: { addr: string; amount: bigint }[] } | null;
  utxoStats: { height: number; bestblock: string; transactions: number; txouts: number; bytesSerialized: number; hashSerialized: string; totalAmount: bigint };
  submitBlock: SubmitResult;
  invalidateBlock: null;
  reconsiderBlock: null;
}

// ---- notices -------------------------------------------------------------------------------

export interface BlockConnected {
  type: 'blockConnected';
  hash: string;
  height: number;
  block: Block;
  txids: string[];
}

export interface BlockDisconnected {
  type: 'blockDisconnected';
  hash: string;
  height: number;
  block: Block;
  txids: string[];
}

/** komodod's NotifyBlockTip: once per activation that moved the tip, naming the new tip (-blocknotify). */
export interface TipChanged {
  type: 'tipChanged';
  hash: string;
  height: number;
  time: number;
}

export type ChainStoreNotice = BlockConnected | BlockDisconnected | TipChanged;

export type ChainStoreProtocol = Protocol<ChainStoreRequest, ChainStoreReplies, ChainStoreNotice>;
