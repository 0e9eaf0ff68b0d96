import type { NodeServices } from '../../actors/protocol.js';
import type { TokenRecord } from '../../actors/tokenregistry/protocol.js';
import { ccAddressOf, moduleGlobal } from '../../chain/cc/index.js';
import { toHex, toHexReversed } from '../../chain/encoding/hex.js';
import {
  EVAL_TOKENS,
  IGUANA_MAXSCRIPTSIZE,
  TOKEN_DESCRIPTION_MAX,
  TOKEN_NAME_MAX,
  TOKENS_GLOBAL_PUBKEY,
  TOKENS_TXFEE,
  assembleTokenCreate,
  assembleTokenTransfer,
  checkTokenTransferParams,
  decodeTokenCreateOpRet,
  parseHexLenient,
  parseTokenSupply,
  parseUint256,
} from '../../chain/tokens/index.js';
import type { JsonOut, JsonValue } from '../json-value.js';
import { getStr } from '../params.js';
import type { RpcMethod } from '../table.js';
import { CCSupport, errResult, nftDataOfTx, numberText, pubkey2pk } from './cc-support.js';

// Where it has always been imported from (test/integration/tokens-policy.test.ts).
export { CC_REQUIREMENTS_MSG } from './cc-support.js';

const TOKENS = moduleGlobal(EVAL_TOKENS)!;
const utf8 = new TextEncoder();
const utf8d = new TextDecoder();

/** Registry answers lag the chain store by the notices in flight: a confirmed token shows up there at once after them. */
async function tokenRecord(node: NodeServices, tokenid: string): Promise<TokenRecord | null> {
  for (let i = 0; i < 100; i++) {
    const r = await node.tokenRegistry.ask({ op: 'info', tokenid });
    if (r) return r;
    await new Promise((res) => setTimeout(res, 20));
  }
  return null;
}

/** The RPC methods of the `tokens` category: tokenaddress, tokenbalance, tokencreate, tokeninfo, tokenlist, tokentransfer. */
export function tokensMethods(node: NodeServices): RpcMethod[] {
  const cc = new CCSupport(node);
  return [
    {
      name: 'tokenaddress',
      category: 'tokens',
      help: 'tokenaddress [pubkey]\n',
      maxArgs: 1,
      handler: (params) => tokenaddress(cc, params),
    },
    {
      name: 'tokenlist',
      category: 'tokens',
      help: 'tokenlist\n',
      maxArgs: 0,
      handler: () => tokenlist(node, cc),
    },
    {
      name: 'tokeninfo',
      category: 'tokens',
      help: 'tokeninfo tokenid\n',
      minArgs: 1,
      maxArgs: 1,
      handler: (params) => tokeninfo(node, cc, params),
    },
    {
      name: 'tokenbalance',
      category: 'tokens',
      help: 'tokenbalance tokenid [pubkey]\n',
      maxArgs: 2,
      handler: (params) => tokenbalance(cc, params),
    },
    {
      name: 'tokencreate',
      category: 'tokens',
      help: 'tokencreate name supply [description][data]\n',
      minArgs: 2,
      maxArgs: 4,
      handler: (params) => tokencreate(cc, params),
    },
    {
      name: 'tokentransfer',
      category: 'tokens',
      help: 'tokentransfer tokenid destpubkey amount\n',
      minArgs: 3,
      maxArgs: 3,
      handler: (params) => tokentransfer(cc, params),
    },
  ];
}

async function tokenaddress(cc: CCSupport, params: JsonValue[]): Promise<JsonOut> {
  const my = await cc.ensureCC(EVAL_TOKENS);
  const pubkey = params.length === 1 ? parseHexLenient(getStr(params[0]!)) : new Uint8Array(0);
  return await cc.ccAddressResult({ name: 'Tokens', global: TOKENS, globalPubkey: TOKENS_GLOBAL_PUBKEY }, pubkey, my);
}

async function tokenlist(node: NodeServices, cc: CCSupport): Promise<JsonOut> {
  await cc.ensureCC(EVAL_TOKENS);
  return await node.tokenRegistry.ask({ op: 'list' });
}

async function tokeninfo(node: NodeServices, cc: CCSupport, params: JsonValue[]): Promise<JsonOut> {
  await cc.ensureCC(EVAL_TOKENS);
  const tokenid = parseUint256(getStr(params[0]!));
  const found = await cc.findTx(tokenid);
  if (!found) return errResult('cant find tokenid');
  if (!found.confirmed) return errResult('the transaction is still in mempool');
  const tokenidHex = toHexReversed(tokenid);
  const tx = found.tx;
  try {
    if (tx.vout.length === 0) throw new Error('no outputs');
    decodeTokenCreateOpRet(tx.vout[tx.vout.length - 1]!.script);
  } catch {
    return errResult('tokenid isnt token creation txid');
  }
  const rec = await tokenRecord(node, tokenidHex);
  if (!rec) throw new Error(`token ${tokenidHex} is confirmed but not indexed yet`);
  const out: Record<string, JsonOut> = {
    result: 'success',
    tokenid: tokenidHex,
    owner: rec.owner,
    name: utf8d.decode(rec.name),
    supply: rec.supply,
    description: utf8d.decode(rec.description),
  };
  if (rec.data.length > 0) out.data = toHex(rec.data);
  // IsImported/sourceChain/sourceTokenId: only for tokens imported from another chain (no import path here).
  return out;
}

async function tokenbalance(cc: CCSupport, params: JsonValue[]): Promise<JsonOut> {
  const my = await cc.ensureCC(EVAL_TOKENS);
  const tokenidText = getStr(params[0] ?? null);
  const tokenid = parseUint256(tokenidText);
  const pubkeyBytes = params.length === 2 ? parseHexLenient(getStr(params[1]!)) : my;
  const pk = pubkey2pk(pubkeyBytes) ?? TOKENS_GLOBAL_PUBKEY;
  const found = await cc.findTx(tokenid);
  if (!found) return errResult('cant find tokenid');
  const nft = nftDataOfTx(found.tx);
  const balance = await cc.tokenBalance(pk, tokenid, nft.length > 0 ? nft[0]! : 0);
  return { result: 'success', CCaddress: ccAddressOf(EVAL_TOKENS, pk), tokenid: tokenidText, balance };
}

async function tokencreate(cc: CCSupport, params: JsonValue[]): Promise<JsonOut> {
  const pk = await cc.ensureCC(EVAL_TOKENS);
  const name = getStr(params[0]!);
  const nameBytes = utf8.encode(name);
  if (nameBytes.length === 0 || nameBytes.length > TOKEN_NAME_MAX) return errResult('Token name must not be empty and up to 32 characters');
  const supply = parseTokenSupply(numberText(params[1]));
  if (supply <= 0n) return errResult('Token supply must be positive');
  let description: Uint8Array = new Uint8Array(0);
  if (params.length >= 3) {
    description = utf8.encode(getStr(params[2]!));
    if (description.length > TOKEN_DESCRIPTION_MAX) return errResult('Token description must be <= 4096 characters');
  }
  let nftData: Uint8Array = new Uint8Array(0);
  if (params.length === 4) {
    nftData = parseHexLenient(getStr(params[3]!));
    if (nftData.length > IGUANA_MAXSCRIPTSIZE) return errResult(`Non-fungible data size must be <= ${IGUANA_MAXSCRIPTSIZE}`);
    if (nftData.length === 0) return errResult('Non-fungible data incorrect');
  }
  // CreateToken's own checks come before it looks for coins.
  if (nftData.length > 0 && supply !== 1n) return errResult('for non-fungible tokens tokensupply should be equal to 1');
  const ctx = await cc.buildContext();
  const coins = await cc.normalCandidates(pk, supply + 2n * TOKENS_TXFEE, 64);
  const assembled = assembleTokenCreate({ ...ctx, pubkey: pk, name: nameBytes, description, supply, nftData, coins });
  if (!assembled.ok) return errResult(assembled.error);
  const signed = await cc.signCC({ module: 'tokens', assembled: assembled.value, ctx });
  if (!signed) return errResult('CC signing error: no private key for -pubkey in the wallet');
  if (!signed.ok) return errResult(signed.error);
  return { result: 'success', hex: toHex(signed.tx.toRaw()) };
}

async function tokentransfer(cc: CCSupport, params: JsonValue[]): Promise<JsonOut> {
  const pk = await cc.ensureCC(EVAL_TOKENS);
  const checked = checkTokenTransferParams({ tokenid: getStr(params[0]!), destpubkey: getStr(params[1]!), amount: numberText(params[2]) });
  if (!checked.ok) return errResult(checked.error);
  const { tokenid, destPubkey, amount } = checked.value;
  const ctx = await cc.buildContext();
  const feeCoins = await cc.normalCandidates(pk, TOKENS_TXFEE, 3, { nextHeight: ctx.nextHeight, maturity: ctx.maturity });
  // AddTokenCCInputs: the token's NFT data decides the address; confirmed valid token outputs
  // there, at least total/60 each, not spent in the mempool, until the amount or 60 inputs.
  const nft = await cc.nftDataOfToken(tokenid);
  const tokenCoins = feeCoins.length > 0 ? await cc.tokenCandidates(pk, tokenid, nft.length > 0 ? nft[0]! : 0, amount, 60) : [];
  const assembled = assembleTokenTransfer({ ...ctx, pubkey: pk, tokenid, destPubkey, amount, nftData: nft, coins: feeCoins, tokenCoins });
  if (!assembled.ok) return errResult(assembled.error);
  const signed = await cc.signCC({ module: 'tokens', assembled: assembled.value, ctx });
  if (!signed) return errResult('CC signing error: no private key for -pubkey in the wallet');
  if (!signed.ok) return errResult(signed.error);
  return { result: 'success', hex: toHex(signed.tx.toRaw()) };
}

