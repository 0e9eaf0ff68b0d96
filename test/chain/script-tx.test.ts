import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { fromHexReversed, toHex } from '../../src/chain/encoding/hex.js';
import { verifyScript } from '../../src/chain/script/interpreter.js';
import { TransactionSignatureChecker } from '../../src/chain/script/checker.js';
import { PrecomputedTxData } from '../../src/chain/script/sighash.js';
import { needVectors, loadVector } from '../helpers/vectors.js';
import { parseTestFlags, parseTestScript } from './script-asm-parser.js';

type Prevout = [string, number, string];
type Row = [Prevout[], string, string] | [string];

/**
 * komodod's transaction_tests.cpp tx_valid / tx_invalid: every input verified against its prevout script
 * with the row's flags, amount 0, Sprout branch id (v1 transactions: legacy sighash).
 */
function verifyRow(row: [Prevout[], string, string]): { ok: boolean; detail: string } {
  const [inputs, hex, flagStr] = row;
  const prev = new Map<string, Uint8Array>();
  for (const [txid, n, asm] of inputs) prev.set(`${toHex(fromHexReversed(txid))}:${n >>> 0}`, parseTestScript(asm));
  const tx = Transaction.fromHex(hex);
  const flags = parseTestFlags(flagStr);
  const txdata = new PrecomputedTxData(tx);
  for (let i = 0; i < tx.vin.length; i++) {
    const vin = tx.vin[i]!;
    const spk = prev.get(`${toHex(vin.prevout.hash)}:${vin.prevout.index}`);
    assert.ok(spk, `bad test: no prevout for input ${i}`);
    const r = verifyScript(vin.scriptSig, spk, flags, new TransactionSignatureChecker(tx, i, 0n, 0, txdata));
    if (!r.ok) return { ok: false, detail: `input ${i}: ${r.error}` };
  }
  return { ok: true, detail: '' };
}

function dataRows(file: string): [Prevout[], string, string][] {
  return loadVector<Row[]>(`komodo-src-test-data/${file}`).filter((r): r is [Prevout[], string, string] => Array.isArray(r[0]));
}

test('tx_valid.json: every input of all 32 transactions verifies', needVectors, () => {
  const rows = dataRows('tx_valid.json');
  assert.equal(rows.length, 32);
  const failures = rows.map((r) => [r, verifyRow(r)] as const).filter(([, v]) => !v.ok).map(([r, v]) => `${r[1].slice(0, 60)}… ${v.detail}`);
  assert.deepEqual(failures, []);
});

/**
 * The rows under "Tests for CheckTransaction()" are invalid for CheckTransaction (src/main.cpp), which
 * komodod's test runs before the scripts; their scripts themselves verify. CheckTransaction is not part
 * of the script module, so these rows are checked here only for the one rule each is about.
 */
const CHECK_TRANSACTION_ROWS: Record<string, string> = {
  '0100000000010000000000000000015100000000': 'bad-txns-vin-empty',
  '01000000010001000000000000000000000000000000000000000000000000000000000000000000006d4830450220063222cb':
    'bad-txns-vout-negative',
  '01000000020001000000000000000000000000000000000000000000000000000000000000000000006c47304402204bb11970':
    'bad-txns-inputs-duplicate',
  '01000000010000000000000000000000000000000000000000000000000000000000000000ffffffff0151ffffffff01000000':
    'bad-cb-length',
  '01000000010000000000000000000000000000000000000000000000000000000000000000ffffffff65515151515151515151':
    'bad-cb-length',
  // Commented "Null txin", but its single null-prevout input makes it a coinbase (IsCoinBase), and its
  // 110-byte scriptSig is what CheckTransaction rejects first.
  '01000000010000000000000000000000000000000000000000000000000000000000000000ffffffff6e49304602210086f39e':
    'bad-cb-length',
};

/** The CheckTransaction rules those rows exercise (src/main.cpp CheckTransaction). */
function checkTransactionRule(tx: Transaction): string | null {
  if (tx.vin.length === 0) return 'bad-txns-vin-empty';
  if (tx.vout.some((o) => o.value < 0n)) return 'bad-txns-vout-negative';
  const seen = new Set(tx.vin.map((i) => i.prevout.key()));
  if (seen.size !== tx.vin.length) return 'bad-txns-inputs-duplicate';
  if (tx.isCoinbase()) {
    const n = tx.vin[0]!.scriptSig.length;
    if (n < 2 || n > 100) return 'bad-cb-length';
  } else if (tx.vin.some((i) => i.prevout.isNull())) return 'bad-txns-prevout-null';
  return null;
}

test('tx_invalid.json: every transaction fails (scripts, or the CheckTransaction rule it tests)', needVectors, () => {
  const rows = dataRows('tx_invalid.json');
  assert.equal(rows.length, 54);
  let byScript = 0;
  const matched = new Set<string>();
  for (const row of rows) {
    const prefix = Object.keys(CHECK_TRANSACTION_ROWS).find((p) => row[1].startsWith(p));
    if (prefix) {
      assert.equal(checkTransactionRule(Transaction.fromHex(row[1])), CHECK_TRANSACTION_ROWS[prefix], row[1].slice(0, 80));
      matched.add(prefix);
      continue;
    }
    assert.equal(verifyRow(row).ok, false, JSON.stringify(row).slice(0, 200));
    byScript++;
  }
  assert.equal(matched.size, Object.keys(CHECK_TRANSACTION_ROWS).length);
  assert.equal(byScript, 48);
});
