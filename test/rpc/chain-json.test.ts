import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  blockSpentAddress,
  hexInt,
  komodoSegid,
  mempoolSpentAddress,
  segid32,
  spentAddressString,
  uint256S,
} from '../../src/rpc/methods/chain-json.js';
import { hash160, sha256 } from '../../src/chain/crypto/hash.js';
import { fromHex } from '../../src/chain/encoding/hex.js';
import { Block } from '../../src/chain/block/block.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { encodeAddress, PUBKEY_ADDRESS } from '../../src/chain/address/index.js';
import { concatScript, p2pkhScript, p2pkScript, p2shScript, pushData } from '../../src/chain/script/script.js';

const opts = { ccEnabled: true };
const PUB = fromHex('02b582fa49324ba62cd0aa673f30a0ca7df01746e94db36c0c844579e8bef7e215');
const H = hash160(PUB);

test('uint256S reads like base_blob::SetHex', () => {
  const h = 'ab'.repeat(32);
  assert.equal(uint256S(h), h);
  assert.equal(uint256S(`0x${h}`), h);
  assert.equal(uint256S(`  \t${h.toUpperCase()}zz`), h);
  assert.equal(uint256S('1'), '0'.repeat(63) + '1');
  assert.equal(uint256S(`ff${h}`), h, 'the last 64 digits');
  assert.equal(uint256S('xyz'), '0'.repeat(64));
  assert.equal(uint256S(''), '0'.repeat(64));
  assert.equal(hexInt(0x76b809bb), '76b809bb');
  assert.equal(hexInt(0), '00000000');
});

test('the spent index address part: ConnectBlock (GetAddressType) and the mempool (addSpentIndex)', () => {
  // P2PKH and P2PK: type 1 with the key hash; P2SH: type 2.
  assert.deepEqual(blockSpentAddress(p2pkhScript(H), opts), { type: 1, hash: H });
  assert.deepEqual(blockSpentAddress(p2pkScript(PUB), opts), { type: 1, hash: H });
  assert.deepEqual(blockSpentAddress(p2shScript(H), opts), { type: 2, hash: H });
  assert.deepEqual(mempoolSpentAddress(p2pkScript(PUB), opts), { type: 1, hash: H });
  assert.deepEqual(mempoolSpentAddress(p2shScript(H), opts), { type: 2, hash: H });
  assert.equal(spentAddressString({ type: 1, hash: H }), encodeAddress(PUBKEY_ADDRESS, H));
  assert.equal(spentAddressString({ type: 3, hash: H }), null);
  // Multisig: the block index files it under Hash160 of its last solution (the key count byte);
  // the mempool records it with type 0.
  const ms = concatScript(0x51, pushData(PUB), 0x51, 0xae);
  assert.deepEqual(blockSpentAddress(ms, opts), { type: 1, hash: hash160(Uint8Array.of(1)) });
  assert.equal(mempoolSpentAddress(ms, opts)!.type, 0);
  // Nonstandard: no block entry at all; the mempool records type 0.
  assert.equal(blockSpentAddress(Uint8Array.of(0x51), opts), null);
  assert.equal(mempoolSpentAddress(Uint8Array.of(0x51), opts)!.type, 0);
});

test('komodo_segid: -1 for ordinary blocks; a staking transaction last gives segid32 & 0x3f', () => {
  const coinbase = new Transaction();
  coinbase.vin.push(new TxIn(new Outpoint(new Uint8Array(32), 0xffffffff), Uint8Array.of(0x51), 0xffffffff));
  coinbase.vout.push(new TxOut(1n, p2pkScript(PUB)));
  const stake = new Transaction();
  stake.vin.push(new TxIn(new Outpoint(new Uint8Array(32).fill(7), 0), new Uint8Array(0), 0xffffffff));
  stake.vout.push(new TxOut(5n, p2pkhScript(H)));
  stake.vout.push(new TxOut(0n, concatScript(0x6a, pushData(Uint8Array.of(77, ...new Uint8Array(32))))));
  const block = new Block();
  block.header.time = 1_700_000_000;
  block.txs.push(coinbase);
  assert.equal(komodoSegid(block, 5, opts, () => null), -1, 'coinbase only');
  block.txs.push(stake);
  const address = encodeAddress(PUBKEY_ADDRESS, H);
  assert.equal(komodoSegid(block, 5, opts, () => null), segid32(address) & 0x3f);
  assert.equal(komodoSegid(block, 0, opts, () => null), -1, 'height 0');
  stake.vout[1] = new TxOut(0n, concatScript(0x6a, pushData(Uint8Array.of(76, ...new Uint8Array(32)))));
  assert.equal(komodoSegid(block, 5, opts, () => null), -1, 'not eval code 77');
  const h = sha256(Buffer.from(address));
  assert.equal(segid32(address), (h[0]! | (h[1]! << 8) | (h[2]! << 16) | (h[3]! << 24)) >>> 0);
});
