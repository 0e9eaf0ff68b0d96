/**
 * getblocktemplate's cost per mempool transaction, 5,000 against 50 (issue 30: ratio ≤ 1.5), on
 * in-process dev-chain nodes whose mempools hold that many independent fee-paying transactions
 * (mempool.bench's filler). Two figures: the miner's template build (CreateNewBlock: entries, coins,
 * priority heap, input checks, coinbase and merkle root), which getblocktemplate runs whenever the tip
 * or the mempool moved, and the RPC answer over HTTP from the template it keeps (rendering every
 * transaction's hex, fee, sigops and depends).
 */
import { nodeWithMempool } from './mempool.bench.js';
import { alternated, httpRate, rpcBody } from './tokens.bench.js';
import type { Row } from './lib.js';

const say = (msg: string) => process.stderr.write(`  [getblocktemplate bench] ${msg}\n`);

export async function blockTemplateBenchmarks(): Promise<Row[]> {
  const SMALL = 50;
  const BIG = 5000;
  const t0 = performance.now();
  const small = await nodeWithMempool(SMALL);
  let big: Awaited<ReturnType<typeof nodeWithMempool>> | undefined;
  const rows: Row[] = [];
  try {
    big = await nodeWithMempool(BIG);
    say(`mempools of ${SMALL} and ${BIG} transactions filled in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    // The template build, timed for about 1.5 s a side: builds per second.
    const buildRate = async (n: typeof small, txs: number) => {
      const tpl = await n.node.services.miner.ask({ op: 'template' });
      if (tpl.fees.length !== txs + 1) throw new Error(`getblocktemplate bench: ${tpl.fees.length - 1} of ${txs} transactions in the template`);
      let k = 0;
      const start = performance.now();
      while (performance.now() - start < 1500) {
        await n.node.services.miner.ask({ op: 'template' });
        k++;
      }
      return (k * 1000) / (performance.now() - start);
    };
    const [bBig, bSmall] = await alternated(() => buildRate(big!, BIG), () => buildRate(small, SMALL));
    rows.push({
      name: `template build, ${BIG} mempool txs: ${(1e3 / bBig).toFixed(1)} ms`,
      value: 1e6 / bBig / BIG,
      unit: 'µs/tx',
      limitName: `the same, ${SMALL} mempool txs: ${(1e3 / bSmall).toFixed(2)} ms`,
      limit: 1e6 / bSmall / SMALL,
      target: { kind: 'max', ratio: 1.5 },
    });
    const body = [rpcBody('getblocktemplate')];
    await httpRate(big.client, body);
    await httpRate(small.client, body);
    const [rBig, rSmall] = await alternated(() => httpRate(big!.client, body, 1500), () => httpRate(small.client, body, 1500));
    rows.push({
      name: `getblocktemplate over HTTP, ${BIG} mempool txs: ${rBig.toFixed(1)} req/s`,
      value: 1e6 / rBig / BIG,
      unit: 'µs/tx',
      limitName: `the same, ${SMALL} mempool txs: ${Math.round(rSmall)} req/s`,
      limit: 1e6 / rSmall / SMALL,
      target: { kind: 'max', ratio: 1.5 },
    });
  } finally {
    await small.close();
    await big?.close();
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { printRows } = await import('./lib.js');
  printRows('getblocktemplate (issue 30)', await blockTemplateBenchmarks());
}
