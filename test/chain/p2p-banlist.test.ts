import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BanList, DEFAULT_MISBEHAVING_BANTIME, isLocalIp, ipToString } from '../../src/actors/p2p/banlist.js';
import { ipBytes } from '../../src/chain/p2p/messages.js';

/** komodod's setBanned (net.cpp:469-541) and CSubNet::ToString (netbase.cpp:1423-1435). */

function clock(start: number) {
  const c = { t: start, now: () => c.t };
  return c;
}

test('ban list: default 24 h, explicit offset, absolute time, longer ban wins, expiry', () => {
  const c = clock(1_700_000_000);
  const bans = new BanList(c.now);
  const ip = ipBytes('10.1.2.3');
  bans.ban(BanList.parse('10.1.2.3')!);
  assert.deepEqual(bans.list(), [{ address: '10.1.2.3/255.255.255.255', banned_until: 1_700_000_000 + DEFAULT_MISBEHAVING_BANTIME }]);
  assert.equal(bans.isBanned(ip), true);
  // A shorter ban does not shorten an existing one (setBanned[subNet] < banTime).
  bans.ban(BanList.parse('10.1.2.3')!, 60);
  assert.equal(bans.list()[0]!.banned_until, 1_700_000_000 + DEFAULT_MISBEHAVING_BANTIME);
  // Absolute: the offset is a unix time.
  bans.ban(BanList.parse('192.168.0.0/24')!, 1_700_000_100, true);
  assert.equal(bans.isBanned(ipBytes('192.168.0.77')), true);
  assert.equal(bans.isBanned(ipBytes('192.168.1.77')), false);
  // Expiry: no longer banned, but komodod (no SweepBanned in this version) still lists the entry.
  c.t = 1_700_000_100;
  assert.equal(bans.isBanned(ipBytes('192.168.0.77')), false);
  assert.equal(bans.isSubnetBanned(BanList.parse('192.168.0.0/24')!), false);
  assert.deepEqual(
    bans.list().map((r) => r.address),
    ['10.1.2.3/255.255.255.255', '192.168.0.0/255.255.255.0'],
  );
  c.t = 1_700_000_000 + DEFAULT_MISBEHAVING_BANTIME;
  assert.equal(bans.isBanned(ip), false);
  // Unban and clear.
  assert.equal(bans.unban(BanList.parse('10.1.2.3')!), true);
  assert.equal(bans.unban(BanList.parse('10.1.2.3')!), false);
  bans.clear();
  assert.deepEqual(bans.list(), []);
});

test('ban list: -bantime sets the default; std::map order; IPv6 text; invalid input', () => {
  const c = clock(1000);
  const bans = new BanList(c.now, 3600);
  bans.ban(BanList.parse('::1')!);
  bans.ban(BanList.parse('9.9.9.9')!);
  bans.ban(BanList.parse('1.2.3.4')!);
  const rows = bans.list();
  // CNetAddr::operator< compares the 16 raw bytes: ::1 (all zeros first) sorts before IPv4-mapped.
  assert.deepEqual(
    rows.map((r) => r.address),
    ['::1/ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '1.2.3.4/255.255.255.255', '9.9.9.9/255.255.255.255'],
  );
  assert.ok(rows.every((r) => r.banned_until === 1000 + 3600));
  assert.equal(BanList.parse('not-an-ip'), null);
  assert.equal(BanList.parse('1.2.3.4/33'), null);
});

test('local addresses (CNetAddr::IsLocal) are 127/8, 0/8 and ::1', () => {
  assert.equal(isLocalIp(ipBytes('127.0.0.1')), true);
  assert.equal(isLocalIp(ipBytes('127.255.0.9')), true);
  assert.equal(isLocalIp(ipBytes('0.0.0.0')), true);
  assert.equal(isLocalIp(ipBytes('::1')), true);
  assert.equal(isLocalIp(ipBytes('10.0.0.1')), false);
  assert.equal(isLocalIp(ipBytes('::2')), false);
  assert.equal(ipToString(ipBytes('fe80::1:2')), 'fe80::1:2');
  assert.equal(ipToString(ipBytes('10.0.0.1')), '10.0.0.1');
});
