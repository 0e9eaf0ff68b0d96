import { ensureWalletIsUnlocked } from './wallet-crypt.js';
import type { NodeServices } from '../../actors/protocol.js';
import { decodeAddress, PUBKEY_ADDRESS } from '../../chain/address/address.js';
import { toHex } from '../../chain/encoding/hex.js';
import { addressToScript } from '../../chain/address/index.js';
import { RpcError, RPC_INVALID_ADDRESS_OR_KEY, RPC_MISC_ERROR, RPC_TYPE_ERROR, RPC_WALLET_INSUFFICIENT_FUNDS } from '../errors.js';
import type { JsonOut, JsonValue } from '../json-value.js';
import { getBool, getInt, getStr } from '../params.js';
import { amountFromValue, valueFromAmount } from '../amount.js';
import type { RpcMethod } from '../table.js';
import { askRpc as ask } from '../ask.js';
import { segid } from './wallet.js';
import * as H from './wallet-accounts-help.js';

/**
 * komodod's accounts family (rpcwallet.cpp at 0adeeab): getaccount, setaccount, getaddressesbyaccount,
 * listaccounts, getreceivedbyaccount, listreceivedbyaddress, listreceivedbyaccount, move, sendfrom,
 * getbalance64 and listaddressgroupings. komodod's AccountFromValue takes any string, so named accounts
 * work although the help texts say they "MUST be" "" (the deprecation is in the text only).
 * ASSETCHAINS_PRIVATE's "cant use transparent addresses in private chain" (move, sendfrom) never
 * applies: acnode refuses -ac_private on every chain it runs.
 */
export function walletAccountMethods(node: NodeServices): RpcMethod[] {
  const m = (name: string, help: RpcMethod['help'], minArgs: number | undefined, maxArgs: number | undefined, handler: (p: JsonValue[]) => Promise<JsonOut>): RpcMethod => ({
    name,
    category: 'wallet',
    help,
    ...(minArgs !== undefined ? { minArgs } : {}),
    ...(maxArgs !== undefined ? { maxArgs } : {}),
    handler,
  });
  return [
    m('getaccount', H.getaccountHelp, 1, 1, (p) => getaccount(node, p)),
    m('setaccount', H.setaccountHelp, 1, 2, (p) => setaccount(node, p)),
    m('getaddressesbyaccount', H.getaddressesbyaccountHelp, 1, 1, (p) => ask(node.wallet, { op: 'addressesByAccount', account: getStr(p[0]!) })),
    m('listaccounts', H.listaccountsHelp, 0, 2, (p) => listaccounts(node, p)),
    m('getreceivedbyaccount', H.getreceivedbyaccountHelp, 1, 2, (p) => getreceivedbyaccount(node, p)),
    m('listreceivedbyaddress', H.listreceivedbyaddressHelp, 0, 3, (p) => listReceived(node, p, false)),
    m('listreceivedbyaccount', H.listreceivedbyaccountHelp, 0, 3, (p) => listReceived(node, p, true)),
    m('move', H.moveHelp, 3, 5, (p) => move(node, p)),
    m('sendfrom', H.sendfromHelp, 3, 6, (p) => sendfrom(node, p)),
    // listaddressgroupings throws its help on fHelp only: any number of params is taken.
    m('listaddressgroupings', H.listaddressgroupingsHelp, undefined, undefined, () => listaddressgroupings(node)),
    {
      name: 'getbalance64',
      category: 'wallet',
      // komodod's whole "help": runtime_error("getbalance64\n") when given params.
      help: 'getbalance64\n',
      maxArgs: 0,
      // komodod's getbalance64 computes instead of throwing when asked for help, so `help` never lists it.
      inHelp: () => false,
      handler: () => getbalance64(node),
    },
  ];
}

/** DecodeDestination + IsValidDestination, komodod's -5 otherwise. */
function destination(text: string): { version: number; hash: Uint8Array } {
  const dest = decodeAddress(text);
  if (!dest) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Invalid Komodo address');
  return dest;
}

async function getaccount(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const dest = destination(getStr(params[0]!));
  // mapAddressBook's name, "" when the address is not listed (a P2SH address never is here).
  if (dest.version !== PUBKEY_ADDRESS) return '';
  const k = await ask(node.wallet, { op: 'keyById', keyId: dest.hash });
  return k?.account ?? '';
}

async function setaccount(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const dest = destination(getStr(params[0]!));
  const account = params.length > 1 ? getStr(params[1]!) : '';
  // Only the wallet's own addresses (IsMine) are labelled.
  const done = dest.version === PUBKEY_ADDRESS && (await ask(node.wallet, { op: 'setAccount', keyId: toHex(dest.hash), account }));
  if (!done) throw new RpcError(RPC_MISC_ERROR, 'setaccount can only be used with own address');
  return null;
}

async function listaccounts(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const minConf = params.length > 0 ? getInt(params[0]!) : 1;
  const watchOnly = params.length > 1 ? getBool(params[1]!) : false;
  const rows = await ask(node.wallet, { op: 'listAccounts', minConf, watchOnly });
  // A Map keeps std::map's byte order even for account names that look like integers.
  return new Map<string, JsonOut>(rows.map((r) => [r.account, valueFromAmount(r.amount)]));
}

async function getreceivedbyaccount(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  // minconf is read before the account, as komodod does.
  const minConf = params.length > 1 ? getInt(params[1]!) : 1;
  const account = getStr(params[0]!);
  return valueFromAmount(await ask(node.wallet, { op: 'receivedByAccount', account, minConf }));
}

async function listReceived(node: NodeServices, params: JsonValue[], byAccount: boolean): Promise<JsonOut> {
  const minConf = params.length > 0 ? getInt(params[0]!) : 1;
  const includeEmpty = params.length > 1 ? getBool(params[1]!) : false;
  const watchOnly = params.length > 2 ? getBool(params[2]!) : false;
  const rows = await ask(node.wallet, { op: 'listReceived', minConf, includeEmpty, watchOnly, byAccount });
  return rows.map((r) => {
    const o: Record<string, JsonOut> = {};
    if (r.watchOnly) o.involvesWatchonly = true;
    if (!byAccount) o.address = r.address!;
    o.account = r.account;
    o.amount = valueFromAmount(r.amount);
    // nConf stays INT_MAX when nothing was tallied (includeempty): printed as 0.
    const conf = r.confirmations === Number.MAX_SAFE_INTEGER ? 0 : r.confirmations;
    o.rawconfirmations = conf;
    // komodo_dpowconfs is the depth itself on a chain never notarised.
    o.confirmations = conf;
    if (!byAccount) o.txids = r.txids ?? [];
    return o;
  });
}

async function move(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const from = getStr(params[0]!);
  const to = getStr(params[1]!);
  const amount = amountFromValue(params[2]!, node.baseParams.maxMoney);
  if (amount <= 0n) throw new RpcError(RPC_TYPE_ERROR, 'Invalid amount for send');
  // komodod: "unused parameter, used to be nMinDepth, keep type-checking it though".
  if (params.length > 3) getInt(params[3]!);
  const comment = params.length > 4 ? getStr(params[4]!) : '';
  // No balance check: komodod lets an account go negative by a move.
  return ask(node.wallet, { op: 'move', from, to, amount, comment });
}

async function sendfrom(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const account = getStr(params[0]!);
  const address = getStr(params[1]!);
  destination(address);
  const script = addressToScript(address)!;
  const amount = amountFromValue(params[2]!, node.baseParams.maxMoney);
  if (amount <= 0n) throw new RpcError(RPC_TYPE_ERROR, 'Invalid amount for send');
  const minConf = params.length > 3 ? getInt(params[3]!) : 1;
  const mapValue: Record<string, string> = {};
  if (params.length > 4 && params[4] !== null && getStr(params[4]!) !== '') mapValue.comment = getStr(params[4]!);
  if (params.length > 5 && params[5] !== null && getStr(params[5]!) !== '') mapValue.to = getStr(params[5]!);
  await ensureWalletIsUnlocked(node);
  // Check funds: the account's GetAccountBalance at minconf, then SendMoney's own check of the wallet's balance.
  const funds = await ask(node.wallet, { op: 'accountBalance', account, minConf });
  if (amount > funds) throw new RpcError(RPC_WALLET_INSUFFICIENT_FUNDS, 'Account has insufficient funds');
  if (amount > (await ask(node.wallet, { op: 'balance', minConf: 0 }))) throw new RpcError(RPC_WALLET_INSUFFICIENT_FUNDS, 'Insufficient funds');
  // The coins are chosen from the whole wallet, as komodod's CreateTransaction does; the account is debited.
  return ask(node.wallet, { op: 'send', recipients: [{ script, value: amount, subtractFee: false }], mapValue, fromAccount: account });
}

async function listaddressgroupings(node: NodeServices): Promise<JsonOut> {
  const groups = await ask(node.wallet, { op: 'addressGroupings' });
  return groups.map((g) => g.map((a) => (a.account !== undefined ? [a.address, valueFromAmount(a.amount), a.account] : [a.address, valueFromAmount(a.amount)])));
}

/**
 * getbalance64: AvailableCoins (unconfirmed included, immature coinbases and locked coins not) split by
 * segid and by depth (under 100: "notstaking"); mature/immature are doubles ((double)total/COIN), the
 * 64 segid figures integers in satoshis.
 */
async function getbalance64(node: NodeServices): Promise<JsonOut> {
  const coins = await ask(node.wallet, { op: 'unspent', minDepth: Number.MIN_SAFE_INTEGER, maxDepth: Number.MAX_SAFE_INTEGER });
  const staking = new Array<bigint>(64).fill(0n);
  const notstaking = new Array<bigint>(64).fill(0n);
  let total = 0n;
  let total2 = 0n;
  for (const c of coins) {
    // Only outputs with a destination (ExtractDestination) are counted.
    if (c.address === null) continue;
    const s = segid(c.address);
    if (c.confirmations < 100) (notstaking[s]! += c.value), (total2 += c.value);
    else (staking[s]! += c.value), (total += c.value);
  }
  return { mature: Number(total) / 1e8, immature: Number(total2) / 1e8, staking, notstaking };
}
