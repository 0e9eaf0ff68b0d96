import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startDaemon, removeDir, type Daemon, rpcError } from '../helpers/daemon.js';
import { hash160, sha256 } from '../../src/chain/crypto/hash.js';
import { publicKeyFromPrivate } from '../../src/chain/crypto/secp256k1.js';
import { Amount } from '../../src/chain/encoding/coin-amount.js';
import { fromHexReversed, toHex } from '../../src/chain/encoding/hex.js';
import { pubkeyToAddress } from '../../src/chain/address/index.js';
import { devChainParams } from '../../src/chain/params/chain-params.js';
import { p2pkhScript } from '../../src/chain/script/script.js';
import { produceScriptSig } from '../../src/chain/script/sign.js';
import { SIGHASH_ALL } from '../../src/chain/script/sighash.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { txToJSON } from '../../src/chain/tx/json.js';
import { Block } from '../../src/chain/block/block.js';
import { checkProofOfWork } from '../../src/chain/block/pow.js';

const KEY = sha256(new TextEncoder().encode('acnode rpc raw-transaction test key'));
const PUB = publicKeyFromPrivate(KEY, true);
const KEY_ID = toHex(hash160(PUB));
const ADDRESS = pubkeyToAddress(PUB);
const P2PKH = p2pkhScript(hash160(PUB));
const FEE = 10_000n;
const params = devChainParams();

/** Our rendering as a client's JSON parser sees it: amounts and satoshi counts become numbers. */
function plain(v: unknown): unknown {
  if (v instanceof Amount) return Number(v.toString());
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

/** A v4 spend of one of the test key's outputs: two P2PKH outputs back to the key, FEE to the miner. */
function spend(txid: string, n: number, value: bigint, scriptHex: string, nextHeight: number, outs?: bigint[]): Transaction {
  const tx = Transaction.ofFormat(params.txFormat(nextHeight));
  tx.vin.push(new TxIn(new Outpoint(fromHexReversed(txid), n), new Uint8Array(0), 0xffffffff));
  const half = (value - FEE) / 2n;
  for (const v of outs ?? [half, value - FEE - half]) tx.vout.push(new TxOut(v, P2PKH));
  const sig = produceScriptSig(Buffer.from(scriptHex, 'hex'), {
    tx,
    nIn: 0,
    amount: value,
    branchId: params.currentEpochBranchId(nextHeight),
    hashType: SIGHASH_ALL,
    keys: (id) => (toHex(id) === KEY_ID ? { key: KEY, compressed: true } : undefined),
  });
  assert.ok(sig.complete, 'the test key signs its own output');
  tx.vin[0]!.scriptSig = sig.scriptSig;
  return tx;
}

/** The mission's request byte for byte: curl --data-binary '<body>' -H 'content-type: text/plain;'. */
function curl(d: Daemon, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: d.rpcPort,
        method: 'POST',
        path: '/',
        headers: { 'content-type': 'text/plain;', authorization: `Basic ${Buffer.from(`${d.user}:${d.password}`).toString('base64')}` },
      },
      (res) => {
        let s = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (s += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: s }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

type Obj = Record<string, unknown>;

test('raw transactions without a wallet: sign a coinbase spend, send, mine, index, reorg and back', { timeout: 120_000 }, async (t) => {
  let d: Daemon | undefined;
  t.after(async () => {
    await d?.stop();
    if (d) removeDir(d.datadir);
  });
  d = await startDaemon(['-gen=0', `-pubkey=${toHex(PUB)}`]);
  await d.rpc('generate', 2);

  // getinfo names the -pubkey, after errors and before CCid.
  const info = await d.rpc<Obj>('getinfo');
  const keys = Object.keys(info);
  assert.equal(info.pubkey, toHex(PUB));
  assert.equal(keys.indexOf('pubkey'), keys.indexOf('errors') + 1);
  assert.equal(keys[keys.indexOf('pubkey') + 1], 'CCid');

  // The premine (block 1) pays the test key, P2PK.
  const block1 = await d.rpc<{ tx: string[] }>('getblock', '1');
  const parentTxid = block1.tx[0]!;
  const coin = await d.rpc<{ value: number; scriptPubKey: { hex: string; type: string; addresses: string[] } }>('gettxout', parentTxid, 0);
  assert.equal(coin.scriptPubKey.type, 'pubkey');
  assert.deepEqual(coin.scriptPubKey.addresses, [ADDRESS]);
  const parentRaw = Transaction.fromHex(await d.rpc<string>('getrawtransaction', parentTxid));
  const value = parentRaw.vout[0]!.value;

  const tx = spend(parentTxid, 0, value, coin.scriptPubKey.hex, 3);
  const hex = toHex(tx.toRaw());
  const txid = tx.txid();

  // decoderawtransaction: exactly src/chain/tx/json.ts's rendering; trailing bytes are ignored (DecodeHexTx).
  const decoded = await d.rpc('decoderawtransaction', hex);
  assert.deepEqual(decoded, plain(txToJSON(tx, { ccEnabled: true })));
  assert.deepEqual(await d.rpc('decoderawtransaction', hex + '00ff'), decoded);

  // sendrawtransaction: the txid; again (already in the mempool): the txid again, no error.
  assert.equal(await d.rpc('sendrawtransaction', hex), txid);
  assert.equal(await d.rpc('sendrawtransaction', hex, false), txid);
  assert.deepEqual(await d.rpc('getrawmempool'), [txid]);
  const verboseMempool = await d.rpc<Record<string, Obj>>('getrawmempool', true);
  assert.deepEqual(Object.keys(verboseMempool), [txid]);
  assert.deepEqual(Object.keys(verboseMempool[txid]!), ['size', 'fee', 'time', 'height', 'startingpriority', 'currentpriority', 'depends']);
  assert.equal(verboseMempool[txid]!.size, hex.length / 2);
  assert.equal(verboseMempool[txid]!.fee, Number(FEE) / 1e8);
  assert.equal(verboseMempool[txid]!.height, 2);
  assert.deepEqual(verboseMempool[txid]!.depends, []);
  // Priority: the premine (height 1) aged one block at admission (height 2), over the modified size.
  const modSize = hex.length / 2 - (41 + Math.min(110, tx.vin[0]!.scriptSig.length));
  // (doubles print with 16 significant digits, as UniValue's setprecision(16))
  const priority = Number((Number(value) / modSize).toPrecision(16));
  assert.equal(verboseMempool[txid]!.startingpriority, priority);
  assert.equal(verboseMempool[txid]!.currentpriority, priority);
  const mpInfo = await d.rpc<Obj>('getmempoolinfo');
  assert.deepEqual(Object.keys(mpInfo), ['size', 'bytes', 'usage', 'fullyNotified']);
  assert.equal(mpInfo.size, 1);
  assert.equal(mpInfo.bytes, hex.length / 2);

  // getrawtransaction of a mempool transaction: no block fields; the vin carries the spent coin.
  assert.equal(await d.rpc('getrawtransaction', txid), hex);
  assert.equal(await d.rpc('getrawtransaction', txid, 0), hex);
  const inPool = await d.rpc<Obj>('getrawtransaction', txid, 1);
  assert.deepEqual(Object.keys(inPool), [
    'hex', 'txid', 'overwintered', 'version', 'last_notarized_height', 'versiongroupid', 'locktime', 'expiryheight',
    'vin', 'vout', 'vjoinsplit', 'valueBalance', 'vShieldedSpend', 'vShieldedOutput',
  ]);
  const vin0 = (inPool.vin as Obj[])[0]!;
  assert.deepEqual(Object.keys(vin0), ['txid', 'vout', 'address', 'scriptSig', 'value', 'valueSat', 'sequence']);
  assert.equal(vin0.address, ADDRESS);
  assert.equal(vin0.valueSat, Number(value));
  assert.deepEqual(Object.keys((inPool.vout as Obj[])[0]!), ['value', 'valueSat', 'n', 'scriptPubKey']);

  // The parent's output shows its mempool spender (spentHeight -1); gettxout hides it unless the
  // mempool is left out.
  const parentPool = await d.rpc<Obj>('getrawtransaction', parentTxid, 1);
  const pOut = (parentPool.vout as Obj[])[0]!;
  assert.deepEqual([pOut.spentTxId, pOut.spentIndex, pOut.spentHeight], [txid, 0, -1]);
  assert.equal(await d.rpc('gettxout', parentTxid, 0), null);
  assert.equal(((await d.rpc<Obj>('gettxout', parentTxid, 0, false)).value as number) > 0, true);
  const child = await d.rpc<Obj>('gettxout', txid, 1);
  assert.deepEqual(Object.keys(child), ['bestblock', 'confirmations', 'rawconfirmations', 'value', 'scriptPubKey', 'version', 'coinbase']);
  assert.deepEqual([child.confirmations, child.rawconfirmations, child.version, child.coinbase], [0, 0, 4, false]);

  // A child of the mempool transaction paying an absurd fee: -25 unless allowhighfees; then it
  // depends on its parent, and its input is read from the mempool.
  const half = tx.vout[0]!.value;
  const childTx = spend(txid, 0, half, toHex(P2PKH), 3, [100_000_000n]);
  const childHex = toHex(childTx.toRaw());
  const absurd = await rpcError(d.rpc('sendrawtransaction', childHex));
  assert.equal(absurd.code, -25, absurd.message);
  assert.match(absurd.message, new RegExp(`^AcceptToMemoryPool: absurdly high fees ${childTx.txid()}, ${half - 100_000_000n} > \\d+$`));
  assert.equal(await d.rpc('sendrawtransaction', childHex, true), childTx.txid());
  const pool2 = await d.rpc<Record<string, Obj>>('getrawmempool', true);
  assert.deepEqual(Object.keys(pool2).sort(), [txid, childTx.txid()].sort());
  assert.deepEqual(pool2[childTx.txid()]!.depends, [txid]);
  const childJson = await d.rpc<Obj>('getrawtransaction', childTx.txid(), 1);
  const cvin = (childJson.vin as Obj[])[0]!;
  assert.deepEqual([cvin.address, cvin.valueSat], [ADDRESS, Number(half)]);
  const parentOut = ((await d.rpc<Obj>('getrawtransaction', txid, 1)).vout as Obj[])[0]!;
  assert.deepEqual([parentOut.spentTxId, parentOut.spentIndex, parentOut.spentHeight], [childTx.txid(), 0, -1]);

  // Mined: confirmations and the block fields; the parent's spent index has the height.
  const [h3] = await d.rpc<string[]>('generate', 1);
  assert.deepEqual(await d.rpc('getrawmempool'), []);
  const childMined = ((await d.rpc<Obj>('getrawtransaction', txid, 1)).vout as Obj[])[0]!;
  assert.deepEqual([childMined.spentTxId, childMined.spentHeight], [childTx.txid(), 3]);
  const mined = await d.rpc<Obj>('getrawtransaction', txid, 1);
  assert.deepEqual(Object.keys(mined).slice(-6), ['blockhash', 'height', 'confirmations', 'rawconfirmations', 'time', 'blocktime']);
  assert.deepEqual([mined.blockhash, mined.height, mined.confirmations, mined.rawconfirmations], [h3, 3, 1, 1]);
  assert.equal(mined.time, mined.blocktime);
  // The spent index now answers from the block: same vin shape, the coin's value and address.
  const minedVin = (mined.vin as Obj[])[0]!;
  assert.deepEqual(Object.keys(minedVin), ['txid', 'vout', 'address', 'scriptSig', 'value', 'valueSat', 'sequence']);
  assert.deepEqual([minedVin.address, minedVin.valueSat], [ADDRESS, Number(value)]);
  const parentMined = await d.rpc<Obj>('getrawtransaction', parentTxid, 1);
  const pOut2 = (parentMined.vout as Obj[])[0]!;
  assert.deepEqual([pOut2.spentTxId, pOut2.spentIndex, pOut2.spentHeight], [txid, 0, 3]);
  assert.equal(parentMined.confirmations, 3);
  assert.equal(await d.rpc('gettxout', parentTxid, 0, false), null);

  // The mission's exact request (curl, content-type text/plain;).
  const body = `{"jsonrpc":"1.0","id":"curltest","method":"getrawtransaction","params":["${txid}", 1]}`;
  const viaCurl = await curl(d, body);
  assert.equal(viaCurl.status, 200);
  const env = JSON.parse(viaCurl.body) as { result: Obj; error: unknown; id: unknown };
  assert.deepEqual(Object.keys(env), ['result', 'error', 'id']);
  assert.equal(env.error, null);
  assert.equal(env.id, 'curltest');
  assert.deepEqual(env.result, mined);
  assert.match(viaCurl.body, /"valueSat":\d+,"n":0/);
  assert.match(viaCurl.body, /"value":\d+\.\d{8},/);

  // getblock verbosity 2: TxToJSON for each transaction, the same as decoderawtransaction.
  const b3 = await d.rpc<{ tx: Obj[] }>('getblock', h3, 2);
  assert.deepEqual(b3.tx.length, 3);
  assert.deepEqual(b3.tx.find((x) => x.txid === txid), decoded);

  // Errors: already in the chain (-27), spent input (-26 18), missing inputs (-25), decode (-22), types.
  assert.deepEqual(await rpcError(d.rpc('sendrawtransaction', hex)), { code: -27, message: 'transaction already in block chain' });
  const again = spend(parentTxid, 0, value, coin.scriptPubKey.hex, 4);
  assert.deepEqual(await rpcError(d.rpc('sendrawtransaction', toHex(again.toRaw()))), { code: -26, message: '18: bad-txns-inputs-spent' });
  const orphan = spend('11'.repeat(32), 0, value, coin.scriptPubKey.hex, 4);
  assert.deepEqual(await rpcError(d.rpc('sendrawtransaction', toHex(orphan.toRaw()))), { code: -25, message: 'Missing inputs' });
  assert.deepEqual(await rpcError(d.rpc('sendrawtransaction', 'zz')), { code: -22, message: 'TX decode failed' });
  assert.deepEqual(await rpcError(d.rpc('sendrawtransaction', hex, null)), { code: -3, message: 'Expected type bool, got null' });
  assert.deepEqual(await rpcError(d.rpc('getrawtransaction', txid, true)), { code: -1, message: 'JSON value is not an integer as expected' });
  assert.deepEqual(await rpcError(d.rpc('getrawtransaction', 'xyz')), { code: -8, message: "parameter 1 must be hexadecimal string (not 'xyz')" });
  assert.deepEqual(await rpcError(d.rpc('getrawtransaction', '22'.repeat(32))), { code: -5, message: 'No information available about transaction' });

  // submitblock: a known block is "duplicate"; a damaged one is rejected with its reason; bad hex -22.
  const b3hex = await d.rpc<string>('getblock', h3, 0);
  assert.equal(await d.rpc('submitblock', b3hex), 'duplicate');
  assert.deepEqual(await rpcError(d.rpc('submitblock', 'abc')), { code: -22, message: 'Block decode failed' });
  // A wrong merkle root, with a nonce that meets the target (Equihash is not checked on regtest):
  // the merkle check's reason; with a nonce that misses it, the proof-of-work check's reason first.
  const grind = (wantPow: boolean): string => {
    const blk = Block.fromHex(b3hex);
    blk.header.merkleRoot[0]! ^= 1;
    for (let i = 0; ; i++) {
      blk.header.nonce[0] = i & 0xff;
      blk.header.nonce[1] = i >> 8;
      if (checkProofOfWork(blk.header.hash(), blk.header.bits) === wantPow) return toHex(blk.toRaw());
    }
  };
  assert.equal(await d.rpc('submitblock', grind(true)), 'bad-txnmrklroot');
  assert.equal(await d.rpc('submitblock', grind(false)), 'high-hash');
  assert.equal(await d.rpc('getbestblockhash'), h3);

  // A reorg by invalidateblock: the transaction returns to the mempool; reconsiderblock restores it.
  assert.equal(await d.rpc('invalidateblock', h3), null);
  assert.equal(await d.rpc('getblockcount'), 2);
  // komodod's InvalidateBlock leaves pindexBestHeader on the invalidated block: "headers" stays 3.
  assert.deepEqual(await d.rpc<Obj>('getblockchaininfo').then((i) => [i.blocks, i.headers]), [2, 3]);
  assert.deepEqual((await d.rpc<string[]>('getrawmempool')).sort(), [txid, childTx.txid()].sort());
  const back = await d.rpc<Obj>('getrawtransaction', txid, 1);
  assert.equal('blockhash' in back, false);
  const stale = await d.rpc<Obj>('getblock', h3);
  assert.deepEqual([stale.confirmations, stale.rawconfirmations], [-1, -1]);
  // The stale block's coinbase does not return to the mempool: found in its block, off the chain.
  const staleCb = await d.rpc<Obj>('getrawtransaction', (stale.tx as string[])[0], 1);
  assert.deepEqual(Object.keys(staleCb).slice(-4), ['blockhash', 'height', 'confirmations', 'rawconfirmations']);
  assert.deepEqual([staleCb.blockhash, staleCb.height, staleCb.confirmations, staleCb.rawconfirmations], [h3, -1, 0, 0]);
  assert.equal(await d.rpc('reconsiderblock', h3), null);
  assert.equal(await d.rpc('getbestblockhash'), h3);
  assert.deepEqual(await d.rpc('getrawmempool'), []);
  assert.deepEqual(await rpcError(d.rpc('invalidateblock', '33'.repeat(32))), { code: -5, message: 'Block not found' });

  // A valid sibling of the tip (its coinbase pays one satoshi less): stored on a side branch with no
  // more work, so not connected: "inconclusive"; then "duplicate". Its block reads as off the chain.
  const sibling = Block.fromHex(b3hex);
  sibling.txs[0]!.vout[0]!.value -= 1n;
  sibling.updateMerkleRoot();
  for (let i = 0; !checkProofOfWork(sibling.header.hash(), sibling.header.bits); i++) {
    sibling.header.nonce[0] = i & 0xff;
    sibling.header.nonce[1] = i >> 8;
  }
  assert.equal(await d.rpc('submitblock', toHex(sibling.toRaw())), 'inconclusive');
  assert.equal(await d.rpc('submitblock', toHex(sibling.toRaw())), 'duplicate');
  assert.equal(await d.rpc('getbestblockhash'), h3);
  // A block whose parent is unknown: komodod's quirk, null (no reject state), and nothing stored.
  const orphan2 = Block.fromHex(toHex(sibling.toRaw()));
  orphan2.header.prevHash = new Uint8Array(32).fill(9);
  for (let i = 0; !checkProofOfWork(orphan2.header.hash(), orphan2.header.bits); i++) orphan2.header.nonce[2] = i;
  assert.equal(await d.rpc('submitblock', toHex(orphan2.toRaw())), null);
  assert.deepEqual(await rpcError(d.rpc('getblock', orphan2.hashHex())), { code: -5, message: 'Block not found' });
  const side = await d.rpc<Obj>('getblock', sibling.hashHex());
  assert.deepEqual([side.height, side.confirmations, 'nextblockhash' in side], [3, -1, false]);
  // Its transactions were never connected: komodod's txindex is written by ConnectBlock alone, so
  // GetTransaction finds nothing (the disconnected h3's coinbase, above, is found).
  assert.deepEqual(await rpcError(d.rpc('getrawtransaction', sibling.txs[0]!.txid(), 1)), { code: -5, message: 'No information available about transaction' });
});
