import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hash160, sha256 } from '../../src/chain/crypto/hash.js';
import { publicKeyFromPrivate } from '../../src/chain/crypto/secp256k1.js';
import { encodeAddress, PUBKEY_ADDRESS } from '../../src/chain/address/address.js';
import { toHex } from '../../src/chain/encoding/hex.js';
import { p2pkhScript } from '../../src/chain/script/script.js';
import { Secret } from '../../src/chain/crypto/secret.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import type { Transaction } from '../../src/chain/tx/transaction.js';
import { Block } from '../../src/chain/block/block.js';
import { BlockHeader } from '../../src/chain/block/header.js';
import { devChainParams } from '../../src/chain/params/chain-params.js';
import { KeyStore } from '../../src/actors/wallet/keystore.js';
import { WalletLogic } from '../../src/actors/wallet/logic.js';
import { saplingTx } from '../helpers/wallet-model.js';

/**
 * getreceivedbyaddress (rpcwallet.cpp at 0adeeab) answers 0 for a script not IsMine, whatever the
 * wallet recorded, and otherwise tallies every output to that script in the wallet's non-coinbase
 * transactions. So the wallet files by address only the outputs to its own keys; an output to
 * someone else (most sends pay one) is found through the payers index when its address becomes the
 * wallet's (importprivkey without a rescan, importaddress). Each figure is checked against a tally
 * over every recorded output at the depth asked.
 */

const secretOf = (n: number) => sha256(Uint8Array.of(0x77, n));
const foreignPub = (n: number) => publicKeyFromPrivate(secretOf(n), true);

test('receivedByKey: the index holds the wallet\'s own addresses only; foreign outputs are tallied once the address becomes the wallet\'s', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-received-'));
  try {
    const keys = await KeyStore.open(dir, { keypool: 4 });
    const own = keys.all().map((k) => k.pubkey);
    let height = 1;
    const chain = {
      ask: async (b: { op: string; outpoints?: unknown[]; txids?: string[] }) => {
        if (b.op === 'coinsByScript') return { height, hash: '00'.repeat(32), mtp: 0, coins: [] };
        if (b.op === 'tip') return { height, time: 1 };
        // The outputs a newly owned script finds are unspent (refigurePaying asks the UTXO set).
        if (b.op === 'coins') return b.outpoints!.map(() => ({ height: 2, coinbase: false }));
        if (b.op === 'txHeights' || b.op === 'inChain') return b.txids!.map(() => null);
        throw new Error(`stub chain: ${b.op}`);
      },
    } as never;
    const mempool = { ask: async (b: { op: string }) => (b.op === 'entries' ? [] : null) } as never;
    const wallet = new WalletLogic({ chain, mempool, keys, dir, params: () => devChainParams(), now: () => 1_700_000_000 });
    await wallet.load();

    // 40 transactions, each paying a wallet key and a foreign address (3 of them paid twice or more).
    const paid: { tx: Transaction; height: number }[] = [];
    const FOREIGN = 12;
    for (let b = 0; b < 4; b++) {
      const txs: Transaction[] = [];
      for (let i = 0; i < 10; i++) {
        const n = b * 10 + i;
        const tx = saplingTx();
        tx.vin.push(new TxIn(new Outpoint(sha256(Uint8Array.of(1, n)), 0), Uint8Array.of(0x51)));
        tx.vout.push(new TxOut(BigInt(1000 + n), p2pkhScript(hash160(own[n % own.length]!))));
        tx.vout.push(new TxOut(BigInt(50_000 + n), p2pkhScript(hash160(foreignPub(n % FOREIGN)))));
        txs.push(tx);
      }
      height++;
      await wallet.write({ op: 'blockConnected', block: new Block(new BlockHeader(), txs), txids: txs.map((t) => t.txid()), height });
      for (const tx of txs) paid.push({ tx, height });
    }
    height += 2;
    await wallet.write({ op: 'blockConnected', block: new Block(new BlockHeader(), []), txids: [], height });

    // What is retained by address: the wallet's keys paid, not the 12 foreign addresses.
    assert.equal((wallet.summary() as { receivedAddresses: number }).receivedAddresses, own.length);

    const tally = (pub: Uint8Array, minConf: number) => {
      const script = toHex(p2pkhScript(hash160(pub)));
      let sum = 0n;
      for (const { tx, height: h } of paid) if (height - h + 1 >= minConf) for (const o of tx.vout) if (toHex(o.script) === script) sum += o.value;
      return sum;
    };
    const received = (pub: Uint8Array, minConf: number) => wallet.read({ op: 'receivedByKey', keyId: toHex(hash160(pub)), minConf });
    for (const minConf of [0, 1, 3, 5, 6]) for (const pub of own) assert.equal(received(pub, minConf), tally(pub, minConf), `own key, minconf ${minConf}`);
    // Not IsMine: null (the RPC's 0), though the wallet recorded payments to it.
    assert.equal(received(foreignPub(0), 0), null);

    // importprivkey without a rescan: the earlier payments to the key count now.
    await wallet.write({ op: 'importKey', secret: new Secret(secretOf(0)), compressed: true, rescan: false });
    // importaddress: a watched address counts too (IsMine at any level).
    await wallet.write({ op: 'importAddress', script: p2pkhScript(hash160(foreignPub(1))), address: encodeAddress(PUBKEY_ADDRESS, hash160(foreignPub(1))), label: '', rescan: false });
    for (const minConf of [0, 1, 3, 5, 6]) {
      for (const pub of [foreignPub(0), foreignPub(1)]) assert.equal(received(pub, minConf), tally(pub, minConf), `newly the wallet's, minconf ${minConf}`);
    }
    assert.ok(tally(foreignPub(0), 1) > 0n);
    assert.equal(received(foreignPub(2), 0), null);

    // A new payment to the imported key is filed by address from now on, and tallied once.
    const tx = saplingTx();
    tx.vin.push(new TxIn(new Outpoint(sha256(Uint8Array.of(2, 0)), 0), Uint8Array.of(0x51)));
    tx.vout.push(new TxOut(7n, p2pkhScript(hash160(foreignPub(0)))));
    height++;
    await wallet.write({ op: 'blockConnected', block: new Block(new BlockHeader(), [tx]), txids: [tx.txid()], height });
    paid.push({ tx, height });
    assert.equal(received(foreignPub(0), 1), tally(foreignPub(0), 1));
    assert.equal((wallet.summary() as { receivedAddresses: number }).receivedAddresses, own.length + 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
