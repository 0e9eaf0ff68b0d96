import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { TxIn, Outpoint } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { publicKeyFromPrivate } from '../../src/chain/crypto/secp256k1.js';
import { p2pkScript } from '../../src/chain/script/script.js';
import { devChainParams } from '../../src/chain/params/chain-params.js';
import type { Coin } from '../../src/chain/validation/index.js';
import { buildTokenCreate, cc1Script, encodeTokenTransferOpRet, newContextualTransaction, signTokenTx, type SpendableCoin } from '../../src/chain/tokens/index.js';
import { ccReads } from '../../src/chain/assets/context.js';
import { ccEvalChecker } from '../../src/chain/consensus/cc-eval.js';
import { MempoolLogic } from '../../src/actors/mempool/logic.js';
import { VerifyPool } from '../../src/actors/verify/pool.js';
import { ServiceFailure } from '../../src/actors/protocol.js';
import type { Asker } from '../../src/actors/ask.js';
import type { BatchOutcome } from '../../src/machines/service.js';
import type { MempoolNotice } from '../../src/actors/mempool/protocol.js';
import { fakeChainView } from '../helpers/fake-chain-view.js';

/**
 * The mempool's crypto-condition validation reads the chain's transactions (the token's creation, the
 * transactions spent and the ones those spend) only from what it asked the chain store for, by one
 * `ccContext` message sent beside the coins view: no synchronous read of the chain store remains.
 */

const params = devChainParams();
const HEIGHT = 10;
const TIME = 1_700_000_000;
const CTX = { nextHeight: HEIGHT + 1, activation: params.activation };
const KEY_A = Uint8Array.from(Buffer.alloc(32, 0x41));
const PK_A = publicKeyFromPrivate(KEY_A, true);
const PK_B = publicKeyFromPrivate(Uint8Array.from(Buffer.alloc(32, 0x42)), true);

function funding(seed: number): Transaction {
  const tx = new Transaction();
  tx.vin = [new TxIn(new Outpoint(Uint8Array.from(Buffer.alloc(32, seed)), 0), new Uint8Array(0), 0xffffffff)];
  tx.vout = [new TxOut(50_00000000n, p2pkScript(PK_A))];
  return tx;
}

const coin = (tx: Transaction, n: number): SpendableCoin => ({ txid: tx.hash(), vout: n, value: tx.vout[n]!.value, script: tx.vout[n]!.script });

function create(fund: Transaction): Transaction {
  const created = buildTokenCreate({ ...CTX, privateKey: KEY_A, name: 'T', description: '', supply: 1000n, coins: [coin(fund, 0)] });
  assert.ok(created.ok);
  return created.tx;
}

/** A transfer of `c`'s token output and its normal change, `tokensOut` units to B. */
function transfer(c: Transaction, tokensOut: bigint): Transaction {
  const tx = newContextualTransaction(CTX);
  const spent = [coin(c, 1), coin(c, c.vout.length - 2)];
  tx.vin = spent.map((s) => new TxIn(new Outpoint(s.txid, s.vout), new Uint8Array(0), 0xffffffff));
  const total = spent[0]!.value + spent[1]!.value;
  tx.vout = [
    new TxOut(tokensOut, cc1Script(0xf2, PK_B)),
    new TxOut(total - tokensOut - 10000n, p2pkScript(PK_A)),
    new TxOut(0n, encodeTokenTransferOpRet({ tokenid: c.hash(), pubkeys: [PK_B] })),
  ];
  const signed = signTokenTx({ tx, spent, mypk: PK_A, additionalEvalcode2: 0 }, { ...CTX, privateKey: KEY_A });
  assert.ok(signed.ok);
  return signed.tx;
}

/** A chain store holding `confirmed` (their outputs unspent): it answers views and ccContext as the real one does, and records what it was asked. */
function fakeChain(confirmed: Transaction[], asked: { op: string; txids?: string[]; shallow?: string[] }[]): Asker {
  const txs = new Map(confirmed.map((tx) => [tx.txid(), tx]));
  const coinOf = ([t, n]: [string, number]): Coin | null => {
    const out = txs.get(t)?.vout[n];
    return out ? { value: out.value, script: out.script, height: HEIGHT - 1, coinbase: false, txVersion: txs.get(t)!.version } : null;
  };
  const view = (outpoints: [string, number][]) => fakeChainView({ height: HEIGHT, time: TIME, params }, outpoints, (t, n) => coinOf([t, n]), (t) => txs.has(t));
  const chain = {
    ask: async (body: { op: string; outpoints?: [string, number][]; items?: { outpoints: [string, number][] }[]; txids?: string[]; shallow?: string[] }) => {
      asked.push(body);
      if (body.op === 'view') return view(body.outpoints!);
      if (body.op === 'views') return body.items!.map((i) => view(i.outpoints));
      if (body.op === 'ccContext') {
        const out = new Map<string, Transaction>();
        const add = (txid: string) => {
          const tx = txs.get(txid);
          if (tx) out.set(txid, tx);
          return tx;
        };
        for (const txid of body.txids!) {
          const tx = add(txid);
          if (tx) for (const next of ccReads(tx)) add(next);
        }
        for (const txid of body.shallow!) add(txid);
        return [...out];
      }
      throw new Error(`fake chain has no ${body.op}`);
    },
  };
  return chain as never;
}

const mempoolOn = (chain: Asker, verifyPool?: VerifyPool) =>
  new MempoolLogic({ chain: chain as never, dataCarrierSize: 80, now: () => TIME, ccChecker: ccEvalChecker(() => params), ...(verifyPool ? { verifyPool } : {}) });

test('a token transfer is validated against the creation the chain store sent in its ccContext reply', async () => {
  const fund = funding(1);
  const c = create(fund);
  const asked: { op: string; txids?: string[]; shallow?: string[] }[] = [];
  const mempool = mempoolOn(fakeChain([fund, c], asked));
  const honest = transfer(c, 1000n);
  assert.equal(await mempool.accept(honest.toRaw(), false, []), honest.txid());
  const cc = asked.filter((a) => a.op === 'ccContext');
  assert.equal(cc.length, 1, 'one message for the context');
  assert.deepEqual(cc[0]!.txids, [c.txid()], 'the spent transactions and the token creation (the same one here)');

  // Tokens out of nothing are refused by the validator, which reads the same context.
  await assert.rejects(mempoolOn(fakeChain([fund, c], [])).accept(transfer(c, 5000n).toRaw(), false, []), (e: unknown) => e instanceof ServiceFailure && e.code === -26 && /mandatory-script-verify-flag-failed/.test(e.message));
});

test('what the chain store does not send, the validator does not see: no other road to the chain', async () => {
  const fund = funding(2);
  const c = create(fund);
  const asked: { op: string }[] = [];
  // The coins of the creation are known (the view) but the creation itself is not sent as context.
  const chain = fakeChain([fund, c], asked);
  const withoutContext = {
    ask: (body: { op: string }) => (body.op === 'ccContext' ? Promise.resolve([]) : chain.ask(body as never)),
  } as unknown as Asker;
  await assert.rejects(mempoolOn(withoutContext).accept(transfer(c, 1000n).toRaw(), false, []), (e: unknown) => e instanceof ServiceFailure && e.code === -26);
});

test('a plain transaction sends no ccContext message', async () => {
  const fund = funding(3);
  const asked: { op: string }[] = [];
  const mempool = mempoolOn(fakeChain([fund], asked));
  // The creation spends a plain coin: no token transfer OP_RETURN, nothing for a validator to read.
  const c = create(fund);
  assert.equal(await mempool.accept(c.toRaw(), false, []), c.txid());
  assert.deepEqual(asked.map((a) => a.op), ['view']);
});

test('a burst verified in the pool: one ccContext message for all, a transfer of a creation in the same burst found there', async () => {
  const pool = await VerifyPool.start({ threads: 2, batchInputs: 4 });
  try {
    const fund1 = funding(4);
    const fund2 = funding(5);
    const c1 = create(fund1);
    const c2 = create(fund2);
    const asked: { op: string; txids?: string[]; shallow?: string[] }[] = [];
    // c1 is confirmed; c2 arrives in the burst, before its transfer.
    const mempool = mempoolOn(fakeChain([fund1, fund2, c1], asked), pool);
    const items = [transfer(c1, 1000n), c2, transfer(c2, 1000n)];
    const outcomes: BatchOutcome[] = [];
    const notices: MempoolNotice[] = [];
    await mempool.acceptMany(
      items.map((tx) => ({ raw: tx.toRaw(), allowHighFees: false })),
      (o, n) => {
        outcomes.push(...o);
        notices.push(...n);
      },
    );
    while (outcomes.length < items.length) await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(
      outcomes.map((o) => (o.ok ? o.result : String(o.error))),
      items.map((tx) => tx.txid()),
    );
    const cc = asked.filter((a) => a.op === 'ccContext');
    assert.equal(cc.length, 1);
    // c1 from the chain (with what it spends); c2 is the burst's own, and what it spends is asked alone.
    assert.deepEqual(cc[0]!.txids, [c1.txid()]);
    assert.deepEqual(cc[0]!.shallow, [fund2.txid()]);
  } finally {
    await pool.stop();
  }
});
