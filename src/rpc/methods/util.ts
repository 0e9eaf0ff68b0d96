import type { NodeServices } from '../../actors/protocol.js';
import { decodeAddress, p2shAddress, PUBKEY_ADDRESS } from '../../chain/address/address.js';
import { decodePaymentAddress } from '../../chain/address/zaddress.js';
import { MAX_SCRIPT_ELEMENT_SIZE } from '../../chain/consensus/script.js';
import { hash160 } from '../../chain/crypto/hash.js';
import { messageHash, recoverCompact } from '../../chain/crypto/message.js';
import { isValidPublicKey } from '../../chain/crypto/secp256k1.js';
import { decodeBase64Komodo } from '../../chain/encoding/base64.js';
import { equalBytes, hexBytes, isHex, toHex, toHexReversed } from '../../chain/encoding/hex.js';
import { multisigScript } from '../../chain/script/multisig.js';
import { getOpReturnData, parseHexLenient, tryDecodeTokenOpRet } from '../../chain/tokens/index.js';
import { BufferReader } from '../../chain/encoding/reader.js';
import { RpcError, RPC_INVALID_ADDRESS_OR_KEY, RPC_TYPE_ERROR } from '../errors.js';
import type { JsonOut, JsonValue } from '../json-value.js';
import { getArr, getInt, getInt64, getStr, rpcTypeCheck } from '../params.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from '../table.js';
import { askRpc } from '../ask.js';
import { uint256S } from './chain-json.js';

/** CPubKey::GetLen: the size a key's first byte announces (0: not a key). */
function cpubkeyLength(header: number): number {
  if (header === 2 || header === 3) return 33;
  if (header === 4 || header === 6 || header === 7) return 65;
  return 0;
}

/** CPubKey(ParseHex(ks)).IsFullyValid(): the size its header announces, and on the curve. */
function fullyValidKey(k: Uint8Array): boolean {
  return k.length > 0 && cpubkeyLength(k[0]!) === k.length && isValidPublicKey(k);
}

/**
 * _createmultisig_redeemScript (rpc/misc.cpp): each key is a wallet address whose full public key the
 * wallet holds, or a hex public key; the script must fit MAX_SCRIPT_ELEMENT_SIZE.
 */
export async function multisigRedeemScript(node: NodeServices, params: readonly JsonValue[]): Promise<Uint8Array> {
  const nRequired = getInt(params[0]!);
  const keys = getArr(params[1]!);
  if (nRequired < 1) throw new Error('a multisignature address must require at least one key to redeem');
  if (keys.length < nRequired) {
    throw new Error(`not enough keys supplied (got ${keys.length} keys, but need at least ${nRequired} to redeem)`);
  }
  if (keys.length > 16) throw new Error('Number of addresses involved in the multisignature address creation > 16\nReduce the number');
  const pubkeys: Uint8Array[] = [];
  for (const k of keys) {
    const ks = getStr(k);
    const dest = decodeAddress(ks);
    if (dest) {
      if (dest.version !== PUBKEY_ADDRESS) throw new Error(`${ks} does not refer to a key`);
      const mine = await askRpc(node.wallet, { op: 'keyById', keyId: dest.hash });
      if (!mine) throw new Error(`no full public key for address ${ks}`);
      if (!fullyValidKey(mine.pubkey)) throw new Error(' Invalid public key: ' + ks);
      pubkeys.push(mine.pubkey);
    } else if (ks.length > 0 && isHex(ks)) {
      const pk = hexBytes(ks);
      if (!fullyValidKey(pk)) throw new Error(' Invalid public key: ' + ks);
      pubkeys.push(pk);
    } else {
      throw new Error(' Invalid public key: ' + ks);
    }
  }
  const script = multisigScript(nRequired, pubkeys);
  if (script.length > MAX_SCRIPT_ELEMENT_SIZE) {
    throw new Error(`redeemScript exceeds size limit: ${script.length} > ${MAX_SCRIPT_ELEMENT_SIZE}`);
  }
  return script;
}

/** FOREACH_EVAL's names (cc/eval.h) as EvalToStr prints them; any other code as "0x%x". */
const EVAL_NAMES = new Map<number, string>([
  [0xe1, 'EVAL_IMPORTPAYOUT'], [0xe2, 'EVAL_IMPORTCOIN'], [0xe3, 'EVAL_ASSETS'], [0xe4, 'EVAL_FAUCET'],
  [0xe5, 'EVAL_REWARDS'], [0xe6, 'EVAL_DICE'], [0xe7, 'EVAL_FSM'], [0xe8, 'EVAL_AUCTION'], [0xe9, 'EVAL_LOTTO'],
  [0xea, 'EVAL_HEIR'], [0xeb, 'EVAL_CHANNELS'], [0xec, 'EVAL_ORACLES'], [0xf0, 'EVAL_PAYMENTS'],
  [0xf1, 'EVAL_GATEWAYS'], [0xf2, 'EVAL_TOKENS'], [0xf3, 'EVAL_IMPORTGATEWAY'],
]);

export function evalToStr(code: number): string {
  return EVAL_NAMES.get(code) ?? `0x${code.toString(16)}`;
}

/** sprintf("%c", b) read back as a C string: a NUL byte gives "", any other byte that one character. */
function funcChar(b: number): string {
  return b === 0 ? '' : String.fromCharCode(b);
}

/** decodeccopret's per-opret object: eval_code and function from the data's first two bytes. */
function opretEntry(data: Uint8Array): { eval_code: string; function: string } {
  return { eval_code: evalToStr(data[0]!), function: funcChar(data[1]!) };
}

/** komodod's decodeccopret (rpc/misc.cpp), its token branch included. */
function decodeCCOpRet(script: Uint8Array): JsonOut {
  const array: JsonOut[] = [];
  let vopret: Uint8Array;
  const token = tryDecodeTokenOpRet(script);
  if (token && token.blobs.length > 0) {
    // A token opret carrying further oprets: one entry for the token opret, then the first
    // extra opret (a serialized vector) is the one described below.
    const outer = getOpReturnData(script);
    array.push(outer.length > 1 ? opretEntry(outer) : { error: 'invalid or no CC opret data for Token OP_RETURN' });
    try {
      vopret = new BufferReader(token.blobs[0]!.data).varBytes().slice();
    } catch {
      // `if (!E_UNMARSHAL(...)) return (0);`: the method answers the number 0.
      return 0;
    }
  } else {
    vopret = getOpReturnData(script);
  }
  if (vopret.length > 1) {
    array.push(opretEntry(vopret));
    return { result: 'success', OpRets: array };
  }
  return { result: 'error', error: 'invalid or no CC opret data' };
}

/**
 * komodo_txnotarizedconfirmed (cc/CCutils.cpp) on a chain never notarised: a confirmed transaction
 * with at least MIN_NON_NOTARIZED_CONFIRMS (101 in komodod's release builds, 2 only under TESTMODE).
 */
const MIN_NON_NOTARIZED_CONFIRMS = 101;

/** The `util` category methods that need no wallet machinery (rpc/misc.cpp). */
export function utilMethods(node: NodeServices): RpcMethod[] {
  return [...scriptMethods(node), ...chainUtilMethods(node)];
}

/** Scripts and messages: multisig addresses, signed messages, CC OP_RETURN data. */
function scriptMethods(node: NodeServices): RpcMethod[] {
  return [
    {
      name: 'createmultisig',
      category: 'util',
      minArgs: 2,
      maxArgs: 2,
      help: (env) =>
        'createmultisig nrequired ["key",...]\n' +
        '\nCreates a multi-signature address with n signature of m keys required.\n' +
        'It returns a json object with the address and redeemScript.\n' +
        '\nArguments:\n' +
        '1. nrequired      (numeric, required) The number of required signatures out of the n keys or addresses.\n' +
        '2. "keys"       (string, required) A json array of keys which are Komodo addresses or hex-encoded public keys\n' +
        '     [\n' +
        '       "key"    (string) Komodo address or hex-encoded public key\n' +
        '       ,...\n' +
        '     ]\n' +
        '\nResult:\n' +
        '{\n' +
        '  "address":"multisigaddress",  (string) The value of the new multisig address.\n' +
        '  "redeemScript":"script"       (string) The string value of the hex-encoded redemption script.\n' +
        '}\n' +
        '\nExamples:\n' +
        '\nCreate a multisig address from 2 addresses\n' +
        helpExampleCli(env, 'createmultisig', '2 "[\\"RTZMZHDFSTFQst8XmX2dR4DaH87cEUs3gC\\",\\"RNKiEBduBru6Siv1cZRVhp4fkZNyPska6z\\"]"') +
        '\nAs a json rpc call\n' +
        helpExampleRpc(env, 'createmultisig', '2, "[\\"RTZMZHDFSTFQst8XmX2dR4DaH87cEUs3gC\\",\\"RNKiEBduBru6Siv1cZRVhp4fkZNyPska6z\\"]"'),
      handler: async (params) => {
        const inner = await multisigRedeemScript(node, params);
        return { address: p2shAddress(inner), redeemScript: toHex(inner) };
      },
    },
    {
      name: 'verifymessage',
      category: 'util',
      minArgs: 3,
      maxArgs: 3,
      help: (env) =>
        'verifymessage "komodoaddress" "signature" "message"\n' +
        '\nVerify a signed message\n' +
        '\nArguments:\n' +
        '1. "komodoaddress"    (string, required) The Komodo address to use for the signature.\n' +
        '2. "signature"       (string, required) The signature provided by the signer in base 64 encoding (see signmessage).\n' +
        '3. "message"         (string, required) The message that was signed.\n' +
        '\nResult:\n' +
        'true|false   (boolean) If the signature is verified or not.\n' +
        '\nExamples:\n' +
        '\nUnlock the wallet for 30 seconds\n' +
        helpExampleCli(env, 'walletpassphrase', '"mypassphrase" 30') +
        '\nCreate the signature\n' +
        helpExampleCli(env, 'signmessage', '"RNKiEBduBru6Siv1cZRVhp4fkZNyPska6z" "my message"') +
        '\nVerify the signature\n' +
        helpExampleCli(env, 'verifymessage', '"RNKiEBduBru6Siv1cZRVhp4fkZNyPska6z" "signature" "my message"') +
        '\nAs json rpc\n' +
        helpExampleRpc(env, 'verifymessage', '"RNKiEBduBru6Siv1cZRVhp4fkZNyPska6z", "signature", "my message"'),
      handler: (params) => {
        const address = getStr(params[0]!);
        const signature = getStr(params[1]!);
        const message = getStr(params[2]!);
        const dest = decodeAddress(address);
        if (!dest) throw new RpcError(RPC_TYPE_ERROR, 'Invalid address');
        if (dest.version !== PUBKEY_ADDRESS) throw new RpcError(RPC_TYPE_ERROR, 'Address does not refer to key');
        const sig = decodeBase64Komodo(signature);
        if (sig.invalid) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Malformed base64 encoding');
        const pub = recoverCompact(messageHash(message), sig.bytes);
        if (!pub) return false;
        return equalBytes(hash160(pub), dest.hash);
      },
    },
    {
      name: 'decodeccopret',
      category: 'util',
      minArgs: 1,
      maxArgs: 1,
      help:
        'decodeccopret scriptPubKey\n' +
        '\nReturns eval code and function id for CC OP RETURN data.\n' +
        '\nArguments:\n' +
        '1. scriptPubKey      (string, required) Hex of scriptPubKey with OP_RETURN data.\n' +
        '\nResult:\n' +
        '{\n' +
        '  eval_code,  (string) Eval code name.\n' +
        '  function,   (char) Function id char.\n' +
        '}\n',
      // ParseHex: the leading run of hex pairs, whitespace between them skipped.
      handler: (params) => decodeCCOpRet(parseHexLenient(getStr(params[0]!))),
    },
  ];
}

/** The clock (regtest), notarised confirmations and shielded address validation. */
function chainUtilMethods(node: NodeServices): RpcMethod[] {
  return [
    {
      name: 'setmocktime',
      category: 'hidden',
      minArgs: 1,
      maxArgs: 1,
      help:
        'setmocktime timestamp\n' +
        '\nSet the local time to given timestamp (-regtest only)\n' +
        '\nArguments:\n' +
        '1. timestamp  (integer, required) Unix seconds-since-epoch timestamp\n' +
        '   Pass 0 to go back to using the system time.',
      handler: (params) => {
        if (!node.config.chain.regtest) throw new Error('setmocktime for regression testing (-regtest mode) only');
        rpcTypeCheck(params, ['number']);
        const t = getInt64(params[0]!);
        if (!node.clock) throw new Error('setmocktime: this node has no settable clock');
        // SetMockTime keeps an int64; a time past 2^53 seconds cannot be a block time anyway.
        node.clock.setMockTime(Number(t));
        return null;
      },
    },
    {
      name: 'txnotarizedconfirmed',
      category: 'util',
      minArgs: 1,
      maxArgs: 1,
      help:
        'txnotarizedconfirmed txid\n' +
        '\nReturns true if transaction is notarized on chain that has dPoW or if confirmation number is greater than 60 on chain that does not have dPoW.\n' +
        '\nArguments:\n' +
        '1. txid      (string, required) Transaction id.\n' +
        '\nResult:\n' +
        '{\n' +
        '  true,  (bool) The value the check.\n' +
        '}\n',
      handler: async (params) => {
        const txid = uint256S(getStr(params[0]!));
        // myGetTransaction: a mempool transaction has no block (false); an unknown one is false too.
        const found = await askRpc(node.chainStore, { op: 'tx', txid });
        const result = found !== null && found.height > 0 && found.confirmations >= MIN_NON_NOTARIZED_CONFIRMS;
        return { result };
      },
    },
    {
      name: 'z_validateaddress',
      category: 'util',
      minArgs: 1,
      maxArgs: 1,
      help: (env) =>
        'z_validateaddress "zaddr"\n' +
        '\nReturn information about the given z address.\n' +
        '\nArguments:\n' +
        '1. "zaddr"     (string, required) The z address to validate\n' +
        '\nResult:\n' +
        '{\n' +
        '  "isvalid" : true|false,      (boolean) If the address is valid or not. If not, this is the only property returned.\n' +
        '  "address" : "zaddr",         (string) The z address validated\n' +
        '  "type" : "xxxx",             (string) "sprout" or "sapling"\n' +
        '  "ismine" : true|false,       (boolean) If the address is yours or not\n' +
        '  "payingkey" : "hex",         (string) [sprout] The hex value of the paying key, a_pk\n' +
        '  "transmissionkey" : "hex",   (string) [sprout] The hex value of the transmission key, pk_enc\n' +
        '  "diversifier" : "hex",       (string) [sapling] The hex value of the diversifier, d\n' +
        '  "diversifiedtransmissionkey" : "hex", (string) [sapling] The hex value of pk_d\n' +
        '}\n' +
        '\nExamples:\n' +
        helpExampleCli(env, 'z_validateaddress', '"zcWsmqT4X2V4jgxbgiCzyrAfRT1vi1F4sn7M5Pkh66izzw8Uk7LBGAH3DtcSMJeUb2pi3W4SQF8LMKkU2cUuVP68yAGcomL"') +
        helpExampleRpc(env, 'z_validateaddress', '"zcWsmqT4X2V4jgxbgiCzyrAfRT1vi1F4sn7M5Pkh66izzw8Uk7LBGAH3DtcSMJeUb2pi3W4SQF8LMKkU2cUuVP68yAGcomL"'),
      handler: (params) => {
        const text = getStr(params[0]!);
        // A transparent address is no payment address: komodod answers {"isvalid": false} for it too.
        const z = decodePaymentAddress(text, node.config.chain.regtest);
        if (!z) return { isvalid: false };
        // The wallet holds no shielded keys, so none of these addresses is its own (ismine false).
        if (z.type === 'sprout') {
          return { isvalid: true, address: text, type: 'sprout', payingkey: toHexReversed(z.aPk), transmissionkey: toHexReversed(z.pkEnc), ismine: false };
        }
        return { isvalid: true, address: text, type: 'sapling', diversifier: toHex(z.d), diversifiedtransmissionkey: toHexReversed(z.pkD), ismine: false };
      },
    },
  ];
}
