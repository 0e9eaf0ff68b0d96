import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sha256 } from '@noble/hashes/sha2.js';
import { publicKeyFromPrivate } from '../../src/chain/crypto/secp256k1.js';
import { hash160 } from '../../src/chain/crypto/hash.js';
import { toHex, toHexReversed } from '../../src/chain/encoding/hex.js';
import { p2pkScript, p2pkhScript } from '../../src/chain/script/script.js';
import { EVAL_TOKENS, tokensCC1Script, type SpendableCoin } from '../../src/chain/tokens/index.js';
import { addressKey } from '../../src/chain/address/index-key.js';
import { compareOutpoints } from '../../src/chain/address/unspent-order.js';
import { OrderedOutputs, type OutputRef } from '../../src/actors/chainstore/ordered-outputs.js';
import type { TokenOutput } from '../../src/actors/tokenregistry/protocol.js';
import type { NodeServices } from '../../src/actors/services.js';
import { CCSupport } from '../../src/rpc/methods/cc-support.js';
import type { AddressUnspent } from '../../src/actors/chainstore/protocol.js';
import { prng } from '../helpers/prng.js';

/**
 * AddTokenCCInputs' and AddNormalinputs' candidates, read from the indexes a page at a time with one
 * mempool request per page, are exactly what komodod's walk picks: every output of the address in
 * address-index order, at least total/maxinputs, not spent in the mempool, until the total or
 * maxinputs. The reference below is that walk over the whole sorted set, one mempool lookup per
 * output (what tokenCandidates did before). And the mempool is asked once when the first page holds
 * the answer, a handful of times (pages grow fourfold) when the mempool spends the first k outputs.
 */

const PK = publicKeyFromPrivate(sha256(new TextEncoder().encode('cc candidates key')), true);
const TOKEN_SCRIPT = tokensCC1Script(EVAL_TOKENS, 0, PK);
const ADDRESS_HASH = toHex(hash160(TOKEN_SCRIPT));
const NORMAL_ADDRESS = addressKey(1, hash160(PK));
const TOKENID = sha256(new TextEncoder().encode('cc candidates token'));

interface World {
  cc: CCSupport;
  tokens: OrderedOutputs<TokenOutput>;
  coins: OrderedOutputs<AddressUnspent>;
  spent: Set<string>;
  /** The chain's tip as the pages report it, and the pool's count of removals (a test that unspends an output bumps it, as the mempool does). */
  state: { tip: string; removals: number };
  asks: { mempool: number; pages: number; read: number };
}

function world(): World {
  const tokens = new OrderedOutputs<TokenOutput>();
  const coins = new OrderedOutputs<AddressUnspent>();
  const spent = new Set<string>();
  const asks = { mempool: 0, pages: 0, read: 0 };
  const state = { tip: 'a', removals: 0 };
  const counted = <T>(page: { outputs: T[]; next: OutputRef | null }) => {
    asks.read += page.outputs.length;
    return { ...page, tip: state.tip };
  };
  type Body = { op: string; [k: string]: unknown };
  const node = {
    config: { pubkey: toHex(PK), devChain: false },
    minerPubkey: PK,
    tokenRegistry: {
      ask: async (b: Body) => {
        assert.equal(b.op, 'outputsPage');
        assert.equal(b.tokenid, toHexReversed(TOKENID));
        assert.equal(b.addressHash, ADDRESS_HASH);
        asks.pages++;
        return counted(tokens.page(b.after as OutputRef | undefined, b.limit as number, b.minValue as bigint));
      },
    },
    chainStore: {
      ask: async (b: Body) => {
        assert.equal(b.op, 'addressUnspentPage');
        assert.equal(b.address, NORMAL_ADDRESS);
        asks.pages++;
        return counted(coins.page(b.after as OutputRef | undefined, b.limit as number, b.minValue as bigint));
      },
    },
    // No coin locked with lockunspent (AddNormalinputs reads the wallet's locks once).
    wallet: {
      ask: async (b: Body) => {
        assert.equal(b.op, 'lockedCoins');
        return [];
      },
    },
    mempool: {
      ask: async (b: Body) => {
        assert.equal(b.op, 'spentAmong');
        asks.mempool++;
        return { spent: (b.outpoints as [string, number][]).map(([t, n]) => spent.has(`${t}:${n}`)), removals: state.removals };
      },
    },
  } as unknown as NodeServices;
  return { cc: new CCSupport(node), tokens, coins, spent, state, asks };
}

/** komodod's walk over the whole sorted set (the reference). */
function reference<T extends { txid: string; index: number; value: bigint }>(all: T[], spent: Set<string>, total: bigint, maxinputs: number, skip: (o: T) => boolean = () => false): string[] {
  const threshold = total / BigInt(maxinputs);
  const out: string[] = [];
  let sum = 0n;
  for (const o of [...all].sort(compareOutpoints)) {
    if (o.value < threshold || skip(o)) continue;
    if (spent.has(`${o.txid}:${o.index}`)) continue;
    out.push(`${o.txid}:${o.index}`);
    sum += o.value;
    if (sum >= total || out.length >= maxinputs) break;
  }
  return out;
}

const picked = (coins: SpendableCoin[]) => coins.map((c) => `${toHexReversed(c.txid)}:${c.vout}`);

test('token and normal candidates equal komodod walk over the whole set (seeded scenarios)', async () => {
  for (let seed = 1; seed <= 8; seed++) {
    const rnd = prng(seed);
    const w = world();
    const txids = Array.from({ length: 30 }, (_, i) => toHex(sha256(Uint8Array.of(seed, i))));
    const count = 50 + Math.floor(rnd() * 1500);
    const all: TokenOutput[] = [];
    const normal: AddressUnspent[] = [];
    for (let i = 0; i < count; i++) {
      const txid = txids[i % txids.length]!;
      const value = BigInt(1 + Math.floor(rnd() * 50));
      const t = { txid, index: i, value, script: TOKEN_SCRIPT, height: 5 };
      w.tokens.add(t);
      all.push(t);
      // Normal coins: P2PK and P2PKH, some immature coinbases, some CC outputs (the index may hold them).
      const kind = rnd();
      const script = kind < 0.1 ? TOKEN_SCRIPT : kind < 0.5 ? p2pkScript(PK) : p2pkhScript(hash160(PK));
      const u = { txid, index: i, value: BigInt(1_000 + Math.floor(rnd() * 100_000)), script, height: 90 + Math.floor(rnd() * 20), coinbase: rnd() < 0.2 };
      w.coins.add(u);
      normal.push(u);
    }
    // The mempool spends a random tenth, and in half the scenarios also the first outputs in key order.
    for (const o of all) if (rnd() < 0.1) w.spent.add(`${o.txid}:${o.index}`);
    if (seed % 2 === 0) for (const o of [...all].sort(compareOutpoints).slice(0, count / 2)) w.spent.add(`${o.txid}:${o.index}`);
    for (let q = 0; q < 20; q++) {
      const total = BigInt(1 + Math.floor(rnd() * (q < 10 ? 100 : 5_000)));
      assert.deepEqual(picked(await w.cc.tokenCandidates(PK, TOKENID, 0, total, 60)), reference(all, w.spent, total, 60), `seed ${seed} tokens total ${total}`);
      const mature = { nextHeight: 101, maturity: 10 };
      const maxinputs = [3, 60, 64][q % 3]!;
      const immatureOrCC = (u: AddressUnspent) => u.script === TOKEN_SCRIPT || (u.coinbase && mature.nextHeight - u.height < mature.maturity);
      const normalTotal = total * 100n;
      assert.deepEqual(picked(await w.cc.normalCandidates(PK, normalTotal, maxinputs, mature)), reference(normal, w.spent, normalTotal, maxinputs, immatureOrCC), `seed ${seed} normal total ${normalTotal}`);
      assert.deepEqual(
        picked(await w.cc.normalCandidates(PK, normalTotal, maxinputs)),
        reference(normal, w.spent, normalTotal, maxinputs, (u) => u.script === TOKEN_SCRIPT),
        `seed ${seed} normal (remote) total ${normalTotal}`,
      );
    }
  }
});

test('the mempool is asked once per page: once when the first page holds the answer, about log4(k / 256) times past k spent outputs', async () => {
  const w = world();
  const sorted: TokenOutput[] = [];
  for (let i = 0; i < 5000; i++) {
    const t = { txid: toHex(sha256(Uint8Array.of(i & 0xff, i >> 8))), index: 0, value: 1n, script: TOKEN_SCRIPT, height: 5 };
    w.tokens.add(t);
    sorted.push(t);
  }
  sorted.sort(compareOutpoints);
  const one = async () => {
    w.asks.mempool = 0;
    w.asks.pages = 0;
    const got = await w.cc.tokenCandidates(PK, TOKENID, 0, 1n, 60);
    assert.equal(got.length, 1);
    return { got: picked(got)[0], mempool: w.asks.mempool, pages: w.asks.pages };
  };
  // Nothing spent: the first page (256 outputs) answers, with one mempool request.
  assert.deepEqual(await one(), { got: `${sorted[0]!.txid}:0`, mempool: 1, pages: 1 });
  // The first 1,000 in key order spent (a holder's earlier transfers in this block): pages of 256
  // and 1,024 reach the 1,001st; the first 4,000 spent: a third page of 4,096.
  for (const o of sorted.slice(0, 1000)) w.spent.add(`${o.txid}:0`);
  assert.deepEqual(await one(), { got: `${sorted[1000]!.txid}:0`, mempool: 2, pages: 2 });
  for (const o of sorted.slice(0, 4000)) w.spent.add(`${o.txid}:0`);
  assert.deepEqual(await one(), { got: `${sorted[4000]!.txid}:0`, mempool: 3, pages: 3 });
});

test("a holder's k-th transfer within one block reads as many outputs as its first; a removal or a new tip walks from the first again", async () => {
  const w = world();
  const tokens: TokenOutput[] = [];
  const normal: AddressUnspent[] = [];
  for (let i = 0; i < 1500; i++) {
    const txid = toHex(sha256(Uint8Array.of(7, i & 0xff, i >> 8)));
    const t = { txid, index: 0, value: 1n, script: TOKEN_SCRIPT, height: 5 };
    w.tokens.add(t);
    tokens.push(t);
    const u = { txid, index: 1, value: 20_000n, script: p2pkScript(PK), height: 5, coinbase: false };
    w.coins.add(u);
    normal.push(u);
  }
  // Each call is sent: its picks join the mempool's spends (nothing leaves), as 1,000 transfers in a
  // row; every 50th call (and each after a change) is checked against komodod's whole walk.
  const reads: number[] = [];
  const asks: number[] = [];
  const transfer = async (label: string, checked = true) => {
    w.asks.read = 0;
    w.asks.mempool = 0;
    const fee = await w.cc.normalCandidates(PK, 10_000n, 3, { nextHeight: 100, maturity: 10 });
    const got = await w.cc.tokenCandidates(PK, TOKENID, 0, 1n, 60);
    if (checked) {
      assert.deepEqual(picked(fee), reference(normal, w.spent, 10_000n, 3), `${label}: fee coin`);
      assert.deepEqual(picked(got), reference(tokens, w.spent, 1n, 60), `${label}: token coin`);
    }
    reads.push(w.asks.read);
    asks.push(w.asks.mempool);
    for (const k of [...picked(fee), ...picked(got)]) w.spent.add(k);
    return picked(got)[0]!;
  };
  for (let k = 1; k <= 1000; k++) await transfer(`transfer ${k}`, k % 50 === 1);
  // One page and one mempool request per walk, the 1,000th as the first: never the k−1 spent before it.
  assert.equal(Math.max(...reads), reads[0], `outputs read per call: first ${reads[0]}, most ${Math.max(...reads)}`);
  assert.equal(Math.max(...asks), 2);
  // An early spend leaves the mempool (a removal): the next call finds it again, walking from the first.
  const early = [...tokens].sort(compareOutpoints)[10]!;
  w.spent.delete(`${early.txid}:0`);
  w.state.removals++;
  assert.equal(await transfer('after a removal'), `${early.txid}:0`);
  // A block (a new tip) confirms an output that sorts first: the next call takes it.
  const first = { txid: '00'.repeat(32), index: 0, value: 1n, script: TOKEN_SCRIPT, height: 6 };
  w.tokens.add(first);
  tokens.push(first);
  w.state.tip = 'b';
  assert.equal(await transfer('after a new tip'), `${first.txid}:0`);
  // And the walks are short again from there.
  await transfer('settled');
  await transfer('settled again');
  assert.equal(reads[reads.length - 1], reads[0]);
});
