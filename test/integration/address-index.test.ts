import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { startDaemon, removeDir, RpcCallError, type Daemon } from '../helpers/daemon.js';
import { p2shAddress } from '../../src/chain/address/index.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { waitUntil } from '../helpers/wait.js';

/**
 * komodod's address-index RPCs over HTTP against a real daemon (issue 11): balances, utxos, txids and
 * deltas of R, P2SH and CC addresses after payments, spends, a reorg and a restart; the mempool view;
 * getspentinfo; -walletnotify; listsinceblock across a reorg; komodod's errors for bad input.
 */

async function rpcError(d: Daemon, method: string, ...params: unknown[]): Promise<{ code: number; message: string } | 'no error'> {
  try {
    await d.rpc(method, ...params);
  } catch (e) {
    if (e instanceof RpcCallError) return { code: e.code, message: e.message };
    throw e;
  }
  return 'no error';
}

const until = (cond: () => boolean, ms = 30_000): Promise<void> => waitUntil('the condition', cond, ms, 50);

interface Utxo {
  address: string;
  txid: string;
  outputIndex: number;
  script: string;
  satoshis: number;
  height: number;
}
interface Delta {
  satoshis: number;
  txid: string;
  index: number;
  blockindex: number;
  height: number;
  address: string;
}

test('address index: payments, spends, mempool, spent info, reorg, restart, CC tokens, walletnotify, listsinceblock', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'acnode-addr-'));
  const notified = join(dir, 'wallet.txt');
  let d: Daemon | undefined;
  t.after(async () => {
    await d?.stop();
    if (d) removeDir(d.datadir);
    removeDir(dir);
  });
  d = await startDaemon(['-gen=0', `-walletnotify=echo %s >> ${notified}`]);
  const node = d;
  const lines = () => (existsSync(notified) ? readFileSync(notified, 'utf8').trim().split('\n').filter(Boolean) : []);
  await node.rpc('generate', 1);

  const A = await node.rpc<string>('getnewaddress');
  const B = await node.rpc<string>('getnewaddress');
  // A P2SH address nobody can spend from: only credits.
  const P = p2shAddress(Uint8Array.of(0x51));

  await node.rpc<string>('sendtoaddress', P, 2);
  await node.rpc('generate', 1);

  // ---- a payment: mempool first ----
  const before = lines().length;
  const tx1 = await node.rpc<string>('sendtoaddress', A, 10);
  await until(() => lines().slice(before).includes(tx1));
  const mem = await node.rpc<Record<string, unknown>[]>('getaddressmempool', { addresses: [A] });
  assert.equal(mem.length, 1);
  assert.deepEqual(Object.keys(mem[0]!), ['address', 'txid', 'index', 'satoshis', 'timestamp']);
  assert.equal(mem[0]!.address, A);
  assert.equal(mem[0]!.txid, tx1);
  assert.equal(mem[0]!.satoshis, 1_000_000_000);
  assert.deepEqual(await node.rpc('getaddressbalance', A), { balance: 0, received: 0 }, 'the mempool is not in the block index');
  assert.deepEqual(await node.rpc('getaddressutxos', A), []);

  const [h2] = await node.rpc<string[]>('generate', 1);
  // -walletnotify: once when it entered the mempool, again when mined.
  await until(() => lines().filter((l) => l === tx1).length >= 2);
  assert.deepEqual(await node.rpc('getaddressmempool', { addresses: [A] }), []);
  const height2 = (await node.rpc<{ height: number }>('getblock', h2)).height;

  assert.deepEqual(await node.rpc('getaddressbalance', A), { balance: 1_000_000_000, received: 1_000_000_000 });
  assert.deepEqual(await node.rpc('getaddressbalance', P), { balance: 200_000_000, received: 200_000_000 });
  assert.deepEqual(await node.rpc('getaddressbalance', { addresses: [A, P] }), { balance: 1_200_000_000, received: 1_200_000_000 });
  // komodod appends each listed address's index rows to one vector: an address listed twice counts twice.
  assert.deepEqual(await node.rpc('getaddressbalance', { addresses: [A, P, A] }), { balance: 2_200_000_000, received: 2_200_000_000 });
  const utxos = await node.rpc<Utxo[]>('getaddressutxos', A);
  assert.equal(utxos.length, 1);
  assert.deepEqual(Object.keys(utxos[0]!), ['address', 'txid', 'outputIndex', 'script', 'satoshis', 'height']);
  const u = utxos[0]!;
  assert.equal(u.txid, tx1);
  assert.equal(u.height, height2);
  assert.equal(u.satoshis, 1_000_000_000);
  const raw1 = await node.rpc<{ vout: { n: number; scriptPubKey: { hex: string } }[]; vin: { txid: string; vout: number }[] }>('getrawtransaction', tx1, 1);
  assert.equal(u.script, raw1.vout[u.outputIndex]!.scriptPubKey.hex);
  const withInfo = await node.rpc<{ utxos: Utxo[]; hash: string; height: number }>('getaddressutxos', { addresses: [A], chainInfo: true });
  assert.deepEqual(Object.keys(withInfo), ['utxos', 'hash', 'height']);
  assert.equal(withInfo.hash, h2);
  assert.equal(withInfo.height, height2);
  assert.deepEqual(await node.rpc('getaddresstxids', A), [tx1]);
  const deltas = await node.rpc<Delta[]>('getaddressdeltas', { addresses: [A] });
  assert.equal(deltas.length, 1);
  assert.deepEqual(Object.keys(deltas[0]!), ['satoshis', 'txid', 'index', 'blockindex', 'height', 'address']);
  assert.deepEqual(deltas[0], { satoshis: 1_000_000_000, txid: tx1, index: u.outputIndex, blockindex: deltas[0]!.blockindex, height: height2, address: A });
  assert.ok(deltas[0]!.blockindex >= 1);

  // getspentinfo names tx1 as the spender of its first input.
  const prev = raw1.vin[0]!;
  assert.deepEqual(await node.rpc('getspentinfo', { txid: prev.txid, index: prev.vout }), { txid: tx1, index: 0, height: height2 });

  // ---- a spend of A's output to B, mempool then mined ----
  const create = await node.rpc<string>('createrawtransaction', [{ txid: tx1, vout: u.outputIndex }], { [B]: 9.999 });
  const signed = await node.rpc<{ hex: string; complete: boolean }>('signrawtransaction', create);
  assert.equal(signed.complete, true);
  const tx2 = await node.rpc<string>('sendrawtransaction', signed.hex);
  const memSpend = await node.rpc<Record<string, unknown>[]>('getaddressmempool', { addresses: [A] });
  assert.deepEqual(memSpend.map((m) => Object.keys(m)), [['address', 'txid', 'index', 'satoshis', 'timestamp', 'prevtxid', 'prevout']]);
  assert.deepEqual({ ...memSpend[0], timestamp: 0 }, { address: A, txid: tx2, index: 0, satoshis: -1_000_000_000, timestamp: 0, prevtxid: tx1, prevout: u.outputIndex });
  assert.deepEqual(await node.rpc('getspentinfo', { txid: tx1, index: u.outputIndex }), { txid: tx2, index: 0, height: -1 }, 'a mempool spender has height -1');
  const [h3] = await node.rpc<string[]>('generate', 1);
  const height3 = height2 + 1;
  assert.deepEqual(await node.rpc('getspentinfo', { txid: tx1, index: u.outputIndex }), { txid: tx2, index: 0, height: height3 });
  const afterSpend = {
    A: { balance: 0, received: 1_000_000_000 },
    B: { balance: 999_900_000, received: 999_900_000 },
  };
  assert.deepEqual(await node.rpc('getaddressbalance', A), afterSpend.A);
  assert.deepEqual(await node.rpc('getaddressbalance', B), afterSpend.B);
  assert.deepEqual(await node.rpc('getaddressbalance', { addresses: [A, A] }), { balance: 0, received: 2_000_000_000 });
  assert.deepEqual(await node.rpc('getaddressutxos', A), []);
  assert.deepEqual(await node.rpc('getaddresstxids', A), [tx1, tx2]);
  assert.deepEqual(await node.rpc('getaddresstxids', { addresses: [A], start: height3, end: height3 }), [tx2]);
  assert.deepEqual(await node.rpc('getaddresstxids', { addresses: [A], start: height3, end: height2 }), [], 'start > end: an empty range');
  const dA = await node.rpc<Delta[]>('getaddressdeltas', { addresses: [A] });
  assert.deepEqual(dA.map((x) => [x.satoshis, x.txid, x.height]), [[1_000_000_000, tx1, height2], [-1_000_000_000, tx2, height3]]);
  const ranged = await node.rpc<{ deltas: Delta[]; start: unknown; end: unknown }>('getaddressdeltas', { addresses: [A], start: height3, end: height3, chainInfo: true });
  assert.deepEqual(Object.keys(ranged), ['deltas', 'start', 'end']);
  assert.equal(ranged.deltas.length, 1);
  assert.deepEqual(ranged.start, { hash: h3, height: height3 });
  assert.deepEqual(ranged.end, { hash: h3, height: height3 });

  // ---- listsinceblock ----
  const all = await node.rpc<{ transactions: { txid: string; blockhash?: string }[]; lastblock: string }>('listsinceblock');
  assert.deepEqual(Object.keys(all), ['transactions', 'lastblock']);
  assert.equal(all.lastblock, h3);
  assert.ok(all.transactions.some((x) => x.txid === tx2));
  const since2 = await node.rpc<{ transactions: { txid: string; blockhash?: string }[]; lastblock: string }>('listsinceblock', h2);
  assert.deepEqual([...new Set(since2.transactions.map((x) => x.txid))].includes(tx1), false, 'tx1 is in the since-block itself');
  assert.ok(since2.transactions.some((x) => x.txid === tx2 && x.blockhash === h3));
  assert.equal((await node.rpc<{ lastblock: string }>('listsinceblock', h2, 2)).lastblock, h2);

  // ---- a reorg: invalidateblock undoes the spend in the index, reconsiderblock redoes it ----
  await node.rpc('invalidateblock', h3);
  assert.deepEqual(await node.rpc('getaddressbalance', A), { balance: 1_000_000_000, received: 1_000_000_000 });
  assert.deepEqual(await node.rpc('getaddressbalance', B), { balance: 0, received: 0 });
  assert.equal((await node.rpc<Utxo[]>('getaddressutxos', A)).length, 1);
  assert.deepEqual(await node.rpc('getaddresstxids', A), [tx1]);
  // The reorged-out spend is back in the mempool; listsinceblock from h2 lists it unconfirmed.
  const duringReorg = await node.rpc<{ transactions: { txid: string; confirmations: number; blockhash?: string }[]; lastblock: string }>('listsinceblock', h2);
  assert.equal(duringReorg.lastblock, h2);
  const t2 = duringReorg.transactions.find((x) => x.txid === tx2);
  assert.ok(t2, 'the reorged-out transaction is listed');
  assert.equal(t2.confirmations, 0);
  assert.equal(t2.blockhash, undefined);
  await node.rpc('reconsiderblock', h3);
  assert.equal(await node.rpc('getbestblockhash'), h3);
  assert.deepEqual(await node.rpc('getaddressbalance', A), afterSpend.A);
  assert.deepEqual(await node.rpc('getaddressbalance', B), afterSpend.B);
  const afterReorg = await node.rpc<{ transactions: { txid: string; blockhash?: string }[] }>('listsinceblock', h2);
  assert.ok(afterReorg.transactions.some((x) => x.txid === tx2 && x.blockhash === h3));

  // ---- an incoming payment from outside the wallet (P's anyone-can-spend output): -walletnotify in the mempool, then mined ----
  const C = await node.rpc<string>('getnewaddress');
  const [pOut] = await node.rpc<Utxo[]>('getaddressutxos', P);
  const incoming = Transaction.fromHex(await node.rpc<string>('createrawtransaction', [{ txid: pOut!.txid, vout: pOut!.outputIndex }], { [C]: 1.9999 }));
  incoming.vin[0]!.scriptSig = Uint8Array.of(0x01, 0x51);
  const seenBefore = lines().length;
  const tx3 = await node.rpc<string>('sendrawtransaction', incoming.toHex());
  await until(() => lines().slice(seenBefore).includes(tx3));
  assert.deepEqual(await node.rpc('getaddressbalance', P), { balance: 200_000_000, received: 200_000_000 }, 'a mempool spend is not in the block index');
  await node.rpc('generate', 1);
  await until(() => lines().slice(seenBefore).filter((l) => l === tx3).length === 2);
  assert.deepEqual(await node.rpc('getaddressbalance', P), { balance: 0, received: 200_000_000 });
  assert.deepEqual(await node.rpc('getaddressbalance', C), { balance: 199_990_000, received: 199_990_000 });

  // ---- a token holder's CC address lists its token outputs (ccvout) ----
  const created = await node.rpc<{ result: string; hex: string }>('tokencreate', 'ADX', '1', 'address index');
  const tokenid = await node.rpc<string>('sendrawtransaction', created.hex);
  const myCC = (await node.rpc<Record<string, string>>('tokenaddress'))['myCCAddress(Tokens)']!;
  // komodod's mempool index files CC outputs under type 1: found without ccvout, not with it.
  const ccMem = await node.rpc<{ txid: string; index: number; satoshis: number; address: string }[]>('getaddressmempool', { addresses: [myCC] });
  assert.deepEqual(ccMem.map((m) => [m.txid, m.index, m.satoshis, m.address]), [[tokenid, 1, 100_000_000, myCC]]);
  assert.deepEqual(await node.rpc('getaddressmempool', { addresses: [myCC] }, true), []);
  await node.rpc('generate', 1);
  const tb = await node.rpc<{ CCaddress: string }>('tokenbalance', tokenid);
  assert.equal(tb.CCaddress, myCC);
  const cc = await node.rpc<Utxo[]>('getaddressutxos', tb.CCaddress, true);
  assert.deepEqual(
    cc.map((x) => [x.txid, x.outputIndex, x.satoshis, x.address]),
    [[tokenid, 1, 100_000_000, tb.CCaddress]],
  );
  assert.deepEqual(await node.rpc('getaddressbalance', { addresses: [tb.CCaddress] }, true), { balance: 100_000_000, received: 100_000_000 });
  assert.deepEqual(await node.rpc('getaddresstxids', tb.CCaddress, true), [tokenid]);
  assert.deepEqual(await node.rpc('getaddressutxos', tb.CCaddress), [], 'without ccvout the same hash is a P2PKH key');

  // ---- a restart: the indexes come back from the stored blocks ----
  const snapshot = {
    A: await node.rpc('getaddressdeltas', { addresses: [A] }),
    B: await node.rpc('getaddressutxos', B),
    P: await node.rpc('getaddressbalance', P),
    cc: await node.rpc('getaddressutxos', tb.CCaddress, true),
  };
  await node.stop();
  await node.start();
  assert.deepEqual(await node.rpc('getaddressdeltas', { addresses: [A] }), snapshot.A);
  assert.deepEqual(await node.rpc('getaddressutxos', B), snapshot.B);
  assert.deepEqual(await node.rpc('getaddressbalance', P), snapshot.P);
  assert.deepEqual(await node.rpc('getaddressutxos', tb.CCaddress, true), snapshot.cc);
  assert.deepEqual(await node.rpc('getaddressbalance', A), afterSpend.A);

  // ---- bad input: komodod's errors ----
  const e5 = (message: string) => ({ code: -5, message });
  assert.deepEqual(await rpcError(node, 'getaddressbalance', 'notanaddress'), e5('Invalid address'));
  // A valid Base58Check address of another network (Bitcoin's version 0): an unknown address type.
  assert.deepEqual(await rpcError(node, 'getaddressutxos', '1BoatSLRHtKNngkdXEeobR76b53LETtpyT'), e5('Invalid address'));
  assert.deepEqual(await rpcError(node, 'getaddressutxos', { addresses: [A, 'bad'] }), e5('Invalid addresses'));
  assert.deepEqual(await rpcError(node, 'getaddressutxos', { addresses: A }), e5('Addresses is expected to be an array'));
  assert.deepEqual(await rpcError(node, 'getaddressbalance', 5), e5('Invalid addresse'));
  assert.deepEqual(await rpcError(node, 'getaddresstxids', { addresses: [5] }), { code: -1, message: 'JSON value is not a string as expected' });
  assert.deepEqual(await rpcError(node, 'getaddressdeltas', { addresses: [A], start: 5, end: 2 }), e5('End value is expected to be greater than start'));
  assert.deepEqual(await rpcError(node, 'getaddressdeltas', { addresses: [A], start: 0, end: 2 }), e5('Start and end is expected to be greater than zero'));
  assert.deepEqual(await rpcError(node, 'getaddressdeltas', { addresses: [A], start: 1, end: 99999999999 }), { code: -1, message: 'JSON integer out of range' });
  assert.deepEqual(await rpcError(node, 'getaddressdeltas', { addresses: [A], start: 1, end: 2147483647, chainInfo: true }), e5('Start or end is outside chain range'));
  assert.deepEqual((await node.rpc<Delta[]>('getaddressdeltas', { addresses: [A], start: 1, end: 2147483647 })).length, 2, 'a huge range is just the history');
  const deltasHelp = await rpcError(node, 'getaddressdeltas', A);
  assert.equal(deltasHelp !== 'no error' && deltasHelp.code, -1);
  assert.ok(deltasHelp !== 'no error' && deltasHelp.message.startsWith('getaddressdeltas\n\nReturns all changes for an address (requires addressindex to be enabled).\n'));
  assert.deepEqual(await rpcError(node, 'getspentinfo', { txid: tx1, index: '0' }), e5('Invalid txid or index'));
  assert.deepEqual(await rpcError(node, 'getspentinfo', { txid: 'zz', index: 0 }), { code: -8, message: "txid must be hexadecimal string (not 'zz')" });
  assert.deepEqual(await rpcError(node, 'getspentinfo', { txid: tx2, index: 0 }), e5('Unable to get spent info'));
  assert.deepEqual(await rpcError(node, 'getblockhashes', 2000000000, 1), e5('No information available for block hashes'));
  assert.deepEqual(await rpcError(node, 'listsinceblock', h2, 0), { code: -8, message: 'Invalid parameter' });
  const help = await node.rpc<string>('help', 'getaddressutxos');
  assert.ok(help.startsWith('getaddressutxos\n\nReturns all unspent outputs for an address (requires addressindex to be enabled).\n\nArguments:\n{\n  "addresses"\n    [\n'));
  assert.ok(help.includes(` getaddressutxos '{"addresses": ["RY5LccmGiX9bUHYGtSWQouNy1yFhc5rM87"]}' (ccvout)\n> curl --user myusername --data-binary '{"jsonrpc": "1.0", "id":"curltest", "method": "getaddressutxos", "params": [{"addresses": ["RY5LccmGiX9bUHYGtSWQouNy1yFhc5rM87"]} (ccvout)] }' -H 'content-type: text/plain;' http://127.0.0.1:`));
  const list = await node.rpc<string>('help');
  assert.ok(list.includes('== Addressindex ==\nchecknotarization\ngetaddressbalance\ngetaddressdeltas\ngetaddressmempool\ngetaddresstxids (ccvout)\ngetaddressutxos\ngetnotarypayinfo\n'), list);
});

test('-addressindex=0: the address methods have no information, as komodod without the index', async (t) => {
  const d = await startDaemon(['-gen=0', '-addressindex=0']);
  t.after(async () => {
    await d.stop();
    removeDir(d.datadir);
  });
  await d.rpc('generate', 1);
  const A = await d.rpc<string>('getnewaddress');
  await d.rpc('sendtoaddress', A, 1);
  const e5 = { code: -5, message: 'No information available for address' };
  assert.deepEqual(await d.rpc('getaddressmempool', { addresses: [A] }), []);
  await d.rpc('generate', 1);
  assert.deepEqual(await rpcError(d, 'getaddressbalance', A), e5);
  assert.deepEqual(await rpcError(d, 'getaddressutxos', A), e5);
  assert.deepEqual(await rpcError(d, 'getaddresstxids', A), e5);
  assert.deepEqual(await rpcError(d, 'getaddressdeltas', { addresses: [A] }), e5);
});
