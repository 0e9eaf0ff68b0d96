import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { DecodeError } from '../../src/chain/encoding/errors.js';
import { fromHex, toHex } from '../../src/chain/encoding/hex.js';
import {
  decodeTokenCreateOpRet,
  decodeTokenOpRet,
  decodeTokenOpRetPayload,
  encodeTokenCreateOpRet,
  encodeTokenTransferOpRet,
  getOpReturnData,
  nftDataOf,
  type TokenTransferOpRet,
} from '../../src/chain/tokens/opret.js';
import { needVectors, loadVector } from '../helpers/vectors.js';

interface TxVector {
  hex: string;
  txid: string;
}

const V4_CREATE = 'komodo-examples/developer-docs/tokens_tokencreate_v4_916a6907e39c.json';
const OLD_CREATE = 'komodo-examples/developer-docs/tokens_e4895451cae4.json';
const OLD_TRANSFER = 'komodo-examples/developer-docs/tokens_88ac2d4d2765.json';

const ascii = (s: string) => toHex(new TextEncoder().encode(s));
const PK = '02676d00110c2cd14ae24f95969e8598f7ccfaa675498b82654a5b5bd57fc1d8cf'; // qa test key (tokens.md §3.3)
const PK2 = '021a559101e355c907d9c553671044d619769a6e71d624f68bfec7d0afa6bd6a96'; // qa transfer target (tokens.md §13)

function lastScript(tx: Transaction): Uint8Array {
  return tx.vout[tx.vout.length - 1]!.script;
}

test('v4 tokencreate vector: the create OP_RETURN decodes and re-encodes byte for byte', needVectors, () => {
  const v = loadVector<TxVector>(V4_CREATE);
  const tx = Transaction.fromHex(v.hex);
  const script = lastScript(tx);
  const c = decodeTokenCreateOpRet(script);
  assert.equal(toHex(c.origPubkey), '02d3431950c2f0f9654217b6ce3d44468d3a9ca7255741767fdeee7c5ec6b47567');
  assert.equal(new TextDecoder().decode(c.name), 'TOK');
  assert.equal(new TextDecoder().decode(c.description), 'creating a TOK token');
  assert.equal(c.blobs.length, 0);
  assert.equal(nftDataOf(c).length, 0);
  // DecodeTokenOpRet delegates 'c' to the create decoder.
  assert.equal(decodeTokenOpRet(script).funcid, 'c');
  const again = encodeTokenCreateOpRet({ origPubkey: c.origPubkey, name: 'TOK', description: 'creating a TOK token' });
  assert.equal(toHex(again), toHex(script));
});

test('old e3-prefixed oprets (two v1 examples): DecodeTokenOpRet rejects them as current komodod does', needVectors, () => {
  for (const rel of [OLD_CREATE, OLD_TRANSFER]) {
    const tx = Transaction.fromHex(loadVector<TxVector>(rel).hex);
    const data = getOpReturnData(lastScript(tx));
    assert.equal(data[0], 0xe3, rel);
    assert.throws(() => decodeTokenOpRet(lastScript(tx)), (e: unknown) => e instanceof DecodeError && /incorrect evalcode/.test(e.message), rel);
    assert.throws(() => decodeTokenCreateOpRet(lastScript(tx)), DecodeError, rel);
  }
});

test('transfer opret: layout of tokens.md §6.2, tokenid written in display order', () => {
  const tokenidDisplay = '916a6907e39cec679a6c832255c71b74e4941895d2d8775a6d2a0e8a322401ed';
  const tokenid = fromHex(tokenidDisplay).reverse();
  const script = encodeTokenTransferOpRet({ tokenid, pubkeys: [fromHex(PK2)] });
  // f2 | 't' | tokenid32 (display) | ccType=1 | 21 pk
  const payload = 'f2' + '74' + tokenidDisplay + '01' + '21' + PK2;
  assert.equal(toHex(script), '6a' + (payload.length / 2).toString(16) + payload);
  const d = decodeTokenOpRet(script) as TokenTransferOpRet;
  assert.equal(d.funcid, 't');
  assert.equal(toHex(d.tokenid), toHex(tokenid));
  assert.equal(d.ccType, 1);
  assert.deepEqual(d.pubkeys.map(toHex), [PK2]);
  assert.equal(d.oldStyle, false);

  // two pubkeys and a blob with id 0 (skipped by EncodeTokenOpRet) then an assets blob.
  const blob = 'e373' + '00e40b5402000000' + '21' + PK; // tokens.md §10.1 's' layout
  const s2 = encodeTokenTransferOpRet({
    tokenid,
    pubkeys: [fromHex(PK), fromHex(PK2)],
    blobs: [{ id: 0, data: fromHex('aa') }, { id: 0x12, data: fromHex(blob) }],
  });
  const p2 = 'f274' + tokenidDisplay + '02' + '21' + PK + '21' + PK2 + '12' + (blob.length / 2).toString(16) + blob;
  assert.equal(toHex(getOpReturnData(s2)), p2);
  const d2 = decodeTokenOpRet(s2) as TokenTransferOpRet;
  assert.equal(d2.blobs.length, 1);
  assert.equal(d2.blobs[0]!.id, 0x12);
  assert.equal(toHex(d2.blobs[0]!.data), blob);
});

test('transfer opret: the old layout (one unlabelled e3/rogue vector) is re-labelled as DecodeTokenOpRet does', () => {
  const tid = '11'.repeat(32);
  const assets = 'e378'; // cancel-ask blob, exactly 2 bytes (§10.1)
  const d = decodeTokenOpRetPayload(fromHex('f274' + tid + '01' + '21' + PK + '02' + assets)) as TokenTransferOpRet;
  assert.equal(d.oldStyle, true);
  assert.deepEqual(d.blobs.map((b) => [b.id, toHex(b.data)]), [[0x12, assets]]);
  const rogue = '1147'; // 0x11 'G'
  const r = decodeTokenOpRetPayload(fromHex('f274' + tid + '00' + '02' + rogue)) as TokenTransferOpRet;
  assert.deepEqual(r.blobs.map((b) => [b.id, toHex(b.data)]), [[0x16, rogue]]);
  // 'z' is no assets funcid: read as (id, blob) pairs instead, id 0x02 then a blob of 0xe3 bytes that is not there
  assert.throws(() => decodeTokenOpRetPayload(fromHex('f274' + tid + '00' + '02' + 'e37a')), DecodeError);
  // a lone trailing id byte is tolerated by the pairs loop
  const t = decodeTokenOpRetPayload(fromHex('f274' + tid + '00' + '12')) as TokenTransferOpRet;
  assert.equal(t.blobs.length, 0);
});

test('decoder edge rules: ccType > 2, invalid pubkeys dropped, funcid, size, trailing bytes', () => {
  const tid = '22'.repeat(32);
  assert.throws(() => decodeTokenOpRetPayload(fromHex('f274' + tid + '03' + '21' + PK)), /ccType=3/);
  // an empty pubkey field is a CPubKey that stays invalid: not listed
  const d = decodeTokenOpRetPayload(fromHex('f274' + tid + '02' + '00' + '21' + PK)) as TokenTransferOpRet;
  assert.deepEqual(d.pubkeys.map(toHex), [PK]);
  // a 40-byte field with an 02 header is a 33-byte key (CPubKey::size() follows the header)
  const long = decodeTokenOpRetPayload(fromHex('f274' + tid + '01' + '28' + PK + '00'.repeat(7))) as TokenTransferOpRet;
  assert.deepEqual(long.pubkeys.map(toHex), [PK]);
  assert.throws(() => decodeTokenOpRetPayload(fromHex('f278' + tid)), /illegal funcid/);
  assert.throws(() => decodeTokenOpRetPayload(fromHex('f274')), /empty opret/);
  assert.throws(() => decodeTokenOpRetPayload(fromHex('f274' + tid)), DecodeError);
  // create: a trailing id with no blob is tolerated; a truncated blob is not
  const c = 'f263' + '21' + PK + '03' + ascii('ABC') + '00';
  assert.equal(decodeTokenOpRetPayload(fromHex(c + '11')).funcid, 'c');
  assert.throws(() => decodeTokenOpRetPayload(fromHex(c + '1105f2')), DecodeError);
  // non-canonical compact sizes are rejected, as ReadCompactSize does
  assert.throws(() => decodeTokenOpRetPayload(fromHex('f263' + 'fd2100' + PK + '00' + '00')), /non-canonical/);
  // NFT blob round trip
  const nft = encodeTokenCreateOpRet({ origPubkey: fromHex(PK), name: 'N', description: '', nftData: fromHex('f701') });
  assert.equal(toHex(getOpReturnData(nft)), 'f263' + '21' + PK + '01' + ascii('N') + '00' + '11' + '02' + 'f701');
  assert.equal(toHex(nftDataOf(decodeTokenCreateOpRet(nft))), 'f701');
});

test('GetOpReturnData: only the first push after OP_RETURN, empty otherwise', () => {
  assert.equal(toHex(getOpReturnData(fromHex('6a03f27401' + '51'))), 'f27401');
  assert.equal(toHex(getOpReturnData(fromHex('6a4c03f27401'))), 'f27401');
  assert.equal(getOpReturnData(fromHex('6a51')).length, 0);
  assert.equal(getOpReturnData(fromHex('6a05f274')).length, 0); // push runs past the end
  assert.equal(getOpReturnData(fromHex('03f27401')).length, 0);
  assert.throws(() => decodeTokenOpRet(fromHex('6a51')), DecodeError);
});
