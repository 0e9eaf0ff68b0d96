import type { Database } from 'lmdb';
import { addressKeysOf } from '../../chain/address/index-key.js';
import { tryDecodeAssetTokenOpRet, type AssetFuncid } from '../../chain/assets/opret.js';
import { toHexReversed } from '../../chain/encoding/hex.js';
import { OP_RETURN } from '../../chain/script/opcodes.js';
import { isUnspendable } from '../../chain/script/script.js';
import { isPayToCryptoCondition } from '../../chain/script/standard.js';
import { cpubkeyLength } from '../../chain/tokens/opret.js';
import type { Outpoint } from '../../chain/tx/input.js';
import type { Transaction } from '../../chain/tx/transaction.js';
import type { ChainDb } from './chaindb.js';
import { hashKey, outpointKey } from './lmdb-keys.js';
import type { AssetOrder, AssetOrderFilter } from './protocol.js';

export type { AssetOrder, AssetOrderFilter } from './protocol.js';

/**
 * The Assets order book as komodod's AssetOrders (CCassetstx.cpp) finds it, kept with the chain so
 * that tokenorders <tokenid> and mytokenorders cost their answer, not every open order on the chain.
 * komodod walks every unspent output at an Assets address (SetCCunspents: the address index, nothing
 * from the mempool), reads each one's transaction and keeps those whose last output decodes as an
 * asset-token opret (DecodeAssetTokenOpRet), of value ≠ 0, and of the token asked (tokenorders) or
 * asks ('s'/'S') of the owner asked (mytokenorders). Each of these facts is fixed once the output's
 * transaction is confirmed, so an output is filed once, when its block connects, and dropped when
 * spent: every CC output of value ≠ 0 of a transaction whose last output decodes, under its address
 * (whichever address: the RPC reads the ones komodod walks).
 *
 * Keys put the address index's order (CAddressUnspentKey: txid internal bytes, then the index
 * little-endian) last, so a range read lists in komodod's order:
 *
 * - assetOrders: 'a' | address hash160 | txid | n u32 LE → order (every order at the address)
 *                't' | address hash160 | tokenid (internal) | txid | n u32 LE → order (by token)
 *                'o' | address hash160 | pubkey length u8 | origpubkey | txid | n u32 LE → order
 *                    (asks 's'/'S' whose origpubkey is a valid CPubKey: mytokenorders)
 * - assetOrderTracked: outpoint (txid | n u32 BE) → address count u8 | hash160s | order (to drop it when spent)
 * - assetOrderUndo: block hash → the block's changes in order (only for a block that changed anything)
 *
 * An order is: funcid u8 | value u64 | vout0 u64 | price i64 | tokenid 32 | assetid2 32 | origpubkey length u32 | origpubkey.
 * It changes inside the chain store's write transaction of each block (connect and disconnect).
 */

const ALL = 0x61; // 'a'
const BY_TOKEN = 0x74; // 't'
const BY_OWNER = 0x6f; // 'o'

/** What is stored of an order: the listed order less its outpoint (the row's key holds it). */
type Order = Omit<AssetOrder, 'txid' | 'index'>;

type Change = { add: Buffer } | { remove: Buffer; tracked: Buffer };

/** pubkey2pk: a valid CPubKey (size matching its header byte), as mytokenorders compares them. */
const validPubkey = (pk: Uint8Array): boolean => pk.length > 0 && cpubkeyLength(pk[0]!) === pk.length;

/** The address-index hashes (CC, type 3) an output script is filed under. */
function ccHashesOf(script: Uint8Array): Buffer[] {
  // An unspendable script (over MAX_SCRIPT_SIZE) never enters the address index's unspent rows.
  if (!isPayToCryptoCondition(script) || isUnspendable(script)) return [];
  const out: Buffer[] = [];
  for (const k of addressKeysOf(script)) if (k.startsWith('3:')) out.push(Buffer.from(k.slice(2), 'hex'));
  return out;
}

export class OrderIndex {
  private readonly orders: Database<Buffer, Buffer>;
  private readonly tracked: Database<Buffer, Buffer>;
  private readonly undo: Database<Buffer, Buffer>;

  constructor(db: ChainDb) {
    this.orders = db.index('assetOrders');
    this.tracked = db.index('assetOrderTracked');
    this.undo = db.index('assetOrderUndo');
  }

  // ---- reads -----------------------------------------------------------------------------------

  /**
   * The open orders at one CC address (hash160 hex) in address-index order: all of them, a token's
   * (tokenid display hex), or an owner's asks (pubkey hex). Costs the orders it returns.
   */
  ordersAt(addressHash: string, filter: AssetOrderFilter = {}): AssetOrder[] {
    const hash = Buffer.from(addressHash, 'hex');
    let prefix: Buffer;
    if (filter.tokenid !== undefined) prefix = Buffer.concat([Buffer.of(BY_TOKEN), hash, hashKey(filter.tokenid)]);
    else if (filter.owner !== undefined) {
      const pk = Buffer.from(filter.owner, 'hex');
      if (!validPubkey(pk)) return [];
      prefix = Buffer.concat([Buffer.of(BY_OWNER), hash, Buffer.of(pk.length), pk]);
    } else prefix = Buffer.concat([Buffer.of(ALL), hash]);
    const out: AssetOrder[] = [];
    const end = Buffer.concat([prefix, Buffer.alloc(36, 0xff)]);
    for (const { key, value } of this.orders.getRange({ start: prefix, end })) {
      if (key.length !== prefix.length + 36) continue;
      const o = decodeOrder(value, 0);
      out.push({ ...o, txid: toHexReversed(key.subarray(prefix.length, prefix.length + 32)), index: key.readUInt32LE(prefix.length + 32) });
    }
    return out;
  }

  /** A canonical dump of the whole index (tests: a reorged or reopened index against a fresh one). */
  snapshot(): unknown {
    const rows = (d: Database<Buffer, Buffer>) => [...d.getRange({})].map(({ key, value }) => `${key.toString('hex')} ${value.toString('hex')}`);
    return { orders: rows(this.orders), tracked: rows(this.tracked) };
  }

  // ---- writes (inside the chain store's write transaction) ------------------------------------

  /**
   * Files a block's order outputs and drops the ones its inputs spend. `spentScript`: the script of
   * a chain coin an input spends, where the block's checks read it already (a coin that is not CC
   * was never filed, and is not looked up); undefined: the index is asked.
   */
  connect(txs: readonly Transaction[], txids: readonly string[], blockHash: string, spentScript?: (prevout: Outpoint) => Uint8Array | undefined): void {
    const changes: Change[] = [];
    for (let i = 0; i < txs.length; i++) {
      const tx = txs[i]!;
      if (!tx.isCoinbase()) {
        for (const input of tx.vin) {
          const script = spentScript?.(input.prevout);
          if (script && !isPayToCryptoCondition(script)) continue;
          const key = outpointKey(input.prevout.hash, input.prevout.index);
          const t = this.drop(key);
          if (t) changes.push({ remove: key, tracked: t });
        }
      }
      const last = tx.vout.length > 0 ? tx.vout[tx.vout.length - 1]!.script : undefined;
      if (!last || last[0] !== OP_RETURN) continue;
      const op = tryDecodeAssetTokenOpRet(last);
      if (!op) continue;
      const txidBytes = hashKey(txids[i]!);
      const base = { funcid: op.funcid, vout0: tx.vout[0]!.value, price: op.price, tokenid: op.tokenid, assetid2: op.assetid2, origpubkey: op.origpubkey };
      tx.vout.forEach((out, n) => {
        // komodod skips an order output of value 0 (a fully filled order) whatever else it is.
        if (out.value === 0n) return;
        const hashes = ccHashesOf(out.script);
        if (hashes.length === 0) return;
        const key = outpointKey(txidBytes, n);
        const t = encodeTracked(hashes, { ...base, value: out.value });
        this.add(key, t);
        changes.push({ add: key });
      });
    }
    if (changes.length > 0) this.undo.putSync(hashKey(blockHash), encodeUndo(changes));
  }

  /** Reverses what connecting the block changed, from its undo log (none: it changed nothing). */
  disconnect(blockHash: string): void {
    const raw = this.undo.get(hashKey(blockHash));
    if (!raw) return;
    const changes = decodeUndo(raw);
    for (let i = changes.length - 1; i >= 0; i--) {
      const c = changes[i]!;
      if ('add' in c) this.drop(c.add);
      else this.add(c.remove, c.tracked);
    }
    this.undo.removeSync(hashKey(blockHash));
  }

  clear(): void {
    for (const d of [this.orders, this.tracked, this.undo]) d.clearSync();
  }

  private add(outpoint: Buffer, tracked: Buffer): void {
    this.tracked.putSync(outpoint, tracked);
    for (const k of orderKeys(outpoint, tracked)) this.orders.putSync(k.key, k.value);
  }

  /** Removes a filed outpoint (spent), returning its tracked record. */
  private drop(outpoint: Buffer): Buffer | undefined {
    const t = this.tracked.get(outpoint);
    if (!t) return undefined;
    this.tracked.removeSync(outpoint);
    for (const k of orderKeys(outpoint, t)) this.orders.removeSync(k.key);
    return t;
  }
}

// ---- encodings -----------------------------------------------------------------------------------

function encodeOrder(o: Order): Buffer {
  const v = Buffer.allocUnsafe(93 + o.origpubkey.length);
  v[0] = o.funcid.charCodeAt(0);
  v.writeBigUInt64LE(o.value, 1);
  v.writeBigUInt64LE(BigInt.asUintN(64, o.vout0), 9);
  v.writeBigInt64LE(o.price, 17);
  v.set(o.tokenid, 25);
  v.set(o.assetid2, 57);
  v.writeUInt32LE(o.origpubkey.length, 89);
  v.set(o.origpubkey, 93);
  return v;
}

function decodeOrder(v: Buffer, at: number): Order {
  const len = v.readUInt32LE(at + 89);
  return {
    funcid: String.fromCharCode(v[at]!) as AssetFuncid,
    value: v.readBigUInt64LE(at + 1),
    vout0: v.readBigUInt64LE(at + 9),
    price: v.readBigInt64LE(at + 17),
    tokenid: new Uint8Array(v.subarray(at + 25, at + 57)),
    assetid2: new Uint8Array(v.subarray(at + 57, at + 89)),
    origpubkey: new Uint8Array(v.subarray(at + 93, at + 93 + len)),
  };
}

function encodeTracked(hashes: Buffer[], o: Order): Buffer {
  return Buffer.concat([Buffer.of(hashes.length), ...hashes, encodeOrder(o)]);
}

/** The assetOrders rows of a tracked outpoint: under each of its addresses, all / by token / by owner. */
function orderKeys(outpoint: Buffer, tracked: Buffer): { key: Buffer; value: Buffer }[] {
  const count = tracked[0]!;
  const at = 1 + 20 * count;
  const value = tracked.subarray(at);
  const o = decodeOrder(tracked, at);
  // The address index's tail: txid, then n little-endian.
  const tail = Buffer.allocUnsafe(36);
  outpoint.copy(tail, 0, 0, 32);
  tail.writeUInt32LE(outpoint.readUInt32BE(32), 32);
  const owner = (o.funcid === 's' || o.funcid === 'S') && validPubkey(o.origpubkey);
  const out: { key: Buffer; value: Buffer }[] = [];
  for (let k = 0; k < count; k++) {
    const hash = tracked.subarray(1 + 20 * k, 21 + 20 * k);
    out.push({ key: Buffer.concat([Buffer.of(ALL), hash, tail]), value });
    out.push({ key: Buffer.concat([Buffer.of(BY_TOKEN), hash, o.tokenid, tail]), value });
    if (owner) out.push({ key: Buffer.concat([Buffer.of(BY_OWNER), hash, Buffer.of(o.origpubkey.length), o.origpubkey, tail]), value });
  }
  return out;
}

/** count u32, then per change: 1 | outpoint (an add) or 2 | outpoint | tracked length u32 | tracked (a remove). */
function encodeUndo(changes: Change[]): Buffer {
  const parts: Buffer[] = [];
  const head = Buffer.allocUnsafe(4);
  head.writeUInt32LE(changes.length, 0);
  parts.push(head);
  for (const c of changes) {
    if ('add' in c) {
      parts.push(Buffer.of(1), c.add);
      continue;
    }
    const len = Buffer.allocUnsafe(4);
    len.writeUInt32LE(c.tracked.length, 0);
    parts.push(Buffer.of(2), c.remove, len, c.tracked);
  }
  return Buffer.concat(parts);
}

function decodeUndo(v: Buffer): Change[] {
  const n = v.readUInt32LE(0);
  const changes: Change[] = [];
  let at = 4;
  for (let i = 0; i < n; i++) {
    const tag = v[at]!;
    const key = Buffer.from(v.subarray(at + 1, at + 37));
    at += 37;
    if (tag === 1) {
      changes.push({ add: key });
      continue;
    }
    const len = v.readUInt32LE(at);
    changes.push({ remove: key, tracked: Buffer.from(v.subarray(at + 4, at + 4 + len)) });
    at += 4 + len;
  }
  return changes;
}
