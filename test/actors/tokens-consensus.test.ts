import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Block } from '../../src/chain/block/block.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { TxIn, Outpoint } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { publicKeyFromPrivate } from '../../src/chain/crypto/secp256k1.js';
import { p2pkScript } from '../../src/chain/script/script.js';
import { devChainParams } from '../../src/chain/params/chain-params.js';
import { bip34Prefix, ValidationError } from '../../src/chain/validation/index.js';
import {
  buildTokenCreate,
  cc1Script,
  encodeTokenTransferOpRet,
  newContextualTransaction,
  signTokenTx,
  type SpendableCoin,
} from '../../src/chain/tokens/index.js';
import { consensusRules } from '../../src/actors/chainstore/consensus.js';
import { ccEvalChecker } from '../../src/chain/consensus/cc-eval.js';
import { EMPTY_SAPLING_ROOT } from '../../src/chain/consensus/block.js';
import type { ConnectView } from '../../src/chain/validation/coin.js';
import { outpointKey } from '../../src/chain/tx/input.js';
import type { Coin } from '../../src/actors/chainstore/coins.js';

/**
 * The chain store's block rules with the CC eval dispatch wired (ccEvalChecker): a block holding a
 * token creation and, after it, a transfer that balances connects (the validator reads the creation
 * from the block's earlier transactions); the same block with a transfer that makes tokens out of
 * nothing is refused with komodod's script failure.
 */

const KEY_A = Uint8Array.from(Buffer.alloc(32, 0x31));
const PK_A = publicKeyFromPrivate(KEY_A, true);
const PK_B = publicKeyFromPrivate(Uint8Array.from(Buffer.alloc(32, 0x32)), true);
const HEIGHT = 10;

const params = devChainParams();
const rules = consensusRules({ params: () => params, ccChecker: ccEvalChecker(() => params) });
const CTX = { nextHeight: HEIGHT, activation: params.activation };

function coinbase(): Transaction {
  const tx = new Transaction();
  tx.overwintered = true;
  tx.version = 4;
  tx.versionGroupId = 0x892f2085;
  tx.vin = [new TxIn(Outpoint.null(), Uint8Array.from([...bip34Prefix(HEIGHT), 0x01, 0x01]), 0xffffffff)];
  tx.vout = [new TxOut(0n, p2pkScript(PK_A))];
  return tx;
}

/** A confirmed funding transaction paying A, known to the view. */
const fund = (() => {
  const tx = new Transaction();
  tx.vin = [new TxIn(new Outpoint(Uint8Array.from(Buffer.alloc(32, 9)), 0), new Uint8Array(0), 0xffffffff)];
  tx.vout = [new TxOut(50_00000000n, p2pkScript(PK_A))];
  return tx;
})();

function view(): ConnectView {
  const coins = new Map<string, Coin>([[outpointKey(fund.txid(), 0), { value: fund.vout[0]!.value, script: fund.vout[0]!.script, height: 2, coinbase: false, txVersion: 1 }]]);
  const txs = new Map<string, Transaction>([[fund.txid(), fund]]);
  return {
    coin: (txid, n) => coins.get(outpointKey(txid, n)),
    tx: (txid) => txs.get(txid),
    apply: (tx, txid, height) => {
      if (!tx.isCoinbase()) for (const i of tx.vin) coins.delete(outpointKey(i.prevout.txid(), i.prevout.index));
      tx.vout.forEach((o, n) => coins.set(outpointKey(txid, n), { value: o.value, script: o.script, height, coinbase: tx.isCoinbase(), txVersion: tx.version }));
      txs.set(txid, tx);
    },
  };
}

const coin = (tx: Transaction, n: number): SpendableCoin => ({ txid: tx.hash(), vout: n, value: tx.vout[n]!.value, script: tx.vout[n]!.script });

/** A transfer of `create`'s token output plus its change, paying `tokensOut` units to B (A signs everything). */
function transfer(create: Transaction, tokensOut: bigint): Transaction {
  const tx = newContextualTransaction(CTX);
  const spent = [coin(create, 1), coin(create, create.vout.length - 2)];
  tx.vin = spent.map((c) => new TxIn(new Outpoint(c.txid, c.vout), new Uint8Array(0), 0xffffffff));
  const total = spent[0]!.value + spent[1]!.value;
  tx.vout = [
    new TxOut(tokensOut, cc1Script(0xf2, PK_B)),
    new TxOut(total - tokensOut - 10000n, p2pkScript(PK_A)),
    new TxOut(0n, encodeTokenTransferOpRet({ tokenid: create.hash(), pubkeys: [PK_B] })),
  ];
  const signed = signTokenTx({ tx, spent, mypk: PK_A, additionalEvalcode2: 0 }, { ...CTX, privateKey: KEY_A });
  assert.ok(signed.ok);
  return signed.tx;
}

function block(txs: Transaction[]): Block {
  const b = new Block();
  b.header.time = 1_700_000_000;
  b.header.finalSaplingRoot = EMPTY_SAPLING_ROOT;
  b.txs = txs;
  b.updateMerkleRoot();
  return b;
}

test('block rules run the Tokens validator: a balanced transfer connects, tokens out of nothing do not', () => {
  const created = buildTokenCreate({ ...CTX, privateKey: KEY_A, name: 'T', description: '', supply: 1000n, coins: [coin(fund, 0)] });
  assert.ok(created.ok);
  const c = created.tx;

  const honest = transfer(c, 1000n);
  rules.connect(block([coinbase(), c, honest]), HEIGHT, view());

  const inflating = transfer(c, 5000n);
  assert.throws(
    () => rules.connect(block([coinbase(), c, inflating]), HEIGHT, view()),
    (e: unknown) => e instanceof ValidationError && e.rejectCode === 16 && /^mandatory-script-verify-flag-failed/.test(e.reason),
  );
  // The transfer before its creation in the block: the inputs do not exist yet.
  assert.throws(() => rules.connect(block([coinbase(), honest, c]), HEIGHT, view()), ValidationError);
});
