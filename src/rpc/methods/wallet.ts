import { existsSync, readFileSync, writeFileSync, mkdirSync, statSync } from 'node:fs';
import { resolve, join } from 'node:path';
import type { NodeServices } from '../../actors/services.js';
import type { TxDetail, UnspentView } from '../../actors/wallet/logic.js';
import { Secret } from '../../actors/wallet/secret.js';
import { fromHex, toHex } from '../../chain/encoding/hex.js';
import { sha256 } from '../../chain/crypto/hash.js';
import { hash160 } from '../../chain/crypto/hash.js';
import { publicKeyFromPrivate } from '../../chain/crypto/secp256k1.js';
import { decodeAddress, addressToScript, decodeWIF, encodeWIF, encodeAddress, PUBKEY_ADDRESS } from '../../chain/address/index.js';
import {
  RpcError,
  RPC_INVALID_ADDRESS_OR_KEY,
  RPC_INVALID_PARAMETER,
  RPC_TYPE_ERROR,
  RPC_WALLET_ERROR,
  RPC_WALLET_INSUFFICIENT_FUNDS,
  RPC_INTERNAL_ERROR,
} from '../errors.js';
import type { JsonOut, JsonValue } from '../json-value.js';
import { getArr, getBool, getInt, getObj, getStr, rpcTypeCheck } from '../params.js';
import { amountFromValue, valueFromAmount } from '../amount.js';
import type { RpcMethod } from '../table.js';
import { askRpc as ask } from '../ask.js';
import { nextBlock } from './rawwallet.js';
import * as H from './wallet-help.js';
import { listsinceblockHelp } from './address.js';

/** komodo_segid32 & 0x3f: the low 6 bits of the first little-endian uint32 of SHA256(address). */
export function segid(address: string): number {
  const h = sha256(Buffer.from(address, 'utf8'));
  return h[0]! & 0x3f;
}

/** EncodeDumpTime: %Y-%m-%dT%H:%M:%SZ. */
export function encodeDumpTime(t: number): string {
  return new Date(t * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** DecodeDumpTime: the same format, 0 when it does not parse. */
export function decodeDumpTime(s: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z/.exec(s);
  if (!m) return 0;
  return Math.floor(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) / 1000);
}

/** EncodeDumpString: bytes <= 32, >= 128 and '%' as %hh. */
export function encodeDumpString(s: string): string {
  let out = '';
  for (const c of Buffer.from(s, 'utf8')) out += c <= 32 || c >= 128 || c === 0x25 ? `%${c.toString(16).padStart(2, '0')}` : String.fromCharCode(c);
  return out;
}

/** DecodeDumpString: komodod's %hh decoder (its digit arithmetic, any character accepted). */
export function decodeDumpString(s: string): string {
  const bytes: number[] = [];
  const b = Buffer.from(s, 'latin1');
  const nib = (c: number) => (((c << 24) >> 24 >> 6) * 9 + ((c - 48) & 15)) & 0xff;
  for (let pos = 0; pos < b.length; pos++) {
    let c = b[pos]!;
    if (c === 0x25 && pos + 2 < b.length) {
      c = ((nib(b[pos + 1]!) << 4) | nib(b[pos + 2]!)) & 0xff;
      pos += 2;
    }
    bytes.push(c);
  }
  return Buffer.from(bytes).toString('utf8');
}

/** SanitizeFilename: alphanumeric characters only. */
function sanitizeFilename(s: string): string {
  return s.replace(/[^A-Za-z0-9]/g, '');
}

/** GetExportDir: -exportdir made absolute and created; '' when unset. */
function exportDir(node: NodeServices): string {
  const dir = node.config.flags.get('exportdir');
  if (dir === undefined) return '';
  const path = resolve(dir);
  if (existsSync(path) && !statSync(path).isDirectory()) throw new RpcError(RPC_INTERNAL_ERROR, `The -exportdir '${path}' already exists and is not a directory`);
  if (!existsSync(path)) mkdirSync(path, { recursive: true });
  return path;
}

/**
 * backupwallet/dumpwallet's target: the file name must already be alphanumeric, inside -exportdir
 * (`unset` is the call's own message when -exportdir is not set).
 */
function exportPath(node: NodeServices, param: JsonValue, unset: string): string {
  const dir = exportDir(node);
  if (dir === '') throw new RpcError(RPC_WALLET_ERROR, unset);
  const name = getStr(param);
  const clean = sanitizeFilename(name);
  if (clean !== name) throw new RpcError(RPC_WALLET_ERROR, `Filename is invalid as only alphanumeric characters are allowed.  Try '${clean}' instead.`);
  return join(dir, clean);
}

interface ChainTxInfo {
  blockHash: string;
  height: number;
  index: number;
  time: number;
  confirmations: number;
}

/** The wallet methods of komodod's rpcwallet.cpp / rpcdump.cpp / misc.cpp that clients use around raw transactions. */
export function walletMethods(node: NodeServices): RpcMethod[] {
  const maxMoney = () => node.baseParams.maxMoney;

  /** GetBalance and its minconf/account forms, kept as totals by the wallet (src/actors/wallet/coins.ts). */
  async function balance(minConf = 0, account?: string, untrusted = false): Promise<bigint> {
    return ask<bigint>(node.wallet, { op: 'balance', minConf, ...(account !== undefined ? { account } : {}), untrusted });
  }

  /**
   * GetDepthInMainChain: the confirmations in the active chain, else 0 in the mempool, else -1 (a
   * conflicted, expired or stranded transaction). The mempool is asked first: a transaction mined in
   * between is then found in the chain, never taken for -1.
   */
  async function txDepth(txid: string): Promise<{ info: ChainTxInfo | null; depth: number }> {
    const inMempool = await ask<boolean>(node.mempool, { op: 'has', txid });
    const info = await ask<ChainTxInfo | null>(node.chain, { op: 'tx', txid });
    return { info, depth: info ? info.confirmations : inMempool ? 0 : -1 };
  }

  /** WalletTxToJSON (rpcwallet.cpp:135-162). */
  async function walletTxJSON(w: TxDetail, entry: Record<string, JsonOut>, at?: { info: ChainTxInfo | null; depth: number }): Promise<void> {
    const { info, depth: confirms } = at ?? (await txDepth(w.txid));
    entry.rawconfirmations = confirms;
    if (w.coinbase) entry.generated = true;
    if (info && confirms > 0) {
      entry.confirmations = confirms;
      entry.blockhash = info.blockHash;
      entry.blockindex = info.index;
      entry.blocktime = info.time;
      entry.expiryheight = w.expiryHeight;
    } else entry.confirmations = confirms;
    entry.txid = w.txid;
    // GetConflicts: the wallet's other transactions spending one of its inputs (read with the record).
    entry.walletconflicts = w.conflicts;
    // GetTxTime: the received time (fTimeReceivedIsTxTime), else the block's.
    entry.time = w.timeReceived;
    entry.timereceived = w.timeReceived;
    // mapValue is a std::map: its keys in byte order.
    for (const k of Object.keys(w.mapValue ?? {}).sort()) entry[k] = w.mapValue![k]!;
    entry.vjoinsplit = [];
  }

  /** ListTransactions (rpcwallet.cpp:1741-1824) for one transaction, account "*". */
  async function listTx(w: TxDetail, maturity: number, fLong: boolean, known?: { info: ChainTxInfo | null; depth: number }): Promise<Record<string, JsonOut>[]> {
    const out: Record<string, JsonOut>[] = [];
    const { received, sent, fee, size } = w;
    // One depth for all of the transaction's entries.
    const at = known ?? (await txDepth(w.txid));
    const { depth } = at;
    if (sent.length > 0 || fee !== 0n) {
      for (const s of sent) {
        const e: Record<string, JsonOut> = { account: '' };
        if (s.address) e.address = s.address;
        e.category = 'send';
        e.amount = valueFromAmount(-s.amount);
        e.vout = s.vout;
        e.fee = valueFromAmount(-fee);
        if (fLong) await walletTxJSON(w, e, at);
        e.size = size;
        out.push(e);
      }
    }
    for (const r of received) {
      const e: Record<string, JsonOut> = { account: r.account };
      if (r.address) e.address = r.address;
      if (w.coinbase) {
        const toMaturity = Math.max(0, maturity - depth);
        if (depth < 1) e.category = 'orphan';
        else if (toMaturity > 0) {
          e.category = 'immature';
          e.blockstomaturity = toMaturity;
        } else e.category = 'generate';
      } else e.category = 'receive';
      e.amount = valueFromAmount(r.amount);
      e.vout = r.vout;
      if (fLong) await walletTxJSON(w, e, at);
      e.size = size;
      out.push(e);
    }
    return out;
  }

  async function maturity(): Promise<number> {
    return (await nextBlock(node)).params.coinbaseMaturity;
  }

  return [
    {
      name: 'getnewaddress',
      category: 'wallet',
      maxArgs: 1,
      help: H.getnewaddressHelp,
      handler: async (params) => {
        const account = params.length > 0 ? getStr(params[0]!) : '';
        return ask<string>(node.wallet, { op: 'newAddress', account });
      },
    },
    {
      name: 'getaccountaddress',
      category: 'wallet',
      minArgs: 1,
      maxArgs: 1,
      help: H.getaccountaddressHelp,
      handler: async (params) => ask<string>(node.wallet, { op: 'accountAddress', account: getStr(params[0]!) }),
    },
    {
      name: 'validateaddress',
      category: 'util',
      minArgs: 1,
      maxArgs: 1,
      help: H.validateaddressHelp,
      handler: async (params) => {
        const text = getStr(params[0]!);
        const dest = decodeAddress(text);
        if (!dest) return { isvalid: false };
        const address = encodeAddress(dest.version, dest.hash);
        const script = addressToScript(address)!;
        const out: Record<string, JsonOut> = { isvalid: true, address, scriptPubKey: toHex(script), segid: segid(text) };
        if (dest.version === PUBKEY_ADDRESS) {
          const k = await ask<{ pubkey: Uint8Array; compressed: boolean; account: string | undefined } | null>(node.wallet, { op: 'keyById', keyId: dest.hash });
          out.ismine = k !== null;
          out.iswatchonly = false;
          out.isscript = false;
          if (k) {
            out.pubkey = toHex(k.pubkey);
            out.iscompressed = k.compressed;
          }
          if (k && k.account !== undefined) out.account = k.account;
        } else {
          out.ismine = false;
          out.iswatchonly = false;
          out.isscript = true;
        }
        return out;
      },
    },
    {
      name: 'importprivkey',
      category: 'wallet',
      minArgs: 1,
      maxArgs: 5,
      help: H.importprivkeyHelp,
      handler: async (params) => {
        const secret = getStr(params[0]!);
        const label = params.length > 1 ? getStr(params[1]!) : '';
        const rescan = params.length > 2 ? getBool(params[2]!) : true;
        let height = 0;
        if (rescan && params.length === 4) height = getInt(params[3]!);
        if (params.length > 4) {
          // DecodeCustomSecret with another chain's WIF prefix byte.
          amountFromValue(params[4]!, maxMoney());
        }
        const tip = await ask<{ height: number }>(node.chain, { op: 'tip' });
        if (height < 0 || height > tip.height) throw new RpcError(RPC_WALLET_ERROR, 'Rescan height is out of range.');
        let decoded = decodeWIF(secret);
        if (params.length > 4) {
          const prefix = Number(amountFromValue(params[4]!, maxMoney()) / 100_000_000n);
          decoded = decodeWIF(secret, prefix & 0xff);
        }
        if (!decoded) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Invalid private key encoding');
        await ask(node.wallet, { op: 'importKey', secret: new Secret(decoded.key), compressed: decoded.compressed, label, rescan });
        return encodeAddress(PUBKEY_ADDRESS, hash160(publicKeyFromPrivate(decoded.key, decoded.compressed)));
      },
    },
    {
      name: 'dumpprivkey',
      category: 'wallet',
      minArgs: 1,
      maxArgs: 1,
      help: H.dumpprivkeyHelp,
      handler: async (params) => {
        const address = getStr(params[0]!);
        const dest = decodeAddress(address);
        if (!dest) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Invalid transparent address');
        if (dest.version !== PUBKEY_ADDRESS) throw new RpcError(RPC_TYPE_ERROR, 'Address does not refer to a key');
        const k = await ask<{ secret: Secret; compressed: boolean } | null>(node.wallet, { op: 'secret', keyId: dest.hash });
        if (!k) throw new RpcError(RPC_WALLET_ERROR, `Private key for address ${address} is not known`);
        return encodeWIF(k.secret.bytes, k.compressed);
      },
    },
    {
      name: 'getbalance',
      category: 'wallet',
      maxArgs: 3,
      help: H.getbalanceHelp,
      handler: async (params) => {
        if (params.length === 0) return valueFromAmount(await balance());
        const minDepth = params.length > 1 ? getInt(params[1]!) : 1;
        if (params.length > 2) getBool(params[2]!);
        const account = getStr(params[0]!);
        if (account === '*') return valueFromAmount(await balance(minDepth));
        // GetAccountBalance: the outputs paying the account's addresses ("" holds the unlabelled ones).
        return valueFromAmount(await balance(minDepth, account));
      },
    },
    {
      name: 'listunspent',
      category: 'wallet',
      maxArgs: 3,
      help: H.listunspentHelp,
      handler: async (params) => {
        rpcTypeCheck(params, ['number', 'number', 'array']);
        const minDepth = params.length > 0 ? getInt(params[0]!) : 1;
        const maxDepth = params.length > 1 ? getInt(params[1]!) : 9999999;
        const wanted = new Set<string>();
        // Key ids of the P2PKH addresses asked for (a P2SH address holds no wallet coin).
        let ids: { idHex: string }[] | undefined;
        if (params.length > 2) {
          for (const a of getArr(params[2]!)) {
            const s = getStr(a);
            const dest = decodeAddress(s);
            if (!dest) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, `Invalid Komodo address: ${s}`);
            const canonical = encodeAddress(dest.version, dest.hash);
            if (wanted.has(canonical)) throw new RpcError(RPC_INVALID_PARAMETER, `Invalid parameter, duplicated address: ${s}`);
            wanted.add(canonical);
            if (dest.version === PUBKEY_ADDRESS) (ids ??= []).push({ idHex: toHex(dest.hash) });
          }
          if (wanted.size > 0) ids ??= [];
        }
        const coins = await ask<UnspentView[]>(node.wallet, { op: 'unspent', minDepth, maxDepth, ...(ids ? { addresses: ids } : {}) });
        const out: JsonOut[] = [];
        for (const c of coins) {
          const e: Record<string, JsonOut> = { txid: c.txid, vout: c.n, generated: c.coinbase };
          if (c.address !== null) {
            e.address = c.address;
            e.segid = segid(c.address);
            if (c.account !== undefined) e.account = c.account;
          }
          e.amount = valueFromAmount(c.value);
          // No interest exists on asset chains: komodod prints 0 for outputs of txs with a locktime.
          if (c.lockTime !== 0) e.interest = valueFromAmount(0n);
          e.scriptPubKey = toHex(c.script);
          e.rawconfirmations = c.confirmations;
          e.confirmations = c.confirmations;
          e.spendable = true;
          out.push(e);
        }
        return out;
      },
    },
    {
      name: 'sendtoaddress',
      category: 'wallet',
      minArgs: 2,
      maxArgs: 5,
      help: H.sendtoaddressHelp,
      handler: async (params) => {
        const script = addressToScript(getStr(params[0]!));
        if (!script) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Invalid Komodo address');
        const amount = amountFromValue(params[1]!, maxMoney());
        if (amount <= 0n) throw new RpcError(RPC_TYPE_ERROR, 'Invalid amount for send');
        const mapValue: Record<string, string> = {};
        if (params.length > 2 && params[2] !== null && getStr(params[2]!) !== '') mapValue.comment = getStr(params[2]!);
        if (params.length > 3 && params[3] !== null && getStr(params[3]!) !== '') mapValue.to = getStr(params[3]!);
        const subtractFee = params.length > 4 ? getBool(params[4]!) : false;
        if (amount > (await balance())) throw new RpcError(RPC_WALLET_INSUFFICIENT_FUNDS, 'Insufficient funds');
        return ask<string>(node.wallet, { op: 'send', recipients: [{ script, value: amount, subtractFee }], mapValue });
      },
    },
    {
      name: 'sendmany',
      category: 'wallet',
      minArgs: 2,
      maxArgs: 5,
      help: H.sendmanyHelp,
      handler: async (params) => {
        const account = getStr(params[0]!);
        const sendTo = getObj(params[1]!);
        const minDepth = params.length > 2 ? getInt(params[2]!) : 1;
        const mapValue: Record<string, string> = {};
        if (params.length > 3 && params[3] !== null && getStr(params[3]!) !== '') mapValue.comment = getStr(params[3]!);
        const subtract: JsonValue[] = params.length > 4 ? getArr(params[4]!) : [];
        const recipients: { script: Uint8Array; value: bigint; subtractFee: boolean }[] = [];
        let total = 0n;
        sendTo.entries.forEach(([name, value]) => {
          let script = addressToScript(name);
          if (!script) {
            // komodod also takes a hex pubkey: <pubkey> OP_CHECKSIG reduced to its key id.
            const pub = /^[0-9a-fA-F]*$/.test(name) && (name.length === 66 || name.length === 130) ? fromHex(name) : null;
            if (!pub || !(pub[0] === 2 || pub[0] === 3 || pub[0] === 4)) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, `Invalid Komodo address or pubkey: ${name}`);
            script = addressToScript(encodeAddress(PUBKEY_ADDRESS, hash160(pub)))!;
          }
          const amount = amountFromValue(value, maxMoney());
          if (amount <= 0n) throw new RpcError(RPC_TYPE_ERROR, 'Invalid amount for send');
          total += amount;
          const subtractFee = subtract.some((a) => getStr(a) === name);
          recipients.push({ script, value: amount, subtractFee });
        });
        const funds = await balance(minDepth, account === '' || account === '*' ? undefined : account, true);
        if (total > funds) throw new RpcError(RPC_WALLET_INSUFFICIENT_FUNDS, 'Account has insufficient funds');
        try {
          return await ask<string>(node.wallet, { op: 'send', recipients, mapValue });
        } catch (e) {
          // sendmany reports CreateTransaction failures as -6 and a failed commit as "Transaction commit failed".
          if (e instanceof RpcError && e.code === RPC_WALLET_ERROR) {
            if (e.message.startsWith('Error: The transaction was rejected')) throw new RpcError(RPC_WALLET_ERROR, 'Transaction commit failed');
            throw new RpcError(RPC_WALLET_INSUFFICIENT_FUNDS, e.message.startsWith('Error: This transaction requires') ? 'Insufficient funds' : e.message);
          }
          throw e;
        }
      },
    },
    {
      name: 'gettransaction',
      category: 'wallet',
      minArgs: 1,
      maxArgs: 2,
      help: H.gettransactionHelp,
      handler: async (params) => {
        const txid = uint256Hex(getStr(params[0]!));
        if (params.length > 1) getBool(params[1]!);
        const w = await ask<TxDetail | null>(node.wallet, { op: 'txDetail', txid, hex: true });
        if (!w) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Invalid or non-wallet transaction id');
        const { credit, debit, valueOut } = w;
        const fromMe = debit > 0n;
        const fee = fromMe ? valueOut - debit : 0n;
        const entry: Record<string, JsonOut> = { amount: valueFromAmount(credit - debit - fee) };
        if (fromMe) entry.fee = valueFromAmount(fee);
        const at = await txDepth(w.txid);
        await walletTxJSON(w, entry, at);
        entry.details = await listTx(w, await maturity(), false, at);
        entry.hex = w.hex!;
        return entry;
      },
    },
    {
      name: 'listtransactions',
      category: 'wallet',
      maxArgs: 4,
      help: H.listtransactionsHelp,
      handler: async (params) => {
        const account = params.length > 0 ? getStr(params[0]!) : '*';
        let count = params.length > 1 ? getInt(params[1]!) : 10;
        let from = params.length > 2 ? getInt(params[2]!) : 0;
        if (params.length > 3) getBool(params[3]!);
        if (count < 0) throw new RpcError(RPC_INVALID_PARAMETER, 'Negative count');
        if (from < 0) throw new RpcError(RPC_INVALID_PARAMETER, 'Negative from');
        // OrderedTxItems: by the order the wallet learned them; walked newest first, as far as the page needs.
        const txs = await ask<TxDetail[]>(node.wallet, { op: 'listTxs', count, from, account });
        const m = await maturity();
        const ret: Record<string, JsonOut>[] = [];
        for (const w of txs) {
          let entries = await listTx(w, m, true);
          if (account !== '*') entries = entries.filter((e) => e.account === account);
          ret.push(...entries);
          if (ret.length >= count + from) break;
        }
        if (from > ret.length) from = ret.length;
        if (from + count > ret.length) count = ret.length - from;
        return ret.slice(from, from + count).reverse();
      },
    },
    {
      // listsinceblock (rpcwallet.cpp:2049): added with the address-index work (src/rpc/methods/address.ts).
      name: 'listsinceblock',
      category: 'wallet',
      help: listsinceblockHelp,
      handler: async (params) => {
        let since: number | null = null;
        if (params.length > 0) {
          const e = await ask<{ height: number } | null>(node.chain, { op: 'entry', hash: uint256Hex(getStr(params[0]!)) });
          // An unknown hash lists everything; a block off the active chain counts by its own height, as komodod does.
          if (e) since = e.height;
        }
        let targetConfirms = 1;
        if (params.length > 1) {
          targetConfirms = getInt(params[1]!);
          if (targetConfirms < 1) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter');
        }
        if (params.length > 2) getBool(params[2]!);
        const tip = await ask<{ height: number }>(node.chain, { op: 'tip' });
        const depth = since === null ? -1 : 1 + tip.height - since;
        // depth < D holds for the transactions in blocks above the given one and for every one in no
        // block (0 in the mempool, -1 otherwise), and for nothing when D < -1 (no depth is below -1);
        // komodod's odd D == -1 (a given block two above the tip) lists everything, as no block does.
        // The wallet hands over those candidates only (its index by height), then each depth is checked.
        let txs: TxDetail[] = [];
        if (depth === -1) txs = await ask<TxDetail[]>(node.wallet, { op: 'txDetails' });
        else if (depth > -1) txs = await ask<TxDetail[]>(node.wallet, { op: 'sinceHeight', height: since });
        const m = await maturity();
        // mapWallet is a std::map by uint256: internal byte order (the display hex reversed by bytes).
        const internal = (t: string) => t.match(/../g)!.reverse().join('');
        const ordered = txs.sort((a, b) => (internal(a.txid) < internal(b.txid) ? -1 : internal(a.txid) > internal(b.txid) ? 1 : 0));
        const transactions: Record<string, JsonOut>[] = [];
        for (const w of ordered) {
          const at = await txDepth(w.txid);
          if (depth === -1 || at.depth < depth) transactions.push(...(await listTx(w, m, true, at)));
        }
        const last = tip.height + 1 - targetConfirms;
        const lastblock = last >= 0 ? await ask<string | null>(node.chain, { op: 'blockHash', height: last }) : null;
        return { transactions, lastblock: lastblock ?? '0'.repeat(64) };
      },
    },
    {
      name: 'getwalletinfo',
      category: 'wallet',
      minArgs: 0,
      maxArgs: 0,
      help: H.getwalletinfoHelp,
      handler: async () => {
        // GetOldestKeyPoolTime tops the pool up first (TopUpKeyPool), so keypoolsize reads -keypool + 1.
        const info = await ask<{ balance: bigint; unconfirmed: bigint; immature: bigint; txcount: number; pool: { oldest: number; size: number } }>(node.wallet, { op: 'walletInfo' });
        return {
          walletversion: 60000,
          balance: valueFromAmount(info.balance),
          unconfirmed_balance: valueFromAmount(info.unconfirmed),
          immature_balance: valueFromAmount(info.immature),
          txcount: info.txcount,
          keypoololdest: info.pool.oldest,
          keypoolsize: info.pool.size,
          paytxfee: valueFromAmount(0n),
        };
      },
    },
    {
      name: 'setpubkey',
      category: 'wallet',
      maxArgs: 1,
      help: H.setpubkeyHelp,
      handler: async (params) => {
        const text = getStr(params[0] ?? null);
        const info = await ask<{ externalPubkey: Uint8Array | null }>(node.wallet, { op: 'info' });
        const result: Record<string, JsonOut> = {};
        let current = info.externalPubkey;
        if (!current) {
          if (text.length === 66) {
            const pub = Uint8Array.from(Buffer.from(text.padEnd(66, '0').slice(0, 66), 'hex'));
            const keyId = hash160(pub);
            const k = await ask<unknown>(node.wallet, { op: 'keyById', keyId });
            if (!k) result.WARNING = 'privkey for this pubkey is not imported to wallet!';
            else result.ismine = 'true';
            await ask(node.wallet, { op: 'setPubkey', pubkey: pub });
            current = pub;
          } else result.error = 'pubkey is wrong length, must be 66 char hex string.';
        } else {
          result.error = 'Can only set pubkey once, to change it you need to restart your daemon.';
        }
        if (current) {
          result.address = encodeAddress(PUBKEY_ADDRESS, hash160(current));
          result.pubkey = toHex(current);
        }
        return result;
      },
    },
    {
      name: 'backupwallet',
      category: 'wallet',
      minArgs: 1,
      maxArgs: 1,
      help: H.backupwalletHelp,
      handler: async (params) => {
        const path = exportPath(node, params[0]!, 'Cannot backup wallet until the -exportdir option has been set');
        try {
          await ask(node.wallet, { op: 'backup', path });
        } catch {
          throw new RpcError(RPC_WALLET_ERROR, 'Error: Wallet backup failed!');
        }
        return path;
      },
    },
    {
      name: 'dumpwallet',
      category: 'wallet',
      minArgs: 1,
      maxArgs: 1,
      help: H.dumpwalletHelp,
      handler: async (params) => {
        const path = exportPath(node, params[0]!, 'Cannot export wallet until the komodod -exportdir option has been set');
        if (existsSync(path)) throw new RpcError(RPC_INVALID_PARAMETER, `Cannot overwrite existing file ${path}`);
        const keys = await ask<{ secret: Secret; pubkey: Uint8Array; compressed: boolean; time: number; origin: string; account?: string }[]>(node.wallet, { op: 'allKeys' });
        const tip = await ask<{ height: number; hash: string; time: number }>(node.chain, { op: 'tip' });
        let text = `# Wallet dump created by acnode\n`;
        text += `# * Created on ${encodeDumpTime(Math.floor(Date.now() / 1000))}\n`;
        text += `# * Best block at time of backup was ${tip.height} (${tip.hash}),\n`;
        text += `#   mined on ${encodeDumpTime(tip.time)}\n`;
        text += '\n';
        const sorted = keys.slice().sort((a, b) => a.time - b.time);
        for (const k of sorted) {
          const addr = encodeAddress(PUBKEY_ADDRESS, hash160(k.pubkey));
          const wif = encodeWIF(k.secret.bytes, k.compressed);
          const when = encodeDumpTime(k.time);
          if (k.account !== undefined) text += `${wif} ${when} label=${encodeDumpString(k.account)} # addr=${addr}\n`;
          else if (k.origin === 'pool') text += `${wif} ${when} reserve=1 # addr=${addr}\n`;
          else text += `${wif} ${when} change=1 # addr=${addr}\n`;
        }
        text += '\n';
        text += '# End of dump\n';
        writeFileSync(path, text, { mode: 0o600 });
        return path;
      },
    },
    {
      name: 'importwallet',
      category: 'wallet',
      minArgs: 1,
      maxArgs: 1,
      help: H.importwalletHelp,
      handler: async (params) => {
        const path = getStr(params[0]!);
        let text: string;
        try {
          text = readFileSync(path, 'latin1');
        } catch {
          throw new RpcError(RPC_INVALID_PARAMETER, 'Cannot open wallet dump file');
        }
        const entries: { secret: Secret; compressed: boolean; time: number; label?: string }[] = [];
        for (const line of text.split('\n')) {
          if (line === '' || line[0] === '#') continue;
          const v = line.split(' ');
          if (v.length < 2) continue;
          const key = decodeWIF(v[0]!);
          if (!key) continue;
          let label: string | undefined = '';
          let fLabel = true;
          for (let i = 2; i < v.length; i++) {
            if (v[i]!.startsWith('#')) break;
            if (v[i] === 'change=1' || v[i] === 'reserve=1') fLabel = false;
            if (v[i]!.startsWith('label=')) {
              label = decodeDumpString(v[i]!.slice(6));
              fLabel = true;
            }
          }
          entries.push({ secret: new Secret(key.key), compressed: key.compressed, time: decodeDumpTime(v[1]!), ...(fLabel ? { label } : {}) });
        }
        await ask(node.wallet, { op: 'importKeys', entries, rescan: true });
        return null;
      },
    },
  ];
}

/** uint256::SetHex: optional 0x, the hex digits read from the end, zero-padded (never an error). */
function uint256Hex(s: string): string {
  let t = s.trim();
  if (t.startsWith('0x') || t.startsWith('0X')) t = t.slice(2);
  const m = /^[0-9a-fA-F]*/.exec(t)![0];
  const digits = m.length > 64 ? m.slice(m.length - 64) : m.padStart(64, '0');
  return digits.toLowerCase();
}
