import { CC_BURNPUBKEY } from '../cc/globals.js';
import { hash160 } from '../crypto/hash.js';
import { equalBytes, toHex } from '../encoding/hex.js';
import { isPayToCryptoCondition, solver } from '../script/standard.js';
import type { Transaction } from '../tx/transaction.js';
import type { TxOut } from '../tx/output.js';
import { TOKENS_GLOBAL_PUBKEY, TOKENS_MARKER_SCRIPT, cc1Script, tokensCC1Script, tokensCC1of2Script } from './conditions.js';
import { EVAL_TOKENS } from '../cc/eval-codes.js';
import { OPRETID_FIRSTNONCCDATA } from './constants.js';
import {
  cpubkeyLength,
  nftDataOf,
  tryDecodeTokenOpRet,
  type OpretBlob,
  type TokenOpRet,
} from './opret.js';
import type { CCNode } from '../cc/types.js';
import { hasTokensEval, tokensVinPubkeysOf, vinConditions } from './vins.js';
import { FifoMap } from '../fifo.js';

/**
 * komodod's Tokens validator (TokensValidate and its helpers in CCtokens.cpp at 0adeeab) as a pure
 * function. komodod reads transactions with myGetTransaction while validating; here they come from a
 * synchronous lookup over a context the caller gathered first.
 */

/**
 * Transactions by txid (internal byte order): the chain, the mempool, and the transactions before
 * this one in the block being connected. The validator asks for the token's creation tx, the
 * transactions this one spends, and the ones those spend (each spent token tx must balance itself,
 * and a creation tx's normal inputs are weighed against its supply).
 */
export interface TokensLookup {
  getTransaction(txid: Uint8Array): Transaction | undefined;
}

export type TokensValidation = { ok: true } | { ok: false; reason: string };

const TOKENS_GLOBAL_PK = TOKENS_GLOBAL_PUBKEY;
const BURN_PK = CC_BURNPUBKEY;

/** The CValidationState an Eval carries: once invalid it stays so, and the latest reason is reported. */
class EvalState {
  reason: string | undefined;
  invalid(reason: string): false {
    this.reason = reason;
    return false;
  }
  get valid(): boolean {
    return this.reason === undefined;
  }
}

const isZero = (h: Uint8Array) => h.every((b) => b === 0);

/** IsTokenMarkerVout: the output is MakeCC1vout(EVAL_TOKENS, its value, Tokens global pk). */
export function isTokenMarkerVout(out: TxOut): boolean {
  return equalBytes(out.script, TOKENS_MARKER_SCRIPT);
}

/** FilterOutNonCCOprets: the first blob whose id is below OPRETID_FIRSTNONCCDATA. */
function contractBlob(blobs: readonly OpretBlob[]): Uint8Array {
  for (const b of blobs) if (b.id < OPRETID_FIRSTNONCCDATA) return b.data;
  return new Uint8Array(0);
}

/** FilterOutTokensUnspendablePk. */
function withoutGlobalPk(pks: readonly Uint8Array[]): Uint8Array[] {
  return pks.filter((pk) => !cpubkeyEqual(pk, TOKENS_GLOBAL_PK));
}

/** CPubKey operator==: same header, same bytes over the header's length. */
function cpubkeyEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a[0] !== b[0]) return false;
  const n = cpubkeyLength(a[0]!);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The eval codes a token tx's outputs are rebuilt with (IsTokensvout / HasBurnedTokensvouts). */
interface TokenEvals {
  nft: number; // evalCodeNonfungible, 0 for a fungible token
  ec1: number;
  ec2: number;
}

function tokenEvals(nftData: Uint8Array, extra: Uint8Array): TokenEvals {
  let nft = 0;
  let ec1 = EVAL_TOKENS;
  let ec2 = 0;
  if (nftData.length > 0) nft = ec1 = nftData[0]!;
  if (extra.length > 0) ec2 = extra[0]!;
  if (ec1 === EVAL_TOKENS && ec2 !== 0) {
    ec1 = ec2;
    ec2 = 0;
  }
  return { nft, ec1, ec2 };
}

/** Condition scripts built lately (see TokensContext.script), oldest first. */
const MAX_CONDITION_SCRIPTS = 8192;
const CONDITION_SCRIPTS = new FifoMap<string, Uint8Array>(MAX_CONDITION_SCRIPTS);

/** What the validator reads off one transaction, decoded once per context. */
interface TxFacts {
  /** GetCryptoCondition of each input (null: not a CC input) */
  conds: (CCNode | null)[];
  /** ExtractTokensCCVinPubkeys */
  vinPks?: Uint8Array[];
  /** DecodeTokenOpRet of the last output (null: none) */
  opret?: TokenOpRet | null;
  /** IsTokensvout per "goDeeper:index:tokenid" */
  vouts: Map<string, bigint>;
  /** TokensExactAmounts per "goDeeper:tokenid" */
  amounts: Map<string, { equal: boolean; inputs: bigint; outputs: bigint }>;
}

class TokensContext {
  readonly state = new EvalState();
  private readonly hashes = new WeakMap<Transaction, Uint8Array>();
  private readonly nftCache = new Map<string, Uint8Array>();
  /**
   * Facts and results already computed in this context: a transaction's token value per output and
   * its balance are asked again for every output and every spender, each reading its opret and its
   * inputs' fulfillments; recomputing them went three levels deep each time. A context lives for one
   * validation or one registry pass, over immutable transactions.
   */
  private readonly facts = new WeakMap<Transaction, TxFacts>();
  private readonly tokenHex = new WeakMap<Uint8Array, string>();

  constructor(private readonly lookup: TokensLookup) {}

  private factsOf(tx: Transaction): TxFacts {
    let f = this.facts.get(tx);
    if (!f) this.facts.set(tx, (f = { conds: vinConditions(tx), vouts: new Map(), amounts: new Map() }));
    return f;
  }

  private hexOf(tokenid: Uint8Array): string {
    let h = this.tokenHex.get(tokenid);
    if (h === undefined) this.tokenHex.set(tokenid, (h = toHex(tokenid)));
    return h;
  }

  /** IsCCInput of input `i` */
  private isCCInput(tx: Transaction, i: number): boolean {
    return this.factsOf(tx).conds[i] !== null;
  }

  /** IsTokensInput (ismyvin) of input `i` */
  private isTokensInput(tx: Transaction, i: number): boolean {
    const cond = this.factsOf(tx).conds[i];
    return cond != null && hasTokensEval(cond);
  }

  private vinPubkeys(tx: Transaction): Uint8Array[] {
    const f = this.factsOf(tx);
    return (f.vinPks ??= tokensVinPubkeysOf(f.conds));
  }

  private opret(tx: Transaction): TokenOpRet | null {
    const f = this.factsOf(tx);
    if (f.opret === undefined) f.opret = tx.vout.length === 0 ? null : tryDecodeTokenOpRet(tx.vout[tx.vout.length - 1]!.script);
    return f.opret;
  }

  /** Records a hash the caller already knows. */
  knowHash(tx: Transaction, txid: Uint8Array): void {
    this.hashes.set(tx, txid);
  }

  hash(tx: Transaction): Uint8Array {
    let h = this.hashes.get(tx);
    if (!h) this.hashes.set(tx, (h = tx.hash()));
    return h;
  }

  /** myGetTransaction / Eval::GetTxUnconfirmed; the null hash is never a transaction. */
  getTx(txid: Uint8Array): Transaction | undefined {
    if (isZero(txid)) return undefined;
    const tx = this.lookup.getTransaction(txid);
    // Found by its txid: its hash is known without serialising it again.
    if (tx && !this.hashes.has(tx)) this.hashes.set(tx, txid);
    return tx;
  }

  /** GetNonfungibleData: the NFT blob of the token's creation opret, empty if none or not found. */
  nftData(tokenid: Uint8Array): Uint8Array {
    const key = this.hexOf(tokenid);
    let d = this.nftCache.get(key);
    if (d) return d;
    d = new Uint8Array(0);
    const create = this.getTx(tokenid);
    if (create) {
      // not a create opret: no data (DecodeTokenCreateOpRet returned 0)
      const c = this.opret(create);
      if (c?.funcid === 'c') d = nftDataOf(c);
    }
    this.nftCache.set(key, d);
    return d;
  }

  /**
   * Condition scripts are pure functions of their inputs (an eval code and keys): each is built once
   * and shared by every validation (the same owners' keys recur across transactions).
   */
  script(kind: string, build: () => Uint8Array, ...parts: (number | Uint8Array)[]): Uint8Array {
    const key = kind + ':' + parts.map((p) => (typeof p === 'number' ? p : toHex(p))).join(':');
    let s = CONDITION_SCRIPTS.get(key);
    if (!s) {
      CONDITION_SCRIPTS.set(key, (s = build()));
    }
    return s;
  }

  cc1(ec: number, pk: Uint8Array): Uint8Array {
    return this.script('cc1', () => cc1Script(ec, pk), ec, pk);
  }

  tokens1(ec: number, ec2: number, pk: Uint8Array): Uint8Array {
    return this.script('t1', () => tokensCC1Script(ec, ec2, pk), ec, ec2, pk);
  }

  tokens1of2(ec: number, ec2: number, pk1: Uint8Array, pk2: Uint8Array): Uint8Array {
    return this.script('t12', () => tokensCC1of2Script(ec, ec2, pk1, pk2), ec, ec2, pk1, pk2);
  }

  /** ValidateTokenOpret: the funcid when the tx's opret belongs to `tokenid`, else null. */
  validateTokenOpret(tx: Transaction, tokenid: Uint8Array): TokenOpRet | null {
    if (tx.vout.length === 0) return null;
    const op = this.opret(tx);
    if (!op || isZero(tokenid)) return null;
    if (op.funcid === 'c') return equalBytes(tokenid, this.hash(tx)) ? op : null;
    return equalBytes(tokenid, op.tokenid) ? op : null;
  }

  /** TotalPubkeyNormalInputs: value of the non-CC inputs whose spent output pays `pubkey` (P2PK or P2PKH). */
  totalPubkeyNormalInputs(tx: Transaction, pubkeyVec: Uint8Array): bigint {
    // pubkey2pk: an invalid key compares unequal to every key and hashes as the empty vector.
    const valid = pubkeyVec.length > 0 && cpubkeyLength(pubkeyVec[0]!) === pubkeyVec.length;
    const keyId = hash160(valid ? pubkeyVec : new Uint8Array(0));
    let total = 0n;
    for (let i = 0; i < tx.vin.length; i++) {
      const vin = tx.vin[i]!;
      if (this.isCCInput(tx, i)) continue;
      const prev = this.getTx(vin.prevout.hash);
      const out = prev?.vout[vin.prevout.index];
      if (!out) continue;
      const s = solver(out.script, { ccEnabled: true });
      if (s.type === 'pubkey' && valid && cpubkeyEqual(pubkeyVec, s.solutions[0]!)) total += out.value;
      else if (s.type === 'pubkeyhash' && equalBytes(keyId, s.solutions[0]!)) total += out.value;
    }
    return total;
  }

  /** IsTokensvout: the value of vout `v` of `tx` when it is a genuine output of token `tokenid`, else 0. */
  isTokensVout(goDeeper: boolean, tx: Transaction, v: number, tokenid: Uint8Array): bigint {
    const memo = this.factsOf(tx).vouts;
    const key = `${goDeeper ? 1 : 0}:${v}:${this.hexOf(tokenid)}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    const value = this.tokensVoutValue(goDeeper, tx, v, tokenid);
    memo.set(key, value);
    return value;
  }

  private tokensVoutValue(goDeeper: boolean, tx: Transaction, v: number, tokenid: Uint8Array): bigint {
    const n = tx.vout.length;
    if (n === 0 || v < 0 || v >= n - 1) return 0n;
    const out = tx.vout[v]!;
    if (!isPayToCryptoCondition(out.script)) return 0n;

    if (goDeeper) {
      // The tx holding the output must balance itself, unless it is the token's creation; past that
      // check the deep answer is the shallow one (which the balance check has mostly computed).
      const balanced = this.exactAmounts(false, tx, tokenid);
      if (!balanced.equal && !equalBytes(tokenid, this.hash(tx))) return 0n;
      return this.isTokensVout(false, tx, v, tokenid);
    }

    const op = this.validateTokenOpret(tx, tokenid);
    if (!op) return 0n;
    const evals = tokenEvals(this.nftData(tokenid), contractBlob(op.blobs));

    if (op.funcid === 't') {
      const matches = (script: Uint8Array) => equalBytes(script, out.script);
      const { nft, ec1, ec2 } = evals;
      const pks = withoutGlobalPk(op.pubkeys);
      if (pks.length >= 1 && pks.length <= 2) {
        const pk0 = pks[0]!;
        if (matches(this.tokens1(ec1, ec2, pk0))) return out.value;
        if (ec2 !== 0 && matches(this.tokens1(ec2, ec1, pk0))) return out.value;
        if (pks.length === 2) {
          const pk1 = pks[1]!;
          if (matches(this.tokens1of2(ec1, ec2, pk0, pk1))) return out.value;
          if (matches(this.tokens1(ec1, ec2, pk1))) return out.value;
          if (ec2 !== 0 && (matches(this.tokens1of2(ec2, ec1, pk0, pk1)) || matches(this.tokens1(ec2, ec1, pk1)))) return out.value;
        }
        for (const pk of pks) {
          if (nft === 0 && matches(this.cc1(EVAL_TOKENS, pk))) return out.value;
          if (ec1 !== 0 && matches(this.tokens1(ec1, 0, pk))) return out.value;
          if (ec2 !== 0 && matches(this.tokens1(ec2, 0, pk))) return out.value;
        }
      }
      // Change back to whoever signed a token input (the Tokens global pk excluded).
      for (const pk of withoutGlobalPk(this.vinPubkeys(tx))) {
        if (nft === 0 && matches(this.cc1(EVAL_TOKENS, pk))) return out.value;
        if (matches(this.tokens1(ec1, ec2, pk))) return out.value;
        if (ec2 !== 0 && matches(this.tokens1(ec2, ec1, pk))) return out.value;
      }
      return 0n;
    }

    // 'c': every non-marker CC output counts when the creator's own normal inputs cover them all.
    if (tx.vin.length === 1 && tx.vin[0]!.prevout.index === 1e9) {
      // IsCoinImport: imported tokens are checked by the import validation (out of scope here).
      return isTokenMarkerVout(out) ? 0n : out.value;
    }
    // komodod decodes the create opret again here (DecodeTokenCreateOpRet): the same payload, already in `op`.
    const create = op;
    let ccOutputs = 0n;
    for (const o of tx.vout) if (isPayToCryptoCondition(o.script) && !isTokenMarkerVout(o)) ccOutputs += o.value;
    const normalInputs = this.totalPubkeyNormalInputs(tx, create.origPubkey);
    if (normalInputs >= ccOutputs) return isTokenMarkerVout(out) ? 0n : out.value;
    return 0n;
  }

  /**
   * TokensExactAmounts: token inputs (outputs of the spent txs, read with goDeeper) against token
   * outputs of `tx` (all but the last). A spent tx that cannot be found makes the state invalid.
   */
  exactAmounts(goDeeper: boolean, tx: Transaction, tokenid: Uint8Array): { equal: boolean; inputs: bigint; outputs: bigint } {
    const memo = this.factsOf(tx).amounts;
    const key = `${goDeeper ? 1 : 0}:${this.hexOf(tokenid)}`;
    const known = memo.get(key);
    if (known) return known;
    const r = this.computeExactAmounts(goDeeper, tx, tokenid);
    // A missing input tx leaves the state invalid; that verdict must not be memoised as a balance.
    if (this.state.valid) memo.set(key, r);
    return r;
  }

  private computeExactAmounts(goDeeper: boolean, tx: Transaction, tokenid: Uint8Array): { equal: boolean; inputs: bigint; outputs: bigint } {
    let inputs = 0n;
    let outputs = 0n;
    for (let i = 0; i < tx.vin.length; i++) {
      const vin = tx.vin[i]!;
      if (!this.isTokensInput(tx, i)) continue;
      const prev = this.getTx(vin.prevout.hash);
      if (!prev) {
        this.state.invalid('always should find vin tx, but didnt');
        return { equal: false, inputs, outputs };
      }
      inputs += this.isTokensVout(goDeeper, prev, vin.prevout.index, tokenid);
    }
    for (let i = 0; i < tx.vout.length - 1; i++) outputs += this.isTokensVout(false, tx, i, tokenid);
    return { equal: inputs === outputs, inputs, outputs };
  }

  /**
   * HasBurnedTokensvouts > 0: some CC output with a positive value goes to CC_BURNPUBKEY. (komodod
   * sums with a test list that grows across outputs, which changes the total but not whether it is
   * positive, the only use made of it.)
   */
  hasBurnedTokens(tx: Transaction, op: TokenOpRet, tokenid: Uint8Array): boolean {
    const { ec1, ec2 } = tokenEvals(this.nftData(tokenid), contractBlob(op.blobs));
    const burnScripts = [this.cc1(EVAL_TOKENS, BURN_PK), this.tokens1(ec1, ec2, BURN_PK)];
    if (ec2 !== 0) burnScripts.push(this.tokens1(ec2, ec1, BURN_PK));
    return tx.vout.some((o) => o.value > 0n && isPayToCryptoCondition(o.script) && burnScripts.some((s) => equalBytes(s, o.script)));
  }

  /** TokensValidate. Returns like komodod; the verdict is the state (RunCCEval reads state.IsValid()). */
  tokensValidate(tx: Transaction): boolean {
    if (tx.vout.length < 1) return this.state.invalid('no vouts');
    const op = this.opret(tx);
    if (!op) return this.state.invalid('TokenValidate: invalid opreturn payload');
    // A 'c' opret leaves the tokenid null, which no lookup finds.
    const tokenid = op.funcid === 't' ? op.tokenid : new Uint8Array(32);
    let inputs = 0n;
    if (!this.getTx(tokenid)) return this.state.invalid('cant find token create txid');
    if (op.funcid !== 'c') {
      if (isZero(tokenid)) return this.state.invalid('illegal tokenid');
      const r = this.exactAmounts(true, tx, tokenid);
      inputs = r.inputs;
      if (!r.equal) {
        if (!this.state.valid) return false;
        return this.state.invalid('tokens cc inputs != cc outputs');
      }
    }
    // Spending from the Tokens global address (the create marker) may not come with a burn of a fungible token.
    const vinPks = this.vinPubkeys(tx);
    if (vinPks.some((pk) => cpubkeyEqual(pk, TOKENS_GLOBAL_PK)) && this.hasBurnedTokens(tx, op, tokenid)) {
      if (this.nftData(tokenid).length === 0) return this.state.invalid('spending cc marker not supported for fungible tokens');
    }
    if (op.funcid === 'c') return this.state.invalid('incorrect token funcid');
    if (inputs === 0n) return this.state.invalid('no token inputs for transfer');
    return true;
  }
}

/**
 * TokensValidate for `tx` (run by komodod for every input whose fulfillment holds Eval(0xf2); the
 * verdict does not depend on which input). `height` is the height the tx is validated at: the Tokens
 * rules of 0adeeab do not depend on it (the only exception, a ROGUE-chain grace period up to 12500,
 * depends on the chain name and is not reproduced); CC activation is the eval dispatcher's concern.
 */
export function validateTokens(tx: Transaction, height: number, lookup: TokensLookup): TokensValidation {
  void height;
  const ctx = new TokensContext(lookup);
  ctx.tokensValidate(tx);
  return ctx.state.valid ? { ok: true } : { ok: false, reason: ctx.state.reason! };
}

/** The token amounts komodod's TokensExactAmounts(goDeeper=true) computes, for RPCs and tests. */
export function tokenAmounts(tx: Transaction, tokenid: Uint8Array, lookup: TokensLookup): { inputs: bigint; outputs: bigint; valid: boolean } {
  const ctx = new TokensContext(lookup);
  const r = ctx.exactAmounts(true, tx, tokenid);
  return { inputs: r.inputs, outputs: r.outputs, valid: ctx.state.valid };
}

/** IsTokensvout(goDeeper=true): the token value of output `v` of `tx` (0 if not a valid token output). */
export function tokenValueOf(tx: Transaction, v: number, tokenid: Uint8Array, lookup: TokensLookup): bigint {
  return new TokensContext(lookup).isTokensVout(true, tx, v, tokenid);
}

/**
 * tokenValueOf for every output of `tx`, in one context (each output shares the balance check).
 * `txid` (internal order), when the caller knows it, spares serialising `tx` to hash it.
 */
export function tokenValuesOf(tx: Transaction, tokenid: Uint8Array, lookup: TokensLookup, txid?: Uint8Array): bigint[] {
  const ctx = new TokensContext(lookup);
  if (txid) ctx.knowHash(tx, txid);
  return tx.vout.map((_, v) => ctx.isTokensVout(true, tx, v, tokenid));
}

/** IsTokensvout(goDeeper=false): as tokenValueOf without checking that `tx` itself balances (AssetCalcAmounts uses this). */
export function tokenValueShallow(tx: Transaction, v: number, tokenid: Uint8Array, lookup: TokensLookup): bigint {
  return new TokensContext(lookup).isTokensVout(false, tx, v, tokenid);
}
