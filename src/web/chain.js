import { html, Component, Loader, link, short, time } from './ui.js';
import { call, on } from './api.js';

/** A component that re-renders its Loader when a topic ('block', 'mempool') fires. */
class Live extends Component {
  constructor(props) {
    super(props);
    this.state = { tick: 0 };
  }
  componentDidMount() {
    this.off = (this.props.topics ?? ['block']).map((t) => on(t, () => this.setState({ tick: this.state.tick + 1 })));
  }
  componentWillUnmount() {
    for (const f of this.off) f();
  }
  render() {
    return html`<${Loader} args=${[...(this.props.args ?? []), this.state.tick]} load=${this.props.load} view=${this.props.view} />`;
  }
}
export { Live };

export const LATEST = 10;

async function latestBlocks() {
  const height = await call('getblockcount');
  const heights = [];
  for (let h = height; h >= 0 && h > height - LATEST; h--) heights.push(h);
  return Promise.all(heights.map(async (h) => call('getblock', await call('getblockhash', h))));
}

export function ChainHome() {
  return html`
    <h2>Latest blocks</h2>
    <${Live} load=${latestBlocks} view=${(blocks) => html`
      <table class="list" id="blocks">
        <tr><th>height</th><th>hash</th><th>time</th><th>txs</th><th>size</th></tr>
        ${blocks.map((b) => html`<tr class="block-row">
          <td>${link('block', b.hash, String(b.height))}</td><td>${link('block', b.hash, short(b.hash))}</td>
          <td>${time(b.time)}</td><td>${b.tx.length}</td><td>${b.size}</td></tr>`)}
      </table>`} />`;
}

/** A block by hash or height. */
export function BlockView({ id }) {
  const load = async (id) => call('getblock', /^\d+$/.test(id) ? await call('getblockhash', Number(id)) : id);
  return html`<${Live} args=${[id]} load=${load} view=${(b) => html`
    <h2>Block ${b.height}</h2>
    <table class="kv">
      <tr><th>hash</th><td class="id">${b.hash}</td></tr>
      <tr><th>confirmations</th><td>${b.confirmations}</td></tr>
      <tr><th>time</th><td>${time(b.time)}</td></tr>
      <tr><th>previous</th><td>${b.previousblockhash ? link('block', b.previousblockhash) : '—'}</td></tr>
      <tr><th>next</th><td>${b.nextblockhash ? link('block', b.nextblockhash) : '—'}</td></tr>
      <tr><th>merkle root</th><td class="id">${b.merkleroot}</td></tr>
      <tr><th>size</th><td>${b.size}</td></tr>
      <tr><th>bits / difficulty</th><td>${b.bits} / ${b.difficulty}</td></tr>
    </table>
    <h3>${b.tx.length} transactions</h3>
    <ul class="txs">${b.tx.map((t) => html`<li>${link('tx', typeof t === 'string' ? t : t.txid)}</li>`)}</ul>`} />`;
}

function addresses(spk) {
  return spk?.addresses ?? (spk?.address ? [spk.address] : []);
}

/** A transaction as getrawtransaction verbose shows it, each input with the output it spends. */
async function loadTx(txid) {
  const tx = await call('getrawtransaction', txid, 1);
  const prev = await Promise.all(tx.vin.map(async (vin) => {
    if (!vin.txid) return null;
    try {
      const p = await call('getrawtransaction', vin.txid, 1);
      return p.vout[vin.vout] ?? null;
    } catch {
      return null;
    }
  }));
  const spent = await Promise.all(tx.vout.map(async (o) => {
    try {
      return await call('getspentinfo', { txid, index: o.n });
    } catch {
      return null;
    }
  }));
  return { tx, prev, spent };
}

export function TxView({ txid }) {
  return html`<${Live} args=${[txid]} topics=${['block', 'mempool']} load=${loadTx} view=${({ tx, prev, spent }) => html`
    <h2>Transaction</h2>
    <table class="kv">
      <tr><th>txid</th><td class="id" id="txid">${tx.txid}</td></tr>
      <tr><th>block</th><td>${tx.blockhash ? link('block', tx.blockhash, `${tx.height ?? ''} ${short(tx.blockhash)}`) : html`<span class="muted">mempool</span>`}</td></tr>
      <tr><th>confirmations</th><td>${tx.confirmations ?? 0}</td></tr>
      <tr><th>version</th><td>${tx.version}${tx.overwintered ? ' (overwintered)' : ''}</td></tr>
      <tr><th>locktime</th><td>${tx.locktime}</td></tr>
    </table>
    <div class="io">
      <div>
        <h3>inputs</h3>
        <table class="list">
          ${tx.vin.map((vin, i) => html`<tr>
            <td>${i}</td>
            ${vin.coinbase ? html`<td colspan="3">coinbase ${vin.coinbase}</td>` : html`
              <td>${link('tx', vin.txid, `${short(vin.txid)}:${vin.vout}`)}</td>
              <td>${prev[i] ? addresses(prev[i].scriptPubKey).map((a) => link('address', a)) : ''}</td>
              <td class="amt">${prev[i] ? prev[i].value : ''}</td>`}
          </tr>`)}
        </table>
      </div>
      <div>
        <h3>outputs</h3>
        <table class="list">
          ${tx.vout.map((o, i) => html`<tr>
            <td>${o.n}</td><td class="amt">${o.value}</td>
            <td>${addresses(o.scriptPubKey).map((a) => link('address', a))} <span class="muted">${o.scriptPubKey.type}</span></td>
            <td>${spent[i] ? html`spent by ${link('tx', spent[i].txid, `${short(spent[i].txid)}:${spent[i].index}`)}` : html`<span class="muted">unspent</span>`}</td>
          </tr>`)}
        </table>
      </div>
    </div>
    <details><summary>decoded</summary><pre class="json">${JSON.stringify(tx, null, 2)}</pre></details>`} />`;
}

/**
 * An address from the address index. komodod files CC outputs under the same hash with a type of
 * their own, reached with the `ccvout` flag (a CC address is a base58 address like any other), so
 * both are asked and each shown when it holds anything.
 */
async function loadAddress(address) {
  const q = { addresses: [address] };
  const side = async (cc) => {
    const extra = cc ? [true] : [];
    const [balance, utxos, txids] = await Promise.all([
      call('getaddressbalance', q, ...extra), call('getaddressutxos', q, ...extra), call('getaddresstxids', q, ...extra),
    ]);
    return { balance, utxos, txids };
  };
  const [plain, cc, mempool] = await Promise.all([side(false), side(true), call('getaddressmempool', q)]);
  return { plain, cc, mempool };
}

const sats = (n) => (Number(n) / 1e8).toFixed(8);

function addressSide(title, { balance, utxos, txids }) {
  return html`
    <h3>${title}</h3>
    <table class="kv">
      <tr><th>balance</th><td class="amt">${sats(balance.balance)}</td></tr>
      <tr><th>received</th><td class="amt">${sats(balance.received)}</td></tr>
    </table>
    <h3>unspent (${utxos.length})</h3>
    <table class="list">${utxos.map((u) => html`<tr><td>${link('tx', u.txid, `${short(u.txid)}:${u.outputIndex}`)}</td><td>${u.height}</td><td class="amt">${sats(u.satoshis)}</td></tr>`)}</table>
    <h3>history (${txids.length})</h3>
    <ul class="txs">${[...txids].reverse().map((t) => html`<li>${link('tx', t)}</li>`)}</ul>`;
}

export function AddressView({ address }) {
  return html`<${Live} args=${[address]} topics=${['block', 'mempool']} load=${loadAddress} view=${({ plain, cc, mempool }) => {
    const isCC = cc.txids.length > 0;
    return html`
      <h2>Address</h2>
      <table class="kv">
        <tr><th>address</th><td class="id">${address}</td></tr>
        <tr><th>unconfirmed</th><td>${mempool.length} mempool deltas</td></tr>
      </table>
      ${isCC ? addressSide('CC outputs (ccvout)', cc) : null}
      ${!isCC || plain.txids.length ? addressSide(isCC ? 'key outputs' : 'outputs', plain) : null}`;
  }} />`;
}

async function loadMempool() {
  const [info, entries] = await Promise.all([call('getmempoolinfo'), call('getrawmempool', true)]);
  return { info, entries };
}

export function MempoolView() {
  return html`<${Live} topics=${['mempool']} load=${loadMempool} view=${({ info, entries }) => html`
    <h2>Mempool</h2>
    <p>${info.size} transactions, ${info.bytes} bytes</p>
    <table class="list" id="mempool">
      <tr><th>txid</th><th>size</th><th>fee</th><th>time</th></tr>
      ${Object.entries(entries).map(([txid, e]) => html`<tr><td>${link('tx', txid)}</td><td>${e.size}</td><td class="amt">${e.fee}</td><td>${time(e.time)}</td></tr>`)}
    </table>`} />`;
}

/** The view a search term names: a height, a block hash, a txid, a tokenid or an address. */
export async function search(q) {
  if (/^\d+$/.test(q)) {
    try {
      return `#/block/${await call('getblockhash', Number(q))}`;
    } catch {
      return null;
    }
  }
  if (/^[0-9a-fA-F]{64}$/.test(q)) {
    const id = q.toLowerCase();
    try {
      const info = await call('tokeninfo', id);
      if (info.result === 'success') return `#/token/${id}`;
    } catch {
      // not a token
    }
    try {
      await call('getblock', id);
      return `#/block/${id}`;
    } catch {
      // not a block
    }
    try {
      await call('getrawtransaction', id);
      return `#/tx/${id}`;
    } catch {
      return null;
    }
  }
  try {
    await call('getaddressbalance', { addresses: [q] });
    return `#/address/${q}`;
  } catch {
    return null;
  }
}
