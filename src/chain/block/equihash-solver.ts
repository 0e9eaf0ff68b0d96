import {
  EquihashHasher,
  addWords,
  equihashShape,
  expandBits,
  finishNkHash,
  solutionFromIndices,
  type EquihashParams,
  type EquihashShape,
} from './equihash.js';

/** The solver's limit on bits per round: (96,5) at most, so a solve stays well under a second and ~100 MB. */
export const SOLVER_MAX_COLLISION_BITS = 16;

/** One round's list: `rest` chunk values and `span` indices per entry. */
interface Table {
  count: number;
  rest: number;
  span: number;
  chunks: Uint32Array;
  indices: Uint32Array;
}

/** Entry ids grouped by their first chunk (a counting sort): order[start[v] … start[v+1]). */
function bucket(t: Table, bits: number): { order: Uint32Array; start: Uint32Array } {
  const size = 1 << bits;
  const start = new Uint32Array(size + 1);
  for (let e = 0; e < t.count; e++) start[t.chunks[e * t.rest]! + 1]!++;
  for (let v = 0; v < size; v++) start[v + 1]! += start[v]!;
  const fill = start.slice(0, size);
  const order = new Uint32Array(t.count);
  for (let e = 0; e < t.count; e++) order[fill[t.chunks[e * t.rest]!]!++] = e;
  return { order, start };
}

function distinct(idx: Uint32Array, a: number, b: number, span: number): boolean {
  for (let i = 0; i < span; i++) {
    const x = idx[a + i]!;
    for (let j = 0; j < span; j++) if (x === idx[b + j]) return false;
  }
  return true;
}

/** FullStepRow::IndicesBefore: lexicographic comparison of two subtrees' index lists. */
function before(idx: Uint32Array, a: number, b: number, span: number): boolean {
  for (let i = 0; i < span; i++) {
    const x = idx[a + i]!;
    const y = idx[b + i]!;
    if (x !== y) return x < y;
  }
  return false;
}

/** Every index hash of the initial list, 2^(n/(k+1)+1) of them, expanded into k+1 chunks each. */
function initialTable(shape: EquihashShape, input: Uint8Array): Table {
  const { k, collisionBitLength, indicesPerHashOutput, hashBytes } = shape;
  const count = 2 ** (collisionBitLength + 1);
  const rest = k + 1;
  const chunks = new Uint32Array(count * rest);
  const indices = new Uint32Array(count);
  const hasher = new EquihashHasher(shape, input);
  const sum = new Uint32Array(16);
  for (let g = 0, i = 0; i < count; g++) {
    let h: Uint8Array;
    if (shape.acNk) {
      // GenerateHash sums the BLAKE2b outputs from g&~15 to g: a running sum restarted every 16.
      if ((g & 0xf) === 0) sum.fill(0);
      addWords(sum, hasher.blake(g));
      h = finishNkHash(shape, sum);
    } else {
      h = hasher.blake(g);
    }
    for (let x = 0; x < indicesPerHashOutput && i < count; x++, i++) {
      expandBits(h, x * hashBytes, collisionBitLength, rest, chunks, i * rest);
      indices[i] = i;
    }
  }
  return { count, rest, span: 1, chunks, indices };
}

/** One collision round: pairs that agree on the first chunk, distinct indices, left subtree first. */
function collide(t: Table, bits: number): Table {
  const { order, start } = bucket(t, bits);
  let pairs = 0;
  for (let v = 0; v < start.length - 1; v++) {
    const s = start[v + 1]! - start[v]!;
    pairs += (s * (s - 1)) / 2;
  }
  const rest = t.rest - 1;
  const span = t.span * 2;
  const chunks = new Uint32Array(pairs * rest);
  const indices = new Uint32Array(pairs * span);
  let out = 0;
  for (let v = 0; v < start.length - 1; v++) {
    const s0 = start[v]!;
    const s1 = start[v + 1]!;
    for (let l = s0; l < s1 - 1; l++) {
      for (let m = l + 1; m < s1; m++) {
        let a = order[l]!;
        let b = order[m]!;
        if (!distinct(t.indices, a * t.span, b * t.span, t.span)) continue;
        if (before(t.indices, b * t.span, a * t.span, t.span)) [a, b] = [b, a];
        for (let c = 0; c < rest; c++) chunks[out * rest + c] = t.chunks[a * t.rest + 1 + c]! ^ t.chunks[b * t.rest + 1 + c]!;
        indices.set(t.indices.subarray(a * t.span, (a + 1) * t.span), out * span);
        indices.set(t.indices.subarray(b * t.span, (b + 1) * t.span), out * span + t.span);
        out++;
      }
    }
  }
  return { count: out, rest, span, chunks: chunks.subarray(0, out * rest), indices: indices.subarray(0, out * span) };
}

export interface SolveOptions {
  /** Called with each solution found; return true to stop (komodod's validBlock callback). */
  onSolution?: (solution: Uint8Array) => boolean;
}

/**
 * Wagner's algorithm as komodod's BasicSolve runs it: the full initial list, k-1 collision rounds on
 * n/(k+1) bits each, then a final round colliding on the last 2n/(k+1) bits. Returns every solution in
 * the minimal encoding (all of which verifyEquihash accepts), or those up to the one onSolution stopped
 * at. For small parameters only (at most SOLVER_MAX_COLLISION_BITS bits per round): (48,5) takes a few
 * milliseconds, (96,5) under a second.
 */
export function solveEquihash(params: EquihashParams, input: Uint8Array, opts: SolveOptions = {}): Uint8Array[] {
  const shape = equihashShape(params);
  const bits = shape.collisionBitLength;
  if (bits > SOLVER_MAX_COLLISION_BITS) {
    throw new RangeError(`the solver handles at most ${SOLVER_MAX_COLLISION_BITS} bits per round, (${shape.n},${shape.k}) needs ${bits}`);
  }
  let t = initialTable(shape, input);
  for (let r = 1; r < shape.k && t.count > 0; r++) t = collide(t, bits);

  const solutions: Uint8Array[] = [];
  if (t.count < 2) return solutions;
  const { order, start } = bucket(t, bits);
  const both = new Uint32Array(t.span * 2);
  for (let v = 0; v < start.length - 1; v++) {
    const s0 = start[v]!;
    const s1 = start[v + 1]!;
    for (let l = s0; l < s1 - 1; l++) {
      for (let m = l + 1; m < s1; m++) {
        let a = order[l]!;
        let b = order[m]!;
        if (t.chunks[a * t.rest + 1] !== t.chunks[b * t.rest + 1]) continue;
        if (!distinct(t.indices, a * t.span, b * t.span, t.span)) continue;
        if (before(t.indices, b * t.span, a * t.span, t.span)) [a, b] = [b, a];
        both.set(t.indices.subarray(a * t.span, (a + 1) * t.span), 0);
        both.set(t.indices.subarray(b * t.span, (b + 1) * t.span), t.span);
        const solution = solutionFromIndices(shape, both);
        solutions.push(solution);
        if (opts.onSolution?.(solution)) return solutions;
      }
    }
  }
  return solutions;
}
