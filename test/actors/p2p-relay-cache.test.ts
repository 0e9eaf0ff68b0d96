import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { P2PLogic } from '../../src/actors/p2p/logic.js';
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
  const cache = (logic as unknown as { relay: { relayCache: Map<string, unknown> } }).relay.relayCache;
  const housekeeping = () => (logic as unknown as { housekeeping(): void }).housekeeping();
  const accept = (txid: string) => logic.writeNow({ op: 'txsAccepted', items: [{ txid, raw: new Uint8Array([1]) }] });
  const a = 'aa'.repeat(32);
  const b = 'bb'.repeat(32);

  accept(a);
  now += 5 * MIN;
  accept(b);
  now += 11 * MIN; // a is 16 minutes old, b 11
  housekeeping();
  assert.deepEqual([...cache.keys()], [b]);

  // Accepted again while still cached (relayed back by a peer): its 15 minutes start again, behind b's.
  accept(a);
  now += 1 * MIN;
  accept(b);
  assert.deepEqual([...cache.keys()], [a, b]);
  now += 1 * MIN;
  accept(a);
  assert.deepEqual([...cache.keys()], [b, a]);
  now += 14 * MIN + 1; // b is 15 minutes and a bit old, a 14
  housekeeping();
  assert.deepEqual([...cache.keys()], [a]);
  now += 1 * MIN;
  housekeeping();
  assert.equal(cache.size, 0);
});
