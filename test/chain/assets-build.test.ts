import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { fromHex, toHex } from '../../src/chain/encoding/hex.js';
import { publicKeyFromPrivate } from '../../src/chain/crypto/secp256k1.js';
import { SAPLING_BRANCH_ID } from '../../src/chain/consensus/upgrades.js';
import { EVAL_ASSETS, EVAL_TOKENS } from '../../src/chain/cc/eval-codes.js';
import { dispatchEval, type EvalRegistry, type EvalResult } from '../../src/chain/cc/verify.js';
import { makeCCChecker } from '../../src/chain/cc/script.js';
import { ccAddress, ccAddressOf } from '../../src/chain/cc/address.js';
import { TransactionSignatureChecker } from '../../src/chain/script/checker.js';
import { STANDARD_SCRIPT_VERIFY_FLAGS } from '../../src/chain/script/flags.js';
import { verifyScript } from '../../src/chain/script/interpreter.js';
import { opReturnScript, p2pkScript } from '../../src/chain/script/script.js';
import { parsePayToCryptoCondition } from '../../src/chain/script/standard.js';
import {
  buildTokenCreate,
  buildTokenTransfer,
  cc1Script,
  decodeTokenOpRet,
  registerTokensValidator,
  tokensCC1Script,
  tokensEvalValidator,
  validateTokens,
  type SpendableCoin,
  type TokenTransferOpRet,
  type TokensEvalContext,
  type TokensLookup,
} from '../../src/chain/tokens/index.js';
import {
  ASSETS_GLOBAL_CC_SCRIPT,
  askLockScript,
  assembleCancelAsk,
  assembleFillAsk,
  assembleFillBid,
  assetsEvalValidator,
  assetsMarkerScript,
  buildAsk,
  buildBid,
  buildCancelAsk,
  buildCancelBid,
  buildFillAsk,
  buildFillBid,
  decodeAssetTokenOpRet,
  encodeAssetBlob,
  encodeAssetOrderOpRet,
  orderAmount,
  registerAssetsValidator,
  signAssetsTx,
  validateAssets,
  type AssetsEvalContext,
} from '../../src/chain/assets/index.js';

const KEY1 = fromHex('0101010101010101010101010101010101010101010101010101010101010101');
const KEY2 = fromHex('0202020202020202020202020202020202020202020202020202020202020202');
const PK1 = publicKeyFromPrivate(KEY1, true);
const PK2 = publicKeyFromPrivate(KEY2, true);
const COIN = 100_000_000n;
const V4 = { nextHeight: 200, activation: { overwinter: 61, sapling: 61 } };

class Chain implements TokensLookup {
  readonly txs = new Map<string, Transaction>();
  add(...txs: Transaction[]): this {
    for (const t of txs) this.txs.set(toHex(t.hash()), t);
    return this;
  }
  getTransaction(h: Uint8Array) {
    return this.txs.get(toHex(h));
  }
}

function funding(outs: TxOut[], tag = 0xab): Transaction {
  const tx = new Transaction();
  tx.vin.push(new TxIn(new Outpoint(new Uint8Array(32).fill(tag), 0)));
  tx.vout = outs;
  return tx;
}

function coinsOf(tx: Transaction, ...idx: number[]): SpendableCoin[] {
  return idx.map((i) => ({ txid: tx.hash(), vout: i, value: tx.vout[i]!.value, script: tx.vout[i]!.script }));
}

type Ctx = TokensEvalContext & AssetsEvalContext;

/** Every input through the interpreter with Tokens and Assets registered; collects the eval reasons. */
function verifyInputs(tx: Transaction, lookup: TokensLookup) {
  const reasons: string[] = [];
  const registry: EvalRegistry<Ctx> = new Map();
  const record = (r: EvalResult) => {
    if (!r.valid) reasons.push(r.reason);
    return r;
  };
  registry.set(EVAL_TOKENS, (e, p, c) => record(tokensEvalValidator(e, p, c)));
  registry.set(EVAL_ASSETS, (e, p, c) => record(assetsEvalValidator(e, p, c)));
  const ccChecker = makeCCChecker((chk: TransactionSignatureChecker) => dispatchEval(registry, { tx: chk.tx, height: 1000, lookup }));
  const results = tx.vin.map((vin, i) => {
    const prev = lookup.getTransaction(vin.prevout.hash)!.vout[vin.prevout.index]!;
    const checker = new TransactionSignatureChecker(tx, i, prev.value, SAPLING_BRANCH_ID, undefined, { ccChecker });
    return verifyScript(vin.scriptSig, prev.script, STANDARD_SCRIPT_VERIFY_FLAGS, checker, { ccEnabled: true });
  });
  return { results, reasons };
}

function assertValid(tx: Transaction, chain: Chain): void {
  const { results, reasons } = verifyInputs(tx, chain);
  assert.deepEqual(reasons, []);
  results.forEach((r, i) => assert.deepEqual(r, { ok: true }, `input ${i}`));
}

const ok = <T>(r: { ok: true; tx: T } | { ok: false; error: string }): T => {
  assert.ok(r.ok, r.ok ? '' : r.error);
  return r.tx;
};

/** A token of 100000 units owned by PK1, 2000 of them passed to PK2, both keys funded. */
function setup() {
  const chain = new Chain();
  const fund1 = funding([new TxOut(5000n * COIN, p2pkScript(PK1)), new TxOut(10n * COIN, p2pkScript(PK1)), new TxOut(10n * COIN, p2pkScript(PK1))], 0xa1);
  const fund2 = funding([new TxOut(5000n * COIN, p2pkScript(PK2)), new TxOut(10n * COIN, p2pkScript(PK2))], 0xa2);
  chain.add(fund1, fund2);
  const create = ok(buildTokenCreate({ ...V4, privateKey: KEY1, name: 'DUKE', description: 'd', supply: 100000n, coins: coinsOf(fund1, 0) }));
  chain.add(create);
  const tokenid = create.hash();
  const xfer = ok(buildTokenTransfer({ ...V4, privateKey: KEY1, tokenid, destPubkey: PK2, amount: 2000n, coins: coinsOf(fund1, 1), tokenCoins: coinsOf(create, 1) }));
  chain.add(xfer);
  assert.deepEqual(validateTokens(xfer, 1000, chain), { ok: true });
  return { chain, fund1, fund2, create, tokenid, xfer };
}

test('tokenask: CreateSell layout (tokens.md §10.2), inputs valid through the interpreter', () => {
  const { chain, fund1, tokenid, xfer } = setup();
  const { numtokens, amount } = orderAmount('100', '7.77');
  assert.equal(amount, 77700000000n);
  const ask = ok(buildAsk({ ...V4, privateKey: KEY1, tokenid, numtokens, askamount: amount, coins: coinsOf(fund1, 2), tokenCoins: coinsOf(xfer, 1) }));
  chain.add(ask);
  // vin: normal, then the token input
  assert.deepEqual(ask.vin.map((v) => v.prevout.index), [2, 1]);
  assert.equal(ask.vout.length, 5);
  assert.equal(ask.vout[0]!.value, 100n);
  assert.equal(ccAddress(parsePayToCryptoCondition(ask.vout[0]!.script)!.condition), 'RTWtxY7GTBZ3zL8jfzyWWz1fveF3KXKBF8');
  assert.equal(ask.vout[1]!.value, 10000n);
  assert.equal(toHex(ask.vout[1]!.script), toHex(assetsMarkerScript(PK1)));
  assert.equal(ccAddress(parsePayToCryptoCondition(ask.vout[1]!.script)!.condition), ccAddressOf(EVAL_ASSETS, PK1));
  assert.equal(ask.vout[2]!.value, 98000n - 100n);
  assert.equal(toHex(ask.vout[2]!.script), toHex(cc1Script(EVAL_TOKENS, PK1)));
  // change = 10 coins - (outputs incl. token values - token inputs) - fee
  assert.equal(ask.vout[3]!.value, 10n * COIN - 10000n - 10000n);
  assert.equal(toHex(ask.vout[3]!.script), toHex(p2pkScript(PK1)));
  const op = decodeAssetTokenOpRet(ask.vout[4]!.script);
  assert.equal(op.funcid, 's');
  assert.equal(op.price, 77700000000n);
  assert.equal(toHex(op.origpubkey), toHex(PK1));
  assert.equal(toHex(op.tokenid), toHex(tokenid));
  const top = decodeTokenOpRet(ask.vout[4]!.script) as TokenTransferOpRet;
  assert.deepEqual(top.pubkeys.map(toHex), ['02adf84e0e075cf90868bd4e3d34a03420e034719649c41f371fc70d8e33aa2702']);
  // the opret's assets blob bytes: e3 73 <price LE> 21 <pk>
  assert.equal(toHex(top.blobs[0]!.data), 'e373' + '00e9471712000000' + '21' + toHex(PK1)); // 77700000000 LE
  assertValid(ask, chain);
});

test('tokenfillask: partial fill, then the rest (clamped), each valid; orders drained', () => {
  const { chain, fund1, fund2, tokenid, xfer } = setup();
  const ask = ok(buildAsk({ ...V4, privateKey: KEY1, tokenid, numtokens: 100n, askamount: 77700000000n, coins: coinsOf(fund1, 2), tokenCoins: coinsOf(xfer, 1) }));
  chain.add(ask);
  const fill1 = ok(buildFillAsk({ ...V4, privateKey: KEY2, tokenid, askTx: ask, fillunits: 40n, coins: coinsOf(fund2, 0) }));
  chain.add(fill1);
  // vin1 is the ask's vout0
  assert.equal(toHex(fill1.vin[1]!.prevout.hash), toHex(ask.hash()));
  assert.equal(fill1.vin[1]!.prevout.index, 0);
  assert.equal(fill1.vout[0]!.value, 60n);
  assert.equal(toHex(fill1.vout[0]!.script), toHex(askLockScript()));
  assert.equal(fill1.vout[1]!.value, 40n);
  assert.equal(toHex(fill1.vout[1]!.script), toHex(cc1Script(EVAL_TOKENS, PK2)));
  assert.equal(fill1.vout[2]!.value, 31080000000n); // 777 coins / 100 units · 40
  assert.equal(toHex(fill1.vout[2]!.script), toHex(p2pkScript(PK1)));
  assert.equal(fill1.vout[3]!.value, 10000n);
  assert.equal(toHex(fill1.vout[3]!.script), toHex(assetsMarkerScript(PK1)));
  assert.equal(toHex(fill1.vout[4]!.script), toHex(p2pkScript(PK2)));
  assert.equal(fill1.vout[4]!.value, 5000n * COIN - 31080000000n - 10000n - 10000n);
  const op1 = decodeAssetTokenOpRet(fill1.vout[5]!.script);
  assert.equal(op1.funcid, 'S');
  assert.equal(op1.price, 77700000000n - 31080000000n);
  assert.equal(toHex(op1.origpubkey), toHex(PK1));
  assert.deepEqual(validateAssets(fill1, 1000, chain), { ok: true });
  assertValid(fill1, chain);

  // the rest: 777 units asked for, clamped to the 60 left; paid = what is still required
  const fund3 = funding([new TxOut(7000n * COIN, p2pkScript(PK2))], 0xa3);
  chain.add(fund3);
  const fill2 = ok(buildFillAsk({ ...V4, privateKey: KEY2, tokenid, askTx: fill1, fillunits: 777n, coins: coinsOf(fund3, 0) }));
  chain.add(fill2);
  assert.equal(fill2.vout[0]!.value, 0n);
  assert.equal(fill2.vout[1]!.value, 60n);
  assert.equal(fill2.vout[2]!.value, 46620000000n);
  const op2 = decodeAssetTokenOpRet(fill2.vout[fill2.vout.length - 1]!.script);
  assert.equal(op2.price, 0n);
  assertValid(fill2, chain);
});

test('tokenbid and tokenfillbid: layout, partial and full fills valid', () => {
  const { chain, fund1, fund2, tokenid, create, xfer } = setup();
  const { numtokens, amount } = orderAmount('100', '10');
  assert.equal(amount, 100000000000n);
  const bid = ok(buildBid({ ...V4, privateKey: KEY1, tokenid, bidamount: amount, numtokens, tokenCreateTx: create, coins: coinsOf(fund1, 2, 0) }));
  chain.add(bid);
  assert.equal(bid.vout[0]!.value, 100000000000n);
  assert.equal(toHex(bid.vout[0]!.script), toHex(ASSETS_GLOBAL_CC_SCRIPT));
  assert.equal(ccAddress(parsePayToCryptoCondition(bid.vout[0]!.script)!.condition), 'RGKRjeTBw4LYFotSDLT6RWzMHbhXri6BG6');
  assert.equal(toHex(bid.vout[1]!.script), toHex(assetsMarkerScript(PK1)));
  assert.equal(bid.vout[1]!.value, 10000n);
  const opb = decodeAssetTokenOpRet(bid.vout[3]!.script);
  assert.equal(opb.funcid, 'b');
  assert.equal(opb.price, 100n);
  assert.deepEqual((decodeTokenOpRet(bid.vout[3]!.script) as TokenTransferOpRet).ccType, 0);
  assertValid(bid, chain);

  // partial: 30 units at 10 coins each
  const fill1 = ok(buildFillBid({ ...V4, privateKey: KEY2, tokenid, bidTx: bid, fillamount: 30n, coins: coinsOf(fund2, 1), tokenCoins: coinsOf(xfer, 0) }));
  chain.add(fill1);
  assert.equal(toHex(fill1.vin[1]!.prevout.hash), toHex(bid.hash()));
  assert.equal(fill1.vout[0]!.value, 70000000000n);
  assert.equal(toHex(fill1.vout[0]!.script), toHex(ASSETS_GLOBAL_CC_SCRIPT));
  assert.equal(fill1.vout[1]!.value, 30000000000n);
  assert.equal(toHex(fill1.vout[1]!.script), toHex(p2pkScript(PK2)));
  assert.equal(fill1.vout[2]!.value, 30n);
  assert.equal(toHex(fill1.vout[2]!.script), toHex(cc1Script(EVAL_TOKENS, PK1)));
  assert.equal(toHex(fill1.vout[3]!.script), toHex(assetsMarkerScript(PK1)));
  assert.equal(fill1.vout[4]!.value, 2000n - 30n);
  assert.equal(toHex(fill1.vout[4]!.script), toHex(cc1Script(EVAL_TOKENS, PK2)));
  const op1 = decodeAssetTokenOpRet(fill1.vout[fill1.vout.length - 1]!.script);
  assert.equal(op1.funcid, 'B');
  assert.equal(op1.price, 70n);
  assertValid(fill1, chain);

  // the rest: 1000 asked, clamped to the 70 still wanted (inputs chosen for 1000)
  const fill2 = ok(buildFillBid({ ...V4, privateKey: KEY2, tokenid, bidTx: fill1, fillamount: 1000n, coins: coinsOf(fill1, 5), tokenCoins: coinsOf(fill1, 4) }));
  chain.add(fill2);
  assert.equal(fill2.vout[0]!.value, 0n);
  assert.equal(fill2.vout[1]!.value, 70000000000n);
  assert.equal(fill2.vout[2]!.value, 70n);
  assert.equal(fill2.vout[4]!.value, 1970n - 70n);
  assert.equal(decodeAssetTokenOpRet(fill2.vout[fill2.vout.length - 1]!.script).price, 0n);
  assertValid(fill2, chain);
});

test('cancel ask and cancel bid by the owner are valid; others are refused', () => {
  const { chain, fund1, fund2, tokenid, create, xfer } = setup();
  const ask = ok(buildAsk({ ...V4, privateKey: KEY1, tokenid, numtokens: 100n, askamount: 777n * COIN, coins: coinsOf(fund1, 2), tokenCoins: coinsOf(xfer, 1) }));
  chain.add(ask);
  const cancel = ok(buildCancelAsk({ ...V4, privateKey: KEY1, tokenid, orderTx: ask, coins: coinsOf(ask, 3) }));
  chain.add(cancel);
  // vin: normal, ask vout0, ask marker (vout1 after an 's')
  assert.deepEqual(cancel.vin.slice(1).map((v) => [toHex(v.prevout.hash), v.prevout.index]), [[toHex(ask.hash()), 0], [toHex(ask.hash()), 1]]);
  assert.equal(cancel.vout[0]!.value, 100n);
  assert.equal(toHex(cancel.vout[0]!.script), toHex(cc1Script(EVAL_TOKENS, PK1)));
  assert.equal(cancel.vout[1]!.value, 10000n);
  assert.equal(toHex(cancel.vout[1]!.script), toHex(p2pkScript(PK1)));
  assert.equal(decodeAssetTokenOpRet(cancel.vout[cancel.vout.length - 1]!.script).funcid, 'x');
  assertValid(cancel, chain);

  // someone else cannot sign the owner's marker: komodod's "CC signing error"
  const other = buildCancelAsk({ ...V4, privateKey: KEY2, tokenid, orderTx: ask, coins: coinsOf(fund2, 1) });
  assert.ok(!other.ok && other.error.startsWith('CC signing error'));

  const bid = ok(buildBid({ ...V4, privateKey: KEY1, tokenid, bidamount: 1000n * COIN, numtokens: 100n, tokenCreateTx: create, coins: coinsOf(fund1, 0) }));
  chain.add(bid);
  const cb = ok(buildCancelBid({ ...V4, privateKey: KEY1, tokenid, orderTx: bid, coins: coinsOf(bid, 2) }));
  chain.add(cb);
  // the bid marker is never spent (komodod checks for 's'/'S')
  assert.equal(cb.vin.length, 2);
  assert.equal(cb.vout[0]!.value, 1000n * COIN);
  assert.equal(toHex(cb.vout[0]!.script), toHex(p2pkScript(PK1)));
  assert.equal(decodeAssetTokenOpRet(cb.vout[cb.vout.length - 1]!.script).funcid, 'o');
  assertValid(cb, chain);

  // a non-owner's cancel-bid builds and signs (the global key signs vin1) but the refund is not to the owner
  const cb2 = ok(buildCancelBid({ ...V4, privateKey: KEY2, tokenid, orderTx: bid, coins: coinsOf(fund2, 1) }));
  assert.deepEqual(validateAssets(cb2, 1000, chain), { ok: false, reason: 'invalid refund for cancelbuy' });
  const { reasons } = verifyInputs(cb2, chain);
  assert.deepEqual(reasons, ['invalid refund for cancelbuy']);
});

/** Assembles, lets `tamper` change the outputs, then signs: valid signatures over a bad transaction. */
function tamperedFillAsk(tamper: (tx: Transaction, tokenid: Uint8Array) => void) {
  const { chain, fund1, fund2, tokenid, xfer } = setup();
  const ask = ok(buildAsk({ ...V4, privateKey: KEY1, tokenid, numtokens: 100n, askamount: 77700000000n, coins: coinsOf(fund1, 2), tokenCoins: coinsOf(xfer, 1) }));
  chain.add(ask);
  const a = assembleFillAsk({ ...V4, pubkey: PK2, tokenid, askTx: ask, fillunits: 40n, coins: coinsOf(fund2, 0) });
  assert.ok(a.ok);
  tamper(a.value.tx, tokenid);
  const tx = ok(signAssetsTx(a.value, { ...V4, privateKey: KEY2 }));
  return { tx, chain, tokenid };
}

const setOpret = (tx: Transaction, tokenid: Uint8Array, pubkeys: Uint8Array[], blob: Uint8Array) => {
  tx.vout[tx.vout.length - 1] = new TxOut(0n, encodeAssetOrderOpRet(tokenid, pubkeys, blob));
};

test('tampered fills are rejected with komodod reasons, through the interpreter too', () => {
  const cases: [string, (tx: Transaction, tokenid: Uint8Array) => void, string][] = [
    ['owner paid one satoshi less', (tx) => {
      tx.vout[2]!.value -= 1n;
    }, 'mismatched remainder for fillask'],
    ['remainder in the opret off by one', (tx, tokenid) => setOpret(tx, tokenid, [PK2], encodeAssetBlob('S', 77700000000n - 31080000000n + 1n, PK1)), 'mismatched remainder for fillask'],
    ['marker of 9999', (tx) => {
      tx.vout[3]!.value = 9999n;
    }, 'invalid marker for original pubkey'],
    ['marker kept by the filler', (tx) => {
      tx.vout[3] = new TxOut(10000n, assetsMarkerScript(PK2));
    }, 'invalid marker for original pubkey'],
    ['payment to the filler instead of the owner', (tx) => {
      tx.vout[2] = new TxOut(tx.vout[2]!.value, p2pkScript(PK2));
    }, 'normal vout1 for fillask'],
    ['more tokens taken than locked', (tx) => {
      tx.vout[1]!.value += 1n;
    }, 'locked value doesnt match vout0+1 fillask'],
    ['tokens bought at a lower unit price', (tx) => {
      tx.vout[0]!.value -= 10n;
      tx.vout[1]!.value += 10n;
    }, 'mismatched remainder for fillask'],
    ['remainder sent away from the global address', (tx) => {
      tx.vout[0] = new TxOut(tx.vout[0]!.value, cc1Script(EVAL_TOKENS, PK2));
    }, 'mismatched vout0 assets dual unspendable CCaddr for fill sell'],
  ];
  for (const [name, tamper, reason] of cases) {
    const { tx, chain } = tamperedFillAsk(tamper);
    assert.deepEqual(validateAssets(tx, 1000, chain), { ok: false, reason }, name);
    const { results, reasons } = verifyInputs(tx, chain);
    assert.ok(reasons.includes(reason), `${name}: ${reasons.join('; ')}`);
    assert.ok(results.some((r) => !r.ok), name);
  }
});

test('tampered bid fills and cancels are rejected with komodod reasons', () => {
  const { chain, fund1, fund2, tokenid, create, xfer } = setup();
  const bid = ok(buildBid({ ...V4, privateKey: KEY1, tokenid, bidamount: 1000n * COIN, numtokens: 100n, tokenCreateTx: create, coins: coinsOf(fund1, 0) }));
  chain.add(bid);
  // PK2 fills 30 of its 2000 units: token change in vout4
  const fillWith = (tamper: (tx: Transaction) => void, units = 30n) => {
    const a = assembleFillBid({ ...V4, pubkey: PK2, tokenid, bidTx: bid, fillamount: units, coins: coinsOf(fund2, 1), tokenCoins: coinsOf(xfer, 0) });
    assert.ok(a.ok);
    tamper(a.value.tx);
    return ok(signAssetsTx(a.value, { ...V4, privateKey: KEY2 }));
  };
  // vout2 + vout4 must equal the token inputs
  const t1 = fillWith((tx) => {
    tx.vout[4]!.value -= 1n;
  });
  assert.deepEqual(validateAssets(t1, 1000, chain), { ok: false, reason: 'asset inputs doesnt match vout2+3 fillbuy' });
  // komodod quirk: with token change present, a marker of 9999 is not looked at
  const t2 = fillWith((tx) => {
    tx.vout[3]!.value = 9999n;
  });
  assert.deepEqual(validateAssets(t2, 1000, chain), { ok: true });
  const t3 = fillWith((tx) => {
    tx.vout[0]!.value -= 1n;
  });
  assert.deepEqual(validateAssets(t3, 1000, chain), { ok: false, reason: 'locked value doesnt match vout0+1 fillbuy' });

  // without token change (a bid for exactly PK2's 2000 units) every rule applies
  const fund4 = funding([new TxOut(3000n * COIN, p2pkScript(PK1))], 0xa4);
  chain.add(fund4);
  const bid2 = ok(buildBid({ ...V4, privateKey: KEY1, tokenid, bidamount: 2000n * COIN, numtokens: 2000n, tokenCreateTx: create, coins: coinsOf(fund4, 0) }));
  chain.add(bid2);
  const fill2With = (tamper: (tx: Transaction) => void, units: bigint) => {
    const a = assembleFillBid({ ...V4, pubkey: PK2, tokenid, bidTx: bid2, fillamount: units, coins: coinsOf(fund2, 1), tokenCoins: coinsOf(xfer, 0) });
    assert.ok(a.ok);
    tamper(a.value.tx);
    return ok(signAssetsTx(a.value, { ...V4, privateKey: KEY2 }));
  };
  const good = fill2With(() => {}, 2000n);
  assert.equal(good.vout[4]!.script.length, 35); // normal change, no token change
  assert.deepEqual(validateAssets(good, 1000, chain), { ok: true });
  assertValid(good, chain);
  const bad = (name: string, tamper: (tx: Transaction) => void, reason: string) => {
    const tx = fill2With(tamper, 2000n);
    assert.deepEqual(validateAssets(tx, 1000, chain), { ok: false, reason }, name);
    assert.ok(verifyInputs(tx, chain).reasons.includes(reason), name);
  };
  bad('marker of 9999', (tx) => {
    tx.vout[3]!.value = 9999n;
  }, 'invalid marker for original pubkey');
  bad('remainder off by one', (tx) => setOpret(tx, tokenid, [PK1], encodeAssetBlob('B', 1n, PK1)), 'mismatched remainder for fillbuy');
  bad('tokens to the filler', (tx) => {
    tx.vout[2] = new TxOut(2000n, cc1Script(EVAL_TOKENS, PK2));
  }, 'vout2 doesnt match inputs fillbuy');
  bad('coins paid as CC', (tx) => {
    tx.vout[1] = new TxOut(tx.vout[1]!.value, assetsMarkerScript(PK2));
  }, 'vout1 is CC for fillbuy');
  bad('owner key swapped in the opret', (tx) => setOpret(tx, tokenid, [PK1], encodeAssetBlob('B', 0n, PK2)), 'mismatched origpubkeys for fillbuy');
});

test('structural refusals: opret, vin0, vin1', () => {
  const { tx, chain, tokenid } = tamperedFillAsk(() => {});
  assert.deepEqual(validateAssets(tx, 1000, chain), { ok: true });
  const clone = () => Transaction.fromRaw(tx.toRaw());
  const t1 = clone();
  t1.vout[t1.vout.length - 1] = new TxOut(0n, opReturnScript(fromHex('f274')));
  assert.deepEqual(validateAssets(t1, 1000, chain), { ok: false, reason: 'AssetValidate: invalid opreturn payload' });
  const t2 = clone();
  [t2.vin[0], t2.vin[1]] = [t2.vin[1]!, t2.vin[0]!];
  assert.deepEqual(validateAssets(t2, 1000, chain), { ok: false, reason: 'illegal asset vin0' });
  const t3 = clone();
  t3.vin[1]!.prevout = new Outpoint(t3.vin[1]!.prevout.hash, 1);
  assert.deepEqual(validateAssets(t3, 1000, chain), { ok: false, reason: 'vin1 needs to be buyvin.vout[0]' });
  const t4 = clone();
  setOpret(t4, new Uint8Array(32).fill(7), [PK2], encodeAssetBlob('S', 1n, PK1));
  assert.deepEqual(validateAssets(t4, 1000, chain), { ok: false, reason: 'cant find asset create txid' });
  const t5 = clone();
  setOpret(t5, tokenid, [PK2], encodeAssetBlob('s', 1n, PK1));
  assert.deepEqual(validateAssets(t5, 1000, chain), { ok: false, reason: 'invalid asset funcid (s)' });
  const t6 = clone();
  setOpret(t6, tokenid, [PK2], encodeAssetBlob('x'));
  assert.deepEqual(validateAssets(t6, 1000, chain), { ok: false, reason: 'invalid vout for cancel' });
  const t7 = clone();
  t7.vout = [t7.vout[t7.vout.length - 1]!];
  assert.deepEqual(validateAssets(t7, 1000, chain), { ok: false, reason: 'too few vouts' });
});

test('cancel-ask tokens to someone else are refused', () => {
  const { chain, fund1, tokenid, xfer } = setup();
  const ask = ok(buildAsk({ ...V4, privateKey: KEY1, tokenid, numtokens: 100n, askamount: 777n * COIN, coins: coinsOf(fund1, 2), tokenCoins: coinsOf(xfer, 1) }));
  chain.add(ask);
  const a = assembleCancelAsk({ ...V4, pubkey: PK1, tokenid, orderTx: ask, coins: coinsOf(ask, 3) });
  assert.ok(a.ok);
  a.value.tx.vout[0] = new TxOut(100n, cc1Script(EVAL_TOKENS, PK2));
  const tx = ok(signAssetsTx(a.value, { ...V4, privateKey: KEY1 }));
  assert.deepEqual(validateAssets(tx, 1000, chain), { ok: false, reason: 'invalid vout for cancel' });
  assert.ok(verifyInputs(tx, chain).reasons.includes('invalid vout for cancel'));
});

test('registerAssetsValidator puts the validator under 0xe3 next to the tokens one', () => {
  const reg = registerAssetsValidator(registerTokensValidator(new Map<number, never>() as EvalRegistry<Ctx>));
  assert.deepEqual([...reg.keys()].sort(), [EVAL_ASSETS, EVAL_TOKENS].sort());
});

test('NFTs: the ask locks at the three-eval global address; fill and cancel keep the NFT eval', () => {
  const chain = new Chain();
  const fund1 = funding([new TxOut(100n * COIN, p2pkScript(PK1)), new TxOut(10n * COIN, p2pkScript(PK1))], 0xb1);
  const fund2 = funding([new TxOut(100n * COIN, p2pkScript(PK2))], 0xb2);
  chain.add(fund1, fund2);
  const nftData = fromHex('f70101');
  const create = ok(buildTokenCreate({ ...V4, privateKey: KEY1, name: 'NFT', description: '', supply: 1n, nftData, coins: coinsOf(fund1, 0) }));
  chain.add(create);
  const tokenid = create.hash();
  const ask = ok(buildAsk({ ...V4, privateKey: KEY1, tokenid, numtokens: 1n, askamount: 5n * COIN, nftData, coins: coinsOf(create, 2), tokenCoins: coinsOf(create, 1) }));
  chain.add(ask);
  assert.equal(toHex(ask.vout[0]!.script), toHex(askLockScript(0xf7)));
  assert.notEqual(toHex(askLockScript(0xf7)), toHex(askLockScript()));
  assert.deepEqual(validateTokens(ask, 1000, chain), { ok: true });
  // signatures only (no validator is registered for the NFT's eval code here)
  const sigsOk = (tx: Transaction) =>
    tx.vin.forEach((vin, i) => {
      const prev = chain.getTransaction(vin.prevout.hash)!.vout[vin.prevout.index]!;
      const checker = new TransactionSignatureChecker(tx, i, prev.value, SAPLING_BRANCH_ID, undefined, { ccChecker: makeCCChecker() });
      assert.deepEqual(verifyScript(vin.scriptSig, prev.script, STANDARD_SCRIPT_VERIFY_FLAGS, checker, { ccEnabled: true }), { ok: true }, `input ${i}`);
    });
  sigsOk(ask);

  const cancel = ok(buildCancelAsk({ ...V4, privateKey: KEY1, tokenid, orderTx: ask, nftData, coins: coinsOf(fund1, 1) }));
  assert.equal(toHex(cancel.vout[0]!.script), toHex(tokensCC1Script(0xf7, 0, PK1)));
  assert.deepEqual(validateAssets(cancel, 1000, chain), { ok: true });
  assert.deepEqual(validateTokens(cancel, 1000, chain), { ok: true });
  sigsOk(cancel);

  const fill = ok(buildFillAsk({ ...V4, privateKey: KEY2, tokenid, askTx: ask, fillunits: 1n, nftData, coins: coinsOf(fund2, 0) }));
  chain.add(fill);
  assert.equal(fill.vout[0]!.value, 0n);
  assert.equal(toHex(fill.vout[0]!.script), toHex(askLockScript(0xf7)));
  assert.equal(toHex(fill.vout[1]!.script), toHex(tokensCC1Script(0xf7, 0, PK2)));
  assert.equal(fill.vout[2]!.value, 5n * COIN);
  assert.deepEqual(validateAssets(fill, 1000, chain), { ok: true });
  assert.deepEqual(validateTokens(fill, 1000, chain), { ok: true });
  sigsOk(fill);
  // a fungible-shaped lock for an NFT ask is not the dual-eval global address komodod expects
  const a = assembleCancelAsk({ ...V4, pubkey: PK1, tokenid, orderTx: ask, coins: coinsOf(fund1, 1) }); // no nftData: {f2} output
  assert.ok(a.ok);
  assert.deepEqual(validateAssets(a.value.tx, 1000, chain), { ok: false, reason: 'invalid vout for cancel' });
});
