import { html, Component, render } from './ui.js';
import { call, mode, streamUrl, emit, token } from './api.js';
import { ChainHome, BlockView, TxView, AddressView, MempoolView, search } from './chain.js';
import { TokenList, TokenView } from './tokens.js';
import { ActorsView, actorStore } from './actors.js';
import { PlotsView, mempoolSeries } from './plots.js';

/**
 * The local inspector and explorer: one page, views chosen by the URL's hash (#/block/<hash>, …).
 * Live data: the chain's height and the mempool are polled through the data endpoint (cheap calls,
 * both modes); with -inspect the actor stream adds every message and state change as it happens.
 */

const POLL_MS = 2000;

function route() {
  const parts = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  return { view: parts[0] || 'chain', arg: parts.slice(1).join('/') };
}

class App extends Component {
  constructor() {
    super();
    this.state = { route: route(), stream: false, height: null, connected: false, q: '' };
  }

  async componentDidMount() {
    window.addEventListener('hashchange', () => this.setState({ route: route() }));
    const m = await mode();
    this.setState({ stream: m.stream });
    if (m.stream) this.openStream();
    this.poll();
  }

  openStream() {
    const ws = new WebSocket(streamUrl());
    ws.onopen = () => this.setState({ connected: true });
    ws.onmessage = (e) => {
      let msg;
      try {
        msg = JSON.parse(e.data);
      } catch {
        return;
      }
      actorStore.take(msg);
      emit('message', msg);
    };
    ws.onclose = () => {
      this.setState({ connected: false });
      setTimeout(() => this.openStream(), 2000);
    };
  }

  async poll() {
    try {
      const [height, mem, actors] = await Promise.all([call('getblockcount'), call('getmempoolinfo'), call('getactorstates')]);
      if (height !== this.state.height) {
        this.setState({ height });
        emit('block', height);
      }
      mempoolSeries.add(Date.now() / 1000, mem.size, mem.bytes);
      emit('sample', mem);
      // Views that show mempool data reload only when it changed (a token's history costs many calls).
      const key = `${mem.size}/${mem.bytes}`;
      if (key !== this.mempoolKey) {
        this.mempoolKey = key;
        emit('mempool', mem);
      }
      actorStore.takeStates(actors.actors);
    } catch (e) {
      console.error(e);
    }
    setTimeout(() => this.poll(), POLL_MS);
  }

  async onSearch(e) {
    e.preventDefault();
    const q = this.state.q.trim();
    if (!q) return;
    const target = await search(q);
    this.setState({ searchError: target ? undefined : `nothing found for ${q}` });
    if (target) location.hash = target;
  }

  body() {
    const { view, arg } = this.state.route;
    switch (view) {
      case 'chain': return html`<${ChainHome} />`;
      case 'block': return html`<${BlockView} id=${arg} />`;
      case 'tx': return html`<${TxView} txid=${arg} />`;
      case 'address': return html`<${AddressView} address=${arg} />`;
      case 'mempool': return html`<${MempoolView} />`;
      case 'tokens': return html`<${TokenList} />`;
      case 'token': return html`<${TokenView} tokenid=${arg} />`;
      case 'actors': return html`<${ActorsView} stream=${this.state.stream} />`;
      case 'plots': return html`<${PlotsView} />`;
      default: return html`<div class="error">unknown view ${view}</div>`;
    }
  }

  render() {
    const { view } = this.state.route;
    const tab = (name, label) => html`<a href=${`#/${name}`} class=${view === name ? 'tab on' : 'tab'}>${label}</a>`;
    return html`
      <header>
        <span class="brand">acnode</span>
        ${tab('chain', 'Chain')} ${tab('mempool', 'Mempool')} ${tab('tokens', 'Tokens')} ${tab('actors', 'Actors')} ${tab('plots', 'Plots')}
        <form class="search" onSubmit=${(e) => this.onSearch(e)}>
          <input id="search" placeholder="height, block hash, txid, address, tokenid" value=${this.state.q}
            onInput=${(e) => this.setState({ q: e.target.value })} />
          <button type="submit">Search</button>
        </form>
        <span class="status" id="tip">height ${this.state.height ?? '…'}</span>
        ${this.state.stream
          ? html`<span class=${this.state.connected ? 'status ok' : 'status bad'}>${this.state.connected ? 'stream live' : 'stream closed'}</span>
              <a class="ext" href=${`/stately?token=${token}`} target="_blank" rel="noreferrer" title="needs the internet: frames stately.ai">Stately inspector ↗</a>`
          : html`<span class="status">explorer only (no actor stream: start with -inspect)</span>`}
      </header>
      ${this.state.searchError ? html`<div class="error">${this.state.searchError}</div>` : null}
      <main>${this.body()}</main>`;
  }
}

const root = document.getElementById('app');
root.textContent = '';
render(html`<${App} />`, root);
