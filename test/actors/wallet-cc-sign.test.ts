import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256 } from '../../src/chain/crypto/hash.js';
import { hash160 } from '../../src/chain/crypto/hash.js';
import { publicKeyFromPrivate } from '../../src/chain/crypto/secp256k1.js';
import { toHex } from '../../src/chain/encoding/hex.js';
import { Secret } from '../../src/chain/crypto/secret.js';
import { p2pkScript, p2pkhScript } from '../../src/chain/script/script.js';
import { devChainParams } from '../../src/chain/params/chain-params.js';
import { EVAL_TOKENS, assembleTokenCreate, signTokenTx, tokensCC1Script, type BuildContext, type SpendableCoin } from '../../src/chain/tokens/index.js';
import { assembleAsk, signAssetsTx } from '../../src/chain/assets/index.js';
import { KeyStore } from '../../src/actors/wallet/keystore.js';
import { ServiceFailure } from '../../src/actors/protocol.js';
import type { CCSignRequest } from '../../src/actors/wallet/protocol.js';
import { WalletModel } from '../helpers/wallet-model.js';
import { sanitize } from '../../src/node/inspect.js';

/**
 * The CC module RPCs (tokencreate, tokentransfer, the assets orders) no longer read the key store:
 * they hand the assembled transaction to the wallet (op signCC), which signs it with its -pubkey's
 * key and answers the signed transaction only. The bytes are those of FinalizeCCTx's signing with
 * that key (RFC 6979: what the RPC layer produced when it signed itself); a key the wallet lacks
 * answers null before the lock is looked at; a locked wallet fails -13 (EnsureWalletIsUnlocked).
 */

const utf8 = (s: string) => new TextEncoder().encode(s);
const params = devChainParams();
const ctx: BuildContext = { nextHeight: 100, activation: params.activation, expiryDelta: 200 };
const coin = (seed: string, value: bigint, script: Uint8Array): SpendableCoin => ({ txid: sha256(utf8(seed)), vout: 0, value, script });

async function wallet(dir: string, keys: KeyStore) {
  const model = new WalletModel({ dir, keys, r: () => 0, make: () => assert.fail('no transactions'), pays: () => false, spendFor: () => undefined, mempoolOnLoad: 'none' });
  return model.open();
}

test('signCC: the wallet signs tokens and assets transactions with the -pubkey key, the same bytes as signing with the key; no key leaves it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-ccsign-'));
  try {
    const keys = await KeyStore.open(dir, { keypool: 2 });
    const node = await keys.nodeKey();
    const pk = node.pubkey;
    const secret = keys.secretOf(node)!;
    const w = await wallet(dir, keys);

    // tokencreate: a P2PK and a P2PKH coin of the -pubkey (both signed as normal inputs).
    const coins = [coin('a', 5_000_000n, p2pkScript(pk)), coin('b', 7_000_000n, p2pkhScript(hash160(pk)))];
    // Each signing fills in the transaction it is given: every signer gets its own assembly.
    const create = () => {
      const a = assembleTokenCreate({ ...ctx, pubkey: pk, name: 'T', description: 'd', supply: 10_000_000n, coins });
      assert.ok(a.ok);
      return a.value;
    };
    const want = signTokenTx(create(), { ...ctx, privateKey: secret });
    assert.ok(want.ok);
    const req: CCSignRequest = { module: 'tokens', assembled: create(), ctx };
    const got = w.read({ op: 'signCC', cc: req }) as ReturnType<typeof signTokenTx> | null;
    assert.ok(got && got.ok);
    assert.equal(got.tx.toHex(), want.tx.toHex());
    assert.ok(got.tx.vin.every((i) => i.scriptSig.length > 0), 'every input signed');

    // An ask: a normal input and a token input at the -pubkey's token address (a CC input).
    const tokenid = sha256(utf8('token'));
    const askSpec = () => ({ ...ctx, pubkey: pk, tokenid, coins: [coin('c', 1_000_000n, p2pkScript(pk))], tokenCoins: [coin('d', 50n, tokensCC1Script(EVAL_TOKENS, 0, pk))], numtokens: 20n, askamount: 300n });
    const ask = assembleAsk(askSpec());
    assert.ok(ask.ok);
    const wantAsk = signAssetsTx(ask.value, { ...ctx, privateKey: secret });
    assert.ok(wantAsk.ok);
    const ask2 = assembleAsk(askSpec());
    assert.ok(ask2.ok);
    const askReq = { op: 'signCC' as const, cc: { module: 'assets' as const, assembled: ask2.value, ctx } };
    const gotAsk = w.read(askReq) as ReturnType<typeof signAssetsTx> | null;
    assert.ok(gotAsk && gotAsk.ok);
    assert.equal(gotAsk.tx.toHex(), wantAsk.tx.toHex());

    // Neither the request nor the reply holds the key: as the inspection stream renders them, nor byte for byte.
    const everyByte = (v: unknown) => JSON.stringify(v, (_k, x) => (x instanceof Uint8Array ? toHex(x) : typeof x === 'bigint' ? String(x) : x));
    for (const shown of [JSON.stringify(sanitize(askReq)), JSON.stringify(sanitize(gotAsk)), everyByte(askReq), everyByte(gotAsk), gotAsk.tx.toHex(), got.tx.toHex()]) {
      assert.ok(!shown.includes(toHex(secret)), 'the private key left the wallet');
    }

    // A -pubkey the wallet holds no key for: null (the RPC's "no private key" error), locked or not.
    const stranger = publicKeyFromPrivate(sha256(utf8('stranger')), true);
    const other = assembleTokenCreate({ ...ctx, pubkey: stranger, name: 'T', description: 'd', supply: 1n, coins: [coin('e', 1_000_000n, p2pkScript(stranger))] });
    assert.ok(other.ok);
    assert.equal(w.read({ op: 'signCC', cc: { module: 'tokens', assembled: other.value, ctx } }), null);

    // Encrypted and locked: -13, komodod's EnsureWalletIsUnlocked; unlocked, the same bytes again.
    await w.write({ op: 'encryptWallet', passphrase: new Secret(utf8('pass')) });
    const again = () => w.read({ op: 'signCC', cc: { module: 'tokens', assembled: create(), ctx } }) as ReturnType<typeof signTokenTx> | null;
    assert.throws(again, (e: unknown) => e instanceof ServiceFailure && e.code === -13 && e.message === 'Error: Please enter the wallet passphrase with walletpassphrase first.');
    assert.equal(w.read({ op: 'signCC', cc: { module: 'tokens', assembled: other.value, ctx } }), null, 'no key: null before the lock');
    await w.write({ op: 'walletPassphrase', passphrase: new Secret(utf8('pass')), timeout: 60 });
    const unlocked = again();
    assert.ok(unlocked && unlocked.ok);
    assert.equal(unlocked.tx.toHex(), want.tx.toHex());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
