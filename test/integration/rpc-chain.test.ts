import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, removeDir, type Daemon, rpcError } from '../helpers/daemon.js';
import { prng } from '../helpers/prng.js';
import { needVectors, listVectors, loadVector } from '../helpers/vectors.js';
import { Amount } from '../../src/chain/encoding/coin-amount.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { txToJSON } from '../../src/chain/tx/json.js';
import { REGTEST_GENESIS_HASH } from '../../src/chain/block/genesis.js';

type Obj = Record<string, unknown>;

function plain(v: unknown): unknown {
  if (v instanceof Amount) return Number(v.toString());
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

const BLOCK_KEYS = [
  'last_notarized_height', 'hash', 'confirmations', 'rawconfirmations', 'size', 'height', 'version', 'merkleroot', 'segid',
  'finalsaplingroot', 'tx', 'time', 'nonce', 'solution', 'bits', 'difficulty', 'chainwork', 'anchor', 'chainSupply', 'valuePools',
];
const HEADER_KEYS = [
  'last_notarized_height', 'hash', 'confirmations', 'rawconfirmations', 'height', 'version', 'merkleroot', 'finalsaplingroot',
  'time', 'nonce', 'solution', 'bits', 'difficulty', 'chainwork', 'segid',
];

let d: Daemon;

test('blockchain, misc and mining RPCs: komodod shapes, key order and errors on a running dev chain', { timeout: 120_000 }, async (t) => {
  t.after(async () => {
    await d?.stop();
    if (d) removeDir(d.datadir);
  });
  d = await startDaemon();
  const mined = await d.rpc<string[]>('generate', 3);

  assert.equal(await d.rpc('getblockcount'), 3);
  assert.equal(await d.rpc('getbestblockhash'), mined[2]);
  assert.equal(await d.rpc('getblockhash', 0), REGTEST_GENESIS_HASH);
  assert.equal(await d.rpc('getblockhash', 3), mined[2]);
  assert.equal(await d.rpc('getdifficulty'), 1);
  assert.deepEqual(await rpcError(d.rpc('getblockhash', 4)), { code: -8, message: 'Block height out of range' });
  assert.deepEqual(await rpcError(d.rpc('getblockhash', -1)), { code: -8, message: 'Block height out of range' });
  assert.deepEqual(await rpcError(d.rpc('getblockhash', '1')), { code: -1, message: 'JSON value is not an integer as expected' });
  assert.deepEqual(await rpcError(d.rpc('getblockhash', 1.5)), { code: -1, message: 'JSON integer out of range' });

  // getblock: by hash or height string; verbosity as number or bool.
  const b2 = await d.rpc<Obj>('getblock', mined[1]);
  assert.deepEqual(Object.keys(b2), [...BLOCK_KEYS, 'previousblockhash', 'nextblockhash']);
  assert.deepEqual(await d.rpc('getblock', '2'), b2);
  assert.deepEqual(await d.rpc('getblock', '2', true), b2);
  // uint256S: "0x" skipped, upper case read, only the leading hex digits count.
  assert.deepEqual(await d.rpc('getblock', `0x${mined[1]}`), b2);
  assert.deepEqual(await d.rpc('getblock', mined[1]!.toUpperCase()), b2);
  assert.deepEqual(await d.rpc('getblockheader', `  ${mined[1]} trailing`), await d.rpc('getblockheader', mined[1]));
  assert.deepEqual(await d.rpc('getblock', '2', 1), b2);
  assert.equal(typeof (await d.rpc('getblock', '2', false)), 'string');
  assert.deepEqual([b2.height, b2.confirmations, b2.rawconfirmations, b2.segid, b2.last_notarized_height], [2, 2, 2, -1, 0]);
  assert.deepEqual(Object.keys(b2.chainSupply as Obj), ['monitored', 'chainValue', 'chainValueZat', 'valueDelta', 'valueDeltaZat']);
  assert.deepEqual((b2.valuePools as Obj[]).map((p) => p.id), ['transparent', 'sprout', 'sapling', 'burned']);
  assert.deepEqual(Object.keys((b2.valuePools as Obj[])[0]!), ['id', 'monitored', 'chainValue', 'chainValueZat', 'valueDelta', 'valueDeltaZat']);
  // The chain supply grows by the block reward (ac_reward 1 coin) and matches the transparent pool.
  const b3 = await d.rpc<Obj>('getblock', '3');
  assert.equal(Object.keys(b3).includes('nextblockhash'), false);
  assert.equal((b3.chainSupply as Obj).chainValueZat, ((b2.chainSupply as Obj).chainValueZat as number) + 1e8);
  assert.equal((b3.chainSupply as Obj).valueDeltaZat, 1e8);
  assert.equal((b3.chainSupply as Obj).chainValueZat, ((b3.valuePools as Obj[])[0]!).chainValueZat);
  const genesis = await d.rpc<Obj>('getblock', '0');
  assert.deepEqual([genesis.anchor, genesis.segid, 'previousblockhash' in genesis], [b2.anchor, -1, false]);
  assert.equal(b2.anchor, '59d2cde5e65c1414c32ba54f0fe4bdb3d67618125286e6a191317917c812c6d7');
  const b2v2 = await d.rpc<{ tx: Obj[] }>('getblock', '2', 2);
  assert.deepEqual(Object.keys(b2v2.tx[0]!), ['txid', 'overwintered', 'version', 'versiongroupid', 'locktime', 'expiryheight', 'vin', 'vout', 'vjoinsplit', 'valueBalance', 'vShieldedSpend', 'vShieldedOutput']);
  assert.deepEqual(await rpcError(d.rpc('getblock', 'abc')), { code: -8, message: 'Invalid block height parameter' });
  assert.deepEqual(await rpcError(d.rpc('getblock', '-1')), { code: -8, message: 'Invalid block height parameter' });
  assert.deepEqual(await rpcError(d.rpc('getblock', '99999999999')), { code: -8, message: 'Invalid block height parameter' });
  assert.deepEqual(await rpcError(d.rpc('getblock', '4')), { code: -8, message: 'Block height out of range' });
  assert.deepEqual(await rpcError(d.rpc('getblock', '2', 3)), { code: -8, message: 'Verbosity must be in range from 0 to 2' });
  assert.deepEqual(await rpcError(d.rpc('getblock', '2', 'x')), { code: -1, message: 'JSON value is not a boolean as expected' });
  assert.deepEqual(await rpcError(d.rpc('getblock', 2)), { code: -1, message: 'JSON value is not a string as expected' });
  assert.deepEqual(await rpcError(d.rpc('getblock', '00'.repeat(32))), { code: -5, message: 'Block not found' });

  // getblockheader: the header's bytes are the block's first bytes.
  const hdr = await d.rpc<Obj>('getblockheader', mined[1]);
  assert.deepEqual(Object.keys(hdr), [...HEADER_KEYS, 'previousblockhash', 'nextblockhash']);
  const hdrHex = await d.rpc<string>('getblockheader', mined[1], false);
  assert.ok((await d.rpc<string>('getblock', '2', 0)).startsWith(hdrHex));
  assert.deepEqual(await rpcError(d.rpc('getblockheader', mined[1], 1)), { code: -1, message: 'JSON value is not a boolean as expected' });
  assert.deepEqual(await rpcError(d.rpc('getblockheader', 'zz')), { code: -5, message: 'Block not found' });

  // gettxout of a coinbase output; out of range → null.
  const cb = (b2.tx as string[])[0]!;
  const txout = await d.rpc<Obj>('gettxout', cb, 0);
  assert.deepEqual(Object.keys(txout), ['bestblock', 'confirmations', 'rawconfirmations', 'value', 'scriptPubKey', 'version', 'coinbase']);
  assert.deepEqual([txout.bestblock, txout.confirmations, txout.coinbase], [mined[2], 2, true]);
  assert.deepEqual(Object.keys(txout.scriptPubKey as Obj), ['asm', 'hex', 'reqSigs', 'type', 'addresses']);
  assert.equal(await d.rpc('gettxout', cb, 1), null);
  assert.equal(await d.rpc('gettxout', cb, -1), null);
  assert.equal(await d.rpc('gettxout', 'nothex', 0), null);
  assert.deepEqual(await rpcError(d.rpc('gettxout', cb)), { code: -1, message: (await d.rpc<string>('help', 'gettxout')) });

  // getblockchaininfo, getinfo, getmininginfo, getmempoolinfo: komodod's key order.
  const bci = await d.rpc<Obj>('getblockchaininfo');
  assert.deepEqual(Object.keys(bci), [
    'chain', 'blocks', 'synced', 'headers', 'bestblockhash', 'difficulty', 'verificationprogress', 'chainwork', 'pruned',
    'commitments', 'chainSupply', 'valuePools', 'softforks', 'upgrades', 'consensus',
  ]);
  assert.deepEqual([bci.chain, bci.blocks, bci.headers, bci.bestblockhash], ['regtest', 3, 3, mined[2]]);
  assert.deepEqual(bci.consensus, { chaintip: '76b809bb', nextblock: '76b809bb' });
  assert.deepEqual(Object.keys(bci.upgrades as Obj), ['5ba81b19', '76b809bb']);
  assert.deepEqual(Object.keys(bci.chainSupply as Obj), ['monitored', 'chainValue', 'chainValueZat']);
  assert.deepEqual((bci.softforks as Obj[]).map((s) => s.id), ['bip34', 'bip66', 'bip65']);
  const info = await d.rpc<Obj>('getinfo');
  assert.deepEqual(Object.keys(info), [
    'version', 'protocolversion', 'KMDversion', 'synced', 'notarized', 'prevMoMheight', 'notarizedhash', 'notarizedtxid',
    'notarizedtxid_height', 'KMDnotarized_height', 'notarized_confirms', 'walletversion', 'balance', 'blocks', 'longestchain',
    'tiptime', 'difficulty', 'keypoololdest', 'keypoolsize', 'paytxfee', 'sapling', 'timeoffset', 'connections', 'proxy',
    'testnet', 'relayfee', 'errors', 'CCid', 'name', 'p2pport', 'rpcport', 'magic', 'premine', 'reward', 'halving', 'decay',
    'endsubsidy', 'notarypay',
  ]);
  assert.deepEqual([info.version, info.protocolversion, info.KMDversion, info.blocks, info.name, info.CCid, info.premine, info.sapling], [90000, 170013, '0.9.0', 3, 'ACDEV', 2, 10000000, 1]);
  assert.equal(info.reward, '100000000');
  const mining = await d.rpc<Obj>('getmininginfo');
  assert.deepEqual(Object.keys(mining), [
    'blocks', 'currentblocksize', 'currentblocktx', 'difficulty', 'errors', 'genproclimit', 'localsolps', 'networksolps',
    'networkhashps', 'pooledtx', 'testnet', 'chain', 'staking', 'generate', 'numthreads',
  ]);
  assert.deepEqual([mining.blocks, mining.currentblocktx, mining.pooledtx, mining.chain, mining.generate], [3, 1, 0, 'regtest', false]);
  assert.deepEqual(await d.rpc('getrawmempool'), []);
  assert.deepEqual(await d.rpc('getrawmempool', true), {});
  assert.deepEqual(await rpcError(d.rpc('getrawmempool', 1)), { code: -1, message: 'JSON value is not a boolean as expected' });

  // decodescript: P2PKH, the empty script, bad hex, a non-string.
  const p2pkh = await d.rpc<Obj>('decodescript', '76a914f1dce4182fce875748c4986b240ff7d7bc3fffb088ac');
  assert.deepEqual(p2pkh, { asm: 'OP_DUP OP_HASH160 f1dce4182fce875748c4986b240ff7d7bc3fffb0 OP_EQUALVERIFY OP_CHECKSIG', reqSigs: 1, type: 'pubkeyhash', addresses: ['RXL3YXG2ceaB6C5hfJcN4fvmLH2C34knhA'], p2sh: (p2pkh as Obj).p2sh });
  assert.deepEqual(await d.rpc('decodescript', ''), { asm: '', type: 'nonstandard', p2sh: 'bVBPehMs2zB8d3vLtHJ7epkesDQJJ9D7Ek' });
  assert.deepEqual(await rpcError(d.rpc('decodescript', 'zz')), { code: -8, message: "argument must be hexadecimal string (not 'zz')" });
  assert.deepEqual(await rpcError(d.rpc('decodescript', 5)), { code: -3, message: 'Expected type string, got number' });
  assert.deepEqual(await rpcError(d.rpc('decoderawtransaction', '')), { code: -22, message: 'TX decode failed' });
  assert.deepEqual(await rpcError(d.rpc('decoderawtransaction', '0400')), { code: -22, message: 'TX decode failed' });
  assert.deepEqual(await rpcError(d.rpc('decoderawtransaction', [])), { code: -3, message: 'Expected type string, got array' });

  // Help texts are komodod's, with acnode-cli in the examples; a wrong count answers with them.
  const help = await d.rpc<string>('help', 'getblockcount');
  assert.equal(
    help,
    'getblockcount\n\nReturns the number of blocks in the best valid block chain.\n\nResult:\nn    (numeric) The current block count\n\nExamples:\n' +
      '> acnode-cli -ac_name=ACDEV getblockcount \n' +
      `> curl --user myusername --data-binary '{"jsonrpc": "1.0", "id":"curltest", "method": "getblockcount", "params": [] }' -H 'content-type: text/plain;' http://127.0.0.1:${info.rpcport}/\n`,
  );
  const wrong = await d.rpcRaw('getblockcount', [1]);
  assert.deepEqual([wrong.status, wrong.error], [500, { code: -1, message: help }]);
  for (const m of ['getrawtransaction', 'decoderawtransaction', 'decodescript', 'sendrawtransaction', 'getblock', 'getblockheader', 'gettxout', 'getinfo', 'getblockchaininfo', 'getmininginfo', 'submitblock', 'getmempoolinfo', 'getrawmempool', 'getdifficulty', 'getbestblockhash', 'getblockhash']) {
    const text = await d.rpc<string>('help', m);
    assert.ok(text.startsWith(m), `help ${m}`);
    assert.ok(!/komodo-cli/.test(text), `help ${m} names acnode-cli`);
  }
  // invalidateblock/reconsiderblock are listed under == Util ==, as komodod's table files them.
  const list = await d.rpc<string>('help');
  assert.ok(list.includes('\ngetblockcount\n') && /== Util ==\n(.*\n)*invalidateblock "hash"\n/.test(list));
  assert.ok((await d.rpc<string>('help', 'invalidateblock')).startsWith('invalidateblock "hash"\n'));
});

let daemon2: Daemon | undefined;
const d2 = () => daemon2!;

test('decoderawtransaction of the vector transactions equals src/chain/tx/json.ts', needVectors, async () => {
  daemon2 ??= await startDaemon();
  let n = 0;
  for (const f of listVectors('komodo-examples/developer-docs', '.json')) {
    const ex = loadVector<{ hex?: string }>(f);
    if (!ex.hex) continue;
    const tx = Transaction.fromHex(ex.hex);
    assert.deepEqual(await d2().rpc('decoderawtransaction', ex.hex), plain(txToJSON(tx, { ccEnabled: true })), f);
    n++;
  }
  assert.ok(n > 20, `${n} vector transactions decoded`);
});

test('a few hundred malformed requests: every one answered, the node still serves and its tip is unchanged', { timeout: 120_000 }, async (t) => {
  t.after(async () => {
    await daemon2?.stop();
    if (daemon2) removeDir(daemon2.datadir);
  });
  daemon2 ??= await startDaemon();
  const dd = daemon2;
  await dd.rpc('generate', 1);
  const tip = await dd.rpc<string>('getbestblockhash');
  const height = await dd.rpc<number>('getblockcount');
  const rand = prng(4242);
  const junk: unknown[] = [null, true, false, 0, -1, 1.5, 2 ** 53, '', 'zz', 'abc', '0', '00'.repeat(40), 'ff'.repeat(32), [], [1], {}, { a: 1 }, 'x'.repeat(1000), '0400008085202f89', '01'];
  const methods = [
    'decoderawtransaction', 'decodescript', 'getrawtransaction', 'sendrawtransaction', 'getblock', 'getblockheader', 'getblockhash',
    'gettxout', 'getrawmempool', 'submitblock', 'getblockcount', 'getinfo', 'getblockchaininfo', 'getmininginfo', 'getmempoolinfo',
    'getdifficulty', 'getbestblockhash',
  ];
  let answered = 0;
  const one = async () => {
    const m = methods[Math.floor(rand() * methods.length)]!;
    const count = Math.floor(rand() * 4);
    const params = Array.from({ length: count }, () => junk[Math.floor(rand() * junk.length)]);
    const r = await dd.rpcRaw(m, params);
    assert.ok(r.status === 200 || r.status === 500, `${m} ${JSON.stringify(params)}: HTTP ${r.status}`);
    assert.ok(r.error === null || (typeof r.error.code === 'number' && typeof r.error.message === 'string'), `${m}: ${r.raw}`);
    answered++;
  };
  for (let round = 0; round < 50; round++) await Promise.all(Array.from({ length: 6 }, one));
  assert.equal(answered, 300);
  assert.equal(await dd.rpc('getbestblockhash'), tip);
  assert.equal(await dd.rpc('getblockcount'), height);
  assert.deepEqual(await dd.rpc('getrawmempool'), []);
  assert.equal((await dd.rpc<string[]>('generate', 1)).length, 1);
});
