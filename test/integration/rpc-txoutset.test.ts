import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startDaemon, removeDir, RpcCallError, type Daemon } from '../helpers/daemon.js';

async function rpcError(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof RpcCallError) return { code: e.code, message: e.message };
    throw e;
  }
  assert.fail('expected an RPC error');
}

interface Vout {
  valueZat: number;
  n: number;
  scriptPubKey: { hex: string };
}
interface Tx {
  txid: string;
  vin: { txid?: string; vout?: number; coinbase?: string }[];
  vout: Vout[];
}

/** VARINT of serialize.h, written here from its description. */
function varint(n: number): Buffer {
  const out: number[] = [n & 0x7f];
  while (n > 0x7f) {
    n = Math.floor(n / 128) - 1;
    out.unshift((n & 0x7f) | 0x80);
  }
  return Buffer.from(out);
}

/** komodod's GetStats, recomputed from the blocks as getblock shows them (the UTXO set replayed here). */
async function expectedStats(d: Daemon) {
  const height = await d.rpc<number>('getblockcount');
  const utxo = new Map<string, Map<number, Vout>>();
  // The genesis block's outputs never enter komodod's coins database.
  for (let h = 1; h <= height; h++) {
    const b = await d.rpc<{ tx: Tx[] }>('getblock', String(h), 2);
    for (const tx of b.tx) {
      for (const i of tx.vin) {
        if (i.coinbase !== undefined) continue;
        const outs = utxo.get(i.txid!)!;
        outs.delete(i.vout!);
        if (outs.size === 0) utxo.delete(i.txid!);
      }
      const outs = new Map<number, Vout>();
      // OP_RETURN outputs are unspendable: not in the set
      for (const o of tx.vout) if (!o.scriptPubKey.hex.startsWith('6a')) outs.set(o.n, o);
      if (outs.size) utxo.set(tx.txid, outs);
    }
  }
  const best = await d.rpc<string>('getbestblockhash');
  const internal = (s: string) => Buffer.from(s, 'hex').reverse();
  const txids = [...utxo.keys()].sort((a, b) => Buffer.compare(internal(a), internal(b)));
  const h = createHash('sha256').update(internal(best));
  let txouts = 0;
  let total = 0;
  for (const t of txids) {
    for (const o of [...utxo.get(t)!.values()].sort((a, b) => a.n - b.n)) {
      const v = Buffer.alloc(8);
      v.writeBigInt64LE(BigInt(o.valueZat));
      const script = Buffer.from(o.scriptPubKey.hex, 'hex');
      assert.ok(script.length < 0xfd);
      h.update(Buffer.concat([varint(o.n + 1), v, Buffer.from([script.length]), script]));
      txouts++;
      total += o.valueZat;
    }
    h.update(varint(0));
  }
  const hash = createHash('sha256').update(h.digest()).digest().reverse().toString('hex');
  return { height, bestblock: best, transactions: txids.length, txouts, hash_serialized: hash, total_amount: total / 1e8 };
}

let d: Daemon;

test('gettxoutsetinfo: komodod\'s fields and order, the set\'s counts, amount and hash_serialized as GetStats computes them', { timeout: 180_000 }, async (t) => {
  t.after(async () => {
    await d?.stop();
    if (d) removeDir(d.datadir);
  });
  d = await startDaemon();
  await d.rpc('generate', 2);
  for (let i = 0; i < 3; i++) await d.rpc('sendtoaddress', await d.rpc<string>('getnewaddress'), 1.5);
  await d.rpc('generate', 1);
  const check = async () => {
    const got = await d.rpc<Record<string, unknown>>('gettxoutsetinfo');
    assert.deepEqual(Object.keys(got), ['height', 'bestblock', 'transactions', 'txouts', 'bytes_serialized', 'hash_serialized', 'total_amount']);
    const { bytes_serialized, ...rest } = got;
    assert.deepEqual(rest, await expectedStats(d));
    // each transaction's record: 32 for the key, at least version, code, one compressed output (2+) and height
    assert.ok(typeof bytes_serialized === 'number' && bytes_serialized >= (rest.transactions as number) * (32 + 5));
    return got;
  };
  const before = await check();
  // A spend changes the set, the hash and the size; disconnecting the block brings them back.
  await d.rpc('sendtoaddress', await d.rpc<string>('getnewaddress'), 2);
  const [h] = await d.rpc<string[]>('generate', 1);
  const after = await check();
  assert.notEqual(after.hash_serialized, before.hash_serialized);
  await d.rpc('invalidateblock', h);
  assert.deepEqual(await d.rpc('gettxoutsetinfo'), before);

  const e = await rpcError(d.rpc('gettxoutsetinfo', 1));
  assert.equal(e.code, -1);
  assert.equal(e.message, await d.rpc<string>('help', 'gettxoutsetinfo'));
  assert.ok(e.message.startsWith('gettxoutsetinfo\n\nReturns statistics about the unspent transaction output set.\nNote this call may take some time.\n'));
});
