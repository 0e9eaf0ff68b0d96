import type { NodeServices } from '../../actors/protocol.js';
import { askRpc } from '../ask.js';
import type { JsonOut } from '../json-value.js';
import { getStr } from '../params.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from '../table.js';

/**
 * kvupdate and kvsearch (komodod's key-value OP_RETURN store). komodod 0adeeab no longer reads 'K'
 * OP_RETURNs from blocks (commit ce4d34497 "remove deprecated KV OPRET in assetchains" took the
 * komodo_voutupdate call out; KOMODO_KV is filled only from komodostate events written by older
 * versions), so on a fresh chain its store is empty: kvsearch finds nothing, and kvupdate's
 * signature check against the absent owner fails (komodo_kvsigverify refuses a zero pubkey). acnode
 * answers both exactly so; no store is kept, since komodod fills none.
 */

/** sizeof(key) in kvsearch, sizeof(keyvalue) in kvupdate: IGUANA_MAXSCRIPTSIZE * 8. */
const KV_BUFFER = 10001 * 8;

/** strlen(s.c_str()): the UTF-8 bytes before the first NUL. */
function cStrlen(s: string): number {
  const nul = s.indexOf('\u0000');
  return Buffer.byteLength(nul === -1 ? s : s.slice(0, nul), 'utf8');
}

export function kvMethods(node: NodeServices): RpcMethod[] {
  return [
    {
      name: 'kvsearch',
      category: 'blockchain',
      minArgs: 1,
      maxArgs: 1,
      help: (env) =>
        'kvsearch key\n' +
        '\nSearch for a key stored via the kvupdate command. This feature is only available for asset chains.\n' +
        '\nArguments:\n' +
        '1. key                      (string, required) search the chain for this key\n' +
        '\nResult:\n' +
        '{\n' +
        '  "coin": "xxxxx",          (string) chain the key is stored on\n' +
        '  "currentheight": xxxxx,     (numeric) current height of the chain\n' +
        '  "key": "xxxxx",           (string) key\n' +
        '  "keylen": xxxxx,            (string) length of the key \n' +
        '  "owner": "xxxxx"          (string) hex string representing the owner of the key \n' +
        '  "height": xxxxx,            (numeric) height the key was stored at\n' +
        '  "expiration": xxxxx,        (numeric) height the key will expire\n' +
        '  "flags": x                  (numeric) 1 if the key was created with a password; 0 otherwise.\n' +
        '  "value": "xxxxx",         (string) stored value\n' +
        '  "valuesize": xxxxx          (string) amount of characters stored\n' +
        '}\n' +
        '\nExamples:\n' +
        helpExampleCli(env, 'kvsearch', 'examplekey') +
        helpExampleRpc(env, 'kvsearch', '"examplekey"'),
      handler: async (params, ctx) => {
        const key = getStr(params[0]!);
        const keylen = cStrlen(key);
        if (keylen <= 0) return { error: 'null key' };
        const tip = await askRpc(node.chainStore, { op: 'tip' });
        const out: Record<string, JsonOut> = { coin: ctx.env.chainName, currentheight: tip.height, key, keylen };
        // komodo_kvsearch over an empty KOMODO_KV (see above): never found.
        out.error = keylen < KV_BUFFER ? 'cant find key' : 'key too big';
        return out;
      },
    },
    {
      name: 'kvupdate',
      category: 'blockchain',
      minArgs: 3,
      help: (env) =>
        'kvupdate key "value" days passphrase\n' +
        '\nStore a key value. This feature is only available for asset chains.\n' +
        '\nArguments:\n' +
        '1. key                      (string, required) key\n' +
        '2. "value"                (string, required) value\n' +
        '3. days                     (numeric, required) amount of days(1440 blocks/day) before the key expires. Minimum 1 day\n' +
        '4. passphrase               (string, optional) passphrase required to update this key\n' +
        '\nResult:\n' +
        '{\n' +
        '  "coin": "xxxxx",          (string) chain the key is stored on\n' +
        '  "height": xxxxx,            (numeric) height the key was stored at\n' +
        '  "expiration": xxxxx,        (numeric) height the key will expire\n' +
        '  "flags": x,                 (string) amount of days the key will be stored \n' +
        '  "key": "xxxxx",           (numeric) stored key\n' +
        '  "keylen": xxxxx,            (numeric) length of the key\n' +
        '  "value": "xxxxx"          (numeric) stored value\n' +
        '  "valuesize": xxxxx,         (string) length of the stored value\n' +
        '  "fee": xxxxx                (string) transaction fee paid to store the key\n' +
        '  "txid": "xxxxx"           (string) transaction id\n' +
        '}\n' +
        '\nExamples:\n' +
        helpExampleCli(env, 'kvupdate', 'examplekey "examplevalue" 2 examplepassphrase') +
        helpExampleRpc(env, 'kvupdate', '"examplekey","examplevalue","2","examplepassphrase"'),
      handler: (params) => {
        // komodod reads the days, then the passphrase (komodo_kvprivkey), then the key, then the value.
        getStr(params[2]!);
        if (params.length >= 4) getStr(params[3]!);
        // keylen and valuesize are uint16_t in kvupdate: a 65536-byte key is a null key.
        const keylen = cStrlen(getStr(params[0]!)) & 0xffff;
        if (keylen === 0) return { error: 'null key' };
        getStr(params[1]!);
        // komodo_kvsearch finds nothing and returns -1, which the uint16_t refvaluesize holds as 65535:
        // the signature branch is taken, and komodo_kvsigverify fails on the zero owner pubkey.
        if (keylen + 65535 <= KV_BUFFER) return { error: 'error verifying sig, passphrase is probably wrong' };
        // Departure: past 14473 bytes of key komodod skips the check and sends its 'K' transaction;
        // acnode does not build that transaction (a store komodod itself never reads back).
        throw new Error('acnode does not send kvupdate transactions for keys over 14473 bytes');
      },
    },
  ];
}
