import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The public vectors stay beside the repository (../shared/vectors) or at $ACNODE_VECTORS; they are
 * never copied in. Tests that need them skip with a message when neither exists (CI always has them).
 */
const root = join(import.meta.dirname, '..', '..');
const candidates = [process.env.ACNODE_VECTORS, join(root, '..', 'shared', 'vectors')].filter(
  (p): p is string => !!p,
);

export const VECTORS: string | undefined = candidates.find((p) => existsSync(join(p, 'README.md')));

/** `{ skip }` option for node:test: a reason string when the vectors are absent. */
export const needVectors = { skip: VECTORS ? false : 'public vectors not found (../shared/vectors or $ACNODE_VECTORS)' } as const;

export function vectorPath(rel: string): string {
  if (!VECTORS) throw new Error('vectors not available');
  return join(VECTORS, rel);
}

export function readVector(rel: string): string {
  return readFileSync(vectorPath(rel), 'utf8');
}

export function loadVector<T = unknown>(rel: string): T {
  return JSON.parse(readVector(rel)) as T;
}

export function listVectors(dir: string, suffix = ''): string[] {
  if (!VECTORS) return [];
  return readdirSync(join(VECTORS, dir))
    .filter((f) => f.endsWith(suffix))
    .sort()
    .map((f) => join(dir, f));
}
