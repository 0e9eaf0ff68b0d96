import { sha256 } from '../crypto/hash.js';
import { BufferWriter } from '../encoding/writer.js';
import { ASSETCHAINS_TIMELOCKOFF, type AcParams } from './ac-params.js';
import { crc32 } from './crc32.js';

/** KMD's own magic and ports (komodo_utils.cpp komodo_port/komodo_assetport). */
export const KMD_MAGIC = 0x8de4eef9;
export const KMD_P2P_PORT = 7770;

/**
 * True when some parameter beyond name/supply/cc/staked/sapling is non-default, so the chain has an
 * "extra" buffer (komodo_utils.cpp:1346-1373). ac_cc, ac_staked and ac_sapling alone create none.
 */
export function hasExtra(p: AcParams): boolean {
  return (
    p.end[0] !== 0n ||
    p.reward[0] !== 0n ||
    p.halving[0] !== 0n ||
    p.decay[0] !== 0n ||
    p.commission !== 0n ||
    p.public !== 0 ||
    p.private !== 0 ||
    p.txpow !== 0 ||
    p.founders !== 0 ||
    p.hasScript ||
    p.import.length > 0 ||
    (p.pubkey !== null && p.pubkey[0] !== 0) ||
    p.timelockGte !== ASSETCHAINS_TIMELOCKOFF ||
    p.eras > 1 ||
    p.ccEnable.length > 0 ||
    p.ccLib.length > 0 ||
    p.foundersReward !== 0n ||
    p.notaryPay[0] !== 0n ||
    p.blocktime !== 60 ||
    p.minerOpret.length !== 0 ||
    p.nk !== null ||
    p.snapshot !== 0 ||
    p.earlyTxidContract !== 0 ||
    p.cbMaturity !== 0 ||
    p.adaptivePow !== 0
    // ac_beam/ac_coda also trigger in komodod, but a chain with either never starts (see parseAcParams).
  );
}

/** The 32-byte CC disable bitmap of -ac_ccenable: every bit set, then the enabled codes and 0 cleared. */
export function ccDisableBits(p: AcParams): Uint8Array {
  const bits = new Uint8Array(32).fill(0xff);
  for (const code of [...p.ccEnable, 0]) bits[code >> 3]! &= ~(1 << (code & 7));
  return bits;
}

/**
 * The extra-parameters buffer (komodo_utils.cpp:1374-1491), all integers little-endian; empty when
 * hasExtra() is false.
 */
export function extraBytes(p: AcParams): Uint8Array {
  if (!hasExtra(p)) return new Uint8Array(0);
  const w = new BufferWriter(128);
  w.bytes(p.pubkey ?? new Uint8Array(33));
  for (let i = 0; i < p.eras; i++) {
    w.u64(p.end[i]!).u64(p.reward[i]!).u64(p.halving[i]!).u64(p.decay[i]!);
    if (p.notaryPay[0] !== 0n) w.u64(p.notaryPay[i]!);
  }
  if (p.eras > 1) w.u64(BigInt(p.eras - 1));
  if (p.timelockGte !== ASSETCHAINS_TIMELOCKOFF) w.u64(p.timelockGte).u64(p.timeUnlockFrom).u64(p.timeUnlockTo);
  // ac_algo would come here (u32) for a non-equihash chain; acnode runs equihash only.
  const val =
    p.commission |
    ((BigInt(p.staked) & 0xffn) << 32n) |
    ((BigInt(p.cc) & 0xffffn) << 40n) |
    (BigInt(p.public !== 0 ? 1 : 0) << 7n) |
    (BigInt(p.private !== 0 ? 1 : 0) << 6n) |
    BigInt(p.txpow);
  w.u64(val);
  if (p.founders !== 0) {
    w.u8(1);
    if (p.founders > 1) w.u32(p.founders);
    if (p.foundersReward !== 0n) w.u64(p.foundersReward);
  }
  if (p.hasScript) w.bytes(p.script);
  if (p.import.length > 0) w.bytes(new TextEncoder().encode(p.import));
  // 'b' (ac_beam) and 'c' (ac_coda) markers never occur: such chains do not start.
  if (p.ccEnable.length > 0) w.bytes(ccDisableBits(p));
  // komodod triggers extra on any ac_cclib but writes it only when longer than one character.
  if (p.ccLib.length > 1) w.bytes(new TextEncoder().encode(p.ccLib));
  if (p.blocktime !== 60) w.u32(p.blocktime);
  if (p.minerOpret.length !== 0) w.bytes(p.minerOpret);
  if (p.nk !== null) w.u64(BigInt(p.nk[0])).u64(BigInt(p.nk[1]));
  if (p.snapshot !== 0) w.u32(p.snapshot);
  if (p.earlyTxidContract !== 0) w.u32(p.earlyTxidContract);
  if (p.cbMaturity !== 0) w.u32(p.cbMaturity);
  if (p.adaptivePow !== 0) w.u8(p.adaptivePow);
  return w.finish();
}

/**
 * komodo_assetmagic: crc32(LE64(supply) ‖ name, seed) where the seed is the first 4 bytes of
 * SHA-256(extra) read little-endian, or 0 without extra.
 */
export function assetMagic(name: string, supply: bigint, extra: Uint8Array): number {
  if (name === 'KMD') return KMD_MAGIC;
  const buf = new BufferWriter(8 + name.length).u64(supply).bytes(new TextEncoder().encode(name)).finish();
  let seed = 0;
  if (extra.length !== 0) {
    const h = sha256(extra);
    seed = (h[0]! | (h[1]! << 8) | (h[2]! << 16) | (h[3]! << 24)) >>> 0;
  }
  return crc32(buf, seed);
}

/** komodo_assetport: the default p2p port of a magic. */
export function assetPort(magic: number, extraLength: number): number {
  if (magic === KMD_MAGIC) return KMD_P2P_PORT;
  return extraLength === 0 ? 8000 + (magic % 7777) : 16000 + (magic % 49500);
}

/** The network message start: the magic's bytes little-endian (chainparams.cpp:980-983). */
export function messageStart(magic: number): Uint8Array {
  return Uint8Array.of(magic & 0xff, (magic >>> 8) & 0xff, (magic >>> 16) & 0xff, (magic >>> 24) & 0xff);
}

/** The magic as a signed 32-bit number, as getinfo and komodod's tests print it. */
export function magicInt32(magic: number): number {
  return magic | 0;
}
