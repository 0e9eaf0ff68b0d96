/**
 * What the CC module RPCs (tokens.ts, assets.ts) share: komodod keeps these in CCutils.cpp,
 * CCtx.cpp and rpcwallet.cpp (CCaddress), once for every module, and so does acnode.
 */
import type { NodeServices } from '../../actors/protocol.js';
import { addressKey } from '../../chain/address/index-key.js';
import type { TokenOutput } from '../../actors/tokenregistry/protocol.js';
import type { AssetOrder, AssetOrderFilter, OutputRef, TipPage } from '../../actors/chainstore/protocol.js';
import { makeTokensCCcond1 } from '../../chain/cc/builders.js';
import { ccAddress, ccAddressOf, globalCCAddress, normalAddress, type ModuleGlobal } from '../../chain/cc/index.js';
import { hash160 } from '../../chain/crypto/hash.js';
import { decodeAddress } from '../../chain/address/address.js';
import { FifoMap } from '../../chain/fifo.js';
import { Amount } from '../../chain/encoding/coin-amount.js';
import { fromHex, toHex, toHexReversed } from '../../chain/encoding/hex.js';
import type { ChainParams } from '../../chain/params/chain-params.js';
import { parsePayToCryptoCondition } from '../../chain/script/standard.js';
import { EVAL_TOKENS, cpubkeyLength, decodeTokenCreateOpRet, nftDataOf, tokensCC1Script, type BuildResult, type SpendableCoin } from '../../chain/tokens/index.js';
import type { Transaction } from '../../chain/tx/transaction.js';
import { JsonNumber, type JsonOut, type JsonValue } from '../json-value.js';
import { getStr } from '../params.js';
import { askRpc } from '../ask.js';
import type { CCSignRequest } from '../../actors/wallet/protocol.js';

/** The first page of an index walk for input selection (see unspentNotInMempool). */
const FIRST_PAGE = 256;
/** The most walks whose spent run is remembered (one per holder address, token and minimum value in use). */
const MAX_SPENT_RUNS = 1024;

/** A walk's run of outputs spent in the mempool from its first output to `after`, at that tip and count of removals. */
interface SpentRun {
  tip: string;
  removals: number;
  after: OutputRef;
}

/** The registry's address hash of `pk`'s token address (tokensCC1Script has no `<data> OP_DROP` params, so its Hash160 is the address index's CC hash). */
function tokenAddressHash(pk: Uint8Array, nft: number): string {
  return toHex(hash160(tokensCC1Script(EVAL_TOKENS, nft, pk)));
}

/** CC_REQUIREMENTS_MSG (CCinclude.h), thrown as -1 by every CC RPC when ensure_CCrequirements fails. */
export const CC_REQUIREMENTS_MSG = 'to use CC contracts, you need to launch daemon with valid -pubkey= for an address in your wallet\n';

/** ERR_RESULT: `{"result":"error","error":…}`, keys in that order. */
export const errResult = (error: string) => ({ result: 'error', error });

/** A supply or amount param: komodod reads a string; a JSON number is taken as its decimal text (design.md). */
export function numberText(v: JsonValue | undefined): string {
  if (v instanceof JsonNumber) return v.text;
  return getStr(v ?? null);
}

/** pubkey2pk / CPubKey(vector): valid when its size matches its header byte (33 or 65); invalid (empty) is null. */
export function pubkey2pk(bytes: Uint8Array): Uint8Array | null {
  return bytes.length > 0 && cpubkeyLength(bytes[0]!) === bytes.length ? bytes : null;
}

/** uint256::IsNull. */
export const isZero = (h: Uint8Array): boolean => h.every((b) => b === 0);

/** A txid as displayed (reversed hex) back to its internal byte order. */
export const txidBytes = (displayHex: string): Uint8Array => Uint8Array.from(Buffer.from(displayHex, 'hex').reverse());

/** GetNonfungibleData of a token's creation tx: the NFT blob of its opret (empty if none or not a creation). */
export function nftDataOfTx(tx: Transaction | undefined): Uint8Array {
  if (!tx || tx.vout.length === 0) return new Uint8Array(0);
  try {
    return nftDataOf(decodeTokenCreateOpRet(tx.vout[tx.vout.length - 1]!.script));
  } catch {
    return new Uint8Array(0);
  }
}

/** A transaction myGetTransaction found, and whether it came from the chain (else the mempool). */
export interface FoundTx {
  tx: Transaction;
  confirmed: boolean;
}

/** The chain facts a CC transaction is built and signed against. */
export interface CCBuildContext {
  nextHeight: number;
  activation: ChainParams['activation'];
  expiryDelta: number;
  maturity: number;
}

/** komodod's struct CCcontract_info, as far as CCaddress reads it: the module's name (as printed) and its global key. */
export interface CCAddressModule {
  name: string;
  global: ModuleGlobal;
  /** GetUnspendable(cp, 0): the module's global pubkey, also the fallback for an invalid CPubKey. */
  globalPubkey: Uint8Array;
}

/** The node-facing CC helpers, one instance per method module (they read the node's services and config). */
export class CCSupport {
  /**
   * NOTARY_PUBKEY33, komodod's -pubkey. Deliberate: on the dev chain (`npm start`, no -ac_name) with
   * no -pubkey flag, the node key (which the premine and coinbases pay) is treated as the -pubkey, so
   * the CC methods work out of the box; on any other chain a missing -pubkey fails as in komodod.
   */
  readonly mypk: Uint8Array | null;

  constructor(private readonly node: NodeServices) {
    this.mypk = node.config.pubkey ? fromHex(node.config.pubkey) : node.config.devChain ? node.minerPubkey : null;
  }

  async chainParams(): Promise<ChainParams> {
    return (await this.node.chainStore.ask({ op: 'params' })) ?? this.node.baseParams;
  }

  /** ensure_CCrequirements for each eval code: CC on and the code enabled, -pubkey, -addressindex, -spentindex. */
  async ensureCC(...codes: number[]): Promise<Uint8Array> {
    const p = await this.chainParams();
    const { config } = this.node;
    if (p.ac.ccActive === 0 || codes.some((c) => p.ccDisabled[c]) || !this.mypk || !config.addressindex || !config.spentindex) {
      throw new Error(CC_REQUIREMENTS_MSG);
    }
    return this.mypk;
  }

  /** myGetTransaction: the tx index, then the mempool (a null txid is never found). */
  async findTx(txid: Uint8Array): Promise<FoundTx | null> {
    if (isZero(txid)) return null;
    const hex = toHexReversed(txid);
    const c = await this.node.chainStore.ask({ op: 'tx', txid: hex });
    if (c) return { tx: c.tx, confirmed: true };
    const m = await this.node.mempool.ask({ op: 'get', txid: hex });
    return m ? { tx: m.tx, confirmed: false } : null;
  }

  /** GetNonfungibleData(tokenid). */
  async nftDataOfToken(tokenid: Uint8Array): Promise<Uint8Array> {
    return nftDataOfTx((await this.findTx(tokenid))?.tx);
  }

  /** myIsutxo_spentinmempool for each output, in one request: whether a mempool transaction spends it. */
  async spentInMempool(outputs: readonly { txid: string; index: number }[]): Promise<boolean[]> {
    if (outputs.length === 0) return [];
    return (await this.node.mempool.ask({ op: 'spentAmong', outpoints: outputs.map((o) => [o.txid, o.index]) })).spent;
  }

  /**
   * Per walk (its index, address and minimum value), where the outputs the mempool spends from the
   * walk's first output on end: a holder's earlier transfers within one block spend the first k
   * outputs in key order, and the next call starts past them instead of checking them again. The mark
   * holds while the chain has the same tip (the same index) and the mempool has removed nothing
   * (the pool only adds spends meanwhile); otherwise the walk starts from the first output again.
   */
  // Oldest out first in O(1) (fifo.ts: a Map evicting through keys().next() walks its deleted entries); null: a mark found stale.
  private readonly spentRuns = new FifoMap<string, SpentRun | null>(MAX_SPENT_RUNS);

  /**
   * The outputs an index walk yields, in its key order, less those a mempool transaction spends. The
   * index is read a page at a time and each page is checked against the mempool in one request, so
   * the walk costs what its consumer takes: it stops where the consumer stops. The first page holds
   * FIRST_PAGE outputs (or `least`, if more), more than a selection takes unless the mempool spends
   * most of them; each next page is four times the last. The run of spent outputs at the start is
   * remembered (spentRuns), so a holder's k-th transfer within one block reads a page from where the
   * (k−1)-th found an unspent output, not the k−1 outputs before it.
   */
  private async *unspentNotInMempool<T extends { txid: string; index: number }>(
    walk: string,
    read: (after: OutputRef | undefined, limit: number) => Promise<TipPage<T>>,
    least: number,
  ): AsyncGenerator<T> {
    let mark = this.spentRuns.get(walk) ?? undefined;
    let after = mark?.after;
    let limit = Math.max(FIRST_PAGE, least);
    // The tip and mempool removals the run was checked at (the first page's), and whether it is unbroken so far.
    let at: { tip: string; removals: number } | undefined;
    let run = mark?.after;
    let open = true;
    const keep = () => {
      if (!at || run === undefined) return;
      this.spentRuns.set(walk, { ...at, after: run });
    };
    for (;;) {
      const page = await read(after, limit);
      const { spent, removals } = await this.node.mempool.ask({ op: 'spentAmong', outpoints: page.outputs.map((o) => [o.txid, o.index]) });
      if (!at) {
        if (mark && (page.tip !== mark.tip || removals !== mark.removals)) {
          // A block or a removal since the mark: an output before it may be unspent now.
          this.spentRuns.set(walk, null);
          mark = after = run = undefined;
          continue;
        }
        at = { tip: page.tip, removals };
      } else if (open && (page.tip !== at.tip || removals !== at.removals)) {
        // The chain or the pool moved within this walk: the run found so far is kept as of the first page.
        keep();
        open = false;
      }
      for (let i = 0; i < page.outputs.length; i++) {
        const o = page.outputs[i]!;
        if (spent[i]) {
          if (open) run = { txid: o.txid, index: o.index };
          continue;
        }
        if (open) {
          keep();
          open = false;
        }
        yield o;
      }
      if (page.next === null) {
        if (open) keep();
        return;
      }
      after = page.next;
      limit *= 4;
    }
  }

  /** CCaddress_balance: the unspent outputs at an address of the index, CC (type 3) or normal (type 1). */
  async addressBalance(address: string, ccflag: boolean): Promise<Amount> {
    // The addresses here are all derived, so always decodable.
    const hash = decodeAddress(address)!.hash;
    return new Amount(await this.node.chainStore.ask({ op: 'addressBalance', address: addressKey(ccflag ? 3 : 1, hash) }));
  }

  /**
   * AssetOrders' walk of one CC address (SetCCunspents, then its filter): the open orders there, in
   * address-index order, all or of a token or an owner's asks, read from the chain store's order
   * index (orderindex.ts) at the cost of the answer. Confirmed only: SetCCunspents reads the address
   * index alone, nothing from the mempool.
   */
  async assetOrdersAt(address: string, filter: AssetOrderFilter): Promise<AssetOrder[]> {
    return this.node.chainStore.ask({ op: 'assetOrders', addressHash: toHex(decodeAddress(address)!.hash), filter });
  }

  /**
   * AddNormalinputs(Remote)'s candidates: confirmed outputs at the -pubkey's own address (address
   * index, P2PK and P2PKH alike, in index order) worth at least total/maxinputs and not spent in the
   * mempool, until `maxinputs` of them or `total` is reached. (komodod's AddNormalinputs uses the
   * wallet's coins; acnode takes them from the same -pubkey address.) With `mature`, immature
   * coinbases are skipped as the wallet's AvailableCoins does; without it (AddNormalinputsRemote,
   * the address index) they are not looked at. Coins locked with lockunspent are skipped, as
   * AvailableCoins skips them.
   */
  async normalCandidates(pk: Uint8Array, total: bigint, maxinputs: number, mature?: { nextHeight: number; maturity: number }): Promise<SpendableCoin[]> {
    const address = addressKey(1, hash160(pk));
    const threshold = maxinputs > 0 ? total / BigInt(maxinputs) : total;
    const candidates = this.unspentNotInMempool(
      `normal ${address} ${threshold}`,
      (after, limit) => this.node.chainStore.ask({ op: 'addressUnspentPage', address, after, limit, minValue: threshold }),
      maxinputs,
    );
    // AvailableCoins skips the wallet's locked coins (lockunspent): read once, O(locked coins).
    const locked = new Set((await this.node.wallet.ask({ op: 'lockedCoins' })).map((o) => `${o.txid}:${o.n}`));
    const out: SpendableCoin[] = [];
    let sum = 0n;
    for await (const u of candidates) {
      if (parsePayToCryptoCondition(u.script)) continue;
      if (locked.size > 0 && locked.has(`${u.txid}:${u.index}`)) continue;
      if (mature && u.coinbase && mature.nextHeight - u.height < mature.maturity) continue;
      out.push({ txid: txidBytes(u.txid), vout: u.index, value: u.value, script: u.script });
      sum += u.value;
      if (out.length >= maxinputs || sum >= total) break;
    }
    return out;
  }

  /** The valid outputs of a token at `pk`'s token address (NFT-aware: `nft` is the NFT data's first byte, or 0). */
  async tokenOutputs(pk: Uint8Array, tokenid: Uint8Array, nft: number): Promise<TokenOutput[]> {
    return this.node.tokenRegistry.ask({ op: 'outputs', tokenid: toHexReversed(tokenid), addressHash: tokenAddressHash(pk, nft) });
  }

  /**
   * CCtoken_balance (AddTokenCCInputs with total 0): Σ of the token's confirmed outputs at `pk`'s token
   * address not spent in the mempool: the holder's running total, less its outputs that the mempool's
   * entries at that address spend (the mempool's address index files a CC coin's spend under type 1
   * of its CC address hash). Without that index (-addressindex=0) every output is checked, as before.
   */
  async tokenBalance(pk: Uint8Array, tokenid: Uint8Array, nft: number): Promise<bigint> {
    const addressHash = tokenAddressHash(pk, nft);
    if (!this.node.config.addressindex) {
      const outputs = await this.tokenOutputs(pk, tokenid, nft);
      const spent = await this.spentInMempool(outputs);
      return outputs.reduce((sum, o, i) => (spent[i] ? sum : sum + o.value), 0n);
    }
    const deltas = await this.node.mempool.ask({ op: 'addressDeltas', addresses: [addressKey(1, addressHash)] });
    const spent = deltas.filter((d) => d.spending).map((d): [string, number] => [d.prevtxid!, d.prevout!]);
    return this.node.chainStore.ask({ op: 'tokenBalance', tokenid: toHexReversed(tokenid), addressHash, spent });
  }

  /**
   * AddTokenCCInputs' candidates: the token's outputs at `pk`'s token address in address-index order,
   * at least total/maxinputs each, not spent in the mempool, until `total` or `maxinputs` — read from
   * the registry and checked against the mempool a page at a time, never the holder's whole set.
   */
  async tokenCandidates(pk: Uint8Array, tokenid: Uint8Array, nft: number, total: bigint, maxinputs: number): Promise<SpendableCoin[]> {
    const query = { op: 'outputsPage' as const, tokenid: toHexReversed(tokenid), addressHash: tokenAddressHash(pk, nft), minValue: total / BigInt(maxinputs) };
    const candidates = this.unspentNotInMempool(`token ${query.tokenid} ${query.addressHash} ${query.minValue}`, (after, limit) => this.node.tokenRegistry.ask({ ...query, after, limit }), maxinputs);
    const out: SpendableCoin[] = [];
    let sum = 0n;
    for await (const o of candidates) {
      out.push({ txid: txidBytes(o.txid), vout: o.index, value: o.value, script: o.script });
      sum += o.value;
      if (sum >= total || out.length >= maxinputs) break;
    }
    return out;
  }

  async buildContext(): Promise<CCBuildContext> {
    const [tip, params] = await Promise.all([this.node.chainStore.ask({ op: 'tip' }), this.chainParams()]);
    return { nextHeight: tip.height + 1, activation: params.activation, expiryDelta: this.node.config.txexpirydelta, maturity: params.coinbaseMaturity };
  }

  /**
   * FinalizeCCTx's signing, done by the wallet with the key of the transaction's -pubkey: the key
   * never leaves the wallet, only the signed transaction comes back (null: no such key there). A
   * locked wallet fails with -13: komodod's FinalizeCCTx would sign nothing and answer the unsigned
   * transaction as a success (a transaction no node accepts), acnode asks for the passphrase instead.
   */
  signCC(cc: CCSignRequest): Promise<BuildResult | null> {
    return askRpc(this.node.wallet, { op: 'signCC', cc });
  }

  /**
   * CCaddress(cp, name, pubkey) (rpcwallet.cpp): the module's global CC and normal addresses with
   * their balances, `<name>CCTokensAddress` for every module but Tokens, the given pubkey's CC
   * address, then the -pubkey's CC and normal addresses. (The Gateways and Channels/Heir extras are
   * for modules acnode does not have.)
   */
  async ccAddressResult(cp: CCAddressModule, pubkey: Uint8Array, my: Uint8Array): Promise<Record<string, JsonOut>> {
    const { name, global, globalPubkey } = cp;
    const globalCC = globalCCAddress(global);
    const globalNormal = global.normalAddressConstant;
    const out: Record<string, JsonOut> = {
      result: 'success',
      [`${name}CCAddress`]: globalCC,
      [`${name}CCBalance`]: await this.addressBalance(globalCC, true),
      [`${name}NormalAddress`]: globalNormal,
      [`${name}NormalBalance`]: await this.addressBalance(globalNormal, false),
    };
    if (name !== 'Tokens') out[`${name}CCTokensAddress`] = ccAddress(makeTokensCCcond1(global.evalCode, 0, globalPubkey));
    if (pubkey.length === 33) {
      // GetCCaddress falls back to the global key for an invalid CPubKey.
      const addr = ccAddressOf(global.evalCode, pubkey2pk(pubkey) ?? globalPubkey);
      out[`PubkeyCCaddress(${name})`] = addr;
      // komodod's quirk: the balance is read from the normal (type 1) index, so it is ~always 0.
      out[`PubkeyCCbalance(${name})`] = await this.addressBalance(addr, false);
    }
    const myCC = ccAddressOf(global.evalCode, my);
    out[`myCCAddress(${name})`] = myCC;
    out[`myCCbalance(${name})`] = await this.addressBalance(myCC, true);
    const myaddr = normalAddress(my);
    out.myaddress = myaddr;
    out.mybalance = await this.addressBalance(myaddr, false);
    return out;
  }
}
