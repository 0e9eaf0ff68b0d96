import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { TxIn, Outpoint } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { fromHexReversed, toHex } from '../../src/chain/encoding/hex.js';
import { hash160 } from '../../src/chain/crypto/hash.js';
import { publicKeyFromPrivate } from '../../src/chain/crypto/secp256k1.js';
import { p2pkScript } from '../../src/chain/script/script.js';
import { parsePayToCryptoCondition } from '../../src/chain/script/standard.js';
import type { Block } from '../../src/chain/block/block.js';
import {
  buildTokenCreate,
  buildTokenTransfer,
  encodeTokenTransferOpRet,
  tokensCC1Script,
  type SpendableCoin,
} from '../../src/chain/tokens/index.js';
import { TokenRegistryLogic, type TokenOutput, type TokenRecord } from '../../src/actors/tokens/registry.js';
import type { Asker } from '../../src/actors/ask.js';

/**
 * The token registry on its own, over a stand-in chain store that answers tip/entry/block/tx from a
 * list of blocks: indexing of creations and token outputs, fake token outputs left out, exact undo on
 * disconnect, and a rebuild at load equal to the incrementally built index.
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

/** A stand-in chain store answering the registry's reads from `chain` (the active blocks, genesis first). */
function fakeChain(chain: FakeBlock[]): Asker {
  return {
    ask: async (body: { op: string; [k: string]: unknown }) => {
      const tip = chain[chain.length - 1]!;
      switch (body.op) {
        case 'tip':
          return { hash: tip.hash, height: tip.height };
        case 'entry': {
          const i = chain.findIndex((b) => b.hash === body.hash);
          return i < 0 ? null : { height: i, prev: i > 0 ? chain[i - 1]!.hash : null };
        }
        case 'block': {
          const b = chain.find((x) => x.hash === body.hash);
          return b ? { block: blockOf(b, chain), txids: b.txs.map((t) => t.txid()) } : null;
        }
        case 'txs':
          return (body.txids as string[]).map((id) => {
            for (const b of chain) for (const t of b.txs) if (t.txid() === id) return { tx: t };
            return null;
          });
        default:
          throw new Error(`unexpected ${body.op}`);
      }
    },
  } as unknown as Asker;
}

const H = (n: number) => n.toString(16).padStart(64, '0');

/** What the chain store's notices carry: the block (its parent link and transactions). */
function blockOf(b: FakeBlock, chain: FakeBlock[]): Block {
  const prev = b.height > 0 ? chain[b.height - 1]!.hash : '00'.repeat(32);
  return { header: { prevHash: fromHexReversed(prev) }, txs: b.txs } as unknown as Block;
}

const groupHash = (pk: Uint8Array, nft = 0) => toHex(hash160(parsePayToCryptoCondition(tokensCC1Script(0xf2, nft, pk))!.ccSubScript));

async function q<T>(r: TokenRegistryLogic, body: { op: string; [k: string]: unknown }): Promise<T> {
  return (await r.write(body)).result as T;
}

test('token registry: creations, transfers, fakes ignored, exact undo on disconnect, rebuild at load', async () => {
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

  const genesis: FakeBlock = { hash: H(0xa0), height: 0, txs: [] };
  const b1: FakeBlock = { hash: H(0xa1), height: 1, txs: [fund] };
  const b2: FakeBlock = { hash: H(0xa2), height: 2, txs: [c, t, fake] };
  const chain = [genesis, b1];
  const reg = new TokenRegistryLogic({ chain: fakeChain(chain) });
  await reg.load();
  const afterB1 = JSON.stringify(reg.snapshot());

  chain.push(b2);
  await reg.write({ op: 'blockConnected', hash: b2.hash, height: 2, block: blockOf(b2, chain), txids: b2.txs.map((x) => x.txid()) });
  const afterB2 = JSON.stringify(reg.snapshot());

  const info = await q<TokenRecord>(reg, { op: 'info', tokenid });
  assert.equal(info.supply, 1000n);
  assert.equal(info.owner, toHex(PK_A));
  assert.equal(Buffer.from(info.name).toString(), 'DUKE');
  assert.deepEqual(await q(reg, { op: 'list' }), [tokenid]);
  const outsA = await q<TokenOutput[]>(reg, { op: 'outputs', tokenid, addressHash: groupHash(PK_A) });
  assert.deepEqual(outsA.map((o) => [o.txid, o.index, o.value]), [[t.txid(), 1, 900n]]);
  const outsB = await q<TokenOutput[]>(reg, { op: 'outputs', tokenid, addressHash: groupHash(PK_B) });
  assert.deepEqual(outsB.map((o) => [o.txid, o.index, o.value]), [[t.txid(), 0, 100n]], 'the fake output is not a token output');

  // A rebuild from the chain store equals the incremental index.
  const reloaded = new TokenRegistryLogic({ chain: fakeChain(chain) });
  await reloaded.load();
  assert.equal(JSON.stringify(reloaded.snapshot()), afterB2);

  // Disconnect undoes exactly; a duplicate or out-of-place notice changes nothing.
  await reg.write({ op: 'blockConnected', hash: b2.hash, height: 2, block: blockOf(b2, chain), txids: b2.txs.map((x) => x.txid()) });
  assert.equal(JSON.stringify(reg.snapshot()), afterB2);
  await reg.write({ op: 'blockDisconnected', hash: b1.hash, height: 1, block: blockOf(b1, chain), txids: [] });
  assert.equal(JSON.stringify(reg.snapshot()), afterB2);
  await reg.write({ op: 'blockDisconnected', hash: b2.hash, height: 2, block: blockOf(b2, chain), txids: b2.txs.map((x) => x.txid()) });
  assert.equal(JSON.stringify(reg.snapshot()), afterB1);
  assert.equal(await q(reg, { op: 'info', tokenid }), null);
  assert.deepEqual(await q(reg, { op: 'list' }), []);
  // and connecting again gives the same index
  await reg.write({ op: 'blockConnected', hash: b2.hash, height: 2, block: blockOf(b2, chain), txids: b2.txs.map((x) => x.txid()) });
  assert.equal(JSON.stringify(reg.snapshot()), afterB2);

  // A notice that does not extend the index (a gap) makes it rebuild from the chain store.
  const b3: FakeBlock = { hash: H(0xa3), height: 3, txs: [] };
  const b4: FakeBlock = { hash: H(0xa4), height: 4, txs: [] };
  chain.push(b3, b4);
  await reg.write({ op: 'blockConnected', hash: b4.hash, height: 4, block: blockOf(b4, chain), txids: [] });
  assert.equal((await q<{ height: number }>(reg, { op: 'status' })).height, 4);
  assert.deepEqual(await q(reg, { op: 'list' }), [tokenid]);
});

test('token registry: a block whose transaction reads fail is not indexed at all, and the next notice rebuilds the index', async () => {
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
    { hash: H(0xb0), height: 0, txs: [] },
    { hash: H(0xb1), height: 1, txs: [fund] },
    { hash: H(0xb2), height: 2, txs: [c] },
  ];
  // The transfer's block: validating it reads the creation from the chain store, which now fails.
  const b3: FakeBlock = { hash: H(0xb3), height: 3, txs: [transfer.tx] };
  const inner = fakeChain(chain);
  let failing = false;
  const flaky = {
    ask: async (body: { op: string }, timeoutMs?: number) => {
      if (failing && body.op === 'txs') throw new Error('chain store unavailable');
      return inner.ask(body as never, timeoutMs);
    },
  } as unknown as Asker;
  const reg = new TokenRegistryLogic({ chain: flaky });
  await reg.load();
  const before = JSON.stringify(reg.snapshot());

  chain.push(b3);
  failing = true;
  await assert.rejects(reg.write({ op: 'blockConnected', hash: b3.hash, height: 3, block: blockOf(b3, chain), txids: [transfer.tx.txid()] }), /chain store unavailable/);
  // Nothing of the block is left: the creation's spent output is still indexed, no transfer output.
  assert.equal(JSON.stringify(reg.snapshot()), before);
  assert.equal((await q<{ height: number }>(reg, { op: 'status' })).height, 2);

  // The reads work again: the next block does not extend the index, which rebuilds to equal a fresh load.
  failing = false;
  const b4: FakeBlock = { hash: H(0xb4), height: 4, txs: [] };
  chain.push(b4);
  await reg.write({ op: 'blockConnected', hash: b4.hash, height: 4, block: blockOf(b4, chain), txids: [] });
  const fresh = new TokenRegistryLogic({ chain: fakeChain(chain) });
  await fresh.load();
  assert.equal(JSON.stringify(reg.snapshot()), JSON.stringify(fresh.snapshot()));
  const outsB = await q<TokenOutput[]>(reg, { op: 'outputs', tokenid: c.txid(), addressHash: groupHash(PK_B) });
  assert.deepEqual(outsB.map((o) => [o.txid, o.index, o.value]), [[transfer.tx.txid(), 0, 50n]]);
});
