import type { Secp256k1Backend } from './backend.js';

export interface BackendDisagreement {
  op: 'verify' | 'sign' | 'publicKey' | 'isPoint' | 'pointUncompressed' | 'isPrivate';
  args: Uint8Array[];
  flag?: boolean;
  results: [unknown, unknown];
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
 * A backend that runs every call on two backends and records where they disagree (tests, and a
 * diagnostic for anyone doubting a backend). It answers with the first backend's result, rethrowing
 * its exception; a call that throws on one and not the other is a disagreement.
 */
export function comparingBackend(a: Secp256k1Backend, b: Secp256k1Backend): ComparingBackend {
  const calls = { verify: 0, sign: 0, publicKey: 0, isPoint: 0, pointUncompressed: 0, isPrivate: 0 };
  const disagreements: BackendDisagreement[] = [];
  let verifiedTrue = 0;
  const run = <T>(op: BackendDisagreement['op'], args: Uint8Array[], flag: boolean | undefined, f: (x: Secp256k1Backend) => T): T => {
    calls[op]++;
    const ra = outcome(() => f(a));
    const rb = outcome(() => f(b));
    const threwA = typeof ra === 'object' && ra !== null && 'threw' in ra;
    const threwB = typeof rb === 'object' && rb !== null && 'threw' in rb;
    if (threwA !== threwB || (!threwA && !same(ra, rb))) {
      disagreements.push({ op, args: args.map((x) => x.slice()), ...(flag !== undefined ? { flag } : {}), results: [ra, rb] });
    }
    if (threwA) return f(a); // rethrow the first backend's own exception
    return ra as T;
  };
  return {
    name: a.name,
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
