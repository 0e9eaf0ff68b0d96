import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { TxIn, Outpoint } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { fromHexReversed, toHex } from '../../src/chain/encoding/hex.js';
import { hash160 } from '../../src/chain/crypto/hash.js';
import { publicKeyFromPrivate } from '../../src/chain/crypto/secp256k1.js';
import { p2pkScript } from '../../src/chain/script/script.js';
import { parsePayToCryptoCondition } from '../../src/chain/script/standard.js';
import { buildTokenCreate, buildTokenTransfer, encodeTokenTransferOpRet, tokensCC1Script, tryDecodeTokenOpRet, type SpendableCoin } from '../../src/chain/tokens/index.js';
import { ChainDb } from '../../src/actors/chainstore/chaindb.js';
import { TokenIndex } from '../../src/actors/chainstore/tokenindex.js';
import { removeDir } from '../helpers/daemon.js';
import { prng } from '../helpers/prng.js';

/**
 * tokenbalance's running totals per (tokenid, CC address) against the walk over the holder's token
 * outputs they replace, through random blocks of creations, transfers (chained within a block too),
 * fake token outputs, and reorgs; and valuesAt (the holder's outputs the mempool spends) against the
 * outputs themselves.
 */

const KEYS = [0x11, 0x22, 0x33].map((b) => Uint8Array.from(Buffer.alloc(32, b)));
const PKS = KEYS.map((k) => publicKeyFromPrivate(k, true));
const CTX = { nextHeight: 200, activation: { overwinter: 61, sapling: 61 } };
const holder = (pk: Uint8Array) => toHex(hash160(parsePayToCryptoCondition(tokensCC1Script(0xf2, 0, pk))!.ccSubScript));
const HOLDERS = PKS.map(holder);

interface Block {
  hash: string;
  height: number;
  txs: Transaction[];
}

const coin = (tx: Transaction, n: number): SpendableCoin => ({ txid: tx.hash(), vout: n, value: tx.vout[n]!.value, script: tx.vout[n]!.script });

function tempIndex(chain: Block[]) {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-tokentotals-'));
  const db = ChainDb.open(join(dir, 'chaindb'));
  const ix = new TokenIndex(db);
  const lookup = (id: string) => {
    for (const b of chain) for (const t of b.txs) if (t.txid() === id) return t;
    return undefined;
  };
  return {
    ix,
    connect: (b: Block) => db.write(() => ix.connect(b.txs, b.txs.map((t) => t.txid()), b.hash, b.height, lookup)),
    disconnect: (b: Block) => db.write(() => ix.disconnect(b.hash, b.height)),
    close: async () => {
      await db.close();
      removeDir(dir);
    },
  };
}

/** A random block over the index's state at its parent: a funding transaction, maybe a creation, transfers, maybe a fake. */
function randomBlock(rnd: () => number, ix: TokenIndex, height: number, serial: number): Block {
  const pick = (n: number) => Math.floor(rnd() * n);
  // Each key's fee coins for this block: one funding output per use.
  const fund = new Transaction();
  fund.vin.push(new TxIn(new Outpoint(fromHexReversed(serial.toString(16).padStart(64, '0')), 0), new Uint8Array(0), 0xffffffff));
  fund.vout = PKS.flatMap((pk) => Array.from({ length: 4 }, () => new TxOut(10_000_000n, p2pkScript(pk))));
  const feeCoins = PKS.map((_, k) => Array.from({ length: 4 }, (_, j) => coin(fund, 4 * k + j)));
  const txs = [fund];
  if (rnd() < 0.3 || ix.list().length === 0) {
    const k = pick(KEYS.length);
    const c = buildTokenCreate({ ...CTX, privateKey: KEYS[k]!, name: `T${serial}`, description: '', supply: BigInt(1 + pick(100_000)), coins: [feeCoins[k]!.pop()!] });
    assert.ok(c.ok);
    txs.push(c.tx);
  }
  const used = new Set<string>();
  for (let m = pick(4); m > 0; m--) {
    const tokens = ix.list();
    if (tokens.length === 0) break;
    const tokenid = tokens[pick(tokens.length)]!;
    const from = pick(KEYS.length);
    const outs = ix.outputsAt(tokenid, HOLDERS[from]!).filter((o) => !used.has(`${o.txid}:${o.index}`));
    if (outs.length === 0 || feeCoins[from]!.length === 0) continue;
    const chosen = outs.slice(0, 1 + pick(Math.min(2, outs.length)));
    for (const o of chosen) used.add(`${o.txid}:${o.index}`);
    const have = chosen.reduce((a, o) => a + o.value, 0n);
    const amount = 1n + BigInt(pick(Number(have)));
    const to = pick(KEYS.length);
    const t = buildTokenTransfer({
      ...CTX,
      privateKey: KEYS[from]!,
      tokenid: fromHexReversed(tokenid),
      destPubkey: PKS[to]!,
      amount,
      coins: [feeCoins[from]!.pop()!],
      tokenCoins: chosen.map((o) => ({ txid: fromHexReversed(o.txid), vout: o.index, value: o.value, script: o.script })),
    });
    assert.ok(t.ok, t.ok ? '' : t.error);
    txs.push(t.tx);
    // Spent again in the same block: the receiver passes some on.
    if (rnd() < 0.4 && feeCoins[to]!.length > 0) {
      const again = buildTokenTransfer({
        ...CTX,
        privateKey: KEYS[to]!,
        tokenid: fromHexReversed(tokenid),
        destPubkey: PKS[pick(KEYS.length)]!,
        amount: 1n + BigInt(pick(Number(amount))),
        coins: [feeCoins[to]!.pop()!],
        tokenCoins: [coin(t.tx, 0)],
      });
      assert.ok(again.ok, again.ok ? '' : again.error);
      txs.push(again.tx);
    }
  }
  if (rnd() < 0.3 && ix.list().length > 0) {
    // A fake: claims a token for someone out of nothing (no token inputs): never a token output.
    const tokenid = ix.list()[0]!;
    const fake = new Transaction();
    fake.vin.push(new TxIn(new Outpoint(fromHexReversed((serial + 1_000_000).toString(16).padStart(64, '0')), 0), new Uint8Array(0), 0xffffffff));
    fake.vout = [new TxOut(777n, tokensCC1Script(0xf2, 0, PKS[1]!)), new TxOut(0n, encodeTokenTransferOpRet({ tokenid: fromHexReversed(tokenid), pubkeys: [PKS[1]!] }))];
    txs.push(fake);
  }
  return { hash: serial.toString(16).padStart(64, '0'), height, txs };
}

function check(ix: TokenIndex, where: string): void {
  for (const tokenid of ix.list()) {
    for (const [k, h] of HOLDERS.entries()) {
      const outs = ix.outputsAt(tokenid, h);
      assert.equal(ix.totalAt(tokenid, h), outs.reduce((a, o) => a + o.value, 0n), `${where}: ${tokenid} holder ${k}`);
      // valuesAt: an output of this holder gives its value; another holder's, 0.
      const other = ix.outputsAt(tokenid, HOLDERS[(k + 1) % HOLDERS.length]!);
      const asked: [string, number][] = [...outs, ...other].map((o) => [o.txid, o.index]);
      assert.deepEqual(ix.valuesAt(tokenid, h, asked), [...outs.map((o) => o.value), ...other.map(() => 0n)], `${where}: valuesAt ${tokenid} holder ${k}`);
    }
  }
}

test('token totals: each holder total equals the walk over its token outputs through random blocks, transfers and reorgs', async () => {
  for (const seed of [1, 2]) {
    const rnd = prng(seed);
    const chain: Block[] = [];
    const r = tempIndex(chain);
    let serial = 1;
    let transfers = 0;
    for (let step = 0; step < 40; step++) {
      if (chain.length > 2 && rnd() < 0.2) {
        for (let k = 1 + Math.floor(rnd() * 3); k > 0 && chain.length > 0; k--) {
          const b = chain.pop()!;
          r.disconnect(b);
          check(r.ix, `seed ${seed} step ${step} after disconnecting ${b.height}`);
        }
      }
      const b = randomBlock(rnd, r.ix, chain.length + 1, serial++);
      transfers += b.txs.filter((t) => t.vout.at(-1)!.script[0] === 0x6a && tryDecodeTokenOpRet(t.vout.at(-1)!.script)?.funcid === 't').length;
      r.connect(b);
      chain.push(b);
      check(r.ix, `seed ${seed} step ${step} after connecting ${b.height}`);
    }
    assert.ok(transfers > 30, `${transfers} transfers`);
    // The active chain on a fresh index: the same rows, totals included.
    const replay: Block[] = [];
    const fresh = tempIndex(replay);
    for (const b of chain) {
      fresh.connect(b);
      replay.push(b);
    }
    assert.deepEqual(r.ix.snapshot(), fresh.ix.snapshot(), `seed ${seed}`);
    await fresh.close();
    while (chain.length > 0) r.disconnect(chain.pop()!);
    assert.deepEqual((r.ix.snapshot() as { totals: string[] }).totals, []);
    await r.close();
  }
});
