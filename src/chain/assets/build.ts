import { makeCCcond1, makeCCcond1of2, makeTokensCCcond1 } from '../cc/builders.js';
import { EVAL_ASSETS, EVAL_TOKENS } from '../cc/eval-codes.js';
import { ccScriptPubKey, signCCInput } from '../cc/script.js';
import { CCError, type CCNode } from '../cc/types.js';
import { publicKeyFromPrivate } from '../crypto/secp256k1.js';
import { equalBytes } from '../encoding/hex.js';
import { currentEpochBranchId } from '../params/upgrades.js';
import { OP_CHECKSIG } from '../script/opcodes.js';
import { concatScript, p2pkScript, pushData } from '../script/script.js';
import { PrecomputedTxData, SIGHASH_ALL } from '../script/sighash.js';
import { produceScriptSig } from '../script/sign.js';
import { isValidPubKeySize, parsePayToCryptoCondition } from '../script/standard.js';
import { TxOut } from '../tx/output.js';
import type { Transaction } from '../tx/transaction.js';
import { newContextualTransaction, singleKeyLookup, type BuildContext, type BuildResult, type SignArgs, type SpendableCoin } from '../tokens/build.js';
import { TOKENS_GLOBAL_PRIVKEY, TOKENS_GLOBAL_PUBKEY, cc1Script, tokensCC1Script } from '../tokens/conditions.js';
import { finalizeCCTx } from '../tokens/finalize.js';
import { decodeTokenCreateOpRet } from '../tokens/opret.js';
import { selectNormalInputs, selectTokenInputs, type Coin } from '../tokens/select.js';
import { askPaidAmount, setAskFillamounts, setBidFillamounts } from './amounts.js';
import {
  ASSETS_GLOBAL_CC_SCRIPT,
  ASSETS_GLOBAL_PRIVKEY,
  ASSETS_GLOBAL_PUBKEY,
  ASSETS_TXFEE,
  askLockScript,
  assetsMarkerScript,
  tokenOutScript,
} from './conditions.js';
import { encodeAssetBlob, encodeAssetOrderOpRet, tryDecodeAssetTokenOpRet } from './opret.js';

/**
 * komodod's order builders (CCassetstx.cpp CreateSell, CreateBuyOffer, FillSell, FillBuyOffer, CancelSell,
 * CancelBuyOffer at 0adeeab) and the FinalizeCCTx they end with: same inputs, same outputs, same change,
 * signed with the condition and key FinalizeCCTx picks from each spent output's address.
 */

/** The CCcontract_info FinalizeCCTx signs with: its eval code, NFT eval, global key and CCaddr2set entry. */
interface ContractSigning {
  evalcode: number;
  additionalEvalcode2: number;
  /** CCaddr2set(cp, evalcode2, pk, priv, addr): matched by `addrScript`'s address, signed with MakeCCcond1(evalcode2, pk). */
  unspendable2?: { addrScript: Uint8Array; evalcode: number; pk: Uint8Array; priv: Uint8Array };
}

const TOKENS_CP = (nft: number, extra?: ContractSigning['unspendable2']): ContractSigning =>
  ({ evalcode: EVAL_TOKENS, additionalEvalcode2: nft, ...(extra ? { unspendable2: extra } : {}) });
const ASSETS_CP = (nft: number, extra?: ContractSigning['unspendable2']): ContractSigning =>
  ({ evalcode: EVAL_ASSETS, additionalEvalcode2: nft, ...(extra ? { unspendable2: extra } : {}) });

function globalKeys(evalcode: number): { pk: Uint8Array; priv: Uint8Array } {
  return evalcode === EVAL_ASSETS ? { pk: ASSETS_GLOBAL_PUBKEY, priv: ASSETS_GLOBAL_PRIVKEY } : { pk: TOKENS_GLOBAL_PUBKEY, priv: TOKENS_GLOBAL_PRIVKEY };
}

interface Signer {
  /** The spent output's CC sub-script this entry matches (same address ⇔ same script, no OP_DROP tail). */
  match: Uint8Array;
  cond: () => CCNode;
  priv: Uint8Array;
}

/** FinalizeCCTx's address checks for a CC input, in its order. */
function signersFor(cp: ContractSigning, mypk: Uint8Array, myPriv: Uint8Array): Signer[] {
  const { pk: g, priv: gPriv } = globalKeys(cp.evalcode);
  const ev = cp.evalcode;
  const ev2 = cp.additionalEvalcode2;
  const list: Signer[] = [
    { match: cc1Script(ev, mypk), cond: () => makeCCcond1(ev, mypk), priv: myPriv },
    { match: tokensCC1Script(ev, ev2, mypk), cond: () => makeTokensCCcond1(ev, ev2, mypk), priv: myPriv },
    { match: cc1Script(EVAL_TOKENS, mypk), cond: () => makeCCcond1(EVAL_TOKENS, mypk), priv: myPriv },
    { match: cc1Script(ev, g), cond: () => makeCCcond1(ev, g), priv: gPriv },
    { match: tokensCC1Script(ev, ev2, g), cond: () => makeTokensCCcond1(ev, ev2, g), priv: gPriv },
  ];
  const u2 = cp.unspendable2;
  if (u2) list.push({ match: u2.addrScript, cond: () => makeCCcond1(u2.evalcode, u2.pk), priv: u2.priv });
  list.push({ match: ccScriptPubKey(makeCCcond1of2(ev, g, g)), cond: () => makeCCcond1of2(ev, g, g), priv: gPriv });
  return list;
}

/** An order transaction before signing: inputs in their final order with the outputs they spend. */
export interface AssembledAssetsTx {
  tx: Transaction;
  spent: SpendableCoin[];
  mypk: Uint8Array;
  cp: ContractSigning;
}

export type AssetsAssembleResult = { ok: true; value: AssembledAssetsTx } | { ok: false; error: string };

/** FinalizeCCTx's assembly (shared with the Tokens module) with the Assets fee. */
function finalize(tx: Transaction, spentIn: SpendableCoin[], mypk: Uint8Array, opret: Uint8Array, cp: ContractSigning): AssetsAssembleResult {
  const r = finalizeCCTx(tx, spentIn, mypk, opret, ASSETS_TXFEE);
  return r.ok ? { ok: true, value: { tx, spent: r.spent, mypk, cp } } : r;
}

/** The signing half of FinalizeCCTx. A CC input at an address it does not know is komodod's "CC signing error". */
export function signAssetsTx(a: AssembledAssetsTx, s: SignArgs): BuildResult {
  const { tx, spent } = a;
  const branchId = currentEpochBranchId(s.nextHeight, s.activation);
  const cache = new PrecomputedTxData(tx);
  const keys = s.keys ?? singleKeyLookup(s.privateKey);
  const signers = signersFor(a.cp, a.mypk, s.privateKey);
  for (let i = 0; i < tx.vin.length; i++) {
    const coin = spent[i]!;
    const cc = parsePayToCryptoCondition(coin.script);
    if (!cc) {
      const r = produceScriptSig(coin.script, { tx, nIn: i, amount: coin.value, branchId, hashType: SIGHASH_ALL, keys, cache, ccEnabled: true });
      tx.vin[i]!.scriptSig = r.scriptSig; // SignTx only logs a failure, as in komodod
      continue;
    }
    const signer = signers.find((x) => equalBytes(x.match, cc.ccSubScript));
    if (!signer) return { ok: false, error: `CC signing error: vini.${i} has unknown CC address` };
    try {
      tx.vin[i]!.scriptSig = signCCInput({ tx, nIn: i, amount: coin.value, branchId, condition: signer.cond(), privateKeys: [signer.priv], cache }).scriptSig;
    } catch (e) {
      // cc_signTreeSecp256k1Msg32 signing nothing: komodod's "CC signing error" (e.g. a cancel by someone else).
      if (e instanceof CCError) return { ok: false, error: `CC signing error: vini.${i}` };
      throw e;
    }
  }
  return { ok: true, tx };
}

/** An output of an earlier transaction, as a coin the builder spends. */
function coinOf(tx: Transaction, vout: number): SpendableCoin | null {
  const o = tx.vout[vout];
  return o ? { txid: tx.hash(), vout, value: o.value, script: o.script } : null;
}

const normalOnly = (coins: readonly SpendableCoin[]) => coins.filter((c) => !parsePayToCryptoCondition(c.script));
const nftEvalOf = (nftData?: Uint8Array) => (nftData && nftData.length > 0 ? nftData[0]! : 0);

/** `CScript() << origpubkey << OP_CHECKSIG`: the vector pushed as it is. */
const payToPubkeyVector = (pk: Uint8Array) => concatScript(pushData(pk), OP_CHECKSIG);

interface OrderBase extends BuildContext {
  /** The -pubkey (33 bytes). */
  pubkey: Uint8Array;
  /** Internal byte order. */
  tokenid: Uint8Array;
  /** Normal wallet coins (P2PK/P2PKH of the -pubkey), in the wallet's / address index's order. */
  coins: readonly SpendableCoin[];
  /** The token's NFT data (its creation opret's 0x11 blob); empty or absent for a fungible token. */
  nftData?: Uint8Array;
}

export interface AskSpec extends OrderBase {
  /** Units offered (locked at the global dual-eval address). */
  numtokens: bigint;
  /** Coins (satoshis) asked for the whole lot. */
  askamount: bigint;
  /** Valid outputs of this token at the -pubkey's token address, in address-index order. */
  tokenCoins: readonly SpendableCoin[];
}

/**
 * CreateSell(0, numtokens, tokenid, askamount): vin = AddNormalinputs(2·txfee, 3) then token inputs
 * (numtokens, 60); vout0 = tokens at the Assets global dual-eval address, vout1 = the 10000 marker at
 * the owner's Assets CC address, vout2 = token change, P2PK change, opret 's' (price = askamount).
 */
export function assembleAsk(a: AskSpec): AssetsAssembleResult {
  const txfee = ASSETS_TXFEE;
  if (a.numtokens < 0n || a.askamount < 0n) return { ok: false, error: `negative askamount ${a.askamount}, askamount ${a.numtokens}` };
  const mypk = a.pubkey;
  const nft = nftEvalOf(a.nftData);
  const normal = selectNormalInputs(normalOnly(a.coins), 2n * txfee, 3);
  if (!normal) return { ok: false, error: 'need some native coins to place ask' };
  const tokens = selectTokenInputs(a.tokenCoins, a.numtokens, 60, normal);
  if (tokens.sum <= 0n) return { ok: false, error: 'need some tokens to place ask' };
  if (tokens.sum < a.numtokens) return { ok: false, error: 'insufficient tokens for ask' };
  const tx = newContextualTransaction(a);
  tx.vout.push(new TxOut(a.numtokens, askLockScript(nft)));
  tx.vout.push(new TxOut(txfee, assetsMarkerScript(mypk)));
  // komodod leaves CCchange uninitialised when the inputs are exactly numtokens; taken as 0 (no change output).
  const change = tokens.sum - a.numtokens;
  if (change !== 0n) tx.vout.push(new TxOut(change, tokenOutScript(mypk, nft)));
  const opret = encodeAssetOrderOpRet(a.tokenid, [ASSETS_GLOBAL_PUBKEY], encodeAssetBlob('s', a.askamount, mypk));
  return finalize(tx, [...normal, ...tokens.coins], mypk, opret, TOKENS_CP(nft));
}

export interface BidSpec extends OrderBase {
  /** Coins locked (satoshis). */
  bidamount: bigint;
  /** Units wanted. */
  numtokens: bigint;
  /** The token's creation tx (myGetTransaction(assetid)); undefined when it cannot be found. */
  tokenCreateTx: Transaction | undefined;
}

/**
 * CreateBuyOffer(0, bidamount, tokenid, numtokens): vin = AddNormalinputs(bidamount + 2·txfee, 64);
 * vout0 = coins at the Assets global CC address, vout1 = the marker, P2PK change, opret 'b' (price = units).
 */
export function assembleBid(a: BidSpec): AssetsAssembleResult {
  const txfee = ASSETS_TXFEE;
  if (a.bidamount < 0n || a.numtokens < 0n) return { ok: false, error: `negative bidamount ${a.bidamount}, pricetotal ${a.numtokens}` };
  if (!a.tokenCreateTx) return { ok: false, error: 'cant find assetid' };
  const ct = a.tokenCreateTx;
  if (ct.vout.length > 0) {
    try {
      decodeTokenCreateOpRet(ct.vout[ct.vout.length - 1]!.script);
    } catch {
      return { ok: false, error: 'assetid isnt assetcreation txid' };
    }
  }
  const mypk = a.pubkey;
  const normal = selectNormalInputs(normalOnly(a.coins), a.bidamount + 2n * txfee, 64);
  if (!normal) return { ok: false, error: 'no coins found to make buy offer' };
  const inputs = normal.reduce((s, c) => s + c.value, 0n);
  if (inputs < a.bidamount + txfee) return { ok: false, error: 'insufficient coins to make buy offer' };
  const tx = newContextualTransaction(a);
  tx.vout.push(new TxOut(a.bidamount, ASSETS_GLOBAL_CC_SCRIPT));
  tx.vout.push(new TxOut(txfee, assetsMarkerScript(mypk)));
  const opret = encodeAssetOrderOpRet(a.tokenid, [], encodeAssetBlob('b', a.numtokens, mypk));
  return finalize(tx, normal, mypk, opret, ASSETS_CP(0));
}

/** SetAssetOrigpubkey: the order's price and owner from its opret (0 and empty when it does not decode). */
function orderOf(tx: Transaction): { funcid: string; price: bigint; origpubkey: Uint8Array } {
  const op = tx.vout.length > 0 ? tryDecodeAssetTokenOpRet(tx.vout[tx.vout.length - 1]!.script) : null;
  return op ? { funcid: op.funcid, price: op.price, origpubkey: op.origpubkey } : { funcid: '', price: 0n, origpubkey: new Uint8Array(0) };
}

export interface FillAskSpec extends OrderBase {
  /** The ask (or last partial fill) transaction: myGetTransaction(asktxid). */
  askTx: Transaction;
  fillunits: bigint;
}

/**
 * FillSell(0, tokenid, zeroid, asktxid, fillunits): paid = (double)price / vout0 · fillunits; vin =
 * AddNormalinputs(2·txfee + paid, 60) then (asktxid, 0) (vin1 after reordering); vout0 = remaining
 * tokens at the global dual-eval address, vout1 = tokens bought to the -pubkey, vout2 = coins to the
 * owner, vout3 = the owner's marker, P2PK change, opret 'S' (price = coins still required).
 */
export function assembleFillAsk(a: FillAskSpec): AssetsAssembleResult {
  const txfee = ASSETS_TXFEE;
  if (a.fillunits < 0n) return { ok: false, error: `negative fillunits ${a.fillunits}\n` };
  const mypk = a.pubkey;
  const nft = nftEvalOf(a.nftData);
  const askCoin = coinOf(a.askTx, 0);
  if (!askCoin) return { ok: false, error: 'ask has no outputs' };
  const origAssetoshis = askCoin.value;
  const { price: totalNValue, origpubkey } = orderOf(a.askTx);
  const paid = askPaidAmount(totalNValue, origAssetoshis, a.fillunits);
  // Inputs are chosen for the unclamped payment; what is not paid comes back as change.
  const normal = selectNormalInputs(normalOnly(a.coins), 2n * txfee + paid, 60);
  if (!normal) return { ok: false, error: 'filltx not enough utxos' };
  const inputs = normal.reduce((s, c) => s + c.value, 0n);
  if (inputs < paid) return { ok: false, error: 'insufficient coins to fill sell' };
  // MakeCC1vout(EVAL_ASSETS, txfee, origpubkey) needs a key komodod could build a condition from.
  if (!isValidPubKeySize(origpubkey)) return { ok: false, error: 'invalid origpubkey in ask' };
  const fill = setAskFillamounts(origAssetoshis, paid, totalNValue);
  const tx = newContextualTransaction(a);
  tx.vout.push(new TxOut(origAssetoshis - fill.receivedAssetoshis, askLockScript(nft)));
  tx.vout.push(new TxOut(fill.receivedAssetoshis, tokenOutScript(mypk, nft)));
  tx.vout.push(new TxOut(fill.paidNValue, payToPubkeyVector(origpubkey)));
  tx.vout.push(new TxOut(txfee, assetsMarkerScript(origpubkey)));
  const opret = encodeAssetOrderOpRet(a.tokenid, [mypk], encodeAssetBlob('S', fill.remainingNValue, origpubkey));
  const u2 = { addrScript: ASSETS_GLOBAL_CC_SCRIPT, evalcode: EVAL_TOKENS, pk: ASSETS_GLOBAL_PUBKEY, priv: ASSETS_GLOBAL_PRIVKEY };
  return finalize(tx, [...normal, askCoin], mypk, opret, ASSETS_CP(nft, u2));
}

export interface FillBidSpec extends OrderBase {
  /** The bid (or last partial fill) transaction: myGetTransaction(bidtxid). */
  bidTx: Transaction;
  fillamount: bigint;
  /** Valid outputs of this token at the -pubkey's token address, in address-index order. */
  tokenCoins: readonly SpendableCoin[];
}

/**
 * FillBuyOffer(0, tokenid, bidtxid, fillamount): vin = AddNormalinputs(2·txfee, 3), (bidtxid, 0), token
 * inputs (fillamount, 60); vout0 = remaining coins at the Assets global address, vout1 = coins to the
 * -pubkey, vout2 = tokens to the owner, vout3 = the owner's marker, vout4 = token change, P2PK change,
 * opret 'B' (price = units still wanted). komodod returns its failure texts "no normal coins left" and
 * "dont have any assets to fill bid" as if they were the hex (the RPC layer reproduces that).
 */
export function assembleFillBid(a: FillBidSpec): AssetsAssembleResult {
  const txfee = ASSETS_TXFEE;
  if (a.fillamount < 0n) return { ok: false, error: `negative fillamount ${a.fillamount}` };
  const mypk = a.pubkey;
  const nft = nftEvalOf(a.nftData);
  const normal = selectNormalInputs(normalOnly(a.coins), 2n * txfee, 3);
  if (!normal) return { ok: false, error: 'no normal coins left' };
  const bidCoin = coinOf(a.bidTx, 0);
  if (!bidCoin) return { ok: false, error: 'bid has no outputs' };
  const bidamount = bidCoin.value;
  const { price: origprice, origpubkey } = orderOf(a.bidTx);
  const taken: Coin[] = [...normal, bidCoin];
  const tokens = selectTokenInputs(a.tokenCoins, a.fillamount, 60, taken);
  if (tokens.sum <= 0n) return { ok: false, error: 'dont have any assets to fill bid' };
  if (tokens.sum < a.fillamount) return { ok: false, error: 'insufficient tokens to fill buy offer' };
  if (!isValidPubKeySize(origpubkey)) return { ok: false, error: 'invalid origpubkey in bid' };
  const fill = setBidFillamounts(bidamount, a.fillamount, origprice);
  const fillamount = fill.paidUnits; // SetBidFillamounts clamps fillamount in place
  const change = tokens.sum > fillamount ? tokens.sum - fillamount : 0n;
  const tx = newContextualTransaction(a);
  tx.vout.push(new TxOut(bidamount - fill.receivedNValue, ASSETS_GLOBAL_CC_SCRIPT));
  tx.vout.push(new TxOut(fill.receivedNValue, p2pkScript(mypk)));
  tx.vout.push(new TxOut(fillamount, tokenOutScript(origpubkey, nft)));
  tx.vout.push(new TxOut(txfee, assetsMarkerScript(origpubkey)));
  if (change !== 0n) tx.vout.push(new TxOut(change, cc1Script(EVAL_TOKENS, mypk)));
  const opret = encodeAssetOrderOpRet(a.tokenid, [origpubkey], encodeAssetBlob('B', fill.remainingUnits, origpubkey));
  const u2 = { addrScript: ASSETS_GLOBAL_CC_SCRIPT, evalcode: EVAL_ASSETS, pk: ASSETS_GLOBAL_PUBKEY, priv: ASSETS_GLOBAL_PRIVKEY };
  return finalize(tx, [...normal, bidCoin, ...tokens.coins], mypk, opret, TOKENS_CP(nft, u2));
}

export interface CancelSpec extends OrderBase {
  /** The order (or last partial fill) transaction. */
  orderTx: Transaction;
}

/** The marker CancelSell / CancelBuyOffer add: (txid, 1) after an 's', (txid, 3) after an 'S', none otherwise. */
function markerCoin(orderTx: Transaction): SpendableCoin[] {
  const f = orderOf(orderTx).funcid;
  const c = f === 's' ? coinOf(orderTx, 1) : f === 'S' ? coinOf(orderTx, 3) : null;
  return c ? [c] : [];
}

/**
 * CancelSell(0, tokenid, asktxid): vin = AddNormalinputs(txfee, 3), (asktxid, 0), the marker; vout0 =
 * the locked tokens back to the -pubkey, vout1 = 10000 P2PK to the -pubkey, change, opret 'x'.
 * Only the owner can sign the marker: anyone else gets "CC signing error" from signAssetsTx.
 */
export function assembleCancelAsk(a: CancelSpec): AssetsAssembleResult {
  const txfee = ASSETS_TXFEE;
  const mypk = a.pubkey;
  const nft = nftEvalOf(a.nftData);
  const normal = selectNormalInputs(normalOnly(a.coins), txfee, 3);
  if (!normal) return { ok: false, error: 'not enough normal inputs' };
  const askCoin = coinOf(a.orderTx, 0);
  if (!askCoin) return { ok: false, error: 'ask has no outputs' };
  const tx = newContextualTransaction(a);
  tx.vout.push(new TxOut(askCoin.value, tokenOutScript(mypk, nft)));
  tx.vout.push(new TxOut(txfee, p2pkScript(mypk)));
  const opret = encodeAssetOrderOpRet(a.tokenid, [mypk], encodeAssetBlob('x'));
  const u2 = { addrScript: ASSETS_GLOBAL_CC_SCRIPT, evalcode: EVAL_TOKENS, pk: ASSETS_GLOBAL_PUBKEY, priv: ASSETS_GLOBAL_PRIVKEY };
  return finalize(tx, [...normal, askCoin, ...markerCoin(a.orderTx)], mypk, opret, ASSETS_CP(nft, u2));
}

/**
 * CancelBuyOffer(0, tokenid, bidtxid): vin = AddNormalinputs(txfee, 3), (bidtxid, 0) — the marker only
 * after an 's'/'S', so for a bid never (komodod's funcid check); vout0 = the locked coins P2PK to the
 * -pubkey, vout1 = 10000 P2PK to the -pubkey, change, opret 'o'. Anyone can build it; the validator
 * refuses a refund to someone other than the owner.
 */
export function assembleCancelBid(a: CancelSpec): AssetsAssembleResult {
  const txfee = ASSETS_TXFEE;
  const mypk = a.pubkey;
  const normal = selectNormalInputs(normalOnly(a.coins), txfee, 3);
  if (!normal) return { ok: false, error: 'not enough normal inputs' };
  const bidCoin = coinOf(a.orderTx, 0);
  if (!bidCoin) return { ok: false, error: 'bid has no outputs' };
  const tx = newContextualTransaction(a);
  tx.vout.push(new TxOut(bidCoin.value, p2pkScript(mypk)));
  tx.vout.push(new TxOut(txfee, p2pkScript(mypk)));
  const opret = encodeAssetOrderOpRet(a.tokenid, [], encodeAssetBlob('o'));
  return finalize(tx, [...normal, bidCoin, ...markerCoin(a.orderTx)], mypk, opret, ASSETS_CP(0));
}

/** Assemble with the private key's public key as the -pubkey, then sign. */
function build<S extends OrderBase>(assemble: (s: S) => AssetsAssembleResult, a: Omit<S, 'pubkey'> & SignArgs): BuildResult {
  const r = assemble({ ...a, pubkey: publicKeyFromPrivate(a.privateKey, true) } as unknown as S);
  return r.ok ? signAssetsTx(r.value, a) : r;
}

export const buildAsk = (a: Omit<AskSpec, 'pubkey'> & SignArgs) => build(assembleAsk, a);
export const buildBid = (a: Omit<BidSpec, 'pubkey'> & SignArgs) => build(assembleBid, a);
export const buildFillAsk = (a: Omit<FillAskSpec, 'pubkey'> & SignArgs) => build(assembleFillAsk, a);
export const buildFillBid = (a: Omit<FillBidSpec, 'pubkey'> & SignArgs) => build(assembleFillBid, a);
export const buildCancelAsk = (a: Omit<CancelSpec, 'pubkey'> & SignArgs) => build(assembleCancelAsk, a);
export const buildCancelBid = (a: Omit<CancelSpec, 'pubkey'> & SignArgs) => build(assembleCancelBid, a);
