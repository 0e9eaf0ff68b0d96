import type { Database } from 'lmdb';
import { hash160 } from '../../chain/crypto/hash.js';
import { fromHexReversed, toHex, toHexReversed } from '../../chain/encoding/hex.js';
import { isPayToCryptoCondition, parsePayToCryptoCondition, solver } from '../../chain/script/standard.js';
import { OP_RETURN } from '../../chain/script/opcodes.js';
import type { Outpoint } from '../../chain/tx/input.js';
import type { Transaction } from '../../chain/tx/transaction.js';
import { TOKENS_GLOBAL_PUBKEY, TOKENS_MARKER_SCRIPT, nftDataOf, tokenValuesOf, tryDecodeTokenOpRet, type TokenOpRet } from '../../chain/tokens/index.js';
import type { ChainDb } from './chaindb.js';
import { pageOf } from './lmdb-pages.js';
import { hashKey, outpointKey } from './lmdb-keys.js';
import type { OutputPage, OutputRef, TokenOutput, TokenRecord } from './protocol.js';

export type { TokenOutput, TokenRecord } from './protocol.js';

/**
 * The token registry: what komodod's token RPCs find through its address index and tx index, kept
 * with the chain state so that no query scans the chain:
 *
 * - creation records: every confirmed transaction whose last output decodes as a token create opret
 *   (tokeninfo), with its supply as TokenInfo sums it (IsTokensvout over its outputs);
 * - token outputs: the unspent outputs that IsTokensvout(goDeeper=true) accepts as outputs of their
 *   token, filed by (tokenid, CC address) (tokenbalance, tokentransfer's AddTokenCCInputs). Whether an
 *   output is a genuine token output depends only on confirmed, immutable transactions, so it is
 *   decided once, when its block connects;
 * - tokenlist's two sources: receiving entries at the Tokens global normal address (old-style
 *   markers, chronological) and unspent outputs at the Tokens global CC address (new-style markers),
 *   both only for transactions whose last output decodes as a create opret.
 *
 * It lives in the chain's LMDB environment and changes inside the chain store's write transaction
 * of each block (connect and disconnect, with the block's undo log), so it is always at the chain's
 * tip and nothing is rebuilt at start. Keys put LMDB's byte order where komodod's leveldb order is
 * read (CAddressUnspentKey: txid internal bytes, then the index little-endian):
 *
 * - tokens: tokenid (internal) → owner | name | description | data (u32-length-prefixed) | supply u64 | height u32
 * - tokenOutputs: tokenid | CC address hash160 | txid | n u32 LE → value u64 | height u32 | script
 * - tokenTotals: tokenid | CC address hash160 → Σ value of its tokenOutputs rows u64 (a running total:
 *   tokenbalance reads one row, not the holder's outputs; no row when nothing is left)
 * - tokenTracked: outpoint (txid | n u32 BE) → 1 (output) | tokenid | address hash, or 2 (marker)
 * - tokenMarkers: txid | n u32 LE → value u64 | height u32 | script
 * - tokenNormal: height u32 BE | seq u32 BE → txid (chronological)
 * - tokenUndo: block hash → the changes in order, and the tokens created
 */

type Tracked = { kind: 'output'; tokenid: string; addressHash: string; out: TokenOutput } | { kind: 'marker'; out: TokenOutput };

type Change = { add: Buffer } | { remove: Buffer; entry: Tracked };

/** The address-index hash of a CC output: Hash160 of its CC sub-script (hex). */
function ccAddressHashOf(script: Uint8Array): string | null {
  const cc = parsePayToCryptoCondition(script);
  return cc ? toHex(hash160(cc.ccSubScript)) : null;
}

const GLOBAL_CC_HASH = ccAddressHashOf(TOKENS_MARKER_SCRIPT)!;
const GLOBAL_NORMAL_HASH = toHex(hash160(TOKENS_GLOBAL_PUBKEY));

/** Pays the Tokens global normal address (P2PK of its key or P2PKH of its hash): komodod's address index type 1. */
function paysGlobalNormal(script: Uint8Array): boolean {
  const s = solver(script, { ccEnabled: true });
  if (s.type === 'pubkey') return toHex(hash160(s.solutions[0]!)) === GLOBAL_NORMAL_HASH;
  if (s.type === 'pubkeyhash') return toHex(s.solutions[0]!) === GLOBAL_NORMAL_HASH;
  return false;
}

/**
 * DecodeTokenOpRet of the last output, when it is an OP_RETURN script (both token opret decoders
 * read GetOpReturnData, empty otherwise). A create opret is exactly what DecodeTokenCreateOpRet
 * accepts, so funcid 'c' also answers whether the tx is a token creation.
 */
function tokenOpretOf(tx: Transaction): TokenOpRet | null {
  return tx.vout.length > 0 && tx.vout[tx.vout.length - 1]!.script[0] === OP_RETURN ? tryDecodeTokenOpRet(tx.vout[tx.vout.length - 1]!.script) : null;
}

export class TokenIndex {
  private readonly tokens: Database<Buffer, Buffer>;
  private readonly outputs: Database<Buffer, Buffer>;
  private readonly totals: Database<Buffer, Buffer>;
  private readonly tracked: Database<Buffer, Buffer>;
  private readonly markers: Database<Buffer, Buffer>;
  private readonly normal: Database<Buffer, Buffer>;
  private readonly undo: Database<Buffer, Buffer>;

  constructor(
    db: ChainDb,
    private readonly log: (msg: string) => void = () => {},
  ) {
    this.tokens = db.index('tokens');
    this.outputs = db.index('tokenOutputs');
    this.totals = db.index('tokenTotals');
    this.tracked = db.index('tokenTracked');
    this.markers = db.index('tokenMarkers');
    this.normal = db.index('tokenNormal');
    this.undo = db.index('tokenUndo');
  }

  // ---- reads -----------------------------------------------------------------------------------

  info(tokenid: string): TokenRecord | null {
    const v = this.tokens.get(hashKey(tokenid));
    return v ? decodeRecord(tokenid, v) : null;
  }

  /** The number of tokens created (LMDB's entry count). */
  get count(): number {
    return (this.tokens.getStats() as { entryCount: number }).entryCount;
  }

  /** TokenList: old-style markers in chronological order, then new-style markers in index-key order. */
  list(): string[] {
    const out: string[] = [];
    for (const { value } of this.normal.getRange({})) out.push(toHexReversed(value));
    for (const { key } of this.markers.getRange({})) out.push(toHexReversed(key.subarray(0, 32)));
    return out;
  }

  /** The token's unspent outputs at one CC address, in CAddressUnspentKey order. */
  outputsAt(tokenid: string, addressHash: string): TokenOutput[] {
    const prefix = Buffer.concat([hashKey(tokenid), Buffer.from(addressHash, 'hex')]);
    const out: TokenOutput[] = [];
    for (const { key, value } of this.outputs.getRange({ start: prefix, end: Buffer.concat([prefix, Buffer.alloc(40, 0xff)]) })) {
      out.push(decodeOutput(key.subarray(52, 84), key.readUInt32LE(84), value));
    }
    return out;
  }

  /** Σ value of the token's unspent outputs at one CC address (outputsAt's sum): its running total, one read. */
  totalAt(tokenid: string, addressHash: string): bigint {
    const v = this.totals.get(Buffer.concat([hashKey(tokenid), Buffer.from(addressHash, 'hex')]));
    return v ? v.readBigUInt64LE(0) : 0n;
  }

  /**
   * The value of each outpoint that is one of the token's unspent outputs at that CC address, 0n for
   * any other (tokenbalance takes the holder's outputs spent in the mempool off its total).
   */
  valuesAt(tokenid: string, addressHash: string, outpoints: readonly (readonly [txid: string, n: number])[]): bigint[] {
    const owner = Buffer.concat([Buffer.of(1), hashKey(tokenid), Buffer.from(addressHash, 'hex')]);
    return outpoints.map(([txid, n]) => {
      const key = outpointKey(fromHexReversed(txid), n);
      const t = this.tracked.get(key);
      if (!t || !t.equals(owner)) return 0n;
      const v = this.outputs.get(Buffer.concat([t.subarray(1, 53), outputTail(key)]));
      return v ? v.readBigUInt64LE(0) : 0n;
    });
  }

  /**
   * A page of AddTokenCCInputs' walk over those outputs: up to `limit` worth at least `minValue`, in
   * key order after the cursor `after`. Costs what it walks, not the holder's whole set.
   */
  outputsPageAt(tokenid: string, addressHash: string, after: OutputRef | undefined, limit: number, minValue = 0n): OutputPage<TokenOutput> {
    const prefix = Buffer.concat([hashKey(tokenid), Buffer.from(addressHash, 'hex')]);
    return pageOf(this.outputs, prefix, after, limit, minValue, (v) => v.readBigUInt64LE(0), (key, value) => decodeOutput(key.subarray(52, 84), key.readUInt32LE(84), value));
  }

  /** A canonical dump of the whole index (tests: a reorged or reopened index against a fresh one). */
  snapshot(): unknown {
    const rows = (d: Database<Buffer, Buffer>) => [...d.getRange({})].map(({ key, value }) => `${key.toString('hex')} ${value.toString('hex')}`);
    return { tokens: rows(this.tokens), outputs: rows(this.outputs), totals: rows(this.totals), tracked: rows(this.tracked), markers: rows(this.markers), normal: rows(this.normal) };
  }

  // ---- writes (inside the chain store's write transaction) ------------------------------------

  /**
   * Indexes a block's token transactions. `lookup` gives confirmed transactions (the chain's tx
   * index); the block's own earlier transactions come first, as the validator sees them.
   * `spentScript`: the script of a chain coin an input spends, where the block's checks read it
   * already (undefined otherwise: the index is asked, as for every input without it).
   */
  connect(
    txs: readonly Transaction[],
    txids: readonly string[],
    blockHash: string,
    height: number,
    lookup: (txid: string) => Transaction | undefined,
    spentScript?: (prevout: Outpoint) => Uint8Array | undefined,
  ): void {
    const changes: Change[] = [];
    const created: string[] = [];
    // The block's transactions up to the one being indexed, by txid: filled once a token transaction
    // asks (most blocks have none, and a map of every transaction was built for nothing).
    const local = new Map<string, Transaction>();
    let localUpTo = 0;
    const localTx = (id: string, upTo: number): Transaction | undefined => {
      for (; localUpTo <= upTo; localUpTo++) local.set(txids[localUpTo]!, txs[localUpTo]!);
      return local.get(id);
    };
    let normalSeq = 0;
    for (let i = 0; i < txs.length; i++) {
      const tx = txs[i]!;
      const txid = txids[i]!;
      if (!tx.isCoinbase()) {
        for (const input of tx.vin) {
          // Only an output at a CC address is ever tracked (a token output or a marker): a coin paying
          // anything else has no entry to drop, and is not looked up (a read per input of every block).
          const script = spentScript?.(input.prevout);
          if (script && !isPayToCryptoCondition(script)) continue;
          const key = outpointKey(input.prevout.hash, input.prevout.index);
          const entry = this.drop(key);
          if (entry) changes.push({ remove: key, entry });
        }
      }
      const op = tokenOpretOf(tx);
      const create = op?.funcid === 'c' ? op : null;
      // Old-style marker: a receiving entry at the Tokens normal address, per output.
      if (create) for (const out of tx.vout) if (paysGlobalNormal(out.script)) this.normal.putSync(normalKey(height, normalSeq++), hashKey(txid));
      if (!op) continue;
      const tokenid = op.funcid === 't' ? toHexReversed(op.tokenid) : txid;
      let values: bigint[];
      // A lookup that fails (a block file that cannot be read) is never taken for a missing
      // transaction: it aborts the block's write transaction.
      let failedRead: { error: unknown } | undefined;
      const getTransaction = (id: Uint8Array) => {
        const hex = toHexReversed(id);
        try {
          return localTx(hex, i) ?? lookup(hex);
        } catch (error) {
          failedRead = { error };
          throw error;
        }
      };
      try {
        values = tokenValuesOf(tx, fromHexReversed(tokenid), { getTransaction }, fromHexReversed(txid));
      } catch (e) {
        if (failedRead) throw failedRead.error;
        // The validator is total over decodable transactions; should it ever throw, the transaction
        // holds no token outputs rather than stopping the chain.
        this.log(`token index: ${txid}: ${String(e)}`);
        values = tx.vout.map(() => 0n);
      }
      if (failedRead) throw failedRead.error;
      tx.vout.forEach((out, n) => {
        const key = outpointKey(fromHexReversed(txid), n);
        const entryOut: TokenOutput = { txid, index: n, value: out.value, script: out.script, height };
        const addr = ccAddressHashOf(out.script);
        let entry: Tracked | undefined;
        if (create && addr === GLOBAL_CC_HASH) entry = { kind: 'marker', out: entryOut };
        else if (values[n]! > 0n && addr) entry = { kind: 'output', tokenid, addressHash: addr, out: entryOut };
        if (entry) {
          this.add(key, entry);
          changes.push({ add: key });
        }
      });
      if (create && !this.tokens.doesExist(hashKey(txid))) {
        let supply = 0n;
        for (const v of values) supply += v;
        this.tokens.putSync(
          hashKey(txid),
          encodeRecord({ tokenid: txid, owner: toHex(create.origPubkey), name: create.name, description: create.description, data: nftDataOf(create), supply, height }),
        );
        created.push(txid);
      }
    }
    this.undo.putSync(hashKey(blockHash), encodeUndo(changes, created));
  }

  /** Reverses what connecting the block changed, from its undo log. */
  disconnect(blockHash: string, height: number): void {
    const raw = this.undo.get(hashKey(blockHash));
    if (!raw) throw new Error(`token index: no undo data for ${blockHash}`);
    const { changes, created } = decodeUndo(raw);
    for (let i = changes.length - 1; i >= 0; i--) {
      const c = changes[i]!;
      if ('add' in c) this.drop(c.add);
      else this.add(c.remove, c.entry);
    }
    for (const t of created) this.tokens.removeSync(hashKey(t));
    for (const key of this.normal.getKeys({ start: normalKey(height, 0), end: normalKey(height + 1, 0) })) this.normal.removeSync(key as Buffer);
    this.undo.removeSync(hashKey(blockHash));
  }

  clear(): void {
    for (const d of [this.tokens, this.outputs, this.totals, this.tracked, this.markers, this.normal, this.undo]) d.clearSync();
  }

  private add(key: Buffer, entry: Tracked): void {
    const n = key.readUInt32BE(32);
    const tail = Buffer.allocUnsafe(36);
    key.copy(tail, 0, 0, 32);
    tail.writeUInt32LE(n, 32);
    if (entry.kind === 'output') {
      this.tracked.putSync(key, Buffer.concat([Buffer.of(1), hashKey(entry.tokenid), Buffer.from(entry.addressHash, 'hex')]));
      const holder = Buffer.concat([hashKey(entry.tokenid), Buffer.from(entry.addressHash, 'hex')]);
      this.outputs.putSync(Buffer.concat([holder, tail]), encodeOutput(entry.out));
      this.addTotal(holder, entry.out.value);
    } else {
      this.tracked.putSync(key, Buffer.of(2));
      this.markers.putSync(tail, encodeOutput(entry.out));
    }
  }

  /** Removes a tracked outpoint (spent), returning what it was. */
  private drop(key: Buffer): Tracked | undefined {
    const t = this.tracked.get(key);
    if (!t) return undefined;
    const n = key.readUInt32BE(32);
    const tail = Buffer.allocUnsafe(36);
    key.copy(tail, 0, 0, 32);
    tail.writeUInt32LE(n, 32);
    this.tracked.removeSync(key);
    if (t[0] === 1) {
      const okey = Buffer.concat([t.subarray(1, 53), tail]);
      const out = decodeOutput(key.subarray(0, 32), n, this.outputs.get(okey)!);
      this.outputs.removeSync(okey);
      this.addTotal(t.subarray(1, 53), -out.value);
      return { kind: 'output', tokenid: toHexReversed(t.subarray(1, 33)), addressHash: t.subarray(33, 53).toString('hex'), out };
    }
    const out = decodeOutput(key.subarray(0, 32), n, this.markers.get(tail)!);
    this.markers.removeSync(tail);
    return { kind: 'marker', out };
  }

  /** A (tokenid, CC address) total changed with one of its outputs, put or removed. */
  private addTotal(holder: Buffer, delta: bigint): void {
    const v = this.totals.get(holder);
    const total = (v ? v.readBigUInt64LE(0) : 0n) + delta;
    if (total === 0n) this.totals.removeSync(holder);
    else {
      const b = Buffer.allocUnsafe(8);
      b.writeBigUInt64LE(total, 0);
      this.totals.putSync(Buffer.from(holder), b);
    }
  }
}

// ---- encodings -----------------------------------------------------------------------------------

/** An outpoint key (txid | n u32 BE) as the tail of a tokenOutputs key (txid | n u32 LE). */
function outputTail(key: Buffer): Buffer {
  const tail = Buffer.allocUnsafe(36);
  key.copy(tail, 0, 0, 32);
  tail.writeUInt32LE(key.readUInt32BE(32), 32);
  return tail;
}

function normalKey(height: number, seq: number): Buffer {
  const k = Buffer.allocUnsafe(8);
  k.writeUInt32BE(height, 0);
  k.writeUInt32BE(seq, 4);
  return k;
}

function encodeOutput(o: TokenOutput): Buffer {
  const v = Buffer.allocUnsafe(12 + o.script.length);
  v.writeBigUInt64LE(o.value, 0);
  v.writeUInt32LE(o.height, 8);
  v.set(o.script, 12);
  return v;
}

function decodeOutput(txidInternal: Uint8Array, n: number, v: Buffer): TokenOutput {
  return { txid: toHexReversed(txidInternal), index: n, value: v.readBigUInt64LE(0), height: v.readUInt32LE(8), script: new Uint8Array(v.subarray(12)) };
}

function lengthPrefixed(parts: Uint8Array[]): Buffer {
  const out: Buffer[] = [];
  for (const p of parts) {
    const len = Buffer.allocUnsafe(4);
    len.writeUInt32LE(p.length, 0);
    out.push(len, Buffer.from(p));
  }
  return Buffer.concat(out);
}

function readPrefixed(v: Buffer, count: number, at = 0): { parts: Buffer[]; end: number } {
  const parts: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const len = v.readUInt32LE(at);
    parts.push(v.subarray(at + 4, at + 4 + len));
    at += 4 + len;
  }
  return { parts, end: at };
}

function encodeRecord(r: TokenRecord): Buffer {
  const tail = Buffer.allocUnsafe(12);
  tail.writeBigUInt64LE(r.supply, 0);
  tail.writeUInt32LE(r.height, 8);
  return Buffer.concat([lengthPrefixed([Buffer.from(r.owner, 'hex'), r.name, r.description, r.data]), tail]);
}

function decodeRecord(tokenid: string, v: Buffer): TokenRecord {
  const { parts, end } = readPrefixed(v, 4);
  const [owner, name, description, data] = parts as [Buffer, Buffer, Buffer, Buffer];
  return {
    tokenid,
    owner: owner.toString('hex'),
    name: new Uint8Array(name),
    description: new Uint8Array(description),
    data: new Uint8Array(data),
    supply: v.readBigUInt64LE(end),
    height: v.readUInt32LE(end + 8),
  };
}

/** count u32, then per change: 1 | outpoint (an add) or 2 | outpoint | kind u8 | [tokenid | address hash] | txid | n u32 | output (a remove); then the created tokenids, length-prefixed. */
function encodeUndo(changes: Change[], created: string[]): Buffer {
  const parts: Buffer[] = [];
  const head = Buffer.allocUnsafe(4);
  head.writeUInt32LE(changes.length, 0);
  parts.push(head);
  for (const c of changes) {
    if ('add' in c) {
      parts.push(Buffer.of(1), c.add);
      continue;
    }
    const e = c.entry;
    const out = encodeOutput(e.out);
    const len = Buffer.allocUnsafe(4);
    len.writeUInt32LE(out.length, 0);
    parts.push(Buffer.of(2), c.remove, e.kind === 'output' ? Buffer.concat([Buffer.of(1), hashKey(e.tokenid), Buffer.from(e.addressHash, 'hex')]) : Buffer.of(2), len, out);
  }
  parts.push(lengthPrefixed([Buffer.concat(created.map((t) => hashKey(t)))]));
  return Buffer.concat(parts);
}

function decodeUndo(v: Buffer): { changes: Change[]; created: string[] } {
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
    const kind = v[at]!;
    let tokenid = '';
    let addressHash = '';
    if (kind === 1) {
      tokenid = toHexReversed(v.subarray(at + 1, at + 33));
      addressHash = v.subarray(at + 33, at + 53).toString('hex');
      at += 53;
    } else {
      at += 1;
    }
    const len = v.readUInt32LE(at);
    const out = decodeOutput(key.subarray(0, 32), key.readUInt32BE(32), v.subarray(at + 4, at + 4 + len));
    at += 4 + len;
    changes.push({ remove: key, entry: kind === 1 ? { kind: 'output', tokenid, addressHash, out } : { kind: 'marker', out } });
  }
  const { parts } = readPrefixed(v, 1, at);
  const created: string[] = [];
  for (let k = 0; k + 32 <= parts[0]!.length; k += 32) created.push(toHexReversed(parts[0]!.subarray(k, k + 32)));
  return { changes, created };
}
