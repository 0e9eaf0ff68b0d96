import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import type { Secp256k1Backend, Secp256k1BackendName } from '../../chain/crypto/backend.js';
import { nobleBackend } from '../../chain/crypto/backend-noble.js';
import { nativeBackend, type Secp256k1Binding } from '../../chain/crypto/backend-native.js';
import { wasmBackend, type TinySecp256k1 } from '../../chain/crypto/backend-wasm.js';
import { useSecp256k1Backend } from '../../chain/crypto/secp256k1.js';
import { toHex } from '../../chain/encoding/hex.js';

/**
 * Loads the secp256k1 backend the node (and each script-check worker) verifies with, picks one for
 * -sigbackend, and says which and why. src/chain only adapts the library it is handed; the loading
 * (a native addon found on disk, a WebAssembly module) happens here.
 */

export type Secp256k1BackendChoice = 'auto' | Secp256k1BackendName;

/** -sigbackend's values. */
export const SECP256K1_BACKEND_CHOICES: readonly Secp256k1BackendChoice[] = ['auto', 'native', 'wasm', 'noble'];

/** A backend that loaded, with what it is; or why it did not load. */
export type LoadResult = { backend: Secp256k1Backend; detail: string } | { backend?: undefined; why: string };

const requireHere = createRequire(import.meta.url);

function reason(e: unknown): string {
  // node-gyp-build's message goes on with the directory it searched: the first line says it.
  return (e instanceof Error ? e.message : String(e)).split('\n')[0]!.trim();
}

/** 1·G, the public key of the private key 1 (compressed). */
const G = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';

/**
 * A known answer before a library is trusted with consensus: key 1 gives G, and a signature verifies
 * under its key and not under another message.
 */
function selfTest(b: Secp256k1Backend): string | undefined {
  const one = new Uint8Array(32);
  one[31] = 1;
  if (toHex(b.publicKey(one, true)) !== G) return 'the public key of 1 is not G';
  const digest = new Uint8Array(32).fill(0x5a);
  const sig = b.sign(digest, one);
  const pub = b.publicKey(one, false);
  if (!b.verify(sig, digest, pub, false)) return 'its own signature does not verify';
  const other = digest.slice();
  other[0]! ^= 1;
  if (b.verify(sig, other, pub, false)) return 'a signature verifies over another message';
  return undefined;
}

function checked(backend: Secp256k1Backend, detail: string): LoadResult {
  const bad = selfTest(backend);
  return bad ? { why: `self-test failed: ${bad}` } : { backend, detail };
}

/**
 * libsecp256k1 as the secp256k1 package's N-API addon, loaded with node-gyp-build from the package's
 * prebuilds (npm runs no install script here, and none is needed). Never through the package's
 * index.js, which silently falls back to a pure-JavaScript elliptic build when the addon does not load:
 * here that is "native unavailable", never native.
 */
export function loadNativeBackend(): LoadResult {
  try {
    const dir = dirname(requireHere.resolve('secp256k1/package.json'));
    // node-gyp-build is the package's own dependency: resolved from the package.
    const gypBuild = createRequire(join(dir, 'package.json'))('node-gyp-build') as { path(dir: string): string };
    const file = gypBuild.path(dir);
    const addon = requireHere(file) as { Secp256k1?: new () => Secp256k1Binding };
    if (typeof addon.Secp256k1 !== 'function') return { why: `${relative(dir, file)} has no Secp256k1 class` };
    return checked(nativeBackend(new addon.Secp256k1()), `libsecp256k1 N-API addon, secp256k1/${relative(dir, file)}`);
  } catch (e) {
    return { why: reason(e) };
  }
}

/**
 * libsecp256k1 compiled to WebAssembly (tiny-secp256k1), loaded synchronously (its CommonJS build) so
 * the choice is made at start without an await.
 */
export function loadWasmBackend(): LoadResult {
  if (typeof (globalThis as { WebAssembly?: unknown }).WebAssembly !== 'object') return { why: 'WebAssembly is unavailable' };
  try {
    return checked(wasmBackend(requireHere('tiny-secp256k1') as TinySecp256k1), 'libsecp256k1 in WebAssembly, tiny-secp256k1');
  } catch (e) {
    return { why: reason(e) };
  }
}

export interface BackendLoaders {
  native: () => LoadResult;
  wasm: () => LoadResult;
}

/** Each library is loaded once per thread: a load reads the disk and a native load makes a context. */
const loads = new Map<keyof BackendLoaders, LoadResult>();
const REAL_LOADERS: BackendLoaders = {
  native: () => loads.get('native') ?? (loads.set('native', loadNativeBackend()), loads.get('native')!),
  wasm: () => loads.get('wasm') ?? (loads.set('wasm', loadWasmBackend()), loads.get('wasm')!),
};

/** What was picked, and the line that says so (the node logs it). */
export interface Secp256k1Selection {
  backend: Secp256k1Backend;
  report: string;
}

/**
 * The backend for a -sigbackend choice. 'auto' takes native libsecp256k1 when its binary loads, then
 * WebAssembly, then noble; an explicit backend that cannot be loaded throws, saying why.
 */
export function pickSecp256k1Backend(choice: Secp256k1BackendChoice, loaders: BackendLoaders = REAL_LOADERS): Secp256k1Selection {
  if (choice === 'noble') return { backend: nobleBackend, report: 'noble (-sigbackend=noble; @noble/curves, pure JavaScript)' };
  if (choice === 'native' || choice === 'wasm') {
    const r = loaders[choice]();
    if (!r.backend) throw new Error(`-sigbackend=${choice}: the ${choice === 'native' ? 'native libsecp256k1 addon' : 'WebAssembly libsecp256k1'} could not be loaded (${r.why})`);
    return { backend: r.backend, report: `${choice} (-sigbackend=${choice}; ${r.detail})` };
  }
  const skipped: string[] = [];
  for (const name of ['native', 'wasm'] as const) {
    const r = loaders[name]();
    if (r.backend) return { backend: r.backend, report: `${name} (-sigbackend=auto; ${r.detail}${skipped.length ? `; ${skipped.join('; ')}` : ''})` };
    skipped.push(`${name} unavailable: ${r.why}`);
  }
  return { backend: nobleBackend, report: `noble (-sigbackend=auto; @noble/curves, pure JavaScript; ${skipped.join('; ')})` };
}

/** Picks the backend for a choice and installs it for this thread's src/chain. */
export function selectSecp256k1Backend(choice: Secp256k1BackendChoice, loaders?: BackendLoaders): Secp256k1Selection {
  const s = pickSecp256k1Backend(choice, loaders);
  useSecp256k1Backend(s.backend);
  return s;
}

/** The backend of a name when it loads here, else undefined (tests and benchmarks, which run each one). */
export function secp256k1BackendOf(name: Secp256k1BackendName): Secp256k1Backend | undefined {
  return name === 'noble' ? nobleBackend : REAL_LOADERS[name]().backend;
}
