import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { fromHex, fromHexReversed, toHex } from '../../src/chain/encoding/hex.js';
import { sha256 } from '../../src/chain/crypto/hash.js';
import { publicKeyFromPrivate, signDER } from '../../src/chain/crypto/secp256k1.js';
import { signatureHash, PrecomputedTxData } from '../../src/chain/script/sighash.js';
import { produceScriptSig } from '../../src/chain/script/sign.js';
import { decodeWIF } from '../../src/chain/address/index.js';
import { concatScript, p2pkhScript, pushData } from '../../src/chain/script/script.js';
import { OP_2, OP_3, OP_CHECKMULTISIG } from '../../src/chain/script/opcodes.js';
import { hash160 } from '../../src/chain/crypto/hash.js';
import { p2shScript } from '../../src/chain/script/script.js';
import { ccOptParams, makeCC1voutScript, makeCC1of2voutScript } from '../../src/chain/cc/script.js';
import { signVariants, TempKeyStore, parseOptCCParams } from '../../src/chain/tx/sign.js';

const vectors = process.env.ACNODE_VECTORS ?? join(import.meta.dirname, '..', '..', '..', 'shared', 'vectors');
const key = (s: string) => sha256(new TextEncoder().encode(s));

function spendOf(prev: string, n: number, out: TxOut, sapling = true): Transaction {
  const tx = new Transaction();
  if (sapling) {
    tx.overwintered = true;
    tx.version = 4;
    tx.versionGroupId = 0x892f2085;
    tx.expiryHeight = 500;
  }
  tx.vin.push(new TxIn(new Outpoint(fromHexReversed(prev), n)));
  tx.vout.push(out);
  return tx;
}

test('signrawtransaction signs deterministically (RFC 6979), P2PKH with an uncompressed key as komodod lays it out', (t) => {
  const file = join(vectors, 'komodo-src-test-data', 'txcreatesign.hex');
  if (!existsSync(file)) return t.skip(`vectors not found at ${vectors}`);
  // zcash-tx's txcreatesign: the unsigned transaction and key of that test. Its stored signature does
  // not verify against the transaction's legacy signature hash, so only the layout and the
  // determinism are compared: <sig+hashtype> <65-byte pubkey>, and the signature a fresh RFC 6979 one.
  const want = Transaction.fromHex(readFileSync(file, 'utf8').trim());
  const unsigned = want.clone();
  unsigned.vin[0]!.scriptSig = new Uint8Array(0);
  const k = decodeWIF('5HpHagT65TZzG1PH3CSu63k8DbpvD8s5ip4nEB3kEsreAnchuDf', 0x80)!;
  const ks = new TempKeyStore();
  ks.addKey(k.key, k.compressed);
  const script = fromHex('76a91491b24bf9f5288532960ac687abb035127b1d28a588ac');
  const r = signVariants([unsigned], [{ script, value: 0n }], { keys: ks.keyLookup, hashType: 1, branchId: 0 });
  assert.deepEqual(r.errors, []);
  const ss = r.tx.vin[0]!.scriptSig;
  const digest = signatureHash(script, unsigned, 0, 1, 0n, 0);
  assert.equal(toHex(ss.slice(1, ss[0]!)), toHex(signDER(digest, k.key)));
  assert.equal(ss[ss[0]!], 1);
  assert.equal(toHex(ss.slice(ss[0]! + 1)), toHex(want.vin[0]!.scriptSig.slice(want.vin[0]!.scriptSig[0]! + 1)), 'the same pubkey push');
  const again = signVariants([unsigned], [{ script, value: 0n }], { keys: ks.keyLookup, hashType: 1, branchId: 0 });
  assert.equal(again.tx.toHex(), r.tx.toHex());
});

test('partial multisig signatures from several variants are merged (CombineSignatures)', () => {
  const keys = ['a', 'b', 'c'].map(key);
  const pubs = keys.map((k) => publicKeyFromPrivate(k, true));
  const redeem = concatScript(OP_2, ...pubs.map(pushData), OP_3, OP_CHECKMULTISIG);
  const spk = p2shScript(hash160(redeem));
  const tx = spendOf('11'.repeat(32), 0, new TxOut(99_000n, p2pkhScript(new Uint8Array(20))));
  const coin = { script: spk, value: 100_000n };
  const sign = (k: Uint8Array, variants: Transaction[]) => {
    const ks = new TempKeyStore();
    ks.addKey(k, true);
    ks.addScript(redeem);
    return signVariants(variants, [coin], { keys: ks.keyLookup, scripts: ks.scriptLookup, hashType: 1, branchId: 0x76b809bb });
  };
  const a = sign(keys[0]!, [tx]);
  const c = sign(keys[2]!, [tx]);
  assert.equal(a.errors.length, 1);
  assert.equal(c.errors.length, 1);
  // The hex of several transactions one after the other: every variant's signatures are merged.
  const none = new TempKeyStore();
  const merged = signVariants([a.tx, c.tx], [coin], { keys: none.keyLookup, hashType: 1, branchId: 0x76b809bb });
  assert.deepEqual(merged.errors, []);
  // The same as signing in turn.
  assert.equal(merged.tx.toHex(), sign(keys[2]!, [a.tx]).tx.toHex());
});

test('SIGHASH_SINGLE signs only inputs with an output of the same index', () => {
  const k = key('single');
  const spk = p2pkhScript(hash160(publicKeyFromPrivate(k, true)));
  const tx = spendOf('22'.repeat(32), 0, new TxOut(1000n, spk));
  tx.vin.push(new TxIn(new Outpoint(fromHexReversed('33'.repeat(32)), 1)));
  const ks = new TempKeyStore();
  ks.addKey(k, true);
  const coins = [{ script: spk, value: 5000n }, { script: spk, value: 5000n }];
  const r = signVariants([tx], coins, { keys: ks.keyLookup, hashType: 3, branchId: 0x76b809bb });
  assert.equal(r.errors.length, 1);
  assert.equal(r.errors[0]!.vout, 1);
  assert.equal(r.errors[0]!.scriptSig, '');
  const ss = r.tx.vin[0]!.scriptSig;
  assert.equal(ss[ss[0]!], 3, 'the hash type byte ends the signature');
});

test('CC inputs whose COptCCParams name a wallet key are signed (SignStepCC)', () => {
  const k1 = key('cc one');
  const k2 = key('cc two');
  const pk1 = publicKeyFromPrivate(k1, true);
  const pk2 = publicKeyFromPrivate(k2, true);
  const ev = 0xf2;
  const one = makeCC1voutScript(ev, pk1);
  // MakeCC1vout with the key in its params: <cond> OP_CHECKCRYPTOCONDITION <params> OP_DROP.
  const withParams = concatScript(makeCC1voutScript(ev, pk1), pushData(ccOptParams(ev, 1, 1, [pk1], [])), 0x75);
  assert.deepEqual(parseOptCCParams(ccOptParams(ev, 1, 1, [pk1], []))?.keys.map(toHex), [toHex(pk1)]);
  assert.equal(parseOptCCParams(ccOptParams(ev, 1, 1, [], [Uint8Array.of(1)])), null, 'MakeCC1vout without keys names none');
  const ks = new TempKeyStore();
  ks.addKey(k1, true);
  const tx = spendOf('44'.repeat(32), 0, new TxOut(1000n, p2pkhScript(new Uint8Array(20))));
  const r = signVariants([tx], [{ script: withParams, value: 10_000n }], { keys: ks.keyLookup, hashType: 1, branchId: 0x76b809bb, ccEnabled: true });
  assert.deepEqual(r.errors, []);
  assert.ok(r.tx.vin[0]!.scriptSig.length > 100);
  // Without params komodod has nothing to sign with (the module key path aside).
  const bare = signVariants([tx], [{ script: one, value: 10_000n }], { keys: ks.keyLookup, hashType: 1, branchId: 0x76b809bb, ccEnabled: true });
  assert.equal(bare.errors.length, 1);
  // 1-of-2: the second key alone signs.
  const ks2 = new TempKeyStore();
  ks2.addKey(k2, true);
  const twoScript = concatScript(makeCC1of2voutScript(ev, pk1, pk2), pushData(ccOptParams(ev, 1, 2, [pk1, pk2], [])), 0x75);
  const two = signVariants([tx], [{ script: twoScript, value: 10_000n }], { keys: ks2.keyLookup, hashType: 1, branchId: 0x76b809bb, ccEnabled: true });
  assert.deepEqual(two.errors, []);
});

test('the wallet signer gives produceScriptSig’s exact scriptSigs for P2PK, P2PKH, multisig and P2SH', () => {
  const keys = ['k1', 'k2', 'k3'].map(key);
  const pubs = keys.map((k) => publicKeyFromPrivate(k, true));
  const uncompressed = publicKeyFromPrivate(keys[0]!, false);
  const bare = concatScript(OP_2, ...pubs.map(pushData), OP_3, OP_CHECKMULTISIG);
  const scripts = [
    concatScript(pushData(pubs[0]!), 0xac),
    p2pkhScript(hash160(pubs[1]!)),
    p2pkhScript(hash160(uncompressed)),
    bare,
    p2shScript(hash160(bare)),
    p2shScript(hash160(p2pkhScript(hash160(pubs[2]!)))),
  ];
  const ks = new TempKeyStore();
  ks.addKey(keys[0]!, true);
  ks.addKey(keys[0]!, false);
  ks.addKey(keys[1]!, true);
  ks.addKey(keys[2]!, true);
  ks.addScript(bare);
  ks.addScript(p2pkhScript(hash160(pubs[2]!)));
  for (const hashType of [1, 2, 3, 0x81, 0x82, 0x83]) {
    const tx = spendOf('55'.repeat(32), 0, new TxOut(1000n, scripts[0]!));
    for (let i = 1; i < scripts.length; i++) {
      tx.vin.push(new TxIn(new Outpoint(fromHexReversed('66'.repeat(32)), i)));
      tx.vout.push(new TxOut(1000n + BigInt(i), scripts[i]!));
    }
    const coins = scripts.map((script, i) => ({ script, value: 10_000n + BigInt(i) }));
    const ours = signVariants([tx], coins, { keys: ks.keyLookup, scripts: ks.scriptLookup, hashType, branchId: 0x76b809bb });
    assert.deepEqual(ours.errors, [], `hashType ${hashType}`);
    const cache = new PrecomputedTxData(tx);
    scripts.forEach((script, i) => {
      const ref = produceScriptSig(script, { tx, nIn: i, amount: coins[i]!.value, branchId: 0x76b809bb, hashType, keys: ks.keyLookup, scripts: ks.scriptLookup, cache });
      assert.equal(toHex(ours.tx.vin[i]!.scriptSig), toHex(ref.scriptSig), `input ${i} hashType ${hashType}`);
      assert.equal(ref.complete, true);
    });
  }
  // A signature from elsewhere that does not verify is still caught.
  const tx = spendOf('77'.repeat(32), 0, new TxOut(1000n, scripts[1]!));
  const signed = signVariants([tx], [{ script: scripts[1]!, value: 5000n }], { keys: ks.keyLookup, hashType: 1, branchId: 0x76b809bb });
  const tampered = signed.tx.clone();
  tampered.vout[0]!.value = 999n;
  const none = new TempKeyStore();
  const check = signVariants([tampered], [{ script: scripts[1]!, value: 5000n }], { keys: none.keyLookup, hashType: 1, branchId: 0x76b809bb });
  assert.equal(check.errors.length, 1);
  assert.equal(check.errors[0]!.error, 'Script evaluated without error but finished with a false/empty top stack element');
});
