import { Block } from '../../src/chain/block/block.js';
import { BlockHeader } from '../../src/chain/block/header.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { sha256 } from '../../src/chain/crypto/hash.js';
import { SAPLING_TX_VERSION, SAPLING_VERSION_GROUP_ID } from '../../src/chain/consensus/tx.js';
import { devChainParams } from '../../src/chain/params/chain-params.js';
import { KeyStore, type HeldKey } from '../../src/actors/wallet/keystore.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { hash160 } from '../../src/chain/crypto/hash.js';
import { toHex } from '../../src/chain/encoding/hex.js';
import { prng } from './prng.js';
import { p2pkhScript } from '../../src/chain/script/script.js';
import { WalletLogic } from '../../src/actors/wallet/logic.js';

/**
 * The random wallet model the wallet's brute-force tests walk (test/actors/wallet-accounts.test.ts,
 * wallet-since.test.ts): a chain of blocks and a mempool of wallet transactions, and the steps that
 * change them, each told to a WalletLogic as the node tells it (blockConnected, blockDisconnected,
 * txsAccepted, txsRemoved). The chain store and the mempool the wallet asks are answered from the
 * model. A test keeps its own transaction maker, its own choice of step and its own checks; the
 * model draws its random numbers in the order the tests drew them before it was shared, so a seed
 * walks the same steps.
 */
/** An empty Sapling (v4) transaction, as the models' makers start each one. */
export function saplingTx(): Transaction {
  const t = new Transaction();
  t.overwintered = true;
  t.version = SAPLING_TX_VERSION;
  t.versionGroupId = SAPLING_VERSION_GROUP_ID;
  return t;
}

/** The txid of a coin from outside the wallet for the model's `serial`-th transaction (`salt` keeps each test's own). */
export function outsideTxid(serial: number, salt: number): Uint8Array {
  return sha256(Uint8Array.of(serial & 0xff, (serial >> 8) & 0xff, salt));
}

export interface WalletModelOptions {
  dir: string;
  keys: KeyStore;
  /** The walk's random integer below n. */
  r: (n: number) => number;
  /** A new wallet transaction: one paying the wallet, or spending `spend`'s output 0 to someone else. */
  make: (spend?: Transaction) => Transaction;
  /** Does this new block transaction pay the wallet (a later one may spend it)? */
  pays: (t: Transaction) => boolean;
  /** The paying transaction a new block transaction spends, if any (drawn once per new transaction). */
  spendFor: (paying: readonly Transaction[], known: readonly Transaction[]) => Transaction | undefined;
  /** What the mempool answers the wallet's load: the model's transactions, or none. */
  mempoolOnLoad: 'model' | 'none';
}

/**
 * The accounts tests' model: each new transaction pays one of `held` (P2PKH, drawn at random) from a
 * coin outside the wallet, or spends a paying transaction no wallet transaction spends yet (one new
 * block transaction in `spendOneIn`) to `other`. `salt` keeps the test's outside txids its own.
 */
export function payingModel(o: { dir: string; keys: KeyStore; held: readonly HeldKey[]; other: Uint8Array; r: (n: number) => number; salt: number; spendOneIn: number }): {
  options: WalletModelOptions;
  /** The held key a script pays, if any. */
  keyOfScript: (s: Uint8Array) => HeldKey | undefined;
} {
  const { held, other, r } = o;
  let serial = 0;
  const make = (spend?: Transaction): Transaction => {
    const t = saplingTx();
    const prev = spend ? spend.hash() : outsideTxid(serial, o.salt);
    serial++;
    t.vin.push(new TxIn(new Outpoint(prev, 0)));
    t.vout.push(new TxOut(spend ? spend.vout[0]!.value - 100n : 1000n + BigInt(serial), spend ? other : p2pkhScript(hash160(held[r(held.length)]!.pubkey))));
    return t;
  };
  const keyOfScript = (s: Uint8Array) => held.find((k) => toHex(p2pkhScript(hash160(k.pubkey))) === toHex(s));
  const options: WalletModelOptions = {
    dir: o.dir,
    keys: o.keys,
    r,
    make,
    pays: (t) => keyOfScript(t.vout[0]!.script) !== undefined,
    spendFor: (paying, known) => {
      const spendable = paying.filter((p) => !known.some((k) => k.vin[0]!.prevout.txid() === p.txid()));
      return spendable.length > 0 && r(o.spendOneIn) === 0 ? spendable[r(spendable.length)] : undefined;
    },
    mempoolOnLoad: 'model',
  };
  return { options, keyOfScript };
}

export class WalletModel {
  /** The active chain's blocks (index = height - 1). */
  readonly chainBlocks: Transaction[][] = [];
  readonly mempool = new Map<string, Transaction>();
  /** txid → the height of its active-chain block (absent: in none). */
  readonly placed = new Map<string, number>();
  /** Every wallet transaction made. */
  readonly known: Transaction[] = [];
  /** The wallet transactions whose output 0 pays the wallet (a spend of one is a wallet transaction too). */
  readonly paying: Transaction[] = [];
  disconnects = 0;
  wallet!: WalletLogic;

  constructor(private readonly o: WalletModelOptions) {}

  /** The height of the block holding txid in the active chain, 0 when in none. */
  heightOf(txid: string): number {
    return this.placed.get(txid) ?? 0;
  }

  get height(): number {
    return this.chainBlocks.length;
  }

  /** A new WalletLogic over the model's chain and mempool, loaded (a first start, or a reload from the wallet's files). */
  async open(): Promise<WalletLogic> {
    const chain = {
      ask: async (b: { op: string; txids?: string[] }) => {
        if (b.op === 'coinsByScript') return { height: this.height, hash: '00'.repeat(32), mtp: 0, coins: [] };
        // A stale tip: the load re-accepts nothing (initial download).
        if (b.op === 'tip') return { height: this.height, time: 1 };
        if (b.op === 'txHeights') return b.txids!.map((t) => this.heightOf(t) || null);
        if (b.op === 'inChain') return b.txids!.map((t) => this.heightOf(t) > 0);
        return null;
      },
    } as never;
    const entries = () => (this.o.mempoolOnLoad === 'model' ? [...this.mempool].map(([txid, tx]) => ({ txid, tx })) : []);
    const mempool = { ask: async (b: { op: string }) => (b.op === 'entries' ? entries() : null) } as never;
    this.wallet = new WalletLogic({ chain, mempool, keys: this.o.keys, dir: this.o.dir, params: () => devChainParams(), now: () => 1_700_000_000 });
    await this.wallet.load();
    return this.wallet;
  }

  /** A block: some mempool transactions (each with even odds) and up to two new ones. */
  async connectBlock(): Promise<void> {
    const { r } = this.o;
    const txs = [...this.mempool.values()].filter(() => r(2) === 0);
    for (let i = r(3); i > 0; i--) {
      const t = this.o.make(this.o.spendFor(this.paying, this.known));
      txs.push(t);
      this.known.push(t);
      if (this.o.pays(t)) this.paying.push(t);
    }
    for (const t of txs) this.mempool.delete(t.txid());
    this.chainBlocks.push(txs);
    for (const t of txs) this.placed.set(t.txid(), this.height);
    await this.wallet.write({ op: 'blockConnected', block: new Block(new BlockHeader(), txs), txids: txs.map((t) => t.txid()), height: this.height });
  }

  /** The tip disconnected: some of its transactions return to the mempool, the others are left in no block. */
  async disconnectTip(): Promise<void> {
    const { r } = this.o;
    const txs = this.chainBlocks.pop()!;
    for (const t of txs) this.placed.delete(t.txid());
    this.disconnects++;
    await this.wallet.write({ op: 'blockDisconnected', txids: txs.map((t) => t.txid()) });
    const back = txs.filter(() => r(2) === 0);
    for (const t of back) this.mempool.set(t.txid(), t);
    if (back.length > 0) await this.wallet.write({ op: 'txsAccepted', items: back.map((t) => ({ txid: t.txid(), tx: t })) });
  }

  /** A new transaction paying the wallet enters the mempool. */
  async acceptNew(): Promise<void> {
    const t = this.o.make();
    this.known.push(t);
    this.paying.push(t);
    this.mempool.set(t.txid(), t);
    await this.wallet.write({ op: 'txsAccepted', items: [{ txid: t.txid(), tx: t }] });
  }

  /** A mempool transaction leaves it (expiry, eviction, a conflict): none when the mempool is empty. */
  async removeFromMempool(): Promise<void> {
    if (this.mempool.size === 0) return;
    const txid = [...this.mempool.keys()][this.o.r(this.mempool.size)]!;
    this.mempool.delete(txid);
    await this.wallet.write({ op: 'txsRemoved', txids: [txid] });
  }
}

/**
 * The accounts tests' start: a key store in `dir` (its node key made) holding one pool key for each
 * of "alice", "bob", "" and no account, a draw `r` from `seed`, and a WalletModel over payingModel.
 */
export async function accountsModel(o: { dir: string; seed: number; other: Uint8Array; salt: number; spendOneIn: number }): Promise<{
  keys: KeyStore;
  held: HeldKey[];
  r: (n: number) => number;
  m: WalletModel;
  keyOfScript: (s: Uint8Array) => HeldKey | undefined;
}> {
  const rand = prng(o.seed);
  const r = (n: number) => Math.floor(rand() * n);
  const keys = await KeyStore.open(o.dir, { keypool: 5 });
  await keys.nodeKey();
  const held: HeldKey[] = [];
  for (const account of ['alice', 'bob', '', undefined]) held.push((await keys.takePoolKey(account)) as HeldKey);
  const { options, keyOfScript } = payingModel({ dir: o.dir, keys, held, other: o.other, r, salt: o.salt, spendOneIn: o.spendOneIn });
  return { keys, held, r, m: new WalletModel(options), keyOfScript };
}
