import type { NodeServices } from '../../actors/services.js';
import { addressKey } from '../../actors/chainstore/coins.js';
import type { TokenOutput, TokenRecord } from '../../actors/tokens/registry.js';
import { ccAddressOf, globalCCAddress, moduleGlobal, normalAddress } from '../../chain/cc/index.js';
import { hash160 } from '../../chain/crypto/hash.js';
import { decodeAddress } from '../../chain/address/address.js';
import { Amount } from '../../chain/encoding/coin-amount.js';
import { fromHex, toHex, toHexReversed } from '../../chain/encoding/hex.js';
import type { ChainParams } from '../../chain/params/chain-params.js';
import { parsePayToCryptoCondition } from '../../chain/script/standard.js';
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
  cpubkeyLength,
  decodeTokenCreateOpRet,
  nftDataOf,
  parseHexLenient,
  parseTokenSupply,
  parseUint256,
  signTokenTx,
  tokensCC1Script,
  type SpendableCoin,
} from '../../chain/tokens/index.js';
import type { Transaction } from '../../chain/tx/transaction.js';
import { JsonNumber, type JsonOut, type JsonValue } from '../json-value.js';
import { getStr } from '../params.js';
import type { RpcMethod } from '../table.js';

/** CC_REQUIREMENTS_MSG (CCinclude.h), thrown as -1 by every token RPC when ensure_CCrequirements fails. */
export const CC_REQUIREMENTS_MSG = 'to use CC contracts, you need to launch daemon with valid -pubkey= for an address in your wallet\n';

const TOKENS = moduleGlobal(EVAL_TOKENS)!;
const utf8 = new TextEncoder();
const utf8d = new TextDecoder();

/** ERR_RESULT: `{"result":"error","error":…}`, keys in that order. */
const errResult = (error: string) => ({ result: 'error', error });

/** A supply or amount param: komodod reads a string; a JSON number is taken as its decimal text (design.md). */
function numberText(v: JsonValue | undefined): string {
  if (v instanceof JsonNumber) return v.text;
  return getStr(v ?? null);
}

/** pubkey2pk: a CPubKey is valid when its size matches its header byte (33 or 65); invalid is empty. */
function pubkey2pk(bytes: Uint8Array): Uint8Array | null {
  return bytes.length > 0 && cpubkeyLength(bytes[0]!) === bytes.length ? bytes : null;
}

/** The hash160 behind an R-address (the addresses here are all derived, so always decodable). */
function addressHash(address: string): Uint8Array {
  return decodeAddress(address)!.hash;
}

/** The address-index hash of a CC script (Hash160 of its CC sub-script). */
function ccHashOf(script: Uint8Array): string {
  return toHex(hash160(parsePayToCryptoCondition(script)!.ccSubScript));
}

interface FoundTx {
  tx: Transaction;
  confirmed: boolean;
}

/** The RPC methods of the `tokens` category: tokenaddress, tokenbalance, tokencreate, tokeninfo, tokenlist, tokentransfer. */
export function tokensMethods(node: NodeServices): RpcMethod[] {
  /**
   * NOTARY_PUBKEY33, komodod's -pubkey. Deliberate: on the dev chain (`npm start`, no -ac_name) with
   * no -pubkey flag, the node key (which the premine and coinbases pay) is treated as the -pubkey, so
   * the token methods work out of the box; on any other chain a missing -pubkey fails as in komodod.
   */
  const mypk: Uint8Array | null = node.config.pubkey ? fromHex(node.config.pubkey) : node.config.devChain ? node.minerPubkey : null;

  const chainParams = async (): Promise<ChainParams> => (await node.chain.ask<ChainParams | null>({ op: 'params' })) ?? node.baseParams;

  /** ensure_CCrequirements(EVAL_TOKENS): CC on and the Tokens code enabled, -pubkey, -addressindex, -spentindex. */
  async function ensureCCRequirements(): Promise<Uint8Array> {
    const p = await chainParams();
    if (p.ac.ccActive === 0 || p.ccDisabled[EVAL_TOKENS] || !mypk || !node.config.addressindex || !node.config.spentindex) {
      throw new Error(CC_REQUIREMENTS_MSG);
    }
    return mypk;
  }

  /** myGetTransaction: the tx index, then the mempool. */
  async function findTx(txid: Uint8Array): Promise<FoundTx | null> {
    if (txid.every((b) => b === 0)) return null;
    const hex = toHexReversed(txid);
    const c = await node.chain.ask<{ tx: Transaction } | null>({ op: 'tx', txid: hex });
    if (c) return { tx: c.tx, confirmed: true };
    const m = await node.mempool.ask<{ tx: Transaction } | null>({ op: 'get', txid: hex });
    return m ? { tx: m.tx, confirmed: false } : null;
  }

  /** GetNonfungibleData: the NFT blob of the token's creation opret (empty if none). */
  function nftDataOfTx(tx: Transaction | undefined): Uint8Array {
    if (!tx || tx.vout.length === 0) return new Uint8Array(0);
    try {
      return nftDataOf(decodeTokenCreateOpRet(tx.vout[tx.vout.length - 1]!.script));
    } catch {
      return new Uint8Array(0);
    }
  }

  const spentInMempool = async (txid: string, n: number): Promise<boolean> =>
    (await node.mempool.ask<string | null>({ op: 'spentBy', txid, n })) !== null;

  /** CCaddress_balance: the unspent outputs at an address of the index, CC (type 3) or normal (type 1). */
  async function addressBalance(address: string, ccflag: boolean): Promise<Amount> {
    return new Amount(await node.chain.ask<bigint>({ op: 'addressBalance', address: addressKey(ccflag ? 3 : 1, addressHash(address)) }));
  }

  /** Registry answers lag the chain store by the notices in flight: a confirmed token shows up there at once after them. */
  async function tokenRecord(tokenid: string): Promise<TokenRecord | null> {
    for (let i = 0; i < 100; i++) {
      const r = await node.tokens.ask<TokenRecord | null>({ op: 'info', tokenid });
      if (r) return r;
      await new Promise((res) => setTimeout(res, 20));
    }
    return null;
  }

  /**
   * AddNormalinputsRemote's candidates: confirmed outputs at the -pubkey's own address (address index,
   * P2PK and P2PKH alike, in index order) worth at least total/maxinputs and not spent in the mempool,
   * until `maxinputs` of them or `total` is reached. (tokentransfer's AddNormalinputs uses the wallet's
   * coins in komodod; acnode takes them from the same -pubkey address.)
   */
  async function normalCandidates(pk: Uint8Array, total: bigint, maxinputs: number, mature?: { nextHeight: number; maturity: number }): Promise<SpendableCoin[]> {
    const list = await node.chain.ask<{ txid: string; index: number; value: bigint; script: Uint8Array; height: number; coinbase: boolean }[]>({
      op: 'addressUnspent',
      address: addressKey(1, hash160(pk)),
    });
    const threshold = maxinputs > 0 ? total / BigInt(maxinputs) : total;
    const out: SpendableCoin[] = [];
    let sum = 0n;
    for (const u of list) {
      if (u.value < threshold || parsePayToCryptoCondition(u.script)) continue;
      // The wallet's AvailableCoins (tokentransfer) skips immature coinbases; the address index
      // (tokencreate's AddNormalinputsRemote) does not look.
      if (mature && u.coinbase && mature.nextHeight - u.height < mature.maturity) continue;
      if (await spentInMempool(u.txid, u.index)) continue;
      out.push({ txid: Uint8Array.from(Buffer.from(u.txid, 'hex').reverse()), vout: u.index, value: u.value, script: u.script });
      sum += u.value;
      if (out.length >= maxinputs || sum >= total) break;
    }
    return out;
  }

  async function buildContext() {
    const [tip, params] = await Promise.all([node.chain.ask<{ height: number }>({ op: 'tip' }), chainParams()]);
    return { nextHeight: tip.height + 1, activation: params.activation, expiryDelta: node.config.txexpirydelta, maturity: params.coinbaseMaturity };
  }

  function privateKeyOf(pk: Uint8Array): Uint8Array | null {
    return node.keys.get(toHex(pk))?.secret ?? null;
  }

  return [
    {
      name: 'tokenaddress',
      category: 'tokens',
      help: 'tokenaddress [pubkey]\n',
      maxArgs: 1,
      handler: async (params) => {
        const my = await ensureCCRequirements();
        const pubkey = params.length === 1 ? parseHexLenient(getStr(params[0]!)) : new Uint8Array(0);
        const globalCC = globalCCAddress(TOKENS);
        const globalNormal = TOKENS.normalAddressConstant;
        const out: Record<string, JsonOut> = {
          result: 'success',
          TokensCCAddress: globalCC,
          TokensCCBalance: await addressBalance(globalCC, true),
          TokensNormalAddress: globalNormal,
          TokensNormalBalance: await addressBalance(globalNormal, false),
        };
        if (pubkey.length === 33) {
          // GetCCaddress falls back to the global key for an invalid CPubKey.
          const addr = ccAddressOf(EVAL_TOKENS, pubkey2pk(pubkey) ?? TOKENS_GLOBAL_PUBKEY);
          out['PubkeyCCaddress(Tokens)'] = addr;
          // komodod's quirk: the balance is read from the normal (type 1) index, so it is ~always 0.
          out['PubkeyCCbalance(Tokens)'] = await addressBalance(addr, false);
        }
        const myCC = ccAddressOf(EVAL_TOKENS, my);
        out['myCCAddress(Tokens)'] = myCC;
        out['myCCbalance(Tokens)'] = await addressBalance(myCC, true);
        const myaddr = normalAddress(my);
        out.myaddress = myaddr;
        out.mybalance = await addressBalance(myaddr, false);
        return out;
      },
    },
    {
      name: 'tokenlist',
      category: 'tokens',
      help: 'tokenlist\n',
      maxArgs: 0,
      handler: async () => {
        await ensureCCRequirements();
        return await node.tokens.ask<string[]>({ op: 'list' });
      },
    },
    {
      name: 'tokeninfo',
      category: 'tokens',
      help: 'tokeninfo tokenid\n',
      minArgs: 1,
      maxArgs: 1,
      handler: async (params) => {
        await ensureCCRequirements();
        const tokenid = parseUint256(getStr(params[0]!));
        const found = await findTx(tokenid);
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
        const rec = await tokenRecord(tokenidHex);
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
      },
    },
    {
      name: 'tokenbalance',
      category: 'tokens',
      help: 'tokenbalance tokenid [pubkey]\n',
      maxArgs: 2,
      handler: async (params) => {
        const my = await ensureCCRequirements();
        const tokenidText = getStr(params[0] ?? null);
        const tokenid = parseUint256(tokenidText);
        const pubkeyBytes = params.length === 2 ? parseHexLenient(getStr(params[1]!)) : my;
        const pk = pubkey2pk(pubkeyBytes) ?? TOKENS_GLOBAL_PUBKEY;
        const found = await findTx(tokenid);
        if (!found) return errResult('cant find tokenid');
        const nft = nftDataOfTx(found.tx);
        const tokenAddrHash = ccHashOf(tokensCC1Script(EVAL_TOKENS, nft.length > 0 ? nft[0]! : 0, pk));
        const outputs = await node.tokens.ask<TokenOutput[]>({ op: 'outputs', tokenid: toHexReversed(tokenid), addressHash: tokenAddrHash });
        const spent = await Promise.all(outputs.map((o) => spentInMempool(o.txid, o.index)));
        let balance = 0n;
        outputs.forEach((o, i) => {
          if (!spent[i]) balance += o.value;
        });
        return { result: 'success', CCaddress: ccAddressOf(EVAL_TOKENS, pk), tokenid: tokenidText, balance };
      },
    },
    {
      name: 'tokencreate',
      category: 'tokens',
      help: 'tokencreate name supply [description][data]\n',
      minArgs: 2,
      maxArgs: 4,
      handler: async (params) => {
        const pk = await ensureCCRequirements();
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
        const ctx = await buildContext();
        const coins = await normalCandidates(pk, supply + 2n * TOKENS_TXFEE, 64);
        const assembled = assembleTokenCreate({ ...ctx, pubkey: pk, name: nameBytes, description, supply, nftData, coins });
        if (!assembled.ok) return errResult(assembled.error);
        const priv = privateKeyOf(pk);
        if (!priv) return errResult('CC signing error: no private key for -pubkey in the wallet');
        const signed = signTokenTx(assembled.value, { ...ctx, privateKey: priv });
        if (!signed.ok) return errResult(signed.error);
        return { result: 'success', hex: toHex(signed.tx.toRaw()) };
      },
    },
    {
      name: 'tokentransfer',
      category: 'tokens',
      help: 'tokentransfer tokenid destpubkey amount\n',
      minArgs: 3,
      maxArgs: 3,
      handler: async (params) => {
        const pk = await ensureCCRequirements();
        const checked = checkTokenTransferParams({ tokenid: getStr(params[0]!), destpubkey: getStr(params[1]!), amount: numberText(params[2]) });
        if (!checked.ok) return errResult(checked.error);
        const { tokenid, destPubkey, amount } = checked.value;
        const ctx = await buildContext();
        const feeCoins = await normalCandidates(pk, TOKENS_TXFEE, 3, { nextHeight: ctx.nextHeight, maturity: ctx.maturity });
        // AddTokenCCInputs: the token's NFT data decides the address; confirmed valid token outputs
        // there, at least total/60 each, not spent in the mempool, until the amount or 60 inputs.
        const created = await findTx(tokenid);
        const nft = nftDataOfTx(created?.tx);
        const tokenAddrHash = ccHashOf(tokensCC1Script(EVAL_TOKENS, nft.length > 0 ? nft[0]! : 0, pk));
        const outputs = await node.tokens.ask<TokenOutput[]>({ op: 'outputs', tokenid: toHexReversed(tokenid), addressHash: tokenAddrHash });
        const threshold = amount / 60n;
        const tokenCoins: SpendableCoin[] = [];
        let sum = 0n;
        if (feeCoins.length > 0) {
          for (const o of outputs) {
            if (o.value < threshold) continue;
            if (await spentInMempool(o.txid, o.index)) continue;
            tokenCoins.push({ txid: Uint8Array.from(Buffer.from(o.txid, 'hex').reverse()), vout: o.index, value: o.value, script: o.script });
            sum += o.value;
            if (sum >= amount || tokenCoins.length >= 60) break;
          }
        }
        const assembled = assembleTokenTransfer({ ...ctx, pubkey: pk, tokenid, destPubkey, amount, nftData: nft, coins: feeCoins, tokenCoins });
        if (!assembled.ok) return errResult(assembled.error);
        const priv = privateKeyOf(pk);
        if (!priv) return errResult('CC signing error: no private key for -pubkey in the wallet');
        const signed = signTokenTx(assembled.value, { ...ctx, privateKey: priv });
        if (!signed.ok) return errResult(signed.error);
        return { result: 'success', hex: toHex(signed.tx.toRaw()) };
      },
    },
  ];
}

