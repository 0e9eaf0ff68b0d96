import { Transaction } from './transaction.js';
import { toHex } from '../encoding/hex.js';
import { hash160 } from '../crypto/hash.js';
import { publicKeyFromPrivate } from '../crypto/secp256k1.js';
import { STANDARD_SCRIPT_VERIFY_FLAGS } from '../script/flags.js';
import { verifyScript } from '../script/interpreter.js';
import { TransactionSignatureChecker } from '../script/checker.js';
import { PrecomputedTxData, SIGHASH_ANYONECANPAY, SIGHASH_SINGLE } from '../script/sighash.js';
import { combineSignatures, produceScriptSig, signatureFor, type KeyLookup, type ScriptLookup, type SigningKey } from '../script/sign.js';
import { scriptErrorString } from '../script/script-error.js';
import { getOp } from '../script/script.js';
import { OP_0, OP_1, OP_16, OP_PUSHDATA4 } from '../script/opcodes.js';
import { isValidPubKeySize, parsePayToCryptoCondition, solver } from '../script/standard.js';
import { signatureHash } from '../script/sighash.js';
import { makeCCcond1, makeCCcond1of2 } from '../cc/builders.js';
import { ccScriptPubKey, ccSigVec, makeCCChecker } from '../cc/script.js';
import { cloneTree, signTreeSecp256k1 } from '../cc/sign.js';
import { fulfillmentBinary } from '../cc/fulfillment.js';
import { pushAll } from '../script/sign.js';

export interface SignOptions {
  keys: KeyLookup;
  scripts?: ScriptLookup;
  hashType: number;
  branchId: number;
  ccEnabled?: boolean;
}

/** signrawtransaction's sighash names (mapSigHashValues). */
export const SIGHASH_NAMES: ReadonlyMap<string, number> = new Map([
  ['ALL', 1],
  ['ALL|ANYONECANPAY', 0x81],
  ['NONE', 2],
  ['NONE|ANYONECANPAY', 0x82],
  ['SINGLE', 3],
  ['SINGLE|ANYONECANPAY', 0x83],
]);

/** An output being spent, as signrawtransaction's coins view holds it. */
export interface PrevOut {
  script: Uint8Array;
  value: bigint;
}

/** One entry of signrawtransaction's `errors` (TxInErrorToJSON), in komodod's key order. */
export interface InputError {
  txid: string;
  vout: number;
  scriptSig: string;
  sequence: number;
  error: string;
}

/**
 * signrawtransaction's signing loop (rawtransaction.cpp): for each input of the first variant, sign
 * what the keys allow (SIGHASH_SINGLE only where an output of the same index exists), merge the
 * signatures of every variant (CombineSignatures), then verify with the standard flags; an input
 * whose coin is unknown, or that does not verify, gets an error entry.
 */
export function signVariants(variants: Transaction[], coins: (PrevOut | null)[], opts: SignOptions): { tx: Transaction; errors: InputError[] } {
  const merged = variants[0]!.clone();
  const txConst = variants[0]!;
  const cache = new PrecomputedTxData(txConst);
  const hashSingle = (opts.hashType & ~SIGHASH_ANYONECANPAY) === SIGHASH_SINGLE;
  const errors: InputError[] = [];
  const ccEnabled = opts.ccEnabled ?? false;
  const fast = new StandardSigner(opts, cache);
  const entry = (i: number, error: string): InputError => {
    const input = merged.vin[i]!;
    return { txid: input.prevout.txid(), vout: input.prevout.index, scriptSig: toHex(input.scriptSig), sequence: input.sequence, error };
  };
  for (let i = 0; i < merged.vin.length; i++) {
    const coin = coins[i];
    if (!coin) {
      errors.push(entry(i, 'Input not found or already spent'));
      continue;
    }
    let scriptSig: Uint8Array = new Uint8Array(0);
    const cc = ccEnabled ? parsePayToCryptoCondition(coin.script) : null;
    if (cc && (!hashSingle || i < merged.vout.length)) {
      scriptSig = signCCStep(cc.params, merged, i, coin.value, opts, cache) ?? new Uint8Array(0);
    } else if (!hashSingle || i < merged.vout.length) {
      scriptSig = fast.sign(coin.script, merged, i, coin.value) ?? produceScriptSig(coin.script, {
        tx: merged,
        nIn: i,
        amount: coin.value,
        branchId: opts.branchId,
        hashType: opts.hashType,
        keys: opts.keys,
        ...(opts.scripts ? { scripts: opts.scripts } : {}),
        cache,
        ccEnabled,
      }).scriptSig;
    }
    // Outside the server komodod's checker passes every eval node (CheckEvalCondition returns true).
    if (fast.selfVerified === i) {
      // Our own signature for P2PK/P2PKH: CombineSignatures keeps the first non-empty stack (ours) and
      // VerifyScript passes by construction (the key's own low-S signature and public key): skipped.
      merged.vin[i]!.scriptSig = scriptSig;
      continue;
    }
    const checker = new OwnSignatureChecker(fast.produced, txConst, i, coin.value, opts.branchId, cache, { ccChecker: PRECHECK_CC });
    for (const v of variants) {
      const other = v.vin[i]?.scriptSig ?? new Uint8Array(0);
      scriptSig = combineSignatures(coin.script, checker, scriptSig, other, ccEnabled);
    }
    merged.vin[i]!.scriptSig = scriptSig;
    const r = verifyScript(scriptSig, coin.script, STANDARD_SCRIPT_VERIFY_FLAGS, checker, { ccEnabled });
    if (!r.ok) errors.push(entry(i, scriptErrorString(r.error)));
  }
  return { tx: merged, errors };
}

const PRECHECK_CC = makeCCChecker<TransactionSignatureChecker>();

/**
 * A checker that knows the signatures this call just made: an RFC 6979 signature made with the key
 * of `pubkey` over this input's own signature hash is valid by construction, so VerifyScript skips
 * the curve arithmetic for it; every other signature (merged from variants) is verified in full.
 */
class OwnSignatureChecker extends TransactionSignatureChecker {
  constructor(
    private readonly produced: ReadonlyMap<string, number>,
    ...args: ConstructorParameters<typeof TransactionSignatureChecker>
  ) {
    super(...args);
  }

  override checkSig(sigWithHashType: Uint8Array, pubkey: Uint8Array, scriptCode: Uint8Array): boolean {
    if (this.produced.get(`${toHex(sigWithHashType)}:${toHex(pubkey)}:${toHex(scriptCode)}`) === this.nIn) return true;
    return super.checkSig(sigWithHashType, pubkey, scriptCode);
  }
}

/**
 * SignStep/ProduceSignature for the standard templates (P2PK, P2PKH, bare multisig, and P2SH around
 * those), with the same stack items as src/chain/script/sign.ts, without ProduceSignature's own
 * VerifyScript (signrawtransaction verifies every input once afterwards) and with each key's public
 * key derived once. Anything else (CLTV-prefixed, nested, nonstandard) returns undefined and goes
 * through produceScriptSig.
 */
class StandardSigner {
  /** `sig:pubkey:scriptCode` → the input it was made for. */
  readonly produced = new Map<string, number>();
  /** The input whose P2PK/P2PKH scriptSig was just made complete here (see signVariants). */
  selfVerified = -1;
  private readonly pubkeys = new Map<string, Uint8Array>();

  constructor(
    private readonly opts: SignOptions,
    private readonly cache: PrecomputedTxData,
  ) {}

  private readonly byObject = new WeakMap<SigningKey, Uint8Array>();

  private pubOf(k: SigningKey): Uint8Array {
    if (k.pubkey) return k.pubkey;
    const known = this.byObject.get(k);
    if (known) return known;
    const id = `${toHex(k.key)}:${k.compressed ? 1 : 0}`;
    let p = this.pubkeys.get(id);
    if (!p) {
      p = publicKeyFromPrivate(k.key, k.compressed);
      this.pubkeys.set(id, p);
    }
    this.byObject.set(k, p);
    return p;
  }

  private sig(k: SigningKey | undefined, pub: Uint8Array, tx: Transaction, nIn: number, amount: bigint, scriptCode: Uint8Array, remember = false): Uint8Array | null {
    if (!k) return null;
    let sig: Uint8Array;
    try {
      sig = signatureFor(tx, nIn, scriptCode, amount, this.opts.branchId, k.key, this.opts.hashType, this.cache);
    } catch {
      return null; // komodod catches the logic_error and signs nothing
    }
    // Only a key whose public key is the one the script names makes a signature known to be valid
    // (remembered for multisig, the one template whose signatures VerifyScript checks again here).
    if (remember && toHex(this.pubOf(k)) === toHex(pub)) this.produced.set(`${toHex(sig)}:${toHex(pub)}:${toHex(scriptCode)}`, nIn);
    return sig;
  }

  /** The stack items for `script`, or undefined when the template is not handled here. */
  private step(script: Uint8Array, tx: Transaction, nIn: number, amount: bigint): { items: Uint8Array[]; type: string; solved: boolean } | undefined {
    const { type, solutions } = solver(script, { ccEnabled: this.opts.ccEnabled ?? false });
    switch (type) {
      case 'pubkey': {
        const pub = solutions[0]!;
        const s = this.sig(this.opts.keys(hash160(pub), pub), pub, tx, nIn, amount, script);
        return { items: s ? [s] : [], type, solved: s !== null };
      }
      case 'pubkeyhash': {
        const k = this.opts.keys(solutions[0]!);
        if (!k) return { items: [], type, solved: false };
        const pub = this.pubOf(k);
        const s = this.sig(k, pub, tx, nIn, amount, script);
        return s ? { items: [s, pub], type, solved: true } : { items: [], type, solved: false };
      }
      case 'multisig': {
        const items: Uint8Array[] = [new Uint8Array(0)];
        const required = solutions[0]![0]!;
        let signed = 0;
        for (let j = 1; j < solutions.length - 1 && signed < required; j++) {
          const pub = solutions[j]!;
          const s = this.sig(this.opts.keys(hash160(pub), pub), pub, tx, nIn, amount, script, true);
          if (s) {
            items.push(s);
            signed++;
          }
        }
        return { items, type, solved: signed === required };
      }
      case 'scripthash': {
        const redeem = this.opts.scripts?.(solutions[0]!);
        return redeem ? { items: [redeem], type, solved: true } : { items: [], type, solved: false };
      }
      default:
        return undefined;
    }
  }

  sign(script: Uint8Array, tx: Transaction, nIn: number, amount: bigint): Uint8Array | undefined {
    // A CLTV-prefixed script is nonstandard to the solver: step() leaves it to produceScriptSig.
    const outer = this.step(script, tx, nIn, amount);
    if (!outer) return undefined;
    if (outer.type !== 'scripthash' || !outer.solved) {
      if (outer.solved && (outer.type === 'pubkey' || outer.type === 'pubkeyhash')) this.selfVerified = nIn;
      return pushAll(outer.items);
    }
    const redeem = outer.items[0]!;
    const inner = this.step(redeem, tx, nIn, amount);
    if (!inner || inner.type === 'scripthash') return undefined;
    return pushAll([...inner.items, redeem]);
  }
}

/** COptCCParams(vch): version 1, m = 1, n = 1 or 2, followed by n valid public keys; null otherwise. */
export function parseOptCCParams(blob: Uint8Array): { evalCode: number; keys: Uint8Array[] } | null {
  const data: Uint8Array[] = [];
  let pc = 0;
  while (pc < blob.length) {
    const r = getOp(blob, pc);
    if (!r) return null;
    pc = r.next;
    if (r.op === OP_0) data.push(Uint8Array.of(0));
    else if (r.op >= OP_1 && r.op <= OP_16) data.push(Uint8Array.of(r.op - OP_1 + 1));
    else if (r.op > 0 && r.op <= OP_PUSHDATA4 && r.data!.length > 0) data.push(r.data!);
    else return null;
  }
  const head = data[0];
  if (blob.length <= 1 || !head || head.length !== 4) return null;
  const [version, evalCode, m, n] = [head[0]!, head[1]!, head[2]!, head[3]!];
  if (version !== 1 || m !== 1 || (n !== 1 && n !== 2) || data.length <= n) return null;
  const keys = data.slice(1, n + 1);
  // CPubKey::IsValid: the header byte's size only, no curve check.
  if (!keys.every((k) => isValidPubKeySize(k))) return null;
  return { evalCode, keys };
}

/**
 * SignStepCC (script/sign.cpp): a CC output whose COptCCParams name its keys is signed as the 1-of-1
 * or 1-of-2 condition of those keys, with the first key the key store holds. The signature hash is
 * the creator's hash type; CCSigVec appends SIGHASH_ALL. Module ("unspendable") keys are not held.
 */
function signCCStep(params: Uint8Array[], tx: Transaction, nIn: number, amount: bigint, opts: SignOptions, cache: PrecomputedTxData): Uint8Array | null {
  if (params.length === 0) return null;
  const p = parseOptCCParams(params[0]!);
  if (!p) return null;
  let key: Uint8Array | undefined;
  let cond;
  if (p.keys.length === 1) {
    key = opts.keys(hash160(p.keys[0]!), p.keys[0]!)?.key;
    cond = makeCCcond1(p.evalCode, p.keys[0]!);
  } else {
    for (const pk of p.keys) {
      key = opts.keys(hash160(pk), pk)?.key;
      if (key) break;
    }
    cond = makeCCcond1of2(p.evalCode, p.keys[0]!, p.keys[1]!);
  }
  if (!key) return null;
  let digest: Uint8Array;
  try {
    digest = signatureHash(ccScriptPubKey(cond), tx, nIn, opts.hashType, amount, opts.branchId, cache);
  } catch {
    return null;
  }
  const tree = cloneTree(cond);
  if (signTreeSecp256k1(tree, key, digest) === 0) return null;
  return pushAll([ccSigVec(fulfillmentBinary(tree))]);
}

/** A temporary key store (CBasicKeyStore) over given keys and redeem scripts. */
export class TempKeyStore {
  private readonly keys = new Map<string, SigningKey>();
  private readonly scripts = new Map<string, Uint8Array>();

  addKey(key: Uint8Array, compressed: boolean): void {
    this.keys.set(toHex(hash160(publicKeyFromPrivate(key, compressed))), { key, compressed });
  }

  addScript(script: Uint8Array): void {
    this.scripts.set(toHex(hash160(script)), script);
  }

  readonly keyLookup: KeyLookup = (keyId) => this.keys.get(toHex(keyId));
  readonly scriptLookup: ScriptLookup = (h) => this.scripts.get(toHex(h));
}
