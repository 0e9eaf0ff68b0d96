/**
 * Benchmark helpers. Every figure is printed beside the limit it is measured against, in the same
 * run, as a ratio; a target, when the issue sets one, is checked and a miss is reported (not thrown),
 * so the whole bench always runs to the end.
 */
export interface Row {
  name: string;
  value: number;
  unit: string;
  limitName: string;
  limit: number;
  /** 'min': ratio = value/limit must be ≥ target; 'max': must be ≤ target. */
  target?: { kind: 'min' | 'max'; ratio: number };
}

/** Runs fn repeatedly for about `ms` milliseconds (after a warm-up) and returns operations per second. */
export function opsPerSecond(fn: () => void, ms = 700): number {
  const warm = performance.now() + ms / 5;
  while (performance.now() < warm) fn();
  let n = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    fn();
    n++;
    if ((n & 7) === 0) now = performance.now();
  }
  now = performance.now();
  return (n * 1000) / (now - start);
}

/**
 * When alternated rounds (each measuring every side once and keeping each side's best) have measured
 * enough: once no best has risen by more than 1% for `patience` rounds, after at least `min` and at
 * most `max` rounds. On this shared VM single-thread speed moves by up to 40% and the second core comes
 * and goes, in spells of seconds: on a quiet machine the minimum finds every side's undisturbed rate,
 * while a fixed count of rounds can fall entirely inside a spell that holds one side down more than
 * the other (the side that needs both cores, or JS against WebAssembly); this measures on, both sides
 * alike, until the bests stop moving.
 */
export interface Steadiness {
  min: number;
  max: number;
  patience?: number;
}

function steadyRounds({ min, max, patience = 4 }: Steadiness) {
  let bests: readonly number[] = [];
  let still = 0;
  let rounds = 0;
  return {
    more: () => rounds < max && (rounds < min || still < patience),
    /** The bests after a round. */
    record(now: readonly number[]) {
      const rose = now.some((b, i) => !(bests[i]! > 0) || b > bests[i]! * 1.01);
      still = rose ? 0 : still + 1;
      bests = [...now];
      rounds++;
    },
    rounds: () => rounds,
  };
}

/**
 * opsPerSecond for a figure and its limit, measured in alternation, the best of each kept: at least
 * `rounds` rounds, then on until the bests hold (see Steadiness): on a shared machine a slow spell
 * then cannot fall on one side only.
 */
export function bestOfInterleaved(fns: readonly (() => void)[], rounds = 3, ms = 400): number[] {
  const best = fns.map(() => 0);
  const steady = steadyRounds({ min: rounds, max: rounds * 4, patience: 2 });
  while (steady.more()) {
    fns.forEach((fn, i) => (best[i] = Math.max(best[i]!, opsPerSecond(fn, ms))));
    steady.record(best);
  }
  return best;
}

/**
 * Alternated rounds until the bests hold (see Steadiness); returns how many ran. `round` measures every
 * side once and returns the bests after it.
 */
export async function roundsUntilSteady(round: () => readonly number[] | Promise<readonly number[]>, opts: Steadiness): Promise<number> {
  const steady = steadyRounds(opts);
  while (steady.more()) steady.record(await round());
  return steady.rounds();
}

export async function opsPerSecondAsync(fn: () => Promise<void>, ms = 1000): Promise<number> {
  const warm = performance.now() + ms / 5;
  while (performance.now() < warm) await fn();
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < ms) {
    await fn();
    n++;
  }
  return (n * 1000) / (performance.now() - start);
}

function fmt(x: number): string {
  return x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toPrecision(3);
}

export function printRows(title: string, rows: Row[]): { missed: string[] } {
  const missed: string[] = [];
  console.log(`\n## ${title}`);
  for (const r of rows) {
    const ratio = r.value / r.limit;
    let verdict = '';
    if (r.target) {
      const ok = r.target.kind === 'min' ? ratio >= r.target.ratio : ratio <= r.target.ratio;
      verdict = ` target ${r.target.kind === 'min' ? '≥' : '≤'} ${r.target.ratio}: ${ok ? 'met' : 'MISSED'}`;
      if (!ok) missed.push(`${title}: ${r.name} ratio ${ratio.toFixed(3)}`);
    }
    console.log(
      `${r.name.padEnd(46)} ${fmt(r.value).padStart(12)} ${r.unit.padEnd(8)} | ${r.limitName.padEnd(40)} ${fmt(r.limit).padStart(12)} ${r.unit.padEnd(8)} | ratio ${ratio.toFixed(3)}${verdict}`,
    );
  }
  return { missed };
}
