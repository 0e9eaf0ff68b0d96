import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { TxIn, Outpoint } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { toHex, toHexReversed } from '../../src/chain/encoding/hex.js';
import { sha256 } from '../../src/chain/crypto/hash.js';
import { publicKeyFromPrivate } from '../../src/chain/crypto/secp256k1.js';
import { p2pkScript } from '../../src/chain/script/script.js';
import { addressKeysOf } from '../../src/chain/address/index-key.js';
import { encodeTokenTransferOpRet } from '../../src/chain/tokens/index.js';
import {
  ASSETS_GLOBAL_CC_SCRIPT,
  askLockScript,
  assetsMarkerScript,
  encodeAssetBlob,
  encodeAssetOrderOpRet,
  tokenOutScript,
  tryDecodeAssetTokenOpRet,
} from '../../src/chain/assets/index.js';
import { Block } from '../../src/chain/block/block.js';
import { BlockHeader } from '../../src/chain/block/header.js';
import { fromHexReversed } from '../../src/chain/encoding/hex.js';
import { ChainDb, CHAIN_SCHEMA_VERSION } from '../../src/actors/chainstore/chaindb.js';
import { ChainStoreLogic } from '../../src/actors/chainstore/logic.js';
import { permissiveRules } from '../helpers/stub-rules.js';
import { ChainIndexes } from '../../src/actors/chainstore/chainstate.js';
import { OrderIndex, type AssetOrder, type AssetOrderFilter } from '../../src/actors/chainstore/orderindex.js';
import { orderItem } from '../../src/rpc/methods/assets.js';
import { pubkey2pk } from '../../src/rpc/methods/cc-support.js';
import { removeDir } from '../helpers/daemon.js';
import { prng } from '../helpers/prng.js';

/**
 * The order index (orderindex.ts) against today's walk-and-filter (komodod's AssetOrders: every
 * unspent output at the address from the address index, its transaction's last output decoded,
 * filtered by token or by owner), through random asks, bids, fills and cancels, blocks and reorgs:
 * at every step each address, token and owner gives the same orders in the same order, and a
 * disconnect restores the index exactly.
 */

const key = (i: number) => sha256(Uint8Array.of(0x0a, i));
const PK_A = publicKeyFromPrivate(key(1), true);
const PK_B = publicKeyFromPrivate(key(2), true);
const PK_65 = publicKeyFromPrivate(key(3), false);
/** 33 bytes whose header is no CPubKey's: pubkey2pk makes it invalid, so it never owns an ask. */
const PK_BAD = Uint8Array.from([0x05, ...PK_A.subarray(1)]);
const OWNERS = [PK_A, PK_B, PK_65, PK_BAD, new Uint8Array(0)];
const TOKENS = [1, 2, 3].map((i) => sha256(Uint8Array.of(0x70, i)));
const ZERO = new Uint8Array(32);
const DUAL = 0xee;

const BID = ASSETS_GLOBAL_CC_SCRIPT;
const ASK = askLockScript(0);
const ASK_DUAL = askLockScript(DUAL);
const hashOf = (script: Uint8Array) => addressKeysOf(script)[0]!.slice(2);
/** The addresses AssetOrders walks (bids, asks, an NFT's dual-eval asks), and some it never does (everything is filed by address). */
const ADDRESSES = [BID, ASK, ASK_DUAL, askLockScript(0x77), tokenOutScript(PK_A), assetsMarkerScript(PK_B)].map(hashOf);

interface Coin {
  txid: string;
  n: number;
  value: bigint;
  script: Uint8Array;
}

interface FakeBlock {
  hash: string;
  height: number;
  txs: Transaction[];
  txids: string[];
}

function tx(inputs: Coin[], outs: TxOut[]): Transaction {
  const t = new Transaction();
  for (const c of inputs) t.vin.push(new TxIn(new Outpoint(Uint8Array.from(Buffer.from(c.txid, 'hex').reverse()), c.n), new Uint8Array(0), 0xffffffff));
  t.vout = outs;
  return t;
}

function coinbase(height: number, salt: number): Transaction {
  const t = new Transaction();
  t.vin.push(new TxIn(Outpoint.null(), Uint8Array.from([4, ...Buffer.from(Uint32Array.of(height).buffer), 4, ...Buffer.from(Uint32Array.of(salt).buffer)]), 0xffffffff));
  t.vout = [0, 1, 2, 3].map(() => new TxOut(50_00000000n, p2pkScript(PK_A)));
  return t;
}

/** Today's walk (assets.ts before the index): GetAddressUnspent at the address, each output's transaction read and filtered. */
function walk(ix: ChainIndexes, txById: Map<string, Transaction>, addressHash: string, filter: AssetOrderFilter): AssetOrder[] {
  const out: AssetOrder[] = [];
  for (const u of ix.unspentAt(`3:${addressHash}`)) {
    const t = txById.get(u.txid)!;
    const op = tryDecodeAssetTokenOpRet(t.vout[t.vout.length - 1]!.script);
    if (!op) continue;
    const mine = filter.owner !== undefined && pubkey2pk(op.origpubkey) !== null && toHex(op.origpubkey) === filter.owner && (op.funcid === 's' || op.funcid === 'S');
    const listed = filter.owner === undefined && (filter.tokenid === undefined || toHexReversed(op.tokenid) === filter.tokenid);
    if (!listed && !mine) continue;
    const value = t.vout[u.index]!.value;
    if (value === 0n) continue;
    out.push({ txid: u.txid, index: u.index, funcid: op.funcid, value, vout0: t.vout[0]!.value, price: op.price, tokenid: op.tokenid, assetid2: op.assetid2, origpubkey: op.origpubkey });
  }
  return out;
}

const FILTERS: AssetOrderFilter[] = [
  {},
  ...TOKENS.map((t) => ({ tokenid: toHexReversed(t) })),
  { tokenid: toHexReversed(sha256(Uint8Array.of(0x99))) },
  ...OWNERS.map((pk) => ({ owner: toHex(pk) })),
];

/**
 * Random chain activity: asks (tokens locked at the asks address, funcid 's'), bids (coins at the
 * global address, 'b'), fills (an order spent, its rest locked again with 'S'/'B', sometimes 0),
 * cancels ('x'/'o', the order spent back to its owner), swaps ('e'/'E'), transfers with a token opret
 * but no order, and plain payments, over a few tokens and owners (valid, uncompressed, invalid, none).
 */
function randomTx(rnd: () => number, pool: Coin[]): Transaction | null {
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
  if (pool.length === 0) return null;
  const orders = pool.filter((c) => [BID, ASK, ASK_DUAL].some((s) => Buffer.compare(Buffer.from(s), Buffer.from(c.script)) === 0));
  const kind = pick(['ask', 'bid', 'fill', 'fill', 'cancel', 'swap', 'transfer', 'pay', 'dual']);
  const inputs: Coin[] = [];
  const take = (from: Coin[]) => {
    const c = pick(from.filter((x) => !inputs.includes(x)));
    if (c) inputs.push(c);
  };
  if ((kind === 'fill' || kind === 'cancel') && orders.length > 0) take(orders);
  take(pool);
  if (rnd() < 0.3) take(pool);
  const value = () => pick([0n, 1n, 10n, 10000n, BigInt(Math.floor(rnd() * 1e9))]);
  const owner = pick(OWNERS);
  const token = rnd() < 0.1 ? ZERO : pick(TOKENS);
  const price = pick([0n, -1n, 5n, 10000n, BigInt(Math.floor(rnd() * 1e12))]);
  const order = (funcid: string, lock: Uint8Array) => {
    const outs = [new TxOut(value(), lock), new TxOut(10000n, assetsMarkerScript(owner.length === 33 ? PK_B : PK_A)), new TxOut(value(), p2pkScript(PK_A))];
    if (rnd() < 0.3) outs.push(new TxOut(value(), pick([BID, ASK, ASK_DUAL, tokenOutScript(PK_A)])));
    const assetid2 = funcid === 'e' || funcid === 'E' ? pick(TOKENS) : ZERO;
    outs.push(new TxOut(0n, encodeAssetOrderOpRet(token, [], encodeAssetBlob(funcid, price, owner, assetid2))));
    return outs;
  };
  switch (kind) {
    case 'ask':
      return tx(inputs, order('s', ASK));
    case 'dual':
      return tx(inputs, order(pick(['s', 'S']), ASK_DUAL));
    case 'bid':
      return tx(inputs, order('b', BID));
    case 'fill':
      return tx(inputs, order(pick(['S', 'B', 'S', 'B']), pick([ASK, BID])));
    case 'cancel': {
      const outs = [new TxOut(value(), tokenOutScript(PK_A)), new TxOut(value(), p2pkScript(PK_A)), new TxOut(0n, encodeAssetOrderOpRet(token, [], encodeAssetBlob(pick(['x', 'o']))))];
      if (rnd() < 0.3) outs.unshift(new TxOut(value(), pick([BID, ASK])));
      return tx(inputs, outs);
    }
    case 'swap':
      return tx(inputs, order(pick(['e', 'E']), pick([ASK, BID])));
    case 'transfer':
      // A token opret without an Assets blob: nothing here is an order, wherever it pays.
      return tx(inputs, [new TxOut(value(), ASK), new TxOut(value(), BID), new TxOut(0n, encodeTokenTransferOpRet({ tokenid: pick(TOKENS), pubkeys: [PK_A] }))]);
    default: {
      // A plain payment, sometimes to an order address, sometimes ending with a garbled OP_RETURN.
      const outs = [new TxOut(value(), pick([BID, ASK, p2pkScript(PK_B)])), new TxOut(value(), p2pkScript(PK_A))];
      if (rnd() < 0.5) outs.push(new TxOut(0n, Uint8Array.of(0x6a, 0x04, 0xf2, 0x74, 0xe3, 0x73)));
      return tx(inputs, outs);
    }
  }
}

function tempChain() {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-orders-'));
  const db = ChainDb.open(join(dir, 'chaindb'));
  return { dir, db, ix: new ChainIndexes(db, true), orders: new OrderIndex(db) };
}

test('order index: the same orders in the same order as the walk, through random orders, blocks and reorgs', async () => {
  for (const seed of [1, 2, 3]) {
    const rnd = prng(seed);
    const { dir, db, ix, orders } = tempChain();
    try {
      const txById = new Map<string, Transaction>();
      const chain: FakeBlock[] = [];
      /** The spendable coins before each block of `chain` (a reorg goes back to them). */
      const poolBefore: Coin[][] = [];
      const snapshotBefore: string[] = [];
      let pool: Coin[] = [];
      let blockSeq = 0;
      let reorgs = 0;
      let listed = 0;
      const funcids = new Set<string>();
      const check = (where: string) => {
        for (const a of ADDRESSES) {
          for (const f of FILTERS) {
            const got = orders.ordersAt(a, f);
            const want = walk(ix, txById, a, f);
            assert.deepEqual(got, want, `seed ${seed}, ${where}: address ${a} filter ${JSON.stringify(f)}`);
            // The RPC's items too (the other filters list some of the same records).
            if (f === FILTERS[0]) assert.deepEqual(got.map((o) => orderItem(o)), want.map((o) => orderItem(o)), `seed ${seed}, ${where}: address ${a} items`);
            listed += got.length;
            for (const o of got) funcids.add(o.funcid);
          }
        }
      };
      const connect = (b: FakeBlock, withScripts: boolean) => {
        db.write(() => {
          // As writeBlockEffects: the order index first (the spent coins are still in the UTXO set).
          const spentScript = withScripts ? (p: Outpoint) => ix.coin(p.txid(), p.index)?.script : undefined;
          orders.connect(b.txs, b.txids, b.hash, spentScript);
          ix.connect(b.txs, b.txids, b.hash, b.height);
        });
      };
      for (let step = 0; step < 45; step++) {
        if (chain.length > 2 && rnd() < 0.2) {
          // A reorg: back 1-3 blocks, each disconnect restoring the index exactly.
          const back = 1 + Math.floor(rnd() * Math.min(3, chain.length - 1));
          for (let k = 0; k < back; k++) {
            const b = chain.pop()!;
            db.write(() => {
              orders.disconnect(b.hash);
              ix.disconnect(b.txs, b.txids, b.hash, b.height);
            });
            pool = poolBefore.pop()!;
            assert.equal(JSON.stringify(orders.snapshot()), snapshotBefore.pop(), `seed ${seed}: disconnect of ${b.height} restores the index`);
            check(`after disconnecting ${b.height}`);
          }
          reorgs++;
        }
        const height = chain.length + 1;
        const txs = [coinbase(height, blockSeq)];
        const working = [...pool];
        const spend = (t: Transaction) => {
          const id = t.txid();
          for (const i of t.vin) {
            const at = working.findIndex((c) => c.txid === i.prevout.txid() && c.n === i.prevout.index);
            working.splice(at, 1);
          }
          t.vout.forEach((o, n) => {
            if (o.script[0] !== 0x6a) working.push({ txid: id, n, value: o.value, script: o.script });
          });
        };
        spend(txs[0]!);
        const count = Math.floor(rnd() * 8);
        for (let i = 0; i < count; i++) {
          const t = randomTx(rnd, working);
          if (!t) continue;
          spend(t);
          txs.push(t);
        }
        const b: FakeBlock = { hash: (0xb000000 + blockSeq++).toString(16).padStart(64, '0'), height, txs, txids: txs.map((t) => t.txid()) };
        for (const t of txs) txById.set(t.txid(), t);
        poolBefore.push(pool);
        snapshotBefore.push(JSON.stringify(orders.snapshot()));
        connect(b, rnd() < 0.5);
        chain.push(b);
        pool = working;
        check(`after connecting ${height}`);
      }
      // The run exercised what it claims to.
      console.log(`seed ${seed}: ${reorgs} reorgs, ${listed} orders listed`);
      assert.ok(reorgs >= 3, `seed ${seed}: ${reorgs} reorgs`);
      assert.ok(listed > 200, `seed ${seed}: ${listed} orders listed`);
      for (const f of ['s', 'S', 'b', 'B', 'e', 'E']) assert.ok(funcids.has(f), `seed ${seed}: no '${f}' order listed`);
    } finally {
      await db.close();
      removeDir(dir);
    }
  }
});

test('order index: a schema-7 data directory (no order index) has it built from its block files on start, the same as kept', async () => {
  assert.equal(CHAIN_SCHEMA_VERSION, 8);
  const BITS = 0x200f0f0f;
  const block = (prev: string, height: number, txs: Transaction[]) => {
    const h = new BlockHeader();
    h.prevHash = fromHexReversed(prev);
    h.time = 1_600_000_000 + height;
    h.bits = BITS;
    const b = new Block(h, [coinbase(height, 0), ...txs]);
    b.updateMerkleRoot();
    return b;
  };
  const genesis = block('00'.repeat(32), 0, []);
  const dir = mkdtempSync(join(tmpdir(), 'acnode-orders-upgrade-'));
  const log: string[] = [];
  const open = async () => {
    const logic = new ChainStoreLogic({ dir, rules: permissiveRules(genesis, BITS), now: () => 1_700_000_000, log: (m) => log.push(m) });
    await logic.load();
    return logic;
  };
  try {
    let s = await open();
    const rnd = prng(7);
    let pool: Coin[] = [];
    const txById = new Map<string, Transaction>();
    for (let height = 1; height <= 25; height++) {
      const txs: Transaction[] = [];
      const b0 = block(s.index.tip.hash, height, []);
      const cb = b0.txs[0]!;
      const working = [...pool, ...cb.vout.map((o, n) => ({ txid: cb.txid(), n, value: o.value, script: o.script }))];
      for (let i = 0; i < 6; i++) {
        const t = randomTx(rnd, working);
        if (!t) continue;
        for (const inp of t.vin) working.splice(working.findIndex((c) => c.txid === inp.prevout.txid() && c.n === inp.prevout.index), 1);
        t.vout.forEach((o, n) => o.script[0] !== 0x6a && working.push({ txid: t.txid(), n, value: o.value, script: o.script }));
        txs.push(t);
        txById.set(t.txid(), t);
      }
      const b = block(s.index.tip.hash, height, txs);
      txById.set(b.txs[0]!.txid(), b.txs[0]!);
      const r = (await s.write({ op: 'submitBlock', raw: b.toRaw() })).result as { status: string };
      assert.equal(r.status, 'connected');
      pool = working;
    }
    const kept = JSON.stringify(s.orders.snapshot());
    const answers = () => JSON.stringify(ADDRESSES.flatMap((a) => FILTERS.map((f) => s.orders.ordersAt(a, f).map((o) => orderItem(o)))), (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
    const keptAnswers = answers();
    assert.ok(s.orders.ordersAt(hashOf(ASK)).length + s.orders.ordersAt(hashOf(BID)).length > 5, 'some open orders to rebuild');
    await s.close();
    // The same data directory as schema 7 wrote it: no order databases, schema 7.
    const db = ChainDb.open(join(dir, 'chaindb'));
    db.write(() => {
      for (const name of ['assetOrders', 'assetOrderTracked', 'assetOrderUndo']) db.index(name).dropSync();
      db.putMeta('schema', 7);
    });
    await db.close();
    s = await open();
    assert.ok(log.some((l) => /upgrading the chain state to schema 8: the UTXO set and the indexes are built once from the block files/.test(l)), log.join('\n'));
    assert.equal(s.index.height, 25);
    assert.equal(JSON.stringify(s.orders.snapshot()), kept);
    assert.equal(answers(), keptAnswers);
    await s.close();
  } finally {
    removeDir(dir);
  }
});
