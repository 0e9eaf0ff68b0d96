import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { TxIn, Outpoint } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { toHex } from '../../src/chain/encoding/hex.js';
import { hash160 } from '../../src/chain/crypto/hash.js';
import { publicKeyFromPrivate } from '../../src/chain/crypto/secp256k1.js';
import { p2pkScript } from '../../src/chain/script/script.js';
import { parsePayToCryptoCondition } from '../../src/chain/script/standard.js';
import {
  buildTokenCreate,
  buildTokenTransfer,
  encodeTokenTransferOpRet,
  tokensCC1Script,
  type SpendableCoin,
} from '../../src/chain/tokens/index.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChainDb } from '../../src/actors/chainstore/chaindb.js';
import { TokenIndex } from '../../src/actors/chainstore/tokenindex.js';
import { removeDir } from '../helpers/daemon.js';

/**
 * The token index (the registry's LMDB databases in the chain environment) on its own, blocks
 * connected and disconnected in write transactions with a stand-in tx lookup: indexing of creations
 * and token outputs, fake token outputs left out, exact undo on disconnect, kept across a reopen, and
 * a block whose lookups fail leaves nothing of itself.
 */

const KEY_A = Uint8Array.from(Buffer.alloc(32, 0x11));
const KEY_B = Uint8Array.from(Buffer.alloc(32, 0x22));
const PK_A = publicKeyFromPrivate(KEY_A, true);
const PK_B = publicKeyFromPrivate(KEY_B, true);
const CTX = { nextHeight: 200, activation: { overwinter: 61, sapling: 61 } };

function fundingTx(tag: number, outs: TxOut[]): Transaction {
  const tx = new Transaction();
  tx.vin.push(new TxIn(new Outpoint(Uint8Array.from(Buffer.alloc(32, tag)), 0), new Uint8Array(0), 0xffffffff));
  tx.vout = outs;
  return tx;
}

const coin = (tx: Transaction, n: number): SpendableCoin => ({ txid: tx.hash(), vout: n, value: tx.vout[n]!.value, script: tx.vout[n]!.script });

interface FakeBlock {
  hash: string;
  height: number;
  txs: Transaction[];
}

const H = (n: number) => n.toString(16).padStart(64, '0');

const groupHash = (pk: Uint8Array, nft = 0) => toHex(hash160(parsePayToCryptoCondition(tokensCC1Script(0xf2, nft, pk))!.ccSubScript));

/** The token index on a temporary environment, with the chain's transactions to look up from `chain` (the active blocks). */
function tempIndex(chain: FakeBlock[]) {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-tokens-'));
  let db = ChainDb.open(join(dir, 'chaindb'));
  let ix = new TokenIndex(db);
  const lookup = (id: string) => {
    for (const b of chain) for (const t of b.txs) if (t.txid() === id) return t;
    return undefined;
  };
  return {
    get ix() {
      return ix;
    },
    connect: (b: FakeBlock, look: (id: string) => Transaction | undefined = lookup) =>
      db.write(() => ix.connect(b.txs, b.txs.map((t) => t.txid()), b.hash, b.height, look)),
    disconnect: (b: FakeBlock) => db.write(() => ix.disconnect(b.hash, b.height)),
    reopen: async () => {
      await db.close();
      db = ChainDb.open(join(dir, 'chaindb'));
      ix = new TokenIndex(db);
    },
    close: async () => {
      await db.close();
      removeDir(dir);
    },
  };
}

test('token index: creations, transfers, fakes ignored, exact undo on disconnect, kept across a reopen', async () => {
  const fund = fundingTx(1, [new TxOut(5000_00000000n, p2pkScript(PK_A)), new TxOut(1_00000000n, p2pkScript(PK_A))]);
  const create = buildTokenCreate({ ...CTX, privateKey: KEY_A, name: 'DUKE', description: 'd', supply: 1000n, coins: [coin(fund, 0)] });
  assert.ok(create.ok);
  const c = create.tx;
  const tokenid = c.txid();
  // a transfer of 100 to B in the same block as the create (fee from the create's change)
  const changeIndex = c.vout.length - 2;
  const transfer = buildTokenTransfer({
    ...CTX,
    privateKey: KEY_A,
    tokenid: c.hash(),
    destPubkey: PK_B,
    amount: 100n,
    coins: [coin(c, changeIndex)],
    tokenCoins: [coin(c, 1)],
  });
  assert.ok(transfer.ok);
  const t = transfer.tx;
  // a fake: claims the token for B out of nothing (no token inputs)
  const fake = fundingTx(2, [new TxOut(777n, tokensCC1Script(0xf2, 0, PK_B)), new TxOut(0n, encodeTokenTransferOpRet({ tokenid: c.hash(), pubkeys: [PK_B] }))]);

  const b1: FakeBlock = { hash: H(0xa1), height: 1, txs: [fund] };
  const b2: FakeBlock = { hash: H(0xa2), height: 2, txs: [c, t, fake] };
  const chain = [b1];
  const r = tempIndex(chain);
  r.connect(b1);
  const afterB1 = JSON.stringify(r.ix.snapshot());

  r.connect(b2);
  chain.push(b2);
  const afterB2 = JSON.stringify(r.ix.snapshot());

  const info = r.ix.info(tokenid)!;
  assert.equal(info.supply, 1000n);
  assert.equal(info.owner, toHex(PK_A));
  assert.equal(Buffer.from(info.name).toString(), 'DUKE');
  assert.equal(Buffer.from(info.description).toString(), 'd');
  assert.equal(info.height, 2);
  assert.deepEqual(r.ix.list(), [tokenid]);
  assert.deepEqual(r.ix.outputsAt(tokenid, groupHash(PK_A)).map((o) => [o.txid, o.index, o.value]), [[t.txid(), 1, 900n]]);
  assert.deepEqual(r.ix.outputsAt(tokenid, groupHash(PK_B)).map((o) => [o.txid, o.index, o.value]), [[t.txid(), 0, 100n]], 'the fake output is not a token output');

  // Kept: a reopened environment holds the same index.
  await r.reopen();
  assert.equal(JSON.stringify(r.ix.snapshot()), afterB2);

  // Disconnect undoes exactly; connecting again gives the same index.
  r.disconnect(b2);
  assert.equal(JSON.stringify(r.ix.snapshot()), afterB1);
  assert.equal(r.ix.info(tokenid), null);
  assert.deepEqual(r.ix.list(), []);
  r.connect(b2);
  assert.equal(JSON.stringify(r.ix.snapshot()), afterB2);
  // A transfer spending B's token output moves it; its disconnect restores the spent output exactly.
  const t2 = buildTokenTransfer({ ...CTX, privateKey: KEY_B, tokenid: c.hash(), destPubkey: PK_A, amount: 100n, coins: [coin(fund, 1)], tokenCoins: [coin(t, 0)] });
  assert.ok(t2.ok);
  const b3: FakeBlock = { hash: H(0xa3), height: 3, txs: [t2.tx] };
  r.connect(b3);
  assert.deepEqual(r.ix.outputsAt(tokenid, groupHash(PK_B)), []);
  assert.deepEqual(r.ix.outputsAt(tokenid, groupHash(PK_A)).map((o) => [o.txid, o.index]), [[t.txid(), 1], [t2.tx.txid(), 0]].sort((x, y) => (Buffer.from(x[0] as string, 'hex').reverse().compare(Buffer.from(y[0] as string, 'hex').reverse()))));
  // Read a page at a time (AddTokenCCInputs' walk): the same outputs in the same order, a cursor between them; minValue leaves out the smaller.
  const all = r.ix.outputsAt(tokenid, groupHash(PK_A));
  const p1 = r.ix.outputsPageAt(tokenid, groupHash(PK_A), undefined, 1);
  assert.deepEqual(p1, { outputs: [all[0]], next: { txid: all[0]!.txid, index: all[0]!.index } });
  assert.deepEqual(r.ix.outputsPageAt(tokenid, groupHash(PK_A), p1.next!, 1), { outputs: [all[1]], next: null });
  assert.deepEqual(r.ix.outputsPageAt(tokenid, groupHash(PK_A), undefined, 5, 101n).outputs.map((o) => o.value), [900n]);
  assert.deepEqual(r.ix.outputsPageAt(tokenid, groupHash(PK_B), undefined, 5), { outputs: [], next: null });
  r.disconnect(b3);
  assert.equal(JSON.stringify(r.ix.snapshot()), afterB2);
  await r.close();
});

test('token index: a block whose transaction lookups fail leaves nothing of itself (its write transaction aborts)', async () => {
  const fund = fundingTx(3, [new TxOut(5000_00000000n, p2pkScript(PK_A))]);
  const create = buildTokenCreate({ ...CTX, privateKey: KEY_A, name: 'RUSTY', description: 'r', supply: 500n, coins: [coin(fund, 0)] });
  assert.ok(create.ok);
  const c = create.tx;
  const transfer = buildTokenTransfer({
    ...CTX,
    privateKey: KEY_A,
    tokenid: c.hash(),
    destPubkey: PK_B,
    amount: 50n,
    coins: [coin(c, c.vout.length - 2)],
    tokenCoins: [coin(c, 1)],
  });
  assert.ok(transfer.ok);
  const chain: FakeBlock[] = [
    { hash: H(0xb1), height: 1, txs: [fund] },
    { hash: H(0xb2), height: 2, txs: [c] },
  ];
  const r = tempIndex(chain);
  for (const b of chain) r.connect(b);
  const before = JSON.stringify(r.ix.snapshot());
  // The transfer's block: validating it reads the creation, and that read fails (a block file unreadable).
  const b3: FakeBlock = { hash: H(0xb3), height: 3, txs: [transfer.tx] };
  assert.throws(() => r.connect(b3, () => { throw new Error('block file unreadable'); }), /block file unreadable/);
  // Nothing of the block is left: the creation's spent output is still indexed, no transfer output, no undo.
  assert.equal(JSON.stringify(r.ix.snapshot()), before);
  assert.throws(() => r.disconnect(b3), /no undo data/);
  // Read again, it indexes as it should.
  r.connect(b3);
  assert.deepEqual(r.ix.outputsAt(c.txid(), groupHash(PK_B)).map((o) => [o.txid, o.index, o.value]), [[transfer.tx.txid(), 0, 50n]]);
  await r.close();
});
