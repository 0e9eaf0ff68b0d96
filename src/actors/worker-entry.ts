/**
 * A worker thread's entry point: the module `name` beside the caller (`base`, its import.meta.url).
 * Compiled, that is `name`.js; from source, a small module that registers tsx in the worker first
 * (Node 20's workers do not take tsx from execArgv for their entry module), then imports `name`.ts.
 * `onLoadFailure`: the source of a function called with the error when that module fails to load
 * (for a caller that waits on the worker rather than listening to it).
 */
export function workerEntry(base: string, name: string, onLoadFailure?: string): { entry: URL | string; eval: boolean } {
  if (!base.endsWith('.ts')) return { entry: new URL(`./${name}.js`, base), eval: false };
  const api = import.meta.resolve('tsx/esm/api');
  const worker = new URL(`./${name}.ts`, base).href;
  const load = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(worker)}); })`;
  return { entry: onLoadFailure ? `${load}.catch(${onLoadFailure});` : `${load};`, eval: true };
}
