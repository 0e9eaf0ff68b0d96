/**
 * The address index's benchmarks (issue 11, Benchmarks), each figure beside its limit in the same run:
 * - getaddressutxos and getaddressbalance (the RPC handlers of src/rpc/methods/address.ts over the
 *   chain store's ChainIndexes in LMDB, in process) for an address with 10,000 outputs against one with 10,
 *   on a chain of 10^5 transactions: the per-output cost must stay flat (ratio ≤ 1.5);
 * - connecting blocks into ChainIndexes with the address history index on against off (≤ 1.3×).
 *   This is the index bookkeeping alone (no script validation), the harshest form of the ratio; the
 *   unspent address index is kept either way (the token RPCs read it).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hash160 } from '../src/chain/crypto/hash.js';
import { toHex } from '../src/chain/encoding/hex.js';
import { encodeAddress, PUBKEY_ADDRESS } from '../src/chain/address/index.js';
import { p2pkhScript } from '../src/chain/script/script.js';
import { Transaction } from '../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../src/chain/tx/input.js';
import { TxOut } from '../src/chain/tx/output.js';
import { addressKey } from '../src/chain/address/index-key.js';
import { ChainDb } from '../src/actors/chainstore/chaindb.js';
import { ChainIndexes } from '../src/actors/chainstore/chainstate.js';
import type { NodeServices } from '../src/actors/protocol.js';
import { addressMethods } from '../src/rpc/methods/address.js';
import type { RpcContext } from '../src/rpc/table.js';
import { opsPerSecondAsync, roundsUntilSteady, type Row } from './lib.js';

const fakeTxid = (): string => toHex(randomBytes(32));

/** The chain store's indexes on a temporary LMDB environment; each block connects in its own write transaction, as in the chain store. */
function tempIndexes(addressIndex: boolean) {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-bench-ix-'));
  const db = ChainDb.open(join(dir, 'chaindb'));
  const ix = new ChainIndexes(db, addressIndex);
  return {
    ix,
    connect: (txs: Transaction[], txids: string[], height: number) => db.write(() => ix.connect(txs, txids, fakeTxid(), height)),
    close: async () => {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function coinbaseLike(outs: TxOut[]): Transaction {
  const tx = new Transaction();
  tx.vin.push(new TxIn(Outpoint.null(), Uint8Array.of(0x01, 0x01), 0xffffffff));
  tx.vout = outs;
  return tx;
}

function spendOf(txid: string, n: number, outs: TxOut[]): Transaction {
  const tx = new Transaction();
  tx.vin.push(new TxIn(new Outpoint(Uint8Array.from(Buffer.from(txid, 'hex')).reverse(), n), new Uint8Array(0), 0xffffffff));
  tx.vout = outs;
  return tx;
}

/** A node whose chain store answers the address reads from `ix` as ChainStoreLogic.read does. */
function nodeOver(ix: ChainIndexes): NodeServices {
  const tip = { hash: '00'.repeat(32), height: 100 };
  const chain = {
    ask: async (body: { op: string; addresses: string[]; start?: number; end?: number }) => {
      if (body.op === 'addressUtxos') return { utxos: body.addresses.flatMap((a) => ix.unspentAt(a).map((u) => ({ ...u, address: a }))), tip };
      if (body.op === 'addressTotals') {
        // ChainStoreLogic.addressTotals: each listed address's running totals, added up.
        const sum = { balance: 0n, received: 0n };
        for (const a of body.addresses) {
          const x = ix.historyTotalsAt(a);
          sum.balance += x.balance;
          sum.received += x.received;
        }
        return { ...sum, tip };
      }
      if (body.op === 'addressHistory') {
        return { deltas: body.addresses.flatMap((a) => ix.historyAt(a, body.start ?? 0, body.end ?? 0).map((d) => ({ ...d, address: a }))), tip, startHash: null, endHash: null };
      }
      throw new Error(body.op);
    },
  };
  return { chainStore: chain } as unknown as NodeServices;
}

async function lookupBench(): Promise<Row[]> {
  const t = tempIndexes(true);
  const ix = t.ix;
  const small = hash160(randomBytes(33));
  const big = hash160(randomBytes(33));
  const other = (): Uint8Array => p2pkhScript(hash160(randomBytes(33)));
  // 10^5 transactions in 100 blocks of 1,000: 10 pay `small`, 10,000 pay `big`, the rest elsewhere.
  let paidSmall = 0;
  let paidBig = 0;
  for (let b = 0; b < 100; b++) {
    const txs: Transaction[] = [];
    const txids: string[] = [];
    for (let i = 0; i < 1000; i++) {
      const k = b * 1000 + i;
      let script = other();
      if (k % 10 === 3 && paidBig < 10_000) (script = p2pkhScript(big)), paidBig++;
      else if (k % 9973 === 5 && paidSmall < 10) (script = p2pkhScript(small)), paidSmall++;
      txs.push(coinbaseLike([new TxOut(1000n + BigInt(k), script)]));
      txids.push(fakeTxid());
    }
    t.connect(txs, txids, b + 1);
  }
  if (paidSmall !== 10 || paidBig !== 10_000) throw new Error(`bench setup: ${paidSmall}/${paidBig}`);
  const methods = new Map(addressMethods(nodeOver(ix)).map((m) => [m.name, m]));
  const ctx = {} as RpcContext;
  const call = (name: string, addr: Uint8Array) => methods.get(name)!.handler([encodeAddress(PUBKEY_ADDRESS, addr)], ctx);
  const perOutput = async (name: string, addr: Uint8Array, n: number) => 1e6 / ((await opsPerSecondAsync(async () => void (await call(name, addr)), 600)) * n);
  void addressKey;
  const rows: Row[] = [];
  for (const name of ['getaddressutxos', 'getaddressbalance']) {
    const s = await perOutput(name, small, 10);
    const l = await perOutput(name, big, 10_000);
    rows.push({ name: `${name}: per output, 10,000 outputs`, value: l, unit: 'µs', limitName: 'per output, 10 outputs', limit: s, target: { kind: 'max', ratio: 1.5 } });
  }
  await t.close();
  return rows;
}

async function connectBench(): Promise<Row[]> {
  // 20 blocks of 500 transactions, each spending one output of the previous block into two outputs.
  const keys = Array.from({ length: 200 }, () => p2pkhScript(hash160(randomBytes(33))));
  const base = coinbaseLike(Array.from({ length: 500 }, (_, i) => new TxOut(1_000_000n, keys[i % keys.length]!)));
  const baseId = fakeTxid();
  const blocks: { txs: Transaction[]; txids: string[] }[] = [];
  let prev = Array.from({ length: 500 }, (_, i) => [baseId, i] as [string, number]);
  for (let b = 0; b < 20; b++) {
    const txs: Transaction[] = [];
    const txids: string[] = [];
    const next: [string, number][] = [];
    for (let i = 0; i < 500; i++) {
      const [t, n] = prev[i]!;
      const id = fakeTxid();
      txs.push(spendOf(t, n, [new TxOut(400_000n, keys[(i * 7 + b) % keys.length]!), new TxOut(500_000n, keys[(i * 13 + b) % keys.length]!)]));
      txids.push(id);
      next.push([id, i % 2]);
    }
    blocks.push({ txs, txids });
    prev = next;
  }
  const run = async (on: boolean): Promise<number> => {
    const t = tempIndexes(on);
    t.connect([base], [baseId], 1);
    const t0 = performance.now();
    blocks.forEach((blk, i) => t.connect(blk.txs, blk.txids, i + 2));
    const ms = performance.now() - t0;
    await t.close();
    return ms;
  };
  // Warm up both paths, then alternate them until the best of each holds (the convention of every
  // alternated row, bench/lib.ts): a collection of an earlier bench's garbage then cannot land on one side.
  await run(true);
  await run(false);
  let on = Infinity;
  let off = Infinity;
  const rounds = await roundsUntilSteady(async () => {
    on = Math.min(on, await run(true));
    off = Math.min(off, await run(false));
    return [1 / on, 1 / off];
  }, { min: 5, max: 20 });
  return [
    { name: `connect 10,000 txs: address history on (${rounds} rounds)`, value: on, unit: 'ms', limitName: 'address history off', limit: off, target: { kind: 'max', ratio: 1.3 } },
  ];
}

export async function addressBenchmarks(): Promise<Row[]> {
  return [...(await lookupBench()), ...(await connectBench())];
}
