/**
 * The Tokens module's benchmarks (issue 6, Benchmarks), each figure beside its limit in the same run:
 *
 * 1. tokeninfo and tokenbalance over HTTP against an in-process node (startNode: the real RPC
 *    methods, chain store and token registry actors) loaded on a chain of 10,000 tokens and their
 *    transfers, against the same on a chain of 10 tokens and 100 transfers (flat: ratio ≤ 1.5). The
 *    issue's 10^5 transfers take the token registry minutes to load on this machine, so the default
 *    is 2·10^4 (TOKENS_BENCH_TRANSFERS_PER_TOKEN=10 gives 10^5); the label prints the count. The
 *    chains are built in process with komodod's token transaction layouts (assembleTokenCreate /
 *    assembleTokenTransfer), normal inputs unsigned and one real CC fulfillment reused for every
 *    token input (withFulfillments), connected by a chain store whose consensus checks are skipped
 *    (trustingRules: signing and verifying 2·10^5 inputs takes far too long here; the store, its
 *    indexes and the registry do exactly what they do for valid blocks), and cached in bench/.cache/
 *    (git-ignored);
 * 2. tokencreate + sendrawtransaction round trips per second against sendtoaddress round trips in
 *    the same run, against a real dev-chain daemon (test/helpers/daemon.ts).
 */
import http from 'node:http';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256 } from '../src/chain/crypto/hash.js';
import { publicKeyFromPrivate } from '../src/chain/crypto/secp256k1.js';
import { equalBytes, fromHex, fromHexReversed, toHex } from '../src/chain/encoding/hex.js';
import { p2pkScript, p2pkhScript } from '../src/chain/script/script.js';
import { produceScriptSig } from '../src/chain/script/sign.js';
import { SIGHASH_ALL } from '../src/chain/script/sighash.js';
import { decodeAddress } from '../src/chain/address/address.js';
import { decodeWIF, encodeWIF } from '../src/chain/address/wif.js';
import type { Transaction } from '../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../src/chain/tx/input.js';
import { TxOut } from '../src/chain/tx/output.js';
import { EVAL_TOKENS, assembleTokenCreate, assembleTokenTransfer, tokensCC1Script, type SpendableCoin } from '../src/chain/tokens/index.js';
import { newContextualTransaction, signTokenTx, type AssembledTokenTx } from '../src/chain/tokens/build.js';
import { parsePayToCryptoCondition } from '../src/chain/script/standard.js';
import { ChainStoreLogic } from '../src/actors/chainstore/logic.js';
import { consensusRules } from '../src/actors/chainstore/consensus.js';
import type { ChainRules } from '../src/actors/chainstore/rules.js';
import { loadConfig } from '../src/node/config.js';
import { startNode, type NodeHandle } from '../src/node/node.js';
import { startDaemon, removeDir } from '../test/helpers/daemon.js';
import type { Row } from './lib.js';
import { mineOnto, params } from './fixtures.js';
import { cacheIsCurrent } from './storage.bench.js';

export const cacheDir = join(import.meta.dirname, '.cache');
export { params };
export const KEY = sha256(new TextEncoder().encode('acnode tokens bench key'));
export const PUB = publicKeyFromPrivate(KEY, true);
export const MY_P2PK = p2pkScript(PUB);
export const MY_TOKENS = tokensCC1Script(EVAL_TOKENS, 0, PUB);
const say = (msg: string) => process.stderr.write(`  [tokens bench] ${msg}\n`);

// ---- building chains in process ------------------------------------------------------------------

/**
 * komodod's chain bookkeeping with the consensus checks skipped: the chain store stores, indexes
 * (UTXO, tx, spent, address) and notifies exactly as for valid blocks, but neither PoW nor scripts
 * are checked, so benchmark chains of unsigned transactions connect in seconds.
 */
function trustingRules(): ChainRules {
  const real = consensusRules({ params: () => params });
  return {
    genesis: real.genesis,
    nextBits: (a) => real.nextBits(a),
    checkBlock() {},
    checkHeader() {},
    checkContextual() {},
    connect(block, height, view) {
      for (const tx of block.txs) view.apply(tx, tx.txid(), height);
      return { fees: 0n };
    },
  };
}

/** A chain store on `dir` with trusting rules, and a `mine` that connects a block of the given transactions. */
export async function chainBuilder(dir: string) {
  const logic = new ChainStoreLogic({ dir, rules: trustingRules(), baseParams: params });
  await logic.load();
  // Trusting rules check no proof of work: the blocks are not solved.
  const mine = (txs: Transaction[]) => mineOnto(logic, txs, PUB, false);
  /** The premine (block 1) fanned out to `lanes` P2PK outputs of the bench key (block 2). */
  const lanes = async (count: number): Promise<SpendableCoin[]> => {
    const b1 = await mine([]);
    const premine = b1.txs[0]!;
    const fan = newContextualTransaction({ nextHeight: 2, activation: params.activation });
    fan.vin.push(new TxIn(new Outpoint(fromHexReversed(premine.txid()), 0)));
    const each = premine.vout[0]!.value / BigInt(count + 1);
    for (let i = 0; i < count; i++) fan.vout.push(new TxOut(each, MY_P2PK));
    await mine([fan]);
    const id = fromHexReversed(fan.txid());
    return Array.from({ length: count }, (_, i) => ({ txid: id, vout: i, value: each, script: MY_P2PK }));
  };
  return { logic, mine, lanes, height: () => logic.index.height };
}

/** The output of `tx` paying `script`, as a spendable coin. */
export function outputOf(tx: Transaction, script: Uint8Array): SpendableCoin {
  const n = tx.vout.findIndex((o) => equalBytes(o.script, script));
  if (n < 0) throw new Error('bench transaction lacks the expected output');
  return { txid: fromHexReversed(tx.txid()), vout: n, value: tx.vout[n]!.value, script };
}

/**
 * Gives the CC inputs of `a` the bench key's fulfillment: the first call signs for real and keeps
 * the CC scriptSig; later calls reuse it (its signature is over another transaction, which nothing
 * here checks: the registry and the Assets RPCs read the condition tree — the spender's pubkeys —
 * never the signature). Normal inputs stay unsigned. Signing 10^5 transactions would take minutes.
 */
export function withFulfillments(a: AssembledTokenTx | { tx: Transaction; spent: SpendableCoin[] }, sign: () => { ok: boolean }, cache: Map<string, Uint8Array>): Transaction {
  const tx = a.tx;
  a.spent.forEach((coin, i) => {
    const cc = parsePayToCryptoCondition(coin.script);
    if (!cc) return;
    const key = toHex(coin.script);
    let sig = cache.get(key);
    if (!sig) {
      if (!sign().ok) throw new Error('bench CC input did not sign');
      sig = tx.vin[i]!.scriptSig;
      cache.set(key, sig);
    }
    tx.vin[i]!.scriptSig = sig;
  });
  return tx;
}

export const DESTS = Array.from({ length: 16 }, (_, i) => publicKeyFromPrivate(sha256(Uint8Array.of(0x7e, i)), true));

interface TokenChainMeta {
  tokens: number;
  transfers: number;
  txs: number;
  height: number;
  /** display hex of a spread sample of token ids */
  tokenids: string[];
  /** [tokenid, dest pubkey hex] pairs holding one transferred output each */
  balances: [string, string][];
}

/**
 * A dev-chain data directory with `tokens` tokens, each created by the bench key and then
 * transferred `perToken` times (1 unit to one of 16 destination keys, change back). Blocks hold up to
 * 1,000 transactions; each token uses its own coin lane. Cached in bench/.cache/tokens-<t>x<p>/.
 */
export async function tokenChain(tokens: number, perToken: number): Promise<{ dir: string; meta: TokenChainMeta }> {
  const dir = join(cacheDir, `tokens-${tokens}x${perToken}`);
  const metaFile = join(dir, 'meta.json');
  // A cache in an older layout is built again in the current one (else every run would upgrade a copy).
  if (existsSync(metaFile) && (await cacheIsCurrent(dir))) return { dir, meta: JSON.parse(readFileSync(metaFile, 'utf8')) as TokenChainMeta };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const t0 = performance.now();
  say(`building a chain of ${tokens} tokens and ${tokens * perToken} transfers in ${dir} (cached for later runs)`);
  const b = await chainBuilder(dir);
  const perBlock = 1000;
  const laneCount = Math.min(tokens, perBlock);
  const lanes = await b.lanes(laneCount);
  const ids: Uint8Array[] = [];
  const tokenCoins: SpendableCoin[] = [];
  const balances: [string, string][] = [];
  let txs = 1;
  const fulfillments = new Map<string, Uint8Array>();
  // Creates: token t on lane t % laneCount, a block per round of lanes.
  for (let start = 0; start < tokens; start += laneCount) {
    const nextHeight = b.height() + 1;
    const block: Transaction[] = [];
    for (let t = start; t < Math.min(tokens, start + laneCount); t++) {
      const lane = t % laneCount;
      const r = assembleTokenCreate({ nextHeight, activation: params.activation, pubkey: PUB, name: `BT${t}`, description: `bench token ${t}`, supply: 1_000_000n, coins: [lanes[lane]!] });
      if (!r.ok) throw new Error(`tokencreate: ${r.error}`);
      const tx = r.value.tx;
      block.push(tx);
      lanes[lane] = outputOf(tx, MY_P2PK);
      ids[t] = fromHexReversed(tx.txid());
      tokenCoins[t] = outputOf(tx, MY_TOKENS);
    }
    await b.mine(block);
    txs += block.length;
  }
  // Transfers: round j moves every token once, a block per round of lanes.
  for (let j = 0; j < perToken; j++) {
    for (let start = 0; start < tokens; start += laneCount) {
      const nextHeight = b.height() + 1;
      const block: Transaction[] = [];
      for (let t = start; t < Math.min(tokens, start + laneCount); t++) {
        const lane = t % laneCount;
        const dest = DESTS[(t + j) % DESTS.length]!;
        const r = assembleTokenTransfer({ nextHeight, activation: params.activation, pubkey: PUB, tokenid: ids[t]!, destPubkey: dest, amount: 1n, coins: [lanes[lane]!], tokenCoins: [tokenCoins[t]!] });
        if (!r.ok) throw new Error(`tokentransfer: ${r.error}`);
        const tx = withFulfillments(r.value, () => signTokenTx(r.value, { nextHeight, activation: params.activation, privateKey: KEY }), fulfillments);
        block.push(tx);
        lanes[lane] = outputOf(tx, MY_P2PK);
        tokenCoins[t] = outputOf(tx, MY_TOKENS);
        if (j < DESTS.length && balances.length < 2000 && t % Math.max(1, Math.floor(tokens / 200)) === 0) {
          balances.push([toHex(Uint8Array.from(ids[t]!).reverse()), toHex(dest)]);
        }
      }
      await b.mine(block);
      txs += block.length;
    }
    if (j % 2 === 1) say(`  height ${b.height()}, ${(j + 1) * tokens} transfers`);
  }
  const height = b.height();
  await b.logic.close();
  const step = Math.max(1, Math.floor(tokens / 200));
  const tokenids: string[] = [];
  for (let t = 0; t < tokens; t += step) tokenids.push(toHex(Uint8Array.from(ids[t]!).reverse()));
  const meta: TokenChainMeta = { tokens, transfers: tokens * perToken, txs, height, tokenids, balances };
  writeFileSync(metaFile, JSON.stringify(meta));
  say(`  built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return { dir, meta };
}

// ---- an in-process node over HTTP -----------------------------------------------------------------

export interface Client {
  call(body: string): Promise<string>;
  close(): void;
}

export function httpClient(port: number, auth: string, sockets: number): Client {
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  return {
    call: (body) =>
      new Promise((resolve, reject) => {
        const req = http.request(
          { host: '127.0.0.1', port, method: 'POST', path: '/', agent, headers: { 'content-type': 'text/plain;', 'content-length': Buffer.byteLength(body), authorization: auth } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
          },
        );
        req.on('error', reject);
        req.end(body);
      }),
    close: () => agent.destroy(),
  };
}

export const rpcBody = (method: string, ...ps: unknown[]) => JSON.stringify({ jsonrpc: '1.0', id: 'bench', method, params: ps });

export interface Running {
  node: NodeHandle;
  client: Client;
  /** ms from startNode to the first answered token query (chain store load + token registry load) */
  readyMs: number;
  rpc<T>(method: string, ...params: unknown[]): Promise<T>;
  close(): Promise<void>;
}

/** startNode on a copy of `dir` (removed on close); ready once `probe` answers. */
export async function runNodeOn(dir: string, probe: [string, ...unknown[]]): Promise<Running> {
  const copy = mkdtempSync(join(tmpdir(), 'acnode-bench-tokens-'));
  cpSync(dir, copy, { recursive: true });
  rmSync(join(copy, 'meta.json'), { force: true });
  const t0 = performance.now();
  const config = loadConfig([`-datadir=${copy}`, '-rpcport=0', '-port=0', '-gen=0', `-pubkey=${toHex(PUB)}`]);
  const node = await startNode(config);
  const auth = `Basic ${Buffer.from(`${config.rpcuser}:${config.rpcpassword}`).toString('base64')}`;
  const client = httpClient(node.rpc.port, auth, 4);
  const rpc = async <T>(method: string, ...ps: unknown[]): Promise<T> => {
    const out = JSON.parse(await client.call(rpcBody(method, ...ps))) as { result: T; error: { code: number; message: string } | null };
    if (out.error) throw new Error(`${method}: ${out.error.message}`);
    return out.result;
  };
  await rpc(probe[0], ...probe.slice(1));
  const readyMs = performance.now() - t0;
  return {
    node,
    client,
    readyMs,
    rpc,
    async close() {
      client.close();
      await node.stop();
      rmSync(copy, { recursive: true, force: true });
    },
  };
}

/** Requests per second with 4 keep-alive connections, each sending the next of `bodies` (round robin) when answered. */
export async function httpRate(client: Client, bodies: string[], ms = 700): Promise<number> {
  let n = 0;
  let next = 0;
  let counting = false;
  let stop = false;
  const loop = async () => {
    while (!stop) {
      await client.call(bodies[next++ % bodies.length]!);
      if (counting) n++;
    }
  };
  const loops = Array.from({ length: 4 }, loop);
  await new Promise((r) => setTimeout(r, ms / 5));
  counting = true;
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, ms));
  const elapsed = performance.now() - t0;
  counting = false;
  stop = true;
  await Promise.all(loops);
  return (n * 1000) / elapsed;
}

/** Best of three alternated rounds each (the machine's load moves under a long measurement). */
export async function alternated(a: () => Promise<number>, b: () => Promise<number>): Promise<[number, number]> {
  let ra = 0;
  let rb = 0;
  for (let i = 0; i < 3; i++) {
    ra = Math.max(ra, await a());
    rb = Math.max(rb, await b());
  }
  return [ra, rb];
}

// ---- the benchmarks ----------------------------------------------------------------------------

async function queryBenchmarks(): Promise<Row[]> {
  const rows: Row[] = [];
  const small = await tokenChain(10, 10);
  // The issue asks for 10^5 transfers (10 per token): loading them into the token registry takes
  // ~4-6 minutes on this machine (see the report), so the default is 2 per token (2·10^4 transfers);
  // TOKENS_BENCH_TRANSFERS_PER_TOKEN=10 runs the full size. The count used is printed.
  const big = await tokenChain(10_000, Number(process.env.TOKENS_BENCH_TRANSFERS_PER_TOKEN ?? 2));
  const probe = (m: TokenChainMeta): [string, ...unknown[]] => ['tokeninfo', m.tokenids[0]!];
  const nSmall = await runNodeOn(small.dir, probe(small.meta));
  let nBig: Running | undefined;
  try {
    nBig = await runNodeOn(big.dir, probe(big.meta));
    // Sanity: the registry sees the transferred outputs.
    for (const n of [nSmall, nBig]) {
      const m = n === nSmall ? small.meta : big.meta;
      const [tokenid, pk] = m.balances[0]!;
      const r = await n.rpc<{ result: string; balance: number }>('tokenbalance', tokenid, pk);
      if (r.result !== 'success' || Number(r.balance) !== 1) throw new Error(`tokenbalance sanity check failed: ${JSON.stringify(r)}`);
    }
    const label = (m: TokenChainMeta) => `${m.tokens} tokens, ${m.transfers} transfers`;
    const infoBodies = (m: TokenChainMeta) => m.tokenids.map((id) => rpcBody('tokeninfo', id));
    const balBodies = (m: TokenChainMeta) => m.balances.map(([id, pk]) => rpcBody('tokenbalance', id, pk));
    const [infoBig, infoSmall] = await alternated(() => httpRate(nBig!.client, infoBodies(big.meta)), () => httpRate(nSmall.client, infoBodies(small.meta)));
    rows.push({
      name: `tokeninfo over HTTP (in-process node), ${label(big.meta)}: ${Math.round(infoBig)} req/s`,
      value: 1e6 / infoBig,
      unit: 'µs/req',
      limitName: `the same, ${label(small.meta)}: ${Math.round(infoSmall)} req/s`,
      limit: 1e6 / infoSmall,
      target: { kind: 'max', ratio: 1.5 },
    });
    const [balBig, balSmall] = await alternated(() => httpRate(nBig!.client, balBodies(big.meta)), () => httpRate(nSmall.client, balBodies(small.meta)));
    rows.push({
      name: `tokenbalance over HTTP (in-process node), ${label(big.meta)}: ${Math.round(balBig)} req/s`,
      value: 1e6 / balBig,
      unit: 'µs/req',
      limitName: `the same, ${label(small.meta)}: ${Math.round(balSmall)} req/s`,
      limit: 1e6 / balSmall,
      target: { kind: 'max', ratio: 1.5 },
    });
    rows.push({
      name: `node start to first tokeninfo, ${big.meta.txs} txs (registry load)`,
      value: nBig.readyMs,
      unit: 'ms',
      limitName: `the same, ${small.meta.txs} txs`,
      limit: nSmall.readyMs,
    });
  } finally {
    await nSmall.close();
    await nBig?.close();
  }
  return rows;
}

/**
 * tokencreate + sendrawtransaction against sendtoaddress, round trips over HTTP to a real dev-chain
 * daemon. The premine is split first into confirmed outputs at the -pubkey's address (tokencreate
 * takes only confirmed outputs not spent in the mempool): a transaction built and signed here with
 * the node key (dumpprivkey), since sendmany refuses a repeated address and sendtoaddress to itself
 * re-spends its own unconfirmed outputs.
 */
async function createBenchmarks(): Promise<Row[]> {
  const d = await startDaemon(['-gen=0']);
  try {
    await d.rpc('generate', 1);
    const my = (await d.rpc<{ myaddress: string }>('tokenaddress')).myaddress;
    const wif = decodeWIF(await d.rpc<string>('dumpprivkey', my));
    if (!wif) throw new Error('dumpprivkey: undecodable key');
    const unspent = (await d.rpc<{ txid: string; vout: number; address: string; scriptPubKey: string; amount: number }[]>('listunspent')).find((u) => u.address === my);
    if (!unspent) throw new Error('no premine output at the -pubkey address');
    const N = 40;
    const height = (await d.rpc<number>('getblockcount')) + 1;
    const split = newContextualTransaction({ nextHeight: height, activation: params.activation });
    split.vin.push(new TxIn(new Outpoint(fromHexReversed(unspent.txid), unspent.vout)));
    const value = BigInt(Math.round(unspent.amount * 1e8));
    const each = 100_000_000n;
    const toMe = p2pkhScript(decodeAddress(my)!.hash);
    for (let i = 0; i < N + 5; i++) split.vout.push(new TxOut(each, toMe));
    split.vout.push(new TxOut(value - each * BigInt(N + 5) - 100_000n, toMe));
    const spk = fromHex(unspent.scriptPubKey);
    const myId = decodeAddress(my)!.hash;
    const sig = produceScriptSig(spk, {
      tx: split,
      nIn: 0,
      amount: value,
      branchId: params.currentEpochBranchId(height),
      hashType: SIGHASH_ALL,
      keys: (id) => (equalBytes(id, myId) ? { key: wif.key, compressed: wif.compressed } : undefined),
    });
    if (!sig.complete) throw new Error('split transaction did not sign');
    split.vin[0]!.scriptSig = sig.scriptSig;
    await d.rpc('sendrawtransaction', toHex(split.toRaw()));
    await d.rpc('generate', 1);
    // Warm-up outside the measurement (first use of the token and wallet code paths).
    const create = (name: string) => d.rpc<{ result: string; hex?: string; error?: string }>('tokencreate', name, 0.001, 'bench token');
    const warm = await create('WARM');
    if (warm.result !== 'success') throw new Error(`tokencreate: ${warm.error}`);
    await d.rpc('sendrawtransaction', warm.hex);
    const dest = await d.rpc<string>('getnewaddress');
    await d.rpc('sendtoaddress', dest, 0.5);
    // Measured: tokencreate first (it needs the split outputs unspent), then sendtoaddress.
    let t0 = performance.now();
    for (let i = 0; i < N; i++) {
      const r = await create(`BENCH${i}`);
      if (r.result !== 'success') throw new Error(`tokencreate ${i}: ${r.error}`);
      await d.rpc('sendrawtransaction', r.hex);
    }
    const createMs = performance.now() - t0;
    t0 = performance.now();
    for (let i = 0; i < N; i++) await d.rpc('sendtoaddress', dest, 0.5);
    const sendMs = performance.now() - t0;
    return [
      {
        name: `tokencreate + sendrawtransaction (daemon, ${N} round trips)`,
        value: (N * 1000) / createMs,
        unit: 'tx/s',
        limitName: `sendtoaddress round trips (${N}), same daemon`,
        limit: (N * 1000) / sendMs,
      },
    ];
  } finally {
    await d.stop();
    removeDir(d.datadir);
  }
}

// ---- one holder's transfers within one block --------------------------------------------------

interface HolderChainMeta {
  /** display hex of the measured token and of the warm-up token */
  tokenid: string;
  warmTokenid: string;
  /** 1-unit outputs of each at the bench key's token address */
  outputs: number;
  warmOutputs: number;
  /** confirmed normal coins at the bench key's address (one per transfer's fee) */
  coins: number;
}

/**
 * A dev-chain data directory where the bench key holds two tokens as confirmed 1-unit outputs at its
 * token address (the creator's transfers to itself, chained within one block): `outputs` of the
 * measured one, `warm` of the warm-up one; and one confirmed normal coin (a premine lane) per
 * transfer to come, plus 200, for the fees. Cached in bench/.cache/token-holder-<outputs>-<warm>/.
 */
async function holderChain(outputs: number, warm: number): Promise<{ dir: string; meta: HolderChainMeta }> {
  const dir = join(cacheDir, `token-holder-${outputs}-${warm}`);
  const metaFile = join(dir, 'meta.json');
  // A cache in an older layout is built again in the current one (else every run would upgrade a copy).
  if (existsSync(metaFile) && (await cacheIsCurrent(dir))) return { dir, meta: JSON.parse(readFileSync(metaFile, 'utf8')) as HolderChainMeta };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  say(`building a chain where one holder has ${outputs} + ${warm} token outputs in ${dir} (cached for later runs)`);
  const b = await chainBuilder(dir);
  const coins = outputs + warm + 200;
  // Lanes: one per building transaction (two creates and every transfer), then the fee coins.
  const lanes = await b.lanes(2 + outputs + warm + coins);
  let lane = 0;
  const fulfillments = new Map<string, Uint8Array>();
  const split = async (name: string, count: number): Promise<string> => {
    let nextHeight = b.height() + 1;
    const created = assembleTokenCreate({ nextHeight, activation: params.activation, pubkey: PUB, name, description: 'one holder', supply: BigInt(count) + 1_000n, coins: [lanes[lane++]!] });
    if (!created.ok) throw new Error(`tokencreate: ${created.error}`);
    const tokenid = fromHexReversed(created.value.tx.txid());
    await b.mine([created.value.tx]);
    nextHeight = b.height() + 1;
    let change = outputOf(created.value.tx, MY_TOKENS);
    const block: Transaction[] = [];
    for (let i = 0; i < count; i++) {
      const r = assembleTokenTransfer({ nextHeight, activation: params.activation, pubkey: PUB, tokenid, destPubkey: PUB, amount: 1n, coins: [lanes[lane++]!], tokenCoins: [change] });
      if (!r.ok) throw new Error(`tokentransfer: ${r.error}`);
      const tx = withFulfillments(r.value, () => signTokenTx(r.value, { nextHeight, activation: params.activation, privateKey: KEY }), fulfillments);
      block.push(tx);
      // The 1-unit output (vout 0) stays; the change (vout 1) funds the next transfer.
      change = { txid: fromHexReversed(tx.txid()), vout: 1, value: tx.vout[1]!.value, script: MY_TOKENS };
    }
    await b.mine(block);
    return toHex(Uint8Array.from(tokenid).reverse());
  };
  const tokenid = await split('HOLD', outputs);
  const warmTokenid = await split('WARM', warm);
  await b.logic.close();
  const meta: HolderChainMeta = { tokenid, warmTokenid, outputs, warmOutputs: warm, coins };
  writeFileSync(metaFile, JSON.stringify(meta));
  return { dir, meta };
}

/**
 * tokentransfer by one holder, each sent (sendrawtransaction) before the next, all in one block: the
 * k-th call's token and fee inputs are found past the k−1 outputs the mempool already spends. The
 * 1,000th call against the first, on two nodes started on copies of the same chain: one where the
 * holder has sent 999 transfers (its 1,000th call), one where it has sent none (its first). A call
 * that is not sent changes nothing, so each node's call is measured again and again, in alternated
 * rounds, each side keeping its best round's median (single calls move with the machine's load, and a
 * slow spell must not fall on one side only). Before that, each node makes 300 transfers of another
 * token, mined: V8 compiles the path over the first hundred calls (the first dozen took 2-10 times as
 * long as the hundredth), which would flatter the ratio.
 */
async function transferBenchmarks(): Promise<Row[]> {
  const N = 1000;
  const WARM = 300;
  const chain = await holderChain(N + 50, WARM);
  const dest = toHex(DESTS[0]!);
  const start = async (): Promise<Running> => {
    const n = await runNodeOn(chain.dir, ['tokeninfo', chain.meta.tokenid]);
    await n.rpc('importprivkey', encodeWIF(KEY, true), '', false);
    return n;
  };
  const build = async (n: Running, tokenid: string): Promise<string> => {
    const r = await n.rpc<{ result: string; hex?: string; error?: string }>('tokentransfer', tokenid, dest, 1);
    if (r.result !== 'success') throw new Error(`tokentransfer: ${r.error}`);
    return r.hex!;
  };
  const send = async (n: Running, tokenid: string) => n.rpc('sendrawtransaction', await build(n, tokenid));
  const first = await start();
  let last: Running | undefined;
  try {
    last = await start();
    for (const n of [first, last]) {
      for (let i = 0; i < WARM; i++) await send(n, chain.meta.warmTokenid);
      await n.rpc('generate', 1);
    }
    for (let i = 0; i < N - 1; i++) await send(last, chain.meta.tokenid);
    const inMempool = (await last.node.services.mempool.ask({ op: 'info' })).size;
    if (inMempool !== N - 1) throw new Error(`bench: ${inMempool} of ${N - 1} transfers in the mempool`);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
    const round = async (n: Running): Promise<number> => {
      const times: number[] = [];
      for (let i = 0; i < 15; i++) {
        const t0 = performance.now();
        await build(n, chain.meta.tokenid);
        times.push(performance.now() - t0);
      }
      return median(times);
    };
    let bestFirst = Infinity;
    let bestLast = Infinity;
    for (let r = 0; r < 8; r++) {
      bestFirst = Math.min(bestFirst, await round(first));
      bestLast = Math.min(bestLast, await round(last));
    }
    return [
      {
        name: `tokentransfer #${N} by one holder, one block`,
        value: bestLast,
        unit: 'ms',
        limitName: 'tokentransfer #1 (the same chain, nothing sent)',
        limit: bestFirst,
        target: { kind: 'max', ratio: 1.5 },
      },
    ];
  } finally {
    await first.close();
    await last?.close();
  }
}

export async function tokensBenchmarks(): Promise<Row[]> {
  // TOKENS_BENCH_ONLY=query|create|transfer (or several, comma-separated) runs only those parts.
  const only = process.env.TOKENS_BENCH_ONLY;
  const part = (name: string) => only === undefined || only.split(',').includes(name);
  return [
    ...(part('query') ? await queryBenchmarks() : []),
    ...(part('create') ? await createBenchmarks() : []),
    ...(part('transfer') ? await transferBenchmarks() : []),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { printRows } = await import('./lib.js');
  printRows('tokens (issue 6)', await tokensBenchmarks());
}
