/**
 * The chain store's running totals (the scale audit: "no call may cost more because the chain is
 * bigger, beyond the size of its answer"), each figure beside its limit in the same run:
 * - getaddressbalance (the RPC handler of src/rpc/methods/address.ts over ChainIndexes in LMDB, in
 *   process, its chain-store read answered as ChainStoreLogic answers addressTotals) for an address
 *   with 10^5 address-history entries against one with 10^3: per call, ratio ≤ 1.5;
 * - tokenbalance's chain-store answer (ChainStoreLogic's tokenBalance: the holder's running total less
 *   the values of the outpoints the mempool spends, two here) for a holder with 10^5 token outputs of
 *   one token against one with 10^3: per call, ratio ≤ 1.5.
 * Both histories are built by connecting blocks (the token outputs by TokenIndex.connect over
 * transfers the Tokens validator accepts; their signatures are not what the index reads).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hash160 } from '../src/chain/crypto/hash.js';
import { toHex } from '../src/chain/encoding/hex.js';
import { publicKeyFromPrivate } from '../src/chain/crypto/secp256k1.js';
import { encodeAddress, PUBKEY_ADDRESS } from '../src/chain/address/index.js';
import { p2pkhScript, p2pkScript } from '../src/chain/script/script.js';
import { parsePayToCryptoCondition } from '../src/chain/script/standard.js';
import { Transaction } from '../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../src/chain/tx/input.js';
import { TxOut } from '../src/chain/tx/output.js';
import { buildTokenCreate, buildTokenTransfer, tokensCC1Script, type SpendableCoin } from '../src/chain/tokens/index.js';
import { ChainDb } from '../src/actors/chainstore/chaindb.js';
import { ChainIndexes } from '../src/actors/chainstore/chainstate.js';
import { TokenIndex } from '../src/actors/chainstore/tokenindex.js';
import type { NodeServices } from '../src/actors/protocol.js';
import { addressMethods } from '../src/rpc/methods/address.js';
import type { RpcContext } from '../src/rpc/table.js';
import { opsPerSecond, opsPerSecondAsync, roundsUntilSteady, type Row } from './lib.js';

const SMALL = 1_000;
const LARGE = 100_000;
const fakeHash = (): string => toHex(randomBytes(32));

function tempDb() {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-bench-totals-'));
  const db = ChainDb.open(join(dir, 'chaindb'));
  return {
    db,
    close: async () => {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function coinbaseLike(outs: TxOut[]): Transaction {
  const tx = new Transaction();
  tx.vin.push(new TxIn(Outpoint.null(), randomBytes(8), 0xffffffff));
  tx.vout = outs;
  return tx;
}

async function addressRow(): Promise<Row> {
  const t = tempDb();
  const ix = new ChainIndexes(t.db, true);
  const small = hash160(randomBytes(33));
  const large = hash160(randomBytes(33));
  // 100 blocks of 1,000 transactions: every one pays `large` (10^5 history entries), every 100th `small`
  // too (10^3); each spends the previous block's output of the same slot, a debit in both histories.
  let prev: { txid: string; n: number }[] = [];
  for (let b = 0; b < 100; b++) {
    const txs: Transaction[] = [];
    const next: { txid: string; n: number }[] = [];
    for (let i = 0; i < 1000; i++) {
      const outs = [new TxOut(1000n + BigInt(i), p2pkhScript(large))];
      if (i % 100 === 0) outs.push(new TxOut(500n, p2pkhScript(small)));
      const tx = coinbaseLike(outs);
      const p = prev[i];
      if (p && b % 2 === 1) tx.vin = [new TxIn(new Outpoint(Uint8Array.from(Buffer.from(p.txid, 'hex')).reverse(), p.n), new Uint8Array(0), 0xffffffff)];
      txs.push(tx);
      next.push({ txid: tx.txid(), n: 0 });
    }
    t.db.write(() => ix.connect(txs, txs.map((x) => x.txid()), fakeHash(), b + 1));
    prev = next;
  }
  const keyOf = (h: Uint8Array) => `1:${toHex(h)}`;
  if (ix.historyAt(keyOf(large)).length < LARGE || ix.historyAt(keyOf(small)).length < SMALL) throw new Error('bench setup: history sizes');
  // The chain store's answer to addressTotals (ChainStoreLogic.addressTotals), in process.
  const tip = { hash: '00'.repeat(32), height: 100 };
  const node = {
    chainStore: {
      ask: async (body: { op: string; addresses: string[] }) => {
        if (body.op !== 'addressTotals') throw new Error(body.op);
        let balance = 0n;
        let received = 0n;
        for (const a of body.addresses) {
          const x = ix.historyTotalsAt(a);
          balance += x.balance;
          received += x.received;
        }
        return { balance, received, tip };
      },
    },
  } as unknown as NodeServices;
  const method = addressMethods(node).find((m) => m.name === 'getaddressbalance')!;
  const ctx = {} as RpcContext;
  const call = (h: Uint8Array) => async () => void (await method.handler([encodeAddress(PUBKEY_ADDRESS, h)], ctx));
  let s = 0;
  let l = 0;
  // Alternated, each side first in turn, the best of each kept (bench/lib.ts's convention).
  let turn = 0;
  const rounds = await roundsUntilSteady(async () => {
    const measureL = async () => (l = Math.max(l, await opsPerSecondAsync(call(large), 400)));
    const measureS = async () => (s = Math.max(s, await opsPerSecondAsync(call(small), 400)));
    if (turn++ % 2 === 0) await measureL().then(measureS);
    else await measureS().then(measureL);
    return [l, s];
  }, { min: 6, max: 20 });
  await t.close();
  return { name: `getaddressbalance: per call, 10^5 history entries (${rounds} rounds)`, value: 1e6 / l, unit: 'µs', limitName: 'per call, 10^3 entries', limit: 1e6 / s, target: { kind: 'max', ratio: 1.5 } };
}

const KEY_A = Uint8Array.from(Buffer.alloc(32, 0x11));
const PK_A = publicKeyFromPrivate(KEY_A, true);
const CTX = { nextHeight: 200, activation: { overwinter: 61, sapling: 61 } };
const coin = (tx: Transaction, n: number): SpendableCoin => ({ txid: tx.hash(), vout: n, value: tx.vout[n]!.value, script: tx.vout[n]!.script });
const holderHash = (pk: Uint8Array) => toHex(hash160(parsePayToCryptoCondition(tokensCC1Script(0xf2, 0, pk))!.ccSubScript));

async function tokenRow(): Promise<Row> {
  const t = tempDb();
  const ix = new TokenIndex(t.db);
  const pkSmall = publicKeyFromPrivate(randomBytes(32), true);
  const pkLarge = publicKeyFromPrivate(randomBytes(32), true);
  const known = new Map<string, Transaction>();
  let height = 0;
  const connect = (txs: Transaction[]) => {
    for (const x of txs) known.set(x.txid(), x);
    t.db.write(() => ix.connect(txs, txs.map((x) => x.txid()), fakeHash(), ++height, (id) => known.get(id)));
  };
  const fund = coinbaseLike(Array.from({ length: 110 }, () => new TxOut(1_000_000_000n, p2pkScript(PK_A))));
  const create = buildTokenCreate({ ...CTX, privateKey: KEY_A, name: 'BENCH', description: '', supply: 10_000_000n, coins: [coin(fund, 0)] });
  if (!create.ok) throw new Error(create.error);
  connect([fund, create.tx]);
  const tokenid = create.tx.hash();
  // Transfers of 1,000 units each from A's change, their one destination output made 1,000 outputs of
  // one unit (the same script, so the same validation): 100 to the large holder, 1 to the small one.
  let change = coin(create.tx, 1);
  for (let k = 0; k < 101; k++) {
    const dest = k === 0 ? pkSmall : pkLarge;
    const r = buildTokenTransfer({ ...CTX, privateKey: KEY_A, tokenid, destPubkey: dest, amount: 1000n, coins: [coin(fund, k + 1)], tokenCoins: [change] });
    if (!r.ok) throw new Error(r.error);
    const tx = r.tx;
    const [to, ...rest] = tx.vout;
    tx.vout = [...Array.from({ length: 1000 }, () => new TxOut(1n, to!.script)), ...rest];
    connect([tx]);
    change = coin(tx, 1000);
  }
  const id = create.tx.txid();
  const small = holderHash(pkSmall);
  const large = holderHash(pkLarge);
  const outsSmall = ix.outputsAt(id, small);
  const outsLarge = ix.outputsAt(id, large);
  if (outsSmall.length !== SMALL || outsLarge.length !== LARGE) throw new Error(`bench setup: ${outsSmall.length} and ${outsLarge.length} token outputs`);
  // Two of each holder's outputs spent in the mempool, as tokenbalance asks.
  const spentOf = (outs: typeof outsSmall): [string, number][] => [outs[7]!, outs[outs.length - 3]!].map((o) => [o.txid, o.index]);
  const spentSmall = spentOf(outsSmall);
  const spentLarge = spentOf(outsLarge);
  // ChainStoreLogic's tokenBalance.
  const answer = (holder: string, spent: [string, number][]) => () => {
    let b = ix.totalAt(id, holder);
    for (const v of ix.valuesAt(id, holder, spent)) b -= v;
    if (b <= 0n) throw new Error('bench: empty balance');
  };
  let s = 0;
  let l = 0;
  let turn = 0;
  const rounds = await roundsUntilSteady(() => {
    const measureL = () => (l = Math.max(l, opsPerSecond(answer(large, spentLarge), 400)));
    const measureS = () => (s = Math.max(s, opsPerSecond(answer(small, spentSmall), 400)));
    if (turn++ % 2 === 0) measureL(), measureS();
    else measureS(), measureL();
    return [l, s];
  }, { min: 6, max: 20 });
  await t.close();
  return { name: `tokenbalance (chain store): per call, 10^5 token outputs of the holder (${rounds} rounds)`, value: 1e6 / l, unit: 'µs', limitName: 'per call, 10^3 outputs', limit: 1e6 / s, target: { kind: 'max', ratio: 1.5 } };
}

export async function totalsBenchmarks(): Promise<Row[]> {
  return [await addressRow(), await tokenRow()];
}
