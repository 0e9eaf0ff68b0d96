import type { NodeServices } from '../../actors/protocol.js';
import type { JsonOut } from '../json-value.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from '../table.js';

/** Plain data from the inspection helpers (already JSON-safe: sanitize() cut it down) as a result value. */
function toOut(v: unknown): JsonOut {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (Array.isArray(v)) return v.map(toOut);
  if (typeof v === 'object') {
    const m = new Map<string, JsonOut>();
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) m.set(k, toOut(x));
    return m;
  }
  return String(v);
}

/**
 * The `dev` category (acnode only, no komodod counterpart): getactorstates, each actor's state and a
 * small summary of its context, for developers watching the node.
 */
export function devMethods(node: NodeServices): RpcMethod[] {
  return [
    {
      name: 'getactorstates',
      category: 'dev',
      minArgs: 0,
      maxArgs: 0,
      help: (env) =>
        'getactorstates\n' +
        "\nReturns each actor's current state and a small summary of its context (sizes and tip, never whole indexes).\n" +
        '\nResult:\n' +
        '{\n' +
        '  "inspector": "url"|null,     (string) the live inspection endpoint with its token (acnoded -inspect), or null\n' +
        '  "actors": {\n' +
        '    "name": {                  (object) one entry per actor (chainStore, mempool, miner, ...)\n' +
        '      "status": "active",      (string) the actor status: active, done, error or stopped\n' +
        '      "state": "ready.idle",   (string) the state value as a dotted path\n' +
        '      "value": ...,            (string or object) the state value as XState holds it\n' +
        '      "context": { ... }       (object) the context summary: a service\'s summary, queued and inflight request counts\n' +
        '    }, ...\n' +
        '  }\n' +
        '}\n' +
        '\nExamples:\n' +
        helpExampleCli(env, 'getactorstates', '') +
        helpExampleRpc(env, 'getactorstates', ''),
      handler: () => {
        const actors = new Map<string, JsonOut>();
        for (const [name, s] of node.actorStates?.() ?? new Map()) {
          actors.set(name, new Map<string, JsonOut>([
            ['status', s.status],
            ['state', s.state],
            ['value', toOut(s.value)],
            ['context', toOut(s.context)],
          ]));
        }
        return new Map<string, JsonOut>([
          ['inspector', node.inspectorUrl?.() ?? null],
          ['actors', actors],
        ]);
      },
    },
  ];
}
