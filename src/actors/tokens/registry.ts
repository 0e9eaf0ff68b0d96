import type { Block } from '../../chain/block/block.js';
import { hash160 } from '../../chain/crypto/hash.js';
import { fromHexReversed, toHex, toHexReversed } from '../../chain/encoding/hex.js';
import { parsePayToCryptoCondition, solver } from '../../chain/script/standard.js';
import { OP_RETURN } from '../../chain/script/opcodes.js';
import type { Transaction } from '../../chain/tx/transaction.js';
import {
  TOKENS_GLOBAL_PUBKEY,
  TOKENS_MARKER_SCRIPT,
  nftDataOf,
  tokenValuesOf,
  tryDecodeTokenOpRet,
  type TokenOpRet,
  type TokensLookup,
} from '../../chain/tokens/index.js';
import type { ServiceLogic, WriteOutcome } from '../../machines/service.js';
import type { Asker } from '../ask.js';
import { compareAddressUnspent, outpointKey } from '../chainstore/coins.js';
import { OrderedOutputs, type OutputRef } from '../chainstore/ordered-outputs.js';
import { ServiceFailure, type Op } from '../protocol.js';

/**
 * The token registry: what komodod's token RPCs find through its address index and tx index, kept
 * from the chain store's blockConnected/blockDisconnected notices so that no query scans the chain:
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
 * Every change a block makes is recorded as its undo, so a disconnect reverses exactly what the
 * connect did. The index lives in memory and is rebuilt from the chain store at start.
 */

/** A token's creation record (tokeninfo). */
export interface TokenRecord {
  /** display hex */
  tokenid: string;
  /** hex of the opret's origpubkey */
  owner: string;
  name: Uint8Array;
  description: Uint8Array;
  /** NFT data (empty for a fungible token) */
  data: Uint8Array;
  /** Σ IsTokensvout over the create tx's outputs */
  supply: bigint;
  height: number;
}

/** An unspent token output. */
export interface TokenOutput {
  /** display hex */
  txid: string;
  index: number;
  value: bigint;
  script: Uint8Array;
  height: number;
}

interface Undo {
  hash: string;
  /** index changes in the order they were made (a disconnect undoes them backwards) */
  log: ({ add: string } | { remove: string; entry: Tracked })[];
  created: string[];
  normalMarkers: number;
}

type Tracked =
  | { kind: 'output'; group: string; out: TokenOutput }
  | { kind: 'marker'; out: TokenOutput };

/** The address-index hash of a CC output: Hash160 of its CC sub-script. */
function ccAddressHashOf(script: Uint8Array): string | null {
  const cc = parsePayToCryptoCondition(script);
  return cc ? toHex(hash160(cc.ccSubScript)) : null;
}

const GLOBAL_CC_HASH = ccAddressHashOf(TOKENS_MARKER_SCRIPT)!;
const GLOBAL_NORMAL_HASH = toHex(hash160(TOKENS_GLOBAL_PUBKEY));

/** The group key of a token's outputs at one CC address. */
export const outputGroup = (tokenid: string, addressHash: string): string => `${tokenid}:${addressHash}`;

/** Pays the Tokens global normal address (P2PK of its key or P2PKH of its hash): komodod's address index type 1. */
function paysGlobalNormal(script: Uint8Array): boolean {
  const s = solver(script, { ccEnabled: true });
  if (s.type === 'pubkey') return toHex(hash160(s.solutions[0]!)) === GLOBAL_NORMAL_HASH;
  if (s.type === 'pubkeyhash') return toHex(s.solutions[0]!) === GLOBAL_NORMAL_HASH;
  return false;
}

/**
 * Whether the last output is an OP_RETURN script: both token opret decoders read GetOpReturnData, which
 * is empty (and fails to decode) otherwise, so any other transaction is skipped without a decode that
 * throws (most of a block's transactions).
 */
function endsWithOpReturn(tx: Transaction): boolean {
  return tx.vout.length > 0 && tx.vout[tx.vout.length - 1]!.script[0] === OP_RETURN;
}

/**
 * DecodeTokenOpRet of the last output. A create opret is exactly what DecodeTokenCreateOpRet accepts
 * (both decode the same payload), so funcid 'c' also answers whether the tx is a token creation.
 */
function tokenOpretOf(tx: Transaction): TokenOpRet | null {
  return endsWithOpReturn(tx) ? tryDecodeTokenOpRet(tx.vout[tx.vout.length - 1]!.script) : null;
}

/** One empty array for every fungible token's NFT data (a zero-length array cannot be written into). */
const NO_DATA = new Uint8Array(0);
const nonEmptyOrShared = (data: Uint8Array): Uint8Array => (data.length > 0 ? data : NO_DATA);

export interface TokenRegistryOptions {
  chain: Asker;
  log?: (msg: string) => void;
}

interface TxInfo {
  tx: Transaction;
}

/** How many rounds of fetching missing transactions one token transaction may take (the validator reads 3 levels deep). */
const MAX_FETCH_ROUNDS = 6;

export class TokenRegistryLogic implements ServiceLogic {
  readonly name = 'tokenRegistry';
  /** Block hashes of the chain the index reflects, by height (0 = genesis, never holds tokens). */
  private readonly chainHashes: string[] = [];
  private readonly undos: Undo[] = [];
  readonly tokens = new Map<string, TokenRecord>();
  /** group (tokenid:addressHash) → its outputs in address-index order */
  private readonly outputs = new Map<string, OrderedOutputs<TokenOutput>>();
  /** unspent outpoints the index holds: token outputs and CC markers */
  private readonly tracked = new Map<string, Tracked>();
  /** unspent outputs at the Tokens global CC address of create txs */
  private readonly ccMarkers = new Map<string, TokenOutput>();
  /** receiving entries at the Tokens global normal address of create txs, chronological */
  private readonly normalMarkers: { txid: string; height: number }[] = [];
  private readonly log: (msg: string) => void;

  constructor(private readonly opts: TokenRegistryOptions) {
    this.log = opts.log ?? (() => {});
  }

  async load(): Promise<void> {
    // Rebuild from the chain store's active chain: walk back from its tip by parent links (a
    // consistent chain even if the store moves on meanwhile: its later notices queue behind this).
    const tip = await this.opts.chain.ask<{ hash: string; height: number }>({ op: 'tip' }, 10 * 60_000);
    const hashes: string[] = [];
    let hash: string | null = tip.hash;
    while (hash) {
      const e: { prev: string | null; height: number } | null = await this.opts.chain.ask({ op: 'entry', hash });
      if (!e) throw new Error(`tokenRegistry: block ${hash} vanished while loading`);
      hashes.push(hash);
      hash = e.height > 0 ? e.prev : null;
    }
    hashes.reverse();
    this.chainHashes.push(hashes[0]!);
    this.undos.push({ hash: hashes[0]!, log: [], created: [], normalMarkers: 0 });
    for (let h = 1; h < hashes.length; h++) {
      const b = await this.opts.chain.ask<{ block: Block; txids: string[] } | null>({ op: 'block', hash: hashes[h] });
      if (!b) throw new Error(`tokenRegistry: block ${hashes[h]} vanished while loading`);
      await this.connect(hashes[h]!, h, b.block, b.txids);
    }
    if (this.tokens.size > 0) this.log(`token registry: ${this.tokens.size} tokens at height ${this.chainHashes.length - 1}`);
  }

  async close(): Promise<void> {}

  private reset(): void {
    this.chainHashes.length = 0;
    this.undos.length = 0;
    this.tokens.clear();
    this.outputs.clear();
    this.tracked.clear();
    this.ccMarkers.clear();
    this.normalMarkers.length = 0;
  }

  /**
   * Every operation is a write: queries are answered in order after the block notices that arrived
   * before them, so an RPC made after `generate` returned sees that block.
   */
  isWrite(_body: Op): boolean {
    return true;
  }

  read(body: Op): unknown {
    return this.query(body);
  }

  async write(body: Op): Promise<WriteOutcome> {
    switch (body.op) {
      case 'blockConnected': {
        const height = body.height as number;
        const hash = body.hash as string;
        const block = body.block as Block;
        // Already reflected: it connected before this index was loaded.
        if (this.chainHashes[height] === hash) return { result: null };
        const prev = toHexReversed(block.header.prevHash);
        if (height !== this.chainHashes.length || this.chainHashes[height - 1] !== prev) {
          // Not on top of the index (it cannot happen while notices arrive in order): rebuild from
          // the chain store rather than stay behind.
          this.log(`tokenRegistry: block ${hash} at ${height} does not extend the index at ${this.chainHashes.length - 1}: rebuilding`);
          this.reset();
          await this.load();
          return { result: null };
        }
        await this.connect(hash, height, block, body.txids as string[]);
        return { result: null };
      }
      case 'blockDisconnected': {
        const height = body.height as number;
        if (height !== this.chainHashes.length - 1 || this.chainHashes[height] !== body.hash) return { result: null };
        this.disconnect();
        return { result: null };
      }
      default:
        return { result: this.query(body) };
    }
  }

  summary(): Record<string, unknown> {
    return { height: this.chainHashes.length - 1, tokens: this.tokens.size, outputs: this.tracked.size };
  }

  private query(body: Op): unknown {
    switch (body.op) {
      case 'status':
        return { height: this.chainHashes.length - 1, hash: this.chainHashes[this.chainHashes.length - 1] ?? null };
      case 'info':
        return this.tokens.get(body.tokenid as string) ?? null;
      case 'list':
        return this.list();
      case 'outputs':
        return this.outputs.get(outputGroup(body.tokenid as string, body.addressHash as string))?.toArray() ?? [];
      case 'outputsPage': {
        // A page of AddTokenCCInputs' walk: key order from the cursor `after`, outputs ≥ minValue.
        const m = this.outputs.get(outputGroup(body.tokenid as string, body.addressHash as string));
        return m?.page(body.after as OutputRef | undefined, body.limit as number, (body.minValue as bigint | undefined) ?? 0n) ?? { outputs: [], next: null };
      }
      default:
        throw new ServiceFailure(-32601, `tokenRegistry has no operation ${body.op}`);
    }
  }

  /** TokenList: old-style markers in chronological order, then new-style markers in index-key order. */
  private list(): string[] {
    const out = this.normalMarkers.map((m) => m.txid);
    const markers = [...this.ccMarkers.values()].sort(compareAddressUnspent);
    for (const m of markers) out.push(m.txid);
    return out;
  }

  // ---- connecting --------------------------------------------------------------------------

  private addTracked(key: string, entry: Tracked, undo?: Undo): void {
    this.tracked.set(key, entry);
    if (entry.kind === 'output') {
      let m = this.outputs.get(entry.group);
      if (!m) this.outputs.set(entry.group, (m = new OrderedOutputs()));
      m.add(entry.out);
    } else {
      this.ccMarkers.set(key, entry.out);
    }
    undo?.log.push({ add: key });
  }

  private dropTracked(key: string): Tracked | undefined {
    const entry = this.tracked.get(key);
    if (!entry) return undefined;
    this.tracked.delete(key);
    if (entry.kind === 'output') {
      const m = this.outputs.get(entry.group);
      m?.delete(entry.out.txid, entry.out.index);
      if (m && m.size === 0) this.outputs.delete(entry.group);
    } else {
      this.ccMarkers.delete(key);
    }
    return entry;
  }

  private async connect(hash: string, height: number, block: Block, txids: string[]): Promise<void> {
    const undo: Undo = { hash, log: [], created: [], normalMarkers: 0 };
    // The validator's view: the block's transactions up to the current one, then the chain store.
    const local = new Map<string, Transaction>();
    const fetched = new Map<string, Transaction | null>();
    const ops = block.txs.map(tokenOpretOf);
    await this.readAhead(block, txids, ops, fetched);
    // A block is indexed whole or not at all: should a read fail midway, what it changed is reverted
    // and the error reported; the index stays at the previous block and the next notice, which no
    // longer extends it, rebuilds it from the chain store.
    try {
      for (let i = 0; i < block.txs.length; i++) {
        const tx = block.txs[i]!;
        const txid = txids[i]!;
        local.set(txid, tx);
        if (!tx.isCoinbase()) {
          for (const input of tx.vin) {
            const key = outpointKey(input.prevout.txid(), input.prevout.index);
            const entry = this.dropTracked(key);
            if (entry) undo.log.push({ remove: key, entry });
          }
        }
        const op = ops[i] ?? null;
        const create = op?.funcid === 'c' ? op : null;
        // Old-style marker: a receiving entry at the Tokens normal address, per output.
        if (create) {
          tx.vout.forEach((out) => {
            if (paysGlobalNormal(out.script)) {
              this.normalMarkers.push({ txid, height });
              undo.normalMarkers++;
            }
          });
        }
        if (!op) continue;
        const tokenid = op.funcid === 't' ? toHexReversed(op.tokenid) : txid;
        const values = await this.tokenValues(tx, txid, tokenid, local, fetched);
        tx.vout.forEach((out, n) => {
          const key = outpointKey(txid, n);
          const entryOut: TokenOutput = { txid, index: n, value: out.value, script: out.script, height };
          const addr = ccAddressHashOf(out.script);
          if (create && addr === GLOBAL_CC_HASH) this.addTracked(key, { kind: 'marker', out: entryOut }, undo);
          else if (values[n]! > 0n && addr) this.addTracked(key, { kind: 'output', group: outputGroup(tokenid, addr), out: entryOut }, undo);
        });
        if (create && !this.tokens.has(txid)) {
          let supply = 0n;
          for (const v of values) supply += v;
          this.tokens.set(txid, {
            tokenid: txid,
            owner: toHex(create.origPubkey),
            name: create.name,
            description: create.description,
            data: nonEmptyOrShared(nftDataOf(create)),
            supply,
            height,
          });
          undo.created.push(txid);
        }
      }
    } catch (e) {
      this.revert(undo);
      throw e;
    }
    this.chainHashes.push(hash);
    this.undos.push(undo);
  }

  /**
   * Fetches in one request what the validator will ask for about the block's token transactions:
   * each token's creation, every transaction they spend, and the inputs of those spent that are
   * creations (a creation's supply is weighed against its normal inputs). Without it each token
   * transaction took up to three fetch-and-recompute rounds in tokenValues, whose rounds stay the
   * rule for anything this misses.
   */
  private async readAhead(block: Block, txids: string[], ops: readonly (TokenOpRet | null)[], fetched: Map<string, Transaction | null>): Promise<void> {
    // The block's own transactions are the validator's `local` view, never fetched.
    const inBlock = new Set(txids);
    const want = new Set<string>();
    const need = (id: string): void => {
      if (!inBlock.has(id) && !fetched.has(id)) want.add(id);
    };
    const needInputsOf = (tx: Transaction): void => {
      if (!tx.isCoinbase()) for (const vin of tx.vin) need(toHexReversed(vin.prevout.hash));
    };
    block.txs.forEach((tx, i) => {
      const op = ops[i];
      if (op?.funcid === 't') need(toHexReversed(op.tokenid));
      if (op) needInputsOf(tx);
    });
    try {
      await this.fetchInto([...want], fetched);
      want.clear();
      for (const t of fetched.values()) if (t && tokenOpretOf(t)?.funcid === 'c') needInputsOf(t);
      await this.fetchInto([...want], fetched);
    } catch (e) {
      // Nothing is marked missing: the validator's rounds ask again for what they need.
      this.log(`tokenRegistry: reading ahead ${want.size} transactions: ${String(e)}`);
    }
  }

  /**
   * Files the chain store's answer for each id (null: not in the active chain). The wait is long: the
   * reads queue behind the chain store's writes, and a verdict must never rest on a read that failed.
   */
  private async fetchInto(ids: string[], fetched: Map<string, Transaction | null>): Promise<void> {
    if (ids.length === 0) return;
    const infos = await this.opts.chain.ask<(TxInfo | null)[]>({ op: 'txs', txids: ids }, 10 * 60_000);
    ids.forEach((id, k) => fetched.set(id, infos[k]?.tx ?? null));
  }

  /**
   * IsTokensvout(goDeeper=true) for every output of `tx` (0 for the last and for non-token outputs).
   * The validator reads transactions synchronously; the ones it misses are fetched from the chain
   * store and the computation is run again, until nothing new is missing.
   */
  private async tokenValues(
    tx: Transaction,
    txid: string,
    tokenid: string,
    local: Map<string, Transaction>,
    fetched: Map<string, Transaction | null>,
  ): Promise<bigint[]> {
    const tokenidBytes = fromHexReversed(tokenid);
    const txidBytes = fromHexReversed(txid);
    for (let round = 0; ; round++) {
      const missing = new Set<string>();
      const lookup: TokensLookup = {
        getTransaction: (id) => {
          const hex = toHexReversed(id);
          const t = local.get(hex) ?? fetched.get(hex);
          if (t === undefined) missing.add(hex);
          return t ?? undefined;
        },
      };
      let values: bigint[];
      try {
        values = tokenValuesOf(tx, tokenidBytes, lookup, txidBytes);
      } catch (e) {
        // The validator is total over decodable transactions; should it ever throw, the transaction
        // holds no token outputs rather than stopping the index.
        this.log(`tokenRegistry: ${tx.txid()}: ${String(e)}`);
        return tx.vout.map(() => 0n);
      }
      if (missing.size === 0 || round >= MAX_FETCH_ROUNDS) return values;
      await this.fetchInto([...missing], fetched);
    }
  }

  private disconnect(): void {
    const undo = this.undos.pop()!;
    this.chainHashes.pop();
    this.revert(undo);
  }

  /** Reverses what connecting a block changed, as its undo recorded it (in full or up to a failure). */
  private revert(undo: Undo): void {
    for (let i = undo.log.length - 1; i >= 0; i--) {
      const change = undo.log[i]!;
      if ('add' in change) this.dropTracked(change.add);
      else this.addTracked(change.remove, change.entry);
    }
    for (const t of undo.created) this.tokens.delete(t);
    this.normalMarkers.splice(this.normalMarkers.length - undo.normalMarkers, undo.normalMarkers);
  }

  /** Test hook: a canonical dump of the whole index, to compare a reorged or reloaded index with a fresh one. */
  snapshot(): unknown {
    const groups = [...this.outputs.entries()].map(([g, m]) => [g, m.toArray().map((o) => outpointKey(o.txid, o.index)).sort()] as const).sort((a, b) => (a[0] < b[0] ? -1 : 1));
    return {
      height: this.chainHashes.length - 1,
      tokens: [...this.tokens.values()].map((t) => ({ ...t, supply: t.supply.toString(), name: toHex(t.name), description: toHex(t.description), data: toHex(t.data) })).sort((a, b) => (a.tokenid < b.tokenid ? -1 : 1)),
      groups,
      markers: [...this.ccMarkers.keys()].sort(),
      normalMarkers: this.normalMarkers.map((m) => m.txid),
    };
  }
}
