import { html, link, short } from './ui.js';
import { call } from './api.js';
import { Live } from './chain.js';

async function loadTokens() {
  const ids = await call('tokenlist');
  return Promise.all(ids.map((id) => call('tokeninfo', id)));
}

export function TokenList() {
  return html`
    <h2>Tokens</h2>
    <${Live} load=${loadTokens} view=${(tokens) => html`
      <table class="list" id="tokens">
        <tr><th>name</th><th>tokenid</th><th>supply</th><th>owner</th><th>description</th></tr>
        ${tokens.filter((t) => t.result === 'success').map((t) => html`<tr class="token-row">
          <td>${link('token', t.tokenid, t.name)}</td><td>${link('token', t.tokenid, short(t.tokenid))}</td>
          <td>${t.supply}</td><td class="id">${short(t.owner)}</td><td>${t.description}</td></tr>`)}
      </table>`} />`;
}

/** The value komodod gives every token and order marker (MakeCC1vout(…, 10000, …)). */
const MARKER_SATS = 10000;
const HISTORY_LIMIT = 200;

/**
 * The token's transactions, found by following its outputs from the creation: each transaction's CC
 * outputs, and for each the transaction that spent it (getspentinfo). What is left unspent is held,
 * by the output's CC address. Markers are told apart by their fixed 10000-satoshi value, so one
 * output holding exactly 10000 units reads as a marker.
 */
async function tokenHistory(tokenid) {
  const txs = new Map();
  const held = new Map();
  const queue = [tokenid];
  while (queue.length && txs.size < HISTORY_LIMIT) {
    const txid = queue.shift();
    if (txs.has(txid)) continue;
    const tx = await call('getrawtransaction', txid, 1);
    txs.set(txid, tx);
    for (const o of tx.vout) {
      if (o.scriptPubKey.type !== 'cryptocondition') continue;
      let spent = null;
      try {
        spent = await call('getspentinfo', { txid, index: o.n });
      } catch {
        // unspent
      }
      if (spent) queue.push(spent.txid);
      else if (Math.round(o.value * 1e8) !== MARKER_SATS) {
        for (const a of o.scriptPubKey.addresses ?? []) held.set(a, (held.get(a) ?? 0) + Math.round(o.value * 1e8));
      }
    }
  }
  return { txs: [...txs.values()], holders: [...held.entries()].sort((a, b) => b[1] - a[1]), truncated: queue.length > 0 };
}

async function loadToken(tokenid) {
  const [info, orders, history] = await Promise.all([call('tokeninfo', tokenid), call('tokenorders', tokenid), tokenHistory(tokenid)]);
  return { info, orders, ...history };
}

export function TokenView({ tokenid }) {
  return html`<${Live} args=${[tokenid]} topics=${['block', 'mempool']} load=${loadToken} view=${({ info, orders, txs, holders, truncated }) => html`
    <h2>Token ${info.name}</h2>
    <table class="kv">
      <tr><th>tokenid</th><td class="id">${link('tx', tokenid, tokenid)}</td></tr>
      <tr><th>supply</th><td id="supply">${info.supply}</td></tr>
      <tr><th>owner</th><td class="id">${info.owner}</td></tr>
      <tr><th>description</th><td>${info.description}</td></tr>
    </table>
    <h3>holders</h3>
    <table class="list" id="holders">
      <tr><th>CC address</th><th>units</th></tr>
      ${holders.map(([a, n]) => html`<tr class="holder-row"><td>${link('address', a)}</td><td>${n}</td></tr>`)}
    </table>
    <h3>order book</h3>
    <${OrderBook} orders=${orders} />
    <h3>history${truncated ? ` (first ${txs.length})` : ''}</h3>
    <table class="list" id="history">
      ${txs.map((t) => html`<tr><td>${link('tx', t.txid)}</td><td>${t.height ?? html`<span class="muted">mempool</span>`}</td><td>${t.vout.length} outputs</td></tr>`)}
    </table>`} />`;
}

/** tokenorders' items as it returns them: asks ('s', 'S': tokens for coins) and bids ('b', 'B'). */
export function OrderBook({ orders }) {
  const asks = orders.filter((o) => o.funcid === 's' || o.funcid === 'S');
  const bids = orders.filter((o) => o.funcid === 'b' || o.funcid === 'B');
  const row = (o) => html`<tr class="order-row">
    <td>${o.funcid}</td><td>${link('tx', o.txid, `${short(o.txid)}:${o.vout}`)}</td><td>${o.amount}</td>
    <td>${o.price ?? ''}</td><td>${o.totalrequired ?? ''}</td><td>${o.origaddress ? link('address', o.origaddress, short(o.origaddress)) : ''}</td></tr>`;
  const head = html`<tr><th>funcid</th><th>order (fills: "spent by")</th><th>amount</th><th>price</th><th>total required</th><th>owner</th></tr>`;
  return html`<div class="book" id="orderbook">
    <div><h4>asks (${asks.length})</h4><table class="list">${head}${asks.map(row)}</table></div>
    <div><h4>bids (${bids.length})</h4><table class="list">${head}${bids.map(row)}</table></div>
  </div>`;
}
