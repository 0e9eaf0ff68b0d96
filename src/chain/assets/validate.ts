import { hash160 } from '../crypto/hash.js';
import { equalBytes, toHex } from '../encoding/hex.js';
import { isPayToCryptoCondition, isValidPubKeySize } from '../script/standard.js';
import type { Transaction } from '../tx/transaction.js';
import type { TxOut } from '../tx/output.js';
import { EVAL_ASSETS, EVAL_TOKENS } from '../cc/eval-codes.js';
import { cc1Script, tokensCC1Script } from '../tokens/conditions.js';
import { decodeTokenCreateOpRet, nftDataOf } from '../tokens/opret.js';
import { tokenValueShallow, type TokensLookup } from '../tokens/validate.js';
import { isCCInput, isTokensInput } from '../tokens/vins.js';
import { validateAskRemainder, validateBidRemainder } from './amounts.js';
import { ASSETS_GLOBAL_PUBKEY, scriptAddressKey } from './conditions.js';
import { tryDecodeAssetTokenOpRet, type AssetTokenOpRet } from './opret.js';

/**
 * komodod's Assets validator (assets.cpp AssetsValidate and its helpers in CCassetsCore.cpp at 0adeeab)
 * as a pure function, run for every input whose fulfillment holds Eval(0xe3). Transactions come from
 * a synchronous lookup (chain + mempool, or chain + the block's earlier transactions).
 */

export type AssetsLookup = TokensLookup;

export type AssetsValidation = { ok: true } | { ok: false; reason: string };

const isZero = (h: Uint8Array) => h.every((b) => b === 0);

/** The address key of a CC script komodod builds (no OP_DROP tail): Hash160 of the script. */
const ccKey = (script: Uint8Array) => 'k' + toHex(hash160(script));

/** CPubKey(vector): valid when the header's length is the vector's length; komodod then falls back to the module's global pk. */
const validPk = (pk: Uint8Array) => isValidPubKeySize(pk);

/** ConstrainVout(vout, CCflag, cmpaddr, nValue): CC-ness, address (if given) and value (if non-zero). */
function constrainVout(out: TxOut | undefined, ccFlag: boolean, cmpKey: string | null, nValue: bigint): boolean {
  // komodod indexes tx.vout without a bound check in places (e.g. vout[4] of a 4-output fillbuy);
  // a missing output fails every constraint here.
  if (!out) return false;
  if (isPayToCryptoCondition(out.script) !== ccFlag) return false;
  if (cmpKey !== null && scriptAddressKey(out.script) !== cmpKey) return false;
  if (nValue !== 0n && nValue !== out.value) return false;
  return true;
}

interface OrigAddrs {
  /** The owner's token address (GetTokensCCaddress(Tokens + nft, origpk)). */
  tokensKey: string;
  /** The owner's normal address. */
  normalKey: string;
}

class AssetsContext {
  reason: string | undefined;

  constructor(private readonly lookup: AssetsLookup) {}

  invalid(reason: string): false {
    this.reason = reason;
    return false;
  }

  getTx(txid: Uint8Array): Transaction | undefined {
    if (isZero(txid)) return undefined;
    return this.lookup.getTransaction(txid);
  }

  /** GetNonfungibleData's first byte: the NFT eval code of the token, 0 for a fungible one. */
  nftEval(tokenid: Uint8Array): number {
    const create = this.getTx(tokenid);
    if (!create || create.vout.length === 0) return 0;
    try {
      const d = nftDataOf(decodeTokenCreateOpRet(create.vout[create.vout.length - 1]!.script));
      return d.length > 0 ? d[0]! : 0;
    } catch {
      return 0;
    }
  }

  /** GetAssetorigaddrs(cp, origCCaddr, origNormalAddr, vintx). */
  origAddrs(vinTx: Transaction, nft: number): OrigAddrs | null {
    if (vinTx.vout.length === 0) return null;
    const op = tryDecodeAssetTokenOpRet(vinTx.vout[vinTx.vout.length - 1]!.script);
    if (!op || !'sSbB'.includes(op.funcid)) return null;
    // The normal address is that of `<origpubkey> OP_CHECKSIG`: only a valid key has one.
    if (!validPk(op.origpubkey)) return null;
    return { tokensKey: ccKey(tokensCC1Script(EVAL_TOKENS, nft, op.origpubkey)), normalKey: 'k' + toHex(hash160(op.origpubkey)) };
  }

  /** AssetValidateCCvin(cp, eval, origCCaddr, origaddr, tx, 1, vinTx): the locked value, or 0 (invalid). */
  validateCCvin(tx: Transaction, funcid: string, nft: number): { value: bigint; vinTx: Transaction; addrs: OrigAddrs } | null {
    const vini = 1;
    if (tx.vin.length < 2) return this.invalid('not enough for CC vins') || null;
    const prevout = tx.vin[vini]!.prevout;
    if (prevout.index !== 0) return this.invalid('vin1 needs to be buyvin.vout[0]') || null;
    const vinTx = this.getTx(prevout.hash);
    if (!vinTx) return this.invalid('always should find CCvin, but didnt') || null;
    const spentKey = vinTx.vout[0] ? scriptAddressKey(vinTx.vout[0].script) : null;
    if ((funcid === 'S' || funcid === 'x') && spentKey !== ccKey(tokensCC1Script(EVAL_ASSETS, nft, ASSETS_GLOBAL_PUBKEY))) {
      return this.invalid('invalid vin assets CCaddr') || null;
    }
    if ((funcid === 'B' || funcid === 'o') && spentKey !== ccKey(cc1Script(EVAL_ASSETS, ASSETS_GLOBAL_PUBKEY))) {
      return this.invalid('invalid vin assets CCaddr') || null;
    }
    const addrs = this.origAddrs(vinTx, nft);
    if (!addrs) return this.invalid('couldnt get origaddr for buyvin') || null;
    const value = vinTx.vout[0]?.value ?? 0n;
    if (value === 0n) return this.invalid('null value CCvin') || null;
    return { value, vinTx, addrs };
  }

  /** AssetValidateBuyvin: the bid's locked coins, the bid opret (units wanted, owner). */
  validateBuyvin(tx: Transaction, funcid: string, nft: number, refAssetid: Uint8Array): { value: bigint; vinOp: AssetTokenOpRet | null; addrs: OrigAddrs } | null {
    const r = this.validateCCvin(tx, funcid, nft);
    if (!r) return null;
    const { vinTx } = r;
    if (!isPayToCryptoCondition(vinTx.vout[0]!.script)) return this.invalid('invalid normal vout0 for buyvin') || null;
    const vinOp = tryDecodeAssetTokenOpRet(vinTx.vout[vinTx.vout.length - 1]!.script);
    const vinFuncid = vinOp?.funcid;
    if (vinFuncid === 'b' && !(vinTx.vout[1] && isPayToCryptoCondition(vinTx.vout[1].script))) {
      return this.invalid('invalid normal vout1 for buyvin') || null;
    }
    if (vinFuncid !== 'b' && vinFuncid !== 'B') return this.invalid('invalid opreturn for buyvin') || null;
    if (!equalBytes(refAssetid, vinOp!.tokenid)) return this.invalid('invalid assetid for buyvin') || null;
    return { value: r.value, vinOp, addrs: r.addrs };
  }

  /** AssetValidateSellvin: the ask's locked units (IsAssetvout of its vout0), the ask opret (coins asked, owner). */
  validateSellvin(tx: Transaction, funcid: string, nft: number, assetid: Uint8Array): { units: bigint; vinOp: AssetTokenOpRet; addrs: OrigAddrs } | null {
    const r = this.validateCCvin(tx, funcid, nft);
    if (!r) return null;
    const { vinTx } = r;
    // IsAssetvout(vinTx, 0, assetid): a CC vout0 (not the last output) of a tx whose asset opret names assetid.
    const vinOp = tryDecodeAssetTokenOpRet(vinTx.vout[vinTx.vout.length - 1]!.script);
    let units = 0n;
    if (vinTx.vout.length > 1 && isPayToCryptoCondition(vinTx.vout[0]!.script) && vinOp) {
      // ValidateAssetOpret: the opret's tokenid (for 'E' too, at v < 2) must be the non-null assetid.
      if (!isZero(assetid) && equalBytes(vinOp.tokenid, assetid)) units = vinTx.vout[0]!.value;
    }
    if (units === 0n) return this.invalid('invalid missing CC vout0 for sellvin') || null;
    return { units, vinOp: vinOp!, addrs: r.addrs };
  }

  /** AssetCalcAmounts' inputs: the shallow token value of every input carrying Eval(0xf2). */
  tokenInputs(tx: Transaction, assetid: Uint8Array): bigint | null {
    let inputs = 0n;
    for (const vin of tx.vin) {
      if (!isTokensInput(vin.scriptSig)) continue;
      const prev = this.getTx(vin.prevout.hash);
      if (!prev) return this.invalid('always should find vin tx, but didnt') || null;
      inputs += tokenValueShallow(prev, vin.prevout.index, assetid, this.lookup);
    }
    return inputs;
  }

  /** PreventCC(eval, tx, preventCCvins, numvins, preventCCvouts, numvouts). */
  preventCC(tx: Transaction, fromVin: number, fromVout: number): boolean {
    if (fromVin >= 0) {
      for (let i = fromVin; i < tx.vin.length; i++) if (isCCInput(tx.vin[i]!.scriptSig)) return this.invalid('invalid CC vin');
    }
    if (fromVout >= 0) {
      for (let i = fromVout; i < tx.vout.length; i++) if (isPayToCryptoCondition(tx.vout[i]!.script)) return this.invalid('invalid CC vout');
    }
    return true;
  }

  assetsValidate(tx: Transaction): boolean {
    const numvouts = tx.vout.length;
    // (The SEC ≤ 144073 and MGNX ≤ 210190 exemptions depend on the chain name and are not reproduced.)
    if (numvouts === 0) return this.invalid('AssetValidate: no vouts');
    const op = tryDecodeAssetTokenOpRet(tx.vout[numvouts - 1]!.script);
    if (!op) return this.invalid('AssetValidate: invalid opreturn payload');
    const { funcid, tokenid: assetid, assetid2, price: remainingPrice, origpubkey } = op;
    const nft = this.nftEval(assetid);
    const tokensDualEvalUnspendableKey = ccKey(tokensCC1Script(EVAL_ASSETS, nft, ASSETS_GLOBAL_PUBKEY));
    // GetCCaddress(cpAssets, origpubkey): an invalid key falls back to the Assets global pk.
    const origAssetsCCKey = ccKey(cc1Script(EVAL_ASSETS, validPk(origpubkey) ? origpubkey : ASSETS_GLOBAL_PUBKEY));

    const cancel = funcid === 'o' || funcid === 'x';
    if (!cancel && !this.getTx(assetid)) return this.invalid('cant find asset create txid');
    if (!cancel && !isZero(assetid2) && !this.getTx(assetid2)) return this.invalid('cant find asset2 create txid');
    if (isCCInput(tx.vin[0]?.scriptSig ?? new Uint8Array(0))) return this.invalid('illegal asset vin0');
    if (numvouts < 2) return this.invalid('too few vouts');
    // (funcid is never 'c' here: DecodeAssetTokenOpRet only yields asset funcids.)
    if (isZero(assetid)) return this.invalid('illegal assetid');
    const inputs = this.tokenInputs(tx, assetid);
    if (inputs === null) return false;

    let preventVins = -1;
    let preventVouts = -1;
    const v = (i: number) => tx.vout[i];
    const val = (i: number) => tx.vout[i]?.value ?? 0n;

    switch (funcid) {
      case 'b':
        // Creating a bid spends no e3 input: komodod refuses it outright (tokenconvert is gone).
        return this.invalid('invalid asset funcid (b)');
      case 's':
        return this.invalid('invalid asset funcid (s)');
      case 'E':
        return this.invalid('unexpected assets fillexchange funcid');
      case 'e':
        return this.invalid('unexpected assets funcid');

      case 'o': {
        const r = this.validateBuyvin(tx, funcid, nft, assetid);
        if (!r) return false;
        if (!constrainVout(v(0), false, r.addrs.normalKey, r.value)) return this.invalid('invalid refund for cancelbuy');
        preventVins = 3;
        preventVouts = 0;
        break;
      }

      case 'B': {
        preventVouts = 4;
        const r = this.validateBuyvin(tx, funcid, nft, assetid);
        if (!r) return false;
        const nValue = r.value;
        const totalunits = r.vinOp!.price;
        if (numvouts < 4) return this.invalid('not enough vouts for fillbuy');
        if (!equalBytes(r.vinOp!.origpubkey, origpubkey)) return this.invalid('mismatched origpubkeys for fillbuy');
        if (nValue !== val(0) + val(1)) return this.invalid('locked value doesnt match vout0+1 fillbuy');
        const vout4 = v(4);
        if (vout4 && isPayToCryptoCondition(vout4.script)) {
          // With token change in vout4 komodod's else-if chain ends here: vout1, the marker and the
          // remainder are not checked (assets.cpp:287-296).
          if (!constrainVout(v(2), true, r.addrs.tokensKey, 0n)) return this.invalid('vout2 doesnt go to origpubkey fillbuy');
          if (inputs !== val(2) + val(4)) return this.invalid('asset inputs doesnt match vout2+3 fillbuy');
          preventVouts++;
        } else if (!constrainVout(v(2), true, r.addrs.tokensKey, inputs)) {
          return this.invalid('vout2 doesnt match inputs fillbuy');
        } else if (!constrainVout(v(1), false, null, 0n)) {
          return this.invalid('vout1 is CC for fillbuy');
        } else if (!constrainVout(v(3), true, origAssetsCCKey, 10000n)) {
          return this.invalid('invalid marker for original pubkey');
        } else if (!validateBidRemainder(remainingPrice, val(0), nValue, val(1), val(2), totalunits)) {
          return this.invalid('mismatched remainder for fillbuy');
        } else if (remainingPrice !== 0n) {
          if (!constrainVout(v(0), true, ccKey(cc1Script(EVAL_ASSETS, ASSETS_GLOBAL_PUBKEY)), 0n)) {
            return this.invalid('mismatched vout0 AssetsCCaddr for fillbuy');
          }
        }
        break;
      }

      case 'x': {
        const r = this.validateSellvin(tx, funcid, nft, assetid);
        if (!r) return false;
        if (!constrainVout(v(0), true, r.addrs.tokensKey, r.units)) return this.invalid('invalid vout for cancel');
        preventVins = 3;
        preventVouts = 1;
        break;
      }

      case 'S': {
        const r = this.validateSellvin(tx, funcid, nft, assetid);
        if (!r) return false;
        const assetoshis = r.units;
        const totalunits = r.vinOp.price;
        if (numvouts < 4) return this.invalid('not enough vouts for fillask');
        if (!equalBytes(r.vinOp.origpubkey, origpubkey)) return this.invalid('mismatched origpubkeys for fillask');
        if (assetoshis !== val(0) + val(1)) return this.invalid('locked value doesnt match vout0+1 fillask');
        if (!validateAskRemainder(remainingPrice, val(0), assetoshis, val(1), val(2), totalunits)) return this.invalid('mismatched remainder for fillask');
        if (!constrainVout(v(1), true, null, 0n)) return this.invalid('normal vout1 for fillask');
        // komodod reports the owner's-payment check with the vout1 text too.
        if (!constrainVout(v(2), false, r.addrs.normalKey, 0n)) return this.invalid('normal vout1 for fillask');
        if (!constrainVout(v(3), true, origAssetsCCKey, 10000n)) return this.invalid('invalid marker for original pubkey');
        if (remainingPrice !== 0n && !constrainVout(v(0), true, tokensDualEvalUnspendableKey, 0n)) {
          return this.invalid('mismatched vout0 assets dual unspendable CCaddr for fill sell');
        }
        break;
      }
    }
    return this.preventCC(tx, preventVins, preventVouts);
  }
}

/**
 * AssetsValidate for `tx` (komodod runs it for every input whose fulfillment holds Eval(0xe3); the
 * verdict does not depend on which input). `height` is where the tx is validated: the 0adeeab rules
 * do not depend on it.
 */
export function validateAssets(tx: Transaction, height: number, lookup: AssetsLookup): AssetsValidation {
  void height;
  const ctx = new AssetsContext(lookup);
  const ok = ctx.assetsValidate(tx);
  if (ok && ctx.reason === undefined) return { ok: true };
  return { ok: false, reason: ctx.reason ?? 'AssetValidate: invalid' };
}
