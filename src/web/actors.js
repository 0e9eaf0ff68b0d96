import { html, Component } from './ui.js';
import { on, emit } from './api.js';
import { StateChart } from './statechart.js';

/**
 * What the page knows of the actors: each one's state and context summary (from getactorstates, and
 * with -inspect from every snapshot in the stream as it happens), each machine's definition (from the
 * stream's @xstate.actor announcements), and the recent messages for the sequence view.
 */
export const actorStore = {
  actors: new Map(),
  sessions: new Map(),
  definitions: new Map(),
  messages: [],
  max: 2000,

  takeStates(states) {
    let changed = false;
    for (const [name, s] of Object.entries(states ?? {})) {
      const old = this.actors.get(name);
      if (old && old.state === s.state && JSON.stringify(old.context) === JSON.stringify(s.context)) continue;
      this.actors.set(name, { ...old, ...s });
      changed = true;
    }
    if (changed) emit('actors');
  },

  take(msg) {
    const rec = msg.acnode;
    if (!rec) return;
    if (msg.type === '@xstate.actor') {
      this.sessions.set(msg.sessionId, rec.actor);
      try {
        const def = JSON.parse(msg.definition);
        if (def && def.id) this.definitions.set(def.id, def);
        this.actors.set(rec.actor, { ...this.actors.get(rec.actor), machine: def.id, status: msg.snapshot?.status, context: msg.snapshot?.context, state: stateText(msg.snapshot?.value) });
      } catch {
        // a definition that does not parse draws no chart
      }
      emit('actors');
    } else if (msg.type === '@xstate.snapshot' && rec.state !== undefined) {
      const old = this.actors.get(rec.actor) ?? {};
      this.actors.set(rec.actor, { ...old, state: rec.state, status: rec.status, context: msg.snapshot?.context ?? old.context });
      emit('actors');
    }
    this.messages.push(msg);
    if (this.messages.length > this.max) this.messages.splice(0, this.messages.length - this.max);
  },
};

function stateText(v) {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object') return Object.entries(v).map(([k, x]) => (stateText(x) ? `${k}.${stateText(x)}` : k)).join(',');
  return '';
}

function summary(ctx) {
  if (!ctx || typeof ctx !== 'object') return '';
  const s = ctx.summary && typeof ctx.summary === 'object' ? ctx.summary : ctx;
  const parts = Object.entries(s).map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : v}`);
  if ('queued' in ctx) parts.push(`queued: ${ctx.queued}`, `inflight: ${ctx.inflight}`);
  return parts.join(', ');
}

export class ActorsView extends Component {
  constructor() {
    super();
    this.state = { tick: 0 };
  }
  componentDidMount() {
    this.off = on('actors', () => this.setState({ tick: this.state.tick + 1 }));
  }
  componentWillUnmount() {
    this.off();
  }
  render() {
    const actors = [...actorStore.actors.entries()];
    const machines = [...actorStore.definitions.values()];
    return html`
      <h2>Actors</h2>
      <table class="list" id="actors">
        <tr><th>actor</th><th>state</th><th>status</th><th>context summary</th></tr>
        ${actors.map(([name, a]) => html`<tr class="actor-row" data-actor=${name}>
          <td>${name}</td><td class="state">${a.state}</td><td>${a.status}</td><td class="ctx">${summary(a.context)}</td></tr>`)}
      </table>
      ${this.props.stream
        ? html`
          ${machines.map((def) => html`<h3>machine “${def.id}”</h3>
            <${StateChart} def=${def} actors=${actors.filter(([, a]) => a.machine === def.id).map(([n, a]) => [n, a.state])} />`)}
          <h3>messages</h3>
          <${Sequence} actors=${actors.map(([n]) => n)} />`
        : html`<p class="muted">The state chart and the message sequence need the actor stream: start the node with -inspect.</p>`}`;
  }
}

const KIND_MARK = { event: '→', state: '=', emit: '←', rpc: '⇢', actor: '+' };

/** The live stream as a message sequence: one lane per actor, filterable, pausable, expandable. */
class Sequence extends Component {
  constructor() {
    super();
    this.state = { paused: false, actor: '', op: '', open: new Set(), shown: [], hideSame: true };
  }
  componentDidMount() {
    this.refresh();
    this.off = on('message', () => {
      if (!this.state.paused && !this.pending) {
        this.pending = true;
        requestAnimationFrame(() => {
          this.pending = false;
          this.refresh();
        });
      }
    });
  }
  componentWillUnmount() {
    this.off();
  }
  refresh() {
    this.setState({ shown: actorStore.messages.slice(-400) });
  }
  render() {
    const lanes = ['rpc', ...this.props.actors.filter((a) => a !== 'rpc')];
    const { actor, op, open, hideSame } = this.state;
    const rows = this.state.shown.filter((m) => {
      const r = m.acnode;
      if (hideSame && r.detail === 'same') return false;
      if (actor && r.actor !== actor && r.source !== actor) return false;
      if (op && !`${r.op ?? ''} ${r.type}`.includes(op)) return false;
      return true;
    }).slice(-150);
    const toggle = (seq) => {
      const s = new Set(open);
      s.has(seq) ? s.delete(seq) : s.add(seq);
      this.setState({ open: s });
    };
    return html`
      <div class="controls">
        <button id="pause" onClick=${() => { this.setState({ paused: !this.state.paused }); if (this.state.paused) this.refresh(); }}>${this.state.paused ? 'resume' : 'pause'}</button>
        <select id="actor-filter" onChange=${(e) => this.setState({ actor: e.target.value })}>
          <option value="">every actor</option>
          ${lanes.map((l) => html`<option value=${l} selected=${l === actor}>${l}</option>`)}
        </select>
        <input id="op-filter" placeholder="op or type" value=${op} onInput=${(e) => this.setState({ op: e.target.value })} />
        <label><input type="checkbox" checked=${hideSame} onChange=${(e) => this.setState({ hideSame: e.target.checked })} /> hide unchanged snapshots</label>
      </div>
      <table class="seq" id="sequence">
        <tr><th>time</th>${lanes.map((l) => html`<th>${l}</th>`)}</tr>
        ${rows.map((m) => {
          const r = m.acnode;
          const text = `${KIND_MARK[r.kind] ?? ''} ${r.type}${r.op ? ` ${r.op}` : ''}${r.reqId !== undefined ? ` #${r.reqId}` : ''}${r.state ? ` ${r.state}` : ''}${r.ok === false ? ' ✗' : ''}${r.detail && r.detail !== 'same' ? ` ${r.detail}` : ''}`;
          return html`
            <tr class=${`msg ${r.kind}`} onClick=${() => toggle(r.seq)}>
              <td class="muted">${new Date(r.time).toISOString().slice(11, 23)}</td>
              ${lanes.map((l) => html`<td class=${l === r.actor ? 'hit' : l === r.source ? 'src' : ''}>${l === r.actor ? text : l === r.source ? '●' : ''}</td>`)}
            </tr>
            ${open.has(r.seq) ? html`<tr><td colspan=${lanes.length + 1}><pre class="json">${JSON.stringify({ ...m, definition: m.definition ? '[machine config]' : undefined }, null, 2)}</pre></td></tr>` : null}`;
        })}
      </table>`;
  }
}
