import type { NodeServices } from '../../actors/protocol.js';
import { ccAddress, ccAddressOf, globalCCAddress, moduleGlobal } from '../../chain/cc/index.js';
import { toHex, toHexReversed } from '../../chain/encoding/hex.js';
import { makeTokensCCcond1 } from '../../chain/cc/builders.js';
import { EVAL_ASSETS, EVAL_TOKENS, cAtoll, parseHexLenient, parseUint256 } from '../../chain/tokens/index.js';
import {
  ASSETS_GLOBAL_PUBKEY,
  ASSETS_TXFEE,
  askPaidAmount,
  assembleAsk,
  assembleBid,
  assembleCancelAsk,
  assembleCancelBid,
  assembleFillAsk,
  assembleFillBid,
  orderAmount,
  tryDecodeAssetTokenOpRet,
  type AssetsAssembleResult,
} from '../../chain/assets/index.js';
import type { Transaction } from '../../chain/tx/transaction.js';
import type { JsonOut, JsonValue } from '../json-value.js';
import { getStr } from '../params.js';
import type { RpcMethod } from '../table.js';
import { COIN as SATOSHIS_PER_COIN } from '../../chain/consensus/amount.js';
import { CCSupport, errResult, isZero, numberText, pubkey2pk, type CCBuildContext } from './cc-support.js';
import type { AssetOrder, AssetOrderFilter } from '../../actors/chainstore/protocol.js';

const ASSETS = moduleGlobal(EVAL_ASSETS)!;
/** COIN as a double: komodod prints order amounts with sprintf("%.8f", (double)nValue / COIN) (CCassetstx.cpp). */
const COIN = Number(SATOSHIS_PER_COIN);

/** C strtol(s, 0, 0) truncated to uint8_t: decimal, 0x hex or 0 octal prefix, longest valid prefix. */
function strtol0(text: string): number {
  const m = /^[ \t\n\v\f\r]*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)/.exec(text);
  if (!m) return 0;
  const digits = m[2]!;
  let v: bigint;
  if (/^0[xX]/.test(digits)) v = BigInt(digits);
  else if (digits.startsWith('0')) v = digits.length > 1 ? BigInt('0o' + digits.slice(1)) : 0n;
  else v = BigInt(digits);
  if (m[1] === '-') v = -v;
  return Number(BigInt.asUintN(8, v));
}

/** The RPC methods of the Assets module (the token DEX), category `tokens` as in komodod's table. */
/** myGetTransaction, where the assets RPCs only need the transaction (confirmed or in the mempool). */
const findTx = async (cc: CCSupport, txid: Uint8Array): Promise<Transaction | null> => (await cc.findTx(txid))?.tx ?? null;

/**
 * AddNormalinputs' candidates (as the token methods take them), always skipping immature
 * coinbases (the wallet's AvailableCoins), measured against the call's build context.
 */
const normalCandidates = (cc: CCSupport, pk: Uint8Array, total: bigint, maxinputs: number, ctx: CCBuildContext) =>
  cc.normalCandidates(pk, total, maxinputs, { nextHeight: ctx.nextHeight, maturity: ctx.maturity });

/** FinalizeCCTx's signing with the -pubkey's wallet key: the hex, or null where komodod returns "". */
async function finish(cc: CCSupport, r: AssetsAssembleResult): Promise<{ hex: string } | { error: string }> {
  if (!r.ok) return { error: r.error };
  const ctx = await cc.buildContext();
  const s = await cc.signCC({ module: 'assets', assembled: r.value, ctx });
  if (!s) return { error: 'CC signing error: no private key for -pubkey in the wallet' };
  return s.ok ? { hex: toHex(s.tx.toRaw()) } : { error: s.error };
}

const success = (hex: string) => ({ result: 'success', hex });

/** origaddress and origtokenaddress of a 33-byte origpubkey (hex). */
type OrigAddresses = Map<string, [string, string]>;

/**
 * addOrders' item for one open order (CCassetstx.cpp AssetOrders), keys in komodod's order.
 * `addresses`: the orders' owner addresses found so far in this answer (an owner's orders share them).
 */
export function orderItem(o: AssetOrder, addresses: OrigAddresses = new Map()): Record<string, JsonOut> {
  const { funcid, value, vout0, price, tokenid: assetid, assetid2, origpubkey } = o;
  const item: Record<string, JsonOut> = { funcid, txid: o.txid, vout: o.index };
  if (funcid === 'b' || funcid === 'B') {
    item.amount = (Number(value) / COIN).toFixed(8);
    item.bidamount = (Number(vout0) / COIN).toFixed(8);
  } else {
    item.amount = value.toString();
    item.askamount = vout0.toString();
  }
  if (origpubkey.length === 33) {
    const id = toHex(origpubkey);
    let pair = addresses.get(id);
    if (!pair) {
      const pk33 = pubkey2pk(origpubkey) ?? ASSETS_GLOBAL_PUBKEY; // GetCCaddress falls back to the global key
      pair = [ccAddressOf(EVAL_ASSETS, pk33), ccAddress(makeTokensCCcond1(EVAL_TOKENS, 0, pubkey2pk(origpubkey) ?? moduleGlobal(EVAL_TOKENS)!.pubkey))];
      addresses.set(id, pair);
    }
    item.origaddress = pair[0];
    item.origtokenaddress = pair[1];
  }
  if (!isZero(assetid)) item.tokenid = toHexReversed(assetid);
  if (!isZero(assetid2)) item.otherid = toHexReversed(assetid2);
  if (price > 0n) {
    // komodod tests `funcid == 'e' || funcid == 'e'`: an 'E' order takes the bid branch
    if (funcid === 's' || funcid === 'S' || funcid === 'e') {
      item.totalrequired = (Number(price) / COIN).toFixed(8);
      item.price = (Number(price) / Number(BigInt.asIntN(64, 100000000n * vout0))).toFixed(8);
    } else {
      item.totalrequired = price;
      item.price = (Number(vout0) / Number(BigInt.asIntN(64, price * 100000000n))).toFixed(8);
    }
  }
  return item;
}

/**
 * AssetOrders(refassetid, pk, additionalEvalCode) (CCassetstx.cpp): komodod walks every unspent
 * output at each Assets address and keeps the open orders of the token (tokenorders) or the asks of
 * `pk` (mytokenorders); acnode reads exactly those from the order index, address by address in the
 * same order, so the answer costs its own size.
 */
async function assetOrders(cc: CCSupport, refassetid: Uint8Array, pk: Uint8Array | null, additionalEvalCode: number): Promise<JsonOut[]> {
  const filter: AssetOrderFilter = pk !== null ? { owner: toHex(pk) } : isZero(refassetid) ? {} : { tokenid: toHexReversed(refassetid) };
  // bids: coins at the Assets global CC address; asks: tokens at its dual-eval (NFT-aware with a tokenid) address
  const nft = isZero(refassetid) ? new Uint8Array(0) : await cc.nftDataOfToken(refassetid);
  const addresses = [globalCCAddress(ASSETS), ccAddress(makeTokensCCcond1(EVAL_ASSETS, nft.length > 0 ? nft[0]! : 0, ASSETS_GLOBAL_PUBKEY))];
  if (additionalEvalCode !== 0) addresses.push(ccAddress(makeTokensCCcond1(EVAL_ASSETS, additionalEvalCode, ASSETS_GLOBAL_PUBKEY)));
  const result: JsonOut[] = [];
  const owners: OrigAddresses = new Map();
  for (const address of addresses) for (const o of await cc.assetOrdersAt(address, filter)) result.push(orderItem(o, owners));
  return result;
}

/** tokencancelask / tokencancelbid: the same RPC shape in komodod, on an ask or a bid. */
function cancelOrderMethod(cc: CCSupport, kind: 'ask' | 'bid'): RpcMethod {
  return {
    name: `tokencancel${kind}`,
    category: 'tokens',
    help: `tokencancel${kind} tokenid ${kind}txid\n`,
    minArgs: 2,
    maxArgs: 2,
    handler: async (params) => {
      const pk = await cc.ensureCC(EVAL_ASSETS, EVAL_TOKENS);
      const tokenid = parseUint256(getStr(params[0]!));
      const ordertxid = parseUint256(getStr(params[1]!));
      // komodod quirk: no "result" key
      if (isZero(tokenid) || isZero(ordertxid)) return { error: 'invalid parameter' };
      const ctx = await cc.buildContext();
      const coins = await normalCandidates(cc, pk, ASSETS_TXFEE, 3, ctx);
      const orderTx = coins.length > 0 ? await findTx(cc, ordertxid) : null;
      if (!orderTx) return errResult(`couldnt cancel ${kind}`);
      const assembled =
        kind === 'ask'
          ? assembleCancelAsk({ ...ctx, pubkey: pk, tokenid, orderTx, nftData: await cc.nftDataOfToken(tokenid), coins })
          : assembleCancelBid({ ...ctx, pubkey: pk, tokenid, orderTx, coins });
      const r = await finish(cc, assembled);
      return 'hex' in r ? success(r.hex) : errResult(`couldnt cancel ${kind}`);
    },
  };
}

export function assetsMethods(node: NodeServices): RpcMethod[] {
  const cc = new CCSupport(node);
  return [
    {
      name: 'assetsaddress',
      category: 'tokens',
      help: 'assetsaddress [pubkey]\n',
      maxArgs: 1,
      handler: (params) => assetsaddress(cc, params),
    },
    {
      name: 'tokenorders',
      category: 'tokens',
      help:
        'tokenorders [tokenid]\n' +
        'returns token orders for the tokenid or all available token orders if tokenid is not set\n' +
        '(this rpc supports only fungible tokens)\n\n',
      maxArgs: 1,
      handler: (params) => tokenorders(cc, params),
    },
    {
      name: 'mytokenorders',
      category: 'tokens',
      help:
        'mytokenorders [evalcode]\n' +
        'returns all the token orders for mypubkey\n' +
        'if evalcode is set then returns mypubkey token orders for non-fungible tokens with this evalcode\n\n',
      maxArgs: 1,
      handler: (params) => mytokenorders(cc, params),
    },
    {
      name: 'tokenask',
      category: 'tokens',
      help: 'tokenask numtokens tokenid price\n',
      minArgs: 3,
      maxArgs: 3,
      handler: (params) => tokenask(cc, params),
    },
    {
      name: 'tokenbid',
      category: 'tokens',
      help: 'tokenbid numtokens tokenid price\n',
      minArgs: 3,
      maxArgs: 3,
      handler: (params) => tokenbid(cc, params),
    },
    {
      name: 'tokenfillask',
      category: 'tokens',
      help: 'tokenfillask tokenid asktxid fillunits\n',
      minArgs: 3,
      maxArgs: 3,
      handler: (params) => tokenfillask(cc, params),
    },
    {
      name: 'tokenfillbid',
      category: 'tokens',
      help: 'tokenfillbid tokenid bidtxid fillamount\n',
      minArgs: 3,
      maxArgs: 3,
      handler: (params) => tokenfillbid(cc, params),
    },
    cancelOrderMethod(cc, 'ask'),
    {
      // AssetConvert is gone: after its checks komodod always answers "deprecated".
      name: 'tokenconvert',
      category: 'tokens',
      help: 'tokenconvert evalcode tokenid pubkey amount\n',
      minArgs: 4,
      maxArgs: 4,
      handler: (params) => tokenconvert(cc, params),
    },
    cancelOrderMethod(cc, 'bid'),
  ];
}

async function assetsaddress(cc: CCSupport, params: JsonValue[]): Promise<JsonOut> {
  const my = await cc.ensureCC(EVAL_ASSETS);
  const pubkey = params.length === 1 ? parseHexLenient(getStr(params[0]!)) : new Uint8Array(0);
  return await cc.ccAddressResult({ name: 'Assets', global: ASSETS, globalPubkey: ASSETS_GLOBAL_PUBKEY }, pubkey, my);
}

async function tokenorders(cc: CCSupport, params: JsonValue[]): Promise<JsonOut> {
  await cc.ensureCC(EVAL_ASSETS, EVAL_TOKENS);
  if (params.length === 1) {
    const tokenid = parseUint256(getStr(params[0]!));
    if (isZero(tokenid)) throw new Error('incorrect tokenid\n');
    return await assetOrders(cc, tokenid, null, 0);
  }
  return await assetOrders(cc, new Uint8Array(32), null, 0);
}

async function mytokenorders(cc: CCSupport, params: JsonValue[]): Promise<JsonOut> {
  const my = await cc.ensureCC(EVAL_ASSETS, EVAL_TOKENS);
  const evalcode = params.length === 1 ? strtol0(getStr(params[0]!)) : 0;
  return await assetOrders(cc, new Uint8Array(32), my, evalcode);
}

async function tokenask(cc: CCSupport, params: JsonValue[]): Promise<JsonOut> {
  const pk = await cc.ensureCC(EVAL_ASSETS, EVAL_TOKENS);
  const numtokensText = numberText(params[0]);
  const tokenid = parseUint256(getStr(params[1]!));
  const { numtokens, price, amount: askamount } = orderAmount(numtokensText, numberText(params[2]));
  if (isZero(tokenid) || numtokens <= 0n || !(price > 0) || askamount <= 0n) return errResult('invalid parameter');
  const nft = await cc.nftDataOfToken(tokenid);
  const ctx = await cc.buildContext();
  const coins = await normalCandidates(cc, pk, 2n * ASSETS_TXFEE, 3, ctx);
  const tokenCoins = coins.length > 0 ? await cc.tokenCandidates(pk, tokenid, nft.length > 0 ? nft[0]! : 0, numtokens, 60) : [];
  const r = await finish(cc, assembleAsk({ ...ctx, pubkey: pk, tokenid, numtokens, askamount, nftData: nft, coins, tokenCoins }));
  // komodod reports any CreateSell failure as "couldnt create ask" (CCerror is not read here).
  return 'hex' in r ? success(r.hex) : errResult('couldnt create ask');
}

async function tokenbid(cc: CCSupport, params: JsonValue[]): Promise<JsonOut> {
  const pk = await cc.ensureCC(EVAL_ASSETS, EVAL_TOKENS);
  const numtokensText = numberText(params[0]);
  const tokenid = parseUint256(getStr(params[1]!));
  const { numtokens, price, amount: bidamount } = orderAmount(numtokensText, numberText(params[2]));
  if (!(price > 0)) return errResult('price must be positive');
  if (isZero(tokenid)) return errResult('invalid tokenid');
  if (bidamount <= 0n) return errResult('bid amount must be positive');
  const ctx = await cc.buildContext();
  const tokenCreateTx = (await findTx(cc, tokenid)) ?? undefined;
  const coins = await normalCandidates(cc, pk, bidamount + 2n * ASSETS_TXFEE, 64, ctx);
  const r = await finish(cc, assembleBid({ ...ctx, pubkey: pk, tokenid, bidamount, numtokens, tokenCreateTx, coins }));
  if (!(numtokens > 0n)) return errResult('price and numtokens must be positive');
  return 'hex' in r ? success(r.hex) : errResult('couldnt create bid');
}

async function tokenfillask(cc: CCSupport, params: JsonValue[]): Promise<JsonOut> {
  const pk = await cc.ensureCC(EVAL_ASSETS, EVAL_TOKENS);
  const tokenid = parseUint256(getStr(params[0]!));
  const asktxid = parseUint256(getStr(params[1]!));
  const fillunits = cAtoll(numberText(params[2]));
  if (fillunits <= 0n) return errResult('fillunits must be positive');
  // komodod quirk: this error object has no "result" key
  if (isZero(tokenid) || isZero(asktxid)) return { error: 'invalid parameter' };
  const askTx = await findTx(cc, asktxid);
  if (!askTx) return errResult('couldnt fill ask');
  const nft = await cc.nftDataOfToken(tokenid);
  const ctx = await cc.buildContext();
  const op = askTx.vout.length > 0 ? tryDecodeAssetTokenOpRet(askTx.vout[askTx.vout.length - 1]!.script) : null;
  const paid = askTx.vout.length > 0 ? askPaidAmount(op?.price ?? 0n, askTx.vout[0]!.value, fillunits) : 0n;
  const coins = await normalCandidates(cc, pk, 2n * ASSETS_TXFEE + paid, 60, ctx);
  const r = await finish(cc, assembleFillAsk({ ...ctx, pubkey: pk, tokenid, askTx, fillunits, nftData: nft, coins }));
  if ('hex' in r) return success(r.hex);
  // FillSell's CCerror texts are reported; anything else is "couldnt fill ask"
  if (r.error === 'filltx not enough utxos' || r.error === 'insufficient coins to fill sell') return errResult(r.error);
  return errResult('couldnt fill ask');
}

async function tokenfillbid(cc: CCSupport, params: JsonValue[]): Promise<JsonOut> {
  const pk = await cc.ensureCC(EVAL_ASSETS, EVAL_TOKENS);
  const tokenid = parseUint256(getStr(params[0]!));
  const bidtxid = parseUint256(getStr(params[1]!));
  const fillamount = cAtoll(numberText(params[2]));
  if (fillamount <= 0n) return errResult('fillamount must be positive');
  if (isZero(tokenid) || isZero(bidtxid)) return errResult('must provide tokenid and bidtxid');
  const ctx = await cc.buildContext();
  const coins = await normalCandidates(cc, pk, 2n * ASSETS_TXFEE, 3, ctx);
  // komodod quirk: FillBuyOffer returns these failure texts as the "hex" of a success
  if (coins.length === 0) return success('no normal coins left');
  const bidTx = await findTx(cc, bidtxid);
  if (!bidTx) return success('no normal coins left');
  const nft = await cc.nftDataOfToken(tokenid);
  const tokenCoins = await cc.tokenCandidates(pk, tokenid, nft.length > 0 ? nft[0]! : 0, fillamount, 60);
  const assembled = assembleFillBid({ ...ctx, pubkey: pk, tokenid, bidTx, fillamount, nftData: nft, coins, tokenCoins });
  if (!assembled.ok && (assembled.error === 'no normal coins left' || assembled.error === 'dont have any assets to fill bid')) return success(assembled.error);
  const r = await finish(cc, assembled);
  return 'hex' in r ? success(r.hex) : errResult('couldnt fill bid');
}

async function tokenconvert(cc: CCSupport, params: JsonValue[]): Promise<JsonOut> {
  await cc.ensureCC(EVAL_ASSETS);
  getStr(params[0]!); // evalcode = atoi(...): read, unused
  const tokenid = parseUint256(getStr(params[1]!));
  getStr(params[2]!); // pubkey = ParseHex(...): read, unused
  const amount = cAtoll(getStr(params[3]!));
  if (isZero(tokenid)) return errResult('invalid tokenid');
  if (amount <= 0n) return errResult('amount must be positive');
  return errResult('deprecated');
}
