/**
 * The wallet at exchange scale (issue: wallet at scale): each call's cost on a wallet of 10^5 keys
 * and 10^5 transactions beside the same call on one of 100 keys and 100 transactions, in the same
 * run (target: ratio ≤ 1.5), and the heap each wallet transaction takes (target: under 2 KB).
 *
 * The wallets are built in process through the wallet logic itself, over stub chain store and
 * mempool askers, with synthetic blocks: transaction i spends transaction i-1's wallet output and
 * pays a wallet key again (a history that is almost all spent, as an exchange's hot wallet), and
 * the first 20 also leave a coin unspent, so sendtoaddress selects from the same 21 spendable coins
 * at both sizes while the history holds N transactions (selection is O(spendable coins), which the
 * issue allows; the fair comparison holds them equal). The calls are the wallet actor's operations behind the
 * RPC methods (getnewaddress → newAddress, importprivkey with rescan false → importKey, getbalance →
 * balance, listunspent for one address → unspent, gettransaction → txDetail, listtransactions "*"
 * 10 → listTxs, listsinceblock from the block below a last block of ten wallet transactions →
 * sinceHeight, getbalance "exchange" with ten keys' coins in that account → balance with an account,
 * sendtoaddress → send); the RPC layer adds a constant per call on top (listsinceblock: the depth
 * of each transaction of the answer).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { hash160, sha256 } from '../src/chain/crypto/hash.js';
import { walletBenchChain } from './fixtures.js';
import { selectSecp256k1Backend } from '../src/actors/verify/sig-backend.js';
import { toHex } from '../src/chain/encoding/hex.js';
import { devChainParams } from '../src/chain/params/chain-params.js';
import { p2pkhScript } from '../src/chain/script/script.js';
import { Transaction } from '../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../src/chain/tx/input.js';
import { TxOut } from '../src/chain/tx/output.js';
import { Block } from '../src/chain/block/block.js';
import { BlockHeader } from '../src/chain/block/header.js';
import { KeyStore } from '../src/actors/wallet/keystore.js';
import { WalletLogic } from '../src/actors/wallet/logic.js';
import { Secret } from '../src/chain/crypto/secret.js';
import type { Row } from './lib.js';

const params = devChainParams();
const COIN = 100_000_000n;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heap(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

interface Fixture {
  wallet: WalletLogic;
  dir: string;
  someTxid: string;
  someAddressId: string;
  bytesPerTx: number;
  /** listsinceblock's block: the one before the last block of ten wallet transactions. */
  sinceHeight: number;
}

/** The account of ten keys holding coins (getbalance "exchange"). */
const ACCOUNT = 'exchange';

/** `foreign`: each transaction also pays an address outside the wallet (a send's payee), a distinct one each. */
async function build(n: number, foreign = false): Promise<Fixture> {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-bench-wscale-'));
  // n keys: the pool topped up to -keypool + 1 in one write.
  const keys = await KeyStore.open(dir, { keypool: n - 1 });
  const all = keys.all();
  const mempoolTxs: { txid: string; tx: Transaction }[] = [];
  let tip = 1;
  const chain = walletBenchChain(() => tip);
  const mempool = {
    ask: async (body: { op: string; raw?: Uint8Array }) => {
      if (body.op === 'entries') return [];
      if (body.op === 'accept') {
        const tx = Transaction.fromRaw(body.raw!);
        mempoolTxs.push({ txid: tx.txid(), tx });
        return tx.txid();
      }
      throw new Error(`stub mempool: ${body.op}`);
    },
  } as never;
  const wallet = new WalletLogic({ chain, mempool, keys, dir, params: () => params, now: () => 1_700_000_000 });
  await wallet.load();
  const before = heap();
  const outside = sha256(Uint8Array.of(1, 2, 3));
  let prev: { txid: Uint8Array; n: number } = { txid: outside, n: 0 };
  let someTxid = '';
  const perBlock = 1000;
  for (let i = 0; i < n; ) {
    const txs: Transaction[] = [];
    const coinbase = Transaction.ofFormat(params.txFormat(tip + 1), 0);
    coinbase.vin.push(new TxIn(new Outpoint(new Uint8Array(32), 0xffffffff), Uint8Array.of(1, tip & 0xff, (tip >> 8) & 0xff, 0)));
    coinbase.vout.push(new TxOut(COIN, p2pkhScript(hash160(sha256(Uint8Array.of(9))))));
    txs.push(coinbase);
    for (let j = 0; j < perBlock && i < n; j++, i++) {
      const tx = Transaction.ofFormat(params.txFormat(tip + 1), 0);
      tx.vin.push(new TxIn(new Outpoint(prev.txid, prev.n), new Uint8Array(107).fill(1)));
      const k = all[i % all.length]!;
      tx.vout.push(new TxOut(1000n * COIN - BigInt(i) * 10_000n, p2pkhScript(hash160(k.pubkey))));
      if (i < 20) tx.vout.push(new TxOut(COIN, p2pkhScript(hash160(all[(i * 7) % all.length]!.pubkey))));
      if (foreign) tx.vout.push(new TxOut(COIN / 10n, p2pkhScript(Uint8Array.of(0xfe, i & 0xff, (i >> 8) & 0xff, (i >> 16) & 0xff, ...new Uint8Array(16)))));
      txs.push(tx);
      prev = { txid: tx.hash(), n: 0 };
    }
    tip++;
    const header = new BlockHeader();
    header.time = 1_700_000_000 + tip;
    const txids = txs.map((t) => t.txid());
    someTxid = txids[Math.floor(txids.length / 2)]!;
    await wallet.write({ op: 'blockConnected', block: new Block(header, txs), txids, height: tip });
  }
  // A last block of ten wallet transactions: listsinceblock from the block below it answers those ten.
  const sinceHeight = tip;
  {
    const txs: Transaction[] = [];
    for (let j = 0; j < 10; j++) {
      const tx = Transaction.ofFormat(params.txFormat(tip + 1), 0);
      tx.vin.push(new TxIn(new Outpoint(prev.txid, prev.n), new Uint8Array(107).fill(1)));
      tx.vout.push(new TxOut(COIN, p2pkhScript(hash160(all[j % all.length]!.pubkey))));
      txs.push(tx);
      prev = { txid: tx.hash(), n: 0 };
    }
    tip++;
    await wallet.write({ op: 'blockConnected', block: new Block(new BlockHeader(), txs), txids: txs.map((t) => t.txid()), height: tip });
  }
  // Confirm the last block's coins.
  for (let d = 0; d < 2; d++) {
    tip++;
    await wallet.write({ op: 'blockConnected', block: new Block(new BlockHeader(), []), txids: [], height: tip });
  }
  const bytesPerTx = (heap() - before) / n;
  void mempoolTxs;
  // Ten of the keys holding the unspent coins go to one account (SetAddressBook: their coins move with them).
  for (let i = 0; i < 10; i++) await keys.setAccount(all[(i * 7) % all.length]!.hex, ACCOUNT);
  return { wallet, dir, someTxid, someAddressId: toHex(hash160(all[(7 * 7) % all.length]!.pubkey)), bytesPerTx, sinceHeight };
}

/** listsinceblock's wallet part: the transactions after the block (checked to be the ten). */
function sinceTen(fx: Fixture): unknown {
  const out = fx.wallet.read({ op: 'sinceHeight', height: fx.sinceHeight }) as unknown[];
  if (out.length !== 10) throw new Error(`listsinceblock bench: ${out.length} transactions, not 10`);
  return out;
}

/** Mean milliseconds per call over at least `ms` milliseconds (after a short warm-up). */
async function cost(f: () => Promise<unknown> | unknown, ms = 600): Promise<number> {
  for (let i = 0; i < 5; i++) await f();
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < ms || n < 5) {
    await f();
    n++;
  }
  return (performance.now() - start) / n;
}

export async function walletScaleBenchmarks(big = 100_000): Promise<Row[]> {
  selectSecp256k1Backend('auto');
  const small = await build(100);
  const large = await build(big);
  const calls: [string, (fx: Fixture) => Promise<unknown> | unknown][] = [
    ['getnewaddress', (fx) => fx.wallet.write({ op: 'newAddress', account: '' })],
    ['importprivkey (rescan false)', (fx) => fx.wallet.write({ op: 'importKey', secret: new Secret(new Uint8Array(randomBytes(32))), compressed: true, label: '', rescan: false })],
    ['getbalance', (fx) => fx.wallet.read({ op: 'balance', minConf: 0, untrusted: false })],
    ['listunspent, one address', (fx) => fx.wallet.read({ op: 'unspent', minDepth: 1, maxDepth: 9999999, addresses: [{ idHex: fx.someAddressId }] })],
    ['gettransaction', (fx) => fx.wallet.read({ op: 'txDetail', txid: fx.someTxid, hex: true })],
    ['listtransactions "*" 10', (fx) => fx.wallet.read({ op: 'listTxs', count: 10, from: 0, account: '*' })],
    ['listsinceblock, a block near the tip (10 txs)', (fx) => sinceTen(fx)],
    [`getbalance "${ACCOUNT}" (10 keys' coins)`, (fx) => fx.wallet.read({ op: 'balance', minConf: 1, account: ACCOUNT, untrusted: false })],
    ['sendtoaddress', (fx) => fx.wallet.write({ op: 'send', recipients: [{ script: p2pkhScript(new Uint8Array(20).fill(5)), value: COIN / 100n, subtractFee: false }], mapValue: {} })],
  ];
  const rows: Row[] = [];
  try {
    for (const [name, f] of calls) {
      // Alternated, the best of three each, so a slow spell of the machine falls on both sides.
      let s = Infinity;
      let l = Infinity;
      for (let r = 0; r < 3; r++) {
        s = Math.min(s, await cost(() => f(small)));
        l = Math.min(l, await cost(() => f(large)));
      }
      rows.push({ name: `${name}, 10^5 keys/txs`, value: l, unit: 'ms', limitName: 'the same at 100', limit: s, target: { kind: 'max', ratio: 1.5 } });
    }
    rows.push({ name: 'wallet heap per transaction, 10^5 txs', value: large.bytesPerTx, unit: 'bytes', limitName: '2 KB', limit: 2048, target: { kind: 'max', ratio: 1 } });
    // A wallet's sends pay someone else: what that foreign output costs the wallet beside its own.
    const paying = await build(big, true);
    rmSync(paying.dir, { recursive: true, force: true });
    rows.push({ name: 'wallet heap per transaction also paying a foreign address, 10^5 txs', value: paying.bytesPerTx, unit: 'bytes', limitName: '2 KB', limit: 2048, target: { kind: 'max', ratio: 1 } });
  } finally {
    for (const fx of [small, large]) rmSync(fx.dir, { recursive: true, force: true });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { printRows } = await import('./lib.js');
  printRows('wallet at scale', await walletScaleBenchmarks(Number(process.argv[2] ?? 100_000)));
}
