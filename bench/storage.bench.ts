/**
 * Chain storage (the scale issue), each figure beside its limit in the same run:
 * - restart of acnoded holding 10^6 transactions against an empty chain (≤ 1.5), and the anonymous
 *   memory (RssAnon: LMDB's mapped pages are file-backed, the kernel reclaims them) of both, the
 *   difference against 150 MB;
 * - connecting blocks of 1,000 already-verified transactions into LMDB (the chain store's index
 *   code, one write transaction per block with the tip) against the same index updates into memory
 *   without storage (target ≤ 2.0: the cost of durability), and against a bare LMDB write
 *   transaction of the same puts and deletes (≥ 0.5);
 * - -reindex of a 10^5-transaction chain whose every input is signed: transactions per second
 *   against bare signature verification of the same inputs on the same thread (≥ 0.5);
 * - getrawtransaction, gettxout, getaddressutxos, tokenbalance and tokeninfo with 10^6 transactions
 *   in the chain against 10^3 (≤ 1.5 each).
 * The chains are built once into bench/.cache/storage-<n>/ (delete it to rebuild).
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { open } from 'lmdb';
import { hash160 } from '../src/chain/crypto/hash.js';
import { verifyDER } from '../src/chain/crypto/secp256k1.js';
import { selectSecp256k1Backend } from '../src/actors/verify/sig-backend.js';
import { fromHexReversed, toHex } from '../src/chain/encoding/hex.js';
import { encodeAddress, PUBKEY_ADDRESS } from '../src/chain/address/index.js';
import { p2pkhScript } from '../src/chain/script/script.js';
import { SIGHASH_ALL, signatureHash } from '../src/chain/script/sighash.js';
import { buildTokenCreate } from '../src/chain/tokens/index.js';
import { Transaction } from '../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../src/chain/tx/input.js';
import { TxOut } from '../src/chain/tx/output.js';
import { ChainStoreLogic } from '../src/actors/chainstore/logic.js';
import { consensusRules } from '../src/actors/chainstore/consensus.js';
import { CHAIN_SCHEMA_VERSION, ChainDb, NOSYNC_COMMIT } from '../src/actors/chainstore/chaindb.js';
import { ChainIndexes } from '../src/actors/chainstore/chainstate.js';
import { roundsUntilSteady, type Row } from './lib.js';
import { benchKey, mineOnto, newTx, params, signInput0 } from './fixtures.js';

const root = join(import.meta.dirname, '..');
const cacheDir = join(import.meta.dirname, '.cache');
const KEY = benchKey('acnode storage bench key');
const OP_TRUE = Uint8Array.of(0x51);
const LANES = 1000;
const say = (msg: string) => process.stderr.write(`  [storage bench] ${msg}\n`);

interface StorageMeta {
  txs: number;
  height: number;
  /** spread txids of the chain (getrawtransaction) */
  sample: string[];
  /** spread unspent outputs (gettxout) */
  coins: [string, number][];
  /** an address paid exactly 10 times, early (getaddressutxos) */
  probe: string;
  tokenid: string;
}

// ---- the chains ----------------------------------------------------------------------------------

/**
 * A dev-chain data directory of about `txCount` transactions: the premine fanned out to 1,000 lanes
 * (plus 10 payments to the probe address and a coin for the token), a token created, then blocks of
 * 1,000 transactions each moving every lane one step and paying 1,000 satoshis to one of 100
 * addresses (so the UTXO set and the address indexes grow by one per transaction). `signed`: the
 * lanes are P2PKH outputs of the bench key and every step is signed (the -reindex bench verifies
 * them); otherwise they are anyone-can-spend (building 10^6 transactions takes minutes, not hours).
 */
async function storageChain(txCount: number, signed: boolean): Promise<{ dir: string; meta: StorageMeta }> {
  const dir = join(cacheDir, `storage-${signed ? 'signed-' : ''}${txCount}`);
  const metaFile = join(dir, 'meta.json');
  if (existsSync(metaFile) && (await cacheIsCurrent(dir))) return { dir, meta: JSON.parse(readFileSync(metaFile, 'utf8')) as StorageMeta };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  say(`building a chain of ${txCount} transactions${signed ? ' (signed)' : ''} in ${dir} (cached for later runs)`);
  const t0 = performance.now();
  const logic = new ChainStoreLogic({ dir, rules: consensusRules({ params: () => params }), baseParams: params });
  await logic.load();
  const txids: string[] = [];
  const mine = async (txs: Transaction[]) => {
    const block = await mineOnto(logic, txs, KEY.pub, true);
    for (const tx of block.txs) txids.push(tx.txid());
    return block;
  };
  const premine = (await mine([])).txs[0]!;
  const lane = signed ? KEY.p2pkh : OP_TRUE;
  const probeKey = hash160(new TextEncoder().encode('storage bench probe'));
  const crowd = Array.from({ length: 100 }, (_, i) => p2pkhScript(hash160(new TextEncoder().encode(`crowd ${i}`))));
  const fan = newTx(2);
  fan.vin.push(new TxIn(new Outpoint(premine.hash(), 0)));
  const total = premine.vout[0]!.value;
  const each = (total - 20_000_000_000n) / BigInt(LANES);
  for (let i = 0; i < LANES; i++) fan.vout.push(new TxOut(each, lane));
  for (let i = 0; i < 10; i++) fan.vout.push(new TxOut(100_000_000n, p2pkhScript(probeKey)));
  fan.vout.push(new TxOut(total - each * BigInt(LANES) - 1_000_000_000n, KEY.p2pkh));
  signInput0(fan, premine.vout[0]!.script, total, 2, KEY);
  await mine([fan]);
  const fanId = fan.txid();
  const create = buildTokenCreate({
    nextHeight: 3,
    activation: params.activation,
    privateKey: KEY.key,
    name: 'STORE',
    description: 'storage bench token',
    supply: 100_000n,
    coins: [{ txid: fan.hash(), vout: LANES + 10, value: fan.vout[LANES + 10]!.value, script: KEY.p2pkh }],
  });
  if (!create.ok) throw new Error(`bench token: ${JSON.stringify(create)}`);
  await mine([create.tx]);
  let heads = Array.from({ length: LANES }, (_, i) => ({ txid: fanId, n: i, value: each }));
  const coins: [string, number][] = [];
  while (txids.length < txCount) {
    const height = logic.index.height + 1;
    const txs = heads.map((h, i) => {
      const tx = newTx(height);
      tx.vin.push(new TxIn(new Outpoint(fromHexReversed(h.txid), h.n)));
      tx.vout.push(new TxOut(h.value - 1000n, lane), new TxOut(1000n, crowd[(i + height) % crowd.length]!));
      if (signed) signInput0(tx, lane, h.value, height, KEY);
      return tx;
    });
    await mine(txs);
    heads = txs.map((tx, i) => ({ txid: tx.txid(), n: 0, value: heads[i]!.value - 1000n }));
    coins.push([txs[height % txs.length]!.txid(), 1]);
    if (logic.index.height % 50 === 0) say(`  height ${logic.index.height}, ${txids.length} transactions, ${Math.round((performance.now() - t0) / 1000)} s`);
  }
  await logic.close();
  const sample: string[] = [];
  for (let i = 0; i < 2000; i++) sample.push(txids[Math.floor((i * txids.length) / 2000)]!);
  const meta: StorageMeta = {
    txs: txids.length,
    height: logic.index.height,
    sample,
    coins: coins.filter((_, i) => i % Math.max(1, Math.floor(coins.length / 200)) === 0).slice(0, 200),
    probe: encodeAddress(PUBKEY_ADDRESS, probeKey),
    tokenid: create.tx.txid(),
  };
  writeFileSync(metaFile, JSON.stringify(meta));
  say(`built in ${Math.round((performance.now() - t0) / 1000)} s: ${meta.height} blocks, ${diskMB(dir).toFixed(0)} MB on disk`);
  return { dir, meta };
}

/** Whether a cached chain is in the current layout (an older one is built again: upgrading it in the daemon would be timed). */
export async function cacheIsCurrent(dir: string): Promise<boolean> {
  if (!existsSync(join(dir, 'chaindb'))) return false;
  const db = ChainDb.open(join(dir, 'chaindb'));
  const schema = db.getMeta<number>('schema');
  await db.close();
  return schema === CHAIN_SCHEMA_VERSION;
}

function diskMB(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) n += e.isDirectory() ? diskMB(join(dir, e.name)) * 2 ** 20 : statSync(join(dir, e.name)).size;
  return n / 2 ** 20;
}

// ---- a daemon ------------------------------------------------------------------------------------

interface Started {
  ms: number;
  rssAnonMB: number;
  port: number;
  auth: string;
  stop(): Promise<void>;
}

/** Starts acnoded on `dir` (-gen=0, ports 0): the time to its RPC line, its RssAnon then, and a handle. */
async function daemon(dir: string, extra: string[] = []): Promise<Started> {
  const t0 = performance.now();
  const proc = spawn(process.execPath, ['--import', 'tsx', join(root, 'bin/acnoded.ts'), `-datadir=${dir}`, '-rpcport=0', '-port=0', '-gen=0', ...extra], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((r) => proc.on('exit', () => r()));
  let buf = '';
  const { ms, port } = await new Promise<{ ms: number; port: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`acnoded not ready in 10 min:\n${buf}`)), 600_000);
    const on = (c: Buffer) => {
      buf += c.toString();
      const m = /RPC server listening on .*\(rpcport=(\d+)\)/.exec(buf);
      if (m) {
        clearTimeout(timer);
        resolve({ ms: performance.now() - t0, port: Number(m[1]) });
      }
    };
    proc.stdout.on('data', on);
    proc.stderr.on('data', on);
    proc.on('exit', (code) => reject(new Error(`acnoded exited with ${code}:\n${buf}`)));
  });
  await new Promise((r) => setTimeout(r, 500));
  const status = readFileSync(`/proc/${proc.pid}/status`, 'utf8');
  const rssAnonMB = Number(/RssAnon:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
  const conf = readFileSync(join(dir, 'ACDEV.conf'), 'utf8');
  const user = /rpcuser=(.*)/.exec(conf)![1]!;
  const password = /rpcpassword=(.*)/.exec(conf)![1]!;
  return {
    ms,
    rssAnonMB,
    port,
    auth: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
    async stop() {
      proc.kill('SIGTERM');
      await exited;
    },
  };
}

function rpcCaller(d: Started) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const call = <T>(method: string, ...params: unknown[]) =>
    new Promise<T>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: d.port, method: 'POST', agent, headers: { authorization: d.auth, 'content-type': 'text/plain' } }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => {
          const out = JSON.parse(Buffer.concat(parts).toString()) as { result: T; error: { message: string } | null };
          if (out.error) reject(new Error(`${method}: ${out.error.message}`));
          else resolve(out.result);
        });
      });
      req.on('error', reject);
      req.end(JSON.stringify({ jsonrpc: '1.0', id: 'bench', method, params }));
    });
  return { call, close: () => agent.destroy() };
}

// ---- the benchmarks ------------------------------------------------------------------------------

async function restartBench(big: { dir: string; meta: StorageMeta }): Promise<Row[]> {
  const emptyDir = mkdtempSync(join(tmpdir(), 'acnode-empty-'));
  // The empty chain's directory is made once (genesis, key, conf), then both restart alike.
  await (await daemon(emptyDir)).stop();
  let empty = { ms: Infinity, rss: Infinity };
  let loaded = { ms: Infinity, rss: Infinity };
  for (let r = 0; r < 3; r++) {
    for (const [dir, which] of [[emptyDir, 'empty'], [big.dir, 'big']] as const) {
      const d = await daemon(dir);
      await d.stop();
      const best = which === 'empty' ? empty : loaded;
      const next = { ms: Math.min(best.ms, d.ms), rss: Math.min(best.rss, d.rssAnonMB) };
      if (which === 'empty') empty = next;
      else loaded = next;
    }
  }
  rmSync(emptyDir, { recursive: true, force: true });
  return [
    { name: `acnoded restart, ${big.meta.txs} txs (${big.meta.height} blocks)`, value: loaded.ms, unit: 'ms', limitName: 'restart, empty chain', limit: empty.ms, target: { kind: 'max', ratio: 1.5 } },
    { name: `  RssAnon holding ${big.meta.txs} txs`, value: loaded.rss, unit: 'MB', limitName: 'RssAnon, empty chain', limit: empty.rss },
    { name: `  RssAnon above empty, ${big.meta.txs} txs`, value: loaded.rss - empty.rss, unit: 'MB', limitName: 'the issue\'s bound', limit: 150, target: { kind: 'max', ratio: 1 } },
  ];
}

/** A Map standing in for an LMDB database: the same operations, no storage; counts what was put and removed. */
class MapDb {
  readonly m = new Map<string, Buffer>();
  readonly ops: { put: boolean; key: Buffer; value?: Buffer }[] = [];
  constructor(private readonly record: boolean) {}
  get(k: Buffer) {
    return this.m.get(k.toString('latin1'));
  }
  doesExist(k: Buffer) {
    return this.m.has(k.toString('latin1'));
  }
  putSync(k: Buffer, v: Buffer) {
    this.m.set(k.toString('latin1'), v);
    if (this.record) this.ops.push({ put: true, key: k, value: v });
    return true;
  }
  removeSync(k: Buffer) {
    const had = this.m.delete(k.toString('latin1'));
    if (this.record && had) this.ops.push({ put: false, key: k });
    return had;
  }
  clearSync() {
    this.m.clear();
  }
}

/** ChainIndexes over Map stand-ins: the chain store's index updates, without storage. */
function memoryIndexes(record: boolean): { ix: ChainIndexes; dbs: MapDb[] } {
  const dbs: MapDb[] = [];
  const fake = { index: () => (dbs.push(new MapDb(record)), dbs[dbs.length - 1]) } as unknown as ChainDb;
  return { ix: new ChainIndexes(fake, true), dbs };
}

async function connectBench(): Promise<Row[]> {
  // 10 blocks of 1,000 transactions, each spending one P2PKH output of the previous block into two.
  const keys = Array.from({ length: 200 }, () => p2pkhScript(hash160(randomBytes(33))));
  const fakeId = () => toHex(randomBytes(32));
  const base = newTx(2);
  base.vin.push(new TxIn(new Outpoint(new Uint8Array(32), 0xffffffff), Uint8Array.of(1, 1)));
  for (let i = 0; i < 1000; i++) base.vout.push(new TxOut(1_000_000n, keys[i % keys.length]!));
  const baseId = base.txid();
  const blocks: { txs: Transaction[]; txids: string[]; hash: string }[] = [];
  let prev = Array.from({ length: 1000 }, (_, i) => [baseId, i] as [string, number]);
  for (let b = 0; b < 10; b++) {
    const txs: Transaction[] = [];
    const txids: string[] = [];
    const next: [string, number][] = [];
    for (let i = 0; i < 1000; i++) {
      const [t, n] = prev[i]!;
      const tx = newTx(3 + b);
      tx.vin.push(new TxIn(new Outpoint(fromHexReversed(t), n), new Uint8Array(0), 0xffffffff));
      tx.vout.push(new TxOut(400_000n, keys[(i * 7 + b) % keys.length]!), new TxOut(500_000n, keys[(i * 13 + b) % keys.length]!));
      txs.push(tx);
      txids.push(tx.txid());
      next.push([tx.txid(), i % 2]);
    }
    blocks.push({ txs, txids, hash: fakeId() });
    prev = next;
  }
  const inMemory = (): number => {
    const { ix } = memoryIndexes(false);
    ix.connect([base], [baseId], fakeId(), 2);
    const t0 = performance.now();
    blocks.forEach((blk, i) => ix.connect(blk.txs, blk.txids, blk.hash, i + 3));
    return performance.now() - t0;
  };
  const inLmdb = async (): Promise<number> => {
    const dir = mkdtempSync(join(tmpdir(), 'acnode-bench-connect-'));
    const db = ChainDb.open(join(dir, 'chaindb'));
    const ix = new ChainIndexes(db, true);
    db.write(() => ix.connect([base], [baseId], fakeId(), 2));
    const t0 = performance.now();
    blocks.forEach((blk, i) =>
      db.write(() => {
        ix.connect(blk.txs, blk.txids, blk.hash, i + 3);
        db.putMeta('tip', blk.hash);
      }),
    );
    const ms = performance.now() - t0;
    await db.close();
    rmSync(dir, { recursive: true, force: true });
    return ms;
  };
  // The same puts and deletes, per block, as bare LMDB write transactions (one per block, as above),
  // with the chain store's durability: lmdb-js's defaults with a synced meta record (no noMetaSync),
  // each commit NOSYNC_COMMIT (ChainDb.open).
  const { ix: rec, dbs } = memoryIndexes(true);
  rec.connect([base], [baseId], fakeId(), 2);
  for (const d of dbs) d.ops.length = 0;
  const perBlock: { db: number; put: boolean; key: Buffer; value?: Buffer }[][] = [];
  blocks.forEach((blk, i) => {
    rec.connect(blk.txs, blk.txids, blk.hash, i + 3);
    perBlock.push(dbs.flatMap((d, k) => d.ops.map((o) => ({ db: k, ...o }))));
    for (const d of dbs) d.ops.length = 0;
  });
  const bare = async (): Promise<number> => {
    const dir = mkdtempSync(join(tmpdir(), 'acnode-bench-bare-'));
    const env = open({ path: join(dir, 'bare'), maxDbs: 16 });
    const named = dbs.map((_, k) => env.openDB<Buffer, Buffer>({ name: `d${k}`, keyEncoding: 'binary', encoding: 'binary' }));
    // The base block's coins, as the indexed runs have them.
    const { ix: seed, dbs: seeded } = memoryIndexes(false);
    seed.connect([base], [baseId], fakeId(), 2);
    env.transactionSync(() => seeded.forEach((d, k) => d.m.forEach((v, key) => named[k]!.putSync(Buffer.from(key, 'latin1'), v))), NOSYNC_COMMIT);
    const t0 = performance.now();
    for (const ops of perBlock) env.transactionSync(() => {
      for (const o of ops) {
        if (o.put) named[o.db]!.putSync(o.key, o.value!);
        else named[o.db]!.removeSync(o.key);
      }
    }, NOSYNC_COMMIT);
    const ms = performance.now() - t0;
    await env.close();
    rmSync(dir, { recursive: true, force: true });
    return ms;
  };
  let mem = Infinity;
  let lmdb = Infinity;
  let raw = Infinity;
  inMemory();
  await inLmdb();
  await bare();
  const rounds = await roundsUntilSteady(async () => {
    mem = Math.min(mem, inMemory());
    lmdb = Math.min(lmdb, await inLmdb());
    raw = Math.min(raw, await bare());
    return [1 / mem, 1 / lmdb, 1 / raw];
  }, { min: 3, max: 10 });
  const ops = perBlock.reduce((n, b) => n + b.length, 0) / perBlock.length;
  return [
    { name: `connect 10 blocks of 1,000 verified txs into LMDB (${rounds} rounds)`, value: lmdb, unit: 'ms', limitName: 'the same index updates in memory, no storage', limit: mem, target: { kind: 'max', ratio: 2 } },
    // The chain store's rate against the bare rate is bare time over its time.
    { name: `  bare LMDB write transactions, ${Math.round(ops)} puts and deletes per block`, value: raw, unit: 'ms', limitName: 'the chain store connecting them', limit: lmdb, target: { kind: 'min', ratio: 0.5 } },
  ];
}

async function reindexBench(signed: { dir: string; meta: StorageMeta }): Promise<Row[]> {
  // Bare: every signature of the chain's lanes verified with the backend the daemon picks, sighashes computed beforehand.
  selectSecp256k1Backend('auto');
  const logicView = new ChainStoreLogic({ dir: signed.dir, rules: consensusRules({ params: () => params }), baseParams: params });
  await logicView.load();
  const items: { msg: Uint8Array; sig: Uint8Array; pub: Uint8Array }[] = [];
  for (let h = 4; h <= logicView.index.height; h++) {
    const block = (logicView.read({ op: 'block', hash: logicView.index.atHeight(h)!.hash }) as { block: { txs: Transaction[] } }).block;
    for (const tx of block.txs.slice(1)) {
      const ss = tx.vin[0]!.scriptSig;
      const sig = ss.subarray(1, 1 + ss[0]! - 1);
      const pub = ss.subarray(2 + ss[0]!, 2 + ss[0]! + 33);
      const prev = (logicView.read({ op: 'tx', txid: tx.vin[0]!.prevout.txid() }) as { tx: Transaction }).tx.vout[tx.vin[0]!.prevout.index]!;
      items.push({ msg: signatureHash(prev.script, tx, 0, SIGHASH_ALL, prev.value, params.currentEpochBranchId(h)), sig, pub });
    }
  }
  await logicView.close();
  const t0 = performance.now();
  for (const it of items) if (!verifyDER(it.sig, it.msg, it.pub)) throw new Error('bench signature does not verify');
  const bareRate = (items.length * 1000) / (performance.now() - t0);
  // -reindex in a daemon on one thread (-par=1), on a copy of the chain.
  const copy = mkdtempSync(join(tmpdir(), 'acnode-reindex-'));
  cpSync(signed.dir, copy, { recursive: true });
  const d = await daemon(copy, ['-reindex', '-par=1']);
  await d.stop();
  rmSync(copy, { recursive: true, force: true });
  const rate = (signed.meta.txs * 1000) / d.ms;
  return [{ name: `-reindex of ${signed.meta.txs} signed txs, one thread`, value: rate, unit: 'tx/s', limitName: `bare signature verification of its ${items.length} inputs`, limit: bareRate, target: { kind: 'min', ratio: 0.5 } }];
}

async function lookupBench(small: { dir: string; meta: StorageMeta }, big: { dir: string; meta: StorageMeta }): Promise<Row[]> {
  const pub = toHex(KEY.pub);
  const measure = async (c: { dir: string; meta: StorageMeta }) => {
    const d = await daemon(c.dir);
    const rpc = rpcCaller(d);
    const out: Record<string, number> = {};
    const calls: [string, (i: number) => Promise<unknown>][] = [
      ['getrawtransaction', (i) => rpc.call('getrawtransaction', c.meta.sample[i % c.meta.sample.length], 1)],
      ['gettxout', (i) => rpc.call('gettxout', ...c.meta.coins[i % c.meta.coins.length]!)],
      ['getaddressutxos', () => rpc.call('getaddressutxos', { addresses: [c.meta.probe] })],
      ['tokenbalance', () => rpc.call('tokenbalance', c.meta.tokenid, pub)],
      ['tokeninfo', () => rpc.call('tokeninfo', c.meta.tokenid)],
    ];
    try {
      for (const [name, f] of calls) {
        const utxos = name === 'getaddressutxos' ? ((await f(0)) as unknown[]).length : 10;
        if (utxos !== 10) throw new Error(`probe address has ${utxos} outputs`);
        for (let i = 0; i < 100; i++) await f(i);
        const t0 = performance.now();
        for (let i = 0; i < 1000; i++) await f(i);
        out[name] = (performance.now() - t0) / 1000;
      }
    } finally {
      rpc.close();
      await d.stop();
    }
    return out;
  };
  const s = await measure(small);
  const b = await measure(big);
  return Object.keys(s).map((name) => ({
    name: `${name}, ${big.meta.txs} txs`,
    value: b[name]! * 1000,
    unit: 'µs',
    limitName: `with ${small.meta.txs} txs`,
    limit: s[name]! * 1000,
    target: { kind: 'max' as const, ratio: 1.5 },
  }));
}

export async function storageBenchmarks(): Promise<Row[]> {
  // STORAGE_BENCH_ONLY=restart|connect|reindex|lookup (or several, comma-separated) runs only those parts.
  const only = process.env.STORAGE_BENCH_ONLY;
  const part = (name: string) => only === undefined || only.split(',').includes(name);
  const big = Number(process.env.ACNODE_BENCH_BIG ?? 1_000_000);
  const small = part('lookup') ? await storageChain(1_000, false) : undefined;
  const large = part('restart') || part('lookup') ? await storageChain(big, false) : undefined;
  const signed = part('reindex') ? await storageChain(Number(process.env.ACNODE_BENCH_SIGNED ?? 100_000), true) : undefined;
  return [
    ...(large && part('restart') ? await restartBench(large) : []),
    ...(part('connect') ? await connectBench() : []),
    ...(signed ? await reindexBench(signed) : []),
    ...(small && large ? await lookupBench(small, large) : []),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { printRows } = await import('./lib.js');
  printRows('chain storage (scale issue)', await storageBenchmarks());
}
