import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { P2PLogic } from '../../src/actors/p2p/logic.js';
import type { TxRelay } from '../../src/actors/p2p/relay.js';
import { RELAY_CACHE_SECONDS, RelayCache } from '../../src/actors/p2p/relay-cache.js';
import { prng } from '../helpers/prng.js';
import { devChainParams } from '../../src/chain/params/chain-params.js';
import { ServiceFailure } from '../../src/actors/protocol.js';
import { Transaction } from '../../src/chain/tx/transaction.js';
import { Outpoint, TxIn } from '../../src/chain/tx/input.js';

const MIN = 60_000;

/** The p2p logic alone: no sockets (load() is never called), no peers, the clock under the test's hand; the chain store and mempool a test answers for (none by default). */
function p2p(asked: { chain?: unknown; mempool?: unknown } = {}): P2PLogic {
  const nobody = {} as never;
  return new P2PLogic({
    params: devChainParams(),
    chain: (asked.chain ?? nobody) as never,
    mempool: (asked.mempool ?? nobody) as never,
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

test("p2p relay cache as komodod's mapRelay: a relay again keeps the first bytes and the first 15 minutes; expiry runs only at a relay, in whole seconds", (t) => {
  let now = 1_700_000_000_000;
  mock.method(Date, 'now', () => now);
  t.after(() => mock.restoreAll());
  const logic = p2p();
  const relay = (logic as unknown as { relay: TxRelay }).relay;
  const cache = relay.relayCache;
  const housekeeping = () => (logic as unknown as { housekeeping(): void }).housekeeping();
  const accept = (txid: string, byte = 1) => logic.writeNow({ op: 'txsAccepted', items: [{ txid, raw: Uint8Array.of(byte) }] });
  const [a, b, c] = ['aa', 'bb', 'cc'].map((h) => h.repeat(32)) as [string, string, string];

  accept(a, 1);
  now += 5 * MIN;
  accept(b);
  now += 5 * MIN;
  // Relayed again (a peer sent it back after a reorg, the wallet's rebroadcast): mapRelay.insert keeps the first bytes.
  accept(a, 2);
  assert.deepEqual(relay.relayed(a), Uint8Array.of(1));
  now += 6 * MIN; // a's first relay is 16 minutes old, its second 6
  housekeeping();
  // Nothing relayed since: nothing expired (komodod expires inside RelayTransaction), a getdata is still answered.
  assert.deepEqual(cache.keys(), [a, b]);
  assert.deepEqual(relay.relayed(a), Uint8Array.of(1));
  // The next relay expires a by its first relay's expiry, though it was relayed again 6 minutes ago.
  accept(c);
  assert.deepEqual(cache.keys(), [b, c]);
  assert.equal(relay.relayed(a), undefined);
  // b expires once its expiry second (relay second + 900) has passed: not at + 900 s, at + 901 s.
  const bAt = Math.floor((1_700_000_000_000 + 5 * MIN) / 1000);
  now = (bAt + RELAY_CACHE_SECONDS) * 1000 + 999;
  accept(a, 3);
  assert.deepEqual(cache.keys(), [b, c, a]);
  assert.deepEqual(relay.relayed(a), Uint8Array.of(3), 'erased, then inserted afresh: the new bytes');
  now += 1;
  accept(a, 4);
  assert.deepEqual(cache.keys(), [c, a]);
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
  logic.writeNow({ op: 'txsAccepted', items: [{ txid: 'dd'.repeat(32), raw: Uint8Array.of(3) }] });
  assert.equal(filed.size, 0, 'a relay with nothing expiring files nothing');
  // A peer that connects 14 minutes later and asks (ProcessGetData reads mapRelay): served.
  assert.deepEqual(relay.relayed(txids[1]!), Uint8Array.of(1));
  assert.deepEqual([...filed.keys()], [...txids, 'dd'.repeat(32)]);
});

test("p2p relay cache: acnode's bound erases the oldest queued relay's txid as its expiry would (a relay again queued, not moved)", () => {
  const start = 1_700_000_000_000;
  const c = new RelayCache(3);
  const raw = Uint8Array.of(0);
  for (const [k, at] of [['a', 0], ['b', 1], ['c', 2], ['a', 3], ['d', 4]] as const) c.add(k, raw, start + at * MIN);
  // Five relays queued, a bound of three: the two oldest (a at 0, b at 1) are erased, a with them
  // though it was relayed again at 3 (its entry was the one inserted at 0).
  assert.deepEqual(c.keys(), ['c', 'd']);
  c.add('b', raw, start + 5 * MIN);
  c.add('e', raw, start + 17 * MIN + 1000); // c (2) and a (3) expire first; d (4) is not over its 900 s
  assert.deepEqual(c.keys(), ['d', 'b', 'e']);
  assert.equal(c.get('c'), undefined);
  assert.equal(c.get('e'), raw);
});

test("p2p relay cache against komodod's RelayTransaction over long seeded runs (relays again, reads at random, a log compacted many times)", () => {
  for (const seed of [1, 2, 3]) {
    const rnd = prng(seed);
    const max = 500;
    const c = new RelayCache(max);
    // komodod's code, literally: mapRelay and vRelayExpiration, with acnode's bound on the queue.
    const map = new Map<string, Uint8Array>();
    const queue: { expire: number; txid: string }[] = [];
    const relayModel = (txid: string, raw: Uint8Array, at: number) => {
      const now = Math.floor(at / 1000);
      while (queue.length > 0 && queue[0]!.expire < now) map.delete(queue.shift()!.txid);
      if (!map.has(txid)) map.set(txid, raw);
      queue.push({ expire: now + 15 * 60, txid });
      if (queue.length > max) map.delete(queue.shift()!.txid);
    };
    let now = 0;
    const seen: string[] = [];
    for (let step = 0; step < 6000; step++) {
      now += Math.floor(rnd() * (rnd() < 0.01 ? 2_000_000 : 400));
      const r = rnd();
      // Mostly new transactions, some relayed again (a recent one), reads now and then.
      const txid = r < 0.15 && seen.length > 0 ? seen[seen.length - 1 - Math.floor(rnd() * Math.min(seen.length, 800))]! : `tx${step}`;
      seen.push(txid);
      const raw = Uint8Array.of(step & 0xff);
      c.add(txid, raw, now);
      relayModel(txid, raw, now);
      if (rnd() < 0.05) {
        const probe = seen[Math.floor(rnd() * seen.length)]!;
        assert.equal(c.get(probe), map.get(probe), `seed ${seed} step ${step}`);
      }
      if (step % 997 === 0) assert.deepEqual(c.keys(), [...map.keys()], `seed ${seed} step ${step}`);
    }
    assert.deepEqual(c.keys(), [...map.keys()], `seed ${seed}: at the end`);
  }
});

test("AlreadyHave for a transaction as komodod's: the mempool, an unspent output in the chain (HaveCoins), a reject at this tip; never mapRelay", async () => {
  const inPool = new Set<string>();
  const withCoins = new Set<string>();
  const logic = p2p({
    chain: { ask: async (b: { op: string; txids: string[] }) => (b.op === 'haveCoins' ? b.txids.map((t) => withCoins.has(t)) : null) },
    mempool: {
      ask: async (b: { op: string; txids: string[] }) => {
        if (b.op === 'hasMany') return b.txids.map((t) => inPool.has(t));
        throw new ServiceFailure(-26, '16: bad-txns-vout-empty');
      },
    },
  });
  const relay = (logic as unknown as { relay: TxRelay }).relay;
  const sync = (logic as unknown as { sync: { tip: { hash: string; height: number; time: number; chainWork: bigint } } }).sync;
  sync.tip = { hash: '01'.repeat(32), height: 5, time: Math.floor(Date.now() / 1000), chainWork: 1n };
  const [a, b, c] = ['aa', 'bb', 'cc'].map((h) => h.repeat(32)) as [string, string, string];
  logic.writeNow({ op: 'txsAccepted', items: [{ txid: a, raw: Uint8Array.of(1) }] });
  // a was relayed and has left the mempool unmined: asked for again, though a getdata is still served from mapRelay.
  assert.deepEqual(await relay.haveTxs([a]), [false]);
  assert.deepEqual(relay.relayed(a), Uint8Array.of(1));
  inPool.add(b);
  withCoins.add(c);
  assert.deepEqual(await relay.haveTxs([a, b, c]), [false, true, true]);
  // A rejected transaction is had until the tip changes (recentRejects is reset for a new tip).
  const bad = new Transaction();
  bad.vin.push(new TxIn(new Outpoint(new Uint8Array(32).fill(7), 0)));
  const d = bad.txid();
  await (relay as unknown as { acceptTx(p: undefined, tx: Transaction, raw: Uint8Array, txid: string): Promise<boolean> }).acceptTx(undefined, bad, bad.toRaw(), d);
  assert.deepEqual(await relay.haveTxs([d]), [true]);
  sync.tip = { ...sync.tip, hash: '02'.repeat(32), height: 6 };
  assert.deepEqual(await relay.haveTxs([d, b]), [false, true], 'a second chance at a new tip');
});
