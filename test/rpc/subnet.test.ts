import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AllowList, Subnet, parseAddress } from '../../src/chain/p2p/subnet.js';
import { decodeBase64Lenient, BasicAuth } from '../../src/rpc/auth.js';
import { splitHostPort, rpcEndpoints } from '../../src/rpc/server.js';

const ip = (s: string): Uint8Array => {
  const a = parseAddress(s);
  assert.ok(a, s);
  return a;
};

test('allow list: loopback always (127.0.0.0/8, ::1, IPv4-mapped), nothing else by default', () => {
  const a = new AllowList();
  for (const ok of ['127.0.0.1', '127.255.1.2', '::1', '::ffff:127.0.0.1']) assert.ok(a.allows(ok), ok);
  for (const no of ['10.0.0.1', '::2', '::ffff:10.0.0.1', '0.0.0.0', '', undefined, 'garbage']) {
    assert.ok(!a.allows(no), String(no));
  }
});

test('CSubNet forms: single IP, CIDR, netmask, IPv6, brackets; invalid specs refused with komodod text', () => {
  const single = Subnet.parse('1.2.3.4')!;
  assert.ok(single.match(ip('1.2.3.4')) && !single.match(ip('1.2.3.5')));
  const cidr = Subnet.parse('1.2.3.4/24')!;
  assert.ok(cidr.match(ip('1.2.3.200')) && !cidr.match(ip('1.2.4.1')));
  assert.ok(cidr.match(ip('::ffff:1.2.3.9')));
  const mask = Subnet.parse('1.2.3.4/255.255.0.0')!;
  assert.ok(mask.match(ip('1.2.99.1')) && !mask.match(ip('1.3.0.1')));
  const all4 = Subnet.parse('0.0.0.0/0')!;
  assert.ok(all4.match(ip('8.8.8.8')));
  // an IPv4 /0 still needs the ::ffff prefix: it does not match IPv6 peers
  assert.ok(!all4.match(ip('2001:4860::1')));
  const v6 = Subnet.parse('fe80::/10')!;
  assert.ok(v6.match(ip('fe80::1')) && v6.match(ip('febf::1')) && !v6.match(ip('fec0::1')));
  assert.ok(Subnet.parse('[::1]')!.match(ip('::1')));
  assert.ok(Subnet.parse('10.0.0.0/8')!.match(ip('10.20.30.40')));
  // netbase.cpp: the CIDR length must fit the address family; the mask must be an address
  for (const bad of ['1.2.3.4/33', '1.2.3.4/-1', '::1/129', 'abc', '1.2.3.4/xyz', '', '1.2.3.4/ 24', 'example.com']) {
    assert.equal(Subnet.parse(bad), null, bad);
  }
  assert.throws(() => new AllowList(['1.2.3.4/33']), {
    message:
      'Invalid -rpcallowip subnet specification: 1.2.3.4/33. Valid are a single IP (e.g. 1.2.3.4), a network/netmask (e.g. 1.2.3.4/255.255.255.0) or a network/CIDR (e.g. 1.2.3.4/24).',
  });
  // CNetAddr::IsValid: a documentation-prefix peer (2001:db8::/32) is never allowed, even when listed
  assert.ok(!new AllowList(['2001:db8::/32']).allows('2001:db8::1'));
  assert.ok(new AllowList(['192.168.0.0/16']).allows('::ffff:192.168.1.1'));
});

test('DecodeBase64 as komodod: stops at the first non-alphabet character, keeps completed bytes', () => {
  assert.equal(decodeBase64Lenient('dTpw').toString(), 'u:p');
  assert.equal(decodeBase64Lenient('dTpw!!!').toString(), 'u:p');
  assert.equal(decodeBase64Lenient('dTpwYQ==').toString(), 'u:pa');
  assert.equal(decodeBase64Lenient('dTpwYQ').toString(), 'u:pa');
  assert.equal(decodeBase64Lenient('dTp wYQ==').toString(), 'u:');
  assert.equal(decodeBase64Lenient('').length, 0);
  // a long payload: every 4 characters give 3 bytes
  const long = Buffer.from('x'.repeat(300));
  assert.deepEqual(decodeBase64Lenient(long.toString('base64')), long);
});

test('RPCAuthorized: "Basic " case-sensitive, trimmed payload, exact user:password', () => {
  const a = new BasicAuth('user', 'pa:ss');
  const b64 = Buffer.from('user:pa:ss').toString('base64');
  assert.ok(a.check(`Basic ${b64}`));
  assert.ok(a.check(`Basic   ${b64}  `));
  assert.ok(!a.check(`basic ${b64}`));
  assert.ok(!a.check(`Basic${b64}`));
  assert.ok(!a.check(`Bearer ${b64}`));
  assert.ok(!a.check(`Basic ${Buffer.from('user:pa:s').toString('base64')}`));
  assert.ok(!a.check('Basic '));
  assert.throws(() => new BasicAuth('u', ''));
});

test('bind addresses as HTTPBindAddresses; SplitHostPort', () => {
  assert.deepEqual(rpcEndpoints({ port: 7771 }), [{ host: '::1', port: 7771 }, { host: '127.0.0.1', port: 7771 }]);
  const logged: string[] = [];
  assert.deepEqual(rpcEndpoints({ port: 1, rpcBind: ['1.2.3.4'], log: (l) => logged.push(l) }).length, 2);
  assert.match(logged[0]!, /-rpcbind was ignored because -rpcallowip was not specified/);
  assert.deepEqual(rpcEndpoints({ port: 5, allowIps: ['1.2.3.4'] }), [{ host: '::', port: 5 }, { host: '0.0.0.0', port: 5 }]);
  assert.deepEqual(rpcEndpoints({ port: 5, allowIps: ['1.2.3.4'], rpcBind: ['10.0.0.1:99', '[::1]:98', '10.0.0.2'] }), [
    { host: '10.0.0.1', port: 99 },
    { host: '::1', port: 98 },
    { host: '10.0.0.2', port: 5 },
  ]);
  assert.deepEqual(splitHostPort('::1', 7), { host: '::1', port: 7 });
});
