import { Amount } from '../encoding/coin-amount.js';
import { toHex, toHexReversed } from '../encoding/hex.js';
import { encodeAddress, PUBKEY_ADDRESS, SCRIPT_ADDRESS, p2shAddress } from '../address/index.js';
import { scriptToAsm } from '../script/asm.js';
import { extractDestinations, outputType, type Destination } from '../script/standard.js';
import type { Transaction } from './transaction.js';
import type { TxIn } from './input.js';
import type { TxOut } from './output.js';
import type { JoinSplit } from './joinsplit.js';
import type { OutputDescription, SpendDescription } from './sapling.js';

/**
 * The JSON renderings of komodod's rawtransaction.cpp: ScriptPubKeyToJSON, TxToJSON (what
 * decoderawtransaction and getblock verbosity 2 print) and the pieces TxToJSONExpanded reuses.
 * Keys are inserted in komodod's order; amounts are Amount values, satoshi counts bigints.
 */

export interface RenderOptions {
  /** ac_cc ≠ 0: CC scripts are `cryptocondition` (else `nonstandard`, as komodod). */
  ccEnabled: boolean;
}

export type JsonObj = Record<string, unknown>;

export function destinationToAddress(d: Destination): string {
  return encodeAddress(d.kind === 'key' ? PUBKEY_ADDRESS : SCRIPT_ADDRESS, d.hash);
}

/** ScriptPubKeyToJSON: asm, [hex], then reqSigs/type/addresses when destinations exist, else type. */
export function scriptPubKeyToJSON(script: Uint8Array, includeHex: boolean, opts: RenderOptions): JsonObj {
  const out: JsonObj = { asm: scriptToAsm(script) };
  if (includeHex) out.hex = toHex(script);
  const dest = extractDestinations(script, opts);
  if (!dest) {
    out.type = outputType(script, opts);
    return out;
  }
  out.reqSigs = dest.reqSigs;
  out.type = dest.type;
  out.addresses = dest.destinations.map(destinationToAddress);
  return out;
}

/** decodescript's result: ScriptPubKeyToJSON without hex, then `p2sh` of the script, always. */
export function decodeScriptToJSON(script: Uint8Array, opts: RenderOptions): JsonObj {
  const out = scriptPubKeyToJSON(script, false, opts);
  out.p2sh = p2shAddress(script);
  return out;
}

export function vinToJSON(tx: Transaction, input: TxIn): JsonObj {
  if (tx.isCoinbase()) return { coinbase: toHex(input.scriptSig), sequence: input.sequence };
  return {
    txid: input.prevout.txid(),
    vout: input.prevout.index,
    scriptSig: { asm: scriptToAsm(input.scriptSig, true), hex: toHex(input.scriptSig) },
    sequence: input.sequence,
  };
}

/** A vout entry; TxToJSON names the satoshi field `valueZat`, TxToJSONExpanded `valueSat`. */
export function voutToJSON(out: TxOut, n: number, satKey: 'valueZat' | 'valueSat', opts: RenderOptions): JsonObj {
  return {
    value: new Amount(out.value),
    [satKey]: out.value,
    n,
    scriptPubKey: scriptPubKeyToJSON(out.script, true, opts),
  };
}

export function joinSplitToJSON(js: JoinSplit): JsonObj {
  return {
    vpub_old: new Amount(js.vpubOld),
    vpub_oldZat: js.vpubOld,
    vpub_new: new Amount(js.vpubNew),
    vpub_newZat: js.vpubNew,
    anchor: toHexReversed(js.anchor),
    nullifiers: js.nullifiers.map(toHexReversed),
    commitments: js.commitments.map(toHexReversed),
    onetimePubKey: toHexReversed(js.ephemeralKey),
    randomSeed: toHexReversed(js.randomSeed),
    macs: js.macs.map(toHexReversed),
    proof: toHex(js.proof),
    ciphertexts: js.ciphertexts.map(toHex),
  };
}

export function spendToJSON(s: SpendDescription): JsonObj {
  return {
    cv: toHexReversed(s.cv),
    anchor: toHexReversed(s.anchor),
    nullifier: toHexReversed(s.nullifier),
    rk: toHexReversed(s.rk),
    proof: toHex(s.zkproof),
    spendAuthSig: toHex(s.spendAuthSig),
  };
}

export function shieldedOutputToJSON(o: OutputDescription): JsonObj {
  return {
    cv: toHexReversed(o.cv),
    cmu: toHexReversed(o.cmu),
    ephemeralKey: toHexReversed(o.ephemeralKey),
    encCiphertext: toHex(o.encCiphertext),
    outCiphertext: toHex(o.outCiphertext),
    proof: toHex(o.zkproof),
  };
}

/** The header fields shared by TxToJSON and TxToJSONExpanded, up to `locktime`/`expiryheight`. */
export function txHeaderToJSON(tx: Transaction, txid: string, lastNotarizedHeight?: number): JsonObj {
  const out: JsonObj = { txid, overwintered: tx.overwintered, version: tx.version };
  // TxToJSONExpanded puts last_notarized_height right after version.
  if (lastNotarizedHeight !== undefined) out.last_notarized_height = lastNotarizedHeight;
  if (tx.overwintered) out.versiongroupid = tx.versionGroupId.toString(16).padStart(8, '0');
  out.locktime = tx.lockTime;
  if (tx.overwintered) out.expiryheight = tx.expiryHeight;
  return out;
}

/** vjoinsplit always; for overwintered v≥4 the Sapling fields, bindingSig only with spends or outputs. */
export function txShieldedToJSON(tx: Transaction, out: JsonObj): void {
  out.vjoinsplit = tx.joinSplits.map(joinSplitToJSON);
  if (tx.overwintered && tx.version >= 4) {
    out.valueBalance = new Amount(tx.valueBalance);
    out.vShieldedSpend = tx.shieldedSpends.map(spendToJSON);
    out.vShieldedOutput = tx.shieldedOutputs.map(shieldedOutputToJSON);
    if (tx.shieldedSpends.length > 0 || tx.shieldedOutputs.length > 0) out.bindingSig = toHex(tx.bindingSig);
  }
}

/** TxToJSON with a null block hash: decoderawtransaction's result. */
export function txToJSON(tx: Transaction, opts: RenderOptions, txid = tx.txid()): JsonObj {
  const out = txHeaderToJSON(tx, txid);
  out.vin = tx.vin.map((i) => vinToJSON(tx, i));
  out.vout = tx.vout.map((o, n) => voutToJSON(o, n, 'valueZat', opts));
  txShieldedToJSON(tx, out);
  return out;
}
