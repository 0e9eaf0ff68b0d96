// The page's only ways out: POST api (the node's read-only RPC methods) and the actor stream's
// WebSocket, both on the origin the page came from (the CSP allows nothing else).

/** The node's JSON-RPC method `method`; resolves with its result, rejects with its {code, message}. */
export async function call(method, ...params) {
  const res = await fetch('api', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ method, params }) });
  if (!res.ok) throw { code: res.status, message: `HTTP ${res.status}` };
  const body = await res.json();
  if (body.error) throw body.error;
  return body.result;
}

/** The start's token, from this page's path (/t/<token>/). */
export const token = location.pathname.split('/')[2] ?? '';

/** The actor stream's URL on this origin. */
export function streamUrl() {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/?token=${token}`;
}

/** Fetches mode.json: whether this start streams actors (-inspect) or serves the page alone (-explorer). */
export async function mode() {
  const res = await fetch('mode.json');
  return res.json();
}

/** A tiny event hub: views subscribe to 'block', 'tx', 'message', 'actors'. */
const subs = new Map();
export function on(topic, f) {
  if (!subs.has(topic)) subs.set(topic, new Set());
  subs.get(topic).add(f);
  return () => subs.get(topic).delete(f);
}
export function emit(topic, value) {
  for (const f of subs.get(topic) ?? []) {
    try {
      f(value);
    } catch (e) {
      console.error(e);
    }
  }
}
