import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GENESIS_NOTARIES, NOTARIES_ELECTED, NOTARIES_STAKED } from '../../src/chain/notaries/tables.js';
import { getAcSeason, getEra, komodoNotaries, stakedEra } from '../../src/chain/notaries/seasons.js';

test('notary tables: komodod\'s sizes (9 seasons of 64, staked eras of 22/24/1/1, 35 genesis) and valid compressed keys', () => {
  assert.deepEqual(NOTARIES_ELECTED.map((s) => s.length), [64, 64, 64, 64, 64, 64, 64, 64, 64]);
  assert.deepEqual(NOTARIES_STAKED.map((s) => s.length), [22, 24, 1, 1]);
  assert.equal(GENESIS_NOTARIES.length, 35);
  for (const [name, pk] of [...NOTARIES_ELECTED.flat(), ...NOTARIES_STAKED.flat(), ...GENESIS_NOTARIES]) {
    assert.match(pk, /^0[23][0-9a-f]{64}$/, name);
  }
  // First and last entries as komodod's sources list them.
  assert.deepEqual(NOTARIES_ELECTED[0]![0], ['0_jl777_testA', '03b7621b44118017a16043f19b30cc8a4cfe068ac4e42417bae16ba460c80f3828']);
  assert.deepEqual(NOTARIES_ELECTED[8]![63], ['dragonhound_DEV', '02f9a7b49282885cd03969f1f5478287497bc8edfceee9eac676053c107c5fcdaf']);
  assert.deepEqual(NOTARIES_STAKED[0]![0], ['blackjok3r', '035fc678bf796ad52f69e1f5759be54ec671c559a22adf27eed067e0ddf1531574']);
});

test('getacseason, STAKED_era and getera at their boundaries', () => {
  assert.equal(getAcSeason(0), 1);
  assert.equal(getAcSeason(1525132800), 1);
  assert.equal(getAcSeason(1525132801), 2);
  assert.equal(getAcSeason(1728049053), 8);
  assert.equal(getAcSeason(1728049054), 9);
  assert.equal(getAcSeason(1951328000), 9);
  assert.equal(getAcSeason(1951328001), 0);
  assert.equal(stakedEra(1572523200), 1);
  assert.equal(stakedEra(1572523201), 0); // inside the 777-second gap
  assert.equal(stakedEra(1572523200 + 777), 2);
  assert.equal(stakedEra(1704244445), 0);
  assert.equal(getEra(1572523200), 0);
  assert.equal(getEra(1572523201), 1);
  assert.equal(getEra(1704244445), 0);
});

test('komodo_notaries: season by time, genesis past the last season, LABS eras and gaps, time 0 from the height', () => {
  const s1 = komodoNotaries('X', 1525132800, 0);
  assert.equal(s1.length, 64);
  assert.equal(s1[1], NOTARIES_ELECTED[0]![1]![1]);
  assert.deepEqual(komodoNotaries('X', 1951328001, 0), GENESIS_NOTARIES.map(([, pk]) => pk));
  assert.deepEqual(komodoNotaries('X', 0, 1728049054), NOTARIES_ELECTED[8]!.map(([, pk]) => pk));
  assert.deepEqual(komodoNotaries('LABSX', 1572523200, 0), NOTARIES_STAKED[0]!.map(([, pk]) => pk));
  assert.deepEqual(komodoNotaries('TESTX', 1704244445, 0), new Array(64).fill('00'.repeat(33)));
  assert.deepEqual(komodoNotaries('TESTX', 0, 0), GENESIS_NOTARIES.map(([, pk]) => pk));
});
