import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startDaemon, removeDir, type Daemon } from '../helpers/daemon.js';
import { toHex } from '../../src/chain/encoding/hex.js';
import { publicKeyFromPrivate } from '../../src/chain/crypto/secp256k1.js';
import { ChainDb } from '../../src/actors/chainstore/chaindb.js';

/**
 * Chain schema 8 (getaddressbalance's history totals in the addressBalance rows, tokenbalance's
 * holder totals): a schema-7 data directory — rows of total and count only, no tokenTotals — is
 * upgraded at start by the index upgrade (rebuilt from the block files) and then answers as the node
 * answered before it was stopped.
 */

type R = Record<string, unknown>;
const PK_B = toHex(publicKeyFromPrivate(Uint8Array.from(Buffer.alloc(32, 0x5b)), true));

/** What a schema-7 node left: addressBalance rows of 12 bytes (none where nothing is unspent), no tokenTotals, schema 7. */
async function asSchema7(datadir: string): Promise<void> {
  const db = ChainDb.open(join(datadir, 'chaindb'));
  const balances = db.index('addressBalance');
  const rows = [...balances.getRange({})].map(({ key, value }) => ({ key: Buffer.from(key), value: Buffer.from(value) }));
  db.write(() => {
    for (const { key, value } of rows) {
      if (value.readBigInt64LE(0) === 0n) balances.removeSync(key);
      else balances.putSync(key, value.subarray(0, 12));
    }
    db.index('tokenTotals').clearSync();
    db.putMeta('schema', 7);
  });
  await db.close();
}

test('schema 7 to 8: address history totals and token holder totals are built from the block files, then answer as before; tokenbalance less its outputs spent in the mempool', { timeout: 180_000 }, async (t) => {
  let d: Daemon | undefined;
  t.after(async () => {
    await d?.stop().catch(() => {});
    if (d) removeDir(d.datadir);
  });
  d = await startDaemon();
  const node = d;
  const mine = async () => (await node.rpc<string[]>('generate', 1))[0]!;
  await mine();
  // Tokens first: their fees come from the node key's own address, which the sends below empty.
  const create = await node.rpc<R>('tokencreate', 'UPG', '1000');
  assert.equal(create.result, 'success', JSON.stringify(create));
  const tokenid = await node.rpc<string>('sendrawtransaction', create.hex);
  await mine();
  const transfer = await node.rpc<R>('tokentransfer', tokenid, PK_B, '7');
  assert.equal(transfer.result, 'success', JSON.stringify(transfer));
  await node.rpc('sendrawtransaction', transfer.hex);
  await mine();
  const A = await node.rpc<string>('getnewaddress');
  await node.rpc('sendtoaddress', A, 10);
  await node.rpc('sendtoaddress', A, 3);
  await mine();
  // A's coins spent: A's history has debits (sendtoaddress picks them with everything else).
  await node.rpc('sendtoaddress', await node.rpc<string>('getnewaddress'), 12.5);
  await mine();
  const my = await node.rpc<R>('tokenaddress');
  const addresses = [A, my.myaddress as string];
  const answers = async () => ({
    balances: await Promise.all(addresses.map((a) => node.rpc('getaddressbalance', a))),
    both: await node.rpc('getaddressbalance', { addresses }),
    cc: await node.rpc('getaddressbalance', { addresses: [my['myCCAddress(Tokens)']] }, true),
    mine: await node.rpc('tokenbalance', tokenid),
    b: await node.rpc('tokenbalance', tokenid, PK_B),
  });
  const before = await answers();
  const received = (before.balances[0] as { received: number }).received;
  assert.equal(received, 13_00000000);
  assert.ok((before.balances[0] as { balance: number }).balance < received, JSON.stringify(before));
  assert.equal((before.mine as R).balance, 1000_00000000 - 7);
  assert.equal((before.b as R).balance, 7);
  await node.stop();

  await asSchema7(node.datadir);
  await node.start(60_000);
  assert.ok(node.log.some((l) => /upgrading the chain state to schema 8: the UTXO set and the indexes are built once from the block files/.test(l)), node.log.join('\n'));
  assert.deepEqual(await answers(), before);
  // Kept: the next start upgrades nothing and answers the same.
  await node.stop();
  await node.start(60_000);
  assert.ok(!node.log.some((l) => /upgrading the chain state/.test(l)), node.log.join('\n'));
  assert.deepEqual(await answers(), before);

  // tokenbalance's mempool part, as komodod's AddTokenCCInputs: confirmed outputs only, less those a
  // mempool transaction spends. Two outputs of ours (a transfer to ourselves), then one spent in the mempool.
  const toSelf = await node.rpc<R>('tokentransfer', tokenid, await node.nodePubkey(), '5');
  const selfTxid = await node.rpc<string>('sendrawtransaction', toSelf.hex);
  await mine();
  const ours = (await node.rpc<{ vout: { value: number }[] }>('getrawtransaction', selfTxid, 1)).vout.slice(0, 2).map((o) => Math.round(o.value * 1e8));
  assert.deepEqual(ours, [5, 1000_00000000 - 12]);
  const spend = await node.rpc<R>('tokentransfer', tokenid, PK_B, '1');
  const spendTxid = await node.rpc<string>('sendrawtransaction', spend.hex);
  const vins = (await node.rpc<{ vin: { txid: string; vout: number }[] }>('getrawtransaction', spendTxid, 1)).vin.filter((i) => i.txid === selfTxid && i.vout < 2).map((i) => i.vout);
  // (Its fee may come from the same transaction's normal change, vout 2: only the token outputs count here.)
  assert.equal(vins.length, 1, 'one of our two token outputs is spent');
  assert.equal((await node.rpc<R>('tokenbalance', tokenid)).balance, ours[1 - vins[0]!]);
  assert.equal((await node.rpc<R>('tokenbalance', tokenid, PK_B)).balance, 7, "the mempool's outputs are not counted");
  await mine();
  assert.equal((await node.rpc<R>('tokenbalance', tokenid)).balance, 1000_00000000 - 8);
  assert.equal((await node.rpc<R>('tokenbalance', tokenid, PK_B)).balance, 8);
});
