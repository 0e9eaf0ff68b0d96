import { hash160 } from '../crypto/hash.js';
import { publicKeyFromPrivate } from '../crypto/secp256k1.js';
import { equalBytes } from '../encoding/hex.js';
import { makeCCcond1, makeCCcond1of2, makeTokensCCcond1 } from '../cc/builders.js';
import { ccScriptPubKey, signCCInput } from '../cc/script.js';
import { CCError, type CCNode } from '../cc/types.js';
import { contextualTxFormat, currentEpochBranchId, type Activation } from '../params/upgrades.js';
import { PrecomputedTxData, SIGHASH_ALL } from '../script/sighash.js';
import { produceScriptSig, type KeyLookup } from '../script/sign.js';
import { parsePayToCryptoCondition, solver } from '../script/standard.js';
import { TxOut } from '../tx/output.js';
import { Transaction } from '../tx/transaction.js';
import { TOKENS_GLOBAL_PRIVKEY, TOKENS_GLOBAL_PUBKEY, TOKENS_MARKER_SCRIPT, cc1Script, tokensCC1Script } from './conditions.js';
import { EVAL_TOKENS } from '../cc/eval-codes.js';
import { TOKEN_DESCRIPTION_MAX, TOKEN_NAME_MAX, TOKENS_TXFEE } from './constants.js';
import { encodeTokenCreateOpRet, encodeTokenTransferOpRet } from './opret.js';
import { selectNormalInputs, selectTokenInputs, type Coin } from './select.js';
import { finalizeCCTx, toTxIn } from './finalize.js';

/**
 * komodod's token transaction builders (CCtokens.cpp CreateToken / TokenTransfer) and the common
 * assembly they end with (CCtx.cpp FinalizeCCTx): same inputs in the same order, same outputs, same
 * change and fee, signed the same way, so the same coins and key give komodod's bytes.
 */

/** An output the builder may spend: where it is, what it holds and its scriptPubKey. */
export interface SpendableCoin extends Coin {
  script: Uint8Array;
}

/** Where the transaction will be mined: its format and signature hash follow the height. */
export interface BuildContext {
  /** The tip height + 1 (komodo_nextheight). */
  nextHeight: number;
  activation: Activation;
  /** -txexpirydelta (default 200). */
  expiryDelta?: number;
}

export type BuildResult = { ok: true; tx: Transaction } | { ok: false; error: string };

const TOKENS_GLOBAL_PK = TOKENS_GLOBAL_PUBKEY;
const TOKENS_GLOBAL_PRIV = TOKENS_GLOBAL_PRIVKEY;

/** CreateNewContextualCMutableTransaction: an empty transaction in the format of `nextHeight`. */
export function newContextualTransaction(ctx: BuildContext): Transaction {
  const f = contextualTxFormat(ctx.nextHeight, ctx.activation, ctx.expiryDelta);
  return Transaction.ofFormat(f);
}

/** A key store holding one key (compressed), as the -pubkey's wallet key. */
export function singleKeyLookup(privateKey: Uint8Array): KeyLookup {
  const pub = publicKeyFromPrivate(privateKey, true);
  const id = hash160(pub);
  return (keyId) => (equalBytes(keyId, id) ? { key: privateKey, compressed: true } : undefined);
}

/** TotalPubkeyNormalInputs over coins whose scripts are known. */
function pubkeyNormalInputs(coins: readonly SpendableCoin[], pubkey: Uint8Array): bigint {
  const keyId = hash160(pubkey);
  let total = 0n;
  for (const c of coins) {
    if (parsePayToCryptoCondition(c.script)) continue;
    const s = solver(c.script, { ccEnabled: true });
    if (s.type === 'pubkey' && equalBytes(s.solutions[0]!, pubkey)) total += c.value;
    else if (s.type === 'pubkeyhash' && equalBytes(s.solutions[0]!, keyId)) total += c.value;
  }
  return total;
}

/** The condition and key FinalizeCCTx signs a CC input with, chosen by the spent output's address. */
interface CCSigner {
  script: Uint8Array;
  cond: () => CCNode;
  priv: Uint8Array;
}

function ccSigners(mypk: Uint8Array, myPriv: Uint8Array, additionalEvalcode2: number): CCSigner[] {
  // In FinalizeCCTx's order for the Tokens contract (cp->evalcode = EVAL_TOKENS): my single-eval
  // address, my dual/three-eval tokens address, my single-eval tokens address (the first again), the
  // global key's single-eval and tokens addresses, then its 1-of-2 with itself. The other entries of
  // FinalizeCCTx (unspendableaddr2/3, coins/tokens 1of2 addresses, the pubkeys list) are never set by
  // the Tokens RPCs.
  return [
    { script: cc1Script(EVAL_TOKENS, mypk), cond: () => makeCCcond1(EVAL_TOKENS, mypk), priv: myPriv },
    { script: tokensCC1Script(EVAL_TOKENS, additionalEvalcode2, mypk), cond: () => makeTokensCCcond1(EVAL_TOKENS, additionalEvalcode2, mypk), priv: myPriv },
    { script: cc1Script(EVAL_TOKENS, TOKENS_GLOBAL_PK), cond: () => makeCCcond1(EVAL_TOKENS, TOKENS_GLOBAL_PK), priv: TOKENS_GLOBAL_PRIV },
    {
      script: tokensCC1Script(EVAL_TOKENS, additionalEvalcode2, TOKENS_GLOBAL_PK),
      cond: () => makeTokensCCcond1(EVAL_TOKENS, additionalEvalcode2, TOKENS_GLOBAL_PK),
      priv: TOKENS_GLOBAL_PRIV,
    },
    {
      script: ccScriptPubKey(makeCCcond1of2(EVAL_TOKENS, TOKENS_GLOBAL_PK, TOKENS_GLOBAL_PK)),
      cond: () => makeCCcond1of2(EVAL_TOKENS, TOKENS_GLOBAL_PK, TOKENS_GLOBAL_PK),
      priv: TOKENS_GLOBAL_PRIV,
    },
  ];
}

/** A token transaction before signing: inputs in their final order with the outputs they spend. */
export interface AssembledTokenTx {
  tx: Transaction;
  /** The output each input spends, in the inputs' (final) order. */
  spent: SpendableCoin[];
  /** The -pubkey. */
  mypk: Uint8Array;
  /** cp->additionalTokensEvalcode2: the NFT's eval code when spending NFT outputs, else 0. */
  additionalEvalcode2: number;
}

export type AssembleResult = { ok: true; value: AssembledTokenTx } | { ok: false; error: string };

/** FinalizeCCTx's assembly (shared with the other CC modules) with the Tokens fee. */
function finalizeOutputs(tx: Transaction, spentIn: SpendableCoin[], mypk: Uint8Array, opret: Uint8Array, additionalEvalcode2: number): AssembleResult {
  const r = finalizeCCTx(tx, spentIn, mypk, opret, TOKENS_TXFEE);
  return r.ok ? { ok: true, value: { tx, spent: r.spent, mypk, additionalEvalcode2 } } : r;
}

export interface SignArgs extends BuildContext {
  /** The -pubkey's private key: signs the CC inputs at its addresses (and, by default, the normal ones). */
  privateKey: Uint8Array;
  /** Keys for normal inputs (the wallet); default: the -pubkey's key only. */
  keys?: KeyLookup;
}

/**
 * The signing half of FinalizeCCTx: normal inputs through ProduceSignature (SIGHASH_ALL, the branch
 * id of the next height); CC inputs with the condition FinalizeCCTx picks from the spent output's
 * address, signed over SignatureHash(CCPubKey(cond), ...) of the transaction's own format.
 */
export function signTokenTx(a: AssembledTokenTx, s: SignArgs): BuildResult {
  const { tx, spent } = a;
  const branchId = currentEpochBranchId(s.nextHeight, s.activation);
  const cache = new PrecomputedTxData(tx);
  const keys = s.keys ?? singleKeyLookup(s.privateKey);
  const signers = ccSigners(a.mypk, s.privateKey, a.additionalEvalcode2);
  for (let i = 0; i < tx.vin.length; i++) {
    const coin = spent[i]!;
    const cc = parsePayToCryptoCondition(coin.script);
    if (!cc) {
      const r = produceScriptSig(coin.script, { tx, nIn: i, amount: coin.value, branchId, hashType: SIGHASH_ALL, keys, cache, ccEnabled: true });
      // SignTx only logs a failure; the input stays unsigned (and the tx invalid), as in komodod.
      tx.vin[i]!.scriptSig = r.scriptSig;
      continue;
    }
    // Getscriptaddress compares Hash160(ccSubScript): the same as comparing the sub-scripts.
    const signer = signers.find((x) => equalBytes(x.script, cc.ccSubScript));
    if (!signer) return { ok: false, error: `CC signing error: vini.${i} has unknown CC address` };
    try {
      const signed = signCCInput({ tx, nIn: i, amount: coin.value, branchId, condition: signer.cond(), privateKeys: [signer.priv], cache });
      tx.vin[i]!.scriptSig = signed.scriptSig;
    } catch (e) {
      if (e instanceof CCError) return { ok: false, error: `CC signing error: vini.${i}` };
      throw e;
    }
  }
  return { ok: true, tx };
}

export interface TokenCreateSpec extends BuildContext {
  /** The -pubkey (33 bytes): the creator, owner of the supply and of the change. */
  pubkey: Uint8Array;
  name: string | Uint8Array;
  description: string | Uint8Array;
  /** Units (satoshis). */
  supply: bigint;
  /** NFT data (its first byte is the NFT's eval code); empty or absent for a fungible token. */
  nftData?: Uint8Array;
  /** Normal outputs at the creator's R-address (P2PK or P2PKH), in address-index order. */
  coins: readonly SpendableCoin[];
}

/**
 * CreateToken, unsigned: vin = AddNormalinputs2(supply + 2·txfee, 64) over the creator's coins;
 * vout0 = the 10000-sat marker at the Tokens global CC address, vout1 = the supply to the creator
 * (evals {f2}, or {nft, f2}), P2PK change, the create OP_RETURN.
 */
export function assembleTokenCreate(a: TokenCreateSpec): AssembleResult {
  const txfee = TOKENS_TXFEE;
  const nftData = a.nftData ?? new Uint8Array(0);
  const enc = new TextEncoder();
  const name = typeof a.name === 'string' ? enc.encode(a.name) : a.name;
  const description = typeof a.description === 'string' ? enc.encode(a.description) : a.description;
  if (a.supply < 0n) return { ok: false, error: 'negative tokensupply' };
  if (nftData.length > 0 && a.supply !== 1n) return { ok: false, error: 'for non-fungible tokens tokensupply should be equal to 1' };
  if (name.length > TOKEN_NAME_MAX || description.length > TOKEN_DESCRIPTION_MAX) {
    return { ok: false, error: 'name should be <= 32, description should be <= 4096' };
  }
  const mypk = a.pubkey;
  const tx = newContextualTransaction(a);
  const normal = a.coins.filter((c) => !parsePayToCryptoCondition(c.script));
  const picked = selectNormalInputs(normal, a.supply + 2n * txfee, 64);
  if (!picked) return { ok: false, error: 'cant find normal inputs' };
  if (pubkeyNormalInputs(picked, mypk) < a.supply) return { ok: false, error: 'some inputs signed not with -pubkey=pk' };
  tx.vin = picked.map(toTxIn);
  const destEval = nftData.length > 0 ? nftData[0]! : EVAL_TOKENS;
  tx.vout.push(new TxOut(txfee, TOKENS_MARKER_SCRIPT));
  tx.vout.push(new TxOut(a.supply, tokensCC1Script(destEval, 0, mypk)));
  const opret = encodeTokenCreateOpRet({ origPubkey: mypk, name, description, nftData });
  return finalizeOutputs(tx, picked, mypk, opret, 0);
}

export type TokenCreateArgs = Omit<TokenCreateSpec, 'pubkey'> & SignArgs;

/** CreateToken: assembled for the private key's public key, then signed. */
export function buildTokenCreate(a: TokenCreateArgs): BuildResult {
  const r = assembleTokenCreate({ ...a, pubkey: publicKeyFromPrivate(a.privateKey, true) });
  return r.ok ? signTokenTx(r.value, a) : r;
}

export interface TokenTransferSpec extends BuildContext {
  /** The -pubkey (33 bytes): owner of the token outputs spent, receives the change. */
  pubkey: Uint8Array;
  /** Internal byte order. */
  tokenid: Uint8Array;
  destPubkey: Uint8Array;
  /** Units. */
  amount: bigint;
  /** The token's NFT data from its creation opret (empty for a fungible token). */
  nftData?: Uint8Array;
  /** Normal wallet coins for the fee, in the wallet's order. */
  coins: readonly SpendableCoin[];
  /** Valid outputs of this token at the sender's token CC address, in address-index order. */
  tokenCoins: readonly SpendableCoin[];
}

/**
 * TokenTransfer, unsigned: vin = AddNormalinputs(txfee, 3) then AddTokenCCInputs(amount, 60);
 * vout0 = the amount to destpk, vout1 = token change to the sender (if any), P2PK change, the
 * transfer OP_RETURN listing destpk.
 */
export function assembleTokenTransfer(a: TokenTransferSpec): AssembleResult {
  const txfee = TOKENS_TXFEE;
  if (a.amount < 0n) return { ok: false, error: 'negative total' };
  const mypk = a.pubkey;
  const nftData = a.nftData ?? new Uint8Array(0);
  const tx = newContextualTransaction(a);
  const normal = selectNormalInputs(
    a.coins.filter((c) => !parsePayToCryptoCondition(c.script)),
    txfee,
    3,
  );
  if (!normal) return { ok: false, error: 'insufficient normal inputs for tx fee' };
  const tokens = selectTokenInputs(a.tokenCoins, a.amount, 60, normal);
  if (tokens.sum <= 0n) return { ok: false, error: 'no token inputs' };
  if (tokens.sum < a.amount) return { ok: false, error: 'insufficient token inputs' };
  const spent = [...normal, ...tokens.coins];
  tx.vin = spent.map(toTxIn);
  const destEval = nftData.length > 0 ? nftData[0]! : EVAL_TOKENS;
  tx.vout.push(new TxOut(a.amount, tokensCC1Script(destEval, 0, a.destPubkey)));
  const change = tokens.sum - a.amount;
  if (change !== 0n) tx.vout.push(new TxOut(change, tokensCC1Script(destEval, 0, mypk)));
  const opret = encodeTokenTransferOpRet({ tokenid: a.tokenid, pubkeys: [a.destPubkey] });
  return finalizeOutputs(tx, spent, mypk, opret, nftData.length > 0 ? nftData[0]! : 0);
}

export type TokenTransferArgs = Omit<TokenTransferSpec, 'pubkey'> & SignArgs;

/** TokenTransfer: assembled for the private key's public key, then signed. */
export function buildTokenTransfer(a: TokenTransferArgs): BuildResult {
  const r = assembleTokenTransfer({ ...a, pubkey: publicKeyFromPrivate(a.privateKey, true) });
  return r.ok ? signTokenTx(r.value, a) : r;
}
