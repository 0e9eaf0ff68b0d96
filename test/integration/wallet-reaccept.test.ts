import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Daemon, removeDir, startDaemon } from '../helpers/daemon.js';
import { TestPeer, displayHex, invPayload, p2pPort, parseInv, until } from './p2p-testpeer.js';
import { MAGIC } from './p2p-helpers.js';

/**
 * The wallet's unconfirmed transactions across a restart (komodod's ReacceptWalletTransactions at
 * start) and while they wait for a block (ResendWalletTransactions): back in the mempool after a clean
 * stop and after a kill -9, parents before children; marked conflicted (depth -1, walletconflicts) when
 * a mined transaction spent their coin, and then neither re-accepted nor rebroadcast; rebroadcast to
 * peers by inv once a block has come, with the round's timing shortened by -walletresendtimes.
 */

interface WalletTxJson {
  confirmations: number;
  rawconfirmations: number;
  walletconflicts: string[];
  txid: string;
}

const sorted = (xs: string[]) => [...xs].sort();

/** A spend of `txid:vout` (a wallet coin) to a new address of `d`, signed by its wallet and sent. */
async function spendCoin(d: Daemon, txid: string, vout: number, sendRaw = true): Promise<{ txid: string; hex: string }> {
  const out = await d.rpc<{ value: number }>('gettxout', txid, vout, true);
  const to = await d.rpc<string>('getnewaddress');
  const raw = await d.rpc<string>('createrawtransaction', [{ txid, vout }], { [to]: Number((out.value - 0.0001).toFixed(8)) });
  const signed = await d.rpc<{ hex: string; complete: boolean }>('signrawtransaction', raw);
  assert.ok(signed.complete);
  const id = sendRaw ? await d.rpc<string>('sendrawtransaction', signed.hex) : '';
  return { txid: id, hex: signed.hex };
}

/** The vout of `txid` paying `address`. */
async function voutTo(d: Daemon, txid: string, address: string): Promise<number> {
  const tx = await d.rpc<{ vout: { n: number; scriptPubKey: { addresses?: string[] } }[] }>('getrawtransaction', txid, 1);
  const o = tx.vout.find((v) => v.scriptPubKey.addresses?.includes(address));
  assert.ok(o, `${txid} pays ${address}`);
  return o.n;
}

/** A second node on a copy of `d`'s data directory (same keys, same chain), `d` stopped meanwhile. */
async function twin(d: Daemon, args: string[]): Promise<Daemon> {
  await d.stop();
  const dir = mkdtempSync(join(tmpdir(), 'acnode-it-twin-'));
  cpSync(d.datadir, dir, { recursive: true });
  return new Daemon(dir, args);
}

test('unconfirmed wallet transactions re-enter the mempool after a clean stop and after kill -9', async (t) => {
  const d = await startDaemon(['-gen=0']);
  t.after(async () => {
    await d.stop();
    removeDir(d.datadir);
  });
  await d.rpc('generate', 2);
  const addr = await d.rpc<string>('getnewaddress');
  const parent = await d.rpc<string>('sendtoaddress', addr, 1);
  // A child spending the parent's output while both are unconfirmed: re-accepted after it.
  const child = (await spendCoin(d, parent, await voutTo(d, parent, addr))).txid;
  assert.deepEqual(sorted(await d.rpc<string[]>('getrawmempool')), sorted([parent, child]));

  await d.stop();
  await d.start();
  // Wallet requests wait for the wallet's load, the re-accept included.
  assert.equal((await d.rpc<WalletTxJson>('gettransaction', parent)).confirmations, 0);
  assert.equal((await d.rpc<WalletTxJson>('gettransaction', child)).confirmations, 0);
  assert.deepEqual(sorted(await d.rpc<string[]>('getrawmempool')), sorted([parent, child]));
  assert.ok(d.log.some((l) => l.includes('wallet: re-accepted 2 of 2 unconfirmed wallet transactions into the mempool')), d.log.join('\n'));
  await d.rpc('generate', 1);
  assert.equal((await d.rpc<WalletTxJson>('gettransaction', parent)).confirmations, 1);
  assert.equal((await d.rpc<WalletTxJson>('gettransaction', child)).confirmations, 1);
  assert.deepEqual(await d.rpc<string[]>('getrawmempool'), []);

  const sent = await d.rpc<string>('sendtoaddress', await d.rpc<string>('getnewaddress'), 2);
  await d.crash();
  await d.start();
  assert.equal((await d.rpc<WalletTxJson>('gettransaction', sent)).confirmations, 0);
  assert.deepEqual(await d.rpc<string[]>('getrawmempool'), [sent]);
  await d.rpc('generate', 1);
  assert.equal((await d.rpc<WalletTxJson>('gettransaction', sent)).confirmations, 1);
  assert.deepEqual(await d.rpc<string[]>('getrawmempool'), []);
});

test('a wallet transaction double-spent by a mined one is conflicted: depth -1, walletconflicts, not retried', async (t) => {
  const daemons: Daemon[] = [];
  const peers: TestPeer[] = [];
  t.after(async () => {
    for (const p of peers) p.close();
    for (const d of daemons) {
      await d.stop();
      removeDir(d.datadir);
    }
  });
  const a = await startDaemon(['-gen=0', '-walletresendtimes=1,0']);
  daemons.push(a);
  await a.rpc('generate', 2);
  const b = await twin(a, ['-gen=0']);
  daemons.push(b);
  await a.start();
  const pending = await a.rpc<string>('sendtoaddress', await a.rpc<string>('getnewaddress'), 1);
  const coin = (await a.rpc<{ vin: { txid: string; vout: number }[] }>('getrawtransaction', pending, 1)).vin[0]!;
  await a.stop();

  // The twin, which never saw `pending`, spends the same coin and mines it.
  await b.start();
  const rival = (await spendCoin(b, coin.txid, coin.vout)).txid;
  const [h3] = await b.rpc<string[]>('generate', 1);
  const block3 = await b.rpc<string>('getblock', h3, false);
  await b.stop();

  await a.start();
  assert.equal((await a.rpc<WalletTxJson>('gettransaction', pending)).confirmations, 0, 're-accepted at start');
  const peer = await TestPeer.handshake(p2pPort(a.log), MAGIC);
  peers.push(peer);
  assert.equal(await a.rpc('submitblock', block3), null);
  assert.equal(await a.rpc<number>('getblockcount'), 3);
  assert.deepEqual(await a.rpc<string[]>('getrawmempool'), []);
  const conflicted = async () => {
    const p = await a.rpc<WalletTxJson>('gettransaction', pending);
    assert.equal(p.confirmations, -1);
    assert.equal(p.rawconfirmations, -1);
    assert.deepEqual(p.walletconflicts, [rival]);
    const r = await a.rpc<WalletTxJson>('gettransaction', rival);
    assert.ok(r.confirmations >= 1);
    assert.deepEqual(r.walletconflicts, [pending]);
    const listed = (await a.rpc<WalletTxJson[]>('listtransactions', '*', 100)).filter((e) => e.txid === pending);
    assert.ok(listed.length > 0);
    for (const e of listed) {
      assert.equal(e.confirmations, -1);
      assert.deepEqual(e.walletconflicts, [rival]);
    }
  };
  await conflicted();

  // Blocks come and rounds pass: the conflicted transaction is never announced again.
  await a.rpc('generate', 1);
  await new Promise((r) => setTimeout(r, 2500));
  const txInvs = () => peer.received.filter((m) => m.command === 'inv').flatMap((m) => parseInv(m.payload)).filter((i) => i.type === 1).map((i) => displayHex(i.hash));
  assert.ok(!txInvs().includes(pending), 'not rebroadcast');
  assert.ok(!a.log.some((l) => l.includes('ResendWalletTransactions: rebroadcast')), a.log.join('\n'));
  await conflicted();

  // A restart tries it once more (komodod's rule) and leaves it conflicted.
  await a.stop();
  await a.start();
  await conflicted();
  assert.deepEqual(await a.rpc<string[]>('getrawmempool'), []);
  assert.ok(a.log.some((l) => l.includes(`wallet: transaction ${pending} not re-accepted into the mempool: 18: bad-txns-inputs-spent`)), a.log.join('\n'));
});

test('the wallet rebroadcasts its unconfirmed transactions to peers once a block has come', async (t) => {
  const daemons: Daemon[] = [];
  const peers: TestPeer[] = [];
  t.after(async () => {
    for (const p of peers) p.close();
    for (const d of daemons) {
      await d.stop();
      removeDir(d.datadir);
    }
  });
  const a = await startDaemon(['-gen=0', '-walletresendtimes=1,0']);
  daemons.push(a);
  await a.rpc('generate', 2);
  const b = await twin(a, ['-gen=0']);
  daemons.push(b);
  // Blocks from the twin: they will not hold a's transaction, which so stays in a's mempool.
  await b.start();
  const [h3, h4] = await b.rpc<string[]>('generate', 2);
  const block3 = await b.rpc<string>('getblock', h3, false);
  const block4 = await b.rpc<string>('getblock', h4, false);
  await b.stop();

  await a.start();
  const txid = await a.rpc<string>('sendtoaddress', await a.rpc<string>('getnewaddress'), 1);
  await a.stop();
  await a.start();
  // The RPC server opens before the wallet's load ends (komodod too ends its warmup before
  // ReacceptWalletTransactions): a wallet request first, which waits for the load, the re-accept included.
  assert.equal((await a.rpc<WalletTxJson>('gettransaction', txid)).confirmations, 0, a.log.join('\n'));
  assert.deepEqual(await a.rpc<string[]>('getrawmempool'), [txid], a.log.join('\n'));
  assert.ok(a.log.some((l) => l.includes('wallet: re-accepted 1 of 1 unconfirmed wallet transactions into the mempool')), a.log.join('\n'));
  // A peer that connects after the restart has never been told of the transaction.
  const peer = await TestPeer.handshake(p2pPort(a.log), MAGIC);
  peers.push(peer);
  const invFor = (p: TestPeer, id: string) => p.received.some((m) => m.command === 'inv' && parseInv(m.payload).some((i) => i.type === 1 && displayHex(i.hash) === id));
  const rounds = () => a.log.filter((l) => l.includes('ResendWalletTransactions: rebroadcast 1 unconfirmed transactions')).length;
  // Rounds pass every second, but no block has come since the start (nTimeBestReceived 0): nothing is resent.
  await new Promise((r) => setTimeout(r, 2500));
  assert.ok(!invFor(peer, txid), 'no rebroadcast before a block comes');
  assert.equal(await a.rpc('submitblock', block3), null);
  assert.deepEqual(await a.rpc<string[]>('getrawmempool'), [txid]);
  await until('the rebroadcast inv', async () => invFor(peer, txid), 20_000);
  assert.ok(rounds() >= 1, a.log.join('\n'));
  // komodod's gate is nBestBlockTime < nLastResend in whole seconds: a round in the block's own second
  // lets the next round through as well. After that one, no round resends until another block.
  await new Promise((r) => setTimeout(r, 2500));
  const before = rounds();
  assert.ok(before <= 2, a.log.join('\n'));
  // One rebroadcast per block: a peer that connects now hears of it only after the next block.
  const late = await TestPeer.handshake(p2pPort(a.log), MAGIC);
  peers.push(late);
  await new Promise((r) => setTimeout(r, 2500));
  assert.ok(!invFor(late, txid), 'no rebroadcast without another block');
  assert.equal(rounds(), before, a.log.join('\n'));
  assert.equal(await a.rpc('submitblock', block4), null);
  await until('the next rebroadcast inv', async () => invFor(late, txid), 20_000);
  assert.ok(rounds() > before, a.log.join('\n'));
  // The relay serves the transaction itself to the peer that asks for it.
  const from = peer.received.length;
  peer.send('getdata', invPayload([{ type: 1, hash: Buffer.from(txid, 'hex').reverse() }]));
  const got = await peer.waitFor('tx', 30_000, () => true, from);
  assert.equal(got.payload.toString('hex'), await a.rpc<string>('getrawtransaction', txid));
});
