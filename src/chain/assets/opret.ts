import { DecodeError } from '../encoding/errors.js';
import { BufferReader } from '../encoding/reader.js';
import { BufferWriter } from '../encoding/writer.js';
import { EVAL_ASSETS } from '../cc/eval-codes.js';
import { OPRETID_ASSETSDATA } from '../tokens/constants.js';
import { encodeTokenTransferOpRet, getOpretBlob, tryDecodeTokenOpRet } from '../tokens/opret.js';

/**
 * The Assets order blob komodod puts in a token OP_RETURN as the `(OPRETID_ASSETSDATA, blob)` pair
 * (CCassetsCore.cpp EncodeAssetOpRet / DecodeAssetTokenOpRet at 0adeeab):
 *   's' 'S' 'b' 'B': `e3 <funcid> <price int64 LE> <origpubkey: compact size + bytes>`
 *   'x' 'o':         `e3 <funcid>` (exactly two bytes)
 *   'e' 'E':         `e3 <funcid> <assetid2, display order> <price> <origpubkey>` (swaps: disabled)
 */

export type AssetFuncid = 's' | 'S' | 'b' | 'B' | 'x' | 'o' | 'e' | 'E';

export interface AssetBlob {
  funcid: AssetFuncid;
  /**
   * 's': coins (satoshis) asked for the whole lot; 'b': token units wanted; 'S'/'B': what is still
   * required. 0 for 'x'/'o'.
   */
  price: bigint;
  /** The order owner's pubkey as written (a plain byte vector: not checked here). Empty for 'x'/'o'. */
  origpubkey: Uint8Array;
  /** 'e'/'E' only: the other token, internal byte order; otherwise 32 zero bytes. */
  assetid2: Uint8Array;
}

/** DecodeAssetTokenOpRet's outputs: the order blob plus the token opret's tokenid. */
export interface AssetTokenOpRet extends AssetBlob {
  /** Internal byte order; zero for a 'c' opret (DecodeTokenOpRet leaves it null there). */
  tokenid: Uint8Array;
  /** The blob's first byte (always EVAL_ASSETS when decoding succeeds). */
  evalCode: number;
}

const ZERO32 = new Uint8Array(32);
const PRICED = 'sSbB';
const SWAP = 'eE';
const CANCEL = 'xo';

/** EncodeAssetOpRet: the blob for funcid; an unknown funcid gives the empty vector, as in komodod. */
export function encodeAssetBlob(funcid: string, price = 0n, origpubkey: Uint8Array = new Uint8Array(0), assetid2: Uint8Array = ZERO32): Uint8Array {
  const w = new BufferWriter(64);
  if (funcid.length !== 1) return new Uint8Array(0);
  const f = funcid.charCodeAt(0);
  if (CANCEL.includes(funcid)) return w.u8(EVAL_ASSETS).u8(f).finish();
  if (PRICED.includes(funcid)) return w.u8(EVAL_ASSETS).u8(f).i64(price).varBytes(origpubkey).finish();
  if (SWAP.includes(funcid)) {
    return w.u8(EVAL_ASSETS).u8(f).bytes(Uint8Array.from(assetid2).reverse()).i64(price).varBytes(origpubkey).finish();
  }
  return new Uint8Array(0);
}

/**
 * The blob part of DecodeAssetTokenOpRet: size ≥ 2, first byte EVAL_ASSETS, an asset funcid, and
 * the fields E_UNMARSHAL reads ending exactly at the end ('x'/'o': nothing after the funcid).
 * Throws DecodeError where komodod returns 0.
 */
export function decodeAssetBlob(blob: Uint8Array): AssetBlob {
  if (blob.length < 2) throw new DecodeError('DecodeAssetTokenOpRet: no assets payload');
  if (blob[0] !== EVAL_ASSETS) throw new DecodeError('DecodeAssetTokenOpRet: incorrect assets evalcode');
  const funcid = String.fromCharCode(blob[1]!);
  if (CANCEL.includes(funcid)) {
    if (blob.length !== 2) throw new DecodeError(`DecodeAssetTokenOpRet: data after funcid '${funcid}'`);
    return { funcid: funcid as AssetFuncid, price: 0n, origpubkey: new Uint8Array(0), assetid2: new Uint8Array(32) };
  }
  if (!PRICED.includes(funcid) && !SWAP.includes(funcid)) throw new DecodeError(`DecodeAssetTokenOpRet: incorrect assets funcid ${blob[1]}`);
  const r = new BufferReader(blob, 2);
  const assetid2 = SWAP.includes(funcid) ? r.bytes(32).slice().reverse() : new Uint8Array(32);
  const price = r.i64();
  const origpubkey = r.varBytes().slice();
  if (r.left !== 0) throw new DecodeError('DecodeAssetTokenOpRet: trailing bytes in assets payload');
  return { funcid: funcid as AssetFuncid, price, origpubkey, assetid2 };
}

/**
 * DecodeAssetTokenOpRet on a scriptPubKey: the token opret ('c' or 't') must decode and carry an
 * OPRETID_ASSETSDATA blob that decodes. Throws DecodeError where komodod returns 0.
 */
export function decodeAssetTokenOpRet(script: Uint8Array): AssetTokenOpRet {
  const op = tryDecodeTokenOpRet(script);
  if (!op) throw new DecodeError('DecodeAssetTokenOpRet: incorrect token opret');
  const blob = decodeAssetBlob(getOpretBlob(op.blobs, OPRETID_ASSETSDATA));
  return { ...blob, tokenid: op.funcid === 't' ? op.tokenid : new Uint8Array(32), evalCode: EVAL_ASSETS };
}

/** decodeAssetTokenOpRet, or null where komodod's DecodeAssetTokenOpRet returns 0. */
export function tryDecodeAssetTokenOpRet(script: Uint8Array): AssetTokenOpRet | null {
  try {
    return decodeAssetTokenOpRet(script);
  } catch (e) {
    if (e instanceof DecodeError) return null;
    throw e;
  }
}

/** EncodeTokenOpRet(tokenid, pubkeys, (OPRETID_ASSETSDATA, blob)): the OP_RETURN every order tx ends with. */
export function encodeAssetOrderOpRet(tokenid: Uint8Array, pubkeys: readonly Uint8Array[], blob: Uint8Array): Uint8Array {
  return encodeTokenTransferOpRet({ tokenid, pubkeys, blobs: [{ id: OPRETID_ASSETSDATA, data: blob }] });
}
