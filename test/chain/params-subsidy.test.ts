import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChainParams, KOMODO_MAXNVALUE } from '../../src/chain/params/index.js';

// Expected numbers below are worked out by hand from komodod's komodo_ac_block_subsidy and
// komodo_current_supply (src/komodo_utils.cpp at 0adeeab, lines cited per case), with the magics
// taken from the reference sheets (not from our own derivation).

const COIN = 100_000_000n;

function chain(line: string, regtest = false): ChainParams {
  const m = new Map<string, string[]>();
  for (const tok of line.split(/\s+/).filter(Boolean)) {
    const eq = tok.indexOf('=');
    const k = (eq < 0 ? tok : tok.slice(0, eq)).replace(/^--?/, '');
    m.set(k, [...(m.get(k) ?? []), eq < 0 ? '' : tok.slice(eq + 1)]);
  }
  return ChainParams.fromArgs(m, { regtest });
}

test('default chain: 0.0001 per block, premine = supply + magic & 0xffffff', () => {
  const p = chain('-ac_name=TESTAC'); // magic 0xb03a76ca (p2p-blocks.md §1.3)
  // :826-827 no ac_reward and no ac_end -> 10000 sat.
  assert.equal(p.blockSubsidy(2), 10000n);
  assert.equal(p.blockSubsidy(1_000_000), 10000n);
  // :902-908 height 1, one era: ASSETCHAINS_SUPPLY * SATOSHIDEN + (magic & 0xffffff).
  assert.equal(p.premine, 10n * COIN + (0xb03a76can & 0xffffffn));
  assert.equal(p.blockSubsidy(1), p.premine);
  // :668-672 MAX_MONEY = (supply+1)*COIN + (magic & 0xffffff) + GENESISTXVAL(50 COIN) + 1e7 * 10000.
  assert.equal(p.maxMoney, 11n * COIN + (0xb03a76can & 0xffffffn) + 50n * COIN + 10_000_000n * 10000n);
});

test('TONYCI: premine 1e18 + 15801057, then ac_reward; MAX_MONEY with a flat reward', () => {
  const p = chain('-ac_name=TONYCI -ac_supply=10000000000 -ac_reward=100000000000 -ac_cc=2'); // magic 0x3cf11ae1
  // p2p-blocks.md §4.2: "Example TONYCI: 1e18 + 15 801 057 sats" (supply is not > 10 billion, :902).
  assert.equal(p.premine, 1_000_000_000_000_000_000n + 15_801_057n);
  assert.equal(p.blockSubsidy(2), 100_000_000_000n);
  // :690-694 no halving: cur_money += reward * (nHeight - 1).
  assert.equal(
    p.maxMoney,
    (10_000_000_000n + 1n) * COIN + 15_801_057n + 50n * COIN + 100_000_000_000n * (10_000_000n - 1n),
  );
});

test('DOC/RICK-style: supply over 10 billion spreads 1e9 coins over the first blocks; ac_staked takes the whole magic', () => {
  const p = chain('-ac_name=DOC -ac_supply=90000000000 -ac_reward=100000000 -ac_cc=3 -ac_staked=10'); // magic 1450148915
  // :893-901: blocks 1..90 get +1e9 COIN; block 1 also gets (supply % 1e9) COIN + magicExtra,
  // magicExtra = ASSETCHAINS_MAGIC when staked (:892). The era reward stays (it is not replaced).
  assert.equal(p.blockSubsidy(1), 100_000_000n + 1_000_000_000n * COIN + 1_450_148_915n);
  assert.equal(p.blockSubsidy(2), 100_000_000n + 1_000_000_000n * COIN);
  assert.equal(p.blockSubsidy(90), 100_000_000n + 1_000_000_000n * COIN);
  assert.equal(p.blockSubsidy(91), 100_000_000n);
  // current_supply uses magic & 0xffffff even on staked chains (:668).
  assert.equal(
    p.currentSupply(100),
    (90_000_000_000n + 1n) * COIN + BigInt(1_450_148_915 & 0xffffff) + 50n * COIN + 100_000_000n * 99n,
  );
});

test('PIRATE: halving 77777 becomes 388885 for rewards, after MAX_MONEY was computed', () => {
  const p = chain('-ac_name=PIRATE -ac_supply=0 -ac_reward=25600000000 -ac_halving=77777 -ac_private=1'); // magic 397860952
  // :902-908: supply 0, one era -> block 1 pays magic & 0xffffff only.
  assert.equal(p.premine, BigInt(397860952 & 0xffffff));
  // komodo_utils.cpp:1625-1629 multiplies ASSETCHAINS_HALVING[0] by 5; :842-846 then halves per period.
  assert.equal(p.blockSubsidy(388_884), 25_600_000_000n);
  assert.equal(p.blockSubsidy(388_885), 12_800_000_000n);
  assert.equal(p.blockSubsidy(388_885 * 3), 3_200_000_000n);
  // MAX_MONEY was computed with period 77777 (:1497 runs before :1625): halving loop :787-793.
  let expected = (0n + 1n) * COIN + BigInt(397860952 & 0xffffff) + 50n * COIN;
  let reward = 25_600_000_000n;
  let k = 0n;
  for (; k < 10_000_000n; k += 77777n) {
    expected += 77777n * reward;
    reward >>= 1n;
  }
  expected += (10_000_000n % 77777n) * reward;
  assert.equal(p.maxMoney, expected);
});

test('halving with ac_decay: reward * decay / 1e8 per period', () => {
  const p = chain('-ac_name=DECAYX -ac_reward=100000000 -ac_halving=10 -ac_decay=50000000');
  // :866-873: numhalvings = 25/10 = 2 -> 1e8 * 0.5 * 0.5.
  assert.equal(p.blockSubsidy(9), 100_000_000n);
  assert.equal(p.blockSubsidy(25), 25_000_000n);
  // Same answers whatever order heights are asked in (the per-era result is resumed from).
  assert.equal(p.blockSubsidy(45), 6_250_000n);
  assert.equal(p.blockSubsidy(25), 25_000_000n);
  assert.equal(p.blockSubsidy(45), 6_250_000n);
  assert.equal(p.blockSubsidy(1000), 0n); // 1e8 >> 100 halvings with truncation reaches 0
});

test('linear decay (ac_decay=100000000 with ac_end)', () => {
  const p = chain('-ac_name=LINEARX -ac_reward=1000 -ac_end=100 -ac_halving=10 -ac_decay=100000000');
  // :847-864, last era: subsidyDifference = 1000; denominator = 100 - 0;
  // numerator = 100 - ((100 - 35) + (35 % 10)) = 30; subsidy = 1000 - 1000*30/100 = 700.
  assert.equal(p.blockSubsidy(35), 700n);
  // Past ac_end the era loop runs off the last era (:831-835): no reward.
  assert.equal(p.blockSubsidy(100), 0n);
});

test('eras: premine added to the era reward, era switch at ac_end', () => {
  const p = chain(
    '-ac_name=ERA7 -ac_supply=7777777 -ac_reward=700000000,600000000,500000000,400000000,300000000,200000000,0 -ac_staked=100 -ac_eras=7 -ac_end=1000000,2000000,3000000,4000000,5000000,6000000,0 -ac_cc=2 -ac_ccenable=229,236,240 -ac_cbmaturity=1 -ac_sapling=1',
  ); // magic -1314352964 (test_parse_args.cpp:172)
  // :906-907 more than one era: subsidy += supply*COIN + magicExtra (full magic, staked).
  assert.equal(p.blockSubsidy(1), 700_000_000n + 7_777_777n * COIN + BigInt(-1314352964 >>> 0));
  assert.equal(p.blockSubsidy(999_999), 700_000_000n);
  // :831-835: first era whose end is > height.
  assert.equal(p.blockSubsidy(1_000_000), 600_000_000n);
  assert.equal(p.blockSubsidy(5_999_999), 200_000_000n);
  assert.equal(p.blockSubsidy(6_000_000), 0n);
});

test('LABS-prefixed chains pay no reward after block 1', () => {
  const p = chain('-ac_name=LABSX -ac_reward=100000000');
  // :911-912 is_STAKED == 2 -> 0.
  assert.equal(p.blockSubsidy(2), 0n);
  assert.ok(p.blockSubsidy(1) > 0n);
});

test('MAX_MONEY: ac_cc >= 100 raises it to 1e6 coins; ac_perc adds the commission', () => {
  // :1504-1505.
  assert.equal(chain('-ac_name=FUNGX -ac_cc=100').maxMoney, 1_000_000n * COIN);
  assert.ok(chain('-ac_name=FUNGX -ac_cc=99').maxMoney < 1_000_000n * COIN);
  // :802-809: cur + cur/COIN * commission (ac_perc needs ac_pubkey to survive, :1298-1345).
  const pk = '02df9bda7bfe2bcaa938b29a399fb0ba58cfb6cc3ddc0001062a600f60a8237ad9';
  const plain = chain(`-ac_name=PERCX -ac_reward=100000000 -ac_pubkey=${pk}`);
  const perc = chain(`-ac_name=PERCX -ac_reward=100000000 -ac_pubkey=${pk} -ac_perc=1000000`);
  const base = (10n + 1n) * COIN + BigInt(perc.magic & 0xffffff) + 50n * COIN + 100_000_000n * (10_000_000n - 1n);
  assert.equal(perc.maxMoney, base + (base / COIN) * 1_000_000n);
  assert.equal(plain.maxMoney, (10n + 1n) * COIN + BigInt(plain.magic & 0xffffff) + 50n * COIN + 100_000_000n * (10_000_000n - 1n));
  assert.ok(KOMODO_MAXNVALUE === (1n << 63n) - 1n);
});

test('coinbase maturity: 1 by default, 100 with eras > 1, -ac_cbmaturity wins, STAKED names 1', () => {
  // komodo_utils.cpp:1540-1548, chainparams.h:254, regtest chainparams.cpp:478.
  assert.equal(chain('-ac_name=MATX').coinbaseMaturity, 1);
  assert.equal(chain('-ac_name=MATX -ac_eras=2 -ac_reward=1,2 -ac_end=10,0').coinbaseMaturity, 100);
  assert.equal(chain('-ac_name=MATX -ac_eras=2 -ac_reward=1,2 -ac_end=10,0', true).coinbaseMaturity, 1);
  assert.equal(chain('-ac_name=MATX -ac_cbmaturity=7').coinbaseMaturity, 7);
  assert.equal(chain('-ac_name=TESTMAT -ac_eras=2 -ac_reward=1,2 -ac_end=10,0').coinbaseMaturity, 1);
  const p = chain('-ac_name=MATX -ac_cbmaturity=3');
  // main.cpp:2743: rejected when spendHeight - coinHeight < maturity.
  assert.equal(p.coinbaseSpendable(10, 12), false);
  assert.equal(p.coinbaseSpendable(10, 13), true);
  assert.equal(chain('-ac_name=MATX').coinbaseSpendable(1, 2), true);
});
