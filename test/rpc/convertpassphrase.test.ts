import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createECDH, createHash } from 'node:crypto';
import { decodeAddress, decodeWIF, encodeWIF, PUBKEY_ADDRESS } from '../../src/chain/address/index.js';
import { RpcTable } from '../../src/rpc/table.js';
import { nodeMethods } from '../../src/rpc/methods/index.js';
import { convertpassphrase } from '../../src/rpc/methods/wallet-dump.js';
import { devChainParams } from '../../src/chain/params/chain-params.js';
import type { NodeServices } from '../../src/actors/services.js';
import { InspectHub } from '../../src/node/inspect.js';

/**
 * convertpassphrase (rpcdump.cpp:92) against a derivation made here by hand with node:crypto: SHA-256
 * of the passphrase, clamped (first byte &= 0xf8, last &= 0x7f, |= 0x40), its compressed secp256k1
 * key, the address of Hash160 of that; and against a published vector. Keys are compared, never
 * printed (a failing assertion names the field only).
 */

type Result = Record<string, string>;

/** Agama's passphrase key, computed without acnode's code. */
function byHand(passphrase: string): { key: Buffer; pubkey: Buffer; keyId: Buffer } {
  const key = createHash('sha256').update(Buffer.from(passphrase, 'utf8')).digest();
  key[0]! &= 0xf8;
  key[31]! &= 0x7f;
  key[31]! |= 0x40;
  const ecdh = createECDH('secp256k1');
  ecdh.setPrivateKey(key);
  const pubkey = ecdh.getPublicKey(null, 'compressed');
  const keyId = createHash('ripemd160').update(createHash('sha256').update(pubkey).digest()).digest();
  return { key, pubkey, keyId };
}

const same = (a: string, b: string, field: string) => assert.ok(a === b, `${field} differs`);

test('convertpassphrase: a passphrase\'s key is SHA-256 clamped as komodod clamps it, compressed; the fields in komodod\'s order', () => {
  // Published: the KomodoPlatform/komodo wiki's "How to Generate Address and Private Key (WIF) for 3rd
  // Party Coins Using Passphrase" shows this example passphrase's compressed public key.
  const published = 'myverysecretandstrongpassphrase_noneabletobrute';
  const r = convertpassphrase(published) as Result;
  assert.equal(r.pubkey, '02a854251adfee222bede8396fed0756985d4ea905f72611740867c7a4ad6488c1');
  for (const passphrase of [published, '', 'a', 'correct horse battery staple', 'ünïcödé ✓', 'nul\u0000inside']) {
    const r = convertpassphrase(passphrase) as Result;
    const want = byHand(passphrase);
    assert.deepEqual(Object.keys(r), ['agamapassphrase', 'address', 'pubkey', 'privkey', 'wif']);
    same(r.agamapassphrase!, passphrase, 'agamapassphrase');
    same(r.privkey!, want.key.toString('hex'), 'privkey');
    assert.equal(r.pubkey, want.pubkey.toString('hex'));
    const addr = decodeAddress(r.address!);
    assert.equal(addr?.version, PUBKEY_ADDRESS);
    assert.equal(Buffer.from(addr!.hash).toString('hex'), want.keyId.toString('hex'));
    const wif = decodeWIF(r.wif!);
    assert.ok(wif && wif.compressed && Buffer.from(wif.key).equals(want.key), 'wif is the compressed key of this chain');
  }
  // The clamping shows: unclamped, this passphrase's key differs in its first and last bytes.
  const raw = createHash('sha256').update('a').digest();
  assert.ok(raw[0]! & 0x07 || (raw[31]! & 0xc0) !== 0x40, 'the vector exercises the clamp');
});

test('convertpassphrase: a WIF of this chain is taken as the key itself (DecodeSecret first), echoed as given', () => {
  const key = byHand('wif input').key;
  for (const compressed of [true, false]) {
    const wif = encodeWIF(key, compressed);
    // DecodeBase58 skips surrounding whitespace: komodod echoes the text with it.
    for (const text of [wif, `  ${wif}\n`]) {
      const r = convertpassphrase(text) as Result;
      same(r.agamapassphrase!, text, 'agamapassphrase');
      same(r.wif!, text, 'wif');
      same(r.privkey!, key.toString('hex'), 'privkey');
      const ecdh = createECDH('secp256k1');
      ecdh.setPrivateKey(key);
      assert.equal(r.pubkey, ecdh.getPublicKey('hex', compressed ? 'compressed' : 'uncompressed'));
    }
  }
  // Another chain's WIF (Bitcoin's 0x80) is not this chain's secret: it is a passphrase like any text.
  const btc = encodeWIF(key, true, 0x80);
  same((convertpassphrase(btc) as Result).privkey!, byHand(btc).key.toString('hex'), 'privkey');
});

test('convertpassphrase over the method table: komodod\'s help and argument rules, no wallet asked, nothing secret recorded by -inspect', async () => {
  // No wallet, chain store or other service: an ask of any would throw.
  const node = { config: { chain: { name: 'ACDEV', regtest: true }, rpcport: 0 }, baseParams: devChainParams() } as unknown as NodeServices;
  const hub = new InspectHub();
  const seen: string[] = [];
  hub.subscribe((m) => seen.push(m));
  const table = new RpcTable({ chainName: 'ACDEV', rpcPort: 1, walletCrypted: () => true }, hub.wrapRpcMethods(nodeMethods(node)));
  const m = table.get('convertpassphrase')!;
  assert.equal(m.category, 'wallet');
  const help = table.help('convertpassphrase');
  // rpcdump.cpp:96-108 at 0adeeab, line by line (the examples as helpExampleCli/Rpc write them for this chain).
  const want = [
    'convertpassphrase "agamapassphrase"',
    '',
    'Converts Agama passphrase to a private key and WIF (for import with importprivkey).',
    '',
    'Arguments:',
    '1. "agamapassphrase"   (string, required) Agama passphrase',
    '',
    'Result:',
    '"agamapassphrase": "agamapassphrase",   (string) Agama passphrase you entered',
    '"address": "komodoaddress",             (string) Address corresponding to your passphrase',
    '"pubkey": "publickeyhex",               (string) The hex value of the raw public key',
    '"privkey": "privatekeyhex",             (string) The hex value of the raw private key',
    '"wif": "wif"                            (string) The private key in WIF format to use with \'importprivkey\'',
    '',
    'Examples:',
    '> acnode-cli -ac_name=ACDEV convertpassphrase "agamapassphrase"',
    `> curl --user myusername --data-binary '{"jsonrpc": "1.0", "id":"curltest", "method": "convertpassphrase", "params": ["agamapassphrase"] }' -H 'content-type: text/plain;' http://127.0.0.1:1/`,
    '',
  ].join('\n');
  assert.equal(help, want);
  for (const bad of [[], ['a', 'b']]) await assert.rejects(table.execute('convertpassphrase', bad), { code: -1, message: help });
  await assert.rejects(table.execute('convertpassphrase', [5 as never]), { code: -1, message: 'JSON value is not a string as expected' });
  const pass = 'a passphrase only this test knows';
  const r = (await table.execute('convertpassphrase', [pass])) as Result;
  const all = seen.join('\n');
  assert.ok(all.includes('convertpassphrase') && all.includes('[redacted]'), 'the call is recorded, redacted');
  for (const [field, secret] of [['passphrase', pass], ['privkey', r.privkey!], ['wif', r.wif!]] as const) assert.ok(!all.includes(secret), `the ${field} reached the recorder`);
});
