import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { fromHex, toHex } from '../../src/chain/encoding/hex.js';
import { hash160 } from '../../src/chain/crypto/hash.js';
import { publicKeyFromPrivate } from '../../src/chain/crypto/secp256k1.js';
import { SAPLING_BRANCH_ID, SPROUT_BRANCH_ID } from '../../src/chain/consensus/upgrades.js';
import { SAPLING_TX_VERSION } from '../../src/chain/consensus/tx.js';
import { CC_BURNPUBKEY, moduleGlobal } from '../../src/chain/cc/globals.js';
import { dispatchEval, type EvalRegistry } from '../../src/chain/cc/verify.js';
import { makeCCChecker } from '../../src/chain/cc/script.js';
import { ccAddress } from '../../src/chain/cc/address.js';
import { TransactionSignatureChecker } from '../../src/chain/script/checker.js';
import { STANDARD_SCRIPT_VERIFY_FLAGS } from '../../src/chain/script/flags.js';
import { verifyScript } from '../../src/chain/script/interpreter.js';
import { p2pkScript, p2pkhScript } from '../../src/chain/script/script.js';
import { parsePayToCryptoCondition } from '../../src/chain/script/standard.js';
import {
  EVAL_TOKENS,
  TOKENS_GLOBAL_PRIVKEY,
  TOKENS_GLOBAL_PUBKEY,
  TOKENS_MARKER_SCRIPT,
  TOKENS_TXFEE,
  buildTokenCreate,
  buildTokenTransfer,
  cc1Script,
  decodeTokenOpRet,
  encodeTokenTransferOpRet,
  registerTokensValidator,
  selectNormalInputs,
  signTokenTx,
  tokensCC1Script,
  validateTokens,
  type SpendableCoin,
  type TokenTransferOpRet,
  type TokensEvalContext,
  type TokensLookup,
} from '../../src/chain/tokens/index.js';

const KEY1 = fromHex('0101010101010101010101010101010101010101010101010101010101010101');
const KEY2 = fromHex('0202020202020202020202020202020202020202020202020202020202020202');
const PK1 = publicKeyFromPrivate(KEY1, true);
const PK2 = publicKeyFromPrivate(KEY2, true);
const COIN = 100_000_000n;
const V4 = { nextHeight: 200, activation: { overwinter: 61, sapling: 61 } };
const V1 = { nextHeight: 20, activation: { overwinter: 61, sapling: 61 } };

function lookupOf(...txs: Transaction[]): TokensLookup {
  const m = new Map(txs.map((t) => [toHex(t.hash()), t]));
  return { getTransaction: (h) => m.get(toHex(h)) };
}

/** A transaction paying `outs` from a made-up outpoint: it stands for the wallet's earlier coins. */
function funding(outs: TxOut[]): Transaction {
  const tx = new Transaction();
  tx.vin.push(new TxIn(new Outpoint(new Uint8Array(32).fill(0xab), 0)));
  tx.vout = outs;
  return tx;
}

function coinsOf(tx: Transaction, ...idx: number[]): SpendableCoin[] {
  return idx.map((i) => ({ txid: tx.hash(), vout: i, value: tx.vout[i]!.value, script: tx.vout[i]!.script }));
}

/**
 * Every input through the interpreter: CC inputs with their evals dispatched to a registry holding
 * the Tokens validator (or, with `evals` false, signatures only). Returns each input's result.
 */
function verifyInputs(tx: Transaction, spent: TxOut[], branchId: number, lookup: TokensLookup, evals = true) {
  const registry: EvalRegistry<TokensEvalContext> = registerTokensValidator(new Map());
  const ccChecker = evals
    ? makeCCChecker((chk: TransactionSignatureChecker) => dispatchEval(registry, { tx: chk.tx, height: 1000, lookup }))
    : makeCCChecker();
  return tx.vin.map((vin, i) => {
    const checker = new TransactionSignatureChecker(tx, i, spent[i]!.value, branchId, undefined, { ccChecker });
    return verifyScript(vin.scriptSig, spent[i]!.script, STANDARD_SCRIPT_VERIFY_FLAGS, checker, { ccEnabled: true });
  });
}

function verifyAll(tx: Transaction, spent: TxOut[], branchId: number, lookup: TokensLookup): void {
  verifyInputs(tx, spent, branchId, lookup).forEach((r, i) => assert.deepEqual(r, { ok: true }, `input ${i}`));
}

function spentOutputs(tx: Transaction, lookup: TokensLookup): TxOut[] {
  return tx.vin.map((i) => lookup.getTransaction(i.prevout.hash)!.vout[i.prevout.index]!);
}

function setup() {
  const fund = funding([new TxOut(2000n * COIN, p2pkScript(PK1)), new TxOut(5n * COIN, p2pkhScript(hash160(PK1)))]);
  const r = buildTokenCreate({ ...V4, privateKey: KEY1, name: 'DUKE', description: "Duke's custom token", supply: 198742000000n, coins: coinsOf(fund, 0, 1) });
  assert.ok(r.ok, r.ok ? '' : r.error);
  return { fund, create: r.tx };
}

test('tokencreate: komodod layout (tokens.md §5.2, §7), v4 at a Sapling height, input signed', () => {
  const { fund, create } = setup();
  assert.equal(create.version, SAPLING_TX_VERSION);
  assert.equal(create.expiryHeight, V4.nextHeight + 200);
  assert.equal(create.vin.length, 1);
  // AddNormalinputs2(supply + 2*txfee, 64): the 5-coin output is below it, the 2000-coin one is taken
  assert.equal(create.vin[0]!.prevout.index, 0);
  assert.equal(create.vout.length, 4);
  assert.equal(create.vout[0]!.value, 10000n);
  assert.equal(toHex(create.vout[0]!.script), '2ea22c8020432de388aabcb6b4e3326351d1d815cee8be9a8d37b055cd1c0cf8782e5c50c08103120c008203000401cc'); // tokens.md §5.2
  assert.equal(ccAddress(parsePayToCryptoCondition(create.vout[0]!.script)!.condition), 'RAMvUfoyURBRxAdVeTMHxn3giJZCFWeha2');
  assert.equal(create.vout[1]!.value, 198742000000n);
  assert.equal(toHex(create.vout[1]!.script), toHex(cc1Script(EVAL_TOKENS, PK1)));
  // change = inputs - (outputs + txfee), P2PK to the creator
  assert.equal(create.vout[2]!.value, 2000n * COIN - 198742000000n - 10000n - 10000n);
  assert.equal(toHex(create.vout[2]!.script), toHex(p2pkScript(PK1)));
  assert.equal(create.vout[3]!.value, 0n);
  assert.equal(decodeTokenOpRet(create.vout[3]!.script).funcid, 'c');
  verifyAll(create, spentOutputs(create, lookupOf(fund)), SAPLING_BRANCH_ID, lookupOf(fund));
  // no CC input: the Tokens validator does not apply (run anyway: komodod's answer for a 'c' opret)
  assert.deepEqual(validateTokens(create, 1000, lookupOf(fund, create)), { ok: false, reason: 'cant find token create txid' });
});

test('tokencreate refusals in CreateToken order', () => {
  const fund = funding([new TxOut(1n * COIN, p2pkScript(PK1)), new TxOut(1n * COIN, p2pkScript(PK2))]);
  const base = { ...V4, privateKey: KEY1, name: 'T', description: '', coins: coinsOf(fund, 0) };
  const err = (o: Partial<Parameters<typeof buildTokenCreate>[0]>) => {
    const r = buildTokenCreate({ ...base, supply: 1000n, ...o });
    return r.ok ? undefined : r.error;
  };
  assert.equal(err({ supply: -1n }), 'negative tokensupply');
  assert.equal(err({ supply: 2n, nftData: fromHex('f701') }), 'for non-fungible tokens tokensupply should be equal to 1');
  assert.equal(err({ name: 'x'.repeat(33) }), 'name should be <= 32, description should be <= 4096');
  assert.equal(err({ supply: COIN }), 'cant find normal inputs');
  // inputs from another key than the -pubkey's do not count as the creator's
  assert.equal(err({ coins: coinsOf(fund, 1), supply: 1000n }), 'some inputs signed not with -pubkey=pk');
  assert.equal(err({}), undefined);
});

test('tokentransfer: layout, vin reordering, signatures, and the validator accepts it', () => {
  const { fund, create } = setup();
  // three small wallet coins for the fee: AddNormalinputs(txfee, 3) picks 6000 then 4000 (CC_vinselect)
  const fees = funding([new TxOut(4000n, p2pkScript(PK1)), new TxOut(5000n, p2pkScript(PK1)), new TxOut(6000n, p2pkScript(PK1))]);
  const tokenid = create.hash();
  const r = buildTokenTransfer({ ...V4, privateKey: KEY1, tokenid, destPubkey: PK2, amount: 1000n, coins: coinsOf(fees, 0, 1, 2), tokenCoins: coinsOf(create, 1) });
  assert.ok(r.ok, r.ok ? '' : r.error);
  const t = r.tx;
  // n1, cc, n2 (FinalizeCCTx moves the second normal input behind the CC one)
  assert.deepEqual(t.vin.map((i) => [toHex(i.prevout.hash), i.prevout.index]), [
    [toHex(fees.hash()), 2],
    [toHex(create.hash()), 1],
    [toHex(fees.hash()), 0],
  ]);
  // vout0 to destpk, vout1 token change, no normal change (10000 in, fee 10000), OP_RETURN
  assert.equal(t.vout.length, 3);
  assert.equal(t.vout[0]!.value, 1000n);
  assert.equal(toHex(t.vout[0]!.script), toHex(cc1Script(EVAL_TOKENS, PK2)));
  assert.equal(t.vout[1]!.value, 198742000000n - 1000n);
  assert.equal(toHex(t.vout[1]!.script), toHex(cc1Script(EVAL_TOKENS, PK1)));
  const op = decodeTokenOpRet(t.vout[2]!.script) as TokenTransferOpRet;
  assert.equal(op.funcid, 't');
  assert.equal(toHex(op.tokenid), toHex(tokenid));
  assert.deepEqual(op.pubkeys.map(toHex), [toHex(PK2)]);

  const lookup = lookupOf(fund, fees, create, t);
  assert.deepEqual(validateTokens(t, 1000, lookup), { ok: true });
  verifyAll(t, spentOutputs(t, lookup), SAPLING_BRANCH_ID, lookup);

  // the receiver passes it on, in a v1 transaction (before Sapling): legacy sighash for the CC input
  const fund2 = funding([new TxOut(COIN, p2pkScript(PK2))]);
  const r2 = buildTokenTransfer({ ...V1, privateKey: KEY2, tokenid, destPubkey: PK1, amount: 1000n, coins: coinsOf(fund2, 0), tokenCoins: coinsOf(t, 0) });
  assert.ok(r2.ok, r2.ok ? '' : r2.error);
  const t2 = r2.tx;
  assert.equal(t2.version, 1);
  assert.equal(t2.overwintered, false);
  assert.equal(t2.vout.length, 3); // all 1000 units to PK1 (no token change), normal change, opret
  assert.equal(t2.vout[1]!.value, COIN - 10000n); // change = inputs - (outputs + txfee), token values included on both sides
  const lookup2 = lookupOf(fund, fees, create, t, fund2, t2);
  assert.deepEqual(validateTokens(t2, 1000, lookup2), { ok: true });
  verifyAll(t2, spentOutputs(t2, lookup2), SPROUT_BRANCH_ID, lookup2);
});

test('tokentransfer refusals in TokenTransfer order', () => {
  const { create } = setup();
  const fees = funding([new TxOut(9999n, p2pkScript(PK1)), new TxOut(COIN, p2pkScript(PK1))]);
  const base = { ...V4, privateKey: KEY1, tokenid: create.hash(), destPubkey: PK2, amount: 1000n, coins: coinsOf(fees, 1), tokenCoins: coinsOf(create, 1) };
  const err = (o: Partial<Parameters<typeof buildTokenTransfer>[0]>) => {
    const r = buildTokenTransfer({ ...base, ...o });
    return r.ok ? undefined : r.error;
  };
  assert.equal(err({ coins: coinsOf(fees, 0) }), 'insufficient normal inputs for tx fee');
  assert.equal(err({ tokenCoins: [] }), 'no token inputs');
  assert.equal(err({ amount: 198742000001n }), 'insufficient token inputs');
  assert.equal(err({}), undefined);
});

test('tampered transfers are rejected with komodod reasons', () => {
  const { fund, create } = setup();
  const fees = funding([new TxOut(COIN, p2pkScript(PK1))]);
  const tokenid = create.hash();
  const r = buildTokenTransfer({ ...V4, privateKey: KEY1, tokenid, destPubkey: PK2, amount: 500n, coins: coinsOf(fees, 0), tokenCoins: coinsOf(create, 1) });
  assert.ok(r.ok);
  const good = r.tx;
  const base = [fund, fees, create];
  const check = (tx: Transaction, extra: Transaction[] = []) => validateTokens(tx, 1000, lookupOf(...base, ...extra, tx));
  assert.deepEqual(check(good), { ok: true });

  const more = good.clone();
  more.vout[0]!.value += 1n; // more out than in
  assert.deepEqual(check(more), { ok: false, reason: 'tokens cc inputs != cc outputs' });

  const unlisted = good.clone();
  const PK3 = publicKeyFromPrivate(fromHex('03'.repeat(32)), true);
  unlisted.vout[0]!.script = cc1Script(EVAL_TOKENS, PK3); // to a key neither in the opret nor signing
  assert.deepEqual(check(unlisted), { ok: false, reason: 'tokens cc inputs != cc outputs' });

  const wrongEval = good.clone();
  wrongEval.vout[0]!.script = tokensCC1Script(0xe3, 0, PK2); // listed key, but an eval set not derived from the opret
  assert.deepEqual(check(wrongEval), { ok: false, reason: 'tokens cc inputs != cc outputs' });

  const otherToken = good.clone(); // the opret names another tx as the token
  otherToken.vout[otherToken.vout.length - 1]!.script = encodeTokenTransferOpRet({ tokenid: fees.hash(), pubkeys: [PK2] });
  assert.deepEqual(check(otherToken), { ok: false, reason: 'tokens cc inputs != cc outputs' });

  const unknownToken = good.clone();
  unknownToken.vout[unknownToken.vout.length - 1]!.script = encodeTokenTransferOpRet({ tokenid: new Uint8Array(32).fill(9), pubkeys: [PK2] });
  assert.deepEqual(check(unknownToken), { ok: false, reason: 'cant find token create txid' });

  const noOpret = good.clone(); // missing OP_RETURN: the last output is not a token opret
  noOpret.vout.pop();
  assert.deepEqual(check(noOpret), { ok: false, reason: 'TokenValidate: invalid opreturn payload' });

  // the token's creation must be in the context...
  assert.deepEqual(validateTokens(good, 1000, lookupOf(fund, fees, good)), { ok: false, reason: 'cant find token create txid' });
  // ...so must every tx whose outputs are spent (here PK2 passes on what `good` gave it)...
  const fees2 = funding([new TxOut(COIN, p2pkScript(PK2))]);
  const next = buildTokenTransfer({ ...V4, privateKey: KEY2, tokenid, destPubkey: PK1, amount: 500n, coins: coinsOf(fees2, 0), tokenCoins: coinsOf(good, 0) });
  assert.ok(next.ok);
  assert.deepEqual(validateTokens(next.tx, 1000, lookupOf(fund, fees, create, good, fees2, next.tx)), { ok: true });
  assert.deepEqual(validateTokens(next.tx, 1000, lookupOf(fund, fees, create, fees2, next.tx)), { ok: false, reason: 'always should find vin tx, but didnt' });
  // ...and so must the creation's own funding: without it the supply is not backed and counts 0
  assert.deepEqual(validateTokens(good, 1000, lookupOf(fees, create, good)), { ok: false, reason: 'tokens cc inputs != cc outputs' });
});

test('markers: a create without its marker still backs its supply; spending the marker with a burn is refused', () => {
  const fund = funding([new TxOut(100n * COIN, p2pkScript(PK1))]);
  const r = buildTokenCreate({ ...V4, privateKey: KEY1, name: 'M', description: '', supply: 5000n, coins: coinsOf(fund, 0) });
  assert.ok(r.ok);
  const create = r.tx;

  // IsTokensvout's 'c' branch asks for no marker: the marker only serves discovery (tokenlist).
  const noMarker = create.clone();
  noMarker.vout.shift();
  const fees = funding([new TxOut(COIN, p2pkScript(PK1))]);
  const t = buildTokenTransfer({ ...V4, privateKey: KEY1, tokenid: noMarker.hash(), destPubkey: PK2, amount: 10n, coins: coinsOf(fees, 0), tokenCoins: coinsOf(noMarker, 0) });
  assert.ok(t.ok);
  assert.deepEqual(validateTokens(t.tx, 1000, lookupOf(fund, fees, noMarker, t.tx)), { ok: true });

  // Spend the supply and the marker (signed with the Tokens global key), burning part of the supply.
  const spend = (outs: TxOut[], tokenOuts: Uint8Array[]) => {
    const tx = new Transaction();
    tx.overwintered = true;
    tx.version = 4;
    tx.versionGroupId = 0x892f2085;
    tx.expiryHeight = V4.nextHeight + 200;
    const spent = [...coinsOf(fees, 0), ...coinsOf(create, 1, 0)];
    tx.vin = spent.map((c) => new TxIn(new Outpoint(c.txid, c.vout)));
    tx.vout = [...outs, new TxOut(0n, encodeTokenTransferOpRet({ tokenid: create.hash(), pubkeys: tokenOuts }))];
    const s = signTokenTx({ tx, spent, mypk: PK1, additionalEvalcode2: 0 }, { ...V4, privateKey: KEY1 });
    assert.ok(s.ok, s.ok ? '' : s.error);
    return s.tx;
  };
  const burn = spend([new TxOut(100n, cc1Script(EVAL_TOKENS, CC_BURNPUBKEY)), new TxOut(4900n, cc1Script(EVAL_TOKENS, PK1))], [CC_BURNPUBKEY]);
  const lookup = lookupOf(fund, fees, create, burn);
  assert.deepEqual(validateTokens(burn, 1000, lookup), { ok: false, reason: 'spending cc marker not supported for fungible tokens' });
  // Every signature is good (the marker's by the global key); the CC inputs fail on the Tokens eval.
  const spentOuts = spentOutputs(burn, lookup);
  assert.deepEqual(verifyInputs(burn, spentOuts, SAPLING_BRANCH_ID, lookup, false), [{ ok: true }, { ok: true }, { ok: true }]);
  assert.deepEqual(verifyInputs(burn, spentOuts, SAPLING_BRANCH_ID, lookup).map((x) => x.ok), [true, false, false]);
  // Without the burn the same marker spend passes the Tokens rules.
  const keep = spend([new TxOut(5000n, cc1Script(EVAL_TOKENS, PK1))], [PK2]);
  assert.deepEqual(validateTokens(keep, 1000, lookupOf(fund, fees, create, keep)), { ok: true });
  // A transfer whose token inputs hold no tokens (the marker alone) is refused.
  const markerOnly = (() => {
    const tx = keep.clone();
    const spent = [...coinsOf(fees, 0), ...coinsOf(create, 0)];
    tx.vin = spent.map((c) => new TxIn(new Outpoint(c.txid, c.vout)));
    tx.vout = [new TxOut(0n, encodeTokenTransferOpRet({ tokenid: create.hash(), pubkeys: [PK2] }))];
    return tx;
  })();
  const signed = signTokenTx({ tx: markerOnly, spent: [...coinsOf(fees, 0), ...coinsOf(create, 0)], mypk: PK1, additionalEvalcode2: 0 }, { ...V4, privateKey: KEY1 });
  assert.ok(signed.ok);
  assert.deepEqual(validateTokens(signed.tx, 1000, lookupOf(fund, fees, create, signed.tx)), { ok: false, reason: 'no token inputs for transfer' });
});

test('NFT: create with data, transfer with the dual-eval condition', () => {
  const fund = funding([new TxOut(COIN, p2pkScript(PK1))]);
  const data = fromHex('f70102');
  const r = buildTokenCreate({ ...V4, privateKey: KEY1, name: 'NFT', description: 'one', supply: 1n, nftData: data, coins: coinsOf(fund, 0) });
  assert.ok(r.ok, r.ok ? '' : r.error);
  const create = r.tx;
  assert.equal(toHex(create.vout[1]!.script), toHex(tokensCC1Script(0xf7, 0, PK1))); // evals {f7, f2}
  const fees = funding([new TxOut(COIN, p2pkScript(PK1))]);
  const t = buildTokenTransfer({ ...V4, privateKey: KEY1, tokenid: create.hash(), destPubkey: PK2, amount: 1n, nftData: data, coins: coinsOf(fees, 0), tokenCoins: coinsOf(create, 1) });
  assert.ok(t.ok, t.ok ? '' : t.error);
  assert.equal(toHex(t.tx.vout[0]!.script), toHex(tokensCC1Script(0xf7, 0, PK2)));
  assert.deepEqual(validateTokens(t.tx, 1000, lookupOf(fund, fees, create, t.tx)), { ok: true });
  // sent as a fungible token output instead, the NFT is not recognised
  const fungible = t.tx.clone();
  fungible.vout[0]!.script = cc1Script(EVAL_TOKENS, PK2);
  assert.deepEqual(validateTokens(fungible, 1000, lookupOf(fund, fees, create, fungible)), { ok: false, reason: 'tokens cc inputs != cc outputs' });
});

test('global keys: the Tokens private key is the one of the global pubkey; the marker sits at its CC address', () => {
  assert.equal(toHex(publicKeyFromPrivate(TOKENS_GLOBAL_PRIVKEY, true)), toHex(TOKENS_GLOBAL_PUBKEY));
  assert.equal(toHex(TOKENS_MARKER_SCRIPT), toHex(cc1Script(EVAL_TOKENS, moduleGlobal(EVAL_TOKENS)!.pubkey)));
  assert.equal(TOKENS_TXFEE, 10000n);
});

test('AddNormalinputs selection: threshold, gathering and CC_vinselect picks', () => {
  const c = (v: bigint, i: number) => ({ txid: new Uint8Array(32).fill(i), vout: 0, value: v });
  // below total/maxinputs are skipped; exact match wins
  assert.deepEqual(selectNormalInputs([c(1n, 1), c(10000n, 2), c(50000n, 3)], 10000n, 3)?.map((x) => x.value), [10000n]);
  // the smallest above the remainder is taken first
  assert.deepEqual(selectNormalInputs([c(90000n, 1), c(20000n, 2)], 15000n, 3)?.map((x) => x.value), [90000n]);
  // gathering stops once the sum is reached: later coins are never looked at
  assert.deepEqual(selectNormalInputs([c(8000n, 1), c(8000n, 2), c(1000000n, 3)], 15000n, 3)?.map((x) => x.value), [8000n, 8000n]);
  assert.equal(selectNormalInputs([c(4000n, 1)], 10000n, 3), null);
});
