import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChainParams, crc32, extraBytes, parseAcParams, ccDisableBits } from '../../src/chain/params/index.js';
import { toHex } from '../../src/chain/encoding/hex.js';
import { needVectors, loadVector } from '../helpers/vectors.js';

/** "-ac_name=X -ac_supply=5" -> ArgValues, as komodod's ParseParameters splits them. */
function acArgs(line: string): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const tok of line.split(/\s+/).filter(Boolean)) {
    const eq = tok.indexOf('=');
    const k = (eq < 0 ? tok : tok.slice(0, eq)).replace(/^--?/, '');
    m.set(k, [...(m.get(k) ?? []), eq < 0 ? '' : tok.slice(eq + 1)]);
  }
  return m;
}

const le = (u32: number): string => toHex(Uint8Array.of(u32 & 0xff, (u32 >>> 8) & 0xff, (u32 >>> 16) & 0xff, u32 >>> 24));

interface AcVector {
  name: string;
  args: string[];
  p2pport: number;
  rpcport: number;
  magic_int32: number;
  magic_uint32: number;
}

test('ac-params.json: magic, message start, p2p and rpc port of every chain', needVectors, () => {
  const v = loadVector<{ chains: AcVector[] }>('ac-params.json');
  assert.ok(v.chains.length >= 8);
  for (const c of v.chains) {
    const p = ChainParams.fromArgs(acArgs(c.args.join(' ')));
    assert.equal(p.name, c.name);
    assert.equal(p.magic, c.magic_uint32, `${c.name} magic`);
    assert.equal(p.magicInt32, c.magic_int32, `${c.name} magic int32`);
    assert.equal(toHex(p.messageStart), le(c.magic_uint32), `${c.name} message start`);
    assert.equal(p.p2pPort, c.p2pport, `${c.name} p2p port`);
    assert.equal(p.rpcPort, c.rpcport, `${c.name} rpc port`);
  }
});

// The four chains of komodod's src/test-komodo/test_parse_args.cpp:144-174 that ac-params.json leaves
// out; between them they exercise ac_perc, ac_founders, ac_pubkey, ac_script, ac_snapshot,
// ac_adaptivepow, ac_private, ac_eras, ac_ccenable, ac_cclib, ac_cbmaturity and ac_blocktime.
const PARSE_ARGS_CPP: [string, string, number, number, number][] = [
  ['CLC', '-ac_name=CLC -ac_supply=99000000 -ac_reward=50000000 -ac_perc=100000000 -ac_founders=1 -ac_cc=45 -ac_public=1 -ac_snapshot=1440 -ac_pubkey=02df9bda7bfe2bcaa938b29a399fb0ba58cfb6cc3ddc0001062a600f60a8237ad9 -ac_adaptivepow=6', 20931, 20932, -671859365],
  ['PIRATE', '-ac_name=PIRATE -ac_supply=0 -ac_reward=25600000000 -ac_halving=77777 -ac_private=1', 45452, 45453, 397860952],
  ['ERA7', '-ac_name=ERA7 -ac_supply=7777777 -ac_reward=700000000,600000000,500000000,400000000,300000000,200000000,0 -ac_staked=100 -ac_eras=7 -ac_end=1000000,2000000,3000000,4000000,5000000,6000000,0 -ac_cc=2 -ac_ccenable=229,236,240 -ac_cbmaturity=1 -ac_sapling=1', 37332, 37333, -1314352964],
  ['TXX001', '-ac_name=TXX001 -ac_sapling=1 -ac_founders=1 -ac_reward=0,1125000000,562500000 -ac_end=128,340000,5422111 -ac_blocktime=150 -ac_supply=6178674 -ac_halving=129,340000,840000 -ac_cc=2 -ac_cclib=txx001 -ac_ccenable=228,234,235,236,241 -ac_perc=11111111 -ac_eras=3 -ac_script=76a9145eb10cf64f2bab1b457f1f25e658526155928fac88ac -clientname=GoldenSandtrout', 55965, 55966, 951479465],
];

test('test_parse_args.cpp chains with extra parameters', () => {
  for (const [name, line, p2p, rpc, magic] of PARSE_ARGS_CPP) {
    const p = ChainParams.fromArgs(acArgs(line));
    assert.equal(p.magicInt32, magic, `${name} magic`);
    assert.equal(p.p2pPort, p2p, `${name} p2p`);
    assert.equal(p.rpcPort, rpc, `${name} rpc`);
    assert.ok(p.extra.length > 0, `${name} has extra`);
  }
});

// reference/rawtx.md §7.3 and reference/p2p-blocks.md §1.3.
const REFERENCE: [string, number, number, string | null][] = [
  ['-ac_name=RICK -ac_supply=90000000000 -ac_reward=100000000 -ac_cc=3 -ac_staked=10', 0xfd750df6, 25434, 'f60d75fd'],
  ['-ac_name=MORTY -ac_supply=90000000000 -ac_reward=100000000 -ac_cc=3 -ac_staked=10', 0x83f3bcaf, 16347, null],
  ['-ac_name=TESTAC -ac_supply=1000000', 0x8cf1e031, 10743, null],
  ['-ac_name=TESTAC', 0xb03a76ca, 8539, 'ca763ab0'],
  ['-ac_name=TONYCI -ac_supply=10000000000 -ac_reward=100000000000 -ac_cc=2', 0x3cf11ae1, 27517, 'e11af13c'],
];

test('RICK, MORTY, TESTAC and TONYCI from the reference sheets', () => {
  for (const [line, magic, port, start] of REFERENCE) {
    const p = ChainParams.fromArgs(acArgs(line));
    assert.equal(p.magic, magic, line);
    assert.equal(p.p2pPort, port, line);
    assert.equal(p.rpcPort, port + 1, line);
    if (start) assert.equal(toHex(p.messageStart), start, line);
  }
});

test('ac_cc, ac_staked and ac_sapling alone create no extra; a trigger does', () => {
  // reference/p2p-blocks.md §1.2 step 2: ILN (supply + cc=2) has extralen 0.
  assert.equal(extraBytes(parseAcParams(acArgs('-ac_name=X -ac_cc=2 -ac_staked=10 -ac_sapling=1'))).length, 0);
  const bare = ChainParams.fromArgs(acArgs('-ac_name=X'));
  const ccOnly = ChainParams.fromArgs(acArgs('-ac_name=X -ac_cc=2 -ac_staked=10 -ac_sapling=1'));
  assert.equal(ccOnly.magic, bare.magic);
  // With a trigger the layout is pubkey33 | end,reward,halving,decay (u64 LE each) | val u64 (§7.3).
  const ex = extraBytes(parseAcParams(acArgs('-ac_name=X -ac_reward=5 -ac_cc=2 -ac_staked=10')));
  assert.equal(ex.length, 33 + 32 + 8);
  assert.equal(toHex(ex.subarray(0, 33)), '00'.repeat(33));
  assert.equal(toHex(ex.subarray(33 + 8, 33 + 16)), '0500000000000000');
  // val = perc | (staked & 0xff) << 32 | (cc & 0xffff) << 40: staked 10 -> byte 4, cc 2 -> byte 5.
  assert.equal(toHex(ex.subarray(65, 73)), '000000000a020000');
  // ac_blocktime != 60 appends a u32; ac_nk appends two u64.
  const bt = extraBytes(parseAcParams(acArgs('-ac_name=X -ac_blocktime=5')));
  assert.equal(toHex(bt.subarray(bt.length - 4)), '05000000');
  const nk = extraBytes(parseAcParams(acArgs('-ac_name=X -ac_nk=48,5')));
  assert.equal(toHex(nk.subarray(nk.length - 16)), '3000000000000000' + '0500000000000000');
});

test('ac_ccenable: the disable bitmap clears the listed codes and code 0', () => {
  const bits = ccDisableBits(parseAcParams(acArgs('-ac_name=X -ac_cc=2 -ac_ccenable=229,236,240')));
  assert.equal(bits.length, 32);
  assert.equal(bits[0], 0xfe);
  assert.equal(bits[229 >> 3], 0xff & ~(1 << (229 & 7)));
  assert.equal(bits[236 >> 3], 0xff & ~(1 << (236 & 7)));
  assert.equal(bits[240 >> 3], 0xff & ~(1 << (240 & 7)));
  assert.equal(bits.filter((b) => b === 0xff).length, 28);
});

test('crc32 is zlib crc32 (check value and chaining)', () => {
  const enc = new TextEncoder();
  // The CRC-32 catalogue's check value for "123456789".
  assert.equal(crc32(enc.encode('123456789')), 0xcbf43926);
  assert.equal(crc32(new Uint8Array(0)), 0);
  // A seed continues a CRC: crc32(b, crc32(a)) === crc32(a ‖ b), as zlib's does.
  assert.equal(crc32(enc.encode('56789'), crc32(enc.encode('1234'))), 0xcbf43926);
});
