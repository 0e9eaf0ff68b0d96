/**
 * The RPC surface at scale (the scale audit): each call an exchange wallet makes whose cost once grew
 * with the wallet, measured per call on a wallet of 10^5 transactions beside the same call on one of
 * 10^3, in the same run (target: ratio ≤ 1.5; no call may cost more because the wallet is bigger,
 * beyond the size of its answer). The answers are the same size at both sizes:
 * - listunspent 1 1: the 10 coins of the tip's block, among 10^3 or 10^5 unspent wallet coins (the
 *   minconf/maxconf window, through the coin book's index by height);
 * - listunspent 0 0: the mempool's coins (none), among the same;
 * - listtransactions "exchange" 10: the 10 receipts of an account's ten keys, the wallet's oldest
 *   transactions, under 10^3 or 10^5 newer ones to other keys (through the account's own transactions);
 * - listtransactions "" 10: the same for ten unlabelled keys' receipts, the others' keys all under
 *   the account "deposits" (through the positions that may hold an entry for "");
 * and, on the same wallets, calls the audit found to cost their answer already and no bench measured:
 * validateaddress, getreceivedbyaddress, getreceivedbyaccount, listaccounts, getbalance "*" 6.
 * The wallets are built in process through the wallet logic (blockConnected), over stub chain store
 * and mempool askers, as bench/wallet-scale.ts builds its own; the figures are the wallet actor's
 * operations behind the methods (the RPC layer adds a constant per entry of the answer). Each figure is
 * CPU time per call (process.cpuUsage: the reads are synchronous), small and large alternated, the best
 * of three rounds each, so a busy machine weighs on both sides alike.
 * `npm run bench -- "rpc at scale"`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hash160, sha256 } from '../src/chain/crypto/hash.js';
import { walletBenchChain } from './fixtures.js';
import { toHex } from '../src/chain/encoding/hex.js';
import { encodeAddress, PUBKEY_ADDRESS } from '../src/chain/address/index.js';
import { devChainParams } from '../src/chain/params/chain-params.js';
import { p2pkhScript } from '../src/chain/script/script.js';
import { Transaction } from '../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../src/chain/tx/input.js';
import { TxOut } from '../src/chain/tx/output.js';
import { Block } from '../src/chain/block/block.js';
import { BlockHeader } from '../src/chain/block/header.js';
import { KeyStore } from '../src/actors/wallet/keystore.js';
import { WalletLogic } from '../src/actors/wallet/logic.js';
import type { Row } from './lib.js';

const params = devChainParams();
const COIN = 100_000_000n;
/** The keys the bulk of the transactions pay, in turn (the same at both sizes: the wallet's transactions are what grows). */
const ROTATION = 1000;
const ACCOUNT = 'exchange';
/** The account the rotation's and the tip's keys are labelled with (so "" holds only its ten oldest receipts). */
const DEPOSITS = 'deposits';

interface Fixture {
  wallet: WalletLogic;
  dir: string;
  /** One of the account's keys (one receipt, the wallet's oldest transactions). */
  keyId: Uint8Array;
}

/** A wallet of `n` + 20 transactions, each leaving its one output unspent: see the file comment. */
async function build(n: number): Promise<Fixture> {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-bench-rpcscale-'));
  const keys = await KeyStore.open(dir, { keypool: ROTATION + 30 });
  const all = keys.all();
  const accountKeys = all.slice(0, 10);
  const tipKeys = all.slice(10, 20);
  const defaultKeys = all.slice(20, 30);
  const rotation = all.slice(30);
  let tip = 1;
  const chain = walletBenchChain(() => tip);
  const mempool = {
    ask: async (body: { op: string }) => {
      if (body.op === 'entries') return [];
      throw new Error(`stub mempool: ${body.op}`);
    },
  } as never;
  const wallet = new WalletLogic({ chain, mempool, keys, dir, params: () => params, now: () => 1_700_000_000 });
  await wallet.load();
  let serial = 0;
  const pay = (to: Uint8Array): Transaction => {
    const tx = Transaction.ofFormat(params.txFormat(tip + 1), 0);
    const s = serial++;
    // An outside coin each: nothing the wallet holds is spent.
    tx.vin.push(new TxIn(new Outpoint(sha256(Uint8Array.of(s & 0xff, (s >> 8) & 0xff, (s >> 16) & 0xff, 77)), 0), new Uint8Array(107).fill(1)));
    tx.vout.push(new TxOut(COIN + BigInt(s), p2pkhScript(hash160(to))));
    return tx;
  };
  const connect = async (txs: Transaction[]) => {
    tip++;
    const header = new BlockHeader();
    header.time = 1_700_000_000 + tip;
    await wallet.write({ op: 'blockConnected', block: new Block(header, txs), txids: txs.map((t) => t.txid()), height: tip });
  };
  // The account's ten receipts and ""'s first (the oldest), then n to the rotation, then the tip's block of ten.
  await connect([...accountKeys, ...defaultKeys].map((k) => pay(k.pubkey)));
  for (let i = 0; i < n; ) {
    const txs: Transaction[] = [];
    for (let j = 0; j < 1000 && i < n; j++, i++) txs.push(pay(rotation[i % rotation.length]!.pubkey));
    await connect(txs);
  }
  await connect(tipKeys.map((k) => pay(k.pubkey)));
  for (const k of accountKeys) await keys.setAccount(k.hex, ACCOUNT);
  for (const k of [...rotation, ...tipKeys]) await keys.setAccount(k.hex, DEPOSITS);
  return { wallet, dir, keyId: hash160(accountKeys[3]!.pubkey) };
}

/** CPU microseconds per call over at least `ms` milliseconds (after a short warm-up). */
function cpuPerCall(f: () => unknown, ms = 400): number {
  for (let i = 0; i < 5; i++) f();
  let n = 0;
  const start = performance.now();
  const cpu = process.cpuUsage();
  while (performance.now() - start < ms || n < 5) {
    f();
    n++;
  }
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / n;
}

function expectSum(got: bigint, what: string): bigint {
  if (got <= 0n) throw new Error(`rpcscale bench: ${what} answered ${got}`);
  return got;
}

function expect(got: unknown[], want: number, what: string): unknown[] {
  if (got.length !== want) throw new Error(`rpcscale bench: ${what} answered ${got.length}, not ${want}`);
  return got;
}

export async function rpcScaleBenchmarks(big = 100_000, small = 1_000): Promise<Row[]> {
  const s = await build(small);
  const l = await build(big);
  const receipts = (out: unknown[], account = ACCOUNT) => out.filter((x) => (x as { received?: { account: string }[] }).received?.some((e) => e.account === account));
  const calls: [string, (fx: Fixture) => unknown][] = [
    ['listunspent 1 1 (the tip block\'s 10 coins)', (fx) => expect(fx.wallet.read({ op: 'unspent', minDepth: 1, maxDepth: 1 }) as unknown[], 10, 'listunspent 1 1')],
    ['listunspent 0 0 (no mempool coins)', (fx) => expect(fx.wallet.read({ op: 'unspent', minDepth: 0, maxDepth: 0 }) as unknown[], 0, 'listunspent 0 0')],
    [`listtransactions "${ACCOUNT}" 10 (its 10, the oldest)`, (fx) => expect(receipts(fx.wallet.read({ op: 'listTxs', count: 10, from: 0, account: ACCOUNT }) as unknown[]), 10, 'listtransactions')],
    ['listtransactions "" 10 (its 10, the oldest)', (fx) => expect(receipts(fx.wallet.read({ op: 'listTxs', count: 10, from: 0, account: '' }) as unknown[], ''), 10, 'listtransactions ""')],
    // Checked by the audit to cost their answer already; measured here at the same sizes.
    ['validateaddress (describe + keyById)', (fx) => [fx.wallet.read({ op: 'describe', script: p2pkhScript(fx.keyId), address: encodeAddress(PUBKEY_ADDRESS, fx.keyId) }), fx.wallet.read({ op: 'keyById', keyId: fx.keyId })]],
    ['getreceivedbyaddress (one receipt)', (fx) => expectSum(fx.wallet.read({ op: 'receivedByKey', keyId: toHex(fx.keyId), minConf: 1 }) as bigint, 'getreceivedbyaddress')],
    [`getreceivedbyaccount "${ACCOUNT}"`, (fx) => fx.wallet.read({ op: 'receivedByAccount', account: ACCOUNT, minConf: 1 })],
    ['listaccounts (three accounts)', (fx) => expect(fx.wallet.read({ op: 'listAccounts', minConf: 1, watchOnly: false }) as unknown[], 3, 'listaccounts')],
    ['getbalance "*" 6', (fx) => fx.wallet.read({ op: 'balance', minConf: 6, untrusted: false })],
  ];
  const rows: Row[] = [];
  try {
    for (const [name, f] of calls) {
      let a = Infinity;
      let b = Infinity;
      for (let r = 0; r < 3; r++) {
        a = Math.min(a, cpuPerCall(() => f(s)));
        b = Math.min(b, cpuPerCall(() => f(l)));
      }
      rows.push({ name: `${name}, ${big.toExponential(0)} wallet txs`, value: b, unit: 'µs cpu', limitName: `the same at ${small.toExponential(0)}`, limit: a, target: { kind: 'max', ratio: 1.5 } });
    }
  } finally {
    for (const fx of [s, l]) {
      await fx.wallet.close();
      rmSync(fx.dir, { recursive: true, force: true });
    }
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { printRows } = await import('./lib.js');
  printRows('RPC at scale (the scale audit)', await rpcScaleBenchmarks(Number(process.argv[2] ?? 100_000)));
}
