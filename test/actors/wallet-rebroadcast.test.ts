import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { Block } from '../../src/chain/block/block.js';
import { BlockHeader } from '../../src/chain/block/header.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { fromHexReversed } from '../../src/chain/encoding/hex.js';
import { hash160, sha256 } from '../../src/chain/crypto/hash.js';
import { p2pkhScript } from '../../src/chain/script/script.js';
import { devChainParams } from '../../src/chain/params/chain-params.js';
import { KeyStore } from '../../src/actors/wallet/keystore.js';
import { WalletLogic, type TxDetail } from '../../src/actors/wallet/logic.js';
import { ResendClock, compareTxids, reacceptOrder, resendable, type PendingTx } from '../../src/actors/wallet/rebroadcast.js';

/**
 * The rules behind the wallet's re-accept at start and its rebroadcast (komodod's
 * ReacceptWalletTransactions and ResendWalletTransactions), and the wallet actor acting on them.
 */

const outside = Buffer.from(sha256(Uint8Array.of(7))).toString('hex');

function tx(inputs: [string, number][], outputs: Uint8Array[], lockTime = 0): Transaction {
  const t = new Transaction();
  t.overwintered = true;
  t.version = 4;
  t.versionGroupId = 0x892f2085;
  t.lockTime = lockTime;
  for (const [txid, n] of inputs) t.vin.push(new TxIn(new Outpoint(fromHexReversed(txid), n)));
  for (const script of outputs) t.vout.push(new TxOut(1000n, script));
  return t;
}

const other = p2pkhScript(hash160(sha256(Uint8Array.of(1))));
const pending = (t: Transaction, seq: number, timeReceived = 0): PendingTx => ({ txid: t.txid(), tx: t, seq, timeReceived });

test('re-accept order: by the order learned, a transaction always after the ones it spends', () => {
  const a = tx([[outside, 0]], [other, other]);
  const b = tx([[a.txid(), 0]], [other]);
  const c = tx([[b.txid(), 0], [a.txid(), 1]], [other]);
  const lone = tx([[outside, 1]], [other]);
  // The grandchild was learned first, its parent next, the root last: every one still after its parents.
  const order = reacceptOrder([pending(c, 1), pending(lone, 2), pending(b, 3), pending(a, 4)]).map((p) => p.txid);
  assert.deepEqual(order, [a.txid(), b.txid(), c.txid(), lone.txid()]);
  // Independent ones keep nOrderPos order.
  assert.deepEqual(reacceptOrder([pending(lone, 9), pending(a, 3)]).map((p) => p.txid), [a.txid(), lone.txid()]);
  // A chain far deeper than the stack would allow recursion for.
  const chain: PendingTx[] = [];
  let prev = outside;
  for (let i = 0; i < 20_000; i++) {
    const t = tx([[prev, 0]], [other]);
    prev = t.txid();
    chain.push(pending(t, 20_000 - i));
  }
  assert.deepEqual(reacceptOrder(chain).map((p) => p.txid), chain.map((p) => p.txid));
});

test('resend clock: the first call only schedules; a round acts once per new block', () => {
  const draws: number[] = [];
  const clock = new ResendClock({ maxDelay: 1800, minAge: 300 }, (n) => {
    assert.equal(n, 1800);
    return draws.shift() ?? 0;
  });
  draws.push(600);
  assert.equal(clock.round(1000), null, 'the first call only sets the next time');
  assert.equal(clock.dueIn(1000), 600);
  assert.equal(clock.round(1599), null, 'not due yet');
  draws.push(10);
  // nTimeBestReceived 0 (no block since the start) is not older than nLastResend 0: a round with nothing before -300.
  assert.equal(clock.round(1600), -300);
  clock.bestReceived = 1500;
  assert.equal(clock.round(1610), null, 'the last block came before the last round');
  clock.bestReceived = 1605;
  assert.equal(clock.round(1611), 1305, 'a block came since: what was received 300 s before it');
  assert.equal(clock.round(1612), null, 'no block since the last round');
  clock.bestReceived = 1611;
  assert.equal(clock.round(1613), 1311, 'a block in the same second as the last round still counts');
});

test('resendable: received before the limit, oldest first, old time locks left out as komodod does', () => {
  const now = 1_700_000_000;
  const mk = (lockTime: number, timeReceived: number, n: number) => pending(tx([[outside, n]], [other], lockTime), n, timeReceived);
  const fresh = mk(now - 100, 50, 1);
  const older = mk(now - 200, 40, 2);
  const tooNew = mk(now - 100, 61, 3);
  const staleLock = mk(now - 3601, 10, 4);
  const heightLock = mk(1000, 20, 5);
  const got = resendable([fresh, older, tooNew, staleLock, heightLock], 60, now).map((p) => p.txid);
  assert.deepEqual(got, [heightLock.txid, older.txid, fresh.txid]);
  // Equal times: mapWallet's uint256 order.
  const x = mk(0, 5, 6);
  const y = mk(0, 5, 7);
  const tie = resendable([x, y], 5, now).map((p) => p.txid);
  assert.deepEqual(tie, [x.txid, y.txid].sort(compareTxids));
  assert.equal(compareTxids('01' + '00'.repeat(31), '00'.repeat(31) + '01'), -1, 'the last display byte is the most significant');
});

test('wallet: at load the unconfirmed transactions re-enter the mempool, parents first, unannounced', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-wallet-reaccept-'));
  try {
    const keys = await KeyStore.open(dir);
    const mine = p2pkhScript(hash160((await keys.nodeKey()).pubkey));
    let now = 1_700_000_000;
    const confirmed = tx([[outside, 0]], [mine, mine]);
    const parent = tx([[confirmed.txid(), 0]], [mine, mine]);
    const child = tx([[parent.txid(), 1]], [mine]);
    const inMempool = tx([[outside, 1]], [mine]);
    // Two spends of the same wallet coin: one mined, the other left out of every block.
    const minedSpend = tx([[confirmed.txid(), 1]], [other]);
    const conflicted = tx([[confirmed.txid(), 1]], [other, other]);
    const inChainIds = new Set([confirmed.txid(), minedSpend.txid()]);
    const asked: { op: string; [k: string]: unknown }[] = [];
    let tipTime = now - 60;
    const chain = {
      ask: async (b: { op: string; txids?: string[] }) => {
        asked.push(b);
        if (b.op === 'coinsByScript') return { height: 10, hash: '00'.repeat(32), mtp: 0, coins: [] };
        if (b.op === 'tip') return { height: 10, time: tipTime };
        if (b.op === 'inChain') return b.txids!.map((t) => inChainIds.has(t));
        return null;
      },
    } as never;
    let mempoolEntries: { txid: string; tx: Transaction }[] = [];
    const mempool = {
      ask: async (b: { op: string; raw?: Uint8Array; relay?: boolean }) => {
        asked.push(b);
        if (b.op === 'entries') return mempoolEntries;
        if (b.op === 'accept') {
          const t = Transaction.fromRaw(b.raw!);
          if (t.txid() === conflicted.txid()) throw new Error('18: bad-txns-inputs-spent');
          return t.txid();
        }
        return null;
      },
    } as never;
    const logs: string[] = [];
    const open = () =>
      new WalletLogic({ chain, mempool, keys, dir, params: () => devChainParams(), now: () => now, log: (m) => logs.push(m), random: () => 0, resendTimes: { maxDelay: 1, minAge: 0 } });
    const block = (t: Transaction) => new Block(new BlockHeader(), [t]);

    // First life: the wallet learns them, the child before its parent (as a -rescan or a relay could).
    const first = open();
    await first.load();
    await first.write({ op: 'blockConnected', block: block(confirmed), txids: [confirmed.txid()], height: 11 });
    await first.write({ op: 'txsAccepted', items: [child, inMempool, parent, conflicted].map((t) => ({ txid: t.txid(), tx: t })) });
    await first.write({ op: 'blockConnected', block: block(minedSpend), txids: [minedSpend.txid()], height: 12 });

    // Second life: the mempool holds only one of them.
    asked.length = 0;
    mempoolEntries = [{ txid: inMempool.txid(), tx: inMempool }];
    const wallet = open();
    await wallet.load();
    const ids = (bs: typeof asked) => bs.map((b) => Transaction.fromRaw(b.raw as Uint8Array).txid());
    assert.deepEqual(asked.find((b) => b.op === 'inChain')?.txids, [confirmed, child, parent, conflicted, minedSpend].map((t) => t.txid()), 'all but the one in the mempool, in the order learned');
    const accepts = asked.filter((b) => b.op === 'accept');
    assert.deepEqual(ids(accepts), [parent.txid(), child.txid(), conflicted.txid()], 'the parent before its child');
    assert.ok(accepts.every((b) => b.relay === false && b.allowHighFees === false));
    assert.ok(logs.includes(`wallet: transaction ${conflicted.txid()} not re-accepted into the mempool: 18: bad-txns-inputs-spent`));
    assert.ok(logs.includes('wallet: re-accepted 2 of 3 unconfirmed wallet transactions into the mempool'));
    assert.ok(wallet.memCoins.has(`${child.txid()}:0`), "a re-accepted transaction is in the wallet's mempool view at once");

    // GetConflicts: the two spenders of one output name each other; the others name none.
    assert.deepEqual(wallet.read({ op: 'conflicts', txid: conflicted.txid() }), [minedSpend.txid()]);
    assert.deepEqual(wallet.read({ op: 'conflicts', txid: minedSpend.txid() }), [conflicted.txid()]);
    assert.deepEqual(wallet.read({ op: 'conflicts', txid: child.txid() }), []);
    assert.deepEqual(wallet.read({ op: 'conflicts', txid: parent.txid() }), []);
    // The same, carried with the record gettransaction/listtransactions read (one index lookup per input).
    assert.deepEqual((wallet.read({ op: 'txDetail', txid: conflicted.txid() }) as TxDetail).conflicts, [minedSpend.txid()]);
    assert.deepEqual((wallet.read({ op: 'txDetail', txid: child.txid() }) as TxDetail).conflicts, []);

    // Rebroadcast: the first call schedules; the next ones act only once a block has come since.
    type Round = { result: number; notices?: { type: string; items: { txid: string }[] }[] };
    const resend = async () => (await wallet.write({ op: 'resend' })) as Round;
    assert.deepEqual(await resend(), { result: 1000 });
    assert.deepEqual(await resend(), { result: 1000 }, 'no block since the start: nothing');
    now++;
    assert.deepEqual(await resend(), { result: 1000 });
    await wallet.write({ op: 'blockConnected', block: block(tx([[outside, 9]], [other])), txids: ['ab'.repeat(32)], height: 13 });
    now++;
    const round = await resend();
    assert.equal(round.notices?.length, 1);
    assert.equal(round.notices![0]!.type, 'relayTxs');
    assert.deepEqual(
      round.notices![0]!.items.map((i) => i.txid).sort(),
      [parent.txid(), child.txid(), inMempool.txid()].sort(),
      'the conflicted one is not in the mempool: not resent',
    );
    assert.ok(logs.includes('ResendWalletTransactions: rebroadcast 3 unconfirmed transactions'));
    now++;
    assert.deepEqual(await resend(), { result: 1000 }, 'once per block');

    // A start on a stale tip (initial block download) re-accepts nothing, and the rounds wait.
    tipTime = now - 25 * 3600;
    asked.length = 0;
    mempoolEntries = [];
    const stale = open();
    await stale.load();
    assert.equal(asked.filter((b) => b.op === 'accept').length, 0);
    assert.deepEqual(await stale.write({ op: 'resend' }), { result: 5000 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
