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
import { fromHexReversed, toHex } from '../../src/chain/encoding/hex.js';
import { ServiceFailure } from '../../src/actors/protocol.js';
import { hash160, sha256 } from '../../src/chain/crypto/hash.js';
import { p2pkhScript, p2pkScript } from '../../src/chain/script/script.js';
import { publicKeyFromPrivate } from '../../src/chain/crypto/secp256k1.js';
import { Secret } from '../../src/chain/crypto/secret.js';
import { devChainParams } from '../../src/chain/params/chain-params.js';
import { KeyStore } from '../../src/actors/wallet/keystore.js';
import { WalletLogic } from '../../src/actors/wallet/logic.js';

/** The wallet's view of the mempool: what a transaction's arrival adds, its removal takes away, and no more. */

function tx(inputs: [string, number][], outputs: Uint8Array[]): Transaction {
  const t = new Transaction();
  t.overwintered = true;
  t.version = 4;
  t.versionGroupId = 0x892f2085;
  for (const [txid, n] of inputs) t.vin.push(new TxIn(new Outpoint(fromHexReversed(txid), n)));
  for (const script of outputs) t.vout.push(new TxOut(1000n, script));
  return t;
}

test('wallet mempool coins: a removed transaction takes exactly its own coins and spends with it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-wallet-mempool-'));
  try {
    const keys = await KeyStore.open(dir);
    const mine = p2pkhScript(hash160((await keys.nodeKey()).pubkey));
    const other = p2pkhScript(hash160(sha256(Uint8Array.of(1))));
    const fake = (answers: Record<string, unknown>) => ({ ask: async (b: { op: string }) => answers[b.op] }) as never;
    const wallet = new WalletLogic({
      chain: fake({ coinsByScript: { height: 10, hash: '00'.repeat(32), mtp: 0, coins: [] }, tip: { height: 10, time: 0 } }),
      mempool: fake({ entries: [] }),
      keys,
      dir,
      params: () => devChainParams(),
    });
    await wallet.load();
    const outside = sha256(Uint8Array.of(2));
    const a = tx([[Buffer.from(outside).toString('hex'), 0]], [mine, other, mine]); // pays the wallet twice
    const b = tx([[a.txid(), 0]], [other]); // spends one of a's wallet coins
    const c = tx([[a.txid(), 2]], [mine]); // spends the other, pays the wallet
    const unrelated = tx([[Buffer.from(outside).toString('hex'), 1]], [other]);
    await wallet.write({ op: 'txsAccepted', items: [a, b, c, unrelated].map((t) => ({ txid: t.txid(), tx: t })) });
    const state = () => ({ coins: [...wallet.memCoins.keys()].sort(), spent: [...wallet.memSpent].sort() });
    assert.deepEqual(state(), {
      coins: [`${a.txid()}:0`, `${a.txid()}:2`, `${c.txid()}:0`].sort(),
      spent: [[`${a.txid()}:0`, b.txid()], [`${a.txid()}:2`, c.txid()], [`${Buffer.from(outside).toString('hex')}:0`, a.txid()]].sort(),
    });
    await wallet.write({ op: 'txsRemoved', txids: [unrelated.txid(), b.txid()] });
    assert.deepEqual(state().spent, [[`${a.txid()}:2`, c.txid()], [`${Buffer.from(outside).toString('hex')}:0`, a.txid()]].sort());
    assert.equal(wallet.memCoins.size, 3, "b paid no wallet output: a's and c's coins stay");
    await wallet.write({ op: 'txsRemoved', txids: [a.txid()] });
    assert.deepEqual(state(), { coins: [`${c.txid()}:0`], spent: [[`${a.txid()}:2`, c.txid()]] });
    await wallet.write({ op: 'txsRemoved', txids: [c.txid(), c.txid()] });
    assert.deepEqual(state(), { coins: [], spent: [] });

    // A block can reach the wallet before the txAccepted of a transaction in it (still being verified
    // in a burst): the mempool's txRemoved for the mined transaction, which follows, clears it.
    const d = tx([[Buffer.from(outside).toString('hex'), 3]], [mine]);
    const header = new BlockHeader();
    const block = new Block(header, [d]);
    await wallet.write({ op: 'blockConnected', block, txids: [d.txid()], height: 11 });
    await wallet.write({ op: 'txsAccepted', items: [{ txid: d.txid(), tx: d }] });
    assert.deepEqual(state().coins, [`${d.txid()}:0`]);
    await wallet.write({ op: 'txsRemoved', txids: [d.txid()] });
    assert.deepEqual(state(), { coins: [], spent: [] });
    assert.ok(wallet.coins.has(`${d.txid()}:0`), 'confirmed');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the wallet's send reaches the mempool as sendrawtransaction's lone call does: gathered, with the built transaction; a refusal is komodod's CommitTransaction error", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-wallet-send-'));
  try {
    const keys = await KeyStore.open(dir);
    const mine = p2pkhScript(hash160((await keys.nodeKey()).pubkey));
    const other = p2pkhScript(hash160(sha256(Uint8Array.of(1))));
    const asked: { op: string; raw?: Uint8Array; tx?: unknown; gathered?: boolean; allowHighFees?: boolean }[] = [];
    let refuse = false;
    const chain = { ask: async (b: { op: string }) => ({ coinsByScript: { height: 12, hash: '00'.repeat(32), mtp: 0, coins: [] }, tip: { height: 12, time: 0, mtp: 5 } } as Record<string, unknown>)[b.op] } as never;
    const mempool = {
      ask: async (b: (typeof asked)[0]) => {
        if (b.op === 'entries') return [];
        asked.push(b);
        if (refuse) throw new ServiceFailure(-26, '18: bad-txns-in-belowout');
        return Transaction.fromRaw(b.raw!).txid();
      },
    } as never;
    const wallet = new WalletLogic({ chain, mempool, keys, dir, params: () => devChainParams() });
    await wallet.load();
    const funding = tx([[toHex(sha256(Uint8Array.of(3))), 0]], [mine]);
    funding.vout[0]!.value = 100_000_000n;
    await wallet.write({ op: 'blockConnected', block: new Block(new BlockHeader(), [funding]), txids: [funding.txid()], height: 11 });
    await wallet.write({ op: 'blockConnected', block: new Block(new BlockHeader(), []), txids: [], height: 12 });
    const send = () => wallet.write({ op: 'send', recipients: [{ script: other, value: 10_000_000n, subtractFee: false }], mapValue: {} });
    const txid = (await send()).result as string;
    assert.equal(asked.length, 1);
    const body = asked[0]!;
    assert.equal(body.op, 'accept');
    assert.equal(body.gathered, true, 'no turn of waiting for company: the mempool takes it at once');
    assert.equal(body.allowHighFees, false, 'fRejectAbsurdFee, as CommitTransaction');
    assert.ok(body.tx instanceof Transaction, 'the built transaction travels with its bytes (not parsed again)');
    assert.equal(toHex((body.tx as Transaction).toRaw()), toHex(body.raw!), 'the transaction is the bytes');
    assert.equal((body.tx as Transaction).txid(), txid);
    // A refusal: komodod's CommitTransaction message, whatever the mempool's reason.
    refuse = true;
    await assert.rejects(send(), (e: ServiceFailure) => e.code === -4 && e.message.startsWith('Error: The transaction was rejected! This might happen if some of the coins in your wallet were already spent'));
    assert.equal(asked.length, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A wallet over a chain at height 12 and a mempool taking every send (kept in `sent`). */
async function sendingWallet(dir: string): Promise<{ keys: KeyStore; wallet: WalletLogic; sent: Transaction[] }> {
  const keys = await KeyStore.open(dir);
  const chain = { ask: async (b: { op: string }) => ({ coinsByScript: { height: 12, hash: '00'.repeat(32), mtp: 0, coins: [] }, tip: { height: 12, time: 0, mtp: 5 } } as Record<string, unknown>)[b.op] } as never;
  const sent: Transaction[] = [];
  const mempool = { ask: async (b: { op: string; raw?: Uint8Array }) => (b.op === 'entries' ? [] : (sent.push(Transaction.fromRaw(b.raw!)), sent.at(-1)!.txid())) } as never;
  const wallet = new WalletLogic({ chain, mempool, keys, dir, params: () => devChainParams() });
  await wallet.load();
  return { keys, wallet, sent };
}

test("coin selection's scriptSig sizes (DummySignatureCreator): P2PKH to a compressed and an uncompressed wallet key, P2PK, as the signed inputs take them", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-wallet-sigsize-'));
  try {
    const { keys, wallet, sent } = await sendingWallet(dir);
    const node = await keys.nodeKey();
    const secret = sha256(Uint8Array.of(42));
    await wallet.write({ op: 'importKey', secret: new Secret(secret), compressed: false, label: '', rescan: false });
    const scripts = [p2pkhScript(hash160(node.pubkey)), p2pkhScript(hash160(publicKeyFromPrivate(secret, false))), p2pkScript(node.pubkey)];
    const funding = tx([[toHex(sha256(Uint8Array.of(3))), 0]], scripts);
    for (const o of funding.vout) o.value = 100_000n;
    await wallet.write({ op: 'blockConnected', block: new Block(new BlockHeader(), [funding]), txids: [funding.txid()], height: 11 });
    const sizes = new Map(wallet.spendable().map((c) => [c.n, c.sigSize]));
    assert.deepEqual([0, 1, 2].map((n) => sizes.get(n)), [107, 139, 73]);
    // Each the size of its signed input's scriptSig with a 72-byte signature (+ the push of the public key).
    const spend = await wallet.write({ op: 'send', recipients: [{ script: p2pkhScript(new Uint8Array(20)), value: 290_000n, subtractFee: false }], mapValue: {} });
    assert.equal(typeof spend.result, 'string');
    assert.equal(sent[0]!.vin.length, 3, 'all three coins spent');
    for (const input of sent[0]!.vin) {
      const sig = input.scriptSig[0]!;
      assert.equal(input.scriptSig.length - sig + 72, sizes.get(input.prevout.index), `input spending output ${input.prevout.index}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("sendtoaddress's balance check inside the send (SendMoney): over GetBalance() fails -6 before building, the whole balance passes it and fails on the fee (-4)", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-wallet-checkbalance-'));
  try {
    const { keys, wallet } = await sendingWallet(dir);
    const mine = p2pkhScript(hash160((await keys.nodeKey()).pubkey));
    const funding = tx([[toHex(sha256(Uint8Array.of(3))), 0]], [mine]);
    funding.vout[0]!.value = 100_000n;
    await wallet.write({ op: 'blockConnected', block: new Block(new BlockHeader(), [funding]), txids: [funding.txid()], height: 11 });
    const send = (value: bigint, checkBalance?: boolean) => wallet.write({ op: 'send', recipients: [{ script: p2pkhScript(new Uint8Array(20)), value, subtractFee: false }], mapValue: {}, ...(checkBalance ? { checkBalance } : {}) });
    await assert.rejects(send(100_001n, true), (e: ServiceFailure) => e.code === -6 && e.message === 'Insufficient funds');
    // Without the check (sendmany, sendfrom check their account's funds themselves) the builder answers.
    await assert.rejects(send(100_001n), (e: ServiceFailure) => e.code === -4 && e.message === 'Insufficient funds');
    await assert.rejects(send(100_000n, true), (e: ServiceFailure) => e.code === -4 && e.message.startsWith('Error: This transaction requires a transaction fee of at least 0.00005000'));
    assert.equal(typeof (await send(95_000n, true)).result, 'string');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
