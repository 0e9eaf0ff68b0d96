import { test } from 'node:test';
import assert from 'node:assert/strict';
import bs58check from 'bs58check';
import { fromHex, toHex } from '../../src/chain/encoding/hex.js';
import { hash160 } from '../../src/chain/crypto/hash.js';
import { publicKeyFromPrivate } from '../../src/chain/crypto/secp256k1.js';
import { decodeBase58, encodeBase58 } from '../../src/chain/address/base58.js';
import { decodeBase58Check, encodeBase58Check } from '../../src/chain/address/base58check.js';
import {
  PUBKEY_ADDRESS,
  SCRIPT_ADDRESS,
  addressToScript,
  decodeAddress,
  encodeAddress,
  p2shAddress,
  pubkeyToAddress,
} from '../../src/chain/address/address.js';
import { decodeWIF, encodeWIF } from '../../src/chain/address/wif.js';
import { needVectors, loadVector } from '../helpers/vectors.js';

interface AddressEntry {
  pubkey: string;
  address: string;
  hash160: string;
  p2pkh_scriptPubKey: string;
  scriptPubKey_in_doc: string | null;
}

test('addresses-p2pkh.json: every (pubkey, R-address) pair', needVectors, () => {
  const { entries } = loadVector<{ entries: AddressEntry[] }>('komodo-examples/addresses-p2pkh.json');
  assert.equal(entries.length, 14);
  for (const e of entries) {
    assert.equal(pubkeyToAddress(fromHex(e.pubkey)), e.address);
    assert.equal(encodeAddress(PUBKEY_ADDRESS, fromHex(e.hash160)), e.address);
    const d = decodeAddress(e.address);
    assert.ok(d, e.address);
    assert.equal(d.version, PUBKEY_ADDRESS);
    assert.equal(toHex(d.hash), e.hash160);
    assert.equal(toHex(addressToScript(e.address)!), e.p2pkh_scriptPubKey);
    if (e.scriptPubKey_in_doc) assert.equal(toHex(addressToScript(e.address)!), e.scriptPubKey_in_doc);
    assert.ok(e.address.startsWith('R'));
  }
});

test('base58_encode_decode.json: plain Base58 both ways', needVectors, () => {
  const rows = loadVector<[string, string][]>('komodo-src-test-data/base58_encode_decode.json');
  assert.equal(rows.length, 12);
  for (const [hex, b58] of rows) {
    assert.equal(encodeBase58(fromHex(hex)), b58);
    assert.equal(toHex(decodeBase58(b58)!), hex);
  }
  // base58_tests.cpp's extra cases: invalid characters fail; surrounding whitespace is skipped.
  assert.equal(decodeBase58('invalid'), null);
  // A NUL ends the C string komodod reads: what follows is ignored.
  assert.equal(toHex(decodeBase58('2g\0invalid')!), '61');
  assert.equal(toHex(decodeBase58(' \t\n\v\f\r skip \r\f\v\n\t ')!), '971a55');
  assert.equal(decodeBase58(' \t\n\v\f\r skip \r\f\v\n\t a'), null);
});

type KeyRow = [string, string, { isPrivkey: boolean; chain: 'mainnet' | 'testnet'; isCompressed?: boolean }];

/** Zcash's Base58 prefixes (zcash chainparams.cpp): the vectors use them, so they test Base58Check itself. */
const ZCASH_PREFIX = {
  mainnet: { pubkey: '1cb8', script: '1cbd', secret: 128 },
  testnet: { pubkey: '1d25', script: '1cba', secret: 239 },
};

test('base58_keys_valid.json: Base58Check payloads and WIF with the vectors\' versions', needVectors, () => {
  const rows = loadVector<KeyRow[]>('komodo-src-test-data/base58_keys_valid.json');
  assert.equal(rows.length, 50);
  let addresses = 0;
  let keys = 0;
  for (const [s, hex, meta] of rows) {
    const payload = decodeBase58Check(s);
    assert.ok(payload, s);
    assert.equal(encodeBase58Check(payload), s);
    assert.deepEqual(payload, bs58check.decode(s));
    const prefix = ZCASH_PREFIX[meta.chain];
    if (meta.isPrivkey) {
      const k = decodeWIF(s, prefix.secret);
      assert.ok(k, s);
      assert.equal(toHex(k.key), hex);
      assert.equal(k.compressed, meta.isCompressed);
      assert.equal(encodeWIF(k.key, k.compressed, prefix.secret), s);
      assert.equal(decodeWIF(s), null, 'not a Komodo WIF');
      keys++;
    } else {
      const script = fromHex(hex);
      const p2pkh = script.length === 25 && script[0] === 0x76;
      assert.equal(payload.length, 22);
      assert.equal(toHex(payload.subarray(0, 2)), p2pkh ? prefix.pubkey : prefix.script);
      assert.equal(toHex(payload.subarray(2)), toHex(script.subarray(p2pkh ? 3 : 2, p2pkh ? 23 : 22)));
      assert.equal(decodeAddress(s), null, 'not a Komodo address');
      addresses++;
    }
  }
  assert.deepEqual({ addresses, keys }, { addresses: 26, keys: 24 });
});

test('base58_keys_invalid.json: none decodes as an address or key of any of the chains', needVectors, () => {
  const rows = loadVector<[string][]>('komodo-src-test-data/base58_keys_invalid.json');
  assert.equal(rows.length, 50);
  const zcashAddressPrefixes = new Set(['1cb8', '1cbd', '1d25', '1cba']);
  for (const [s] of rows) {
    assert.equal(decodeAddress(s), null, s);
    for (const v of [128, 239, 188]) assert.equal(decodeWIF(s, v), null, s);
    const payload = decodeBase58Check(s);
    if (payload) assert.ok(!(payload.length === 22 && zcashAddressPrefixes.has(toHex(payload.subarray(0, 2)))), s);
    // Where our decoder rejects the checksum or alphabet, bs58check agrees.
    if (!payload) assert.equal(bs58check.decodeUnsafe(s.trim()), undefined, s);
  }
});

test('Komodo prefixes: P2SH, WIF and rejections', () => {
  // Key 1 (compressed) through our WIF, then its R-address and the P2SH of its P2PK script.
  const key = new Uint8Array(32);
  key[31] = 1;
  const wif = encodeWIF(key, true);
  assert.ok(wif.startsWith('U'), wif); // rawtx.md §7.6: compressed WIFs start with U
  assert.ok(encodeWIF(key, false).startsWith('7')); // and uncompressed with 7
  assert.deepEqual(decodeWIF(wif), { key, compressed: true });
  assert.deepEqual(decodeWIF(encodeWIF(key, false)), { key, compressed: false });
  // Key 0 and the curve order are not keys (CKey::Check).
  assert.equal(decodeWIF(encodeWIF(new Uint8Array(32), true)), null);
  assert.equal(decodeWIF(encodeWIF(fromHex('fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141'), true)), null);
  // A compressed flag other than 1 is rejected (key_io.cpp DecodeSecret).
  const bad = new Uint8Array(34);
  bad[0] = 188;
  bad[32] = 1;
  bad[33] = 2;
  assert.equal(decodeWIF(encodeBase58Check(bad)), null);

  const redeem = fromHex('5121' + '02'.padEnd(66, '1') + '51ae');
  const p2sh = p2shAddress(redeem);
  assert.ok(p2sh.startsWith('b'), p2sh);
  const d = decodeAddress(p2sh)!;
  assert.equal(d.version, SCRIPT_ADDRESS);
  assert.equal(toHex(addressToScript(p2sh)!), 'a914' + toHex(d.hash) + '87');
  // Surrounding whitespace is skipped as komodod's DecodeBase58 does; inner whitespace is not.
  assert.equal(toHex(addressToScript(` ${p2sh}\n`)!), toHex(addressToScript(p2sh)!));
  assert.equal(decodeAddress(p2sh.slice(0, 10) + ' ' + p2sh.slice(10)), null);
  // Other one-byte versions, truncated strings, a flipped digit, and very long input.
  assert.equal(decodeAddress(encodeAddress(0, d.hash)), null);
  assert.equal(decodeAddress(p2sh.slice(0, -1)), null);
  assert.equal(decodeAddress(p2sh.slice(0, -1) + (p2sh.endsWith('z') ? 'y' : 'z')), null);
  assert.equal(decodeAddress('R'.repeat(100000)), null);
  assert.equal(decodeWIF('U'.repeat(100000)), null);
  assert.throws(() => encodeAddress(60, new Uint8Array(19)), RangeError);
});

test('komodod key_tests.cpp: Bitcoin-version WIFs and the Zcash t1 addresses of their keys', () => {
  // strSecret1/2 (uncompressed) and 1C/2C (compressed) with addr1/2/1C/2C; mainnet WIF version 128,
  // t1 prefix 1cb8 (Zcash chainparams, which those tests ran with).
  const cases: [string, boolean, string][] = [
    ['5HxWvvfubhXpYYpS3tJkw6fq9jE9j18THftkZjHHfmFiWtmAbrj', false, 't1h8SqgtM3QM5e2M8EzhhT1yL2PXXtA6oqe'],
    ['5KC4ejrDjv152FGwP386VD1i2NYc5KkfSMyv1nGy1VGDxGHqVY3', false, 't1Xxa5ZVPKvs9bGMn7aWTiHjyHvR31XkUst'],
    ['Kwr371tjA9u2rFSMZjTNun2PXXP3WPZu2afRHTcta6KxEUdm1vEw', true, 't1ffus9J1vhxvFqLoExGBRPjE7BcJxiSCTC'],
    ['L3Hq7a8FEQwJkW1M2GNKDW28546Vp5miewcCzSqUD9kCAXrJdS3g', true, 't1VJL2dPUyXK7avDRGqhqQA5bw2eEMdhyg6'],
  ];
  for (const [wif, compressed, addr] of cases) {
    const k = decodeWIF(wif, 128);
    assert.ok(k, wif);
    assert.equal(k.compressed, compressed);
    assert.equal(encodeWIF(k.key, compressed, 128), wif);
    const payload = decodeBase58Check(addr)!;
    assert.equal(toHex(payload), '1cb8' + toHex(hash160(publicKeyFromPrivate(k.key, compressed))));
  }
  // strAddressBad is not a key.
  assert.equal(decodeWIF('t1aMkLwU1LcMZYN7TgXUJAwzA1r44dbLkSp', 128), null);
});
