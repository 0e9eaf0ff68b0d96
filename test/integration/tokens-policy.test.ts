import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Daemon, startDaemon, removeDir } from '../helpers/daemon.js';
import { CC_REQUIREMENTS_MSG } from '../../src/rpc/methods/tokens.js';

/**
 * Token RPCs where the chain or the flags matter:
 * - CC requirements (komodod's ensure_CCrequirements): no -pubkey on a non-dev chain, or -ac_cc off,
 *   gives -1 with CC_REQUIREMENTS_MSG before any param is read (after the argument count);
 * - -datacarriersize: a description that pushes the create OP_RETURN past the limit (208 bytes on
 *   asset chains) makes a hex sendrawtransaction refuses with `64: scriptpubkey`, and a larger
 *   -datacarriersize lets the same token through. komodod's regtest skips IsStandardTx, so this runs
 *   on a non-regtest chain (Equihash 48,5, mined by -gen).
 */

type R = Record<string, unknown>;
const CHAIN = ['-ac_name=TOKTEST', '-ac_supply=1000000', '-ac_cc=2', '-ac_sapling=1', '-ac_nk=48,5', '-ac_blocktime=2', '-testnode=1', '-gen', '-genproclimit=1'];

async function waitHeight(d: Daemon, h: number, timeoutMs = 40_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if ((await d.rpc<number>('getblockcount')) >= h) return;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`height ${h} not reached`);
}

test('tokens: CC requirements, and -datacarriersize against a long description on a non-regtest chain', async (t) => {
  const daemons: Daemon[] = [];
  t.after(async () => {
    // d0, d1 and d2 share one data directory: every daemon stops before any directory goes.
    for (const d of daemons) await d.stop();
    for (const dir of new Set(daemons.map((d) => d.datadir))) removeDir(dir);
  });

  // -ac_cc=0: no CC contracts at all (a -pubkey is given, so only the CC switch is missing).
  const nocc = await startDaemon(['-gen=0', '-regtest', '-ac_name=NOCCTOK', '-ac_supply=1000', '-pubkey=021a559101e355c907d9c553671044d619769a6e71d624f68bfec7d0afa6bd6a96']);
  daemons.push(nocc);
  const e0 = await nocc.rpcRaw('tokenlist', []);
  assert.deepEqual(e0.error, { code: -1, message: CC_REQUIREMENTS_MSG });
  await nocc.stop();

  // TOKTEST without -pubkey: every token method refuses, after its argument count, before its params.
  const d0 = await startDaemon(CHAIN);
  daemons.push(d0);
  for (const [m, p] of [['tokenaddress', []], ['tokenlist', []], ['tokeninfo', [123]], ['tokenbalance', [null]], ['tokencreate', [1, 2]], ['tokentransfer', [1, 2, 3]]] as [string, unknown[]][]) {
    const r = await d0.rpcRaw(m, p);
    assert.deepEqual(r.error, { code: -1, message: CC_REQUIREMENTS_MSG }, m);
  }
  assert.deepEqual((await d0.rpcRaw('tokeninfo', [])).error, { code: -1, message: 'tokeninfo tokenid\n' });
  const pubkey = await d0.nodePubkey();
  await d0.stop();

  // The same chain and key with -pubkey: the premine (block 1) funds tokencreate.
  const d1 = new Daemon(d0.datadir, [...CHAIN, `-pubkey=${pubkey}`]);
  await d1.start();
  daemons.push(d1);
  await waitHeight(d1, 2);
  await d1.rpc('setgenerate', false);
  const long = 'x'.repeat(300);
  const big = (await d1.rpc<R>('tokencreate', 'LONG', '10', long)) as R;
  assert.equal(big.result, 'success', JSON.stringify(big));
  const small = (await d1.rpc<R>('tokencreate', 'SHORT', '10', 'short')) as R;
  const refused = await d1.rpcRaw('sendrawtransaction', [big.hex]);
  assert.deepEqual(refused.error, { code: -26, message: '64: scriptpubkey' });
  const shortId = await d1.rpc<string>('sendrawtransaction', small.hex);
  assert.equal(shortId.length, 64);
  // Mined before the restart: left in the mempool, the wallet would put it back there at start
  // (ReacceptWalletTransactions), the premine it spends still spent in the mempool for the next create.
  await d1.rpc('setgenerate', true, 1);
  const end = Date.now() + 40_000;
  while ((await d1.rpc<string[]>('getrawmempool')).includes(shortId)) {
    if (Date.now() > end) throw new Error('the SHORT create was not mined');
    await new Promise((r) => setTimeout(r, 300));
  }
  await d1.stop();

  // A larger -datacarriersize lets the long description through.
  const d2 = new Daemon(d0.datadir, [...CHAIN.filter((a) => a !== '-gen'), `-pubkey=${pubkey}`, '-datacarriersize=1000']);
  await d2.start();
  daemons.push(d2);
  const again = (await d2.rpc<R>('tokencreate', 'LONG', '10', long)) as R;
  assert.equal(again.result, 'success', JSON.stringify(again));
  const id = await d2.rpc<string>('sendrawtransaction', again.hex);
  assert.equal(id.length, 64);
});
