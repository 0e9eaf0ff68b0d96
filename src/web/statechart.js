import { html, Component } from './ui.js';

/**
 * A machine drawn from its own config (the definition the stream announces): one box per state,
 * compound states around their children, one arrow per transition that has a target (labelled with
 * its event, `always`, or `done`/`error` of an invoked actor). Layout by dagre (vendor/dagre.js, a
 * classic script that sets window.dagre). States an actor is in are lit and carry its name.
 */

const W = 130;
const H = 34;

/** Every state of `def`, keyed by its dotted path ('ready.idle'), with its parent path. */
function collect(def) {
  const states = new Map();
  const walk = (node, path, parent) => {
    for (const [key, child] of Object.entries(node.states ?? {})) {
      const p = path ? `${path}.${key}` : key;
      states.set(p, { node: child, parent, key });
      walk(child, p, p);
    }
  };
  walk(def, '', null);
  return states;
}

/** Where a transition's target string leads, from a state at `path`. */
function resolve(def, states, path, target) {
  if (typeof target !== 'string') return null;
  let p;
  if (target.startsWith('#')) {
    const [id, ...rest] = target.slice(1).split('.');
    p = id === def.id ? rest.join('.') : null;
  } else if (target.startsWith('.')) p = `${path}${target}`;
  else {
    const parent = states.get(path)?.parent;
    p = parent ? `${parent}.${target}` : target;
  }
  // An arrow into a compound state lands on its initial child (dagre draws edges between leaves).
  while (p && states.get(p)?.node.states && states.get(p).node.initial) p = `${p}.${states.get(p).node.initial}`;
  return p && states.has(p) ? p : null;
}

function targets(t) {
  const list = Array.isArray(t) ? t : [t];
  return list.flatMap((x) => (typeof x === 'string' ? [x] : x && typeof x === 'object' && x.target ? (Array.isArray(x.target) ? x.target : [x.target]) : []));
}

export function transitions(def) {
  const states = collect(def);
  const edges = [];
  for (const [path, { node }] of states) {
    const add = (label, t) => {
      for (const target of targets(t)) {
        const to = resolve(def, states, path, target);
        if (to) edges.push({ from: path, to, label });
      }
    };
    for (const [ev, t] of Object.entries(node.on ?? {})) add(ev, t);
    if (node.always) add('always', node.always);
    for (const inv of Array.isArray(node.invoke) ? node.invoke : node.invoke ? [node.invoke] : []) {
      if (inv.onDone) add('done', inv.onDone);
      if (inv.onError) add('error', inv.onError);
    }
  }
  return { states, edges };
}

export function layout(def) {
  const dagre = window.dagre;
  const { states, edges } = transitions(def);
  const g = new dagre.graphlib.Graph({ compound: true, multigraph: true });
  g.setGraph({ rankdir: 'LR', nodesep: 24, ranksep: 60, marginx: 10, marginy: 10 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const [path, s] of states) {
    g.setNode(path, s.node.states ? { label: s.key, compound: true } : { label: s.key, width: W, height: H });
    if (s.parent) g.setParent(path, s.parent);
  }
  edges.forEach((e, i) => g.setEdge(e.from, e.to, { label: e.label, width: e.label.length * 7, height: 14, labelpos: 'c' }, `e${i}`));
  dagre.layout(g);
  const graph = g.graph();
  return {
    width: graph.width ?? 400,
    height: graph.height ?? 200,
    nodes: g.nodes().map((id) => ({ id, ...g.node(id), compound: !!states.get(id)?.node.states, final: states.get(id)?.node.type === 'final' })),
    edges: g.edges().map((e) => ({ from: e.v, to: e.w, ...g.edge(e) })),
  };
}

export class StateChart extends Component {
  render() {
    if (!window.dagre) return html`<p class="error">the layout library did not load</p>`;
    let l;
    try {
      l = layout(this.props.def);
    } catch (e) {
      return html`<p class="error">cannot draw ${this.props.def.id}: ${e.message}</p>`;
    }
    // Each actor lights its state and every state around it (ready.idle lights ready too).
    const lit = new Map();
    for (const [name, state] of this.props.actors) {
      for (const region of String(state ?? '').split(',')) {
        const parts = region.split('.');
        for (let i = 1; i <= parts.length; i++) {
          const p = parts.slice(0, i).join('.');
          if (!lit.has(p)) lit.set(p, []);
          if (i === parts.length) lit.get(p).push(name);
        }
      }
    }
    const nodes = [...l.nodes].sort((a, b) => Number(b.compound) - Number(a.compound));
    return html`<svg class="chart" data-machine=${this.props.def.id} width=${l.width} height=${l.height + 20} viewBox=${`0 0 ${l.width} ${l.height + 20}`}>
      <defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" class="arrowhead" /></marker></defs>
      ${nodes.map((n) => {
        const on = lit.has(n.id);
        const names = lit.get(n.id) ?? [];
        return html`<g class=${`state${n.compound ? ' compound' : ''}${on ? ' lit' : ''}`} data-state=${n.id}>
          <rect x=${n.x - n.width / 2} y=${n.y - n.height / 2} width=${n.width} height=${n.height} rx="8" />
          <text x=${n.compound ? n.x - n.width / 2 + 8 : n.x} y=${n.compound ? n.y - n.height / 2 + 14 : n.y + (names.length ? -3 : 4)} class=${n.compound ? 'label left' : 'label'}>${n.label}${n.final ? ' ◉' : ''}</text>
          ${!n.compound && names.length ? html`<text x=${n.x} y=${n.y + 11} class="who">${names.length > 2 ? `${names.length} actors` : names.join(' ')}</text>` : null}
          ${names.length ? html`<title>${names.join(', ')}</title>` : null}
        </g>`;
      })}
      ${l.edges.map((e) => html`<g class="edge">
        <polyline points=${e.points.map((p) => `${p.x},${p.y}`).join(' ')} marker-end="url(#arrow)" />
        ${e.x !== undefined ? html`<text x=${e.x} y=${e.y + 4} class="elabel">${e.label}</text>` : null}
      </g>`)}
    </svg>`;
  }
}
