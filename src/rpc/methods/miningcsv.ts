import { open } from 'node:fs/promises';
import type { NodeServices } from '../../actors/protocol.js';
import { setCompact, UINT256_MASK } from '../../chain/block/compact.js';
import { getDifficulty } from '../../chain/block/pow.js';
import { askRpc } from '../ask.js';
import type { RpcMethod } from '../table.js';

/** Blocks read from the chain store per request, and so per write to the file. */
const CHUNK = 10_000;

/** printf("%.1f"): round half to even on the double's exact value (toFixed rounds an exact tie up). */
export function cFixed1(x: number): string {
  const q = x * 4;
  // x·10 ends in exactly .5 only for x = j/4 with j odd (then x·4 is exact and odd).
  if (Number.isInteger(q) && Math.abs(q % 2) === 1) {
    let n = Math.floor(x * 10);
    if (n % 2 !== 0) n += 1;
    const s = (Math.abs(n) / 10).toFixed(1);
    return n < 0 ? '-' + s : s;
  }
  return x.toFixed(1);
}

/** zawy_ctB (pow.cpp): the target scaled by solvetime²·10⁶/(T²·784) when that is over 1 (int64 arithmetic). */
export function zawyCtB(target: bigint, solvetime: number, blocktime: number): bigint {
  const num = BigInt.asIntN(64, (1000n * BigInt(solvetime) * BigInt(solvetime) * 1000n)) / BigInt(Math.imul(Math.imul(blocktime, blocktime), 784));
  if (num <= 1n) return target;
  return ((target / 1000n) * BigInt.asUintN(64, num)) & UINT256_MASK;
}

/** The top 128 bits of a 256-bit value as 32 hex digits (bytes 31..16). */
const high128 = (v: bigint) => (v >> 128n).toString(16).padStart(32, '0');

/** One CSV line of genminingCSV: height, nTime, nBits, target, zawy target, difficulty, solvetime. */
export function miningCsvLine(i: number, time: number, bits: number, prevTime: number, blocktime: number): string {
  const target = setCompact(bits).target;
  // uint32 solvetime; 0 for the first block (prevtime 0)
  const solvetime = prevTime === 0 ? 0 : (time - prevTime) >>> 0;
  const ct = i >= 64 && (bits & 3) !== 0 ? zawyCtB(target, solvetime, blocktime) : 0n;
  return `${i},${time >>> 0},${(bits >>> 0).toString(16).padStart(8, '0')},${high128(target)},${high128(ct)},${cFixed1(getDifficulty(bits))},${solvetime | 0}\n`;
}

/**
 * genminingCSV (rpc/mining.cpp): writes `<chain>_mining.csv` in the daemon's working directory (as
 * komodod's fopen of a relative name does), a line per block of the active chain.
 */
export function miningCsvMethods(node: NodeServices): RpcMethod[] {
  return [
    {
      name: 'genminingCSV',
      category: 'mining',
      help: 'genminingCSV\n',
      maxArgs: 0,
      handler: async (_params, ctx) => {
        const fname = `${ctx.env.chainName}_mining.csv`;
        let fh;
        try {
          fh = await open(fname, 'w');
        } catch {
          return { result: 'success', error: 'couldnt create mining.csv', filename: fname };
        }
        try {
          await fh.write('height,nTime,nBits,bnTarget,bnTargetB,diff,solvetime\n');
          const tip = (await askRpc(node.chainStore, { op: 'tip' })).height;
          const blocktime = node.baseParams.ac.blocktime;
          let prevTime = 0;
          for (let from = 0; from <= tip; from += CHUNK) {
            const rows = await askRpc(node.chainStore, { op: 'timesAndBits', from, to: Math.min(tip, from + CHUNK - 1) });
            let text = '';
            rows.forEach((r, k) => {
              text += miningCsvLine(from + k, r.time, r.bits, prevTime, blocktime);
              prevTime = r.time;
            });
            await fh.write(text);
          }
        } finally {
          await fh.close();
        }
        return { result: 'success', created: fname };
      },
    },
  ];
}
