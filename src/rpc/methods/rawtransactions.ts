import type { NodeServices } from '../../actors/protocol.js';
import type { AcceptItem, MempoolEntry, MempoolProtocol } from '../../actors/mempool/protocol.js';
import type { AskReceiver, Asker, ServiceFailure } from '../../actors/protocol.js';
import type { ChainTx } from '../../actors/chainstore/protocol.js';
import { Amount } from '../../chain/encoding/coin-amount.js';
import { BufferReader } from '../../chain/encoding/reader.js';
import { hexBytesChecked, toHex, toHexReversed } from '../../chain/encoding/hex.js';
import { Transaction } from '../../chain/tx/transaction.js';
import {
  decodeScriptToJSON,
  txHeaderToJSON,
  txShieldedToJSON,
  txToJSON,
  vinToJSON,
  voutToJSON,
  type JsonObj,
  type RenderOptions,
} from '../../chain/tx/json.js';
import { RpcError, RPC_DESERIALIZATION_ERROR, RPC_INVALID_ADDRESS_OR_KEY } from '../errors.js';
import type { JsonOut, JsonTypeName } from '../json-value.js';
import { getBool, getInt, getStr, parseHashV, parseHexV, rpcTypeCheck } from '../params.js';
import type { RpcMethod } from '../table.js';
import { askRpc, asRpcFailure } from '../ask.js';
import {
  blockSpentAddress,
  extractAddress,
  mempoolSpentAddress,
  spentAddressString,
  type ScriptOpts,
} from './chain-json.js';
import {
  HELP_decoderawtransaction,
  HELP_decodescript,
  HELP_getrawtransaction,
  HELP_sendrawtransaction,
} from './help-texts.js';

/**
 * DecodeHexTx: IsHex (non-empty, even length, hex digits), then one transaction read from the front;
 * trailing bytes are not rejected (core_read.cpp). Null where komodod returns false. `raw` is the
 * bytes the transaction was read from, its serialisation (the trailing bytes left out).
 */
export function decodeHexTxBytes(hex: string): { tx: Transaction; raw: Uint8Array } | null {
  const bytes = hex === '' ? null : hexBytesChecked(hex);
  if (!bytes) return null;
  try {
    const r = new BufferReader(bytes);
    // Views into the decoded bytes, which are this call's own and kept beside the transaction as `raw`.
    const tx = Transaction.read(r, true);
    if (r.offset === bytes.length) return { tx, raw: bytes };
    // komodod's DecodeHexTx ignores bytes after the transaction; the views must not keep them alive
    // (a mempool entry would hold the whole request), so the exact bytes are copied and read again.
    const raw = bytes.slice(0, r.offset);
    return { tx: Transaction.read(new BufferReader(raw), true), raw };
  } catch {
    return null;
  }
}

/** DecodeHexTx: the transaction alone. */
export function decodeHexTx(hex: string): Transaction | null {
  return decodeHexTxBytes(hex)?.tx ?? null;
}

type Output = { value: bigint; script: Uint8Array } | null;

/** A spent index entry as komodod's GetSpentIndex returns it (mempool first, then the block index). */
interface SpentValue {
  txid: string;
  inputIndex: number;
  blockHeight: number;
  /** the spent output's value and address part, where known */
  satoshis: bigint | null;
  address: string | null;
}

/**
 * GetSpentIndex for several outpoints: the mempool's map (spentHeight -1, the address as
 * CTxMemPool::addSpentIndex records it), then the chain's (recorded only where GetAddressType gives a
 * type, as ConnectBlock does). `scripts` gives each outpoint's script where the caller knows it.
 */
export async function getSpentIndex(node: NodeServices, outpoints: [string, number][], outputs: Output[]): Promise<(SpentValue | null)[]> {
  if (outpoints.length === 0) return [];
  const opts = scriptOpts(node);
  const [mem, chain] = await Promise.all([
    askRpc(node.mempool, { op: 'spentMany', outpoints }),
    askRpc(node.chainStore, { op: 'spentMany', outpoints }),
  ]);
  return outpoints.map((_, i) => {
    const m = mem[i];
    const out = outputs[i] ?? null;
    if (m) {
      const a = out ? mempoolSpentAddress(out.script, opts) : { type: 0, hash: new Uint8Array(20) };
      if (a !== undefined) {
        return { txid: m.txid, inputIndex: m.vin, blockHeight: -1, satoshis: out?.value ?? null, address: spentAddressString(a) };
      }
    }
    const c = chain[i];
    if (c) {
      const script = c.script ?? out?.script ?? null;
      const a = script ? blockSpentAddress(script, opts) : null;
      if (a) return { txid: c.txid, inputIndex: c.vin, blockHeight: c.height, satoshis: c.value ?? out?.value ?? null, address: spentAddressString(a) };
    }
    return null;
  });
}

export function scriptOpts(node: NodeServices): ScriptOpts & RenderOptions {
  return { ccEnabled: node.baseParams.ccEnabled };
}

/** GetTransaction(fAllowSlow=false) for previous outputs: the mempool first, then the txindex. */
async function prevOutputs(node: NodeServices, outpoints: [string, number][]): Promise<Output[]> {
  if (outpoints.length === 0) return [];
  const txids = [...new Set(outpoints.map(([t]) => t))];
  const mem = new Map<string, MempoolEntry | null>();
  await Promise.all(txids.map(async (t) => mem.set(t, await askRpc(node.mempool, { op: 'get', txid: t }))));
  const fromChain = await askRpc(node.chainStore, { op: 'outputsOf', outpoints });
  return outpoints.map(([t, n], i) => {
    const e = mem.get(t);
    if (e) {
      const o = e.tx.vout[n];
      return o ? { value: o.value, script: o.script } : null;
    }
    return fromChain[i] ?? null;
  });
}

/**
 * TxToJSONExpanded (rawtransaction.cpp:185-335) with the `hex` the caller puts first: the spent index's
 * vin address/value/valueSat and vout spentTxId/spentIndex/spentHeight, then the block fields.
 */
export async function txToJSONExpanded(node: NodeServices, tx: Transaction, hex: string, block: ChainTx | null): Promise<JsonObj> {
  const opts = scriptOpts(node);
  const txid = tx.txid();
  // komodod's komodo_notarized_height: a chain that was never notarised reports 0.
  const out: JsonObj = { hex, ...txHeaderToJSON(tx, txid, 0) };
  const prevs: [string, number][] = tx.isCoinbase() ? [] : tx.vin.map((i) => [i.prevout.txid(), i.prevout.index]);
  const owns: [string, number][] = tx.vout.map((_, n) => [txid, n]);
  const prevOuts = await prevOutputs(node, prevs);
  const spent = await getSpentIndex(node, [...prevs, ...owns], [...prevOuts, ...tx.vout.map((o) => ({ value: o.value, script: o.script }))]);

  out.vin = tx.vin.map((input, i) => {
    // Coin imports (is_import) do not occur: acnode has no import path.
    if (tx.isCoinbase()) return vinToJSON(tx, input);
    const base = vinToJSON(tx, input);
    const v: JsonObj = { txid: base.txid, vout: base.vout };
    const prev = prevOuts[i];
    if (prev) {
      const address = extractAddress(prev.script, opts);
      if (address !== null) v.address = address;
    }
    v.scriptSig = base.scriptSig;
    const s = spent[i];
    if (s) {
      if (s.satoshis !== null) {
        v.value = new Amount(s.satoshis);
        v.valueSat = s.satoshis;
      }
      // Pair("address", ...) again: a key already present keeps its place (pushKV replaces in place).
      if (s.address !== null) v.address = s.address;
    }
    v.sequence = input.sequence;
    return v;
  });
  out.vout = tx.vout.map((o, n) => {
    const v = voutToJSON(o, n, 'valueSat', opts);
    const s = spent[prevs.length + n];
    if (s) {
      v.spentTxId = s.txid;
      v.spentIndex = s.inputIndex;
      v.spentHeight = s.blockHeight;
    }
    return v;
  });
  txShieldedToJSON(tx, out);
  if (block) {
    out.blockhash = block.blockHash;
    if (block.confirmations > 0) {
      out.height = block.height;
      // komodo_dpowconfs: a chain never notarised reports the raw count.
      out.confirmations = block.confirmations;
      out.rawconfirmations = block.confirmations;
      out.time = block.time;
      out.blocktime = block.time;
    } else {
      out.height = -1;
      out.confirmations = 0;
      out.rawconfirmations = 0;
    }
  }
  return out;
}

/**
 * sendrawtransaction's way to the mempool: the calls started in one turn of the event loop (the
 * consecutive sendrawtransaction calls of a JSON-RPC batch, which the envelope starts together, and
 * those of the concurrent requests read in that turn) travel in arrival order as one acceptMany
 * message, one machine step instead of one per call, which the mempool starts at once (`gathered`).
 * A call alone is an accept marked `gathered`: it has waited its turn for company here already, and
 * the mempool starts it at once too instead of holding it another turn (two machine steps and a turn
 * of the loop on every call of a wallet submitting one at a time). Each caller still gets its own
 * answer, the one accepting them one by one in that order would give.
 */
class MempoolSubmitter {
  private group: SubmittedCall[] = [];
  private readonly sendGroup = (): void => this.send();

  constructor(private readonly mempool: Asker<MempoolProtocol>) {}

  accept(raw: Uint8Array, tx: Transaction, allowHighFees: boolean): Promise<string> {
    // The accept a call alone sends, made here once (no item spread into it later).
    const body: AcceptBody = { op: 'accept', raw, tx, allowHighFees, gathered: true };
    return new Promise((resolve, reject) => {
      if (this.group.push(new SubmittedCall(body, resolve, reject)) === 1) setImmediate(this.sendGroup);
    });
  }

  private send(): void {
    const group = this.group;
    this.group = [];
    if (group.length === 1) {
      const call = group[0]!;
      // The call itself receives the answer: no promise of the ask's and no promise job between the
      // mempool's reply and the call's (askRpc's would be two more promises and jobs a call).
      try {
        this.mempool.askTo(call.body, call);
      } catch (e) {
        call.reject(e);
      }
      return;
    }
    askRpc(this.mempool, { op: 'acceptMany', items: group.map(({ body: b }): AcceptItem => ({ raw: b.raw, tx: b.tx, allowHighFees: b.allowHighFees })) }).then(
      (outcomes) => group.forEach((g, i) => {
        const o = outcomes[i]!;
        if (o.ok) g.resolve(o.result);
        else g.reject(new RpcError(o.error.code, o.error.message));
      }),
      (e: unknown) => group.forEach((g) => g.reject(e)),
    );
  }
}

/** A sendrawtransaction call waiting for the mempool: its accept, and its caller's promise to settle. */
class SubmittedCall implements AskReceiver<string> {
  constructor(
    readonly body: AcceptBody,
    readonly resolve: (txid: string) => void,
    readonly reject: (e: unknown) => void,
  ) {}

  ok(txid: string): void {
    this.resolve(txid);
  }

  /** A ServiceFailure keeps its komodod code as an RPC error (askRpc's mapping). */
  fail(e: ServiceFailure): void {
    this.reject(asRpcFailure(e));
  }
}

type AcceptBody = Extract<MempoolProtocol['request'], { op: 'accept' }>;

/** sendrawtransaction's RPCTypeCheck list, made once (not an array per call). */
const SEND_TYPES: JsonTypeName[] = ['string', 'bool'];

/** The `rawtransactions` category: decoderawtransaction, decodescript, getrawtransaction, sendrawtransaction. */
export function rawTransactionMethods(node: NodeServices): RpcMethod[] {
  const submitter = new MempoolSubmitter(node.mempool);
  return [
    {
      name: 'getrawtransaction',
      category: 'rawtransactions',
      minArgs: 1,
      maxArgs: 2,
      help: HELP_getrawtransaction,
      handler: async (params) => {
        const txid = toHexReversed(parseHashV(params[0]!, 'parameter 1'));
        // params[1].get_int() != 0: booleans are rejected, as komodod does.
        const verbose = params.length > 1 ? getInt(params[1]!) !== 0 : false;
        const mem = await askRpc(node.mempool, { op: 'get', txid });
        let tx: Transaction;
        let block: ChainTx | null = null;
        if (mem) {
          tx = mem.tx;
        } else {
          block = await askRpc(node.chainStore, { op: 'tx', txid });
          if (block) {
            tx = block.tx;
          } else {
            // The txindex still names a block that left the active chain: height -1, no confirmations.
            const stale = await askRpc(node.chainStore, { op: 'staleTx', txid });
            if (!stale) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'No information available about transaction');
            tx = stale.tx;
            block = { tx, blockHash: stale.blockHash, height: -1, index: -1, time: 0, confirmations: 0 };
          }
        }
        const hex = toHex(tx.toRaw());
        if (!verbose) return hex;
        return (await txToJSONExpanded(node, tx, hex, block)) as JsonOut;
      },
    },
    {
      name: 'decoderawtransaction',
      category: 'rawtransactions',
      minArgs: 1,
      maxArgs: 1,
      help: HELP_decoderawtransaction,
      handler: (params) => {
        rpcTypeCheck(params, ['string']);
        const tx = decodeHexTx(getStr(params[0]!));
        if (!tx) throw new RpcError(RPC_DESERIALIZATION_ERROR, 'TX decode failed');
        return txToJSON(tx, scriptOpts(node)) as JsonOut;
      },
    },
    {
      name: 'decodescript',
      category: 'rawtransactions',
      minArgs: 1,
      maxArgs: 1,
      help: HELP_decodescript,
      handler: (params) => {
        rpcTypeCheck(params, ['string']);
        // An empty string is the empty script (valid); anything else must be hex.
        const script = getStr(params[0]!).length > 0 ? parseHexV(params[0]!, 'argument') : new Uint8Array(0);
        return decodeScriptToJSON(script, scriptOpts(node)) as JsonOut;
      },
    },
    {
      name: 'sendrawtransaction',
      category: 'rawtransactions',
      minArgs: 1,
      maxArgs: 2,
      // The mempool accepts in arrival order and answers a burst as one by one: a batch of these is one burst.
      startTogetherInBatch: true,
      help: HELP_sendrawtransaction,
      // Not async: the mempool's promise is the answer (a failure thrown here is the call's error all the same).
      handler: (params) => {
        // RPCTypeCheck without allowNull: an explicit null allowhighfees is -3.
        rpcTypeCheck(params, SEND_TYPES);
        const decoded = decodeHexTxBytes(getStr(params[0]!));
        if (!decoded) throw new RpcError(RPC_DESERIALIZATION_ERROR, 'TX decode failed');
        const allowHighFees = params.length > 1 ? getBool(params[1]!) : false;
        // The transaction as decoded (DecodeHexTx ignores trailing bytes); the mempool answers with
        // komodod's codes: the txid when already there, -27, -26 "code: reason", -25. Relay to peers
        // hangs off the mempool's txAccepted notice.
        return submitter.accept(decoded.raw, decoded.tx, allowHighFees);
      },
    },
  ];
}
