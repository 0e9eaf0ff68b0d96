import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Block } from '../../src/chain/block/block.js';
import { hash160 } from '../../src/chain/crypto/hash.js';
import { fromHexReversed, toHex } from '../../src/chain/encoding/hex.js';
import { concatScript, p2pkhScript, pushData } from '../../src/chain/script/script.js';
import { SIGHASH_ALL } from '../../src/chain/script/sighash.js';
import { signatureFor } from '../../src/chain/script/sign.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';
import { TxOut } from '../../src/chain/tx/output.js';
import { TestPeer, blockOf, frame, mempoolOf } from './p2p-testpeer.js';
import { KEY, MAGIC, PUB, p2pDaemon, params } from './p2p-helpers.js';
import { highSTwin } from '../helpers/signatures.js';

/**
 * A peer relays a burst of transactions back to back (a parent, its 24 children, a grandchild, one
 * child with a high-S signature): the node hands them to the mempool together, verifies them in its
 * script-check pool, and answers as komodod does one message at a time: everything valid enters the
 * mempool (the children after their parent, the grandchild after its parent), the high-S one gets
 * reject NONSTANDARD with no score, and the peer's next message (a ping) is answered after the burst.
 * Then a JSON-RPC batch of sendrawtransaction calls, a burst as well, gets the answers of the same
 * calls made one after the other.
 */

const SCRIPT = p2pkhScript(hash160(PUB));
const FEE = 10_000n;

function spend(inputs: { txid: string; n: number; value: bigint; script: Uint8Array }[], outputs: number, height: number, highS = false): Transaction {
  const tx = Transaction.ofFormat(params.txFormat(height), 0);
  for (const i of inputs) tx.vin.push(new TxIn(new Outpoint(fromHexReversed(i.txid), i.n), new Uint8Array(0), 0xffffffff));
  const total = inputs.reduce((a, i) => a + i.value, 0n) - FEE;
  for (let k = 0; k < outputs; k++) tx.vout.push(new TxOut(total / BigInt(outputs), SCRIPT));
  inputs.forEach((inp, n) => {
    let sig = signatureFor(tx, n, inp.script, inp.value, params.currentEpochBranchId(height), KEY, SIGHASH_ALL);
    if (highS) sig = highSTwin(sig);
    // P2PK (the premine: 33-byte key, CHECKSIG) takes the signature alone; P2PKH the key too.
    tx.vin[n]!.scriptSig = inp.script.length === 35 ? pushData(sig) : concatScript(pushData(sig), pushData(PUB));
  });
  return tx;
}

test('bursts (relayed back to back, or a JSON-RPC batch) are accepted as one by one would be', { timeout: 120_000 }, async (t) => {
  // -par=2 (one worker beside the calling thread) whatever the machine's cores: -par's default, one
  // thread per core, starts no worker on a single core, and the pool is what is tested.
  const { d, port, peers } = await p2pDaemon(t, ['-gen=0', '-par=2', `-pubkey=${toHex(PUB)}`]);
  const [h1] = await d.rpc<string[]>('generate', 1);
  const height = 2;
  const premine = Block.fromRaw(await blockOf(port, MAGIC, h1!)).txs[0]!;
  const parent = spend([{ txid: premine.txid(), n: 0, value: premine.vout[0]!.value, script: premine.vout[0]!.script }], 24, height);
  const outs = parent.vout.map((o, n) => ({ txid: parent.txid(), n, value: o.value, script: o.script }));
  const children = outs.map((o, i) => spend([o], 1, height, i === 17));
  const grandchild = spend([{ txid: children[5]!.txid(), n: 0, value: children[5]!.vout[0]!.value, script: SCRIPT }], 1, height);
  const burst = [parent, ...children.slice(0, 6), grandchild, ...children.slice(6)];

  // The script-check workers are up (they start with the node, without delaying it).
  const deadline = Date.now() + 30_000;
  while (!d.log.some((l) => /Using 2 threads for script verification/.test(l))) {
    assert.ok(Date.now() < deadline, 'script-check workers started');
    await new Promise((r) => setTimeout(r, 100));
  }
  const p = await TestPeer.handshake(port, MAGIC);
  peers.push(p);
  const from = p.received.length;
  // In one write, so the node reads them together whatever the machine's timing (26 writes could
  // reach a quick reader one by one, each then accepted alone).
  p.raw(Buffer.concat(burst.map((tx) => frame(MAGIC, 'tx', Buffer.from(tx.toRaw())))));
  await p.ping();
  const rejects = p.received.slice(from).filter((m) => m.command === 'reject');
  assert.equal(rejects.length, 1, 'one reject');
  assert.equal(rejects[0]!.payload[3], 0x40, 'REJECT_NONSTANDARD');
  // komodod's IsLowDERSignature sets no script error: the text is EvalScript's initial "unknown error".
  assert.match(rejects[0]!.payload.toString('latin1'), /non-mandatory-script-verify-flag \(unknown error\)/);
  assert.equal(Buffer.from(rejects[0]!.payload.subarray(-32)).reverse().toString('hex'), children[17]!.txid());
  const expected = burst.filter((tx) => tx !== children[17]).map((tx) => tx.txid());
  assert.deepEqual(new Set(await d.rpc<string[]>('getrawmempool')), new Set(expected));
  assert.deepEqual(new Set(await mempoolOf(port, MAGIC)), new Set(expected));
  const [info] = await d.rpc<{ banscore: number }[]>('getpeerinfo');
  assert.equal(info!.banscore, 0, 'a policy rejection is not scored');
  // The burst was verified by the workers, not one by one on the main thread.
  const states = await d.rpc<{ actors: { mempool: { context: { summary: { verifiedInPool: number } } } } }>('getactorstates');
  const pooled = states.actors.mempool.context.summary.verifiedInPool;
  assert.ok(pooled > 0, `verified in the pool: ${JSON.stringify(states.actors.mempool.context)}`);

  // A JSON-RPC batch of sendrawtransaction calls is a burst too, answered call by call as komodod
  // answers them one after the other: a new parent, its children (one twice), a rival spend of the
  // parent's coin, a high-S child, a grandchild and bytes that do not decode.
  await d.rpc('generate', 1);
  const coin = { txid: children[0]!.txid(), n: 0, value: children[0]!.vout[0]!.value, script: SCRIPT };
  const parent2 = spend([coin], 3, 3);
  const kids = parent2.vout.map((o, n) => spend([{ txid: parent2.txid(), n, value: o.value, script: SCRIPT }], 1, 3, n === 2));
  const rival = spend([coin], 2, 3);
  const grandkid = spend([{ txid: kids[1]!.txid(), n: 0, value: kids[1]!.vout[0]!.value, script: SCRIPT }], 1, 3);
  const calls: [string, unknown[]][] = [parent2, kids[0]!, kids[1]!, kids[0]!, rival, kids[2]!, grandkid].map((tx) => ['sendrawtransaction', [toHex(tx.toRaw())]]);
  calls.push(['sendrawtransaction', ['00ff']]);
  const answers = await d.rpcBatch(calls);
  assert.deepEqual(
    answers.map((a) => (a.error ? `${a.error.code} ${a.error.message}` : a.result)),
    [
      parent2.txid(),
      kids[0]!.txid(),
      kids[1]!.txid(),
      kids[0]!.txid(), // already in the mempool: its txid again, no error
      '-26 16: mempool conflict',
      '-26 64: non-mandatory-script-verify-flag (unknown error)',
      grandkid.txid(),
      '-22 TX decode failed',
    ],
  );
  assert.deepEqual(answers.map((a) => a.id), [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual(new Set(await d.rpc<string[]>('getrawmempool')), new Set([parent2, kids[0]!, kids[1]!, grandkid].map((tx) => tx.txid())));
  const after = await d.rpc<{ actors: { mempool: { context: { summary: { verifiedInPool: number } } } } }>('getactorstates');
  assert.ok(after.actors.mempool.context.summary.verifiedInPool > pooled, 'the batch was verified in the pool');
});

test('16 sendrawtransaction calls in flight, each its own HTTP request: each answered byte for byte as the same call made alone, in order, afterwards', { timeout: 60_000 }, async (t) => {
  const { d, port } = await p2pDaemon(t, ['-gen=0', `-pubkey=${toHex(PUB)}`]);
  const [h1] = await d.rpc<string[]>('generate', 1);
  const premine = Block.fromRaw(await blockOf(port, MAGIC, h1!)).txs[0]!;
  const fan = spend([{ txid: premine.txid(), n: 0, value: premine.vout[0]!.value, script: premine.vout[0]!.script }], 16, 2);
  await d.rpc('sendrawtransaction', toHex(fan.toRaw()));
  await d.rpc('generate', 1);
  const coins = fan.vout.map((o, n) => ({ txid: fan.txid(), n, value: o.value, script: o.script }));
  const deadline = Date.now() + 30_000;
  while (!d.log.some((l) => /Using \d+ threads for script verification/.test(l))) {
    assert.ok(Date.now() < deadline, 'script-check workers started');
    await new Promise((r) => setTimeout(r, 100));
  }
  // Twelve independent spends, a high-S one (policy), two rivals for one coin (whichever arrives first
  // is accepted), one of the twelve again, bytes that do not decode.
  const good = coins.slice(0, 12).map((c) => spend([c], 1, 3));
  const highS = spend([coins[12]!], 1, 3, true);
  const rivals = [spend([coins[13]!], 1, 3), spend([coins[13]!], 2, 3)];
  const hexes = [...good.slice(0, 6).map((tx) => toHex(tx.toRaw())), toHex(rivals[0]!.toRaw()), toHex(highS.toRaw()), ...good.slice(6).map((tx) => toHex(tx.toRaw())), toHex(rivals[1]!.toRaw()), toHex(good[2]!.toRaw()), '00ff'];
  assert.equal(hexes.length, 17);
  // All at once, each on its own connection (the default agent opens one per request in flight). Those
  // read in one turn of the event loop reach the mempool as one burst, the others alone, as they
  // arrive: either way each must get the answer it gets alone.
  await Promise.all(hexes.map(() => d.rpc('getblockcount')));
  const together = await Promise.all(hexes.map((h) => d.rpcRaw('sendrawtransaction', [h])));
  const mempool = new Set(await d.rpc<string[]>('getrawmempool'));
  const won = together[6]!.error === null ? 0 : 1;
  assert.deepEqual(mempool, new Set([...good, rivals[won]!].map((tx) => tx.txid())));
  // The same calls again, one after the other: the accepted ones answer their txid (already in the
  // mempool), each refused one the same error, so every answer above is the one a call alone gets.
  const alone = [];
  for (const h of hexes) alone.push(await d.rpcRaw('sendrawtransaction', [h]));
  assert.deepEqual(together.map((r) => [r.status, r.raw]), alone.map((r) => [r.status, r.raw]));
  assert.deepEqual(
    together.map((r) => (r.error ? `${r.error.code} ${r.error.message.replace(/ \(.*/, '')}` : r.result === null ? 'null' : 'txid')),
    [...Array(6).fill('txid'), won === 0 ? 'txid' : '-26 16: mempool conflict', '-26 64: non-mandatory-script-verify-flag', ...Array(6).fill('txid'), won === 1 ? 'txid' : '-26 16: mempool conflict', 'txid', '-22 TX decode failed'],
  );
  assert.equal(together.filter((r) => r.error?.message === '16: mempool conflict').length, 1, 'one rival refused');
});
