import { hash160 } from '../crypto/hash.js';
import { publicKeyFromPrivate, signDER } from '../crypto/secp256k1.js';
import type { Transaction } from '../tx/transaction.js';
import { BaseSignatureChecker, TransactionSignatureChecker, type SignatureChecker } from './checker.js';
import { SCRIPT_VERIFY_STRICTENC, STANDARD_SCRIPT_VERIFY_FLAGS } from './flags.js';
import { evalScript, verifyScript, type InterpreterOptions } from './interpreter.js';
import { OP_0 } from './opcodes.js';
import { concatScript, encodeOpN, pushData } from './script.js';
import { type PrecomputedTxData, signatureHash } from './sighash.js';
import { checkLockTimePrefix, solver, type Solution, type SolverOptions } from './standard.js';

/**
 * Transparent input signing as komodod's script/sign.cpp: TransactionSignatureCreator::CreateSig,
 * SignStep/ProduceSignature (P2PKH, P2PK, bare multisig, P2SH around those, and CLTV-prefixed
 * scripts) and CombineSignatures for merging partial multisig signatures.
 * Crypto-condition inputs (SignStepCC) are not signed here: that belongs to the cc module.
 */

export interface SigningKey {
  key: Uint8Array;
  compressed: boolean;
  /** Its public key as serialised, when the store keeps it (a wallet key): spares deriving it per signature. */
  pubkey?: Uint8Array;
}

/**
 * The key store (CKeyStore::GetKey): called with the 20-byte key id, Hash160 of the public key as
 * serialised, and with the public key itself where the script names it (P2PK, multisig).
 */
export type KeyLookup = (keyId: Uint8Array, pubkey?: Uint8Array) => SigningKey | undefined;

/** CKeyStore::GetCScript: the redeem script whose Hash160 is `scriptHash`. */
export type ScriptLookup = (scriptHash: Uint8Array) => Uint8Array | undefined;

/**
 * A low-S DER signature (RFC 6979 nonce, as CKey::Sign without test_case) of input `nIn`'s signature
 * hash, followed by the hash-type byte (komodod appends `(unsigned char)nHashType`).
 * Throws SighashError where the signature hash is undefined (legacy SIGHASH_SINGLE out of range).
 */
export function signatureFor(
  tx: Transaction,
  nIn: number,
  scriptCode: Uint8Array,
  amount: bigint,
  branchId: number,
  key32: Uint8Array,
  hashType: number,
  cache?: PrecomputedTxData,
): Uint8Array {
  const digest = signatureHash(scriptCode, tx, nIn, hashType, amount, branchId, cache);
  const der = signDER(digest, key32);
  const out = new Uint8Array(der.length + 1);
  out.set(der);
  out[der.length] = hashType & 0xff;
  return out;
}

export interface SigningContext {
  tx: Transaction;
  nIn: number;
  /** value of the output being spent (covered by ZIP-143/243 hashes) */
  amount: bigint;
  branchId: number;
  hashType: number;
  keys: KeyLookup;
  scripts?: ScriptLookup;
  /**
   * PrecomputedTxData of `tx`. It covers no scriptSig, so it stays valid while the inputs' scriptSigs
   * are filled in one by one.
   */
  cache?: PrecomputedTxData;
  /** -ac_cc ≠ 0: CC scripts are solved (and, unsignable here, left unsolved) rather than nonstandard. */
  ccEnabled?: boolean;
}

export interface ProducedSignature {
  scriptSig: Uint8Array;
  /** komodod's ProduceSignature result: solved and VerifyScript passes with the standard flags. */
  complete: boolean;
}

/** CreateSig: null where komodod returns false (no key, or no signature hash). */
function createSig(ctx: SigningContext, found: SigningKey | undefined, scriptCode: Uint8Array): Uint8Array | null {
  if (!found) return null;
  try {
    return signatureFor(ctx.tx, ctx.nIn, scriptCode, ctx.amount, ctx.branchId, found.key, ctx.hashType, ctx.cache);
  } catch {
    return null; // komodod catches the logic_error and signs nothing
  }
}

/** komodod's Solver, with CLTV-prefixed scripts solved by the script after the prefix (SignStep). */
function solveForSigning(script: Uint8Array, opts: SolverOptions): Solution {
  const s = solver(script, opts);
  if (s.type !== 'nonstandard' || checkLockTimePrefix(script) === null) return s;
  const start = script[0]! + 3; // komodod: push opcode taken as the push length, + push, CLTV, DROP
  return solver(start < script.length ? script.subarray(start) : new Uint8Array(0), opts);
}

/** SignStep: the stack items that satisfy `script` (signatures are made with `script` as scriptCode). */
function signStep(ctx: SigningContext, script: Uint8Array): { items: Uint8Array[]; type: Solution['type']; solved: boolean } {
  const { type, solutions } = solveForSigning(script, { ccEnabled: ctx.ccEnabled ?? false });
  const items: Uint8Array[] = [];
  switch (type) {
    case 'pubkey': {
      const sig = createSig(ctx, ctx.keys(hash160(solutions[0]!), solutions[0]!), script);
      if (sig) items.push(sig);
      return { items, type, solved: sig !== null };
    }
    case 'pubkeyhash': {
      const keyId = solutions[0]!;
      const found = ctx.keys(keyId);
      const sig = createSig(ctx, found, script);
      if (!sig) return { items, type, solved: false };
      // The key store's public key for this id (CKeyStore::GetPubKey), compressed as the key says.
      items.push(sig, found!.pubkey ?? publicKeyFromPrivate(found!.key, found!.compressed));
      return { items, type, solved: true };
    }
    case 'scripthash': {
      const redeem = ctx.scripts?.(solutions[0]!);
      if (!redeem) return { items, type, solved: false };
      items.push(redeem);
      return { items, type, solved: true };
    }
    case 'multisig': {
      // SignN: an empty dummy for CHECKMULTISIG's extra pop, then signatures in key order until enough.
      items.push(new Uint8Array(0));
      const required = solutions[0]![0]!;
      let signed = 0;
      for (let i = 1; i < solutions.length - 1 && signed < required; i++) {
        const pub = solutions[i]!;
        const sig = createSig(ctx, ctx.keys(hash160(pub), pub), script);
        if (sig) {
          items.push(sig);
          signed++;
        }
      }
      return { items, type, solved: signed === required };
    }
    default:
      // nonstandard, nulldata; cryptocondition needs the cc module (komodod's SignStepCC).
      return { items, type, solved: false };
  }
}

/** PushAll: empty items as OP_0, single bytes 1..16 as OP_N, anything else as a minimal push. */
export function pushAll(items: Uint8Array[]): Uint8Array {
  return concatScript(
    ...items.map((v) => (v.length === 0 ? OP_0 : v.length === 1 && v[0]! >= 1 && v[0]! <= 16 ? encodeOpN(v[0]!) : pushData(v))),
  );
}

/**
 * ProduceSignature: the scriptSig spending `scriptPubKey` with the keys and redeem scripts at hand,
 * partial when some are missing. The caller puts it into `tx.vin[nIn].scriptSig`.
 */
export function produceScriptSig(scriptPubKey: Uint8Array, ctx: SigningContext): ProducedSignature {
  let step = signStep(ctx, scriptPubKey);
  let solved = step.solved;
  let items = step.items;
  if (solved && step.type === 'scripthash') {
    const redeem = items[0]!;
    step = signStep(ctx, redeem);
    solved = step.solved && step.type !== 'scripthash';
    items = [...step.items, redeem];
  }
  const scriptSig = pushAll(items);
  const checker = new TransactionSignatureChecker(ctx.tx, ctx.nIn, ctx.amount, ctx.branchId, ctx.cache);
  const interp: InterpreterOptions = { ccEnabled: ctx.ccEnabled ?? false };
  const complete = solved && verifyScript(scriptSig, scriptPubKey, STANDARD_SCRIPT_VERIFY_FLAGS, checker, interp).ok;
  return { scriptSig, complete };
}

/** The stack a scriptSig leaves (komodod's Stacks: EvalScript with STRICTENC and a checker that fails all). */
function scriptSigStack(scriptSig: Uint8Array, opts: InterpreterOptions): Uint8Array[] {
  const stack: Uint8Array[] = [];
  evalScript(stack, scriptSig, SCRIPT_VERIFY_STRICTENC, new BaseSignatureChecker(), opts); // result ignored, as komodod
  return stack;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

function keyOf(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

/** CombineMultisig: every distinct signature matched to the first key it verifies for, in key order. */
function combineMultisig(
  scriptCode: Uint8Array,
  checker: SignatureChecker,
  solutions: Uint8Array[],
  sigs1: Uint8Array[],
  sigs2: Uint8Array[],
): Uint8Array[] {
  // std::set<valtype>: distinct, in lexicographic order.
  const all = new Map<string, Uint8Array>();
  for (const v of [...sigs1, ...sigs2]) if (v.length > 0) all.set(keyOf(v), v);
  const ordered = [...all.values()].sort(compareBytes);

  const required = solutions[0]![0]!;
  const pubkeys = solutions.slice(1, -1);
  const byKey = new Map<string, Uint8Array>();
  for (const sig of ordered) {
    for (const pub of pubkeys) {
      if (byKey.has(keyOf(pub))) continue;
      if (checker.checkSig(sig, pub, scriptCode)) {
        byKey.set(keyOf(pub), sig);
        break;
      }
    }
  }
  const result: Uint8Array[] = [new Uint8Array(0)]; // CHECKMULTISIG's extra pop
  for (const pub of pubkeys) {
    if (result.length - 1 >= required) break;
    const sig = byKey.get(keyOf(pub));
    if (sig) result.push(sig);
  }
  while (result.length - 1 < required) result.push(new Uint8Array(0)); // placeholders for the missing
  return result;
}

function combineStacks(
  scriptPubKey: Uint8Array,
  checker: SignatureChecker,
  solution: Solution,
  sigs1: Uint8Array[],
  sigs2: Uint8Array[],
  opts: SolverOptions,
): Uint8Array[] {
  switch (solution.type) {
    case 'nonstandard':
    case 'nulldata':
      // Nothing known about it: assume the bigger one is right.
      return sigs1.length >= sigs2.length ? sigs1 : sigs2;
    case 'pubkey':
    case 'pubkeyhash':
    case 'cryptocondition':
      // Signatures are bigger than placeholders or empty scripts.
      return sigs1.length === 0 || sigs1[0]!.length === 0 ? sigs2 : sigs1;
    case 'scripthash': {
      if (sigs1.length === 0 || sigs1[sigs1.length - 1]!.length === 0) return sigs2;
      if (sigs2.length === 0 || sigs2[sigs2.length - 1]!.length === 0) return sigs1;
      // Recur on the redeem script from the first scriptSig.
      const redeem = sigs1[sigs1.length - 1]!;
      const inner = combineStacks(redeem, checker, solver(redeem, opts), sigs1.slice(0, -1), sigs2.slice(0, -1), opts);
      return [...inner, redeem];
    }
    case 'multisig':
      return combineMultisig(scriptPubKey, checker, solution.solutions, sigs1, sigs2);
  }
}

/**
 * CombineSignatures: merges two scriptSigs for the same input (e.g. two partly signed multisig
 * copies), checking signatures with `checker` (a TransactionSignatureChecker for that input).
 */
export function combineSignatures(
  scriptPubKey: Uint8Array,
  checker: SignatureChecker,
  scriptSig1: Uint8Array,
  scriptSig2: Uint8Array,
  ccEnabled = false,
): Uint8Array {
  const opts: SolverOptions = { ccEnabled };
  const interp: InterpreterOptions = { ccEnabled };
  const merged = combineStacks(
    scriptPubKey,
    checker,
    solver(scriptPubKey, opts),
    scriptSigStack(scriptSig1, interp),
    scriptSigStack(scriptSig2, interp),
    opts,
  );
  return pushAll(merged);
}
