import { h, Component, render } from './vendor/preact.js';
import htm from './vendor/htm.js';

export const html = htm.bind(h);
export { Component, render, h };

/** A hash link to one of the page's views. */
export function link(kind, id, text) {
  return html`<a href=${`#/${kind}/${encodeURIComponent(id)}`} class="id">${text ?? id}</a>`;
}

export function short(id) {
  return typeof id === 'string' && id.length > 20 ? `${id.slice(0, 10)}…${id.slice(-8)}` : id;
}

export function time(t) {
  return new Date(t * 1000).toISOString().replace('T', ' ').replace('.000Z', '');
}

/** A view that loads its data with `load()` (async), re-loading when `deps()` changes or a topic fires. */
export class Loader extends Component {
  constructor(props) {
    super(props);
    this.state = { data: undefined, error: undefined };
    this.version = 0;
  }
  componentDidMount() {
    this.reload();
  }
  componentDidUpdate(prev) {
    if (this.key(prev) !== this.key(this.props)) this.reload();
  }
  key(p) {
    return JSON.stringify(p.args ?? null);
  }
  async reload() {
    const v = ++this.version;
    try {
      const data = await this.props.load(...(this.props.args ?? []));
      if (v === this.version) this.setState({ data, error: undefined });
    } catch (e) {
      if (v === this.version) this.setState({ error: e?.message ?? String(e) });
    }
  }
  render() {
    if (this.state.error) return html`<div class="error">${this.state.error}</div>`;
    if (this.state.data === undefined) return html`<div class="muted">loading…</div>`;
    return this.props.view(this.state.data, () => this.reload());
  }
}

/** A collapsible JSON payload. */
export class Json extends Component {
  render() {
    return html`<pre class="json">${JSON.stringify(this.props.value, null, 2)}</pre>`;
  }
}
