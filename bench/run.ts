// npm run bench: runs every benchmark group and prints each figure beside its limit, as a ratio.
import { printRows, type Row } from './lib.js';
import { chainBenchmarks, sighashBenchmarks } from './chain.bench.js';
import { ccBenchmarks } from './cc.bench.js';

const groups: [string, () => Row[] | Promise<Row[]>][] = [
  ['consensus core (src/chain)', chainBenchmarks],
  ['signature hashes', sighashBenchmarks],
  ['crypto-conditions (src/chain/cc)', ccBenchmarks],
];

const missed: string[] = [];
console.log(`acnode benchmarks — node ${process.version}, ${new Date().toISOString()}`);
for (const [title, run] of groups) missed.push(...printRows(title, await run()).missed);
console.log(missed.length ? `\nmissed targets:\n  ${missed.join('\n  ')}` : '\nall targets met');
