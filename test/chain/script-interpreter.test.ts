import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { verifyScript } from '../../src/chain/script/interpreter.js';
import { BaseSignatureChecker, TransactionSignatureChecker, type SignatureChecker } from '../../src/chain/script/checker.js';
import { scriptErrorString } from '../../src/chain/script/script-error.js';
import { needVectors, loadVector } from '../helpers/vectors.js';
import { parseTestFlags, parseTestScript } from './script-asm-parser.js';

/** BuildCreditingTransaction / BuildSpendingTransaction of komodod's script_tests.cpp. */
function spendingTx(scriptSig: Uint8Array, scriptPubKey: Uint8Array): Transaction {
  const credit = new Transaction();
  credit.vin.push(new TxIn(Outpoint.null(), Uint8Array.of(0x00, 0x00), 0xffffffff));
  credit.vout.push(new TxOut(0n, scriptPubKey));
  const spend = new Transaction();
  spend.vin.push(new TxIn(new Outpoint(credit.hash(), 0), scriptSig, 0xffffffff));
  spend.vout.push(new TxOut(0n, new Uint8Array(0)));
  return spend;
}

type Row = string[];

function runRows(file: string, expect: boolean, makeChecker = (tx: Transaction): SignatureChecker => new TransactionSignatureChecker(tx, 0, 0n, 0)): { run: number; failures: string[] } {
  const rows = loadVector<Row[]>(`komodo-src-test-data/${file}`);
  let run = 0;
  const failures: string[] = [];
  for (const row of rows) {
    if (row.length < 3) continue; // comments
    const scriptSig = parseTestScript(row[0]!);
    const scriptPubKey = parseTestScript(row[1]!);
    const flags = parseTestFlags(row[2]!);
    const tx = spendingTx(scriptSig, scriptPubKey);
    // The legacy sighash ignores the branch id; komodod runs these rows once per branch with the same result.
    const checker = makeChecker(tx);
    const r = verifyScript(scriptSig, scriptPubKey, flags, checker);
    run++;
    if (r.ok !== expect) failures.push(`${JSON.stringify(row)} -> ${r.ok ? 'ok' : `${r.error} (${scriptErrorString(r.error)})`}`);
  }
  return { run, failures };
}

test('script_valid.json: all 578 rows verify', needVectors, () => {
  const { run, failures } = runRows('script_valid.json', true);
  assert.deepEqual(failures, []);
  assert.equal(run, 578);
});

test('script_invalid.json: all 442 rows fail', needVectors, () => {
  const { run, failures } = runRows('script_invalid.json', false);
  assert.deepEqual(failures, []);
  assert.equal(run, 442);
});

test('script_valid.json: the signature rows really depend on signature checking', needVectors, () => {
  // With a checker that rejects every signature, the rows that need a good signature must fail.
  const { failures } = runRows('script_valid.json', true, () => new BaseSignatureChecker());
  assert.ok(failures.length >= 10, `${failures.length} rows failed`);
});
