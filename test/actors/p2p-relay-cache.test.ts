import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { P2PLogic } from '../../src/actors/p2p/logic.js';
import type { TxRelay } from '../../src/actors/p2p/relay.js';
import { RELAY_CACHE_MS, RelayCache } from '../../src/actors/p2p/relay-cache.js';
import { prng } from '../helpers/prng.js';
import { devChainParams } from '../../src/chain/params/chain-params.js';

const MIN = 60_000;

/** The p2p logic alone: no sockets (load() is never called), no peers, the clock under the test's hand. */
function p2p(): P2PLogic {
  const nobody = {} as never;
  return new P2PLogic({
    params: devChainParams(),
    chain: nobody,
    mempool: nobody,
    port: 0,
    listen: false,
    bind: [],
    addnode: [],
    connect: [],
    whitelist: [],
    maxConnections: 8,
    banScore: 100,
    banTime: 86400,
    log: () => {},
  });
}

test('p2p relay cache: kept 15 minutes from the last accept, the sweep stopping at the first fresh entry', (t) => {
  let now = 1_700_000_000_000;
  mock.method(Date, 'now', () => now);
  t.after(() => mock.restoreAll());
  const logic = p2p();
  const cache = (logic as unknown as { relay: TxRelay }).relay.relayCache;
  const housekeeping = () => (logic as unknown as { housekeeping(): void }).housekeeping();
  const accept = (txid: string) => logic.writeNow({ op: 'txsAccepted', items: [{ txid, raw: new Uint8Array([1]) }] });
  const a = 'aa'.repeat(32);
  const b = 'bb'.repeat(32);

  accept(a);
  now += 5 * MIN;
  accept(b);
  now += 11 * MIN; // a is 16 minutes old, b 11
  housekeeping();
  assert.deepEqual(cache.keys(), [b]);

  // Accepted again while still cached (relayed back by a peer): its 15 minutes start again, behind b's.
  accept(a);
  now += 1 * MIN;
  accept(b);
  assert.deepEqual(cache.keys(), [a, b]);
  now += 1 * MIN;
  accept(a);
  assert.deepEqual(cache.keys(), [b, a]);
  now += 14 * MIN + 1; // b is 15 minutes and a bit old, a 14
  housekeeping();
  assert.deepEqual(cache.keys(), [a]);
  now += 1 * MIN;
  housekeeping();
  assert.equal(cache.size, 0);
});

test('p2p relay cache with no peer: an accepted tx is logged, not filed, until something reads the cache; then every one is there for a getdata, in order', (t) => {
  let now = 1_700_000_000_000;
  mock.method(Date, 'now', () => now);
  t.after(() => mock.restoreAll());
  const logic = p2p();
  const relay = (logic as unknown as { relay: TxRelay }).relay;
  const filed = (relay.relayCache as unknown as { filed: Map<string, unknown> }).filed;
  const txids = ['aa', 'bb', 'cc'].map((h) => h.repeat(32));
  logic.writeNow({ op: 'txsAccepted', items: txids.map((txid, i) => ({ txid, raw: Uint8Array.of(i) })) });
  // komodod's RelayTransaction files mapRelay with no peer too; here that waits for a reader.
  assert.equal(filed.size, 0, 'no map write per accepted tx');
  now += 14 * MIN;
  (logic as unknown as { housekeeping(): void }).housekeeping();
  assert.equal(filed.size, 0, 'the sweep drops what expired without filing the rest');
  // A peer that connects 14 minutes later and asks (ProcessGetData reads mapRelay): served.
  assert.deepEqual(relay.relayed(txids[1]!), Uint8Array.of(1));
  assert.deepEqual([...filed.keys()], txids);
});

test('p2p relay cache: the log keeps the map\'s bound and order (a relay again moves to the end), expired entries dropped unfiled', () => {
  const start = 1_700_000_000_000;
  const c = new RelayCache(3);
  const raw = Uint8Array.of(0);
  for (const [k, at] of [['a', 0], ['b', 1], ['c', 2], ['a', 3], ['d', 4]] as const) c.add(k, raw, start + at * MIN);
  // Five relays in the log, a bound of three: the two oldest (a at 0, b at 1) are dropped unfiled,
  // as the map would have pushed b out (a moved to the end): c, a, d.
  assert.deepEqual(c.keys(), ['c', 'a', 'd']);
  c.add('b', raw, start + 5 * MIN);
  c.add('e', raw, start + 17 * MIN);
  c.sweep(start + 19 * MIN + 30_000); // c (2), a (3) and d (4) are over 15 minutes old; b (5) and e (17) fresh
  assert.deepEqual(c.keys(), ['b', 'e']);
  assert.equal(c.get('c'), undefined);
  assert.equal(c.get('e'), raw);
  // A log swept before it was read: its expired relays never reach the map.
  c.add('f', raw, start + 20 * MIN);
  c.add('g', raw, start + 40 * MIN);
  c.sweep(start + 40 * MIN);
  assert.deepEqual(c.keys(), ['g']);
  assert.equal(c.size, 1);
});

test('p2p relay cache against a model over long seeded runs (relays again, reads at random, sweeps, a log compacted many times)', () => {
  for (const seed of [1, 2, 3]) {
    const rnd = prng(seed);
    const max = 500;
    const c = new RelayCache(max);
    /** Every relay so far: the model keeps what is among the last `max` relays and under 15 minutes old, named by its last relay. */
    const log: { txid: string; at: number }[] = [];
    let now = 0;
    let swept = 0;
    const model = () => {
      const from = Math.max(swept, log.length - max);
      const last = new Map<string, number>();
      for (let i = from; i < log.length; i++) last.set(log[i]!.txid, i);
      return [...last].sort((x, y) => x[1] - y[1]).map(([t]) => t);
    };
    for (let step = 0; step < 6000; step++) {
      now += Math.floor(rnd() * 400);
      const r = rnd();
      // Mostly new transactions, some relayed again (a recent one), reads and sweeps now and then.
      const txid = r < 0.15 && log.length > 0 ? log[log.length - 1 - Math.floor(rnd() * Math.min(log.length, 800))]!.txid : `tx${step}`;
      c.add(txid, Uint8Array.of(step & 0xff), now);
      log.push({ txid, at: now });
      if (rnd() < 0.02) {
        c.sweep(now);
        while (swept < log.length && now - log[swept]!.at > RELAY_CACHE_MS) swept++;
      }
      if (rnd() < 0.05) assert.equal(c.has(txid), model().includes(txid), `seed ${seed} step ${step}`);
      if (step % 997 === 0) assert.deepEqual(c.keys(), model(), `seed ${seed} step ${step}`);
    }
    assert.deepEqual(c.keys(), model(), `seed ${seed}: at the end`);
  }
});
