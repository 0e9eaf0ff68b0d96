import { DecodeError } from '../encoding/errors.js';
import { BufferReader } from '../encoding/reader.js';
import { BufferWriter } from '../encoding/writer.js';
import { getOp, opReturnScript } from '../script/script.js';
import { OP_RETURN } from '../script/opcodes.js';
import { EVAL_ASSETS, EVAL_TOKENS } from '../cc/eval-codes.js';
import {
  EVAL_ROGUE,
  OPRETID_ASSETSDATA,
  OPRETID_NONFUNGIBLEDATA,
  OPRETID_ROGUEGAMEDATA,
} from './constants.js';

/**
 * The token OP_RETURN payloads of komodod's CCtokenutils.cpp (0adeeab): create `'c'` and transfer `'t'`.
 * Fields use E_MARSHAL's network serialisation; a decode succeeds only where komodod's E_UNMARSHAL
 * would, and fails with a DecodeError naming komodod's reason otherwise.
 */

/** One `(id, blob)` pair after the fixed fields (NFT data, assets data, ...). */
export interface OpretBlob {
  id: number;
  data: Uint8Array;
}

export interface TokenCreateOpRet {
  funcid: 'c';
  /** The creator's pubkey as written (a plain byte vector: komodod does not check its length here). */
  origPubkey: Uint8Array;
  /** Raw bytes of the std::string fields (UTF-8 when built by the RPC). */
  name: Uint8Array;
  description: Uint8Array;
  blobs: OpretBlob[];
}

export interface TokenTransferOpRet {
  funcid: 't';
  /** Internal byte order, like a txid hash (the opret itself stores the display order). */
  tokenid: Uint8Array;
  /** The ccType byte: how many pubkey fields follow (0..2). */
  ccType: number;
  /** The pubkey fields that parse as a valid CPubKey, in order (invalid ones are dropped, as komodod does). */
  pubkeys: Uint8Array[];
  blobs: OpretBlob[];
  /** The pre-opretid layout (one unlabelled rogue/assets blob), re-labelled as komodod does. */
  oldStyle: boolean;
}

export type TokenOpRet = TokenCreateOpRet | TokenTransferOpRet;

const FUNCID_CREATE = 0x63; // 'c'
const FUNCID_TRANSFER = 0x74; // 't'
const PUBLIC_KEY_SIZE = 65;

const utf8 = new TextEncoder();

function asBytes(s: string | Uint8Array): Uint8Array {
  return typeof s === 'string' ? utf8.encode(s) : s;
}

/**
 * GetOpReturnData: the data of the first push after a leading OP_RETURN, or empty when the script does
 * not start that way (the token decoders ignore GetOpReturnData's result and read an empty payload).
 */
export function getOpReturnData(script: Uint8Array): Uint8Array {
  const first = getOp(script, 0);
  if (!first || first.op !== OP_RETURN) return new Uint8Array(0);
  const push = getOp(script, first.next);
  return push?.data ? push.data.slice() : new Uint8Array(0);
}

// ---------------------------------------------------------------------------------------------------
// Encoding

/** CPubKey::Serialize: compact size + the key bytes (33 or 65, by its header). */
function writePubkey(w: BufferWriter, pk: Uint8Array): void {
  if (cpubkeyLength(pk[0] ?? 0) !== pk.length) throw new RangeError('token opret pubkeys must be valid 33- or 65-byte keys');
  w.varBytes(pk);
}

function writeBlobs(w: BufferWriter, blobs: readonly OpretBlob[]): void {
  for (const b of blobs) {
    // EncodeToken*OpRet skip pairs whose id is 0 (the "no payload" placeholder).
    if (b.id === 0) continue;
    if (!Number.isInteger(b.id) || b.id < 0 || b.id > 0xff) throw new RangeError('opret blob id must be a byte');
    w.u8(b.id).varBytes(b.data);
  }
}

export interface TokenCreateFields {
  origPubkey: Uint8Array;
  name: string | Uint8Array;
  description: string | Uint8Array;
  /** NFT data: written as the OPRETID_NONFUNGIBLEDATA blob when non-empty. */
  nftData?: Uint8Array;
  /** Further blobs, written after the NFT blob. */
  blobs?: readonly OpretBlob[];
}

/** The payload of EncodeTokenCreateOpRet: `f2 'c' <origpubkey> <name> <description> {id blob}*`. */
export function encodeTokenCreatePayload(f: TokenCreateFields): Uint8Array {
  const w = new BufferWriter(128);
  w.u8(EVAL_TOKENS).u8(FUNCID_CREATE);
  w.varBytes(f.origPubkey).varBytes(asBytes(f.name)).varBytes(asBytes(f.description));
  const blobs: OpretBlob[] = [];
  if (f.nftData && f.nftData.length > 0) blobs.push({ id: OPRETID_NONFUNGIBLEDATA, data: f.nftData });
  if (f.blobs) blobs.push(...f.blobs);
  writeBlobs(w, blobs);
  return w.finish();
}

/** EncodeTokenCreateOpRet: `OP_RETURN <payload>`. */
export function encodeTokenCreateOpRet(f: TokenCreateFields): Uint8Array {
  return opReturnScript(encodeTokenCreatePayload(f));
}

export interface TokenTransferFields {
  /** Internal byte order. */
  tokenid: Uint8Array;
  /** "Vout pubkeys" the validator rebuilds token outputs from (0..2 of them). */
  pubkeys: readonly Uint8Array[];
  blobs?: readonly OpretBlob[];
}

/** The payload of EncodeTokenOpRet: `f2 't' <tokenid, display order> ccType [pk1] [pk2] {id blob}*`. */
export function encodeTokenTransferPayload(f: TokenTransferFields): Uint8Array {
  if (f.tokenid.length !== 32) throw new RangeError('tokenid must be 32 bytes');
  // komodod writes ccType 0 and no pubkeys when given more than two (EncodeTokenOpRet logs and goes on).
  const ccType = f.pubkeys.length <= 2 ? f.pubkeys.length : 0;
  const w = new BufferWriter(128);
  w.u8(EVAL_TOKENS).u8(FUNCID_TRANSFER);
  w.bytes(Uint8Array.from(f.tokenid).reverse()); // revuint256: the opret holds the display order
  w.u8(ccType);
  for (let i = 0; i < ccType; i++) writePubkey(w, f.pubkeys[i]!);
  writeBlobs(w, f.blobs ?? []);
  return w.finish();
}

/** EncodeTokenOpRet: `OP_RETURN <payload>`. */
export function encodeTokenTransferOpRet(f: TokenTransferFields): Uint8Array {
  return opReturnScript(encodeTokenTransferPayload(f));
}

// ---------------------------------------------------------------------------------------------------
// Decoding

/** CPubKey::GetLen: the key size its header byte announces, 0 for an invalid header. */
export function cpubkeyLength(header: number): number {
  if (header === 2 || header === 3) return 33;
  if (header === 4 || header === 6 || header === 7) return 65;
  return 0;
}

/**
 * CPubKey::Unserialize into a fresh (invalid) key, then IsValid(): null for an invalid key. A length
 * over 65 is skipped; a length below what the header announces would leave komodod reading
 * uninitialised bytes, which cannot be reproduced, so it is refused.
 */
function readPubkey(r: BufferReader): Uint8Array | null {
  const len = r.compactSize();
  const b = r.bytes(len);
  if (len > PUBLIC_KEY_SIZE || len === 0) return null;
  const want = cpubkeyLength(b[0]!);
  if (want === 0) return null;
  if (len < want) throw new DecodeError(`token opret pubkey of ${len} bytes is shorter than its header announces`);
  return b.slice(0, want);
}

/** The `while (!ss.eof()) { ss >> id; if (!ss.eof()) ss >> blob; }` loop: a lone trailing id is ignored. */
function readBlobs(r: BufferReader): OpretBlob[] {
  const blobs: OpretBlob[] = [];
  while (r.left > 0) {
    const id = r.u8();
    if (r.left > 0) blobs.push({ id, data: r.varBytes().slice() });
  }
  return blobs;
}

/** DecodeTokenCreateOpRet on an OP_RETURN script. */
export function decodeTokenCreateOpRet(script: Uint8Array): TokenCreateOpRet {
  return decodeTokenCreatePayload(getOpReturnData(script));
}

export function decodeTokenCreatePayload(p: Uint8Array): TokenCreateOpRet {
  if (!(p.length > 2 && p[0] === EVAL_TOKENS && p[1] === FUNCID_CREATE)) {
    throw new DecodeError('DecodeTokenCreateOpRet: incorrect token create opret');
  }
  const r = new BufferReader(p, 2);
  const origPubkey = r.varBytes().slice();
  const name = r.varBytes().slice();
  const description = r.varBytes().slice();
  return { funcid: 'c', origPubkey, name, description, blobs: readBlobs(r) };
}

interface TransferHead {
  tokenidDisplay: Uint8Array;
  ccType: number;
  pk1: Uint8Array | null;
  pk2: Uint8Array | null;
}

function readTransferHead(r: BufferReader): TransferHead {
  r.u8(); // evalcode
  r.u8(); // funcid
  const tokenidDisplay = r.bytes(32).slice();
  const ccType = r.u8();
  const pk1 = ccType >= 1 ? readPubkey(r) : null;
  const pk2 = ccType === 2 ? readPubkey(r) : null;
  return { tokenidDisplay, ccType, pk1, pk2 };
}

/** A thrown DecodeError is E_UNMARSHAL returning false; any other error is a bug and propagates. */
function attempt<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch (e) {
    if (e instanceof DecodeError) return undefined;
    throw e;
  }
}

const ROGUE_OLDSTYLE_FUNCIDS = 'RHQKG';
const ASSETS_OLDSTYLE_FUNCIDS = 'sbSBxo';

function isOldStyleBlob(b: Uint8Array): boolean {
  if (b.length < 2) return false;
  const f = String.fromCharCode(b[1]!);
  return (b[0] === EVAL_ROGUE && ROGUE_OLDSTYLE_FUNCIDS.includes(f)) || (b[0] === EVAL_ASSETS && ASSETS_OLDSTYLE_FUNCIDS.includes(f));
}

function decodeTransferPayload(p: Uint8Array): TokenTransferOpRet {
  // First the old layout: exactly one unlabelled vector after the pubkeys, starting with a rogue or
  // assets funcid; only if that fails, (id, blob) pairs to the end.
  const old = attempt(() => {
    const r = new BufferReader(p);
    const head = readTransferHead(r);
    const blob = r.left > 0 ? r.varBytes().slice() : new Uint8Array(0);
    // Trailing bytes: not the old layout (answered without an exception, the new layout's common case).
    return r.left === 0 ? { head, blob } : undefined;
  });
  let head: TransferHead;
  let blobs: OpretBlob[];
  let oldStyle = false;
  if (old && isOldStyleBlob(old.blob)) {
    head = old.head;
    blobs = [{ id: old.blob[0] === EVAL_ROGUE ? OPRETID_ROGUEGAMEDATA : OPRETID_ASSETSDATA, data: old.blob }];
    oldStyle = true;
  } else {
    const r = new BufferReader(p);
    try {
      head = readTransferHead(r);
      blobs = readBlobs(r);
    } catch (e) {
      if (e instanceof DecodeError) throw new DecodeError(`DecodeTokenOpRet: bad opret format (${e.message})`);
      throw e;
    }
  }
  if (head.ccType > 2) throw new DecodeError(`DecodeTokenOpRet: incorrect ccType=${head.ccType}`);
  const pubkeys: Uint8Array[] = [];
  if (head.pk1) pubkeys.push(head.pk1);
  if (head.pk2) pubkeys.push(head.pk2);
  return {
    funcid: 't',
    tokenid: head.tokenidDisplay.reverse(),
    ccType: head.ccType,
    pubkeys,
    blobs,
    oldStyle,
  };
}

/** DecodeTokenOpRet on an OP_RETURN payload (the data of its push). */
export function decodeTokenOpRetPayload(p: Uint8Array): TokenOpRet {
  if (p.length <= 2) throw new DecodeError('DecodeTokenOpRet: empty opret, could not parse');
  if (p[0] !== EVAL_TOKENS) throw new DecodeError('DecodeTokenOpRet: incorrect evalcode in tokens opret');
  if (p[1] === FUNCID_CREATE) return decodeTokenCreatePayload(p);
  if (p[1] === FUNCID_TRANSFER) return decodeTransferPayload(p);
  throw new DecodeError(`DecodeTokenOpRet: illegal funcid=${p[1]}`);
}

/** DecodeTokenOpRet on a scriptPubKey (normally a transaction's last output). */
export function decodeTokenOpRet(script: Uint8Array): TokenOpRet {
  return decodeTokenOpRetPayload(getOpReturnData(script));
}

/** decodeTokenOpRet, or null where komodod's DecodeTokenOpRet returns 0. */
export function tryDecodeTokenOpRet(script: Uint8Array): TokenOpRet | null {
  return attempt(() => decodeTokenOpRet(script)) ?? null;
}

/** GetOpretBlob: the first blob with this id, or an empty vector. */
export function getOpretBlob(blobs: readonly OpretBlob[], id: number): Uint8Array {
  for (const b of blobs) if (b.id === id) return b.data;
  return new Uint8Array(0);
}

/** The NFT data of a create opret (empty for a fungible token). */
export function nftDataOf(create: TokenCreateOpRet): Uint8Array {
  return getOpretBlob(create.blobs, OPRETID_NONFUNGIBLEDATA);
}
