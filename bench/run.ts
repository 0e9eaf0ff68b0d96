// npm run bench: runs every benchmark group and prints each figure beside its limit, as a ratio.
import { printRows, type Row } from './lib.js';
import { selectSecp256k1Backend } from '../src/actors/verify/sig-backend.js';
import { chainBenchmarks, sighashBenchmarks } from './chain.bench.js';
import { ccBenchmarks } from './cc.bench.js';
import { verifyBenchmarks } from './verify.bench.js';
import { nodeBenchmarks } from './node.bench.js';
import { connectBenchmarks } from './connect.bench.js';
import { p2pBenchmarks } from './p2p.bench.js';
import { walletBenchmarks } from './wallet.bench.js';
import { addressBenchmarks } from './address.bench.js';
import { tokensBenchmarks } from './tokens.bench.js';
import { assetsBenchmarks } from './assets.bench.js';
import { storageBenchmarks } from './storage.bench.js';
import { mempoolBenchmarks } from './mempool.bench.js';
import { txoutsetBenchmarks } from './txoutset.bench.js';
import { blockTemplateBenchmarks } from './blocktemplate.bench.js';
import { allocBenchmarks } from './alloc.bench.js';
import { chainIndexBenchmarks } from './chainindex.bench.js';
import { rpcScaleBenchmarks } from './rpcscale.bench.js';
import { cachesBenchmarks } from './caches.bench.js';
import { totalsBenchmarks } from './totals.bench.js';
import { keypoolBenchmarks } from './keypool.bench.js';

const groups: [string, () => Row[] | Promise<Row[]>][] = [
  ['consensus core (src/chain)', chainBenchmarks],
  ['signature hashes', sighashBenchmarks],
  ['crypto-conditions (src/chain/cc)', ccBenchmarks],
  ['signature verification (issue 9)', verifyBenchmarks],
  ['running node (src/actors, src/rpc)', nodeBenchmarks],
  ['block connect alone (issue 31)', connectBenchmarks],
  ['heap per accepted transaction (issue 31)', allocBenchmarks],
  ['p2p (src/actors/p2p)', p2pBenchmarks],
  ['wallet (src/actors/wallet)', walletBenchmarks],
  ['address index (issue 11)', addressBenchmarks],
  ['tokens (issue 6)', tokensBenchmarks],
  ['assets (issue 10)', assetsBenchmarks],
  ['chain storage (scale issue)', storageBenchmarks],
  ['mempool size (getmempoolinfo)', mempoolBenchmarks],
  ['UTXO set statistics (gettxoutsetinfo, issue 30)', txoutsetBenchmarks],
  ['getblocktemplate (issue 30)', blockTemplateBenchmarks],
  ['chain index queries (headers, stale transactions)', chainIndexBenchmarks],
  ['RPC at scale (the scale audit)', rpcScaleBenchmarks],
  ['bounded caches when full (signature, script execution)', cachesBenchmarks],
  ['running totals (getaddressbalance, tokenbalance)', totalsBenchmarks],
  ['wallet key pool at scale (getnewaddress)', keypoolBenchmarks],
];

// `npm run bench -- node verify` runs only the groups whose title contains one of the words.
const only = process.argv.slice(2).map((w) => w.toLowerCase());
const chosen = only.length ? groups.filter(([title]) => only.some((w) => title.toLowerCase().includes(w))) : groups;
if (!chosen.length) throw new Error(`no benchmark group matches ${only.join(', ')}`);
const missed: string[] = [];
console.log(`acnode benchmarks — node ${process.version}, ${new Date().toISOString()}`);
// What acnoded's default (-sigbackend=auto) verifies with, so in-process figures are the node's.
console.log(`secp256k1 backend: ${selectSecp256k1Backend('auto').report}`);
for (const [title, run] of chosen) missed.push(...printRows(title, await run()).missed);
console.log(missed.length ? `\nmissed targets:\n  ${missed.join('\n  ')}` : '\nall targets met');
