import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ChainParams,
  ParamsError,
  devChainParams,
  saplingAutoActivation,
  KOMODO_SAPLING_ACTIVATION,
} from '../../src/chain/params/index.js';
import { toHex } from '../../src/chain/encoding/hex.js';

function args(line: string): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const tok of line.split(/\s+/).filter(Boolean)) {
    const eq = tok.indexOf('=');
    const k = (eq < 0 ? tok : tok.slice(0, eq)).replace(/^--?/, '');
    m.set(k, [...(m.get(k) ?? []), eq < 0 ? '' : tok.slice(eq + 1)]);
  }
  return m;
}
const chain = (line: string, regtest = false): ChainParams => ChainParams.fromArgs(args(line), { regtest });

// Branch ids and version group ids: reference/rawtx.md §6.1.
const SAPLING = 0x76b809bb;
const OVERWINTER = 0x5ba81b19;
const KMD_GENESIS_TIME = 1231006505; // p2p-blocks.md §4.1

test('without -ac_sapling: v1 transactions and Sprout branch id until activation', () => {
  const p = chain('-ac_name=ACT');
  assert.deepEqual(p.activation, { overwinter: -1, sapling: -1 });
  assert.equal(p.currentEpochBranchId(100), 0);
  assert.deepEqual(p.txFormat(100), { overwintered: false, version: 1, versionGroupId: 0, expiryHeight: 0 });
  // MAX_BLOCK_SIZE (chainparams.cpp:630-639): 4194304 at h <= 0, 2000000 before Sapling.
  assert.equal(p.maxBlockSize(0), 4_194_304);
  assert.equal(p.maxBlockSize(1), 2_000_000);
  assert.equal(p.maxTxSize(1), 100_000);
});

test('-ac_sapling=1: v4 with expiry height + 200 from block 1 (rawtx.md §2.1 worked example)', () => {
  const p = chain('-ac_name=ACT -ac_sapling=1');
  assert.deepEqual(p.activation, { overwinter: 1, sapling: 1 });
  assert.equal(p.currentEpochBranchId(0), 0);
  assert.equal(p.currentEpochBranchId(1), SAPLING);
  // "v4, next height 100 -> expiry 300"; the example's header 0400008085202f89.
  assert.deepEqual(p.txFormat(100), { overwintered: true, version: 4, versionGroupId: 0x892f2085, expiryHeight: 300 });
  assert.deepEqual(p.txFormat(100, 20), { overwintered: true, version: 4, versionGroupId: 0x892f2085, expiryHeight: 120 });
  assert.equal(p.maxBlockSize(1), 4_194_304);
  assert.equal(p.maxTxSize(1), 200_000);
  // The magic does not change with ac_sapling (p2p-blocks.md §0 item 8).
  assert.equal(p.magic, chain('-ac_name=ACT').magic);
});

test('Overwinter before Sapling: v3, expiry capped at saplingHeight - 1', () => {
  const p = chain('-ac_name=ACT -ac_sapling=10 -ac_overwinter=5');
  assert.equal(p.currentEpochBranchId(4), 0);
  assert.equal(p.currentEpochBranchId(5), OVERWINTER);
  assert.equal(p.currentEpochBranchId(10), SAPLING);
  // main.cpp:8690-8694: min(next + expiryDelta, sapling - 1).
  assert.deepEqual(p.txFormat(7), { overwintered: true, version: 3, versionGroupId: 0x03c48270, expiryHeight: 9 });
  assert.equal(p.txFormat(10).version, 4);
});

test('automatic Sapling activation at 61, decided when the tip reaches 31', () => {
  // rawtx.md §6.3: blocks after 2018-12-15 on a 2009 genesis -> block 1 + 60.
  const now = 1_700_000_000;
  const time = (h: number): number => (h === 0 ? KMD_GENESIS_TIME : now + h * 60);
  assert.equal(saplingAutoActivation(29, time), 0);
  assert.equal(saplingAutoActivation(30, time), 0); // walk-back lands on genesis
  assert.equal(saplingAutoActivation(31, time), 61);
  assert.equal(saplingAutoActivation(500, time), 61);
  // A chain whose early blocks predate the date activates 60 after the first later block.
  const old = (h: number): number => (h <= 40 ? KOMODO_SAPLING_ACTIVATION - 1000 + h : now + h);
  assert.equal(saplingAutoActivation(70, old), 0); // block 40 is before the date
  assert.equal(saplingAutoActivation(71, old), 41 + 60);

  const p = chain('-ac_name=ACT');
  assert.equal(p.afterTip(30, time(30), time), p);
  const q = p.afterTip(31, time(31), time);
  assert.deepEqual(q.activation, { overwinter: 61, sapling: 61 });
  assert.equal(q.txFormat(60).version, 1);
  assert.equal(q.txFormat(61).version, 4);
  assert.equal(q.currentEpochBranchId(61), SAPLING);
  assert.equal(q.maxBlockSize(60), 2_000_000);
  assert.equal(q.maxBlockSize(61), 4_194_304);
  assert.equal(q.magic, p.magic);
  // Once set (ASSETCHAINS_SAPLING > 0) nothing changes any more.
  assert.equal(q.afterTip(200, time(200), time), q);
  // -ac_sapling=1 never runs the auto path.
  const s = chain('-ac_name=ACT -ac_sapling=1');
  assert.equal(s.afterTip(31, time(31), time), s);
});

test('Equihash parameters, block time and future-time limit', () => {
  const p = chain('-ac_name=ACT');
  assert.deepEqual(p.equihash, { n: 200, k: 9, personalization: 'ZcashPoW' });
  assert.equal(p.checkEquihash, true);
  assert.equal(p.powTargetSpacing, 60);
  assert.equal(p.maxFutureBlockTime, 420);
  const nk = chain('-ac_name=ACT -ac_nk=96,5 -ac_blocktime=30');
  assert.deepEqual(nk.equihash, { n: 96, k: 5, personalization: 'NandKPoW' });
  assert.equal(nk.powTargetSpacing, 30);
  assert.equal(nk.maxFutureBlockTime, 210);
  // Regtest: (48,5), not checked; 150 s spacing unless ac_blocktime is set (chainparams.cpp:458, 965-969).
  const r = chain('-ac_name=ACT', true);
  assert.deepEqual(r.equihash, { n: 48, k: 5, personalization: 'ZcashPoW' });
  assert.equal(r.checkEquihash, false);
  assert.equal(r.powTargetSpacing, 150);
  assert.equal(chain('-ac_name=ACT -ac_blocktime=5', true).powTargetSpacing, 5);
  // With -ac_name the magic is the AC's on regtest too (p2p-blocks.md §1.3).
  assert.equal(r.magic, p.magic);
});

test('ac_cc: enabled codes, forcing to 2 by ac_ccactivate, per-chain overrides', () => {
  const off = chain('-ac_name=CCX');
  assert.equal(off.ccEnabled, false);
  assert.equal(off.indexesByDefault, false);
  const on = chain('-ac_name=CCX -ac_cc=2');
  assert.equal(on.ccEnabled, true);
  assert.equal(on.indexesByDefault, true);
  assert.equal(on.evalCodeEnabled(0xf2, 10), true);
  assert.equal(on.enabledEvalCodes.length, 256);
  // komodo_utils.cpp:1571-1582 forces ac_cc to 2 after the magic is computed.
  const act = chain('-ac_name=CCX -ac_cc=1 -ac_reward=5 -ac_ccactivate=100');
  assert.equal(act.ac.cc, 1);
  assert.equal(act.cc, 2);
  assert.equal(act.magic, chain('-ac_name=CCX -ac_cc=1 -ac_reward=5').magic);
  assert.notEqual(act.magic, chain('-ac_name=CCX -ac_cc=2 -ac_reward=5').magic);
  assert.equal(act.ccActiveAt(99), false);
  assert.equal(act.ccActiveAt(100), true);
  assert.equal(chain('-ac_name=CCX -ac_ccactivateht=242,50').cc, 2);
  // -ac_ccenable: only the listed codes (eval.cpp:82-91), -ac_ccactivateht opens a disabled one later.
  const en = chain('-ac_name=CCX -ac_cc=2 -ac_ccenable=242,227 -ac_ccactivateht=228,50');
  assert.deepEqual(en.enabledEvalCodes, [227, 242]);
  assert.equal(en.evalCodeEnabled(0xf2, 1), true);
  assert.equal(en.evalCodeEnabled(0xe6, 1000), false);
  assert.equal(en.evalCodeEnabled(228, 49), false);
  assert.equal(en.evalCodeEnabled(228, 50), true);
  // A repeated code shortens the list komodod enables (komodo_utils.cpp:1221-1243).
  assert.deepEqual(chain('-ac_name=CCX -ac_cc=2 -ac_ccenable=229,229,236').ac.ccEnable, [229, 229]);
  // CCL: komodod enables only Tokens and Heir whatever the flags say (komodo_utils.cpp:1652-1658).
  assert.deepEqual(chain('-ac_name=CCL -ac_supply=200000000 -ac_end=1 -ac_cc=2').enabledEvalCodes, [0xea, 0xf2]);
});

test('the dev chain of design.md', () => {
  const p = devChainParams();
  assert.equal(p.name, 'ACDEV');
  assert.equal(p.regtest, true);
  assert.equal(p.ac.supply, 10_000_000n);
  assert.equal(p.premine, 10_000_000n * 100_000_000n + BigInt(p.magic & 0xffffff));
  assert.equal(p.blockSubsidy(2), 100_000_000n);
  assert.equal(p.isSaplingActive(1), true);
  assert.equal(p.powTargetSpacing, 5);
  assert.equal(p.maxFutureBlockTime, 35);
  assert.equal(p.coinbaseMaturity, 1);
  assert.equal(p.ccEnabled, true);
  assert.equal(p.checkEquihash, false);
  assert.equal(p.rpcPort, p.p2pPort + 1);
  assert.equal(toHex(p.messageStart).length, 8);
  assert.equal(devChainParams({ port: 12345 }).p2pPort, 12345);
});

test('invalid values are ParamsError naming the flag', () => {
  const bad: [string, string][] = [
    ['-ac_name=KMD', 'ac_name'],
    [`-ac_name=${'A'.repeat(65)}`, 'ac_name'],
    ['-ac_name=a/b', 'ac_name'],
    ['-ac_name=X -ac_supply=90000000001', 'ac_supply'],
    ['-ac_name=X -ac_supply=-5', 'ac_supply'],
    ['-ac_name=X -ac_supply=abc', 'ac_supply'],
    ['-ac_name=X -ac_supply', 'ac_supply'],
    ['-ac_name=X -ac_eras=8', 'ac_eras'],
    ['-ac_name=X -ac_eras=0', 'ac_eras'],
    ['-ac_name=X -ac_reward=1,2,3,4,5,6,7,8,9', 'ac_reward'],
    ['-ac_name=X -ac_reward=1,,2', 'ac_reward'],
    ['-ac_name=X -ac_reward=1,x', 'ac_reward'],
    ['-ac_name=X -ac_nk=100,4', 'ac_nk'],
    ['-ac_name=X -ac_private=1', 'ac_private'],
    ['-ac_name=X -ac_perc=10 -ac_founders_reward=5', 'ac_perc'],
    ['-ac_name=X -ac_algo=verushash', 'ac_algo'],
    ['-ac_name=X -ac_decay=100000001', 'ac_decay'],
    ['-ac_name=X -ac_decay=100000000', 'ac_decay'],
    ['-ac_name=X -ac_pubkey=02abc', 'ac_pubkey'],
    ['-ac_name=X -ac_script=zz', 'ac_script'],
    ['-ac_name=X -ac_cc=2 -ac_ccenable=300', 'ac_ccenable'],
    ['-ac_name=X -ac_ccactivateht=242', 'ac_ccactivateht'],
    ['-ac_name=X -ac_blocktime=0', 'ac_blocktime'],
    ['-ac_name=X -ac_beam=1', 'ac_beam'],
    ['-ac_name=X -ac_import=GATEWAY', 'ac_import'],
  ];
  for (const [line, flag] of bad) {
    assert.throws(() => chain(line), (e: unknown) => e instanceof ParamsError && e.flag === flag && e.message.length > 0, line);
  }
  // Lists pad by repeating the last value; ac_staked caps at 100 (komodo_utils.cpp:1285-1286).
  const p = chain('-ac_name=X -ac_reward=5,6 -ac_staked=500');
  assert.deepEqual(p.ac.reward, [5n, 6n, 6n, 6n, 6n, 6n, 6n, 6n]);
  assert.equal(p.ac.staked, 100);
  // ac_perc without ac_pubkey/ac_script is dropped with komodod's message, not fatal.
  const w = chain('-ac_name=X -ac_perc=10');
  assert.equal(w.ac.commission, 0n);
  assert.equal(w.ac.warnings.length, 1);
  // Gateway import with the settings komodod requires is accepted.
  assert.equal(chain('-ac_name=X -ac_import=GATEWAY -ac_end=1 -ac_supply=0').ac.import, 'GATEWAY');
});
