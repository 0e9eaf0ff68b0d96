import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startDaemon, removeDir, type Daemon, rpcError } from '../helpers/daemon.js';
import { base58check } from '../helpers/base58.js';

/** notaries, getiguanajson and getnotarysendmany over HTTP: komodod's tables by season and era. */

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest();
/** The address of a hex pubkey under a version byte (komodod's EncodeDestination of its key id). */
function address(version: number, pubkeyHex: string): string {
  return base58check(Buffer.concat([Buffer.of(version), createHash('ripemd160').update(sha256(Buffer.from(pubkeyHex, 'hex'))).digest()]));
}

/** From komodod's sources: season 1's and season 9's first notaries, the first LABS era's first notary. */
const S1_FIRST = '03b7621b44118017a16043f19b30cc8a4cfe068ac4e42417bae16ba460c80f3828';
const S9_FIRST = '028548847b3bbccff37c9b47bc4154183304902773d514b792ec2adc91e600e3b9';
const STAKED0_FIRST = '035fc678bf796ad52f69e1f5759be54ec671c559a22adf27eed067e0ddf1531574';

type Notaries = { notaries: { pubkey: string; BTCaddress: string; KMDaddress: string }[]; numnotaries: number; height: number; timestamp: number };

test('notaries by height and time, getiguanajson and getnotarysendmany on the dev chain', { timeout: 120_000 }, async (t) => {
  let d: Daemon | undefined;
  t.after(async () => {
    await d?.stop();
    if (d) removeDir(d.datadir);
  });
  d = await startDaemon();
  await d.rpc('generate', 1);
  const block1 = await d.rpc<{ time: number }>('getblock', await d.rpc<string>('getblockhash', 1));

  // Height 1 without a time: block 1's time, today's season (9).
  const n = await d.rpc<Notaries>('notaries', '1');
  assert.deepEqual(Object.keys(n), ['notaries', 'numnotaries', 'height', 'timestamp']);
  assert.equal(n.numnotaries, 64);
  assert.equal(n.notaries.length, 64);
  assert.deepEqual(n.notaries[0], { pubkey: S9_FIRST, BTCaddress: address(0, S9_FIRST), KMDaddress: address(60, S9_FIRST) });
  assert.deepEqual(Object.keys(n.notaries[0]!), ['pubkey', 'BTCaddress', 'KMDaddress']);
  assert.equal(n.height, 1);
  assert.equal(n.timestamp, block1.time);
  // An explicit time picks the season; a height past the tip keeps the given (or current) time.
  const s1 = await d.rpc<Notaries>('notaries', '5', '1525132800');
  assert.equal(s1.notaries[0]!.pubkey, S1_FIRST);
  assert.deepEqual([s1.height, s1.timestamp, s1.numnotaries], [5, 1525132800, 64]);
  // Past the last season: the 35 genesis notaries.
  const late = await d.rpc<Notaries>('notaries', '0', '1951328001');
  assert.equal(late.numnotaries, 35);
  // A negative height is the tip, with its time; atoi reads "1abc" as 1.
  const tip = await d.rpc<Notaries>('notaries', '-1', '5');
  assert.deepEqual([tip.height, tip.timestamp], [1, block1.time]);
  assert.equal((await d.rpc<Notaries>('notaries', '1abc')).height, 1);
  assert.deepEqual(await rpcError(d.rpc('notaries', 1)), { code: -1, message: 'JSON value is not a string as expected' });
  assert.deepEqual(await rpcError(d.rpc('notaries')), { code: -1, message: 'notaries height timestamp\n' });

  // getiguanajson: the staked era of the wall clock (past the last era: era index 0, 22 notaries).
  const ig = await d.rpc<Record<string, unknown>>('getiguanajson');
  assert.deepEqual(Object.keys(ig), ['port', 'BTCminsigs', 'minsigs', 'seeds', 'notaries']);
  assert.deepEqual([ig.port, ig.BTCminsigs, ig.minsigs], [9333, 13, 7]);
  assert.equal((ig.seeds as string[]).length, 8);
  assert.equal((ig.seeds as string[])[0], '94.23.1.95');
  const igNotaries = ig.notaries as Record<string, string>[];
  assert.equal(igNotaries.length, 22);
  assert.deepEqual(igNotaries[0], { blackjok3r: STAKED0_FIRST });
  assert.equal((await rpcError(d.rpc('getiguanajson', 1))).message, 'getiguanajson\nreturns json for iguana, for the current ERA.');

  // getnotarysendmany: the same notaries' R-addresses, each with the amount (0 by default).
  const many = await d.rpc<Record<string, number>>('getnotarysendmany', 10);
  assert.equal(Object.keys(many).length, 22);
  assert.equal(Object.keys(many)[0], address(60, STAKED0_FIRST));
  assert.deepEqual(Object.values(many), new Array(22).fill(10));
  assert.deepEqual(Object.values(await d.rpc<Record<string, number>>('getnotarysendmany')), new Array(22).fill(0));
  assert.deepEqual(await rpcError(d.rpc('getnotarysendmany', '10')), { code: -1, message: 'JSON value is not an integer as expected' });
});

test('notaries on a TEST-family (staked) chain: the era of the time, 64 zero keys inside a gap', { timeout: 120_000 }, async (t) => {
  let m: Daemon | undefined;
  t.after(async () => {
    await m?.stop();
    if (m) removeDir(m.datadir);
  });
  m = await startDaemon(['-ac_name=TESTUTILN', '-ac_supply=1000', '-gen=0']);
  const era1 = await m.rpc<Notaries>('notaries', '1', '1572523200');
  assert.equal(era1.numnotaries, 22);
  assert.equal(era1.notaries[0]!.pubkey, STAKED0_FIRST);
  const gap = await m.rpc<Notaries>('notaries', '1', '1704244445');
  assert.equal(gap.numnotaries, 64);
  assert.deepEqual(gap.notaries[0], { pubkey: '00'.repeat(33), BTCaddress: address(0, '00'.repeat(33)), KMDaddress: address(60, '00'.repeat(33)) });
});

test('minerids: the season\'s notaries tallied over komodod\'s 2000-block window', { timeout: 120_000 }, async (t) => {
  let d: Daemon | undefined;
  t.after(async () => {
    await d?.stop();
    if (d) removeDir(d.datadir);
  });
  // The coinbases pay season 1's first notary.
  d = await startDaemon(['-gen=0', `-pubkey=${S1_FIRST}`]);
  await d.rpc('generate', 12);
  // Below 1000 the window holds only negative heights: komodod finds no block.
  assert.deepEqual(await d.rpc('minerids', '1'), { error: 'couldnt extract minerids' });
  assert.deepEqual(await d.rpc('minerids', '0'), { error: 'couldnt extract minerids' });
  // At 1010 the window (heights i - 989 for i < 1010) covers 0..12 here. The height has no block, so its
  // time is 0: season 1's notaries.
  const r = await d.rpc<{ mined: Record<string, unknown>[]; numnotaries: number }>('minerids', '1010');
  assert.deepEqual(Object.keys(r), ['mined', 'numnotaries']);
  assert.equal(r.numnotaries, 64);
  assert.equal(r.mined.length, 65);
  assert.deepEqual(r.mined[0], { notaryid: 0, KMDaddress: address(60, S1_FIRST), pubkey: S1_FIRST, blocks: 12 });
  assert.deepEqual(r.mined[1]!.blocks, 0);
  // The genesis coinbase pays no notary.
  assert.deepEqual(r.mined[64], { pubkey: 'external miners', blocks: 1 });
  assert.deepEqual(await rpcError(d.rpc('minerids')), { code: -1, message: 'minerids needs height\n' });
  assert.deepEqual(await rpcError(d.rpc('minerids', 5)), { code: -1, message: 'JSON value is not a string as expected' });
});

test('geterablockheights: the first block of each staked era, block times set with setmocktime', { timeout: 120_000 }, async (t) => {
  let d: Daemon | undefined;
  t.after(async () => {
    await d?.stop();
    if (d) removeDir(d.datadir);
  });
  d = await startDaemon();
  // Block 1 before the first era's end (era 1), block 2 inside the second era (2), then today's blocks
  // (past the last era: getera 0, era 1 again, not above the last one recorded).
  await d.rpc('setmocktime', 1500000000);
  await d.rpc('generate', 1);
  // komodod reads heights 1 .. tip-1: nothing yet.
  assert.deepEqual(await d.rpc('geterablockheights'), {});
  await d.rpc('setmocktime', 1600000000);
  await d.rpc('generate', 1);
  await d.rpc('setmocktime', 0);
  await d.rpc('generate', 2);
  const eras = await d.rpc<Record<string, number>>('geterablockheights');
  assert.deepEqual(Object.keys(eras), ['1', '2']);
  assert.deepEqual(eras, { '1': 1, '2': 2 });
  assert.equal((await rpcError(d.rpc('geterablockheights', 1))).message, 'geterablockheights\nReturns a JSON object with the first block in each era.\n');
});
