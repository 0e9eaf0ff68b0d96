import type { NodeServices } from '../../actors/protocol.js';
import type { ChainParams } from '../../chain/params/chain-params.js';
import { Transaction } from '../../chain/tx/transaction.js';
import { Outpoint, TxIn } from '../../chain/tx/input.js';
import { TxOut } from '../../chain/tx/output.js';
import { BufferReader } from '../../chain/encoding/reader.js';
import { toHex, toHexReversed } from '../../chain/encoding/hex.js';
import { addressToScript, decodeWIF } from '../../chain/address/index.js';
import { isP2PK, isP2PKH, isP2SH, opReturnScript } from '../../chain/script/script.js';
import { extractDestinations } from '../../chain/script/standard.js';
import { scriptToAsm } from '../../chain/script/asm.js';
import { SAPLING_BRANCH_ID, OVERWINTER_BRANCH_ID, SPROUT_BRANCH_ID, TESTDUMMY_BRANCH_ID } from '../../chain/consensus/upgrades.js';
import { TX_EXPIRY_HEIGHT_THRESHOLD } from '../../chain/consensus/tx.js';
import { SIGHASH_NAMES, TempKeyStore, signVariants, type InputError, type PrevOut } from '../../chain/tx/sign.js';
import { RpcError, RPC_DESERIALIZATION_ERROR, RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER } from '../errors.js';
import { JsonObject, JsonNumber, type JsonValue, type JsonOut } from '../json-value.js';
import { getArr, getInt, getInt64, getObj, getStr, parseHashO, parseHexO, parseHexV, rpcTypeCheck, rpcTypeCheckObj } from '../params.js';
import { amountFromValue, valueFromAmount } from '../amount.js';
import type { RpcMethod } from '../table.js';
import { askRpc as ask } from '../ask.js';
import { ensureWalletIsUnlocked } from './wallet-crypt.js';
import { decodeHexTx } from './rawtransactions.js';
import { createrawtransactionHelp, fundrawtransactionHelp, signrawtransactionHelp } from './wallet-help.js';

/** The tip and the parameters in force there: what "the next block" means for building and signing. */
export async function nextBlock(node: NodeServices): Promise<{ height: number; params: ChainParams; mtp: number }> {
  const tip = await ask(node.chainStore, { op: 'tip' });
  const params = (await ask(node.chainStore, { op: 'params' })) ?? node.baseParams;
  return { height: tip.height + 1, params, mtp: tip.mtp };
}

/** The CTxDestination an output script reduces to (ExtractDestination), as a comparable string. */
function destinationKey(script: Uint8Array): string | null {
  const d = extractDestinations(script, { ccEnabled: false });
  if (!d || d.type === 'multisig') return null;
  const h = d.destinations[0]!;
  return `${h.kind}:${toHex(h.hash)}`;
}

/** komodod's IsHex: non-empty, even length, hex digits only. */
function isHexString(s: string): boolean {
  return s.length > 0 && s.length % 2 === 0 && /^[0-9a-fA-F]*$/.test(s);
}

/** UniValue::getValStr: a string's text, a number's text, "" for anything else (null, bools print "1"/""). */
function valStr(v: JsonValue): string {
  if (typeof v === 'string') return v;
  if (v instanceof JsonNumber) return v.text;
  if (v === true) return '1';
  return '';
}

/** createrawtransaction (rawtransaction.cpp:675-833). */
export function buildRawTransaction(params: JsonValue[], next: { height: number; params: ChainParams }, expiryDelta = 200): Transaction {
  rpcTypeCheck(params, ['array', 'object', 'number', 'number'], true);
  if (params[0] === null || params[1] === null) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter, arguments 1 and 2 must be non-null');
  const inputs = getArr(params[0]!);
  const sendTo = getObj(params[1]!);
  const chain = next.params;
  const f = chain.txFormat(next.height, expiryDelta);
  const tx = Transaction.ofFormat(f);
  if (params.length > 2 && params[2] !== null) {
    const lockTime = getInt64(params[2]!);
    if (lockTime < 0n || lockTime > 0xffffffffn) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter, locktime out of range');
    tx.lockTime = Number(lockTime);
  }
  if (params.length > 3 && params[3] !== null) {
    if (!chain.isOverwinterActive(next.height)) {
      throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter, expiryheight can only be used if Overwinter is active when the transaction is mined');
    }
    const expiry = getInt64(params[3]!);
    if (expiry < 0n || expiry >= BigInt(TX_EXPIRY_HEIGHT_THRESHOLD)) {
      throw new RpcError(RPC_INVALID_PARAMETER, `Invalid parameter, expiryheight must be nonnegative and less than ${TX_EXPIRY_HEIGHT_THRESHOLD}.`);
    }
    tx.expiryHeight = Number(expiry);
  }
  for (const input of inputs) {
    const o = getObj(input);
    const txid = parseHashO(o, 'txid');
    const voutV = o.get('vout');
    if (!(voutV instanceof JsonNumber)) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter, missing vout key');
    const n = getInt(voutV);
    if (n < 0) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter, vout must be positive');
    let sequence = tx.lockTime ? 0xfffffffe : 0xffffffff;
    const seq = o.get('sequence');
    // komodod reads the sequence with get_int: values above 2^31-1 fail, negatives wrap to uint32.
    if (seq instanceof JsonNumber) sequence = getInt(seq) >>> 0;
    tx.vin.push(new TxIn(new Outpoint(txid, n), new Uint8Array(0), sequence));
  }
  const seen = new Set<string>();
  const maxMoney = chain.maxMoney;
  sendTo.entries.forEach(([name, value]) => {
    if (name === 'data') {
      // sendTo[name_]: the first value under "data", as its string form.
      const data = parseHexV(valStr(sendTo.get('data')), 'Data');
      tx.vout.push(new TxOut(0n, opReturnScript(data)));
      return;
    }
    let script: Uint8Array;
    const fromAddress = addressToScript(name);
    if (fromAddress) script = fromAddress;
    else if (isHexString(name)) {
      script = Uint8Array.from(Buffer.from(name, 'hex'));
      if (!(destinationKey(script) !== null && (isP2PKH(script) || isP2PK(script) || isP2SH(script)))) {
        throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, `Invalid script: ${name} (only P2PKH, P2PK and P2SH scripts are allowed)`);
      }
    } else {
      throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, `Invalid Komodo address or script: ${name}`);
    }
    // Destinations compare as CTxDestination: a P2PK script and its key's R-address collide.
    const dest = destinationKey(script)!;
    if (seen.has(dest)) throw new RpcError(RPC_INVALID_PARAMETER, `Invalid parameter, duplicated destination: ${name}`);
    seen.add(dest);
    tx.vout.push(new TxOut(amountFromValue(value, maxMoney), script));
  });
  return tx;
}

// IsConsensusBranchId: every upgrade's id, the test dummy included.
const BRANCH_IDS = new Set([SPROUT_BRANCH_ID, TESTDUMMY_BRANCH_ID, OVERWINTER_BRANCH_ID, SAPLING_BRANCH_ID]);

/** ParseHexToUInt32: `istringstream >> std::hex` — leading space, optional 0x, hex digits; 0 on failure. */
export function parseHexToUInt32(s: string): number {
  const m = /^\s*([+-]?)(0[xX])?([0-9a-fA-F]+)/.exec(s);
  if (!m) return 0;
  let v = BigInt(`0x${m[3]}`);
  if (v > 0xffffffffn) return 0xffffffff;
  if (m[1] === '-') v = (0x100000000n - v) & 0xffffffffn;
  return Number(v);
}

/** The coins the inputs name: the chain's UTXO set, then outputs of mempool transactions (CCoinsViewMemPool). */
async function inputCoins(node: NodeServices, tx: Transaction): Promise<Map<string, PrevOut>> {
  const outpoints = tx.vin.map((i) => [i.prevout.txid(), i.prevout.index] as [string, number]);
  const chainCoins = await ask(node.chainStore, { op: 'coins', outpoints });
  const out = new Map<string, PrevOut>();
  for (let i = 0; i < outpoints.length; i++) {
    const [txid, n] = outpoints[i]!;
    const c = chainCoins[i];
    if (c) {
      out.set(`${txid}:${n}`, { script: c.script, value: c.value });
      continue;
    }
    const entry = await ask(node.mempool, { op: 'get', txid });
    const o = entry?.tx.vout[n];
    if (o) out.set(`${txid}:${n}`, { script: o.script, value: o.value });
  }
  return out;
}

/** signrawtransaction (rawtransaction.cpp:984-1277). */
async function signRawTransaction(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  rpcTypeCheck(params, ['string', 'array', 'array', 'string', 'string'], true);
  const data = parseHexV(params[0]!, 'argument 1');
  const variants: Transaction[] = [];
  const r = new BufferReader(data);
  while (r.left > 0) {
    try {
      variants.push(Transaction.read(r));
    } catch {
      throw new RpcError(RPC_DESERIALIZATION_ERROR, 'TX decode failed');
    }
  }
  if (variants.length === 0) throw new RpcError(RPC_DESERIALIZATION_ERROR, 'Missing transaction');
  const merged = variants[0]!;
  const view = await inputCoins(node, merged);

  let temp: TempKeyStore | undefined;
  if (params.length > 2 && params[2] !== null) {
    temp = new TempKeyStore();
    for (const k of getArr(params[2]!)) {
      const decoded = decodeWIF(getStr(k));
      if (!decoded) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Invalid private key');
      temp.addKey(decoded.key, decoded.compressed);
    }
  } else await ensureWalletIsUnlocked(node);
  if (params.length > 1 && params[1] !== null) {
    for (const p of getArr(params[1]!)) {
      if (!(p instanceof JsonObject)) throw new RpcError(RPC_DESERIALIZATION_ERROR, 'expected object with {"txid\'","vout","scriptPubKey"}');
      rpcTypeCheckObj(p, { txid: 'string', vout: 'number', scriptPubKey: 'string' });
      const txid = parseHashO(p, 'txid');
      const n = getInt(p.get('vout'));
      if (n < 0) throw new RpcError(RPC_DESERIALIZATION_ERROR, 'vout must be positive');
      const script = parseHexO(p, 'scriptPubKey');
      const key = `${toHexReversed(txid)}:${n}`;
      const known = view.get(key);
      if (known && Buffer.compare(known.script, script) !== 0) {
        throw new RpcError(RPC_DESERIALIZATION_ERROR, `Previous output scriptPubKey mismatch:\n${scriptToAsm(known.script)}\nvs:\n${scriptToAsm(script)}`);
      }
      // komodod resets the value to 0 unless `amount` is given.
      const value = p.has('amount') ? amountFromValue(p.get('amount'), (await nextBlock(node)).params.maxMoney) : 0n;
      view.set(key, { script, value });
      if (temp && isP2SH(script)) {
        rpcTypeCheckObj(p, { txid: 'string', vout: 'number', scriptPubKey: 'string', redeemScript: 'string' });
        const v = p.get('redeemScript');
        if (v !== null) temp.addScript(parseHexV(v, 'redeemScript'));
      }
    }
  }
  let hashType = 1;
  if (params.length > 3 && params[3] !== null) {
    const name = getStr(params[3]!);
    const t = SIGHASH_NAMES.get(name);
    if (t === undefined) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid sighash param');
    hashType = t;
  }
  const next = await nextBlock(node);
  let branchId = next.params.currentEpochBranchId(next.height);
  if (params.length > 4 && params[4] !== null) {
    const text = getStr(params[4]!);
    branchId = parseHexToUInt32(text);
    if (!BRANCH_IDS.has(branchId)) throw new Error(`${text} is not a valid consensus branch id`);
  }
  const coins = merged.vin.map((i) => view.get(i.prevout.key()) ?? null);
  let result: { tx: Transaction; errors: InputError[] };
  if (temp) {
    result = signVariants(variants, coins, { keys: temp.keyLookup, scripts: temp.scriptLookup, hashType, branchId, ccEnabled: next.params.ccEnabled });
  } else {
    result = await ask(node.wallet, { op: 'sign', variants, coins, hashType, branchId });
  }
  const out: { [k: string]: JsonOut } = { hex: result.tx.toHex(), complete: result.errors.length === 0 };
  if (result.errors.length > 0) out.errors = result.errors.map((e) => ({ ...e }));
  return out;
}

/** The wallet-side raw-transaction methods (category rawtransactions, as komodod files them). */
export function rawWalletMethods(node: NodeServices): RpcMethod[] {
  return [
    {
      name: 'createrawtransaction',
      category: 'rawtransactions',
      minArgs: 2,
      maxArgs: 4,
      help: createrawtransactionHelp,
      handler: async (params) => buildRawTransaction(params, await nextBlock(node), node.config.txexpirydelta).toHex(),
    },
    {
      name: 'fundrawtransaction',
      category: 'rawtransactions',
      minArgs: 1,
      maxArgs: 1,
      help: fundrawtransactionHelp,
      handler: async (params) => {
        rpcTypeCheck(params, ['string']);
        const tx = decodeHexTx(getStr(params[0]!));
        if (!tx) throw new RpcError(RPC_DESERIALIZATION_ERROR, 'TX decode failed');
        const r = await ask(node.wallet, { op: 'fund', tx });
        return { hex: r.tx.toHex(), changepos: r.changePos, fee: valueFromAmount(r.fee) };
      },
    },
    {
      name: 'signrawtransaction',
      category: 'rawtransactions',
      minArgs: 1,
      maxArgs: 5,
      help: signrawtransactionHelp,
      handler: (params) => signRawTransaction(node, params),
    },
  ];
}

