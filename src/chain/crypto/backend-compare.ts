import type { Secp256k1Backend } from './backend.js';

export interface BackendDisagreement {
  op: 'verify' | 'sign' | 'publicKey' | 'isPoint' | 'pointUncompressed' | 'isPrivate';
  args: Uint8Array[];
  flag?: boolean;
  /** Each backend's answer, in the order they were given (`{ threw }` for an exception). */
  results: unknown[];
}

export interface ComparingBackend extends Secp256k1Backend {
  /** Calls made, by operation. */
  readonly calls: Record<BackendDisagreement['op'], number>;
  /** verify calls that both answered true. */
  readonly verifiedTrue: number;
  readonly disagreements: BackendDisagreement[];
}

function same(a: unknown, b: unknown): boolean {
  if (a instanceof Uint8Array && b instanceof Uint8Array) return a.length === b.length && a.every((x, i) => x === b[i]);
  return a === b;
}

function outcome<T>(f: () => T): T | { threw: string } {
  try {
    return f();
  } catch (e) {
    return { threw: e instanceof Error ? 'error' : String(e) };
  }
}

/**
 * A backend that runs every call on several backends and records where any differs from the first
 * (tests, and a diagnostic for anyone doubting a backend). It answers with the first backend's result,
 * rethrowing its exception; a call that throws on one and not on the first is a disagreement.
 */
export function comparingBackend(first: Secp256k1Backend, ...others: Secp256k1Backend[]): ComparingBackend {
  if (others.length === 0) throw new Error('comparingBackend needs at least two backends');
  const all = [first, ...others];
  const calls = { verify: 0, sign: 0, publicKey: 0, isPoint: 0, pointUncompressed: 0, isPrivate: 0 };
  const disagreements: BackendDisagreement[] = [];
  let verifiedTrue = 0;
  const threw = (r: unknown) => typeof r === 'object' && r !== null && 'threw' in r;
  const run = <T>(op: BackendDisagreement['op'], args: Uint8Array[], flag: boolean | undefined, f: (x: Secp256k1Backend) => T): T => {
    calls[op]++;
    const rs = all.map((x) => outcome(() => f(x)));
    const r0 = rs[0];
    if (rs.some((r) => threw(r) !== threw(r0) || (!threw(r0) && !same(r, r0)))) {
      disagreements.push({ op, args: args.map((x) => x.slice()), ...(flag !== undefined ? { flag } : {}), results: rs });
    }
    if (threw(r0)) return f(first); // rethrow the first backend's own exception
    return r0 as T;
  };
  return {
    name: first.name,
    calls,
    disagreements,
    get verifiedTrue() {
      return verifiedTrue;
    },
    verify(sig64, digest, pub, normalizeS) {
      const r = run('verify', [sig64, digest, pub], normalizeS, (x) => x.verify(sig64, digest, pub, normalizeS));
      if (r) verifiedTrue++;
      return r;
    },
    sign: (digest, key) => run('sign', [digest, key], undefined, (x) => x.sign(digest, key)),
    publicKey: (key, compressed) => run('publicKey', [key], compressed, (x) => x.publicKey(key, compressed)),
    isPoint: (pub) => run('isPoint', [pub], undefined, (x) => x.isPoint(pub)),
    pointUncompressed: (pub) => run('pointUncompressed', [pub], undefined, (x) => x.pointUncompressed(pub)),
    isPrivate: (key) => run('isPrivate', [key], undefined, (x) => x.isPrivate(key)),
  };
}
