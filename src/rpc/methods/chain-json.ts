import { hash160, sha256 } from '../../chain/crypto/hash.js';
import { encodeAddress, PUBKEY_ADDRESS, SCRIPT_ADDRESS } from '../../chain/address/index.js';
import { mayAcceptCryptoCondition } from '../../chain/cc/script.js';
import { getOp } from '../../chain/script/script.js';
import { OP_RETURN } from '../../chain/script/opcodes.js';
import { STAKED_DECEMBER_HARDFORK_TIMESTAMP } from '../../chain/consensus/upgrades.js';
import { extractDestinations, solver, type Destination } from '../../chain/script/standard.js';
import { destinationToAddress } from '../../chain/tx/json.js';
import type { Block } from '../../chain/block/block.js';
import { toHexReversed } from '../../chain/encoding/hex.js';

/**
 * Pieces of komodod's RPC renderings that need more than one transaction: uint256S, the spent index's
 * address type, ExtractDestination (single), and komodo_segid. Pure functions; the RPC methods fetch
 * what they read.
 */

export interface ScriptOpts {
  ccEnabled: boolean;
}

const solverOpts = (o: ScriptOpts) => ({ ccEnabled: o.ccEnabled, isSupportedCondition: mayAcceptCryptoCondition });

/**
 * uint256S(str) (base_blob::SetHex): leading whitespace and "0x" skipped, then the leading run of hex
 * digits read as a big-endian number, its last 64 digits kept. Returns display hex (64 lowercase digits).
 */
export function uint256S(s: string): string {
  let i = 0;
  while (i < s.length && ' \t\n\v\f\r'.includes(s[i]!)) i++;
  if (s[i] === '0' && (s[i + 1] === 'x' || s[i + 1] === 'X')) i += 2;
  let j = i;
  while (j < s.length && /[0-9a-fA-F]/.test(s[j]!)) j++;
  let digits = s.slice(i, j).toLowerCase();
  if (digits.length > 64) digits = digits.slice(digits.length - 64);
  return digits.padStart(64, '0');
}

/** komodod's ExtractDestination: one destination (CLTV prefix skipped once); multisig and the rest fail. */
export function extractDestination(script: Uint8Array, opts: ScriptOpts): Destination | null {
  const d = extractDestinations(script, solverOpts(opts));
  if (!d || d.type === 'multisig') return null;
  return d.destinations[0] ?? null;
}

export function extractAddress(script: Uint8Array, opts: ScriptOpts): string | null {
  const d = extractDestination(script, opts);
  return d ? destinationToAddress(d) : null;
}

/** A spent index value's address part: addressType (1 key, 2 script, 3 CC, 0 unknown) and hash. */
export interface SpentAddress {
  type: number;
  hash: Uint8Array;
}

/**
 * The address part of the spent index entry komodod writes when a block spends an output of `script`
 * (ConnectBlock with GetAddressType; the last solution's hash), or null where it writes none
 * (keyType 0: the script neither solves nor extracts).
 */
export function blockSpentAddress(script: Uint8Array, opts: ScriptOpts): SpentAddress | null {
  const s = solver(script, solverOpts(opts));
  let sols = s.type === 'nonstandard' ? [] : s.solutions;
  let type = 0;
  if (s.type !== 'nonstandard') {
    type = s.type === 'scripthash' ? 2 : s.type === 'cryptocondition' ? 3 : 1;
  } else {
    const d = extractDestination(script, opts);
    if (!d) return null;
    type = 1;
    // "if we failed to solve, and got a vDest, assume P2PKH or P2PK address returned"
    sols = d.kind === 'key' ? [d.hash] : [];
  }
  let hash: Uint8Array = new Uint8Array(20);
  for (const sol of sols) hash = sol.length === 20 ? sol : hash160(sol);
  return { type, hash };
}

/**
 * The mempool's version (CTxMemPool::addSpentIndex): multisig and unsolvable scripts are recorded with
 * type 0; otherwise type 1 (2 for P2SH) and the first solution's hash; no entry when nothing solves out.
 * Returns undefined where komodod records no entry at all.
 */
export function mempoolSpentAddress(script: Uint8Array, opts: ScriptOpts): SpentAddress | undefined {
  const s = solver(script, solverOpts(opts));
  let sols: Uint8Array[];
  let type = 1;
  if (s.type !== 'nonstandard' && s.type !== 'multisig') {
    sols = s.solutions;
    if (s.type === 'scripthash') type = 2;
  } else if (s.type === 'nonstandard' && extractDestination(script, opts)) {
    const d = extractDestination(script, opts)!;
    sols = d.kind === 'key' ? [d.hash] : [];
  } else {
    return { type: 0, hash: new Uint8Array(20) };
  }
  const first = sols[0];
  if (!first) return undefined;
  return { type, hash: first.length === 20 ? first : hash160(first) };
}

/** The address a spent index entry shows (types 1 and 2 only). */
export function spentAddressString(a: SpentAddress): string | null {
  if (a.type === 1) return encodeAddress(PUBKEY_ADDRESS, a.hash);
  if (a.type === 2) return encodeAddress(SCRIPT_ADDRESS, a.hash);
  return null;
}

/** komodo_segid32: the first little-endian uint32 of SHA256(address text). */
export function segid32(address: string): number {
  const h = sha256(Buffer.from(address, 'utf8'));
  return (h[0]! | (h[1]! << 8) | (h[2]! << 16) | (h[3]! << 24)) >>> 0;
}

/** DecodeStakingOpRet: OP_RETURN <data> whose data reads as evalcode 77 then a 32-byte merkle root. */
function isStakingOpRet(script: Uint8Array): boolean {
  if (script.length === 0 || script[0] !== OP_RETURN) return false;
  const r = getOp(script, 1);
  const data = r?.data;
  return !!data && data.length >= 33 && data[0] === 77;
}

/**
 * komodo_segid(0, height) for the active block at that height: -1 unless the block ends with a staking
 * transaction (one input; after the December 2019 hard fork two outputs, the second a staking
 * OP_RETURN; before it one output paying back the staked coin's address and value), then the low 6
 * bits of segid32 of the paying address. `prevOut` looks up the staked coin (old rule only).
 */
export function komodoSegid(
  block: Block,
  height: number,
  opts: ScriptOpts,
  prevOut: (txid: string, n: number) => { value: bigint; script: Uint8Array } | null,
): number {
  if (height <= 0) return -1;
  const n = block.txs.length;
  const newStaker = block.header.time > STAKED_DECEMBER_HARDFORK_TIMESTAMP ? 1 : 0;
  const last = block.txs[n - 1];
  if (n <= 1 || !last || last.vin.length !== 1 || last.vout.length !== 1 + newStaker) return -1;
  const address = extractAddress(last.vout[0]!.script, opts);
  if (address === null) return -1;
  if (newStaker === 1) {
    if (last.vout.length === 2 && isStakingOpRet(last.vout[1]!.script)) return segid32(address) & 0x3f;
    return -1;
  }
  const prevout = last.vin[0]!.prevout;
  const prev = prevOut(toHexReversed(prevout.hash), prevout.index);
  if (!prev) return -1;
  const destaddr = extractAddress(prev.script, opts);
  if (destaddr === address && last.vout[0]!.value === prev.value) return segid32(address) & 0x3f;
  return -1;
}

/** A 32-bit value as 8 lowercase hex digits (HexInt, strprintf("%08x")). */
export function hexInt(v: number): string {
  return (v >>> 0).toString(16).padStart(8, '0');
}

/** arith_uint256::GetHex of a bigint: 64 hex digits. */
export function uint256HexOf(v: bigint): string {
  return v.toString(16).padStart(64, '0');
}
