import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sha256 } from '@noble/hashes/sha2.js';
import { devChainParams } from '../../src/chain/params/chain-params.js';
import { hash160 } from '../../src/chain/crypto/hash.js';
import { publicKeyFromPrivate } from '../../src/chain/crypto/secp256k1.js';
import { toHexReversed } from '../../src/chain/encoding/hex.js';
import { concatScript, p2pkhScript, p2pkScript, p2shScript, pushData } from '../../src/chain/script/script.js';
import { multisigScript } from '../../src/chain/script/multisig.js';
import { SIGHASH_ALL } from '../../src/chain/script/sighash.js';
import { signatureFor } from '../../src/chain/script/sign.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import type { Coin } from '../../src/chain/validation/index.js';
import { MempoolLogic, addMempoolAddressKeys, mempoolAddressKeys } from '../../src/actors/mempool/logic.js';
import type { MempoolNotice, TxsAccepted } from '../../src/actors/mempool/protocol.js';
import type { Asker } from '../../src/actors/ask.js';
import type { ChainStoreProtocol } from '../../src/actors/chainstore/protocol.js';
import { fakeChainView } from '../helpers/fake-chain-view.js';

/**
 * What an accepted transaction leaves behind, in the representation the per-transaction allocation
 * cuts (issue 31) gave it: the entry's transaction read as views into the entry's own raw bytes (which
 * nothing writes into), the txsAccepted record being the entry itself, and the address index's P2PKH
 * keys read off the template as the solver would give them.
 */

const params = devChainParams();
const HEIGHT = 200;
const BRANCH = params.currentEpochBranchId(HEIGHT + 1);
const KEY = sha256(new TextEncoder().encode('mempool entry shape key'));
const PUB = publicKeyFromPrivate(KEY, true);
const P2PKH = p2pkhScript(hash160(PUB));
const COIN = 100_000_000n;
const TIME = 1_700_000_000;

function fakeChain(coins: Map<string, Coin>): Asker<ChainStoreProtocol> {
  return {
    ask: async (body: { op: string; outpoints?: [string, number][] }) => {
      if (body.op !== 'view') throw new Error(`fake chain has no ${body.op}`);
      return fakeChainView({ height: HEIGHT, time: TIME, params }, body.outpoints!, (t, n) => coins.get(`${t}:${n}`) ?? null);
    },
  } as unknown as Asker<ChainStoreProtocol>;
}

function setup(count: number) {
  const coins = new Map<string, Coin>();
  const txs: Transaction[] = [];
  for (let i = 0; i < count; i++) {
    const txid = toHexReversed(sha256(Uint8Array.of(0x71, i)));
    coins.set(`${txid}:0`, { value: COIN, script: P2PKH, height: 10, coinbase: false, txVersion: 4 });
    const tx = Transaction.ofFormat(params.txFormat(HEIGHT + 1));
    tx.vin.push(new TxIn(new Outpoint(Uint8Array.from(Buffer.from(txid, 'hex').reverse()), 0)));
    tx.vout.push(new TxOut(COIN - 10_000n, P2PKH));
    tx.vin[0]!.scriptSig = concatScript(pushData(signatureFor(tx, 0, P2PKH, COIN, BRANCH, KEY, SIGHASH_ALL)), pushData(PUB));
    txs.push(tx);
  }
  return { m: new MempoolLogic({ chain: fakeChain(coins), dataCarrierSize: 80, now: () => TIME }), txs };
}

test('an accepted transaction decoded by the mempool: its scripts are views into the entry raw bytes, which stay as sent', async () => {
  const { m, txs } = setup(1);
  const raw = txs[0]!.toRaw();
  const sent = raw.slice();
  const notices: MempoolNotice[] = [];
  const txid = await m.accept(raw, false, notices);
  const e = m.entries.get(txid)!;
  assert.equal(e.raw, raw);
  assert.equal(e.tx.vin[0]!.scriptSig.buffer, raw.buffer, 'the scriptSig is a view into raw');
  assert.equal(e.tx.vout[0]!.script.buffer, raw.buffer, 'the script is a view into raw');
  assert.deepEqual(e.tx.toRaw(), sent);
  assert.deepEqual(raw, sent, 'accepting wrote nothing into the bytes');
  // The address index and spent index read through those views as through copies.
  assert.deepEqual(m.addressDeltas(mempoolAddressKeys(P2PKH, true)).map((d) => [d.txid, d.spending]), [[txid, false], [txid, true]]);
  assert.equal(m.read({ op: 'spentBy', txid: txs[0]!.vin[0]!.prevout.txid(), n: 0 }), txid);
});

test('txsAccepted: a relayed transaction record is its mempool entry (one object, shared); an unrelayed one says relay: false', async () => {
  const { m, txs } = setup(2);
  const notices: MempoolNotice[] = [];
  const relayed = await m.accept(txs[0]!.toRaw(), false, notices);
  const quiet = await m.accept(txs[1]!.toRaw(), false, notices, undefined, false);
  const items = (notices[0] as TxsAccepted).items;
  assert.equal(notices.length, 1);
  assert.equal(items.length, 2);
  assert.equal(items[0], m.entries.get(relayed), 'the entry itself');
  assert.equal(items[0]!.relay, undefined);
  assert.deepEqual({ ...items[1] }, { txid: quiet, tx: m.entries.get(quiet)!.tx, raw: m.entries.get(quiet)!.raw, relay: false });
});

test("the address index's keys: a P2PKH script read off its template gives the solver's key; every other script the solver's keys", () => {
  const h = hash160(PUB);
  const pub2 = publicKeyFromPrivate(sha256(Uint8Array.of(2)), true);
  const almost = P2PKH.slice();
  almost[24] = 0xab; // not OP_CHECKSIG: nonstandard
  const scripts = [
    P2PKH,
    p2pkhScript(new Uint8Array(20)),
    almost,
    P2PKH.subarray(0, 24),
    concatScript(P2PKH, Uint8Array.of(0x51)),
    p2shScript(h),
    p2pkScript(PUB),
    multisigScript(1, [PUB, pub2]),
    Uint8Array.of(0x6a, 0x01, 0x00),
    new Uint8Array(0),
  ];
  for (const script of scripts) {
    for (const output of [true, false]) {
      const keys = new Set<string>();
      addMempoolAddressKeys(keys, script, output);
      assert.deepEqual([...keys], [...new Set(mempoolAddressKeys(script, output))], `${Buffer.from(script).toString('hex')} (${output ? 'output' : 'input'})`);
    }
  }
  const keys = new Set<string>();
  addMempoolAddressKeys(keys, P2PKH, true);
  assert.deepEqual([...keys], [`1:${Buffer.from(h).toString('hex')}`]);
});
