import { html, Component } from './ui.js';
import { call, on } from './api.js';
import uPlot from './vendor/uplot.js';

/** Blocks shown in the block plots. */
export const PLOT_BLOCKS = 100;

/** Mempool samples taken by the page's poll (size and bytes over time), the last hour at most. */
export const mempoolSeries = {
  t: [],
  size: [],
  bytes: [],
  add(t, size, bytes) {
    this.t.push(t);
    this.size.push(size);
    this.bytes.push(bytes);
    if (this.t.length > 1800) for (const a of [this.t, this.size, this.bytes]) a.shift();
  },
};

/**
 * The plotted blocks by height, each with its hash and its parent's: a new tip costs the blocks not
 * seen yet (walking back along previousblockhash to the first one already known), not N calls.
 */
const byHeight = new Map();

async function lastBlocks(n) {
  const height = await call('getblockcount');
  for (const h of [...byHeight.keys()]) if (h > height) byHeight.delete(h);
  // From block 1 at the lowest: the genesis block's time is the chain's birth, not an interval.
  const from = Math.max(1, height - n);
  let hash = await call('getblockhash', height);
  for (let h = height; h >= from && hash; h--) {
    if (byHeight.get(h)?.hash === hash) break; // this one and all below it are already on this chain
    const b = await call('getblock', hash);
    byHeight.set(h, { height: h, hash, time: b.time, txs: b.tx.length });
    hash = b.previousblockhash;
  }
  for (const h of [...byHeight.keys()]) if (h < from) byHeight.delete(h);
  const out = [];
  for (let h = from; h <= height; h++) if (byHeight.has(h)) out.push(byHeight.get(h));
  return out;
}

/** One uPlot chart in a div; `data()` gives its columns, redrawn when a topic fires. */
class Plot extends Component {
  componentDidMount() {
    this.draw();
    this.off = on(this.props.topic, () => this.draw());
  }
  componentWillUnmount() {
    this.off();
    this.chart?.destroy();
  }
  async draw() {
    const data = await this.props.data();
    if (!this.base) return;
    if (this.chart) {
      this.chart.setData(data);
      return;
    }
    this.chart = new uPlot(
      { width: 560, height: 220, title: this.props.title, scales: { x: { time: this.props.time ?? false } }, series: [{ label: this.props.x }, ...this.props.series.map((s) => ({ label: s, stroke: s.includes('bytes') ? '#c60' : '#26a', width: 1.5, points: { show: !this.props.time } }))], axes: [{}, { size: 70 }] },
      data,
      this.base,
    );
  }
  render() {
    return html`<div class="plot" id=${this.props.id}></div>`;
  }
}

let memo = { key: null, value: null };

/** Both block plots draw from one fetch per tip. */
async function blockData() {
  const height = await call('getblockcount');
  if (memo.key !== height) memo = { key: height, value: lastBlocks(PLOT_BLOCKS) };
  const blocks = await memo.value;
  const hs = blocks.slice(1).map((b) => b.height);
  const interval = blocks.slice(1).map((b, i) => b.time - blocks[i].time);
  const txs = blocks.slice(1).map((b) => b.txs);
  return { hs, interval, txs };
}

export class PlotsView extends Component {
  render() {
    return html`
      <h2>Plots</h2>
      <div class="plots">
        <${Plot} id="plot-interval" topic="block" title=${`block interval (s), last ${PLOT_BLOCKS} blocks`} x="height" series=${['seconds']}
          data=${async () => { const d = await blockData(); return [d.hs, d.interval]; }} />
        <${Plot} id="plot-txs" topic="block" title=${`transactions per block, last ${PLOT_BLOCKS} blocks`} x="height" series=${['txs']}
          data=${async () => { const d = await blockData(); return [d.hs, d.txs]; }} />
        <${Plot} id="plot-mempool" topic="sample" time=${true} title="mempool size over time (since this page opened)" x="time" series=${['transactions']}
          data=${async () => [[...mempoolSeries.t], [...mempoolSeries.size]]} />
      </div>`;
  }
}
