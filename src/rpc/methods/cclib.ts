import type { NodeServices } from '../../actors/protocol.js';
import { CCLIB_METHODS, CCLIB_NAME, cclibGlobal } from '../../chain/cc/cclib.js';
import { EVAL_FIRSTUSER, EVAL_LASTUSER } from '../../chain/cc/index.js';
import { cAtoll, parseHexLenient } from '../../chain/tokens/cparse.js';
import type { JsonOut } from '../json-value.js';
import { getStr } from '../params.js';
import type { RpcMethod } from '../table.js';
import { CCSupport } from './cc-support.js';

/** glibc atoi: (int)strtol, the long saturating, then cut to 32 bits. */
export function cAtoi(text: string): number {
  return Number(BigInt.asIntN(32, cAtoll(text)));
}

const EVAL_RANGE_ERROR = 'evalcode not between EVAL_FIRSTUSER and EVAL_LASTUSER\n';

/**
 * The CClib category (rpcwallet.cpp): cclibaddress, cclibinfo and cclib over the library komodod
 * links (libcc.a, -DBUILD_CUSTOMCC). acnode runs no -ac_cclib library, so cclib itself always
 * answers komodod's "no -ac_cclib= specified".
 */
export function cclibMethods(node: NodeServices): RpcMethod[] {
  const cc = new CCSupport(node);
  return [
    {
      name: 'cclibaddress',
      category: 'CClib',
      help: 'cclibaddress [evalcode] [pubkey]\n',
      maxArgs: 2,
      handler: async (params) => {
        let evalCode = EVAL_FIRSTUSER;
        let pubkey: Uint8Array = new Uint8Array(0);
        if (params.length >= 1) {
          // komodod stores atoi's result in a uint8_t: "272" is 16.
          evalCode = cAtoi(getStr(params[0]!)) & 0xff;
          if (evalCode < EVAL_FIRSTUSER || evalCode > EVAL_LASTUSER) throw new Error(EVAL_RANGE_ERROR);
          if (params.length === 2) pubkey = parseHexLenient(getStr(params[1]!));
        }
        const global = cclibGlobal(evalCode);
        const my = await cc.ensureCC(evalCode);
        return (await cc.ccAddressResult({ name: 'CClib', global, globalPubkey: global.pubkey }, pubkey, my)) as JsonOut;
      },
    },
    {
      name: 'cclibinfo',
      category: 'CClib',
      help: 'cclibinfo\n',
      maxArgs: 0,
      handler: async () => {
        await cc.ensureCC(0);
        // CClib_info: a funcid outside ' '..127 is printed as a number, else as its character.
        const methods = CCLIB_METHODS.map((m) => ({
          evalcode: m.evalCode,
          funcid: m.funcid < 0x20 || m.funcid >= 128 ? m.funcid : String.fromCharCode(m.funcid),
          name: m.name,
          method: m.method,
          help: m.help,
          params_required: m.required,
          params_max: m.max,
        }));
        return { result: 'success', CClib: CCLIB_NAME, methods };
      },
    },
    {
      name: 'cclib',
      category: 'CClib',
      help: 'cclib method [evalcode] [JSON params]\n',
      maxArgs: 3,
      handler: () => {
        if (node.baseParams.ac.ccLib === '') throw new Error('no -ac_cclib= specified\n');
        // Departure: komodod would run the named library's methods; acnode loads no CC library.
        throw new Error(`acnode does not load -ac_cclib libraries (-ac_cclib=${node.baseParams.ac.ccLib})\n`);
      },
    },
  ];
}
