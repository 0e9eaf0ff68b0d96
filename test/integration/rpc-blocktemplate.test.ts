import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startDaemon, removeDir, RpcCallError, type Daemon } from '../helpers/daemon.js';
import { solveEquihash } from '../../src/chain/block/equihash-solver.js';

/**
 * getblocktemplate over HTTP, and a block mined from it by an assembler written here: the test's own
 * coinbase, merkle root and header bytes, solved with the project's Equihash solver at komodod's
 * regtest parameters (48,5), then submitted with submitblock.
 */

type Obj = Record<string, unknown>;
type TplTx = { data: string; hash: string; depends: number[]; fee: number; sigops: number };

async function rpcError(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof RpcCallError) return { code: e.code, message: e.message };
    throw e;
  }
  assert.fail('expected an RPC error');
}

const sha256d = (b: Uint8Array): Buffer => createHash('sha256').update(createHash('sha256').update(b).digest()).digest();
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const rev = (h: string): Buffer => Buffer.from(h, 'hex').reverse();
const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
};
const u64 = (n: bigint): Buffer => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(n);
  return b;
};
function compact(n: number): Buffer {
  if (n < 0xfd) return Buffer.of(n);
  if (n <= 0xffff) return Buffer.of(0xfd, n & 0xff, n >> 8);
  return Buffer.concat([Buffer.of(0xfe), u32(n)]);
}
/** A minimal little-endian script number push (BIP34 height). */
function pushNum(n: number): Buffer {
  if (n >= 1 && n <= 16) return Buffer.of(0x50 + n);
  const bytes: number[] = [];
  for (let v = n; v > 0; v >>= 8) bytes.push(v & 0xff);
  if (bytes[bytes.length - 1]! & 0x80) bytes.push(0);
  return Buffer.from([bytes.length, ...bytes]);
}

/** A Sapling (v4) coinbase: null input with the height push, one P2PK output, no expiry. */
function coinbase(height: number, value: bigint, pubkey: string): Buffer {
  const scriptSig = Buffer.concat([pushNum(height), Buffer.from('0474657374', 'hex')]); // push "test"
  const script = Buffer.concat([Buffer.of(33), Buffer.from(pubkey, 'hex'), Buffer.of(0xac)]);
  return Buffer.concat([
    u32(0x80000004),
    u32(0x892f2085),
    compact(1),
    Buffer.alloc(32),
    u32(0xffffffff),
    compact(scriptSig.length),
    scriptSig,
    u32(0xffffffff),
    compact(1),
    u64(value),
    compact(script.length),
    script,
    u32(0), // lock time
    u32(0), // expiry height
    u64(0n), // value balance
    compact(0),
    compact(0),
    compact(0),
  ]);
}

function merkleRoot(txids: Buffer[]): Buffer {
  let level = txids;
  while (level.length > 1) {
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(sha256d(Buffer.concat([level[i]!, level[i + 1] ?? level[i]!])));
    level = next;
  }
  return level[0]!;
}

/** Header prefix, nonce and solution searched until sha256d(header) ≤ target. */
function solve(prefix: Buffer, target: bigint): Buffer {
  const nonce = Buffer.alloc(32);
  for (let i = 1; ; i++) {
    nonce.writeUInt32LE(i, 4);
    let header: Buffer | null = null;
    solveEquihash({ n: 48, k: 5, acNk: false }, Buffer.concat([prefix, nonce]), {
      onSolution: (sol) => {
        const h = Buffer.concat([prefix, nonce, compact(sol.length), Buffer.from(sol)]);
        if (BigInt('0x' + hex(Buffer.from(sha256d(h)).reverse())) > target) return false;
        header = h;
        return true;
      },
    });
    if (header) return header;
  }
}

test('getblocktemplate: komodod fields and order, a block assembled from it here is accepted by submitblock', { timeout: 240_000 }, async (t) => {
  let d: Daemon | undefined;
  t.after(async () => {
    await d?.stop();
    if (d) removeDir(d.datadir);
  });
  d = await startDaemon();
  await d.rpc('generate', 2);

  // A parent paying 5 coins to our address and a child spending that output: "depends" links them.
  const addr = await d.rpc<string>('getnewaddress');
  const parent = await d.rpc<string>('sendtoaddress', addr, 5);
  const ptx = await d.rpc<{ vout: { n: number; value: number; scriptPubKey: { addresses?: string[] } }[] }>('getrawtransaction', parent, 1);
  const n = ptx.vout.find((o) => o.value === 5 && o.scriptPubKey.addresses?.[0] === addr)!.n;
  const raw = await d.rpc<string>('createrawtransaction', [{ txid: parent, vout: n }], { [addr]: 4.9999 });
  const signed = await d.rpc<{ hex: string; complete: boolean }>('signrawtransaction', raw);
  assert.ok(signed.complete);
  const child = await d.rpc<string>('sendrawtransaction', signed.hex);
  const pool = await d.rpc<Record<string, { fee: number }>>('getrawmempool', true);

  const tip = await d.rpc<string>('getbestblockhash');
  const chainInfo = await d.rpc<{ blocks: number }>('getblockchaininfo');
  // GetMedianTimePast: the middle of the last 11 block times, sorted.
  const times: number[] = [];
  for (let h = Math.max(0, chainInfo.blocks - 10); h <= chainInfo.blocks; h++)
    times.push((await d.rpc<{ time: number }>('getblockheader', await d.rpc<string>('getblockhash', h))).time);
  times.sort((a, b) => a - b);
  const mtp = times[Math.floor(times.length / 2)]!;
  const tpl = await d.rpc<Obj>('getblocktemplate');
  assert.deepEqual(Object.keys(tpl), [
    'capabilities', 'version', 'previousblockhash', 'finalsaplingroothash', 'transactions', 'coinbasetxn', 'longpollid',
    'target', 'mintime', 'mutable', 'noncerange', 'sigoplimit', 'sizelimit', 'curtime', 'bits', 'height',
  ]);
  assert.deepEqual(tpl.capabilities, ['proposal']);
  assert.equal(tpl.version, 4);
  assert.equal(tpl.previousblockhash, tip);
  assert.equal(tpl.height, chainInfo.blocks + 1);
  assert.deepEqual(tpl.mutable, ['time', 'transactions', 'prevblock']);
  assert.equal(tpl.noncerange, '00000000ffffffff');
  assert.equal(tpl.sigoplimit, 60000);
  assert.equal(tpl.sizelimit, 4096 * 1024); // MAX_BLOCK_SIZE once Sapling is active (from block 1 here)
  assert.match(tpl.longpollid as string, new RegExp(`^${tip}\\d+$`));
  const bits = tpl.bits as string;
  assert.match(bits, /^[0-9a-f]{8}$/);
  // target: nBits expanded (mantissa × 256^(exponent−3)), as 64 hex digits.
  const nb = parseInt(bits, 16);
  const target = BigInt(nb & 0x7fffff) << BigInt(8 * ((nb >>> 24) - 3));
  assert.equal(tpl.target, target.toString(16).padStart(64, '0'));
  assert.equal(tpl.mintime, mtp + 1);
  assert.ok((tpl.curtime as number) >= (tpl.mintime as number));

  // The two transactions, parent first; fees as the mempool has them, in satoshis; a P2PKH spend
  // counts one sigop per P2PKH output.
  const txs = tpl.transactions as TplTx[];
  assert.deepEqual(txs.map((x) => x.hash), [parent, child]);
  for (const x of txs) {
    assert.deepEqual(Object.keys(x), ['data', 'hash', 'depends', 'fee', 'sigops']);
    assert.equal(hex(Buffer.from(sha256d(Buffer.from(x.data, 'hex'))).reverse()), x.hash);
    assert.equal(x.fee, Math.round(pool[x.hash]!.fee * 1e8));
    const decoded: { vout: { scriptPubKey: { type: string } }[] } = await d.rpc<{ vout: { scriptPubKey: { type: string } }[] }>('decoderawtransaction', x.data);
    assert.equal(x.sigops, decoded.vout.filter((o) => o.scriptPubKey.type === 'pubkeyhash').length);
  }
  assert.deepEqual(txs[0]!.depends, []);
  assert.deepEqual(txs[1]!.depends, [1]);

  const cb = tpl.coinbasetxn as Obj;
  assert.deepEqual(Object.keys(cb), ['data', 'hash', 'depends', 'fee', 'sigops', 'coinbasevalue', 'required']);
  const fees = txs.reduce((s, x) => s + x.fee, 0);
  assert.equal(cb.fee, -fees);
  assert.equal(cb.required, true);
  const subsidy = await d.rpc<{ miner: number }>('getblocksubsidy', tpl.height);
  assert.equal(cb.coinbasevalue, Math.round(subsidy.miner * 1e8));
  assert.equal(cb.sigops, 1); // the node's P2PK coinbase output

  // Another call with nothing changed: the same template (komodod keeps it until the tip or mempool moves).
  const again = await d.rpc<Obj>('getblocktemplate', {});
  assert.deepEqual(again.transactions, tpl.transactions);
  assert.equal(again.longpollid, tpl.longpollid);

  // disablecb: no coinbasetxn; the coinbase leads "transactions" (komodod's loop puts it there).
  const nocb = await d.rpc<Obj>('getblocktemplate', { mode: 'disablecb' });
  assert.ok(!('coinbasetxn' in nocb));
  const nocbTxs = nocb.transactions as TplTx[];
  assert.deepEqual(nocbTxs.map((x) => x.hash), [cb.hash, parent, child]);
  assert.deepEqual(Object.keys(nocbTxs[0]!), ['data', 'hash', 'depends', 'fee', 'sigops']);

  // The block, assembled here: our own coinbase paying subsidy + fees to a key of ours.
  const payAddr = await d.rpc<string>('getnewaddress');
  const payKey = (await d.rpc<{ pubkey: string }>('validateaddress', payAddr)).pubkey;
  const height = tpl.height as number;
  const cbRaw = coinbase(height, BigInt(cb.coinbasevalue as number) + BigInt(fees), payKey);
  const leaves = [sha256d(cbRaw), ...txs.map((x) => rev(x.hash))];
  const prefix = Buffer.concat([
    u32(tpl.version as number),
    rev(tpl.previousblockhash as string),
    merkleRoot(leaves),
    rev(tpl.finalsaplingroothash as string),
    u32(tpl.curtime as number),
    u32(nb),
  ]);
  const header = solve(prefix, target);
  const block = Buffer.concat([header, compact(1 + txs.length), cbRaw, ...txs.map((x) => Buffer.from(x.data, 'hex'))]);
  const blockHash = hex(Buffer.from(sha256d(header)).reverse());

  // A proposal of a block on an old tip is inconclusive; a malformed one is refused.
  assert.equal(await d.rpc('submitblock', hex(block)), null);
  assert.equal(await d.rpc('getbestblockhash'), blockHash);
  const mined = await d.rpc<{ tx: string[]; height: number }>('getblock', blockHash);
  assert.deepEqual(mined.tx, [hex(Buffer.from(leaves[0]!).reverse()), parent, child]);
  assert.deepEqual(await d.rpc('getrawmempool'), []);
  const paid = await d.rpc<{ vout: { value: number; scriptPubKey: { addresses: string[] } }[] }>('getrawtransaction', mined.tx[0], 1);
  assert.deepEqual(paid.vout[0]!.scriptPubKey.addresses, [payAddr]);
  assert.equal(Math.round(paid.vout[0]!.value * 1e8), (cb.coinbasevalue as number) + fees);

  // The next template builds on it, empty, with a new longpollid.
  const next = await d.rpc<Obj>('getblocktemplate');
  assert.equal(next.previousblockhash, blockHash);
  assert.equal(next.height, height + 1);
  assert.deepEqual(next.transactions, []);
  assert.equal((next.coinbasetxn as Obj).fee, 0);

  // Proposals: the block again is a duplicate; one on an older tip is inconclusive.
  assert.equal(await d.rpc('getblocktemplate', { mode: 'proposal', data: hex(block) }), 'duplicate');
  const stale = Buffer.from(block);
  stale[header.length - 1] ^= 1; // another solution byte: another hash, same parent
  assert.equal(await d.rpc('getblocktemplate', { mode: 'proposal', data: hex(stale) }), 'inconclusive-not-best-prevblk');

  // A long poll on a tip that is no longer the tip answers at once.
  const polled = await d.rpc<Obj>('getblocktemplate', { longpollid: tpl.longpollid });
  assert.equal(polled.previousblockhash, blockHash);

  // Errors as komodod's.
  assert.deepEqual(await rpcError(d.rpc('getblocktemplate', 'x')), { code: -1, message: 'JSON value is not an object as expected' });
  assert.deepEqual(await rpcError(d.rpc('getblocktemplate', { mode: 5 })), { code: -8, message: 'Invalid mode' });
  assert.deepEqual(await rpcError(d.rpc('getblocktemplate', { mode: 'proposal' })), { code: -3, message: 'Missing data String key for proposal' });
  assert.deepEqual(await rpcError(d.rpc('getblocktemplate', { mode: 'proposal', data: 'zz' })), { code: -22, message: 'Block decode failed' });
  const usage = await rpcError(d.rpc('getblocktemplate', {}, {}));
  assert.equal(usage.code, -1);
  assert.equal(usage.message.split('\n')[0], 'getblocktemplate ( "jsonrequestobject" )');
  const help = await d.rpc<string>('help', 'getblocktemplate');
  assert.equal(help, usage.message);
  assert.match(help, /"height" : n {22}\(numeric\) The height of the next block\n\}\n\nExamples:\n/);
});
