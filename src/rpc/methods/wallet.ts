import type { NodeServices } from '../../actors/protocol.js';
import { Secret } from '../../chain/crypto/secret.js';
import { COIN } from '../../chain/consensus/amount.js';
import { fromHex, toHex } from '../../chain/encoding/hex.js';
import { sha256 } from '../../chain/crypto/hash.js';
import { hash160 } from '../../chain/crypto/hash.js';
import { publicKeyFromPrivate } from '../../chain/crypto/secp256k1.js';
import { decodeAddress, addressToScript, decodeWIF, encodeWIF, encodeAddress, PUBKEY_ADDRESS, SCRIPT_ADDRESS } from '../../chain/address/index.js';
import { extractDestinations, solver } from '../../chain/script/standard.js';
import { ISMINE_SPENDABLE, ISMINE_WATCH_ONLY } from '../../actors/wallet/protocol.js';
import {
  RpcError,
  RPC_INVALID_ADDRESS_OR_KEY,
  RPC_INVALID_PARAMETER,
  RPC_TYPE_ERROR,
  RPC_WALLET_ERROR,
  RPC_WALLET_INSUFFICIENT_FUNDS,
} from '../errors.js';
import type { JsonOut, JsonValue } from '../json-value.js';
import { getArr, getBool, getInt, getObj, getStr, rpcTypeCheck } from '../params.js';
import { amountFromValue, valueFromAmount } from '../amount.js';
import type { RpcMethod } from '../table.js';
import { askRpc as ask } from '../ask.js';
import { ensureWalletIsUnlocked } from './wallet-crypt.js';
import * as H from './wallet-help.js';
import { historyMethods } from './wallet-history.js';
import { backupMethods } from './wallet-dump.js';

/** komodo_segid32 & 0x3f: the low 6 bits of the first little-endian uint32 of SHA256(address). */
export function segid(address: string): number {
  const h = sha256(Buffer.from(address, 'utf8'));
  return h[0]! & 0x3f;
}

/** MAX_MONEY of the chain: the bound of every amount param. */
const maxMoney = (node: NodeServices) => node.baseParams.maxMoney;

/** GetBalance and its minconf/account forms, kept as totals by the wallet (src/actors/wallet/coins.ts). */
async function balance(node: NodeServices, minConf = 0, account?: string, untrusted = false, watchOnly = false): Promise<bigint> {
  return ask(node.wallet, { op: 'balance', minConf, ...(account !== undefined ? { account } : {}), untrusted, ...(watchOnly ? { watchOnly } : {}) });
}

/** The wallet methods of komodod's rpcwallet.cpp / rpcdump.cpp / misc.cpp that clients use around raw transactions. */
export function walletMethods(node: NodeServices): RpcMethod[] {
  return [...keyMethods(node), ...coinMethods(node), ...historyMethods(node), ...infoMethods(node), ...backupMethods(node)];
}

/** Keys and addresses (rpcwallet.cpp, rpcdump.cpp, misc.cpp): new and account addresses, validateaddress, key import and export. */
function keyMethods(node: NodeServices): RpcMethod[] {
  return [
    {
      name: 'getnewaddress',
      category: 'wallet',
      maxArgs: 1,
      help: H.getnewaddressHelp,
      handler: (params) => getnewaddress(node, params),
    },
    {
      name: 'getaccountaddress',
      category: 'wallet',
      minArgs: 1,
      maxArgs: 1,
      help: H.getaccountaddressHelp,
      handler: async (params) => ask(node.wallet, { op: 'accountAddress', account: getStr(params[0]!) }),
    },
    {
      name: 'validateaddress',
      category: 'util',
      minArgs: 1,
      maxArgs: 1,
      help: H.validateaddressHelp,
      handler: (params) => validateaddress(node, params),
    },
    {
      name: 'importprivkey',
      category: 'wallet',
      minArgs: 1,
      maxArgs: 5,
      help: H.importprivkeyHelp,
      handler: (params) => importprivkey(node, params),
    },
    {
      name: 'dumpprivkey',
      category: 'wallet',
      minArgs: 1,
      maxArgs: 1,
      help: H.dumpprivkeyHelp,
      handler: (params) => dumpprivkey(node, params),
    },
  ];
}

async function getnewaddress(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const account = params.length > 0 ? getStr(params[0]!) : '';
  return ask(node.wallet, { op: 'newAddress', account });
}

async function validateaddress(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const text = getStr(params[0]!);
  const dest = decodeAddress(text);
  if (!dest) return { isvalid: false };
  const address = encodeAddress(dest.version, dest.hash);
  const script = addressToScript(address)!;
  const out: Record<string, JsonOut> = { isvalid: true, address, scriptPubKey: toHex(script), segid: segid(text) };
  // IsMine(*pwalletMain, dest): its level (watchonly.ts), with the address-book name and a P2SH's redeem script.
  const d = await ask(node.wallet, { op: 'describe', script, address });
  out.ismine = (d.level & ISMINE_SPENDABLE) !== 0;
  out.iswatchonly = (d.level & ISMINE_WATCH_ONLY) !== 0;
  if (dest.version === PUBKEY_ADDRESS) {
    const k = await ask(node.wallet, { op: 'keyById', keyId: dest.hash });
    out.isscript = false;
    if (k) {
      out.pubkey = toHex(k.pubkey);
      out.iscompressed = k.compressed;
    }
  } else {
    out.isscript = true;
    if (d.redeemScript) Object.assign(out, describeRedeemScript(d.redeemScript));
  }
  if (d.account !== undefined) out.account = d.account;
  return out;
}

/** DescribeAddressVisitor for a CScriptID the wallet holds: the redeem script's type, hex, addresses and (multisig) sigsrequired. */
function describeRedeemScript(redeem: Uint8Array): Record<string, JsonOut> {
  const type = solver(redeem, { ccEnabled: false }).type;
  const ex = extractDestinations(redeem, { ccEnabled: false });
  const addresses = (ex?.destinations ?? []).map((d) => encodeAddress(d.kind === 'key' ? PUBKEY_ADDRESS : SCRIPT_ADDRESS, d.hash));
  const out: Record<string, JsonOut> = { script: type, hex: toHex(redeem), addresses };
  if (type === 'multisig' && ex) out.sigsrequired = ex.reqSigs;
  return out;
}

async function importprivkey(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  await ensureWalletIsUnlocked(node);
  const secret = getStr(params[0]!);
  const label = params.length > 1 ? getStr(params[1]!) : '';
  const rescan = params.length > 2 ? getBool(params[2]!) : true;
  let height = 0;
  if (rescan && params.length === 4) height = getInt(params[3]!);
  if (params.length > 4) {
    // DecodeCustomSecret with another chain's WIF prefix byte.
    amountFromValue(params[4]!, maxMoney(node));
  }
  const tip = await ask(node.chainStore, { op: 'tip' });
  if (height < 0 || height > tip.height) throw new RpcError(RPC_WALLET_ERROR, 'Rescan height is out of range.');
  let decoded = decodeWIF(secret);
  if (params.length > 4) {
    const prefix = Number(amountFromValue(params[4]!, maxMoney(node)) / COIN);
    decoded = decodeWIF(secret, prefix & 0xff);
  }
  if (!decoded) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Invalid private key encoding');
  await ask(node.wallet, { op: 'importKey', secret: new Secret(decoded.key), compressed: decoded.compressed, label, rescan });
  return encodeAddress(PUBKEY_ADDRESS, hash160(publicKeyFromPrivate(decoded.key, decoded.compressed)));
}

async function dumpprivkey(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  await ensureWalletIsUnlocked(node);
  const address = getStr(params[0]!);
  const dest = decodeAddress(address);
  if (!dest) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Invalid transparent address');
  if (dest.version !== PUBKEY_ADDRESS) throw new RpcError(RPC_TYPE_ERROR, 'Address does not refer to a key');
  const k = await ask(node.wallet, { op: 'secret', keyId: dest.hash });
  if (!k) throw new RpcError(RPC_WALLET_ERROR, `Private key for address ${address} is not known`);
  return encodeWIF(k.secret.bytes, k.compressed);
}

/** Balances, coins and sends (rpcwallet.cpp). */
function coinMethods(node: NodeServices): RpcMethod[] {
  return [
    {
      name: 'getbalance',
      category: 'wallet',
      maxArgs: 3,
      help: H.getbalanceHelp,
      handler: (params) => getbalance(node, params),
    },
    {
      name: 'listunspent',
      category: 'wallet',
      maxArgs: 3,
      help: H.listunspentHelp,
      handler: (params) => listunspent(node, params),
    },
    {
      name: 'sendtoaddress',
      category: 'wallet',
      minArgs: 2,
      maxArgs: 5,
      help: H.sendtoaddressHelp,
      handler: (params) => sendtoaddress(node, params),
    },
    {
      name: 'sendmany',
      category: 'wallet',
      minArgs: 2,
      maxArgs: 5,
      help: H.sendmanyHelp,
      handler: (params) => sendmany(node, params),
    },
  ];
}

async function getbalance(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  if (params.length === 0) return valueFromAmount(await balance(node));
  const minDepth = params.length > 1 ? getInt(params[1]!) : 1;
  // includeWatchonly: filter ISMINE_SPENDABLE | ISMINE_WATCH_ONLY.
  const watchOnly = params.length > 2 ? getBool(params[2]!) : false;
  const account = getStr(params[0]!);
  // "*": komodod's own sum over the wallet's transactions (receipts less sends and fees), not GetBalance's coins.
  if (account === '*') return valueFromAmount(await ask(node.wallet, { op: 'balanceAll', minConf: minDepth, watchOnly }));
  // GetAccountBalance: the account's receipts minus its sends and fees, plus its moves (src/actors/wallet/accounts.ts),
  // its keyless destinations' too (watch-only ones with includeWatchonly).
  return valueFromAmount(await ask(node.wallet, { op: 'accountBalance', account, minConf: minDepth, watchOnly }));
}

async function listunspent(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  rpcTypeCheck(params, ['number', 'number', 'array']);
  const minDepth = params.length > 0 ? getInt(params[0]!) : 1;
  const maxDepth = params.length > 1 ? getInt(params[1]!) : 9999999;
  const wanted = new Set<string>();
  // Key ids of the P2PKH addresses asked for, and the P2SH addresses (multisig and watched scripts).
  let ids: { idHex: string; p2sh?: string }[] | undefined;
  if (params.length > 2) {
    for (const a of getArr(params[2]!)) {
      const s = getStr(a);
      const dest = decodeAddress(s);
      if (!dest) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, `Invalid Komodo address: ${s}`);
      const canonical = encodeAddress(dest.version, dest.hash);
      if (wanted.has(canonical)) throw new RpcError(RPC_INVALID_PARAMETER, `Invalid parameter, duplicated address: ${s}`);
      wanted.add(canonical);
      if (dest.version === PUBKEY_ADDRESS) (ids ??= []).push({ idHex: toHex(dest.hash) });
      else (ids ??= []).push({ idHex: '', p2sh: canonical });
    }
    if (wanted.size > 0) ids ??= [];
  }
  // Order: komodod's is mapWallet's (rpcwallet.cpp:2838 AvailableCoins, wallet.cpp:3257 std::map<uint256>,
  // uint256.h:61 memcmp), the addresses only filtering it; acnode's is the book's (README: departures).
  const coins = await ask(node.wallet, { op: 'unspent', minDepth, maxDepth, ...(ids ? { addresses: ids } : {}) });
  const out: JsonOut[] = [];
  for (const c of coins) {
    const e: Record<string, JsonOut> = { txid: c.txid, vout: c.n, generated: c.coinbase };
    if (c.address !== null) {
      e.address = c.address;
      e.segid = segid(c.address);
      if (c.account !== undefined) e.account = c.account;
      if (c.redeemScript) e.redeemScript = toHex(c.redeemScript);
    }
    e.amount = valueFromAmount(c.value);
    // No interest exists on asset chains: komodod prints 0 for outputs of txs with a locktime.
    if (c.lockTime !== 0) e.interest = valueFromAmount(0n);
    e.scriptPubKey = toHex(c.script);
    e.rawconfirmations = c.confirmations;
    e.confirmations = c.confirmations;
    // COutput::fSpendable: false for a watch-only output.
    e.spendable = c.spendable;
    out.push(e);
  }
  return out;
}

async function sendtoaddress(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const script = addressToScript(getStr(params[0]!));
  if (!script) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Invalid Komodo address');
  const amount = amountFromValue(params[1]!, maxMoney(node));
  if (amount <= 0n) throw new RpcError(RPC_TYPE_ERROR, 'Invalid amount for send');
  const mapValue: Record<string, string> = {};
  if (params.length > 2 && params[2] !== null && getStr(params[2]!) !== '') mapValue.comment = getStr(params[2]!);
  if (params.length > 3 && params[3] !== null && getStr(params[3]!) !== '') mapValue.to = getStr(params[3]!);
  const subtractFee = params.length > 4 ? getBool(params[4]!) : false;
  // EnsureWalletIsUnlocked (-13), then SendMoney's balance check (-6), inside the send: one wallet call, not three.
  return ask(node.wallet, { op: 'send', recipients: [{ script, value: amount, subtractFee }], mapValue, checkBalance: true });
}

async function sendmany(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
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
    const amount = amountFromValue(value, maxMoney(node));
    if (amount <= 0n) throw new RpcError(RPC_TYPE_ERROR, 'Invalid amount for send');
    total += amount;
    const subtractFee = subtract.some((a) => getStr(a) === name);
    recipients.push({ script, value: amount, subtractFee });
  });
  await ensureWalletIsUnlocked(node);
  // GetAccountBalance(account): "" is the default account and "*" an account like any other (komodod has no wildcard here).
  const funds = await ask(node.wallet, { op: 'accountBalance', account, minConf: minDepth });
  if (total > funds) throw new RpcError(RPC_WALLET_INSUFFICIENT_FUNDS, 'Account has insufficient funds');
  try {
    return await ask(node.wallet, { op: 'send', recipients, mapValue, fromAccount: account });
  } catch (e) {
    // sendmany reports CreateTransaction failures as -6 and a failed commit as "Transaction commit failed".
    if (e instanceof RpcError && e.code === RPC_WALLET_ERROR) {
      if (e.message.startsWith('Error: The transaction was rejected')) throw new RpcError(RPC_WALLET_ERROR, 'Transaction commit failed');
      throw new RpcError(RPC_WALLET_INSUFFICIENT_FUNDS, e.message.startsWith('Error: This transaction requires') ? 'Insufficient funds' : e.message);
    }
    throw e;
  }
}

/** The wallet's summary and the node's -pubkey. */
function infoMethods(node: NodeServices): RpcMethod[] {
  return [
    {
      name: 'getwalletinfo',
      category: 'wallet',
      minArgs: 0,
      maxArgs: 0,
      help: H.getwalletinfoHelp,
      handler: () => getwalletinfo(node),
    },
    {
      name: 'setpubkey',
      category: 'wallet',
      maxArgs: 1,
      help: H.setpubkeyHelp,
      handler: (params) => setpubkey(node, params),
    },
  ];
}

async function getwalletinfo(node: NodeServices): Promise<JsonOut> {
  // GetOldestKeyPoolTime tops the pool up first (TopUpKeyPool), so keypoolsize reads -keypool + 1.
  const info = await ask(node.wallet, { op: 'walletInfo' });
  return {
    walletversion: 60000,
    balance: valueFromAmount(info.balance),
    unconfirmed_balance: valueFromAmount(info.unconfirmed),
    immature_balance: valueFromAmount(info.immature),
    txcount: info.txcount,
    keypoololdest: info.pool.oldest,
    keypoolsize: info.pool.size,
    // Present once the wallet is encrypted (IsCrypted), as komodod prints it.
    ...(info.unlockedUntil !== undefined ? { unlocked_until: info.unlockedUntil } : {}),
    paytxfee: valueFromAmount(info.payTxFee),
  };
}

async function setpubkey(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const text = getStr(params[0] ?? null);
  const info = await ask(node.wallet, { op: 'info' });
  const result: Record<string, JsonOut> = {};
  let current = info.externalPubkey;
  if (!current) {
    if (text.length === 66) {
      const pub = Uint8Array.from(Buffer.from(text.padEnd(66, '0').slice(0, 66), 'hex'));
      const keyId = hash160(pub);
      const k = await ask(node.wallet, { op: 'keyById', keyId });
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
}
