import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { fromHexReversed, toHex } from '../../src/chain/encoding/hex.js';
import { hash160, sha256 } from '../../src/chain/crypto/hash.js';
import { publicKeyFromPrivate } from '../../src/chain/crypto/secp256k1.js';
import { opReturnScript, p2pkhScript } from '../../src/chain/script/script.js';
import {
  buildTransaction,
  fundTransaction,
  selectCoins,
  selectCoinsMinConf,
  walletFee,
  WalletBuildError,
  CENT,
  type Spendable,
} from '../../src/actors/wallet/select.js';
import { feeForSize } from '../../src/chain/validation/policy.js';
import { COIN } from '../../src/chain/consensus/amount.js';
import { KeyStore } from '../../src/actors/wallet/keystore.js';
import { Secret } from '../../src/chain/crypto/secret.js';
import { sanitize } from '../../src/node/inspect.js';
import { inspect } from 'node:util';
import { parseHexToUInt32 } from '../../src/rpc/methods/rawwallet.js';
import { segid } from '../../src/rpc/methods/wallet.js';
import { decodeDumpString, decodeDumpTime, encodeDumpString, encodeDumpTime } from '../../src/rpc/methods/wallet-dump.js';
import { cpuMs } from '../helpers/cpu-time.js';

/** A deterministic PRNG for the stochastic selection (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SCRIPT = p2pkhScript(new Uint8Array(20).fill(7));
const CHANGE = p2pkhScript(new Uint8Array(20).fill(9));
let nextId = 1;
function coin(value: bigint, depth = 6, fromMe = false): Spendable {
  const txid = (nextId++).toString(16).padStart(64, '0');
  return { txid, n: 0, value, script: SCRIPT, depth, fromMe, sigSize: 107 };
}

function base(): Transaction {
  const tx = new Transaction();
  tx.overwintered = true;
  tx.version = 4;
  tx.versionGroupId = 0x892f2085;
  tx.expiryHeight = 300;
  tx.lockTime = 1234;
  return tx;
}

test('wallet fee: 1000 sat/kB, 5000-sat floor, 0.1 coin cap (CreateTransaction, GetMinimumFee)', () => {
  assert.equal(walletFee(200), 5000n);
  assert.equal(walletFee(5000), 5000n);
  assert.equal(walletFee(5001), 5001n);
  assert.equal(walletFee(150_000), 150_000n);
  assert.equal(walletFee(200_000_000), COIN / 10n);
  assert.equal(feeForSize(1000n, 0), 1000n, 'CFeeRate::GetFee: at least the rate when the size rounds to 0');
  assert.equal(feeForSize(100n, 226), 22n);
});

test('SelectCoinsMinConf: exact match, lowest larger, subset, depth rules', () => {
  const r = rng(1);
  const exact = coin(5n * COIN);
  assert.deepEqual(selectCoinsMinConf(5n * COIN, 1, 6, [coin(COIN), exact, coin(9n * COIN)], r)?.coins, [exact]);
  // All small coins together below the target: the lowest coin above target + CENT.
  const big1 = coin(20n * COIN);
  const big2 = coin(30n * COIN);
  assert.deepEqual(selectCoinsMinConf(3n * COIN, 1, 6, [coin(COIN), big2, big1], r)?.coins, [big1]);
  // Nothing reaches: null.
  assert.equal(selectCoinsMinConf(3n * COIN, 1, 6, [coin(COIN), coin(COIN)], r), null);
  // Small coins summing exactly.
  const smalls = [coin(COIN), coin(2n * COIN)];
  const got = selectCoinsMinConf(3n * COIN, 1, 6, smalls, r)!;
  assert.equal(got.total, 3n * COIN);
  // Depth: a foreign unconfirmed or shallow coin needs 6 confirmations in the first pass, own ones 1.
  assert.equal(selectCoinsMinConf(COIN, 1, 6, [coin(COIN + CENT * 2n, 3, false)], r), null);
  assert.equal(selectCoinsMinConf(COIN, 1, 6, [coin(COIN + CENT * 2n, 3, true)], r)?.total, COIN + CENT * 2n);
  assert.equal(selectCoinsMinConf(COIN, 1, 1, [coin(COIN + CENT * 2n, 0, true)], r), null);
  assert.equal(selectCoinsMinConf(COIN, 0, 1, [coin(COIN + CENT * 2n, 0, true)], r)?.total, COIN + CENT * 2n);
});

test('SelectCoins: preset inputs count first and are always included', () => {
  const preset = coin(10n * COIN);
  const other = coin(4n * COIN);
  const got = selectCoins(5n * COIN, [preset, other], [preset], rng(2))!;
  assert.deepEqual(got.coins, [preset]);
  assert.equal(got.total, 10n * COIN);
  // komodod's quirk: beyond the preset inputs, the other coins must cover the whole target alone.
  assert.equal(selectCoins(12n * COIN, [preset, other], [preset], rng(2)), null);
  const big = coin(13n * COIN);
  const more = selectCoins(12n * COIN, [preset, other, big], [preset], rng(2))!;
  assert.deepEqual(new Set(more.coins), new Set([preset, big]));
  assert.equal(more.total, 23n * COIN);
});

test('CreateTransaction: change before the last recipient, fee loop, dust change to the fee, failures', () => {
  const recipients = [
    { script: SCRIPT, value: COIN, subtractFee: false },
    { script: opReturnScript(Uint8Array.of(1, 2)), value: 0n, subtractFee: false },
  ];
  const built = buildTransaction({ base: base(), recipients, coins: [coin(3n * COIN)], preset: [], changeScript: CHANGE, maxTxSize: 200_000, rand: rng(3) });
  assert.equal(built.fee, 5000n);
  assert.equal(built.changePos, 1);
  assert.deepEqual(built.tx.vout.map((o) => o.value), [COIN, 2n * COIN - 5000n, 0n]);
  assert.equal(built.tx.lockTime, 1234);
  assert.ok(built.tx.vin.every((i) => i.sequence === 0xfffffffe && i.scriptSig.length === 0));

  // Change that would be dust (below 54 sat for P2PKH) is given to the fee: changepos -1.
  const tight = buildTransaction({ base: base(), recipients: [recipients[0]!], coins: [coin(COIN + 5000n + 50n)], preset: [], changeScript: CHANGE, maxTxSize: 200_000, rand: rng(4) });
  assert.equal(tight.changePos, -1);
  assert.equal(tight.fee, 5050n);

  // Subtracting the fee from the amount.
  const sub = buildTransaction({ base: base(), recipients: [{ script: SCRIPT, value: COIN, subtractFee: true }], coins: [coin(COIN)], preset: [], changeScript: CHANGE, maxTxSize: 200_000, rand: rng(5) });
  assert.deepEqual(sub.tx.vout.map((o) => o.value), [COIN - 5000n]);

  const fail = (fn: () => unknown, msg: string) => assert.throws(fn, (e: unknown) => e instanceof WalletBuildError && e.message === msg);
  const req = { base: base(), coins: [coin(COIN)], preset: [], changeScript: CHANGE, maxTxSize: 200_000 };
  fail(() => buildTransaction({ ...req, recipients: [] }), 'Transaction amounts must be positive');
  fail(() => buildTransaction({ ...req, recipients: [{ script: SCRIPT, value: -1n, subtractFee: false }] }), 'Transaction amounts must be positive');
  fail(() => buildTransaction({ ...req, recipients: [{ script: SCRIPT, value: 53n, subtractFee: false }] }), 'Transaction amount too small');
  fail(() => buildTransaction({ ...req, recipients: [{ script: SCRIPT, value: COIN, subtractFee: false }] }), 'Insufficient funds');
  fail(() => buildTransaction({ ...req, preset: null, recipients: [{ script: SCRIPT, value: 1000n, subtractFee: false }] }), 'Insufficient funds');
  fail(
    () => buildTransaction({ ...req, coins: Array.from({ length: 50 }, () => coin(1000n)), maxTxSize: 1000, recipients: [{ script: SCRIPT, value: 40_000n, subtractFee: false }] }),
    'Transaction too large',
  );
});

test('FundTransaction: original header and inputs kept, new inputs appended, change at outputs-1', () => {
  const own = coin(5n * COIN);
  const other = coin(7n * COIN);
  const orig = base();
  orig.vout.push(new TxOut(COIN, CHANGE));
  orig.vout.push(new TxOut(6n * COIN, SCRIPT));
  const { tx, fee, changePos } = fundTransaction(orig, [own, other], [], CHANGE, 200_000, rng(6));
  assert.equal(fee, 5000n);
  assert.equal(changePos, 1, 'change goes before the last original output');
  assert.equal(tx.vin.length, 2);
  assert.ok(tx.vin.every((i) => i.sequence === 0xfffffffe));
  assert.deepEqual(tx.vout.map((o) => o.value), [COIN, 12n * COIN - 7n * COIN - 5000n, 6n * COIN]);
  assert.equal(tx.expiryHeight, 300);
  assert.equal(tx.lockTime, 1234);

  // With inputs already there, only they fund it (komodod's coin control), untouched.
  const withInput = base();
  withInput.vin.push(new TxIn(new Outpoint(fromHexReversed(own.txid), 0), new Uint8Array(0), 0xffffffff));
  withInput.vout.push(new TxOut(4n * COIN, SCRIPT));
  const funded = fundTransaction(withInput, [own, other], [own], CHANGE, 200_000, rng(7));
  assert.equal(funded.tx.vin.length, 1);
  assert.equal(funded.tx.vin[0]!.sequence, 0xffffffff, 'existing inputs untouched');
  assert.equal(funded.changePos, 0);
  assert.deepEqual(funded.tx.vout.map((o) => o.value), [COIN - 5000n, 4n * COIN]);
  withInput.vout[0]!.value = 6n * COIN;
  assert.throws(() => fundTransaction(withInput, [own, other], [own], CHANGE, 200_000, rng(8)), /Insufficient funds/);
});

test('coin selection stays fast with 10,000 wallet outputs', () => {
  const many = Array.from({ length: 10_000 }, (_, i) => coin(BigInt(1000 + (i % 97)) * 100_000n));
  const t0 = cpuMs();
  for (let i = 0; i < 5; i++) buildTransaction({ base: base(), recipients: [{ script: SCRIPT, value: 3n * COIN, subtractFee: false }], coins: many, preset: [], changeScript: CHANGE, maxTxSize: 200_000, rand: rng(i) });
  assert.ok((cpuMs() - t0) / 5 < 500, 'well under half a second per build');
});

test('KeyStore: the first version file format loads; wallet files are 0600', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-ks-'));
  try {
    const secret = sha256(new TextEncoder().encode('old key'));
    const pub = toHex(publicKeyFromPrivate(secret, true));
    // A line as the first KeyStore wrote it (no account, origin node).
    writeFileSync(join(dir, 'wallet.db'), JSON.stringify({ _id: pub, pubkey: pub, secret: toHex(secret), compressed: true, time: 1700000000, origin: 'node' }) + '\n', { mode: 0o600 });
    const ks = await KeyStore.open(dir);
    assert.equal(toHex((await ks.nodeKey()).pubkey), pub);
    assert.equal(toHex(ks.byKeyId(hash160(publicKeyFromPrivate(secret, true)))!.secret!), toHex(secret));
    const pool = await ks.poolKey();
    assert.equal(pool.origin, 'pool');
    assert.equal(toHex((await ks.poolKey()).pubkey), toHex(pool.pubkey), 'the pool key stays until taken');
    const taken = await ks.takePoolKey('');
    assert.equal(toHex(taken.pubkey), toHex(pool.pubkey));
    assert.notEqual(toHex((await ks.poolKey()).pubkey), toHex(pool.pubkey));
    const reopened = await KeyStore.open(dir);
    // The node key, the pool topped up to -keypool + 1 = 101 (TopUpKeyPool), and one more after the take.
    assert.equal(reopened.size, 1 + 101 + 1);
    assert.equal(reopened.byKeyId(hash160(taken.pubkey))!.account, '');
    assert.equal(statSync(join(dir, 'wallet.db')).mode & 0o777, 0o600);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("komodod's small parsers: branch id hex, dump time and strings, segid", () => {
  assert.equal(parseHexToUInt32('76b809bb'), 0x76b809bb);
  assert.equal(parseHexToUInt32('0x5ba81b19'), 0x5ba81b19);
  assert.equal(parseHexToUInt32('zz'), 0);
  assert.equal(parseHexToUInt32('  12abcxyz'), 0x12abc);
  assert.equal(parseHexToUInt32('123456789'), 0xffffffff);
  assert.equal(encodeDumpTime(1700000000), '2023-11-14T22:13:20Z');
  assert.equal(decodeDumpTime('2023-11-14T22:13:20Z'), 1700000000);
  assert.equal(decodeDumpTime('yesterday'), 0);
  assert.equal(encodeDumpString('my label%'), 'my%20label%25');
  assert.equal(decodeDumpString('my%20label%25'), 'my label%');
  assert.ok(segid('RSef6QkA8EBVkPnUn7JYDZd3FpFT41jyya') >= 0 && segid('RSef6QkA8EBVkPnUn7JYDZd3FpFT41jyya') < 64);
});

test('keys crossing the wallet actor never render: JSON, strings, util.inspect, the -inspect sanitiser', () => {
  const bytes = sha256(new TextEncoder().encode('secret'));
  const msg = { op: 'importKey', secret: new Secret(bytes), compressed: true };
  const hex = toHex(bytes);
  assert.ok(!JSON.stringify(msg).includes(hex));
  assert.ok(!inspect(msg, { depth: 5 }).includes(hex));
  assert.ok(!String(msg.secret).includes(hex));
  assert.deepEqual(sanitize(msg), { op: 'importKey', secret: '[secret]', compressed: true });
});
