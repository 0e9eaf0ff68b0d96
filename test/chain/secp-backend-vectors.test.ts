import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sha256 } from '@noble/hashes/sha2.js';
import {
  CURVE_ORDER, publicKeyFromPrivate, signDER, useSecp256k1Backend, verifyCompact, verifyDER, type Secp256k1Backend,
} from '../../src/chain/crypto/secp256k1.js';
import { secp256k1BackendOf } from '../../src/actors/verify/sig-backend.js';
import { comparingBackend, type ComparingBackend } from '../../src/chain/crypto/backend-compare.js';
import { parseDERSignature, encodeDERSignature } from '../../src/chain/crypto/der.js';
import { fromHex, fromHexReversed, toHex } from '../../src/chain/encoding/hex.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { verifyScript } from '../../src/chain/script/interpreter.js';
import { TransactionSignatureChecker } from '../../src/chain/script/checker.js';
import { PrecomputedTxData } from '../../src/chain/script/sighash.js';
import { STANDARD_SCRIPT_VERIFY_FLAGS } from '../../src/chain/script/flags.js';
import { p2pkScript } from '../../src/chain/script/script.js';
import { SAPLING_BRANCH_ID, SPROUT_BRANCH_ID } from '../../src/chain/consensus/upgrades.js';
import { ACCEPT_EVALS, type CCNode, decodeFulfillment, verifyFulfillment } from '../../src/chain/cc/index.js';
import { ccScriptPubKey, makeCCChecker } from '../../src/chain/cc/script.js';
import { conditionBinary } from '../../src/chain/cc/index.js';
import { TOKENS_TXFEE, decodeTokenCreateOpRet } from '../../src/chain/tokens/index.js';
import { listVectors, loadVector, needVectors } from '../helpers/vectors.js';
import { parseTestFlags, parseTestScript } from './script-asm-parser.js';

/**
 * Every signature in the vectors, verified with all three backends answering each call: the script
 * test rows, tx_valid/tx_invalid, signatures made over every sighash.json digest, and the real
 * crypto-conditions signatures (token transactions and the other CC examples). A comparing backend
 * records any call where native or wasm differs from noble.
 */
const noble = secp256k1BackendOf('noble')!;
// Wherever the package ships a prebuilt addon all three load (test/chain/secp-backend.test.ts requires it).
const others = [secp256k1BackendOf('native'), secp256k1BackendOf('wasm')].filter((b): b is Secp256k1Backend => b !== undefined);
const skip = others.length ? needVectors : { skip: 'only noble loads here: nothing to compare it with' };

function withComparing(f: (cmp: ComparingBackend) => void): void {
  // noble first: the reference answers, and native and wasm must say the same on every call.
  const cmp = comparingBackend(noble, ...others);
  const prev = useSecp256k1Backend(cmp);
  try {
    f(cmp);
  } finally {
    useSecp256k1Backend(prev);
  }
  assert.deepEqual(cmp.disagreements.map((d) => ({ ...d, args: d.args.map(toHex) })), []);
}

function spendingTx(scriptSig: Uint8Array, scriptPubKey: Uint8Array): Transaction {
  const credit = new Transaction();
  credit.vin.push(new TxIn(Outpoint.null(), Uint8Array.of(0x00, 0x00), 0xffffffff));
  credit.vout.push(new TxOut(0n, scriptPubKey));
  const spend = new Transaction();
  spend.vin.push(new TxIn(new Outpoint(credit.hash(), 0), scriptSig, 0xffffffff));
  spend.vout.push(new TxOut(0n, new Uint8Array(0)));
  return spend;
}

test('script_valid / script_invalid rows: every signature check agrees across backends, verdicts unchanged', skip, () => {
  withComparing((cmp) => {
    for (const [file, expect] of [['script_valid.json', true], ['script_invalid.json', false]] as const) {
      for (const row of loadVector<string[][]>(`komodo-src-test-data/${file}`)) {
        if (row.length < 3) continue;
        const scriptSig = parseTestScript(row[0]!);
        const scriptPubKey = parseTestScript(row[1]!);
        const tx = spendingTx(scriptSig, scriptPubKey);
        const r = verifyScript(scriptSig, scriptPubKey, parseTestFlags(row[2]!), new TransactionSignatureChecker(tx, 0, 0n, 0));
        assert.equal(r.ok, expect, JSON.stringify(row));
      }
    }
    // Counted on the vectors: 40 signature checks reach the curve, 21 of them valid.
    assert.ok(cmp.calls.verify >= 40, `${cmp.calls.verify} verify calls`);
    assert.ok(cmp.verifiedTrue >= 15, `${cmp.verifiedTrue} valid`);
  });
});

type Prevout = [string, number, string];
test('tx_valid / tx_invalid: every input signature agrees across backends', skip, () => {
  withComparing((cmp) => {
    for (const file of ['tx_valid.json', 'tx_invalid.json']) {
      for (const row of loadVector<unknown[][]>(`komodo-src-test-data/${file}`)) {
        if (!Array.isArray(row[0])) continue;
        const [inputs, hex, flagStr] = row as [Prevout[], string, string];
        const prev = new Map(inputs.map(([txid, n, asm]) => [`${toHex(fromHexReversed(txid))}:${n >>> 0}`, parseTestScript(asm)]));
        const tx = Transaction.fromHex(hex);
        const txdata = new PrecomputedTxData(tx);
        tx.vin.forEach((vin, i) => {
          const spk = prev.get(`${toHex(vin.prevout.hash)}:${vin.prevout.index}`);
          if (spk) verifyScript(vin.scriptSig, spk, parseTestFlags(flagStr), new TransactionSignatureChecker(tx, i, 0n, 0, txdata));
        });
      }
    }
    assert.ok(cmp.calls.verify >= 40, `${cmp.calls.verify} verify calls`);
    assert.ok(cmp.verifiedTrue >= 26, `${cmp.verifiedTrue} valid`);
  });
});

test('sighash.json: a signature made over each of the 500 digests, valid, high-S, wrong key, other digest', skip, () => {
  const rows = loadVector<unknown[][]>('komodo-src-test-data/sighash.json').filter((r) => r.length === 6);
  assert.equal(rows.length, 500);
  withComparing((cmp) => {
    rows.forEach((row, i) => {
      const digest = fromHexReversed(row[5] as string);
      const key = sha256(Uint8Array.of(0x51, i & 0xff, i >> 8));
      const pub = publicKeyFromPrivate(key, i % 2 === 0);
      const der = signDER(digest, key);
      assert.ok(verifyDER(der, digest, pub), `row ${i}`);
      const c = parseDERSignature(der)!;
      const s = BigInt('0x' + toHex(c.subarray(32)));
      const high = Uint8Array.of(...c.subarray(0, 32), ...fromHex((CURVE_ORDER - s).toString(16).padStart(64, '0')));
      assert.ok(verifyDER(encodeDERSignature(high), digest, pub, false), `row ${i} high-S (consensus)`);
      assert.ok(!verifyDER(encodeDERSignature(high), digest, pub, true), `row ${i} high-S (policy)`);
      if (i % 4 !== 0) return;
      assert.ok(!verifyDER(der, digest, publicKeyFromPrivate(sha256(key), true)), `row ${i} wrong key`);
      const other = fromHexReversed(rows[(i + 1) % rows.length]![5] as string);
      if (toHex(other) !== toHex(digest)) assert.ok(!verifyDER(der, other, pub), `row ${i} other digest`);
    });
    assert.equal(cmp.calls.sign, 500);
    assert.ok(cmp.verifiedTrue >= 1000);
    assert.ok(cmp.calls.verify >= 1250);
  });
});

/** The single push of a CC scriptSig (fulfillment + hash-type byte), or undefined. */
function singlePush(script: Uint8Array): Uint8Array | undefined {
  const op = script[0];
  if (op === undefined) return undefined;
  let start: number;
  let len: number;
  if (op >= 1 && op <= 0x4b) [start, len] = [1, op];
  else if (op === 0x4c) [start, len] = [2, script[1] ?? 0];
  else if (op === 0x4d) [start, len] = [3, (script[1] ?? 0) | ((script[2] ?? 0) << 8)];
  else return undefined;
  return start + len === script.length ? script.subarray(start, start + len) : undefined;
}

function secpNodes(n: CCNode, out: { publicKey: Uint8Array; signature: Uint8Array }[] = []) {
  if (n.type === 'secp256k1' && n.signature) out.push({ publicKey: n.publicKey, signature: n.signature });
  if (n.type === 'threshold') for (const c of n.subconditions) secpNodes(c, out);
  if (n.type === 'prefix') secpNodes(n.subcondition, out);
  return out;
}

test('real crypto-conditions signatures (tokens and every CC example): secp256k1 nodes, compact form', skip, () => {
  withComparing((cmp) => {
    let nodes = 0;
    let validInScript = 0;
    const rnd = sha256(Uint8Array.of(0xcc));
    for (const file of listVectors('komodo-examples/developer-docs', '.json')) {
      const v = loadVector<{ hex?: string }>(file);
      if (!v.hex) continue;
      let tx: Transaction;
      try {
        tx = Transaction.fromHex(v.hex);
      } catch {
        continue;
      }
      tx.vin.forEach((vin, i) => {
        const push = singlePush(vin.scriptSig);
        if (!push || push.length < 2) return;
        let tree: CCNode;
        try {
          tree = decodeFulfillment(push.subarray(0, push.length - 1));
        } catch {
          return;
        }
        for (const n of secpNodes(tree)) {
          nodes++;
          // Against an unrelated digest, both verification modes and a high-S twin.
          verifyCompact(n.signature, rnd, n.publicKey, true);
          verifyCompact(n.signature, rnd, n.publicKey, false);
          const s = BigInt('0x' + toHex(n.signature.subarray(32)));
          const hi = Uint8Array.of(...n.signature.subarray(0, 32), ...fromHex((CURVE_ORDER - s).toString(16).padStart(64, '0')));
          verifyCompact(hi, rnd, n.publicKey, true);
        }
        // The real message: the input's own signature hash (v1: legacy, no amount needed), through the interpreter.
        const spk = ccScriptPubKey(conditionBinary(tree));
        const checker = new TransactionSignatureChecker(tx, i, 0n, tx.isSaplingV4 ? SAPLING_BRANCH_ID : SPROUT_BRANCH_ID, undefined, { ccChecker: makeCCChecker() });
        if (verifyScript(vin.scriptSig, spk, STANDARD_SCRIPT_VERIFY_FLAGS, checker, { ccEnabled: true }).ok) validInScript++;
      });
    }
    // Counted on the vectors: 13 signed secp256k1 nodes, 8 of them verify against their real message.
    assert.ok(nodes >= 13, `${nodes} secp256k1 nodes`);
    assert.ok(validInScript >= 8, `${validInScript} verified against their real message`);
    assert.ok(cmp.calls.verify >= 3 * nodes);
  });
});

test('token transactions: the v4 tokencreate P2PK signature (ZIP-243) and generated CC vectors', skip, () => {
  withComparing((cmp) => {
    const vec = Transaction.fromHex(loadVector<{ hex: string }>('komodo-examples/developer-docs/tokens_tokencreate_v4_916a6907e39c.json').hex);
    const create = decodeTokenCreateOpRet(vec.vout[3]!.script);
    const amount = vec.vout.reduce((s, o) => s + o.value, 0n) + TOKENS_TXFEE;
    const run = (a: bigint) =>
      verifyScript(vec.vin[0]!.scriptSig, p2pkScript(create.origPubkey), STANDARD_SCRIPT_VERIFY_FLAGS, new TransactionSignatureChecker(vec, 0, a, SAPLING_BRANCH_ID)).ok;
    assert.equal(run(amount), true);
    assert.equal(run(amount + 1n), false);

    const { vectors } = loadVector<{ vectors: Record<string, { fulfillment: string; conditionBinary: string; msg32: string; cc_verify: number }> }>(
      'cryptoconditions/generated/komodo-cc-vectors.json',
    );
    for (const [name, g] of Object.entries(vectors)) {
      const msg = fromHex(g.msg32);
      assert.equal(verifyFulfillment(fromHex(g.fulfillment), fromHex(g.conditionBinary), msg, ACCEPT_EVALS), g.cc_verify === 1, name);
      msg[0]! ^= 1;
      assert.equal(verifyFulfillment(fromHex(g.fulfillment), fromHex(g.conditionBinary), msg, ACCEPT_EVALS), false, name);
    }
    assert.ok(cmp.verifiedTrue >= 2);
  });
});
