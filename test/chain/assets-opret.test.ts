import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DecodeError } from '../../src/chain/encoding/errors.js';
import { fromHex, toHex } from '../../src/chain/encoding/hex.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { opReturnScript } from '../../src/chain/script/script.js';
import { encodeTokenTransferPayload } from '../../src/chain/tokens/opret.js';
import { needVectors, loadVector } from '../helpers/vectors.js';
import { ASSETS_GLOBAL_CC_SCRIPT } from '../../src/chain/assets/index.js';
import { parsePayToCryptoCondition } from '../../src/chain/script/standard.js';
import { getCryptoCondition } from '../../src/chain/tokens/vins.js';
import { conditionBinary } from '../../src/chain/cc/index.js';
import {
  askPaidAmount,
  decodeAssetBlob,
  decodeAssetTokenOpRet,
  encodeAssetBlob,
  encodeAssetOrderOpRet,
  orderAmount,
  setAskFillamounts,
  setBidFillamounts,
  tryDecodeAssetTokenOpRet,
  validateAskRemainder,
  validateAssets,
  validateBidRemainder,
} from '../../src/chain/assets/index.js';

const PK = fromHex('02676d00110c2cd14ae24f95969e8598f7ccfaa675498b82654a5b5bd57fc1d8cf'); // the qa test key (tokens.md §12)
const TOKENID = fromHex('11'.repeat(31) + '22');

test('order blobs: komodod byte layout (tokens.md §10.1)', () => {
  assert.equal(toHex(encodeAssetBlob('s', 77700000000n, PK)), 'e373' + '00e9471712000000' + '21' + toHex(PK));
  assert.equal(toHex(encodeAssetBlob('B', 70n, PK)), 'e342' + '4600000000000000' + '21' + toHex(PK));
  assert.equal(toHex(encodeAssetBlob('x')), 'e378');
  assert.equal(toHex(encodeAssetBlob('o')), 'e36f');
  assert.equal(toHex(encodeAssetBlob('q')), ''); // EncodeAssetOpRet: an illegal funcid gives an empty vector
  const op = decodeAssetTokenOpRet(encodeAssetOrderOpRet(TOKENID, [PK], encodeAssetBlob('S', 5n, PK)));
  assert.equal(op.funcid, 'S');
  assert.equal(op.price, 5n);
  assert.equal(toHex(op.tokenid), toHex(TOKENID));
  // the whole opret: f2 't' <tokenid display order> 01 21 <pk> 12 <len> <blob>
  const payload = encodeTokenTransferPayload({ tokenid: TOKENID, pubkeys: [PK], blobs: [{ id: 0x12, data: encodeAssetBlob('x') }] });
  assert.equal(toHex(payload), 'f274' + toHex(Uint8Array.from(TOKENID).reverse()) + '0121' + toHex(PK) + '1202e378');
  // 'x'/'o' with anything after the funcid, priced funcids with trailing bytes, other eval codes: no asset opret
  assert.throws(() => decodeAssetBlob(fromHex('e37800')), DecodeError);
  assert.throws(() => decodeAssetBlob(Uint8Array.from([...encodeAssetBlob('s', 1n, PK), 0])), DecodeError);
  assert.throws(() => decodeAssetBlob(fromHex('e473')), DecodeError);
  assert.throws(() => decodeAssetBlob(fromHex('e3')), DecodeError);
  assert.throws(() => decodeAssetBlob(fromHex('e363')), DecodeError); // 'c' is not an asset funcid
  // the pre-opretid layout (one unlabelled blob) is relabelled by the token decoder and decodes too
  const old = opReturnScript(Uint8Array.from([0xf2, 0x74, ...Uint8Array.from(TOKENID).reverse(), 0, 0x02, 0xe3, 0x6f]));
  assert.equal(decodeAssetTokenOpRet(old).funcid, 'o');
  // a swap blob carries assetid2 in display order
  const e = decodeAssetBlob(encodeAssetBlob('e', 3n, PK, TOKENID));
  assert.equal(toHex(e.assetid2), toHex(TOKENID));
});

test('order arithmetic: komodod integer prices and clamps (CCassetsCore.cpp)', () => {
  // tokenask "100" tid "7.77" → 77700000000; tokenbid "100" tid "10" → 100000000000 (tokens.md §10.1)
  assert.equal(orderAmount('100', '7.77').amount, 77700000000n);
  assert.equal(orderAmount('100', '10').amount, 100000000000n);
  assert.equal(orderAmount('1.9', '1').numtokens, 1n); // atoll
  assert.equal(orderAmount('-1', '1').amount, -100000000n);
  assert.equal(orderAmount('1', 'abc').amount, 0n);
  // fill ask: paid uses doubles; received = paid / dprice
  assert.equal(askPaidAmount(77700000000n, 100n, 40n), 31080000000n);
  assert.deepEqual(setAskFillamounts(100n, 31080000000n, 77700000000n), { receivedAssetoshis: 40n, remainingNValue: 46620000000n, paidNValue: 31080000000n, ok: true });
  assert.deepEqual(setAskFillamounts(100n, 80000000000n, 77700000000n), { receivedAssetoshis: 100n, remainingNValue: 0n, paidNValue: 77700000000n, ok: true });
  assert.deepEqual(setAskFillamounts(100n, 1n, 0n), { receivedAssetoshis: 0n, remainingNValue: 0n, paidNValue: 0n, ok: false });
  // fill bid: integer unit price, fill clamped to what is wanted
  assert.deepEqual(setBidFillamounts(100000000000n, 30n, 100n), { receivedNValue: 30000000000n, remainingUnits: 70n, paidUnits: 30n, ok: true });
  assert.deepEqual(setBidFillamounts(100000000000n, 1000n, 100n), { receivedNValue: 100000000000n, remainingUnits: 0n, paidUnits: 100n, ok: true });
  assert.deepEqual(setBidFillamounts(5n, 1n, 10n), { receivedNValue: 0n, remainingUnits: 9n, paidUnits: 1n, ok: false }); // unit price 0
  // remainders: sums must hold and the received unit price must not fall below the order's
  assert.equal(validateAskRemainder(46620000000n, 60n, 100n, 40n, 31080000000n, 77700000000n), true);
  assert.equal(validateAskRemainder(46620000001n, 60n, 100n, 40n, 31080000000n, 77700000000n), false);
  assert.equal(validateAskRemainder(46620000000n + 100n, 60n, 100n, 40n, 31080000000n - 100n, 77700000000n), false); // 777000000 - 2.5 per unit: below
  assert.equal(validateAskRemainder(0n, 0n, 100n, 100n, 0n, 77700000000n), false); // nothing paid
  assert.equal(validateBidRemainder(70n, 70000000000n, 100000000000n, 30000000000n, 30n, 100n), true);
  assert.equal(validateBidRemainder(71n, 70000000000n, 100000000000n, 30000000000n, 30n, 100n), false);
  // komodod checks the filler received at least the unit price: receiving more passes
  assert.equal(validateBidRemainder(70n, 69000000000n, 100000000000n, 31000000000n, 30n, 100n), true);
  // int64 wrap, as the C code computes
  assert.equal(validateBidRemainder(-(1n << 63n), 0n, 1n, 1n, (1n << 63n) - 1n, -1n), true);
});

/** xorshift32 */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
}

function mutate(src: Uint8Array, next: () => number): Uint8Array {
  let b = Uint8Array.from(src);
  const n = 1 + (next() % 4);
  for (let k = 0; k < n; k++) {
    const kind = next() % 6;
    const at = b.length ? next() % b.length : 0;
    if (kind === 0 && b.length) b[at] = next() & 0xff;
    else if (kind === 1 && b.length) b[at] = b[at]! ^ (1 << (next() % 8));
    else if (kind === 2) b = b.slice(0, at);
    else if (kind === 3) b = Uint8Array.from([...b.slice(0, at), ...Array.from({ length: 1 + (next() % 8) }, () => next() & 0xff), ...b.slice(at)]);
    else if (kind === 4 && b.length) b = Uint8Array.from([...b.slice(0, at), ...b.slice(at + 1 + (next() % 4))]);
    else if (b.length) b[at] = [0x00, 0xfd, 0xfe, 0xff, 0x12, 0xe3, 0x21, 0x73, 0x78, 0x6f, 0x53, 0x42][next() % 12]!;
  }
  return b;
}

test('seeded mutation of order blobs and oprets: only DecodeError escapes, and the validator always answers', () => {
  const next = rng(0xa55e7);
  const seeds = [
    encodeAssetBlob('s', 77700000000n, PK),
    encodeAssetBlob('S', 1n, PK),
    encodeAssetBlob('b', 100n, PK),
    encodeAssetBlob('B', 0n, PK),
    encodeAssetBlob('x'),
    encodeAssetBlob('o'),
    encodeAssetBlob('E', 9n, PK, TOKENID),
  ];
  const lookup = { getTransaction: () => undefined };
  let decoded = 0;
  for (let i = 0; i < 3000; i++) {
    const seed = seeds[i % seeds.length]!;
    const blob = mutate(seed, next);
    try {
      const b = decodeAssetBlob(blob);
      decoded++;
      // what decodes re-encodes to the same bytes
      assert.equal(toHex(encodeAssetBlob(b.funcid, b.price, b.origpubkey, b.assetid2)), toHex(blob));
    } catch (e) {
      assert.ok(e instanceof DecodeError, String(e));
    }
    // the whole opret, mutated as a payload too
    const script = i % 2 ? encodeAssetOrderOpRet(TOKENID, [PK], blob) : opReturnScript(mutate(encodeAssetOrderOpRet(TOKENID, [PK], seed).subarray(2), next));
    try {
      decodeAssetTokenOpRet(script);
    } catch (e) {
      assert.ok(e instanceof DecodeError, String(e));
    }
    assert.doesNotThrow(() => tryDecodeAssetTokenOpRet(script));
    // a transaction ending with it: the validator answers (valid or a reason), never throws
    const tx = new Transaction();
    tx.vin.push(new TxIn(new Outpoint(new Uint8Array(32).fill(1), 0)), new TxIn(new Outpoint(new Uint8Array(32).fill(2), 0)));
    tx.vout.push(new TxOut(1n, fromHex('00')), new TxOut(0n, script));
    const r = validateAssets(tx, 1, lookup);
    assert.equal(r.ok, false);
  }
  assert.ok(decoded > 100, `only ${decoded} mutants decoded`);
});

test('a pre-tokens Assets transaction from komodod\'s docs: its e3 opret is no token opret, and its vin1 is the Assets global key', needVectors, () => {
  const tx = Transaction.fromHex(loadVector<{ hex: string }>('komodo-examples/developer-docs/assets_21d152480275.json').hex);
  assert.equal(tx.txid(), '21d152480275568e3f82a5049d8b30308e3739ebd98171e075a75fea504364cd');
  const last = tx.vout[tx.vout.length - 1]!.script;
  assert.equal(toHex(last).slice(0, 8), '6a22e378'); // old layout: e3 'x' <assetid>, before the token opret wrapped it
  assert.equal(tryDecodeAssetTokenOpRet(last), null);
  assert.deepEqual(validateAssets(tx, 1, { getTransaction: () => undefined }), { ok: false, reason: 'AssetValidate: invalid opreturn payload' });
  // vin1 spends from the Assets global CC address: its fulfillment's condition is MakeCCcond1(e3, Assets global pk)
  const cond = getCryptoCondition(tx.vin[1]!.scriptSig)!;
  assert.equal(toHex(conditionBinary(cond)), toHex(parsePayToCryptoCondition(ASSETS_GLOBAL_CC_SCRIPT)!.condition));
});
