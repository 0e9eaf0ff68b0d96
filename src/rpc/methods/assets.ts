import type { NodeServices } from '../../actors/services.js';
import { addressKey } from '../../actors/chainstore/coins.js';
import type { TokenOutput } from '../../actors/tokens/registry.js';
import { ccAddress, ccAddressOf, globalCCAddress, moduleGlobal, normalAddress } from '../../chain/cc/index.js';
import { hash160 } from '../../chain/crypto/hash.js';
import { decodeAddress } from '../../chain/address/address.js';
import { Amount } from '../../chain/encoding/coin-amount.js';
import { fromHex, toHex, toHexReversed } from '../../chain/encoding/hex.js';
import type { ChainParams } from '../../chain/params/chain-params.js';
import { parsePayToCryptoCondition } from '../../chain/script/standard.js';
import { makeTokensCCcond1 } from '../../chain/cc/builders.js';
import {
  EVAL_ASSETS,
  EVAL_TOKENS,
  cAtoll,
  cpubkeyLength,
  decodeTokenCreateOpRet,
  nftDataOf,
  parseHexLenient,
  parseUint256,
  tokensCC1Script,
  type SpendableCoin,
} from '../../chain/tokens/index.js';
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
  signAssetsTx,
  tryDecodeAssetTokenOpRet,
  type AssetsAssembleResult,
} from '../../chain/assets/index.js';
import type { Transaction } from '../../chain/tx/transaction.js';
import { JsonNumber, type JsonOut, type JsonValue } from '../json-value.js';
import { getStr } from '../params.js';
import type { RpcMethod } from '../table.js';

/** CC_REQUIREMENTS_MSG (CCinclude.h). */
const CC_REQUIREMENTS_MSG = 'to use CC contracts, you need to launch daemon with valid -pubkey= for an address in your wallet\n';

const ASSETS = moduleGlobal(EVAL_ASSETS)!;
const COIN = 100000000;

/** ERR_RESULT: `{"result":"error","error":…}`, keys in that order. */
const errResult = (error: string) => ({ result: 'error', error });

/** A numeric param: komodod reads a string; a JSON number is taken as its decimal text (design.md). */
function numberText(v: JsonValue | undefined): string {
  if (v instanceof JsonNumber) return v.text;
  return getStr(v ?? null);
}

/** pubkey2pk / CPubKey(vector): valid when the size matches the header byte, else empty (null). */
function pubkey2pk(bytes: Uint8Array): Uint8Array | null {
  return bytes.length > 0 && cpubkeyLength(bytes[0]!) === bytes.length ? bytes : null;
}

const isZero = (h: Uint8Array) => h.every((b) => b === 0);
const txidBytes = (displayHex: string) => Uint8Array.from(Buffer.from(displayHex, 'hex').reverse());

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

interface UnspentEntry {
  txid: string;
  index: number;
  value: bigint;
  script: Uint8Array;
  height: number;
  coinbase: boolean;
}

/** The RPC methods of the Assets module (the token DEX), category `tokens` as in komodod's table. */
export function assetsMethods(node: NodeServices): RpcMethod[] {
  /** The -pubkey, with the same dev-chain default the token methods use. */
  const mypk: Uint8Array | null = node.config.pubkey ? fromHex(node.config.pubkey) : node.config.devChain ? node.minerPubkey : null;

  const chainParams = async (): Promise<ChainParams> => (await node.chain.ask<ChainParams | null>({ op: 'params' })) ?? node.baseParams;

  /** ensure_CCrequirements for each eval code: CC on and the code enabled, -pubkey, -addressindex, -spentindex. */
  async function ensureCC(...codes: number[]): Promise<Uint8Array> {
    const p = await chainParams();
    if (p.ac.ccActive === 0 || codes.some((c) => p.ccDisabled[c]) || !mypk || !node.config.addressindex || !node.config.spentindex) {
      throw new Error(CC_REQUIREMENTS_MSG);
    }
    return mypk;
  }

  /** myGetTransaction: the tx index, then the mempool. */
  async function findTx(txid: Uint8Array): Promise<Transaction | null> {
    if (isZero(txid)) return null;
    const hex = toHexReversed(txid);
    const c = await node.chain.ask<{ tx: Transaction } | null>({ op: 'tx', txid: hex });
    if (c) return c.tx;
    const m = await node.mempool.ask<{ tx: Transaction } | null>({ op: 'get', txid: hex });
    return m ? m.tx : null;
  }

  /** GetNonfungibleData. */
  async function nftDataOfToken(tokenid: Uint8Array): Promise<Uint8Array> {
    const tx = await findTx(tokenid);
    if (!tx || tx.vout.length === 0) return new Uint8Array(0);
    try {
      return nftDataOf(decodeTokenCreateOpRet(tx.vout[tx.vout.length - 1]!.script));
    } catch {
      return new Uint8Array(0);
    }
  }

  const spentInMempool = async (txid: string, n: number): Promise<boolean> =>
    (await node.mempool.ask<string | null>({ op: 'spentBy', txid, n })) !== null;

  async function addressBalance(address: string, ccflag: boolean): Promise<Amount> {
    return new Amount(await node.chain.ask<bigint>({ op: 'addressBalance', address: addressKey(ccflag ? 3 : 1, decodeAddress(address)!.hash) }));
  }

  /** SetCCunspents: confirmed unspent outputs at a CC address, in address-index order. */
  async function ccUnspents(address: string): Promise<UnspentEntry[]> {
    return node.chain.ask<UnspentEntry[]>({ op: 'addressUnspent', address: addressKey(3, decodeAddress(address)!.hash) });
  }

  /** AddNormalinputs' candidates: the -pubkey's confirmed normal outputs not spent in the mempool (as the token methods take them). */
  async function normalCandidates(pk: Uint8Array, total: bigint, maxinputs: number): Promise<SpendableCoin[]> {
    const list = await node.chain.ask<UnspentEntry[]>({ op: 'addressUnspent', address: addressKey(1, hash160(pk)) });
    const ctx = await buildContext();
    const threshold = maxinputs > 0 ? total / BigInt(maxinputs) : total;
    const out: SpendableCoin[] = [];
    let sum = 0n;
    for (const u of list) {
      if (u.value < threshold || parsePayToCryptoCondition(u.script)) continue;
      if (u.coinbase && ctx.nextHeight - u.height < ctx.maturity) continue;
      if (await spentInMempool(u.txid, u.index)) continue;
      out.push({ txid: txidBytes(u.txid), vout: u.index, value: u.value, script: u.script });
      sum += u.value;
      if (out.length >= maxinputs || sum >= total) break;
    }
    return out;
  }

  /** AddTokenCCInputs' candidates: valid token outputs at the -pubkey's token address (NFT-aware), not spent in the mempool. */
  async function tokenCandidates(pk: Uint8Array, tokenid: Uint8Array, nft: number, total: bigint, maxinputs: number): Promise<SpendableCoin[]> {
    const addrHash = toHex(hash160(tokensCC1Script(EVAL_TOKENS, nft, pk)));
    const outputs = await node.tokens.ask<TokenOutput[]>({ op: 'outputs', tokenid: toHexReversed(tokenid), addressHash: addrHash });
    const threshold = total / BigInt(maxinputs);
    const out: SpendableCoin[] = [];
    let sum = 0n;
    for (const o of outputs) {
      if (o.value < threshold) continue;
      if (await spentInMempool(o.txid, o.index)) continue;
      out.push({ txid: txidBytes(o.txid), vout: o.index, value: o.value, script: o.script });
      sum += o.value;
      if (sum >= total || out.length >= maxinputs) break;
    }
    return out;
  }

  async function buildContext() {
    const [tip, params] = await Promise.all([node.chain.ask<{ height: number }>({ op: 'tip' }), chainParams()]);
    return { nextHeight: tip.height + 1, activation: params.activation, expiryDelta: node.config.txexpirydelta, maturity: params.coinbaseMaturity };
  }

  /** FinalizeCCTx's signing with the -pubkey's wallet key: the hex, or null where komodod returns "". */
  async function finish(r: AssetsAssembleResult): Promise<{ hex: string } | { error: string }> {
    if (!r.ok) return { error: r.error };
    const pk = r.value.mypk;
    const priv = node.keys.get(toHex(pk))?.secret;
    if (!priv) return { error: 'CC signing error: no private key for -pubkey in the wallet' };
    const ctx = await buildContext();
    const s = signAssetsTx(r.value, { ...ctx, privateKey: priv });
    return s.ok ? { hex: toHex(s.tx.toRaw()) } : { error: s.error };
  }

  const success = (hex: string) => ({ result: 'success', hex });

  /** AssetOrders(refassetid, pk, additionalEvalCode) (CCassetstx.cpp). */
  async function assetOrders(refassetid: Uint8Array, pk: Uint8Array | null, additionalEvalCode: number): Promise<JsonOut[]> {
    const result: JsonOut[] = [];
    const txCache = new Map<string, Transaction | null>();
    const addOrders = async (u: UnspentEntry) => {
      let ordertx = txCache.get(u.txid);
      if (ordertx === undefined) txCache.set(u.txid, (ordertx = await findTx(txidBytes(u.txid))));
      if (!ordertx || ordertx.vout.length === 0) return;
      const op = tryDecodeAssetTokenOpRet(ordertx.vout[ordertx.vout.length - 1]!.script);
      if (!op) return;
      const { funcid, tokenid: assetid, assetid2, price, origpubkey } = op;
      const mine = pk !== null && pubkey2pk(origpubkey) !== null && toHex(pk) === toHex(origpubkey) && (funcid === 'S' || funcid === 's');
      const listed = pk === null && (isZero(refassetid) || toHex(assetid) === toHex(refassetid));
      if (!listed && !mine) return;
      const value = ordertx.vout[u.index]!.value;
      if (value === 0n) return; // a fully filled order
      const vout0 = ordertx.vout[0]!.value;
      const item: Record<string, JsonOut> = { funcid, txid: u.txid, vout: u.index };
      if (funcid === 'b' || funcid === 'B') {
        item.amount = (Number(value) / COIN).toFixed(8);
        item.bidamount = (Number(vout0) / COIN).toFixed(8);
      } else {
        item.amount = value.toString();
        item.askamount = vout0.toString();
      }
      if (origpubkey.length === 33) {
        const pk33 = pubkey2pk(origpubkey) ?? ASSETS_GLOBAL_PUBKEY; // GetCCaddress falls back to the global key
        item.origaddress = ccAddressOf(EVAL_ASSETS, pk33);
        item.origtokenaddress = ccAddress(makeTokensCCcond1(EVAL_TOKENS, 0, pubkey2pk(origpubkey) ?? moduleGlobal(EVAL_TOKENS)!.pubkey));
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
      result.push(item);
    };
    // bids: coins at the Assets global CC address; asks: tokens at its dual-eval (NFT-aware with a tokenid) address
    const bids = await ccUnspents(globalCCAddress(ASSETS));
    const nft = isZero(refassetid) ? new Uint8Array(0) : await nftDataOfToken(refassetid);
    const asks = await ccUnspents(ccAddress(makeTokensCCcond1(EVAL_ASSETS, nft.length > 0 ? nft[0]! : 0, ASSETS_GLOBAL_PUBKEY)));
    for (const u of bids) await addOrders(u);
    for (const u of asks) await addOrders(u);
    if (additionalEvalCode !== 0) {
      const dual = await ccUnspents(ccAddress(makeTokensCCcond1(EVAL_ASSETS, additionalEvalCode, ASSETS_GLOBAL_PUBKEY)));
      for (const u of dual) await addOrders(u);
    }
    return result;
  }

  return [
    {
      name: 'assetsaddress',
      category: 'tokens',
      help: 'assetsaddress [pubkey]\n',
      maxArgs: 1,
      handler: async (params) => {
        const my = await ensureCC(EVAL_ASSETS);
        const pubkey = params.length === 1 ? parseHexLenient(getStr(params[0]!)) : new Uint8Array(0);
        const globalCC = globalCCAddress(ASSETS);
        const out: Record<string, JsonOut> = {
          result: 'success',
          AssetsCCAddress: globalCC,
          AssetsCCBalance: await addressBalance(globalCC, true),
          AssetsNormalAddress: ASSETS.normalAddressConstant,
          AssetsNormalBalance: await addressBalance(ASSETS.normalAddressConstant, false),
          AssetsCCTokensAddress: ccAddress(makeTokensCCcond1(EVAL_ASSETS, 0, ASSETS_GLOBAL_PUBKEY)),
        };
        if (pubkey.length === 33) {
          const addr = ccAddressOf(EVAL_ASSETS, pubkey2pk(pubkey) ?? ASSETS_GLOBAL_PUBKEY);
          out['PubkeyCCaddress(Assets)'] = addr;
          // komodod's quirk: read from the normal (type 1) index, so ~always 0.
          out['PubkeyCCbalance(Assets)'] = await addressBalance(addr, false);
        }
        const myCC = ccAddressOf(EVAL_ASSETS, my);
        out['myCCAddress(Assets)'] = myCC;
        out['myCCbalance(Assets)'] = await addressBalance(myCC, true);
        const myaddr = normalAddress(my);
        out.myaddress = myaddr;
        out.mybalance = await addressBalance(myaddr, false);
        return out;
      },
    },
    {
      name: 'tokenorders',
      category: 'tokens',
      help:
        'tokenorders [tokenid]\n' +
        'returns token orders for the tokenid or all available token orders if tokenid is not set\n' +
        '(this rpc supports only fungible tokens)\n\n',
      maxArgs: 1,
      handler: async (params) => {
        await ensureCC(EVAL_ASSETS, EVAL_TOKENS);
        if (params.length === 1) {
          const tokenid = parseUint256(getStr(params[0]!));
          if (isZero(tokenid)) throw new Error('incorrect tokenid\n');
          return await assetOrders(tokenid, null, 0);
        }
        return await assetOrders(new Uint8Array(32), null, 0);
      },
    },
    {
      name: 'mytokenorders',
      category: 'tokens',
      help:
        'mytokenorders [evalcode]\n' +
        'returns all the token orders for mypubkey\n' +
        'if evalcode is set then returns mypubkey token orders for non-fungible tokens with this evalcode\n\n',
      maxArgs: 1,
      handler: async (params) => {
        const my = await ensureCC(EVAL_ASSETS, EVAL_TOKENS);
        const evalcode = params.length === 1 ? strtol0(getStr(params[0]!)) : 0;
        return await assetOrders(new Uint8Array(32), my, evalcode);
      },
    },
    {
      name: 'tokenask',
      category: 'tokens',
      help: 'tokenask numtokens tokenid price\n',
      minArgs: 3,
      maxArgs: 3,
      handler: async (params) => {
        const pk = await ensureCC(EVAL_ASSETS, EVAL_TOKENS);
        const numtokensText = numberText(params[0]);
        const tokenid = parseUint256(getStr(params[1]!));
        const { numtokens, price, amount: askamount } = orderAmount(numtokensText, numberText(params[2]));
        if (isZero(tokenid) || numtokens <= 0n || !(price > 0) || askamount <= 0n) return errResult('invalid parameter');
        const nft = await nftDataOfToken(tokenid);
        const ctx = await buildContext();
        const coins = await normalCandidates(pk, 2n * ASSETS_TXFEE, 3);
        const tokenCoins = coins.length > 0 ? await tokenCandidates(pk, tokenid, nft.length > 0 ? nft[0]! : 0, numtokens, 60) : [];
        const r = await finish(assembleAsk({ ...ctx, pubkey: pk, tokenid, numtokens, askamount, nftData: nft, coins, tokenCoins }));
        // komodod reports any CreateSell failure as "couldnt create ask" (CCerror is not read here).
        return 'hex' in r ? success(r.hex) : errResult('couldnt create ask');
      },
    },
    {
      name: 'tokenbid',
      category: 'tokens',
      help: 'tokenbid numtokens tokenid price\n',
      minArgs: 3,
      maxArgs: 3,
      handler: async (params) => {
        const pk = await ensureCC(EVAL_ASSETS, EVAL_TOKENS);
        const numtokensText = numberText(params[0]);
        const tokenid = parseUint256(getStr(params[1]!));
        const { numtokens, price, amount: bidamount } = orderAmount(numtokensText, numberText(params[2]));
        if (!(price > 0)) return errResult('price must be positive');
        if (isZero(tokenid)) return errResult('invalid tokenid');
        if (bidamount <= 0n) return errResult('bid amount must be positive');
        const ctx = await buildContext();
        const tokenCreateTx = (await findTx(tokenid)) ?? undefined;
        const coins = await normalCandidates(pk, bidamount + 2n * ASSETS_TXFEE, 64);
        const r = await finish(assembleBid({ ...ctx, pubkey: pk, tokenid, bidamount, numtokens, tokenCreateTx, coins }));
        if (!(numtokens > 0n)) return errResult('price and numtokens must be positive');
        return 'hex' in r ? success(r.hex) : errResult('couldnt create bid');
      },
    },
    {
      name: 'tokenfillask',
      category: 'tokens',
      help: 'tokenfillask tokenid asktxid fillunits\n',
      minArgs: 3,
      maxArgs: 3,
      handler: async (params) => {
        const pk = await ensureCC(EVAL_ASSETS, EVAL_TOKENS);
        const tokenid = parseUint256(getStr(params[0]!));
        const asktxid = parseUint256(getStr(params[1]!));
        const fillunits = cAtoll(numberText(params[2]));
        if (fillunits <= 0n) return errResult('fillunits must be positive');
        // komodod quirk: this error object has no "result" key
        if (isZero(tokenid) || isZero(asktxid)) return { error: 'invalid parameter' };
        const askTx = await findTx(asktxid);
        if (!askTx) return errResult('couldnt fill ask');
        const nft = await nftDataOfToken(tokenid);
        const ctx = await buildContext();
        const op = askTx.vout.length > 0 ? tryDecodeAssetTokenOpRet(askTx.vout[askTx.vout.length - 1]!.script) : null;
        const paid = askTx.vout.length > 0 ? askPaidAmount(op?.price ?? 0n, askTx.vout[0]!.value, fillunits) : 0n;
        const coins = await normalCandidates(pk, 2n * ASSETS_TXFEE + paid, 60);
        const r = await finish(assembleFillAsk({ ...ctx, pubkey: pk, tokenid, askTx, fillunits, nftData: nft, coins }));
        if ('hex' in r) return success(r.hex);
        // FillSell's CCerror texts are reported; anything else is "couldnt fill ask"
        if (r.error === 'filltx not enough utxos' || r.error === 'insufficient coins to fill sell') return errResult(r.error);
        return errResult('couldnt fill ask');
      },
    },
    {
      name: 'tokenfillbid',
      category: 'tokens',
      help: 'tokenfillbid tokenid bidtxid fillamount\n',
      minArgs: 3,
      maxArgs: 3,
      handler: async (params) => {
        const pk = await ensureCC(EVAL_ASSETS, EVAL_TOKENS);
        const tokenid = parseUint256(getStr(params[0]!));
        const bidtxid = parseUint256(getStr(params[1]!));
        const fillamount = cAtoll(numberText(params[2]));
        if (fillamount <= 0n) return errResult('fillamount must be positive');
        if (isZero(tokenid) || isZero(bidtxid)) return errResult('must provide tokenid and bidtxid');
        const ctx = await buildContext();
        const coins = await normalCandidates(pk, 2n * ASSETS_TXFEE, 3);
        // komodod quirk: FillBuyOffer returns these failure texts as the "hex" of a success
        if (coins.length === 0) return success('no normal coins left');
        const bidTx = await findTx(bidtxid);
        if (!bidTx) return success('no normal coins left');
        const nft = await nftDataOfToken(tokenid);
        const tokenCoins = await tokenCandidates(pk, tokenid, nft.length > 0 ? nft[0]! : 0, fillamount, 60);
        const assembled = assembleFillBid({ ...ctx, pubkey: pk, tokenid, bidTx, fillamount, nftData: nft, coins, tokenCoins });
        if (!assembled.ok && (assembled.error === 'no normal coins left' || assembled.error === 'dont have any assets to fill bid')) return success(assembled.error);
        const r = await finish(assembled);
        return 'hex' in r ? success(r.hex) : errResult('couldnt fill bid');
      },
    },
    {
      name: 'tokencancelask',
      category: 'tokens',
      help: 'tokencancelask tokenid asktxid\n',
      minArgs: 2,
      maxArgs: 2,
      handler: async (params) => {
        const pk = await ensureCC(EVAL_ASSETS, EVAL_TOKENS);
        const tokenid = parseUint256(getStr(params[0]!));
        const asktxid = parseUint256(getStr(params[1]!));
        // komodod quirk: no "result" key
        if (isZero(tokenid) || isZero(asktxid)) return { error: 'invalid parameter' };
        const ctx = await buildContext();
        const coins = await normalCandidates(pk, ASSETS_TXFEE, 3);
        const orderTx = coins.length > 0 ? await findTx(asktxid) : null;
        if (!orderTx) return errResult('couldnt cancel ask');
        const nft = await nftDataOfToken(tokenid);
        const r = await finish(assembleCancelAsk({ ...ctx, pubkey: pk, tokenid, orderTx, nftData: nft, coins }));
        return 'hex' in r ? success(r.hex) : errResult('couldnt cancel ask');
      },
    },
    {
      // AssetConvert is gone: after its checks komodod always answers "deprecated".
      name: 'tokenconvert',
      category: 'tokens',
      help: 'tokenconvert evalcode tokenid pubkey amount\n',
      minArgs: 4,
      maxArgs: 4,
      handler: async (params) => {
        await ensureCC(EVAL_ASSETS);
        getStr(params[0]!); // evalcode = atoi(...): read, unused
        const tokenid = parseUint256(getStr(params[1]!));
        getStr(params[2]!); // pubkey = ParseHex(...): read, unused
        const amount = cAtoll(getStr(params[3]!));
        if (isZero(tokenid)) return errResult('invalid tokenid');
        if (amount <= 0n) return errResult('amount must be positive');
        return errResult('deprecated');
      },
    },
    {
      name: 'tokencancelbid',
      category: 'tokens',
      help: 'tokencancelbid tokenid bidtxid\n',
      minArgs: 2,
      maxArgs: 2,
      handler: async (params) => {
        const pk = await ensureCC(EVAL_ASSETS, EVAL_TOKENS);
        const tokenid = parseUint256(getStr(params[0]!));
        const bidtxid = parseUint256(getStr(params[1]!));
        // komodod quirk: no "result" key
        if (isZero(tokenid) || isZero(bidtxid)) return { error: 'invalid parameter' };
        const ctx = await buildContext();
        const coins = await normalCandidates(pk, ASSETS_TXFEE, 3);
        const orderTx = coins.length > 0 ? await findTx(bidtxid) : null;
        if (!orderTx) return errResult('couldnt cancel bid');
        const r = await finish(assembleCancelBid({ ...ctx, pubkey: pk, tokenid, orderTx, coins }));
        return 'hex' in r ? success(r.hex) : errResult('couldnt cancel bid');
      },
    },
  ];
}
